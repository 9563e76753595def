"""SLIP (RFC 1055) in Python and moteip-slip in a namespace, for the tests
of the bridge (test_slip_bridge.py) and of the emulated boards
(test_microbit.py).

NETWORK SAFETY: the bridge's TUN lives in the test's own namespace, with
192.0.2.0/24 and fd00::/64 on it; the serial side is a socket on the
namespace's loopback or a Unix socket in the test's temporary directory.
"""
from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from moteip_netns import BUILD_DIR, Netns, json_on_signal, read_ready_line

SLIP_BIN = BUILD_DIR / "moteip-slip"
TUN = "msl0"
LINUX_V4 = "192.0.2.1"
BOARD_V4 = "192.0.2.2"
LINUX_V6 = "fd00::1"
BOARD_V6 = "fd00::2"

END, ESC, ESC_END, ESC_ESC = 0xC0, 0xDB, 0xDC, 0xDD


def slip_encode(frame: bytes, lead: bool = True) -> bytes:
    body = frame.replace(bytes([ESC]), bytes([ESC, ESC_ESC])).replace(
        bytes([END]), bytes([ESC, ESC_END]))
    return (bytes([END]) if lead else b"") + body + bytes([END])


class SlipDecoder:
    """Byte-at-a-time decoder with the rules of include/moteip/wire/slip.h."""

    def __init__(self, cap: int = 65535) -> None:
        self.cap = cap
        self.buf = bytearray()
        self.esc = False
        self.skip = False
        self.errors = 0

    def feed(self, data: bytes) -> list[bytes]:
        frames = []
        for b in data:
            if self.skip:
                self.skip = b != END
                continue
            if self.esc:
                self.esc = False
                if b == ESC_END:
                    b = END
                elif b == ESC_ESC:
                    b = ESC
                else:
                    self.errors += 1
                    self.buf.clear()
                    self.skip = b != END
                    continue
            elif b == END:
                if self.buf:
                    frames.append(bytes(self.buf))
                self.buf.clear()
                continue
            elif b == ESC:
                self.esc = True
                continue
            if len(self.buf) == self.cap:
                self.errors += 1
                self.buf.clear()
                self.skip = True
                continue
            self.buf.append(b)
        return frames


class SlipBridge:
    """moteip-slip in namespace `ns`, its TUN `tun` up with the Linux side's
    addresses (192.0.2.1/24, fd00::1/64)."""

    def __init__(self, ns: Netns, tmp: Path, serial: str, *, tun: str = TUN,
                 extra: list[str] | None = None, ready_timeout: float = 10) -> None:
        self.ns = ns
        self.tun = tun
        self.stats_path = tmp / f"slip-stats-{ns.name}.json"
        self.args = [str(SLIP_BIN), "--serial", serial, "--tun", tun,
                     "--stats-json", str(self.stats_path), *(extra or [])]
        self.proc = subprocess.Popen(["ip", "netns", "exec", ns.name, *self.args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.stderr = ""
        try:
            self.ready = self._ready_line(ready_timeout)
            ns.ip(["addr", "add", f"{LINUX_V4}/24", "dev", tun])
            ns.ip(["addr", "add", f"{LINUX_V6}/64", "dev", tun, "nodad"])
        except BaseException:
            self.kill()
            raise

    def _ready_line(self, timeout: float) -> str:
        line = read_ready_line(self.proc, timeout, "moteip-slip")
        assert line.startswith("ready "), line
        return line

    def running(self) -> bool:
        return self.proc.poll() is None

    def stats(self) -> dict:
        """Counters written on SIGUSR1 (the bridge keeps running)."""
        return json_on_signal(self.proc, self.stats_path, "moteip-slip")

    def stop(self, timeout: float = 10, sig: int = signal.SIGTERM) -> dict:
        """SIGTERM (or sig); asserts exit 0 and returns the final counters."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            _, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"moteip-slip did not exit within {timeout}s of SIGTERM")
        self.stderr += err.decode(errors="replace")
        assert self.proc.returncode == 0, f"moteip-slip exited {self.proc.returncode}: {self.stderr}"
        return json.loads(self.stats_path.read_text())

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                _, err = self.proc.communicate(timeout=10)
                self.stderr += err.decode(errors="replace")
            except subprocess.TimeoutExpired:
                pass
