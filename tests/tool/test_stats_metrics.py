"""moteip.stats (Student-t intervals without SciPy), moteip.metrics (flat
metric names from a result) and moteip.sweep.aggregate on hand-made records."""
from __future__ import annotations

import csv
import math

import pytest

import moteip
from moteip.metrics import from_result, missing_is_zero
from moteip.stats import summarize, t_cdf, t_quantile
from moteip.sweep import aggregate, write_runs_csv, write_summary_csv

# t(0.975, df) from tables (scipy.stats.t.ppf)
T975 = {1: 12.7062047, 2: 4.3026527, 3: 3.1824463, 4: 2.7764451, 9: 2.2621572, 29: 2.0452296,
        99: 1.9842169}


@pytest.mark.parametrize("df,t", sorted(T975.items()))
def test_t_quantile_975(df, t):
    assert t_quantile(0.975, df) == pytest.approx(t, abs=1e-6)
    assert t_cdf(t_quantile(0.975, df), df) == pytest.approx(0.975, abs=1e-12)


def test_t_quantile_other_levels():
    assert t_quantile(0.95, 10) == pytest.approx(1.8124611, abs=1e-6)
    assert t_quantile(0.995, 5) == pytest.approx(4.0321430, abs=1e-6)
    assert t_quantile(0.975, 1e6) == pytest.approx(1.9599640, abs=1e-5)  # -> the normal quantile
    assert t_cdf(0.0, 7) == pytest.approx(0.5)
    assert t_cdf(-2.0, 3) == pytest.approx(1 - t_cdf(2.0, 3))


@pytest.mark.parametrize("p,df", [(0.5, 3), (1.0, 3), (0.2, 3), (0.975, 0)])
def test_t_quantile_refuses_bad_arguments(p, df):
    with pytest.raises(ValueError):
        t_quantile(p, df)


def test_summarize_four_values():
    s = summarize([1, 2, 3, 4])
    std = math.sqrt(5 / 3)
    assert s["n"] == 4 and s["mean"] == 2.5 and s["min"] == 1 and s["max"] == 4
    assert s["std"] == pytest.approx(std, rel=1e-12)
    assert s["ci95"] == pytest.approx(3.182446305284263 * std / 2, rel=1e-9)
    assert set(s) == {"n", "mean", "std", "ci95", "min", "max"}


def test_summarize_one_value():
    assert summarize([7.5]) == {"n": 1, "mean": 7.5, "std": None, "ci95": None, "min": 7.5, "max": 7.5}


def test_summarize_empty():
    assert summarize([]) == {"n": 0, "mean": None, "std": None, "ci95": None, "min": None, "max": None}


def test_summarize_constant_values():
    s = summarize([3, 3, 3])
    assert (s["mean"], s["std"], s["ci95"]) == (3, 0, 0)


# --- metrics -------------------------------------------------------------------------------------

def test_from_result_flattens_a_real_tcp_result(tcp2):
    r = moteip.run(tcp2, seed=2)
    m = from_result(r)
    assert moteip.result_metrics is from_result
    f = r["flows"][0]
    assert m["flows[0].goodput_bps"] == f["goodput_bps"]
    assert m["flows[0].bytes_delivered"] == 4000
    # booleans as 0/1 integers
    assert m["flows[0].complete"] == 1 and type(m["flows[0].complete"]) is int
    assert m["flows[0].integrity_ok"] == 1 and type(m["flows[0].integrity_ok"]) is int
    # nested numbers, no strings, nulls or ids
    assert m["flows[0].srtt_ms.mean"] == f["srtt_ms"]["mean"]
    assert m["flows[0].srtt_ms.samples"] == f["srtt_ms"]["samples"]
    assert "flows[0].error" not in m and "flows[0].type" not in m
    assert "flows[0].first_bad_offset" not in m and "flows[0].id" not in m
    assert m["sim_time_s"] == r["sim_time_s"] and m["events"] == r["events"]
    for k, v in r["totals"].items():
        assert m[f"totals.{k}"] == v
    nodes = r["node_stats"]
    assert m["nodes.sum.frames_tx"] == sum(n["frames_tx"] for n in nodes) == r["totals"]["frames_tx"]
    assert m["nodes.sum.energy_j"] == pytest.approx(sum(n["energy_j"] for n in nodes))
    assert m["nodes.max.energy_j"] == max(n["energy_j"] for n in nodes)
    for group in ("mac", "stack", "tcp"):
        names = {c for n in nodes for c in n.get(group, {})}
        assert names, group
        for c in names:
            assert m[f"nodes.sum.{group}.{c}"] == sum(n.get(group, {}).get(c, 0) for n in nodes)
    assert not any(k.startswith("nodes.sum.id") for k in m)
    # a duty cycle is a share per node: averaged, never summed
    assert "nodes.sum.duty_cycle" not in m
    assert m["nodes.mean.duty_cycle"] == pytest.approx(sum(n["duty_cycle"] for n in nodes) / len(nodes))
    assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in m.values())


