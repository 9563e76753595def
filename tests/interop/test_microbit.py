"""The micro:bit firmware (port/microbit/, the tiny profile on a Cortex-M0
with 16 KB of RAM) under QEMU's `microbit` machine, its UART bridged by
moteip-slip to a TUN in a fresh namespace: Linux pings it, echoes bytes
through its TCP and UDP echo services, and curls /bytes/N from its HTTP
server with the body checked byte for byte. Then its RAM is read through
QMP: the stack stayed within the linker script's reservation.

The tiny profile has no IPv4, so only IPv6 is pinged; it reassembles
up to 1280 bytes behind the IPv6 header (MIP_REASS_SIZE).

Needs root, qemu-system-arm and the firmware in build-microbit/
(scripts/test.sh builds it; MOTEIP_MICROBIT_BUILD_DIR overrides).
"""
from __future__ import annotations

import os
import secrets
import time

import pytest

from board_util import (MICROBIT_CFLAGS, MICROBIT_ELF, QemuBoard, assert_closed_ports_refuse,
                        elf_size, elf_symbols, ping6, serial_board, stack_counters,
                        stack_peak, stack_rng_state, tcp_echo, tcp_upload, udp_echo)
from slip_util import BOARD_V6, SLIP_BIN, TUN
from tcp_util import body_pattern

