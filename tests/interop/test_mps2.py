"""The MPS2 AN385 firmware (port/mps2/: the full profile on a Cortex-M3
with a LAN9118 Ethernet controller) under QEMU's `mps2-an385` machine,
its NIC on a TAP in a fresh namespace: Linux pings it over IPv4 and IPv6
at sizes up to 4000 bytes (fragmented both ways), echoes through its UDP
and TCP echo services, curls 1 MB from its HTTP server with the SHA-256
checked, and uploads 1 MB to its discard service with nc, the byte count
and CRC-32 read back from the board's RAM. Then its RAM: the stack stayed
within its reservation, the stack's counters and the driver's show no
errors.

Needs root, qemu-system-arm and the firmware in build-mps2/ (scripts/test.sh
builds it; MOTEIP_MPS2_BUILD_DIR overrides).
"""
from __future__ import annotations

import hashlib
import os
import secrets
import socket
import struct
import time
import zlib

import pytest

from board_util import (MPS2_CFLAGS, MPS2_ELF, MPS2_TAP, QemuBoard, assert_closed_ports_refuse,
                        boot_mps2, elf_size, elf_symbols, ping6, probe_constants,
                        stack_counters, stack_peak, stack_rng_state, tcp_echo, udp_echo)
from moteip_netns import REPO, Netns
from tcp_util import body_sha256

RAM_BASE, RAM_SIZE = 0x20000000, 4 * 1024 * 1024
TAP = MPS2_TAP
BOARD_V4, BOARD_V6 = "192.0.2.2", "fd00::2"
NODE_DIRS = (REPO / "port" / "mps2", REPO / "port" / "common", REPO / "apps")


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """One booted MPS2 for the module: (namespace, board, tmp)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, TAP devices)")
    if not MPS2_ELF.is_file():
        pytest.fail(f"{MPS2_ELF} not built (scripts/test.sh interop builds it)")
    tmp = tmp_path_factory.mktemp("mps2")
    ns = Netns()
    qemu = None
    try:
        qemu = boot_mps2(ns, tmp, secrets.token_bytes(16))
        deadline = time.monotonic() + 15
        while ping6(ns, BOARD_V4, check=False).returncode != 0:
            assert time.monotonic() < deadline, "the MPS2 does not answer ping"
            assert qemu.running(), qemu.log.read_text(errors="replace")
        yield ns, qemu, tmp
    finally:
        if qemu is not None:
            qemu.kill()
        ns.delete()


@pytest.mark.parametrize("addr", [BOARD_V4, BOARD_V6])
@pytest.mark.parametrize("size", [0, 56, 1452, 1473, 4000])
def test_ping(board, addr, size):
    """Up to 4000 data bytes: above the 1500-byte MTU Linux fragments the
    request and the board reassembles it and fragments its reply."""
    ns, *_ = board
    ping6(ns, addr, count=2, size=size)


def test_ping6_link_local(board):
    ns, *_ = board
    deadline = time.monotonic() + 10
    while ns.ip(["-6", "addr", "show", "dev", TAP, "tentative"]).stdout.strip():
        assert time.monotonic() < deadline, "Linux's link-local address stays tentative"
        time.sleep(0.1)
    ping6(ns, f"fe80::ff:fe00:2%{TAP}", count=2)       # EUI-64 of 02:00:00:00:00:02


@pytest.mark.parametrize("family, addr", [(socket.AF_INET, BOARD_V4), (socket.AF_INET6, BOARD_V6)])
def test_udp_echo(board, family, addr):
    """Up to 3000 bytes: fragmented both ways."""
    ns, *_ = board
    udp_echo(ns, addr, (1, 1000, 1472 if family == socket.AF_INET else 1452, 3000))


@pytest.mark.parametrize("addr", [BOARD_V4, BOARD_V6])
def test_tcp_echo(board, addr):
    ns, *_ = board
    tcp_echo(ns, addr, 100_000, piece=4096)


@pytest.mark.parametrize("addr", [BOARD_V4, BOARD_V6])
def test_http_1mb_sha256(board, addr):
    ns, _, tmp = board
    out = tmp / "body"
    host = f"[{addr}]" if ":" in addr else addr
    p = ns.cmd(["curl", "-sS", "-g", "--max-time", "120", "-o", str(out), "-w", "%{http_code}",
                f"http://{host}/bytes/1048576"], check=False, timeout=150)
    assert p.returncode == 0 and p.stdout == "200", p.stdout + p.stderr
    assert hashlib.sha256(out.read_bytes()).hexdigest() == body_sha256(1048576)


def discard_last(qemu: QemuBoard, tmp) -> tuple[int, int]:
    """(last_bytes, last_crc32) of the board's discard service, from RAM."""
    c = probe_constants({"node": "offsetof(struct node, discard)",
                         "bytes": "offsetof(struct mip_tcp_discard, last_bytes)",
                         "crc": "offsetof(struct mip_tcp_discard, last_crc32)"},
                        tmp, MPS2_CFLAGS, header="node.h", incdirs=NODE_DIRS)
    at = elf_symbols(MPS2_ELF)["node"] + c["node"]
    ram = qemu.read_memory(at, 64, tmp)
    return (struct.unpack_from("<Q", ram, c["bytes"])[0],
            struct.unpack_from("<I", ram, c["crc"])[0])


