"""Emulated boards for the interop tests and bench/microbit-image,
bench/avr-cycles: a QEMU machine or the simavr runner (moteip-simavr) whose
UART is a Unix socket (the emulator listens, moteip-slip connects), a way
to read its RAM (QMP; the runner's dump on SIGUSR1), and the stack depth
measured by painting (the firmware's startup fills free RAM with a pattern;
whatever the stack overwrote is what it used).

NETWORK SAFETY: the emulators get no network device; the board's only link
is its UART, bridged by moteip-slip to a TUN inside the test's namespace.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import struct
import subprocess
import time
from pathlib import Path

from moteip_netns import BUILD_DIR, REPO, Netns, json_on_signal, read_ready_line, stat_names

MICROBIT_BUILD = Path(os.environ.get("MOTEIP_MICROBIT_BUILD_DIR", REPO / "build-microbit"))
MICROBIT_ELF = MICROBIT_BUILD / "port" / "microbit" / "moteip-microbit.elf"
STACK_PAINT = 0xA5C3A5C3          # port/microbit/board.h
QEMU_ARM = "qemu-system-arm"

AVR_BUILD = Path(os.environ.get("MOTEIP_AVR_BUILD_DIR", REPO / "build-avr"))
AVR_ELF = AVR_BUILD / "port" / "avr" / "moteip-avr.elf"
AVR_STACK_PAINT = 0xA5            # port/avr/board.h
AVR_DATA = 0x800000               # avr-ld's address of the data space (RAM)
SIMAVR_BIN = BUILD_DIR / "moteip-simavr"


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


def avr_stack_peak(ram: bytes, syms: dict[str, int], reserved: int) -> dict[str, int]:
    """The AVR firmware's stack peak: painted byte by byte from the end of
    .bss (__heap_start) up to 16 bytes below the top of RAM (__stack)."""
    # __stack is avr-libc's RAMEND, a plain data address (no AVR_DATA)
    lo, top = syms["__heap_start"] - AVR_DATA, (syms["__stack"] & 0xFFFF) + 1
    a = lo
    while a < top and ram[a] == AVR_STACK_PAINT:
        a += 1
    return {"peak": top - a, "reserved": reserved, "never_used": a - lo}


def map_input_sections(map_file: Path) -> list[tuple[str, int, int, str]]:
    """(output section, address, size, object) of every input section in a
    GNU ld map's memory map part, as the linker placed them (an input
    section whose name is too long has its numbers on the next line)."""
    out = []
    section = None
    pending = False
    in_map = False
    for line in map_file.read_text().splitlines():
        if line.startswith("Linker script and memory map"):
            in_map = True
            continue
        if not in_map:
            continue
        m = re.match(r"^(\.[\w.]+)", line)
        if m:
            section = m.group(1)
            pending = False
            continue
        if section is None:
            continue
        m = re.match(r"^ (\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if m is None and pending:
            m2 = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
            if m2 and int(m2.group(2), 16):
                out.append((section, int(m2.group(1), 16), int(m2.group(2), 16), m2.group(3)))
            pending = False
            continue
        if m:
            if int(m.group(3), 16) and not m.group(1).startswith("*fill*"):
                out.append((section, int(m.group(2), 16), int(m.group(3), 16), m.group(4)))
            pending = False
        elif re.match(r"^ \.\S+$", line):
            pending = True
    return out


def image_origin(obj: str) -> str:
    """Which part of a firmware an object of the linker map belongs to."""
    if "libmoteip.a(" in obj or "libmoteip_micro" in obj:
        return "stack (libmoteip.a)"
    if "libmoteip_apps.a(" in obj:
        return "apps (libmoteip_apps.a)"
    if "/port/" in obj or obj.startswith("port/") or "__/common" in obj:
        return "port (startup, drivers, node)"
    if ("libc" in obj or "libgcc" in obj or "crt" in obj or "libm" in obj
            or "/avr/lib/" in obj):     # avr-libc's device library (EEPROM access)
        return "libc + libgcc + crt"
    return "other"


def probe_constants(exprs: dict[str, str], tmp: Path, cflags: list[str],
                    cc: str = "arm-none-eabi-gcc", header: str = "moteip/stack.h",
                    incdirs: tuple[Path, ...] = ()) -> dict[str, int]:
    """Values of C constant expressions (offsetof, sizeof, MIP_* macros) on
    the firmware's target and profile: each becomes the size of an array in
    an object compiled with its flags, read back with nm -S (as
    tests/static/test_footprint.py measures struct sizes). `header` is
    included, found in include/ or `incdirs`."""
    probe = tmp / "probe.c"
    obj = tmp / "probe.o"
    probe.write_text(f'#include <stddef.h>\n#include "{header}"\n' + "".join(
        f"char probe_{k}[({v}) + 1];\n" for k, v in exprs.items()))
    subprocess.run([cc, *cflags, "-std=c11", f"-I{REPO / 'include'}",
                    *(f"-I{d}" for d in incdirs),
                    "-fno-common", "-c", str(probe), "-o", str(obj)], check=True)
    nm = subprocess.run([cc.replace("gcc", "nm"), "-S", str(obj)], capture_output=True,
                        text=True, check=True).stdout
    sizes = {f[3]: int(f[1], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 4}
    return {k: sizes[f"probe_{k}"] - 1 for k in exprs}


def stack_counters(ram: bytes, ram_base: int, syms: dict[str, int], tmp: Path,
                   cflags: list[str], cc: str = "arm-none-eabi-gcc") -> dict[str, int]:
    """The counters of the struct mip_stack at the firmware's `node` (its
    first member)."""
    c = probe_constants({"off": "offsetof(struct mip_stack, stats)", "count": "MIP_STAT_COUNT"},
                        tmp, cflags, cc)
    names = stat_names()
    assert c["count"] == len(names), "stats.h and the probe disagree"
    values = struct.unpack_from(f"<{len(names)}I", ram, syms["node"] + c["off"] - ram_base)
    return dict(zip(names, values))


def stack_rng_state(ram: bytes, ram_base: int, syms: dict[str, int], tmp: Path,
                    cflags: list[str], cc: str = "arm-none-eabi-gcc") -> bytes:
    """The bytes of the stack's PRNG (struct mip_rng) at the firmware's `node`."""
    c = probe_constants({"off": "offsetof(struct mip_stack, rng)",
                         "size": "sizeof(struct mip_rng)"}, tmp, cflags, cc)
    at = syms["node"] + c["off"] - ram_base
    return ram[at:at + c["size"]]


# as port/microbit/CMakeLists.txt and port/avr/CMakeLists.txt build the library
MICROBIT_CFLAGS = ["-mcpu=cortex-m0", "-mthumb", "-Os", "-DMOTEIP_PROFILE_TINY=1",
                   "-DMIP_CONF_LOWPAN=0"]
AVR_CFLAGS = ["-mmcu=atmega1284p", "-Os", "-DMOTEIP_PROFILE_TINY=1", "-DMIP_CONF_LOWPAN=0"]
MPS2_CFLAGS = ["-mcpu=cortex-m3", "-mthumb", "-Os", "-DMOTEIP_PROFILE_FULL=1",
               "-DMIP_CONF_LOWPAN=0", "-DMIP_TCP_APP_CONNS=2"]
MPS2_BUILD = Path(os.environ.get("MOTEIP_MPS2_BUILD_DIR", REPO / "build-mps2"))
MPS2_ELF = MPS2_BUILD / "port" / "mps2" / "moteip-mps2.elf"
MPS2_OS_ELF = MPS2_BUILD / "port" / "mps2" / "moteip-mps2-os.elf"   # with the process kernel


# --- the workload both SLIP boards serve (port/common/slip_node.c) ----------

def family(addr: str) -> int:
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def ping6(ns: Netns, addr: str, count: int = 1, size: int = 56, check: bool = True,
          interval: float = 0.05):
    """ping -6 (or -4, for an IPv4 address) from the namespace. -w, not -W:
    once replies come, ping -W waits only twice the longest round trip for
    the rest, and an emulated board's round trips vary with the host's load;
    -w waits for every reply until its deadline. But -w also keeps sending
    every `interval` until `count` replies came: over a slow line (115200
    baud: a 1272-byte ping takes 0.4 s there and back) give an interval
    longer than the round trip, or the requests queue up in the line."""
    v = "-6" if family(addr) == socket.AF_INET6 else "-4"
    p = ns.cmd(["ping", v, "-n", "-c", str(count), "-s", str(size), "-i", str(interval),
                "-w", str(count + 2), addr], check=False, timeout=count * 3 + 10)
    if check:
        assert p.returncode == 0 and f"{count} received" in p.stdout, p.stdout + p.stderr
    return p


def tcp_echo(ns: Netns, addr: str, n: int, port: int = 7, piece: int = 512) -> None:
    """n random bytes through the board's TCP echo, sent in pieces of
    `piece` bytes interleaved with reading (its rings are 512 B), and
    checked byte for byte."""
    data = secrets.token_bytes(n)
    s = ns.socket(family(addr), socket.SOCK_STREAM, timeout=30)
    try:
        s.connect((addr, port))
        got = bytearray()
        sent = 0
        while sent < n:
            sent += s.send(data[sent:sent + piece])
            s.settimeout(0.01)
            try:
                while True:
                    c = s.recv(65536)
                    if not c:
                        break
                    got += c
            except (socket.timeout, BlockingIOError):
                pass
            s.settimeout(30)
        s.shutdown(socket.SHUT_WR)
        while True:
            c = s.recv(65536)
            if not c:
                break
            got += c
    finally:
        s.close()
    assert bytes(got) == data


def udp_echo(ns: Netns, addr: str, sizes: tuple[int, ...], port: int = 7) -> None:
    """Datagrams of each size through the board's UDP echo, checked."""
    s = ns.socket(family(addr), socket.SOCK_DGRAM, timeout=5)
    try:
        for n in sizes:
            data = secrets.token_bytes(n)
            s.sendto(data, (addr, port))
            got, _ = s.recvfrom(65536)
            assert got == data, (n, len(got))
    finally:
        s.close()