RAM_BASE, RAM_SIZE = 0x20000000, 16 * 1024


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """One booted micro:bit for the module: (namespace, board, bridge)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, TUN devices)")
    for f in (SLIP_BIN, MICROBIT_ELF):
        if not f.is_file():
            pytest.fail(f"{f} not built (scripts/test.sh interop builds it)")
    tmp = tmp_path_factory.mktemp("microbit")
    with serial_board(tmp, lambda ns, d: QemuBoard(ns, d, MICROBIT_ELF), BOARD_V6) as (
            ns, qemu, bridge):
        yield ns, qemu, bridge, tmp


ping = ping6


@pytest.mark.parametrize("size", [0, 56, 1000, 1232])
def test_ping6(board, size):
    ns, *_ = board
    ping(ns, BOARD_V6, count=3, size=size)


def test_ping6_link_local(board):
    ns, *_ = board
    ping(ns, f"fe80::2%{TUN}", count=2)


def test_ping6_fragmented(board):
    """Over the 1280-byte link MTU Linux fragments the request and the board
    its reply: 1272 data bytes make 1280 bytes behind the IPv6 header, the
    most the tiny profile reassembles (MIP_REASS_SIZE); one more is dropped,
    and the board carries on."""
    ns, *_ = board
    ping(ns, BOARD_V6, count=2, size=1272)
    assert ping(ns, BOARD_V6, size=1273, check=False).returncode != 0
    ping(ns, BOARD_V6, size=1232)


@pytest.mark.parametrize("n", [1, 700, 20000])
def test_tcp_echo(board, n):
    ns, *_ = board
    tcp_echo(ns, BOARD_V6, n)


def test_tcp_upload_to_discard(board):
    """20 KB to the discard service (port 9), which closes once it has read
    them all."""
    ns, *_ = board
    tcp_upload(ns, BOARD_V6, secrets.token_bytes(20000))


def test_udp_echo(board):
    ns, *_ = board
    udp_echo(ns, BOARD_V6, (1, 100, 1232))


@pytest.mark.parametrize("n", [0, 1, 1460, 65536])
def test_http_bytes(board, n):
    ns, _, _, tmp = board
    out = tmp / f"body-{n}"
    p = ns.cmd(["curl", "-sS", "-g", "--max-time", "60", "-o", str(out), "-w", "%{http_code}",
                f"http://[{BOARD_V6}]/bytes/{n}"], check=False, timeout=90)
    assert p.returncode == 0 and p.stdout == "200", p.stdout + p.stderr
    assert out.read_bytes() == body_pattern(n)


def test_http_keepalive_and_404(board):
    ns, _, _, tmp = board
    p = ns.cmd(["curl", "-sS", "-g", "--max-time", "30", "-o", "/dev/null", "-o", str(tmp / "b2"),
                "-w", "%{http_code} ", f"http://[{BOARD_V6}]/nothing",
                f"http://[{BOARD_V6}]/bytes/3000"], check=False, timeout=60)
    assert p.returncode == 0 and p.stdout.split() == ["404", "200"], p.stdout + p.stderr
    assert (tmp / "b2").read_bytes() == body_pattern(3000)


def test_closed_ports_refuse(board):
    ns, *_ = board
    assert_closed_ports_refuse(ns, BOARD_V6)


def test_zz_stack_within_its_reservation(board):
    """Last in the module: after everything above, the painted RAM shows
    the deepest the stack went; it stays inside STACK_SIZE."""
    ns, qemu, bridge, tmp = board
    ram = qemu.read_memory(RAM_BASE, RAM_SIZE, tmp)
    syms = elf_symbols(MICROBIT_ELF)
    st = stack_peak(ram, RAM_BASE, syms)
    size = elf_size(MICROBIT_ELF)
    print(f"micro:bit: text {size['text']} data {size['data']} bss {size['bss']}; "
          f"stack peak {st['peak']} of {st['reserved']} reserved")
    assert 256 < st["peak"] <= st["reserved"], st
    assert size["data"] + size["bss"] + st["reserved"] <= RAM_SIZE
    stats = bridge.stats()
    assert stats["drop_bad_escape"] == stats["drop_too_big"] == stats["drop_not_ip"] == 0, stats
    # the board's own counters: SLIP framing was never broken either way
    c = stack_counters(ram, RAM_BASE, syms, tmp, MICROBIT_CFLAGS)
    assert c["rx_frames"] > 100 and c["icmp_echo_replied"] > 10, c
    assert c["drop_slip_too_big"] == c["drop_slip_bad_escape"] == c["drop_tx_driver"] == 0, c


def test_entropy_comes_from_the_rng(board):
    """The stack's PRNG is seeded from the nRF51 RNG peripheral: QEMU's
    -seed makes that peripheral deterministic, and the PRNG state after
    boot follows it (same seed, same state; another seed, another state)."""
    ns, _, _, tmp = board
    syms = elf_symbols(MICROBIT_ELF)
    states = []
    for i, seed in enumerate((1, 1, 2)):
        d = tmp / f"boot{i}"
        d.mkdir()
        q = QemuBoard(ns, d, MICROBIT_ELF, extra=["-seed", str(seed)])
        try:
            time.sleep(0.5)                   # boot: 16 RNG bytes take ~11 ms
            ram = q.read_memory(RAM_BASE, RAM_SIZE, d)
        finally:
            q.kill()
        states.append(stack_rng_state(ram, RAM_BASE, syms, d, MICROBIT_CFLAGS))
    assert any(states[0]), "the PRNG state is all zero: not seeded"
    assert states[0] == states[1] and states[0] != states[2], states


def test_bench_image_report_adds_up():
    """bench/microbit-image --no-run: the per-origin rows sum to what
    arm-none-eabi-size says, and the RAM fits the chip."""
    import json
    import subprocess
    import sys
    from moteip_netns import REPO
    if not MICROBIT_ELF.is_file():
        pytest.fail(f"{MICROBIT_ELF} not built (scripts/test.sh interop builds it)")
    p = subprocess.run([sys.executable, str(REPO / "bench" / "microbit-image"), "--no-build",
                        "--no-run", "--json", "--build-dir", str(MICROBIT_ELF.parents[2])],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    for k in ("text", "data", "bss"):
        assert sum(v[k] for v in r["by_origin"].values()) == r["size"][k], r
    assert r["by_origin"]["stack (libmoteip.a)"]["text"] > 10000, r
    assert r["size"]["data"] + r["size"]["bss"] + r["stack_reserved"] <= RAM_SIZE
