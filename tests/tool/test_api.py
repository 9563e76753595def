"""The Python API: moteip.run / sweep / load_summary / to_dataframe and its errors."""
from __future__ import annotations

import json
import pathlib

import pytest

import moteip
from moteip import RunError, ScenarioError, UsageError


def test_sweep_returns_out_summary_and_runs(udp3, tmp_path):
    lines = []
    out = tmp_path / "api"
    s = moteip.sweep(udp3, vary={"flows.0.count": [3, 5]}, runs=2, out=out, jobs=2, log=lines.append,
                     progress=False, metrics_fn=lambda result, params: {"twice": 2 * params["flows[0].count"]})
    assert set(s) == {"out", "summary", "runs"}
    assert s["out"] == str(out)
    assert s["summary"] == moteip.load_summary(out) == json.loads((out / "summary.json").read_text())
    assert [(r["params"], r["seed"]) for r in s["runs"]] == \
        [({"flows[0].count": 3}, 1), ({"flows[0].count": 3}, 2), ({"flows[0].count": 5}, 1),
         ({"flows[0].count": 5}, 2)]
    assert [r["metrics"]["twice"] for r in s["runs"]] == [6, 6, 10, 10]
    assert [p["metrics"]["flows[0].sent"]["mean"] for p in s["summary"]["points"]] == [3, 5]
    assert [p["metrics"]["twice"]["mean"] for p in s["summary"]["points"]] == [6, 10]
    assert lines == [f"sweep {udp3}: 2 points x 2 seeds = 4 runs on 2 local processes -> {out}"]


def test_sweep_argument_errors(udp3, tmp_path):
    with pytest.raises(UsageError, match=r"^vary medium\.ber: expected a non-empty list of values$"):
        moteip.sweep(udp3, vary={"medium.ber": []}, out=tmp_path / "x", log=None)
    with pytest.raises(UsageError, match=r"^vary medium\.ber: expected a non-empty list of values$"):
        moteip.sweep(udp3, vary={"medium.ber": 0.1}, out=tmp_path / "x", log=None)
    with pytest.raises(UsageError, match=r"^runs: expected an integer >= 1, got 0$"):
        moteip.sweep(udp3, runs=0, out=tmp_path / "x", log=None)
    with pytest.raises(UsageError, match=r"^seed: expected an integer in \[0, 9223372036854775807\], got -1$"):
        moteip.sweep(udp3, seed=-1, out=tmp_path / "x", log=None)
    with pytest.raises(UsageError, match=r"^key 'a\.\.b': "):
        moteip.sweep(udp3, vary={"a..b": [1]}, out=tmp_path / "x", log=None)
    with pytest.raises(ScenarioError, match=r"\(with medium\.ber = 2 from the sweep\)$"):
        moteip.sweep(udp3, vary={"medium.ber": [0, 2]}, out=tmp_path / "x", log=None)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("bad,msg", [
    ({"topology": {"type": "chain", "nodes": 0, "spacing_m": 10}, "flows": []},
     "scenario: topology.nodes: expected an integer in [1, 1000000], got 0"),
    ({"topology": {"type": "chain", "nodes": 2, "spacing_m": 10}, "flows": [{"type": "udp", "src": 0, "dst": 5}]},
     'scenario: flows[0].dst: expected an integer node id 0..1 or "last", got 5'),
    ({"description": 3, "topology": {"type": "chain", "nodes": 2, "spacing_m": 10}},
     "scenario: description: expected a string, got 3"),
    ({"topology": {"type": "chain", "nodes": 2, "spacing_m": 10}, "medium": {"ber": float("nan")}},
     "scenario: medium.ber: expected a finite number, got nan"),
    ([1, 2], "scenario: expected a table of scenario keys, got list"),
])
def test_run_raises_scenario_error_for_a_bad_dict(bad, msg):
    with pytest.raises(ScenarioError) as ei:
        moteip.run(bad) if isinstance(bad, dict) else moteip.scenario.from_dict(bad)
    assert str(ei.value) == msg
    assert isinstance(ei.value, UsageError) and ei.value.exit_status == 2


def test_run_bad_params(udp3):
    with pytest.raises(UsageError, match=r"^--set: flows\[2\]: the scenario's flows has 1 element$"):
        moteip.run(udp3, params={"flows[2].dst": 1})
    with pytest.raises(ScenarioError, match=r"^.*udp3\.toml: medium\.ber: expected a number in \[0, 1\], "
                                            r"got 7 \(with medium\.ber = 7 from --set\)$"):
        moteip.run(udp3, params={"medium.ber": 7})


def test_run_error_from_the_simulator(udp3, tmp_path):
    sim = tmp_path / "crash"
    sim.write_text('#!/bin/sh\nfor a; do [ "$a" = --check ] && exit 0; done\n'
                   'echo "moteip-sim: boom" >&2\nexit 3\n')
    sim.chmod(0o755)
    with pytest.raises(RunError) as ei:
        moteip.run(udp3, seed=9, sim=sim)
    assert str(ei.value) == f"moteip-sim failed on {udp3} (seed 9, exit 3): boom"
    assert ei.value.exit_status == 1


def test_run_result_that_is_not_json(udp3, tmp_path):
    sim = tmp_path / "chatty"
    sim.write_text('#!/bin/sh\necho "hello"\n')
    sim.chmod(0o755)
    with pytest.raises(RunError, match=r"^moteip-sim printed a result that is not JSON"):
        moteip.run(udp3, sim=sim)


def test_load_summary_errors(tmp_path):
    with pytest.raises(UsageError, match=r"no summary\.json here"):
        moteip.load_summary(tmp_path)
    (tmp_path / "summary.json").write_text('{"points": []}')
    with pytest.raises(UsageError, match=r"not a sweep summary \(no points/vary\)$"):
        moteip.load_summary(tmp_path)


def test_to_dataframe(udp3, tmp_path):
    pd = pytest.importorskip("pandas", reason="pandas is optional (pip install 'moteip[pandas]')")
    s = moteip.sweep(udp3, vary={"medium.ber": [0, 1e-3]}, runs=2, out=tmp_path / "df", log=None,
                     progress=False)
    df = moteip.to_dataframe(s["summary"])
    assert isinstance(df, pd.DataFrame)
    assert len(df) == sum(len(p["metrics"]) for p in s["summary"]["points"])
    assert list(df.columns) == ["medium.ber", "metric", "n", "mean", "std", "ci95", "min", "max"]
    row = df[(df["medium.ber"] == 0.001) & (df["metric"] == "flows[0].sent")].iloc[0]
    assert (row["n"], row["mean"]) == (2, 20)


def test_exports():
    for name in moteip.__all__:
        assert hasattr(moteip, name), name
    assert issubclass(moteip.ScenarioError, moteip.UsageError)
    assert issubclass(moteip.RunError, moteip.MoteipError)
    e = moteip.Interrupted(3, 10, pathlib.Path("sw"))
    assert str(e) == "interrupted: 3 of 10 runs are on disk in sw; run the same command again to resume"
