"""The firmware images of the ports (port/<board>/), linked as a board runs
them: how to build each, its sizes split by origin, and its stack peak
measured by painting after a workload under emulation. Used by
`bench/footprint --images` and `bench/microbit-image`.

Sizes come from the image (`size`: text, data, bss; the linker map: which
part of the image each input section came from). The stack peak: each
port's startup code paints the free RAM (port/common/cortexm.h, the AVR's
.init3); the firmware boots under its emulator in a fresh network namespace
(root), serves a workload that takes the deepest paths its services have
(fragmented pings reassembled and answered in fragments, TCP echo, HTTP,
an upload, closed ports), and its RAM is read back: the stack used
everything from the top down to the lowest word no longer painted.

NETWORK SAFETY: every board is reached only inside the namespace the
measurement creates (moteip-slip's TUN or QEMU's TAP there), at
192.0.2.0/24 and fd00::/8.
"""
from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "interop"))

# name -> how to build and read it
PORTS = {
    "microbit": {"chip": "nRF51822, Cortex-M0 (QEMU microbit)", "profile": "tiny",
                 "preset": "microbit", "build": "build-microbit",
                 "elf": "port/microbit/moteip-microbit.elf", "arch": "arm",
                 "ram": 16 * 1024, "flash": 256 * 1024},
    "microbit-micro": {"chip": "nRF51822, Cortex-M0 (QEMU microbit)", "profile": "micro (IPv4)",
                       "preset": "microbit", "build": "build-microbit",
                       "elf": "port/microbit/moteip-microbit-micro.elf", "arch": "arm",
                       "ram": 16 * 1024, "flash": 256 * 1024},
    "avr": {"chip": "ATmega1284P (simavr)", "profile": "tiny", "preset": "avr",
            "build": "build-avr", "elf": "port/avr/moteip-avr.elf", "arch": "avr",
            "ram": 16 * 1024, "flash": 128 * 1024},
    "avr-micro": {"chip": "ATmega1284P (simavr)", "profile": "micro (IPv4)", "preset": "avr",
                  "build": "build-avr", "elf": "port/avr/moteip-avr-micro.elf", "arch": "avr",
                  "ram": 16 * 1024, "flash": 128 * 1024},
    "mps2": {"chip": "MPS2 AN385, Cortex-M3 + LAN9118 (QEMU mps2-an385)", "profile": "full",
             "preset": "mps2", "build": "build-mps2", "elf": "port/mps2/moteip-mps2.elf",
             "arch": "arm", "ram": 4 * 1024 * 1024, "flash": 4 * 1024 * 1024},
}
OUTPUT_SECTIONS = {".text": "text", ".ARM.exidx": "text", ".data": "data", ".bss": "bss"}
ARM_RAM_BASE = 0x20000000


def tool(port: str, name: str) -> str:
    return ("avr-" if PORTS[port]["arch"] == "avr" else "arm-none-eabi-") + name


def elf_path(port: str, build_dir: Path | None = None) -> Path:
    p = PORTS[port]
    return (build_dir or ROOT / p["build"]) / p["elf"]


def build(port: str, build_dir: Path | None = None) -> None:
    """cmake --workflow --preset <port> (or the same configuration into
    build_dir); raises SystemExit with the output on a failure."""
    p = PORTS[port]
    if build_dir is None or build_dir.resolve() == (ROOT / p["build"]).resolve():
        cmds = [["cmake", "--workflow", "--preset", p["preset"]]]
    else:
        cmds = [["cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
                 "--preset", p["preset"]], ["cmake", "--build", str(build_dir)]]
    for c in cmds:
        r = subprocess.run(c, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"{' '.join(c)} failed:\n{r.stdout}{r.stderr}")


def image(port: str, build_dir: Path | None = None) -> dict:
    """{text, data, bss, by_origin: {origin: {text, data, bss}}, stack_reserved}."""
    from board_util import elf_size, elf_symbols, image_origin, map_input_sections
    elf = elf_path(port, build_dir)
    size = elf_size(elf, tool(port, "size"))
    syms = elf_symbols(elf, tool(port, "nm"))
    by_origin: dict = {}
    for section, _, n, obj in map_input_sections(elf.with_suffix(".map")):
        kind = OUTPUT_SECTIONS.get(section)
        if kind is None:
            continue
        d = by_origin.setdefault(image_origin(obj), {"text": 0, "data": 0, "bss": 0})
        d[kind] += n
    pad = {k: size[k] - sum(v[k] for v in by_origin.values()) for k in ("text", "data", "bss")}
    if any(pad.values()):
        by_origin["alignment padding"] = pad
    if PORTS[port]["arch"] == "avr":
        reserved = syms["__moteip_stack_reserve"]
    else:
        reserved = syms["_stack_top"] - syms["_stack_bottom"]
    return {**size, "by_origin": by_origin, "stack_reserved": reserved,
            "elf": str(elf.relative_to(ROOT) if elf.is_relative_to(ROOT) else elf)}


# --- workloads ----------------------------------------------------------------

def _check(p, what):
    if p.returncode != 0:
        raise SystemExit(f"{what} failed: {p.stdout}{p.stderr}")


