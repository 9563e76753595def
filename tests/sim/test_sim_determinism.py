"""moteip-sim determinism: a scenario and a seed give byte-identical output.

docs/SIMULATOR.md: all randomness derives from the run seed, event ties break
by insertion order, and the result holds nothing measured on the wall clock.
"""
from __future__ import annotations

import json
import subprocess
import sys

from simrun import run_sim


def chain_scenario(seed: int = 3) -> dict:
    """5-node chain, TCP under BER 1e-5 (corrupted frames, retries) plus UDP the other way."""
    return {
        "name": "det-chain", "seed": seed, "duration_s": 120,
        "topology": {"type": "chain", "nodes": 5, "spacing_m": 40},
        "medium": {"ber": 1e-5},
        "flows": [
            {"type": "tcp", "src": 0, "dst": 4, "bytes": 8000},
            {"type": "udp", "src": 4, "dst": 0, "interval_s": 0.5, "count": 20,
             "payload_bytes": 40},
        ],
    }


def random_scenario() -> dict:
    """30 nodes placed at random (seed 1: every reporter reaches node 0 in 3-4 hops)."""
    return {
        "name": "det-random", "seed": 1, "duration_s": 60,
        "topology": {"type": "random", "nodes": 30, "width_m": 150, "height_m": 150},
        "flows": [{"type": "udp", "src": i, "dst": 0, "interval_s": 2, "count": 10,
                   "start_s": 0.1 * i} for i in (1, 7, 15, 22, 29)],
    }


def run_twice(sc: dict, tmp_path, *args: str):
    a = run_sim(sc, tmp_path, *args)
    b = run_sim(sc, tmp_path, *args)
    assert a.rc == 0, a.stderr
    assert b.rc == 0, b.stderr
    return a, b


def test_chain_tcp_with_bit_errors_and_udp_is_byte_identical(tmp_path):
    a, b = run_twice(chain_scenario(), tmp_path)
    assert a.stdout == b.stdout
    r = a.result
    # the scenario exercises randomness: bit errors hit frames and TCP completes anyway
    assert r["totals"]["frames_corrupted"] > 0
    assert r["flows"][0]["complete"] is True
    assert r["flows"][1]["received"] > 0


def test_random_topology_with_udp_reports_is_byte_identical(tmp_path):
    a, b = run_twice(random_scenario(), tmp_path)
    assert a.stdout == b.stdout
    r = a.result
    assert r["nodes"] == 30
    assert [f["sent"] for f in r["flows"]] == [10] * 5
    assert max(f["hops"] for f in r["flows"]) >= 2


def test_seed_option_overrides_scenario_seed(tmp_path):
    overridden = run_sim(chain_scenario(seed=3), tmp_path, "--seed", "4")
    written = run_sim(chain_scenario(seed=4), tmp_path)
    original = run_sim(chain_scenario(seed=3), tmp_path)
    for r in (overridden, written, original):
        assert r.rc == 0, r.stderr
    assert overridden.result["seed"] == 4
    assert overridden.stdout == written.stdout
    assert overridden.stdout != original.stdout


def test_different_seeds_give_different_runs(tmp_path):
    runs = {}
    for seed in (1, 2, 3):
        r = run_sim(chain_scenario(seed=seed), tmp_path)
        assert r.rc == 0, r.stderr
        runs[seed] = r.result
    assert len({json.dumps(r, sort_keys=True) for r in runs.values()}) == 3
    # not just the echoed seed: the runs themselves differ
    assert len({(r["events"], r["totals"]["frames_tx"]) for r in runs.values()}) > 1
    for r in runs.values():
        r.pop("seed")
    assert len({json.dumps(r, sort_keys=True) for r in runs.values()}) == 3


def _keys(v, prefix=""):
    if isinstance(v, dict):
        for k, x in v.items():
            yield prefix + k
            yield from _keys(x, prefix + k + ".")
    elif isinstance(v, list):
        for x in v:
            yield from _keys(x, prefix)