def test_from_result_of_several_flows():
    r = {"sim_time_s": 1.5, "events": 10, "flows": [
        {"id": 0, "type": "udp", "sent": 4, "received": 3, "delivery_ratio": 0.75},
        {"id": 1, "type": "ping", "complete": False, "rtt_ms": {"min": 1, "mean": 2.5, "max": 4}}],
        "node_stats": [{"id": 0, "frames_tx": 2, "energy_j": 0.5, "mac": {"tx_ok": 2}},
                       {"id": 1, "frames_tx": 3, "energy_j": 0.25, "tcp": {"rto_timeouts": 1}}],
        "totals": {"frames_tx": 5}}
    assert from_result(r) == {
        "sim_time_s": 1.5, "events": 10,
        "flows[0].sent": 4, "flows[0].received": 3, "flows[0].delivery_ratio": 0.75,
        "flows[1].complete": 0, "flows[1].rtt_ms.min": 1, "flows[1].rtt_ms.mean": 2.5,
        "flows[1].rtt_ms.max": 4, "totals.frames_tx": 5,
        "nodes.sum.frames_tx": 5, "nodes.sum.energy_j": 0.75, "nodes.sum.mac.tx_ok": 2,
        "nodes.sum.tcp.rto_timeouts": 1, "nodes.max.energy_j": 0.5}


def test_missing_is_zero_families():
    assert missing_is_zero("totals.link_retries") and missing_is_zero("nodes.sum.mac.tx_retries")
    assert not missing_is_zero("flows[0].goodput_bps") and not missing_is_zero("nodes.max.energy_j")


# --- aggregate on hand-made records ---------------------------------------------------------------

MANIFEST = {"scenario": "hand.toml", "name": "hand", "description": "by hand",
            "vary": {"medium.ber": [0, 1e-4]}, "seeds": [1, 2], "table": [],
            "points": [{"id": "p0", "params": {"medium.ber": 0}},
                       {"id": "p1", "params": {"medium.ber": 1e-4}}]}
RECORDS = [
    {"point": "p0", "params": {"medium.ber": 0}, "seed": 1, "wall_s": 0.1,
     "metrics": {"flows[0].goodput_bps": 100.0, "totals.link_retries": 4,
                 "nodes.sum.mac.tx_retries": 2, "flows[0].srtt_ms.mean": 9.0}},
    {"point": "p0", "params": {"medium.ber": 0}, "seed": 2, "wall_s": 0.1,
     "metrics": {"flows[0].goodput_bps": 300.0}},  # the counters were 0: omitted
    {"point": "p1", "params": {"medium.ber": 1e-4}, "seed": 1, "wall_s": 0.1,
     "metrics": {"flows[0].goodput_bps": 50.0, "totals.link_retries": 10}},
]


