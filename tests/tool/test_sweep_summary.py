"""`moteip sweep`: the sweep directory, the statistics recomputed by hand,
the CSV files, determinism and reuse of the runs on disk."""
from __future__ import annotations

import csv
import hashlib
import json
import math
import pathlib

import pytest

import moteip
from moteip.metrics import from_result, missing_is_zero

T_975_DF2 = 4.302652729911275  # t(0.975, 2): three seeds per point


def _sweep(cli, *extra, out="sw"):
    return cli("sweep", "udp3.toml", "--vary", "medium.ber=0,1e-3", "--jobs", "2", "--no-progress",
               "--out", out, *extra)


def _mtimes(d: pathlib.Path) -> dict:
    return {p.name: p.stat().st_mtime_ns for p in sorted(d.iterdir())}


def _load(p: pathlib.Path):
    return json.loads(p.read_text())


def test_sweep_directory_and_statistics(cli, udp3, tmp_path, sim_path):
    r = _sweep(cli, "--runs", "3")
    assert r.rc == 0, r
    err = r.stderr.splitlines()
    assert err[0] == "sweep udp3.toml: 2 points x 3 seeds = 6 runs on 2 local processes -> sw"
    assert err[-1].startswith("[6/6] ")
    assert r.stdout.endswith("\nsummary: sw/summary.csv, sw/summary.json; runs: sw/runs.csv\n")
    assert r.stdout.splitlines()[0].split()[:2] == ["medium.ber", "runs"]

    out = tmp_path / "sw"
    for name in ("runs", "results", "scenarios"):
        assert (out / name).is_dir()
    for name in ("sweep.json", "summary.json", "summary.csv", "runs.csv"):
        assert (out / name).is_file()
    assert not list(out.rglob("*.tmp"))

    manifest = _load(out / "sweep.json")
    assert manifest["scenario"] == "udp3.toml" and manifest["name"] == "udp3"
    assert manifest["description"] == "tiny UDP chain for the tool tests"
    assert manifest["vary"] == {"medium.ber": [0, 0.001]} and manifest["seeds"] == [1, 2, 3]
    assert manifest["simulator"] == {"path": str(sim_path), "sha256_16":
                                     hashlib.sha256(sim_path.read_bytes()).hexdigest()[:16]}
    ids = [p["id"] for p in manifest["points"]]
    assert [p["params"] for p in manifest["points"]] == [{"medium.ber": 0}, {"medium.ber": 0.001}]
    assert len(set(ids)) == 2

    sc = moteip.load_scenario(udp3)
    assert sorted(p.name for p in (out / "scenarios").iterdir()) == sorted(f"{i}.json" for i in ids)
    assert sorted(p.name for p in (out / "runs").iterdir()) == \
        sorted(p.name for p in (out / "results").iterdir()) == \
        sorted(f"{i}-s{s}.json" for i in ids for s in (1, 2, 3))
    for i, p in zip(ids, manifest["points"]):
        assert _load(out / "scenarios" / f"{i}.json") == sc.with_params(p["params"])
    # a raw result is the simulator's result for that point and seed; a run record its metrics
    raw = _load(out / "results" / f"{ids[1]}-s2.json")
    assert raw == moteip.run(udp3, seed=2, params={"medium.ber": 0.001})
    rec = _load(out / "runs" / f"{ids[1]}-s2.json")
    assert set(rec) == {"point", "params", "seed", "metrics", "wall_s"}
    assert (rec["point"], rec["params"], rec["seed"]) == (ids[1], {"medium.ber": 0.001}, 2)
    assert rec["metrics"] == from_result(raw) and rec["wall_s"] >= 0

    summary = _load(out / "summary.json")
    assert summary["vary"] == manifest["vary"] and summary["seeds"] == [1, 2, 3]
    assert len(summary["points"]) == 2
    assert all(p["runs"] == 3 for p in summary["points"])
    assert [p["id"] for p in summary["points"]] == ids

    # every statistic of every metric, recomputed from the run records
    nchecked = 0
    for p in summary["points"]:
        recs = [_load(out / "runs" / f"{p['id']}-s{s}.json") for s in (1, 2, 3)]
        names = {k for rr in _all_records(out) for k in rr["metrics"]}
        for name in names:
            vals = [rr["metrics"].get(name, 0 if missing_is_zero(name) else None) for rr in recs]
            vals = [v for v in vals if v is not None]
            if not vals:
                assert name not in p["metrics"]
                continue
            s = p["metrics"][name]
            assert s["n"] == len(vals) == 3
            mean = sum(vals) / 3
            std = math.sqrt(sum((v - mean) ** 2 for v in vals) / 2)
            assert s["mean"] == pytest.approx(mean, rel=1e-12, abs=1e-12)
            assert s["std"] == pytest.approx(std, rel=1e-9, abs=1e-12)
            assert s["ci95"] == pytest.approx(T_975_DF2 * std / math.sqrt(3), rel=1e-9, abs=1e-12)
            assert (s["min"], s["max"]) == (min(vals), max(vals))
            nchecked += 1
    assert nchecked > 50
    lat = summary["points"][1]["metrics"]["flows[0].latency_mean_ms"]
    assert lat["std"] > 0 and lat["ci95"] > 0  # a metric that really varies over the seeds

    # summary.csv: one row per point x metric, the same numbers
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert len(rows) == sum(len(p["metrics"]) for p in summary["points"])
    assert list(rows[0]) == ["medium.ber", "metric", "n", "mean", "std", "ci95", "ci95_low",
                             "ci95_high", "min", "max"]
    by = {(json.loads(row["medium.ber"]), row["metric"]): row for row in rows}
    for p in summary["points"]:
        for name, s in p["metrics"].items():
            row = by[(p["params"]["medium.ber"], name)]
            assert int(row["n"]) == s["n"]
            for col in ("mean", "std", "ci95", "min", "max"):
                assert float(row[col]) == s[col]
            assert float(row["ci95_low"]) == pytest.approx(s["mean"] - s["ci95"])
            assert float(row["ci95_high"]) == pytest.approx(s["mean"] + s["ci95"])

    # runs.csv: one row per run, its metrics
    rows = list(csv.DictReader((out / "runs.csv").open()))
    assert len(rows) == 6
    assert list(rows[0])[:2] == ["medium.ber", "seed"]
    got = {(json.loads(row["medium.ber"]), int(row["seed"])): row for row in rows}
    assert set(got) == {(b, s) for b in (0, 0.001) for s in (1, 2, 3)}
    for rr in _all_records(out):
        row = got[(rr["params"]["medium.ber"], rr["seed"])]
        for name, v in rr["metrics"].items():
            assert float(row[name]) == v


