"""The process kernel on an emulated board (issue 30, docs/OS.md):
moteip-mps2-os.elf (port/mps2/main.c with NODE_OS) runs echo and discard as
processes of the kernel (apps/os_apps.h) and a sensor process that sends a
batch of four readings every 400 ms to 192.0.2.1:5000, on the MPS2 AN385
under QEMU with its LAN9118 on a TAP in a fresh namespace. Linux echoes TCP
and UDP (fragmented) through the processes, uploads to discard, and receives
consecutive sensor batches. Then programs over the network: the loader
service (TCP 6510, apps/os_loader.h) links examples/modules/hello.c's module
(tools/mipmod.py), replaces it with a second version that carries its state
on, refuses corrupt, oversized and unlinkable modules while the running one
keeps answering, and unloads it.

Needs root, qemu-system-arm and the firmware in build-mps2/ (scripts/test.sh
builds it).
"""
from __future__ import annotations

import os
import secrets
import socket
import struct
import sys
import time

import pytest

import zlib

from board_util import MPS2_BUILD, MPS2_OS_ELF, boot_mps2, ping6, tcp_echo, tcp_upload, udp_echo
from moteip_netns import Netns

BOARD_V4, BOARD_V6 = "192.0.2.2", "fd00::2"


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """One booted MPS2 (kernel firmware) for the module, and a UDP socket on
    192.0.2.1:5000 bound before the sensor's first batch can leave."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, TAP devices)")
    if not MPS2_OS_ELF.is_file():
        pytest.fail(f"{MPS2_OS_ELF} not built (scripts/test.sh interop builds it)")
    tmp = tmp_path_factory.mktemp("mps2os")
    ns = Netns()
    qemu = sink = None
    try:
        qemu = boot_mps2(ns, tmp, secrets.token_bytes(16), elf=MPS2_OS_ELF)
        sink = ns.socket(socket.AF_INET, socket.SOCK_DGRAM, timeout=0.5)
        sink.bind(("192.0.2.1", 5000))
        deadline = time.monotonic() + 15
        while ping6(ns, BOARD_V4, check=False).returncode != 0:
            assert time.monotonic() < deadline, "the MPS2 does not answer ping"
            assert qemu.running(), qemu.log.read_text(errors="replace")
        yield ns, qemu, sink
    finally:
        if sink is not None:
            sink.close()
        if qemu is not None:
            qemu.kill()
        ns.delete()


@pytest.mark.parametrize("addr", [BOARD_V4, BOARD_V6])
def test_echo_process_tcp(board, addr):
    ns, *_ = board
    tcp_echo(ns, addr, 50_000, piece=2048)


@pytest.mark.parametrize("addr", [BOARD_V4, BOARD_V6])
def test_echo_process_udp_fragmented(board, addr):
    ns, *_ = board
    udp_echo(ns, addr, (1, 1000, 3000))


def test_discard_process_takes_an_upload(board):
    ns, *_ = board
    tcp_upload(ns, BOARD_V6, secrets.token_bytes(200_000))


def test_sensor_process_batches_arrive_in_order(board):
    *_, sink = board
    got = []
    deadline = time.monotonic() + 10
    while len(got) < 6 and time.monotonic() < deadline:
        try:
            msg, frm = sink.recvfrom(100)
        except TimeoutError:
            continue
        assert frm == (BOARD_V4, 5001)
        got.append(msg)
    assert len(got) >= 6, got
    seqs = []
    for msg in got:
        seq, *readings = struct.unpack("!H4H", msg)
        assert readings == [4 * seq + k for k in range(4)]
        seqs.append(seq)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


# --- programs over the network ----------------------------------------------------

MODULES = MPS2_BUILD / "port" / "mps2"
LOADER_PORT, HELLO_PORT = 6510, 7777


def loader(ns, payload: bytes) -> str:
    """One command to the loader service; its answer line."""
    s = ns.socket(socket.AF_INET6, socket.SOCK_STREAM, timeout=20)
    try:
        s.connect((BOARD_V6, LOADER_PORT))
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        got = b""
        while True:
            c = s.recv(256)
            if not c:
                break
            got += c
        return got.decode()
    finally:
        s.close()


def hello(ns) -> str | None:
    u = ns.socket(socket.AF_INET, socket.SOCK_DGRAM, timeout=2)
    try:
        u.sendto(b"?", (BOARD_V4, HELLO_PORT))
        return u.recvfrom(100)[0].decode()
    except (TimeoutError, ConnectionRefusedError):
        return None
    finally:
        u.close()


def with_crc(mod: bytearray) -> bytes:
    mod[28:32] = zlib.crc32(bytes(mod[32:])).to_bytes(4, "little")
    return bytes(mod)


def test_programs_load_replace_refuse_and_unload(board):
    ns, qemu, _ = board
    v1 = (MODULES / "hello-v1.mpm").read_bytes()
    v2 = (MODULES / "hello-v2.mpm").read_bytes()
    assert hello(ns) is None                                  # nothing on 7777 yet
    assert loader(ns, b"U") == "error nothing-loaded\n"
    assert loader(ns, b"L" + v1) == "ok loaded v1\n"
    assert hello(ns) == "hello v1 #1"
    assert hello(ns) == "hello v1 #2"
    # the new version takes over the port and the count
    assert loader(ns, b"L" + v2) == "ok loaded v2\n"
    assert hello(ns) == "hello v2 #3"
    # refused, each for its reason, while v2 keeps running
    bad = bytearray(v2)
    bad[-3] ^= 0xFF                                           # a byte of a name, CRC stale
    assert loader(ns, b"L" + bytes(bad)) == "error checksum\n"
    assert loader(ns, b"L" + with_crc(bad)) == "error unknown-symbol\n"
    big = bytearray(v2)
    big[16:20] = (1 << 20).to_bytes(4, "little")              # 1 MB of bss
    assert loader(ns, b"L" + with_crc(big)) == "error too-big\n"
    assert loader(ns, b"L" + v2[:100]) == "error truncated\n"
    assert loader(ns, b"L" + bytes(5000)) == "error too-big\n"  # larger than the buffer
    assert loader(ns, b"X") == "error bad-command\n"
    assert hello(ns) == "hello v2 #4"
    assert loader(ns, b"U") == "ok unloaded\n"
    assert hello(ns) is None
    # the count waited in the loader for the next version
    assert loader(ns, b"L" + v1) == "ok loaded v1\n"
    assert hello(ns) == "hello v1 #5"
    assert qemu.running()


def test_mipmod_names_what_it_cannot_convert(tmp_path):
    """tools/mipmod.py refuses an object it cannot make a module of, naming why."""
    import subprocess
    from moteip_netns import REPO
    mipmod = [sys.executable, str(REPO / "tools" / "mipmod.py")]
    src = REPO / "examples" / "modules" / "hello.c"
    inc = ["-I", str(REPO / "include"), "-I", str(REPO / "apps")]
    base = ["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-Os", "-fno-common", *inc, "-c",
            str(src)]
    cases = [
        ([], "compile with -mlong-calls"),                          # BL to the core
        (["-mlong-calls", "-ffunction-sections"], "has no place for it"),
    ]
    for flags, why in cases:
        obj = tmp_path / "hello.o"
        subprocess.run(base + flags + ["-o", str(obj)], check=True, timeout=60)
        p = subprocess.run(mipmod + [str(obj), str(tmp_path / "m.mpm"), "--init", "hello_init"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 1 and why in p.stderr, (flags, p.stderr)
    (tmp_path / "junk.o").write_bytes(b"not an object")
    p = subprocess.run(mipmod + [str(tmp_path / "junk.o"), str(tmp_path / "m.mpm"), "--init", "x"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "not a 32-bit little-endian ELF" in p.stderr
    obj = tmp_path / "ok.o"
    subprocess.run(base + ["-mlong-calls", "-o", str(obj)], check=True, timeout=60)
    p = subprocess.run(mipmod + [str(obj), str(tmp_path / "m.mpm"), "--init", "no_such"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "init function no_such" in p.stderr


# --- a preemptible computation (seeds/000 s.7.9.3, Fig 7.5) -------------------------

def ping_rtts(ns, count: int, interval: float = 0.2) -> list[float]:
    """RTTs (ms) of `count` 40-byte pings to the board, `interval` s apart."""
    p = ns.cmd(["ping", "-n", "-c", str(count), "-i", str(interval), "-s", "40", "-W", "5",
                BOARD_V4], check=False, timeout=count * interval + 30)
    return [float(line.split("time=")[1].split()[0]) for line in p.stdout.splitlines()
            if "time=" in line]


def test_pings_are_answered_during_a_preemptible_computation(board):
    ns, qemu, _ = board
    s = ns.socket(socket.AF_INET, socket.SOCK_DGRAM, timeout=30)
    try:
        s.sendto(b"T3000", (BOARD_V4, 7001))
        rtts = ping_rtts(ns, 10)
        done = s.recvfrom(100)[0].decode().split()
    finally:
        s.close()
    assert done[:3] == ["done", "T", "3000"], done
    assert int(done[3]) > 0 and int(done[4]) > 0         # it worked, and was preempted
    assert len(rtts) == 10, rtts                          # every ping came back ...
    assert max(rtts) < 200, rtts                          # ... without waiting for the work


def test_a_computation_in_a_process_holds_the_kernel(board):
    ns, qemu, _ = board
    s = ns.socket(socket.AF_INET, socket.SOCK_DGRAM, timeout=30)
    try:
        s.sendto(b"B1500", (BOARD_V4, 7001))
        time.sleep(0.1)
        rtts = ping_rtts(ns, 1)
        done = s.recvfrom(100)[0].decode().split()
    finally:
        s.close()
    assert done[:3] == ["done", "B", "1500"], done
    assert done[4] == "0"                                 # nothing preempted a process
    assert len(rtts) == 1 and rtts[0] > 1000, rtts        # the ping waited for the work