def tcp_upload(ns: Netns, addr: str, data: bytes, port: int = 9, timeout: float = 120) -> None:
    """Sends data to the board's discard service and waits for its FIN
    (the service closes once it has read the whole stream)."""
    s = ns.socket(family(addr), socket.SOCK_STREAM, timeout=timeout)
    try:
        s.connect((addr, port))
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        assert s.recv(1) == b"", "the discard service sent data"
    finally:
        s.close()


def http_get(ns: Netns, tmp: Path, addr: str, path: str, timeout: float = 60) -> tuple[str, bytes]:
    """curl http://[addr]PATH from the namespace: (status, body)."""
    out = tmp / f"body-{secrets.token_hex(4)}"
    p = ns.cmd(["curl", "-sS", "-g", "--max-time", str(timeout), "-o", str(out),
                "-w", "%{http_code}",
                f"http://[{addr}]{path}" if ":" in addr else f"http://{addr}{path}"], check=False,
               timeout=timeout + 30)
    assert p.returncode == 0, p.stdout + p.stderr
    body = out.read_bytes()
    out.unlink()
    return p.stdout, body


def assert_closed_ports_refuse(ns: Netns, addr: str) -> None:
    """A TCP SYN to a closed port is answered with RST, a UDP datagram with
    an ICMPv6 port unreachable (the deepest paths of the stack)."""
    s = ns.socket(socket.AF_INET6, socket.SOCK_STREAM, timeout=5)
    try:
        s.connect((addr, 1234))
        raise AssertionError("a connection to a closed port was accepted")
    except ConnectionRefusedError:
        pass
    finally:
        s.close()
    u = ns.socket(socket.AF_INET6, socket.SOCK_DGRAM, timeout=5)
    try:
        u.connect((addr, 1234))
        u.send(b"x" * 1000)
        u.recv(100)
        raise AssertionError("a datagram to a closed port drew an answer")
    except ConnectionRefusedError:
        pass
    finally:
        u.close()