def _all_records(out: pathlib.Path) -> list[dict]:
    return [_load(p) for p in sorted((out / "runs").iterdir())]


def test_same_sweep_twice_is_identical_and_reruns_nothing(cli, udp3, tmp_path):
    r = _sweep(cli, "--runs", "3")
    assert r.rc == 0, r
    out = tmp_path / "sw"
    first = (out / "summary.json").read_bytes()
    csv1 = (out / "summary.csv").read_bytes(), (out / "runs.csv").read_bytes()
    runs, results = _mtimes(out / "runs"), _mtimes(out / "results")
    r = _sweep(cli, "--runs", "3")
    assert r.rc == 0, r
    assert r.stderr == "sweep udp3.toml: 2 points x 3 seeds = 6 runs (6 on disk, 0 to run) -> sw\n"
    assert (out / "summary.json").read_bytes() == first
    assert ((out / "summary.csv").read_bytes(), (out / "runs.csv").read_bytes()) == csv1
    assert _mtimes(out / "runs") == runs and _mtimes(out / "results") == results
    # and a sweep of its own elsewhere gives the same bytes
    r = _sweep(cli, "--runs", "3", out="again")
    assert r.rc == 0, r
    assert (tmp_path / "again" / "summary.json").read_bytes() == first


def test_more_seeds_and_more_values_reuse_the_runs_on_disk(cli, udp3, tmp_path):
    out = tmp_path / "sw"
    r = _sweep(cli, "--runs", "2")
    assert r.rc == 0, r
    two = (out / "summary.json").read_bytes()
    before = _mtimes(out / "runs")
    assert len(before) == 4

    r = _sweep(cli, "--runs", "4")
    assert r.rc == 0, r
    assert r.stderr.splitlines()[0] == ("sweep udp3.toml: 2 points x 4 seeds = 8 runs (4 on disk, 4 to run) "
                                        "on 2 local processes -> sw")
    after = _mtimes(out / "runs")
    assert len(after) == 8 and {k: after[k] for k in before} == before
    assert all(p["runs"] == 4 for p in _load(out / "summary.json")["points"])

    r = _sweep(cli, "--runs", "4", out="fresh")
    assert r.rc == 0, r
    assert (tmp_path / "fresh" / "summary.json").read_bytes() == (out / "summary.json").read_bytes()

    r = _sweep(cli, "--runs", "2")  # fewer seeds: a summary of those only, nothing run
    assert r.rc == 0, r
    assert r.stderr == "sweep udp3.toml: 2 points x 2 seeds = 4 runs (4 on disk, 0 to run) -> sw\n"
    assert (out / "summary.json").read_bytes() == two

    r = cli("sweep", "udp3.toml", "--vary", "medium.ber=0,1e-3,1e-4", "--jobs", "2", "--no-progress",
            "--out", "sw", "--runs", "2")
    assert r.rc == 0, r
    assert r.stderr.splitlines()[0] == ("sweep udp3.toml: 3 points x 2 seeds = 6 runs (4 on disk, 2 to run) "
                                        "on 2 local processes -> sw")
    assert len(list((out / "runs").iterdir())) == 10


