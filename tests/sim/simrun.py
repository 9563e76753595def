"""Helpers for the simulator tests: run moteip-sim on a scenario dict.

The binary comes from $MOTEIP_BUILD_DIR (default build/ at the repository
root), as for the interop tests. Nothing here needs root or a network.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[2]


def sim_binary() -> pathlib.Path:
    build = pathlib.Path(os.environ.get("MOTEIP_BUILD_DIR", ROOT / "build"))
    return build / "moteip-sim"


@dataclass
class SimRun:
    rc: int
    stdout: str
    stderr: str

    @property
    def result(self) -> dict:
        return json.loads(self.stdout)


def run_sim(scenario: dict | str | pathlib.Path, tmp_path: pathlib.Path, *args: str,
            timeout: float = 300) -> SimRun:
    """Runs moteip-sim on a scenario (a dict is written to a file first)."""
    if isinstance(scenario, dict):
        path = tmp_path / "scenario.json"
        path.write_text(json.dumps(scenario))
    else:
        path = pathlib.Path(scenario)
    p = subprocess.run([str(sim_binary()), str(path), *args], capture_output=True,
                       text=True, timeout=timeout)
    return SimRun(p.returncode, p.stdout, p.stderr)


def run_ok(scenario: dict, tmp_path: pathlib.Path, *args: str, timeout: float = 300) -> dict:
    r = run_sim(scenario, tmp_path, *args, timeout=timeout)
    assert r.rc == 0, r.stderr
    return r.result
