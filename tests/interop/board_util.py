"""Emulated boards for the interop tests and bench/microbit-image: a QEMU
machine whose UART is a Unix socket (QEMU listens, moteip-slip connects),
with a QMP socket to read its RAM, and the stack depth measured by painting
(the firmware's reset handler fills free RAM with a pattern; whatever the
stack overwrote is what it used).

NETWORK SAFETY: QEMU gets no network device; the board's only link is its
UART, bridged by moteip-slip to a TUN inside the test's namespace.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import time
from pathlib import Path

from moteip_netns import REPO, Netns, stat_names

MICROBIT_BUILD = Path(os.environ.get("MOTEIP_MICROBIT_BUILD_DIR", REPO / "build-microbit"))
MICROBIT_ELF = MICROBIT_BUILD / "port" / "microbit" / "moteip-microbit.elf"
STACK_PAINT = 0xA5C3A5C3          # port/microbit/board.h
QEMU_ARM = "qemu-system-arm"


def elf_symbols(elf: Path, nm: str = "arm-none-eabi-nm") -> dict[str, int]:
    out = subprocess.run([nm, str(elf)], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    return syms


def elf_size(elf: Path, size: str = "arm-none-eabi-size") -> dict[str, int]:
    """text, data, bss of a linked image (Berkeley format)."""
    out = subprocess.run([size, str(elf)], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.splitlines()[1].split()[:3])
    return {"text": text, "data": data, "bss": bss}


def stack_peak(ram: bytes, ram_base: int, syms: dict[str, int]) -> dict[str, int]:
    """The deepest the stack went: from the top of RAM down to the lowest
    word that no longer holds the paint (painted from the end of .bss)."""
    lo, top = syms["_bss_end"], syms["_stack_top"]
    a = lo
    while a < top and struct.unpack_from("<I", ram, a - ram_base)[0] == STACK_PAINT:
        a += 4
    return {"peak": top - a, "reserved": top - syms["_stack_bottom"], "never_used": a - lo}


def probe_constants(exprs: dict[str, str], tmp: Path, cflags: list[str]) -> dict[str, int]:
    """Values of C constant expressions (offsetof, sizeof, MIP_* macros) on
    the firmware's target and profile: each becomes the size of an array in
    an object compiled with its flags, read back with nm -S (as
    tests/static/test_footprint.py measures struct sizes)."""
    probe = tmp / "probe.c"
    obj = tmp / "probe.o"
    probe.write_text('#include <stddef.h>\n#include "moteip/stack.h"\n' + "".join(
        f"char probe_{k}[({v}) + 1];\n" for k, v in exprs.items()))
    subprocess.run(["arm-none-eabi-gcc", *cflags, "-std=c11", f"-I{REPO / 'include'}",
                    "-fno-common", "-c", str(probe), "-o", str(obj)], check=True)
    nm = subprocess.run(["arm-none-eabi-nm", "-S", str(obj)], capture_output=True, text=True,
                        check=True).stdout
    sizes = {f[3]: int(f[1], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 4}
    return {k: sizes[f"probe_{k}"] - 1 for k in exprs}


def stack_counters(ram: bytes, ram_base: int, syms: dict[str, int], tmp: Path,
                   cflags: list[str]) -> dict[str, int]:
    """The counters of the struct mip_stack at the firmware's `node` (its
    first member)."""
    c = probe_constants({"off": "offsetof(struct mip_stack, stats)", "count": "MIP_STAT_COUNT"},
                        tmp, cflags)
    names = stat_names()
    assert c["count"] == len(names), "stats.h and the probe disagree"
    values = struct.unpack_from(f"<{len(names)}I", ram, syms["node"] + c["off"] - ram_base)
    return dict(zip(names, values))


def stack_rng_state(ram: bytes, ram_base: int, syms: dict[str, int], tmp: Path,
                    cflags: list[str]) -> bytes:
    """The bytes of the stack's PRNG (struct mip_rng) at the firmware's `node`."""
    c = probe_constants({"off": "offsetof(struct mip_stack, rng)",
                         "size": "sizeof(struct mip_rng)"}, tmp, cflags)
    at = syms["node"] + c["off"] - ram_base
    return ram[at:at + c["size"]]


# as port/microbit/CMakeLists.txt builds the library
MICROBIT_CFLAGS = ["-mcpu=cortex-m0", "-mthumb", "-Os", "-DMOTEIP_PROFILE_TINY=1",
                   "-DMIP_CONF_LOWPAN=0"]


class QemuBoard:
    """qemu-system-arm -M MACHINE running ELF inside namespace `ns`."""

    def __init__(self, ns: Netns, tmp: Path, elf: Path, machine: str = "microbit",
                 extra: list[str] | None = None) -> None:
        if shutil.which(QEMU_ARM) is None:
            raise AssertionError(f"{QEMU_ARM} not installed (scripts/setup.sh installs it)")
        self.serial = tmp / "board-serial.sock"
        self.qmp_path = tmp / "board-qmp.sock"
        self.log = tmp / "qemu.log"
        args = [QEMU_ARM, "-M", machine, "-display", "none", "-kernel", str(elf),
                "-serial", f"unix:{self.serial},server=on,wait=off",
                "-qmp", f"unix:{self.qmp_path},server=on,wait=off", "-monitor", "none",
                *(extra or [])]
        self._log = open(self.log, "wb")
        self.proc = subprocess.Popen(["ip", "netns", "exec", ns.name, *args],
                                     stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not (self.serial.exists() and self.qmp_path.exists()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"QEMU did not start: {self.log.read_text(errors='replace')}")
            time.sleep(0.02)
        self._qmp = None

    def qmp(self, command: str, **arguments) -> dict:
        if self._qmp is None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            s.connect(str(self.qmp_path))
            self._qmp = s.makefile("rwb")
            json.loads(self._qmp.readline())                 # the greeting
            self.qmp("qmp_capabilities")
        self._qmp.write(json.dumps({"execute": command, "arguments": arguments}).encode() + b"\n")
        self._qmp.flush()
        while True:
            r = json.loads(self._qmp.readline())
            if "return" in r:
                return r["return"]
            if "error" in r:
                raise AssertionError(f"QMP {command}: {r['error']}")

    def read_memory(self, addr: int, size: int, tmp: Path) -> bytes:
        """The CPU's view of memory (memsave: the SoC's own address space,
        where the nRF51's SRAM lives; pmemsave would read the board's)."""
        out = tmp / f"mem-{addr:08x}.bin"
        self.qmp("memsave", val=addr, size=size, filename=str(out))
        data = out.read_bytes()
        assert len(data) == size, f"memsave wrote {len(data)} of {size} bytes"
        return data

    def running(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self._log.close()