def test_seed_option_sets_the_first_seed(cli, udp3, tmp_path):
    r = cli("sweep", "udp3.toml", "--runs", "2", "--seed", "5", "--jobs", "1", "--out", "sw")
    assert r.rc == 0, r
    out = tmp_path / "sw"
    assert _load(out / "sweep.json")["seeds"] == [5, 6]
    assert sorted(p.name.split("-")[1] for p in (out / "runs").iterdir()) == ["s5.json", "s6.json"]
    first = r.stderr.splitlines()[0]
    assert first.startswith("sweep udp3.toml: 1 point") and " x 2 seeds = 2 runs on 1 local " in first
    assert first.endswith(" -> sw")


def test_runs_and_vary_from_the_scenarios_sweep_table(cli, write_scenario, scenario_text, tmp_path):
    write_scenario("s.toml", scenario_text["udp3"] + '\n[sweep]\nruns = 2\nvary = { "flows.0.count" = [3, 4] }\n'
                   'table = ["flows.0.sent"]\n')
    r = cli("sweep", "s.toml", "--out", "sw", "--jobs", "2", "--vary", "medium.ber=0,1e-4")
    assert r.rc == 0, r
    s = _load(tmp_path / "sw" / "summary.json")
    assert s["vary"] == {"flows[0].count": [3, 4], "medium.ber": [0, 0.0001]}
    assert s["seeds"] == [1, 2] and s["table"] == ["flows[0].sent"]
    assert [(p["params"]["flows[0].count"], p["params"]["medium.ber"], p["runs"]) for p in s["points"]] == \
        [(3, 0, 2), (3, 0.0001, 2), (4, 0, 2), (4, 0.0001, 2)]
    assert [p["metrics"]["flows[0].sent"]["mean"] for p in s["points"]] == [3, 3, 4, 4]
    # the printed table has the scenario's columns
    assert r.stdout.splitlines()[0].split() == ["flows[0].count", "medium.ber", "runs", "flows[0].sent"]


def test_a_value_listed_twice_is_one_point(cli, udp3, tmp_path):
    r = cli("sweep", "udp3.toml", "--vary", "medium.ber=0,0", "--runs", "2", "--jobs", "2", "--out", "sw")
    assert r.rc == 0, r
    s = _load(tmp_path / "sw" / "summary.json")
    assert [(p["params"], p["runs"]) for p in s["points"]] == [({"medium.ber": 0}, 2)]
    assert s["points"][0]["metrics"]["flows[0].sent"]["n"] == 2
    assert len(list((tmp_path / "sw" / "runs").iterdir())) == 2


def test_progress_lines_cut_long_values():
    """A progress line names the point, but a long value (an arm's whole flows
    list) is cut to 40 characters; error messages keep it whole."""
    from moteip.sweep import _params_text
    flows = [{"type": "tcp", "src": "last", "dst": 0, "port": 5000 + i} for i in range(2)]
    whole = _params_text({"relay.mode": "off", "flows": flows})
    cut = _params_text({"relay.mode": "off", "flows": flows}, 40)
    assert whole == 'relay.mode="off" flows=' + json.dumps(flows)
    assert cut == 'relay.mode="off" flows=' + json.dumps(flows)[:37] + "..."
    assert _params_text({}, 40) == "(base)"
