"""`moteip run --realtime`: the run paced by the wall clock, the simulator's
"realtime: running" line passed through as it comes, Ctrl-C ending the run
with its result (docs/TOOL.md, "Real time and the border router")."""
from __future__ import annotations

import json
import pathlib
import re
import select
import signal
import subprocess
import time

import pytest

#: 3 nodes, a ping flow, and the run lasts its whole time (about 2 s).
PING3 = """\
name = "ping3"
duration_s = {duration}
stop_when_done = false
[topology]
type = "chain"
nodes = 3
spacing_m = 40
[[flows]]
type = "ping"
src = 0
dst = "last"
count = 4
interval_s = 0.2
"""


def test_run_realtime_paces_and_reports(cli, tmp_path):
    (tmp_path / "p.toml").write_text(PING3.format(duration=1.5))
    t0 = time.monotonic()
    r = cli("run", "p.toml", "--realtime", "--out", "r.json")
    assert r.rc == 0, r
    assert time.monotonic() - t0 >= 1.5
    assert r.stderr.startswith("moteip: realtime: running 3 nodes for 1.500 simulated s at speed 1")
    assert "\nrealtime: " in r.stdout and " wall s at speed 1, max lag " in r.stdout
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["realtime"]["wall_s"] >= 1.5 and res["flows"][0]["received"] == 4


def test_speed_needs_realtime(cli, tmp_path):
    (tmp_path / "p.toml").write_text(PING3.format(duration=1))
    r = cli("run", "p.toml", "--speed", "2")
    assert r.rc == 2 and "--speed needs --realtime" in r.stderr, r
    r = cli("run", "p.toml", "--realtime", "--speed", "0")
    assert r.rc == 2 and "--speed: expected simulated seconds per wall second" in r.stderr, r


def test_a_border_scenario_without_a_device_is_a_scenario_error(cli, tmp_path):
    (tmp_path / "b.toml").write_text(PING3.format(duration=5) + """
[border]
node = 0
device = "nosuchdev0"
address = "fd01::2/64"
""")
    r = cli("check", "b.toml")
    assert r.rc == 0, r                         # the host is not touched by a check
    r = cli("run", "b.toml")
    assert r.rc == 2 and "border: a border router runs only with --realtime" in r.stderr, r
    r = cli("run", "b.toml", "--realtime")
    assert r.rc == 2, r
    assert "b.toml: border.device: no interface 'nosuchdev0'" in r.stderr, r


def test_interrupt_ends_a_realtime_run_with_its_result(moteip_argv, tmp_path):
    (tmp_path / "p.toml").write_text(PING3.format(duration=60))
    p = subprocess.Popen([*moteip_argv, "run", "p.toml", "--realtime", "--out", "r.json"],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([p.stderr], [], [], 60)
        assert ready and p.stderr.readline().startswith("moteip: realtime: running")
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert "ended by a signal" in out
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["realtime"]["stopped_by_signal"] is True and res["sim_time_s"] < 30


def test_the_walkthrough_scenario_of_tool_md_checks(cli, tmp_path, repo_root):
    """docs/TOOL.md's border.toml is a valid scenario (its run needs a
    namespace: tests/interop/test_sim_border.py does that walk-through)."""
    text = (repo_root / "docs" / "TOOL.md").read_text()
    block = re.search(r"```toml\n(# border\.toml.*?)```", text, re.S)
    assert block, "no border.toml block in docs/TOOL.md"
    (tmp_path / "border.toml").write_text(block.group(1))
    r = cli("check", "border.toml")
    assert r.rc == 0, r


def _children(pid: int) -> list[int]:
    """The live child processes of pid (Linux /proc)."""
    kids: list[int] = []
    for task in pathlib.Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def _alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_stop_signal_to_moteip_ends_its_simulator(moteip_argv, tmp_path, sig):
    """`kill` of `moteip run --realtime` reaches moteip alone (not its process group, as
    Ctrl-C does): moteip-sim must still end, with the run's result written, and not be left
    running (holding a TUN when the scenario has a border router)."""
    (tmp_path / "p.toml").write_text(PING3.format(duration=60))
    p = subprocess.Popen([*moteip_argv, "run", "p.toml", "--realtime", "--out", "r.json"],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)     # no terminal signals reach the child
    sims: list[int] = []
    try:
        ready, _, _ = select.select([p.stderr], [], [], 60)
        assert ready and p.stderr.readline().startswith("moteip: realtime: running")
        sims = _children(p.pid)
        assert sims, "moteip-sim is not a child of moteip"
        p.send_signal(sig)
        out, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    deadline = time.monotonic() + 10
    while any(_alive(c) for c in sims) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(c) for c in sims), f"moteip-sim {sims} still runs after {sig!r}"
    assert p.returncode == 0, err
    assert "ended by a signal" in out
    assert json.loads((tmp_path / "r.json").read_text())["realtime"]["stopped_by_signal"] is True


#: Two runs that each take minutes: a TCP transfer of 4 GB over 3 nodes.
LONG_TCP = """\
name = "long3"
duration_s = 100000
[topology]
type = "chain"
nodes = 3
spacing_m = 40
[[flows]]
type = "tcp"
src = 0
dst = "last"
bytes = 4000000000
[sweep]
runs = 2
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_ends_a_sweeps_runs(moteip_argv, tmp_path, sig):
    """A sweep's runs sit in worker threads that no signal reaches: stopping the sweep
    stops them at once rather than when each run is done."""
    (tmp_path / "p.toml").write_text(LONG_TCP)
    p = subprocess.Popen([*moteip_argv, "sweep", "p.toml", "--jobs", "2", "--out", "sw"],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    sims: list[int] = []
    try:
        deadline = time.monotonic() + 30
        while len(sims) < 2 and time.monotonic() < deadline:
            sims = [c for c in _children(p.pid) if _alive(c)]
            time.sleep(0.05)
        assert len(sims) == 2, "the sweep did not start its two runs"
        p.send_signal(sig)
        _, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert not any(_alive(c) for c in sims), f"runs {sims} still going after {sig!r}"
    assert p.returncode == 130, err
