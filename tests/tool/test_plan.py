"""moteip.plan: a scenario goes to its runs in one pass (load -> expand ->
check -> run). Each distinct scenario JSON is checked by the simulator once,
and what was checked is what runs; point ids stay those of earlier versions,
so sweep directories on disk keep being resumed; a report shows a missing
point or metric as "-"."""
from __future__ import annotations

import hashlib
import stat
import tomllib

import pytest
from conftest import UDP3

from moteip import plan, scenario
from moteip.experiments import mean, metric
from moteip.experiments.physics import per_report


@pytest.fixture
def logging_sim(tmp_path, sim_path):
    """A moteip-sim that logs "check|run SHA256-OF-THE-SCENARIO" per call, then
    runs the real one."""
    log = tmp_path / "sim.log"
    fake = tmp_path / "logging-sim"
    fake.write_text(f"""#!/bin/sh
kind=run
for a in "$@"; do [ "$a" = --check ] && kind=check; done
echo "$kind $(sha256sum < "$1" | cut -c1-64)" >> {log}
exec {sim_path} "$@"
""")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return fake, log


# (arguments after the scenario, simulator checks, runs)
CALLS = [
    (["run"], 1, 1),
    (["run", "--set", "flows.0.count=5"], 1, 1),
    # the scenario with --set is the only point: one check (two before the one pass)
    (["sweep", "--set", "flows.0.count=5", "--runs", "2"], 1, 2),
    (["sweep", "--vary", "medium.ber=0,1e-5", "--runs", "2"], 2, 4),
    # --set is checked on its own (its errors name --set), then each point
    (["sweep", "--set", "flows.0.count=5", "--vary", "flows.0.count=3,4", "--runs", "1"], 3, 2),
    (["check", "--vary", "medium.ber=0,1e-5,1e-4"], 3, 0),
]


@pytest.mark.parametrize("args, checks, runs", CALLS, ids=[" ".join(c[0]) for c in CALLS])
def test_each_scenario_is_checked_once_and_runs_as_checked(cli, udp3, logging_sim, tmp_path,
                                                            args, checks, runs):
    fake, log = logging_sim
    extra = ["--no-progress", "--out", "sw"] if args[0] == "sweep" else []
    r = cli(args[0], "udp3.toml", *args[1:], *extra, env={"MOTEIP_SIM": str(fake)})
    assert r.rc == 0, r
    calls = [line.split() for line in log.read_text().splitlines()]
    checked = [h for kind, h in calls if kind == "check"]
    ran = [h for kind, h in calls if kind == "run"]
    assert (len(checked), len(ran)) == (checks, runs), calls
    assert set(ran) <= set(checked)           # nothing runs that was not checked as such
    if args[0] == "sweep":                    # and scenarios/ holds what ran
        written = {hashlib.sha256(p.read_bytes()[:-1]).hexdigest()
                   for p in (tmp_path / "sw" / "scenarios").glob("*.json")}
        assert written == set(ran)


def test_point_ids_are_those_sweeps_on_disk_were_made_with():
    sc = scenario.from_dict(tomllib.loads(UDP3), "udp3.toml")
    p = plan.expand(sc, {"medium.ber": [0, 1e-5], "flows[0].payload_bytes": [20, 40, 20]},
                    {"flows[0].count": 5}, "abc")
    # computed by moteip 0.2.0 before the one pass (sweep.plan after --set was applied)
    assert [(pt.id, pt.params) for pt in p.points] == [
        ("3fd23a034ab7", {"medium.ber": 0, "flows[0].payload_bytes": 20}),
        ("c9fb93e2fe23", {"medium.ber": 0, "flows[0].payload_bytes": 40}),
        ("c5c1c81ea095", {"medium.ber": 1e-05, "flows[0].payload_bytes": 20}),
        ("fb16088d8238", {"medium.ber": 1e-05, "flows[0].payload_bytes": 40})]
    assert [pt.id for pt in plan.expand(sc).points] == ["96af089944bc"]
    assert [t.run_id for t in p.tasks([1, 2])][:3] == ["3fd23a034ab7-s1", "3fd23a034ab7-s2",
                                                       "c9fb93e2fe23-s1"]


def test_a_missing_point_or_metric_is_a_dash_in_a_report():
    assert metric(None, "per") is None and mean(None, "per") is None
    cell = {"n": 2, "mean": 0.5, "std": 0.0, "ci95": 0.0, "min": 0.5, "max": 0.5}
    summary = {"vary": {"medium.ber": [0]},
               "points": [{"id": "x", "params": {"medium.ber": 0}, "runs": 2,
                           "metrics": {"per": cell, "frames": {**cell, "mean": 100}}}]}
    rep = per_report(summary)          # no mpdu_bytes: was a TypeError
    assert rep.rows[0][3] == "-"
