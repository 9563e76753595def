"""`moteip run --realtime`: the run paced by the wall clock, the simulator's
"realtime: running" line passed through as it comes, Ctrl-C ending the run
with its result (docs/TOOL.md, "Real time and the border router")."""
from __future__ import annotations

import json
import re
import select
import signal
import subprocess
import time

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