def test_aggregate_counts_missing_counters_as_zero():
    s = aggregate(MANIFEST, RECORDS)
    assert (s["scenario"], s["name"], s["description"]) == ("hand.toml", "hand", "by hand")
    assert s["vary"] == MANIFEST["vary"] and s["seeds"] == [1, 2]
    p0, p1 = s["points"]
    assert (p0["id"], p0["params"], p0["runs"]) == ("p0", {"medium.ber": 0}, 2)
    assert (p1["id"], p1["runs"]) == ("p1", 1)
    lr = p0["metrics"]["totals.link_retries"]
    assert (lr["n"], lr["mean"], lr["min"], lr["max"]) == (2, 2.0, 0, 4)
    assert lr["std"] == pytest.approx(math.sqrt(8))
    assert lr["ci95"] == pytest.approx(12.706204736174698 * math.sqrt(8) / math.sqrt(2))
    tr = p0["metrics"]["nodes.sum.mac.tx_retries"]
    assert (tr["n"], tr["mean"], tr["min"], tr["max"]) == (2, 1.0, 0, 2)
    # a counter no run of a point has is 0 there, with n = its runs
    assert p1["metrics"]["nodes.sum.mac.tx_retries"] == summarize([0])
    # a flow metric missing from a run is not a zero: it is left out
    assert p0["metrics"]["flows[0].srtt_ms.mean"] == summarize([9.0])
    assert "flows[0].srtt_ms.mean" not in p1["metrics"]
    assert p0["metrics"]["flows[0].goodput_bps"] == summarize([100.0, 300.0])


def test_aggregate_of_a_point_without_runs():
    s = aggregate(MANIFEST, RECORDS[:2])
    assert s["points"][1]["runs"] == 0 and s["points"][1]["metrics"] == {}


def test_runs_and_summary_csv_of_hand_made_records(tmp_path):
    write_runs_csv(tmp_path / "runs.csv", MANIFEST["vary"], RECORDS)
    rows = list(csv.DictReader((tmp_path / "runs.csv").open()))
    assert len(rows) == 3
    assert list(rows[0])[:2] == ["medium.ber", "seed"]
    assert (rows[1]["seed"], rows[1]["totals.link_retries"], rows[1]["nodes.sum.mac.tx_retries"],
            rows[1]["flows[0].srtt_ms.mean"]) == ("2", "0", "0", "")
    write_summary_csv(tmp_path / "summary.csv", aggregate(MANIFEST, RECORDS))
    rows = list(csv.DictReader((tmp_path / "summary.csv").open()))
    assert list(rows[0]) == ["medium.ber", "metric", "n", "mean", "std", "ci95", "ci95_low",
                             "ci95_high", "min", "max"]
    one = [r for r in rows if r["medium.ber"] == "0.0001" and r["metric"] == "flows[0].goodput_bps"]
    assert one == [{"medium.ber": "0.0001", "metric": "flows[0].goodput_bps", "n": "1", "mean": "50.0",
                    "std": "", "ci95": "", "ci95_low": "", "ci95_high": "", "min": "50.0", "max": "50.0"}]
    assert not list(tmp_path.glob("*.tmp"))


def test_from_result_of_a_run_with_scenario_events():
    """routing.flows by flow id, scenario_events by place, their flows by id."""
    r = {"sim_time_s": 2.0, "events": 7, "flows": [], "node_stats": [], "totals": {},
         "routing": {"type": "shortest", "routes_peak": 2,
                     "flows": [{"flow": 3, "hops_mean": 4, "path_stretch": None}]},
         "scenario_events": [{"index": 1, "type": "node_down", "at_s": 1.5, "node": 4,
                              "applied": True,
                              "flows": [{"flow": 3, "ended": False, "stall_s": 0.25,
                                         "resumed_after_s": None}]}]}
    assert from_result(r) == {
        "sim_time_s": 2.0, "events": 7, "routing.routes_peak": 2,
        "routing.flows[3].hops_mean": 4,
        "scenario_events[0].at_s": 1.5, "scenario_events[0].node": 4,
        "scenario_events[0].applied": 1,
        "scenario_events[0].flows[3].ended": 0, "scenario_events[0].flows[3].stall_s": 0.25}
