"""Helpers for the moteip interop tests (the fixtures in conftest.py use
them): a network namespace with a TAP,
Linux on one side (192.0.2.1/24, fd00::1/64) and moteip-host on the other
(192.0.2.2/24, fd00::2/64).

Run as root:  python3 -m pytest tests/interop -q
The moteip-host binary is taken from $MOTEIP_BUILD_DIR (default: build/ at
the repository root).

NETWORK SAFETY: every namespace is created by the fixture under a unique
name and deleted afterwards, whatever happened. Tests only send to
192.0.2.0/24 and fd00::/8 addresses inside that namespace;
`assert_safe_addr` enforces it in the helpers.
"""
from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import json
import os
import re
import secrets
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("MOTEIP_BUILD_DIR", REPO / "build"))
HOST_BIN = BUILD_DIR / "moteip-host"
STATS_H = REPO / "include" / "moteip" / "stats.h"

TAP = "mtap0"
LINUX_V4 = "192.0.2.1"
STACK_V4 = "192.0.2.2"
LINUX_V6 = "fd00::1"
STACK_V6 = "fd00::2"
STACK_ADDRS = [f"{STACK_V4}/24", f"{STACK_V6}/64"]

_SAFE_NETS = [ipaddress.ip_network("192.0.2.0/24"), ipaddress.ip_network("fd00::/8")]

CMD_TIMEOUT = 20          # seconds, any helper command
READY_TIMEOUT = 10        # seconds, host start-up

_libc = ctypes.CDLL(None, use_errno=True)
_CLONE_NEWNET = 0x40000000


def assert_safe_addr(addr: str) -> None:
    """Refuses any destination outside the test networks."""
    a = ipaddress.ip_address(addr.split("%")[0])
    if not any(a in n for n in _SAFE_NETS):
        raise AssertionError(f"refusing to send to {addr}: outside 192.0.2.0/24 and fd00::/8")


def stat_names() -> list[str]:
    """Every counter name in MIP_STATS_LIST, read from include/moteip/stats.h."""
    text = STATS_H.read_text()
    m = re.search(r"#define MIP_STATS_LIST\(X\)(.*?)\n\s*\n", text, re.S)
    assert m, "MIP_STATS_LIST not found in stats.h"
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return re.findall(r"\bX\((\w+)\)", body)


def run(args: list[str], *, timeout: float = CMD_TIMEOUT, check: bool = True,
        input: bytes | None = None) -> subprocess.CompletedProcess:
    """Runs a command with a timeout, capturing text output."""
    p = subprocess.run(args, capture_output=True, timeout=timeout, input=input)
    out = subprocess.CompletedProcess(p.args, p.returncode,
                                      p.stdout.decode(errors="replace"),
                                      p.stderr.decode(errors="replace"))
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} exited {p.returncode}\n"
                             f"stdout: {out.stdout}\nstderr: {out.stderr}")
    return out


def require_root_and_binary() -> None:
    if os.geteuid() != 0:
        pytest.skip("interop tests need root (network namespaces, TAP devices)")
    if not HOST_BIN.is_file() or not os.access(HOST_BIN, os.X_OK):
        pytest.fail(f"{HOST_BIN} not built: run `cmake -S . -B build -G Ninja && "
                    f"cmake --build build` (or set MOTEIP_BUILD_DIR)")


def read_ready_line(proc: subprocess.Popen, timeout: float, what: str,
                    stream=None) -> str:
    """The first line a starting program prints on stdout, or on `stream`
    (moteip-sim --realtime: its stderr), its "ready" line; fails if it exits
    first or takes longer than timeout."""
    stream = proc.stdout if stream is None else stream
    assert stream is not None
    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    buf = b""
    deadline = time.monotonic() + timeout
    try:
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{what} not ready after {timeout}s")
            if not sel.select(timeout=left):
                continue
            chunk = os.read(stream.fileno(), 4096)
            if not chunk:
                rc = proc.wait(timeout=5)
                err = proc.stderr.read().decode(errors="replace") \
                    if proc.stderr and proc.stderr is not stream else buf.decode(errors="replace")
                raise AssertionError(f"{what} exited {rc} before ready: {err}")
            buf += chunk
    finally:
        sel.close()
    return buf.split(b"\n", 1)[0].decode()