def test_result_has_no_wall_clock_field(tmp_path):
    sc = chain_scenario()
    quiet = run_sim(sc, tmp_path)
    assert quiet.rc == 0, quiet.stderr
    # the same run with --perf while two CPU hogs compete for the cores
    hogs = [subprocess.Popen([sys.executable, "-c", "print('up', flush=True)\nwhile True: pass"],
                             stdout=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        for h in hogs:
            assert h.stdout.readline().strip() == "up"      # burning before the run starts
        loaded = run_sim(sc, tmp_path, "--perf")
    finally:
        for h in hogs:
            h.kill()
            h.wait()
            h.stdout.close()
    assert loaded.rc == 0, loaded.stderr
    assert loaded.stdout == quiet.stdout
    # --perf reports wall-clock figures on stderr only
    assert "events/s" in loaded.stderr and "wall s" in loaded.stderr
    assert "events/s" not in loaded.stdout
    # the simulated motes' CPU account (sim/cpu_energy.c: "cpu" objects and
    # cpu_* figures) is the model's, not the host's: equal above under load
    mote_cpu = ("cpu.", "node_stats.cpu.", "node_stats.cpu_duty_cycle", "node_stats.cpu_energy_mj",
                "totals.cpu_active_s", "totals.cpu_duty_cycle_mean", "totals.cpu_energy_mj")
    suspicious = [k for k in _keys(quiet.result)
                  if any(w in k.lower() for w in ("wall", "elapsed", "per_s", "cpu", "perf"))
                  and not (k.startswith(mote_cpu) or k in ("cpu", "node_stats.cpu"))]
    assert suspicious == []


def test_output_files_do_not_change_the_result(tmp_path):
    sc = chain_scenario()
    plain = run_sim(sc, tmp_path)
    with_files = run_sim(sc, tmp_path, "--pcap", str(tmp_path / "x.pcap"),
                         "--trace", str(tmp_path / "x.jsonl"))
    assert plain.rc == 0 and with_files.rc == 0, with_files.stderr
    assert with_files.stdout == plain.stdout


def test_trace_is_identical_and_well_formed(tmp_path):
    sc = chain_scenario()
    t1, t2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a = run_sim(sc, tmp_path, "--trace", str(t1))
    b = run_sim(sc, tmp_path, "--trace", str(t2))
    assert a.rc == 0 and b.rc == 0, a.stderr + b.stderr
    assert t1.read_bytes() == t2.read_bytes()
    lines = t1.read_text().splitlines()
    assert lines, "empty trace"
    events = [json.loads(line) for line in lines]       # every line is one JSON object
    assert all(isinstance(e, dict) for e in events)
    times = [e["t_us"] for e in events]
    assert all(isinstance(t, int) for t in times)
    bad = [i for i in range(1, len(times)) if times[i] < times[i - 1]]
    assert bad == [], f"t_us goes backwards at line {bad[0] + 1}"
    kinds = {"tx", "rx", "collision", "corrupt", "link_fail", "tcp_error", "flow_done",
             "tcp_cc", "node", "link", "hop"}      # the last three: the network, at time 0
    assert {e["ev"] for e in events} <= kinds
    r = a.result
    assert times[-1] <= round(r["sim_time_s"] * 1e6)
    # the trace and the result tell the same story
    count = {k: sum(1 for e in events if e["ev"] == k) for k in kinds}
    assert count["tx"] == r["totals"]["frames_tx"]
    assert count["corrupt"] == r["totals"]["frames_corrupted"]
    assert count["collision"] == r["totals"]["frames_collided"]
    assert count["flow_done"] == len(r["flows"])
    # tcp_cc: the sender's congestion control, one event per change
    cc = [e for e in events if e["ev"] == "tcp_cc"]
    assert cc, "no tcp_cc events from a TCP flow's sender"
    tcp_src = {f["src"] for f in r["flows"] if f["type"] == "tcp"}
    for prev, e in zip([None] + cc, cc):
        assert e["node"] in tcp_src and e["flow"] == 0
        assert e["cwnd"] > 0 and e["ssthresh"] > 0 and e["rto_ms"] >= 300 and e["flight"] >= 0
        if prev is not None:
            assert any(prev[k] != e[k] for k in ("cwnd", "ssthresh", "rto_ms", "wnd")), e
    for e in events:
        if e["ev"] == "tx":
            assert e["end_us"] > e["t_us"]