class EmulatorBoard:
    """An emulator process running a firmware (self.proc, its log open in
    self._log), its UART on the Unix socket self.serial."""

    proc: subprocess.Popen
    serial: Path
    log: Path

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


class QemuBoard(EmulatorBoard):
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



class SimavrBoard(EmulatorBoard):
    """moteip-simavr running an AVR ELF inside namespace `ns`: USART0 on a
    Unix socket it listens on, its counters (cycles, UART bytes) and RAM
    written on SIGUSR1."""

    def __init__(self, ns: Netns, tmp: Path, elf: Path, extra: list[str] | None = None) -> None:
        if not SIMAVR_BIN.is_file():
            raise AssertionError(f"{SIMAVR_BIN} not built (libsimavr-dev missing? "
                                 "scripts/setup.sh installs it)")
        self.serial = tmp / "board-serial.sock"
        self.stats_path = tmp / "simavr-stats.json"
        self.ram_path = tmp / "simavr-ram.bin"
        self.log = tmp / "simavr.log"
        args = [str(SIMAVR_BIN), "--uart", f"unix:{self.serial}",
                "--stats-json", str(self.stats_path), "--ram", str(self.ram_path),
                *(extra or []), str(elf)]
        self._log = open(self.log, "wb")
        self.proc = subprocess.Popen(["ip", "netns", "exec", ns.name, *args],
                                     stdout=subprocess.PIPE, stderr=self._log)
        try:
            self.ready = read_ready_line(self.proc, 10, "moteip-simavr")
        except BaseException:
            self.kill()
            raise

    def dump(self) -> dict:
        """Asks for the counters and the RAM (SIGUSR1) and returns the
        counters once both are written."""
        return json_on_signal(self.proc, self.stats_path, "moteip-simavr", timeout=10)

    def stats(self) -> dict:
        return self.dump()

    def read_memory(self) -> bytes:
        """The data space (registers, I/O, SRAM) from address 0."""
        self.dump()
        return self.ram_path.read_bytes()



