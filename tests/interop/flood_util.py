"""Runs onlink_flood.py (a bounded flood from invented on-link
sources) inside a test's namespace, in the background. The tool refuses to
run outside a namespace of its own and stops by itself."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from moteip_netns import REPO, MoteipHost, assert_safe_addr

TOOL = REPO / "tests" / "interop" / "onlink_flood.py"


class Flood:
    def __init__(self, host: MoteipHost, kind: str, dsts: list[str], *, rate: float,
                 duration: float, count: int, port: int = 80,
                 exclude: list[str] | None = None, seed: int = 12) -> None:
        for a in dsts + (exclude or []):
            assert_safe_addr(a)
        args = [sys.executable, str(TOOL), "--iface", host.tap, "--dst-mac", host.stack_mac(),
                "--kind", kind, "--port", str(port), "--rate", str(rate),
                "--duration", str(duration), "--count", str(count), "--seed", str(seed)]
        for a in dsts:
            args += ["--dst", a]
        for a in exclude or []:
            args += ["--exclude", a]
        self.duration = duration
        self.proc = subprocess.Popen(["ip", "netns", "exec", host.ns.name, *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def wait(self) -> dict:
        """Waits for the tool to stop on its own; its JSON summary."""
        try:
            out, err = self.proc.communicate(timeout=self.duration + 30)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("onlink_flood did not stop by itself")
        assert self.proc.returncode == 0, f"onlink_flood exited {self.proc.returncode}: {err!r}"
        return json.loads(out.decode())

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=10)