def slip_node_workload(ns, tmp, addr: str, big: bool) -> None:
    """The tiny SLIP node's services (port/common/slip_node.c): pings of 56,
    1232 and 1272 data bytes (the last reassembled, the reply fragmented),
    UDP echo, TCP echo, HTTP, an upload to discard, closed ports. `big`:
    the transfers of a fast line (QEMU's UART) rather than 115200 baud."""
    from board_util import assert_closed_ports_refuse, http_get, ping6, tcp_echo, tcp_upload
    from tcp_util import body_pattern
    for size in (56, 1232, 1272):
        # one at a time over 115200 baud (a 1272-byte ping: 0.4 s round trip)
        ping6(ns, addr, count=2, size=size, interval=0.05 if big else 0.8)
    u = ns.socket(socket.AF_INET6, socket.SOCK_DGRAM, timeout=5)
    u.sendto(os.urandom(1232), (addr, 7))
    u.recvfrom(2048)
    u.close()
    tcp_echo(ns, addr, 20000 if big else 4000)
    n = 65536 if big else 8192
    status, body = http_get(ns, tmp, addr, f"/bytes/{n}", timeout=120)
    if status != "200" or body != body_pattern(n):
        raise SystemExit("the HTTP body is not the pattern")
    tcp_upload(ns, addr, secrets.token_bytes(20000 if big else 4000))
    assert_closed_ports_refuse(ns, addr)


def micro_workload(ns, addr: str) -> None:
    """The micro firmware (port/common/micro_node.c, on the ATmega1284P and
    the micro:bit): pings up to its 576-byte buffer, an upload, a closed
    port."""
    from board_util import ping6, tcp_upload
    for size in (56, 548):
        ping6(ns, addr, count=2, size=size)
    tcp_upload(ns, addr, secrets.token_bytes(8192))
    s = ns.socket(socket.AF_INET, socket.SOCK_STREAM, timeout=5)
    try:
        s.connect((addr, 1234))
        raise SystemExit("a connection to a closed port of the micro node was accepted")
    except ConnectionRefusedError:
        pass
    finally:
        s.close()


def mps2_workload(ns, tmp) -> None:
    """The full node (port/mps2/main.c): pings v4/v6 up to 4000 data bytes
    (fragmented both ways), UDP echo of 3000 B, TCP echo, HTTP, an upload,
    closed ports."""
    from board_util import assert_closed_ports_refuse, http_get, ping6, tcp_echo, tcp_upload
    from tcp_util import body_pattern
    for addr, fam in (("192.0.2.2", socket.AF_INET), ("fd00::2", socket.AF_INET6)):
        for size in (56, 1473, 4000):
            ping6(ns, addr, count=2, size=size)
        u = ns.socket(fam, socket.SOCK_DGRAM, timeout=5)
        u.sendto(os.urandom(3000), (addr, 7))
        u.recvfrom(4096)
        u.close()
        tcp_echo(ns, addr, 50000, piece=4096)
        status, body = http_get(ns, tmp, addr, "/bytes/262144")
        if status != "200" or body != body_pattern(262144):
            raise SystemExit("the HTTP body is not the pattern")
        tcp_upload(ns, addr, secrets.token_bytes(262144))
    assert_closed_ports_refuse(ns, "fd00::2")


def _wait_ping(ns, addr, alive) -> None:
    from board_util import ping6
    deadline = time.monotonic() + 15
    while ping6(ns, addr, check=False).returncode != 0:
        if time.monotonic() > deadline or not alive():
            raise SystemExit(f"the board does not answer ping at {addr}")


def stack_peak(port: str, build_dir: Path | None = None) -> dict:
    """Boots the port's firmware, runs its workload, reads its RAM:
    {peak, reserved, never_used} in bytes. Needs root."""
    from board_util import (QemuBoard, SimavrBoard, avr_stack_peak, boot_mps2, elf_symbols,
                            serial_board, stack_peak as painted_peak)
    from moteip_netns import Netns
    from slip_util import BOARD_V4, BOARD_V6, SLIP_BIN

    if os.geteuid() != 0:
        raise SystemExit("the stack measurement needs root (a namespace and a TUN or TAP); "
                         "use --no-run for the image only")
    elf = elf_path(port, build_dir)
    if port != "mps2" and not SLIP_BIN.is_file():
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(ROOT / "build"), "-G", "Ninja"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(ROOT / "build"), "--target", "moteip-slip",
                        "moteip-simavr"], check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if port == "mps2":
            ns = Netns()
            board = None
            try:
                board = boot_mps2(ns, tmp, secrets.token_bytes(16), elf)
                _wait_ping(ns, "192.0.2.2", board.running)
                mps2_workload(ns, tmp)
                ram = board.read_memory(ARM_RAM_BASE, PORTS[port]["ram"], tmp)
                return painted_peak(ram, ARM_RAM_BASE, elf_symbols(elf))
            finally:
                if board is not None:
                    board.kill()
                ns.delete()
        qemu = PORTS[port]["arch"] == "arm"
        micro = port.endswith("-micro")
        make = ((lambda ns, d: QemuBoard(ns, d, elf)) if qemu
                else (lambda ns, d: SimavrBoard(ns, d, elf)))
        addr = BOARD_V4 if micro else BOARD_V6
        with serial_board(tmp, make, addr) as (ns, board, _):
            if micro:
                micro_workload(ns, addr)
            else:
                slip_node_workload(ns, tmp, addr, big=port == "microbit")
            syms = elf_symbols(elf, tool(port, "nm"))
            if qemu:
                ram = board.read_memory(ARM_RAM_BASE, PORTS[port]["ram"], tmp)
                return painted_peak(ram, ARM_RAM_BASE, syms)
            return avr_stack_peak(board.read_memory(), syms, syms["__moteip_stack_reserve"])