def json_on_signal(proc: subprocess.Popen, path: Path, what: str, sig: int = signal.SIGUSR1,
                   timeout: float = 5) -> dict:
    """Sends `sig` to a program that answers it by rewriting the JSON file
    at `path` (moteip-slip's and moteip-simavr's counters) and returns the
    new contents once they are there."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    proc.send_signal(sig)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_mtime_ns != before:
            try:
                return json.loads(path.read_text())
            except json.JSONDecodeError:
                pass
        if proc.poll() is not None:
            break
        time.sleep(0.01)
    raise AssertionError(f"{what} wrote no counters after signal {sig}")


class Netns:
    """A uniquely named network namespace; `delete()` removes it."""

    def __init__(self) -> None:
        self.name = f"moteip-{secrets.token_hex(4)}"
        run(["ip", "netns", "add", self.name])
        self._deleted = False
        try:
            run(["ip", "-n", self.name, "link", "set", "lo", "up"])
        except Exception:
            self.delete()
            raise

    def delete(self) -> None:
        if self._deleted:
            return
        self._deleted = True
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=30)

    def cmd(self, args: list[str], **kw) -> subprocess.CompletedProcess:
        """Runs a command inside the namespace."""
        return run(["ip", "netns", "exec", self.name, *map(str, args)], **kw)

    def ip(self, args: list[str], **kw) -> subprocess.CompletedProcess:
        return run(["ip", "-n", self.name, *map(str, args)], **kw)

    def python(self, code: str, *, timeout: float = CMD_TIMEOUT,
               check: bool = True) -> subprocess.CompletedProcess:
        """Runs Python code in a fresh interpreter inside the namespace."""
        return self.cmd([sys.executable, "-c", code], timeout=timeout, check=check)

    @contextlib.contextmanager
    def entered(self):
        """Switches this thread into the namespace for the block (setns), so
        sockets created inside belong to it (and keep belonging to it)."""
        with open("/proc/thread-self/ns/net") as orig, open(f"/run/netns/{self.name}") as ns:
            if _libc.setns(ns.fileno(), _CLONE_NEWNET) != 0:
                e = ctypes.get_errno()
                raise OSError(e, f"setns({self.name}): {os.strerror(e)}")
            try:
                yield
            finally:
                if _libc.setns(orig.fileno(), _CLONE_NEWNET) != 0:
                    e = ctypes.get_errno()
                    # Never carry on in the wrong namespace.
                    sys.stderr.write(f"cannot return from netns {self.name}: {os.strerror(e)}\n")
                    os._exit(70)

    def socket(self, family: int, type_: int, proto: int = 0,
               timeout: float = 3.0) -> socket.socket:
        """A socket in the namespace, with a timeout set."""
        with self.entered():
            s = socket.socket(family, type_, proto)
        s.settimeout(timeout)
        return s


class MoteipHost:
    """moteip-host running in a namespace on TAP `tap`, plus helpers."""

    def __init__(self, ns: Netns, tmp: Path, extra_args: list[str] | None = None,
                 addrs: list[str] | None = None, tap: str = TAP,
                 create_tap: bool = True, linux_addrs: bool = True) -> None:
        self.ns = ns
        self.tap = tap
        self.stats_path = tmp / f"stats-{ns.name}.json"
        self.proc: subprocess.Popen | None = None
        self.ready_line = ""
        self.stdout = ""
        self.stderr = ""
        self.returncode: int | None = None
        self._stack_mac: str | None = None
        if create_tap:
            ns.ip(["tuntap", "add", "dev", tap, "mode", "tap"])
            if linux_addrs:
                ns.ip(["addr", "add", f"{LINUX_V4}/24", "dev", tap])
                ns.ip(["addr", "add", f"{LINUX_V6}/64", "dev", tap, "nodad"])
            ns.ip(["link", "set", tap, "up"])
        args = [str(HOST_BIN), "--tap", tap]
        for a in (STACK_ADDRS if addrs is None else addrs):
            args += ["--addr", a]
        args += ["--stats-json", str(self.stats_path)]
        args += extra_args or []
        self.args = args
        # `ip netns exec` execs the command, so proc.pid is moteip-host's.
        self.proc = subprocess.Popen(["ip", "netns", "exec", ns.name, *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            self.ready_line = self._read_ready_line()
        except BaseException:
            self.kill()
            raise

    def _read_ready_line(self) -> str:
        assert self.proc is not None
        return read_ready_line(self.proc, READY_TIMEOUT, "moteip-host")

    # --- traffic helpers -------------------------------------------------

    def ping(self, addr: str, size: int = 56, count: int = 1, *, timeout: float = 2,
             interval: float = 0.2, check: bool = True,
             extra: list[str] | None = None) -> subprocess.CompletedProcess:
        """Linux pings addr from inside the namespace; check: every reply came."""
        assert_safe_addr(addr)
        v6 = ":" in addr
        args = ["ping", "-6" if v6 else "-4", "-n", "-c", str(count), "-s", str(size),
                "-i", str(interval), "-W", str(timeout), *(extra or []), addr]
        p = self.ns.cmd(args, check=False, timeout=count * (timeout + interval) + 10)
        if check:
            assert p.returncode == 0 and f"{count} received" in p.stdout, \
                f"ping {addr} size {size}: rc {p.returncode}\n{p.stdout}{p.stderr}"
        return p

    def wait_answering(self, timeout: float = READY_TIMEOUT) -> None:
        """Waits until the stack answers ping over both families."""
        for addr in (STACK_V4, STACK_V6):
            deadline = time.monotonic() + timeout
            while True:
                p = self.ping(addr, check=False, timeout=1)
                if p.returncode == 0:
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(f"moteip-host does not answer ping {addr}:\n"
                                         f"{p.stdout}{p.stderr}\n{self._diag()}")
                self.assert_running()

    def assert_running(self) -> None:
        assert self.proc is not None
        rc = self.proc.poll()
        if rc is not None:
            err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
            raise AssertionError(f"moteip-host exited {rc}: {err}")

    def assert_alive(self) -> None:
        """The host process runs and answers ping over IPv4 and IPv6."""
        self.assert_running()
        self.ping(STACK_V4, count=1, timeout=2)
        self.ping(STACK_V6, count=1, timeout=2)

    def socket(self, family: int, type_: int, proto: int = 0,
               timeout: float = 3.0) -> socket.socket:
        return self.ns.socket(family, type_, proto, timeout)

    def linux_mac(self) -> str:
        info = json.loads(self.ns.ip(["-j", "link", "show", "dev", self.tap]).stdout)
        return info[0]["address"]

    def stack_mac(self) -> str:
        """The stack's MAC, learned from Linux's neighbor table after a ping."""
        if self._stack_mac is None:
            self.ping(STACK_V4)
            entries = json.loads(self.ns.ip(["-j", "neigh", "show", "dev", self.tap]).stdout)
            for e in entries:
                if e.get("dst") == STACK_V4 and e.get("lladdr"):
                    self._stack_mac = e["lladdr"]
                    break
            assert self._stack_mac, f"no neighbor entry for {STACK_V4}: {entries}"
        return self._stack_mac

    def _diag(self) -> str:
        neigh = self.ns.ip(["neigh", "show"], check=False).stdout
        addr = self.ns.ip(["addr", "show"], check=False).stdout
        return f"neigh:\n{neigh}\naddr:\n{addr}"

    # --- stopping --------------------------------------------------------

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> dict:
        """Signals the host, asserts it exits 0, returns its stats JSON."""
        rc = self.terminate(sig, timeout)
        assert rc == 0, f"moteip-host exited {rc} after {signal.Signals(sig).name}: {self.stderr}"
        assert self.stats_path.exists(), "moteip-host wrote no stats JSON"
        stats = json.loads(self.stats_path.read_text())
        assert isinstance(stats.get("counters"), dict), stats
        return stats

    def terminate(self, sig: int = signal.SIGTERM, timeout: float = 10) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate(timeout=10)
            self.stdout += out.decode(errors="replace")
            self.stderr += err.decode(errors="replace")
            raise AssertionError(f"moteip-host did not exit within {timeout}s of "
                                 f"{signal.Signals(sig).name}")
        self.stdout += out.decode(errors="replace")
        self.stderr += err.decode(errors="replace")
        self.returncode = self.proc.returncode
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                pass


def counters_delta(after: dict, before: dict | None = None) -> dict:
    before = before or {}
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}