def simavr_uart_program(elf: Path, timeout: float = 120) -> str:
    """Runs an AVR program that talks only on USART0 (bench/os_dispatch.c,
    bench/cksum_avr.c) under moteip-simavr: sends it one byte (its start
    signal, repeated until it answers), returns what it printed up to and
    including its "done" line.
    No namespace: the UART is a Unix socket in a temporary directory."""
    import tempfile
    if not SIMAVR_BIN.is_file():
        raise AssertionError(f"{SIMAVR_BIN} not built")
    with tempfile.TemporaryDirectory() as tmp:
        sock_path = Path(tmp) / "uart.sock"
        proc = subprocess.Popen([str(SIMAVR_BIN), "--uart", f"unix:{sock_path}", str(elf)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            read_ready_line(proc, 10, "moteip-simavr")
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(sock_path))
            s.settimeout(0.5)
            out = b""
            deadline = time.monotonic() + timeout
            while b"done\n" not in out and time.monotonic() < deadline:
                if not out:
                    # the start byte again until the program answers: one
                    # that arrives before its UART is set up is lost
                    s.sendall(b"g")
                try:
                    chunk = s.recv(4096)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                out += chunk
            s.close()
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    text = out.decode(errors="replace")
    if "done\n" not in text:
        raise AssertionError(f"{elf.name} did not finish; it printed:\n{text}")
    return text


MPS2_TAP = "mtap0"
MPS2_MAC = "02:00:00:00:00:02"
MPS2_SEED_ADDR = 0x21000000          # port/mps2/mps2.h MPS2_SEED_ADDR


def boot_mps2(ns: Netns, tmp: Path, seed: bytes, elf: Path = MPS2_ELF,
              tap: bool = True) -> QemuBoard:
    """QEMU mps2-an385 running `elf` in `ns`, its 16-byte provisioning
    block written with QEMU's loader; with `tap`, the LAN9118 on the TAP
    mtap0, up, with 192.0.2.1/24 and fd00::1/64 (else no NIC at all: QEMU
    would otherwise give it user-mode networking)."""
    (tmp / "seed.bin").write_bytes(seed)
    nic = (f"tap,ifname={MPS2_TAP},script=no,downscript=no,model=lan9118,mac={MPS2_MAC}"
           if tap else "none")
    q = QemuBoard(ns, tmp, elf, machine="mps2-an385", extra=[
        "-nic", nic,
        "-device", f"loader,file={tmp / 'seed.bin'},addr={MPS2_SEED_ADDR:#x},force-raw=on"])
    if tap:
        try:
            ns.ip(["link", "set", MPS2_TAP, "up"])
            ns.ip(["addr", "add", "192.0.2.1/24", "dev", MPS2_TAP])
            ns.ip(["addr", "add", "fd00::1/64", "dev", MPS2_TAP, "nodad"])
        except BaseException:
            q.kill()
            raise
    return q


@contextlib.contextmanager
def serial_board(tmp: Path, make_board, addr: str):
    """A fresh namespace with a board on a serial line: make_board(ns, tmp)
    starts its emulator (QemuBoard, SimavrBoard), moteip-slip bridges its
    UART to a TUN, and the board answers ping at `addr`. Yields (ns, board,
    bridge); everything is stopped and deleted afterwards."""
    from slip_util import SlipBridge
    ns = Netns()
    board = bridge = None
    try:
        board = make_board(ns, tmp)
        bridge = SlipBridge(ns, tmp, f"unix:{board.serial}", extra=["--retry-ms", "20"])
        deadline = time.monotonic() + 15
        while ping6(ns, addr, check=False).returncode != 0:
            assert time.monotonic() < deadline, f"the board does not answer ping at {addr}"
            assert board.running(), board.log.read_text(errors="replace")
        yield ns, board, bridge
    finally:
        if bridge is not None:
            bridge.kill()
        if board is not None:
            board.kill()
        ns.delete()
