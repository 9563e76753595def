"""Tests of the moteip front end (python/moteip): the `moteip` command and API.

Run from the repository root (no root needed):

    MOTEIP_BUILD_DIR=build .venv/bin/python -m pytest -q tests/tool

The simulator is $MOTEIP_BUILD_DIR/moteip-sim (default build/), as for
tests/sim. The suite copies it once into a private directory and points
MOTEIP_SIM at the copy (in os.environ, so every `moteip` subprocess and Dask
worker inherits it): `find_simulator` then never runs cmake on the shared
build tree, and a rebuild of that tree while the suite runs (by
test_find_simulator.py, or by someone working on the C code) cannot change
the binary under a test half way through. The copy is byte-identical, so the
simulator digest in the sweep point ids is the same as the build's.

Every test writes into its own tmp_path (explicit --out / out=, subprocesses
with cwd=tmp_path): nothing goes to the repository's out/ or examples/.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("MOTEIP_BUILD_DIR", ROOT / "build")).resolve()
BUILD_SIM = BUILD_DIR / "moteip-sim"

_SIM_DIR = pathlib.Path(tempfile.mkdtemp(prefix="moteip-tooltest-"))
SIM = _SIM_DIR / "moteip-sim"
if BUILD_SIM.is_file():
    shutil.copy2(BUILD_SIM, SIM)
# Set at import, before any test (or Dask worker) starts: find_simulator() uses it.
os.environ["MOTEIP_SIM"] = str(SIM)
# `moteip reproduce` must use the repository's examples/.
os.environ.pop("MOTEIP_EXAMPLES", None)

# The stop-signal tests (test_realtime, test_resume, test_view) send SIGINT,
# SIGTERM and SIGHUP to a `moteip` child and expect what a shell's kill or
# Ctrl-C does. A signal ignored here is ignored in every child (exec keeps
# SIG_IGN), and moteip rightly leaves an ignored signal ignored: a suite
# started under nohup (SIGHUP) or as a background job of a shell without job
# control (SIGINT) would fail them. So the suite puts them back first.
for _sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_sig) is signal.SIG_IGN:
        signal.signal(_sig, signal.default_int_handler if _sig == signal.SIGINT
                      else signal.SIG_DFL)

_SCRIPT = pathlib.Path(sys.executable).parent / "moteip"
MOTEIP = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "moteip"]


def pytest_unconfigure(config):
    shutil.rmtree(_SIM_DIR, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _need_binary():
    if not BUILD_SIM.is_file():
        pytest.fail(f"{BUILD_SIM} is missing: build the full profile first "
                    f"(cmake --build {BUILD_DIR} --target moteip-sim)")


# --- running the command ------------------------------------------------------------

@dataclass
class Result:
    rc: int
    stdout: str
    stderr: str

    def __str__(self) -> str:  # shown by pytest when an assertion fails
        return f"exit {self.rc}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def make_env(set_: dict | None = None, unset: tuple = ()) -> dict:
    env = dict(os.environ)
    env.update(set_ or {})
    for k in unset:
        env.pop(k, None)
    return env


@pytest.fixture
def cli(tmp_path):
    """cli(*args, cwd=tmp_path, env=None, unset=(), timeout=120) runs the
    `moteip` command and returns Result(rc, stdout, stderr)."""

    def run(*args, cwd=None, env: dict | None = None, unset: tuple = (), timeout: float = 120) -> Result:
        p = subprocess.run([*MOTEIP, *map(str, args)], cwd=cwd or tmp_path, capture_output=True,
                           text=True, env=make_env(env, unset), timeout=timeout)
        return Result(p.returncode, p.stdout, p.stderr)

    return run


@pytest.fixture
def moteip_argv():
    """The argv prefix of the `moteip` command (for Popen)."""
    return list(MOTEIP)


@pytest.fixture
def sim_path() -> pathlib.Path:
    return SIM


@pytest.fixture
def build_dir() -> pathlib.Path:
    return BUILD_DIR


@pytest.fixture
def repo_root() -> pathlib.Path:
    return ROOT


# --- tiny scenarios --------------------------------------------------------------------

#: 3-node chain, CSMA-CA, 20 UDP reports from node 0 to the far end: ~10 ms a run.
UDP3 = """\
name = "udp3"
description = "tiny UDP chain for the tool tests"
seed = 1
duration_s = 60
stop_when_done = true

[topology]
type = "chain"
nodes = 3
spacing_m = 10

[medium]
model = "unit_disk"
range_m = 10.5
interference_range_m = 10.5
ber = 0

[mac]
type = "csma_ca"

[[flows]]
type = "udp"
src = 0
dst = "last"
interval_s = 0.1
payload_bytes = 40
count = 20
"""

#: 2 nodes, 4000 bytes of TCP: ~10 ms a run.
TCP2 = """\
name = "tcp2"
seed = 1
duration_s = 60
stop_when_done = true

[topology]
type = "chain"
nodes = 2
spacing_m = 10

[medium]
model = "unit_disk"
range_m = 15
interference_range_m = 15

[mac]
type = "csma_ca"

[[flows]]
type = "tcp"
src = 0
dst = "last"
bytes = 4000
"""

#: 5-node chain, 2 MB of TCP over 4 hops: ~0.5 s a run (for interrupting a sweep).
SLOW = """\
name = "slow"
seed = 1
duration_s = 5000
stop_when_done = true

[topology]
type = "chain"
nodes = 5
spacing_m = 10

[medium]
model = "unit_disk"
range_m = 10.5
interference_range_m = 20.5

[mac]
type = "csma_ca"
retry_delay_max_us = 40000

[[flows]]
type = "tcp"
src = 0
dst = "last"
bytes = 2000000
mss = 88
rx_buffer = 304
"""


@pytest.fixture(scope="session")
def scenario_text():
    """The texts of the tiny scenarios: scenario_text["udp3"], ["tcp2"], ["slow"]."""
    return {"udp3": UDP3, "tcp2": TCP2, "slow": SLOW}


@pytest.fixture
def write_scenario(tmp_path):
    """write_scenario(name, text) -> tmp_path/name (a pathlib.Path)."""

    def write(name: str, text: str) -> pathlib.Path:
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    return write


@pytest.fixture
def udp3(write_scenario) -> pathlib.Path:
    return write_scenario("udp3.toml", UDP3)


@pytest.fixture
def tcp2(write_scenario) -> pathlib.Path:
    return write_scenario("tcp2.toml", TCP2)