@pytest.mark.parametrize("addr", [BOARD_V4, BOARD_V6])
def test_nc_upload_1mb_to_discard(board, addr):
    """nc sends 1 MB to port 9 and exits when the board, having read it
    all, closes; the board's count and CRC-32 of the stream match."""
    ns, qemu, tmp = board
    data = secrets.token_bytes(1 << 20)
    f = tmp / "upload"
    f.write_bytes(data)
    p = ns.cmd(["sh", "-c", f"nc -N -w 60 {addr} 9 < {f}"], check=False, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    deadline = time.monotonic() + 5
    while discard_last(qemu, tmp) != (len(data), zlib.crc32(data)):
        assert time.monotonic() < deadline, (discard_last(qemu, tmp), len(data))
        time.sleep(0.1)


def test_closed_ports_refuse(board):
    ns, *_ = board
    assert_closed_ports_refuse(ns, BOARD_V6)
    s = ns.socket(socket.AF_INET, socket.SOCK_STREAM, timeout=5)
    with pytest.raises(ConnectionRefusedError):
        s.connect((BOARD_V4, 1234))
    s.close()


def test_zz_stack_and_counters(board):
    """Last in the module: the painted RAM shows the deepest the stack went,
    within STACK_SIZE; the stack's counters show traffic and no driver
    errors."""
    ns, qemu, tmp = board
    ram = qemu.read_memory(RAM_BASE, RAM_SIZE, tmp)
    syms = elf_symbols(MPS2_ELF)
    st = stack_peak(ram, RAM_BASE, syms)
    size = elf_size(MPS2_ELF)
    print(f"MPS2: text {size['text']} data {size['data']} bss {size['bss']}; "
          f"stack peak {st['peak']} of {st['reserved']} reserved")
    assert 512 < st["peak"] <= st["reserved"], st
    c = stack_counters(ram, RAM_BASE, syms, tmp, MPS2_CFLAGS)
    assert c["rx_frames"] > 1000 and c["icmp_echo_replied"] > 10, c
    assert c["drop_tx_driver"] == 0, c


def test_entropy_comes_from_the_provisioning_block(board):
    """The board has no RNG: the stack is seeded from the 16-byte block
    QEMU's loader writes at 0x21000000 (port/mps2/board.c). The same block
    gives the same PRNG state after boot, another block another state."""
    ns, _, tmp = board
    syms = elf_symbols(MPS2_ELF)
    states = []
    for i, seed in enumerate((b"\x11" * 16, b"\x11" * 16, b"\x22" * 16)):
        d = tmp / f"boot{i}"
        d.mkdir()
        q = boot_mps2(ns, d, seed, tap=False)
        try:
            time.sleep(0.5)
            ram = q.read_memory(RAM_BASE, 256 * 1024, d)
        finally:
            q.kill()
        states.append(stack_rng_state(ram, RAM_BASE, syms, d, MPS2_CFLAGS))
    assert any(states[0]), "the PRNG state is all zero: not seeded"
    assert states[0] == states[1] and states[0] != states[2], states
