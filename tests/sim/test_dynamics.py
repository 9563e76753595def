"""Dynamics (scenario "events", sim/dynamics.c) and the radio-state trace.

docs/SIMULATOR.md "Dynamics": node down freezes a node and turns its radio
off, node up reboots it with state loss, a link event overrides a link's
reception ratio, a move places a node elsewhere; the shortest arm computes
its routes again routing.repair_delay_s after each event. --trace-radio
writes every radio state change, and their intervals are the energy
account's times.
"""
from __future__ import annotations

import json

import pytest

from simrun import run_ok, run_sim


def grid_flow(events: list, **routing) -> dict:
    """3 x 4 grid, 40 m apart (range 50 m: no diagonals), TCP 0 -> 11 over the top row."""
    sc = {
        "name": "dyn-grid", "seed": 1, "duration_s": 120,
        "topology": {"type": "grid", "rows": 3, "cols": 4, "spacing_m": 40},
        "flows": [{"type": "tcp", "src": 0, "dst": 11, "bytes": 30000}],
        "events": events,
    }
    if routing:
        sc["routing"] = routing
    return sc


def trace_lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_events_are_deterministic(tmp_path):
    sc = grid_flow([
        {"type": "node_down", "at_s": 3, "node": 1},
        {"type": "link", "at_ms": 4000, "node": 4, "to": 5, "prr": 0.7},
        {"type": "node_up", "at_s": 5, "node": 1},
        {"type": "move", "at_s": 6, "node": 8, "x": 20, "y": 100},
    ])
    sc["medium"] = {"ber": 1e-5}
    a = run_sim(sc, tmp_path, "--trace", str(tmp_path / "a.jsonl"))
    b = run_sim(sc, tmp_path, "--trace", str(tmp_path / "b.jsonl"))
    assert a.rc == 0, a.stderr
    assert a.stdout == b.stdout
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    r = a.result
    assert [e["type"] for e in r["scenario_events"]] == ["node_down", "link", "node_up", "move"]
    assert all(e["applied"] for e in r["scenario_events"])
    evs = [e["ev"] for e in trace_lines(tmp_path / "a.jsonl")]
    for name in ("node_down", "link_change", "node_up", "move", "routes"):
        assert name in evs


def test_node_down_breaks_the_flow_and_the_shortest_arm_reroutes_it(tmp_path):
    """Node 1 (on the path 0-1-2-3-7-11) dies at 3 s. Without a route repair
    nothing arrives after it; the ideal arm's repair (here after 2 s) gives
    a path round it, and every byte arrives."""
    down = [{"type": "node_down", "at_s": 3, "node": 1}]
    never = run_ok(grid_flow(down, repair_delay_s=1e6), tmp_path)
    f = never["flows"][0]
    assert f["complete"] is False
    w = never["scenario_events"][0]["flows"][0]
    assert w["bytes_delivered"] == 0 and w["resumed_after_s"] is None
    assert w["stall_s"] > 100          # from the last delivery before 3 s to the end

    fixed = run_ok(grid_flow(down, repair_delay_s=2), tmp_path)
    f = fixed["flows"][0]
    assert f["complete"] is True and f["integrity_ok"] is True
    assert f["bytes_delivered"] == 30000
    e = fixed["scenario_events"][0]
    assert e["routes_at_s"] == pytest.approx(5.0)
    w = e["flows"][0]
    # nothing moves until the routes change, then the flow resumes after an RTO
    assert w["resumed_after_s"] > 2.0
    assert w["stall_s"] >= w["resumed_after_s"]
    assert w["rto_timeouts"] >= 1
    # the new path: 0-4-5-6-7-11 is as short as the old one
    assert fixed["flows"][0]["hops"] == 5
    assert fixed["routing"]["flows"][0]["path_stretch"] == pytest.approx(1.0)


def test_a_reboot_loses_tcp_state(tmp_path):
    """The receiver reboots under a running flow: the flow ends ("reboot"),
    the rebooted node answers the sender's next segment with a reset, and
    a flow that starts after the reboot finds the listener again."""
    sc = {
        "name": "dyn-reboot", "seed": 2, "duration_s": 40,
        "topology": {"type": "chain", "nodes": 3, "spacing_m": 40},
        "flows": [{"type": "tcp", "src": 0, "dst": 2, "duration_s": 30},
                  {"type": "tcp", "src": 0, "dst": 2, "bytes": 5000, "start_s": 12}],
        "events": [{"type": "node_down", "at_s": 5, "node": 2},
                   {"type": "node_up", "at_s": 6, "node": 2}],
    }
    r = run_ok(sc, tmp_path)
    first, second = r["flows"]
    assert first["complete"] is False and first["error"] == "reboot"
    assert second["complete"] is True and second["bytes_delivered"] == 5000
    n0, n2 = r["node_stats"][0], r["node_stats"][2]
    assert n2["reboots"] == 1 and n2["down_at_end"] is False
    assert n2["tcp"]["rst_tx"] >= 1 and n2["tcp"]["drop_no_conn"] >= 1
    assert n0["tcp"]["conns_reset"] == 1


def test_a_move_changes_neighbours_and_routes(tmp_path):
    """Node 3 at the end of a 4-node chain moves next to node 0: after the
    move the flow takes one hop, the trace has the new path and the
    shortest path is one hop too (stretch 1 before and after)."""
    sc = {
        "name": "dyn-move", "seed": 1, "duration_s": 30,
        "topology": {"type": "chain", "nodes": 4, "spacing_m": 40},
        "flows": [{"type": "udp", "src": 0, "dst": 3, "interval_s": 0.5, "count": 40}],
        "events": [{"type": "move", "at_s": 10, "node": 3, "x": 0, "y": 30}],
    }
    r = run_ok(sc, tmp_path, "--trace", str(tmp_path / "t.jsonl"))
    assert r["flows"][0]["hops"] == 1
    hops = [e for e in trace_lines(tmp_path / "t.jsonl") if e["ev"] == "hop" and not e["back"]]
    assert [(e["node"], e["to"]) for e in hops if e["t_us"] == 0] == [(0, 1), (1, 2), (2, 3)]
    assert [(e["node"], e["to"]) for e in hops if e["t_us"] > 0] == [(0, 3)]
    st = r["routing"]["flows"][0]
    assert st["hops_max"] == 3 and 1 < st["hops_mean"] < 3
    assert st["path_stretch"] == pytest.approx(1.0)
    # every report of the window after the move arrives
    w = r["scenario_events"][0]["flows"][0]
    assert w["lost"] == 0 and w["received"] > 0


def test_a_dead_link_is_routed_round(tmp_path):
    """A link event that sets 1 <-> 2 to reception ratio 0 cuts the top row;
    the repaired routes go round it and the flow completes."""
    sc = grid_flow([{"type": "link", "at_s": 3, "node": 1, "to": 2, "prr": 0}])
    r = run_ok(sc, tmp_path, "--trace", str(tmp_path / "t.jsonl"))
    assert r["flows"][0]["complete"] is True
    after = [(e["node"], e["to"]) for e in trace_lines(tmp_path / "t.jsonl")
             if e["ev"] == "hop" and not e["back"] and e["t_us"] > 0]
    assert (1, 2) not in after and after[0][0] == 0


def radio_intervals(path, end_us: float) -> dict[int, dict[str, float]]:
    """Per node, seconds in each radio state from the trace's radio events."""
    last: dict[int, tuple[int, str]] = {}
    acc: dict[int, dict[str, float]] = {}
    for e in trace_lines(path):
        if e["ev"] != "radio":
            continue
        n = e["node"]
        if n in last:
            t0, s = last[n]
            acc.setdefault(n, {}).setdefault(s, 0.0)
            acc[n][s] += (e["t_us"] - t0) / 1e6
        last[n] = (e["t_us"], e["state"])
    for n, (t0, s) in last.items():
        acc.setdefault(n, {}).setdefault(s, 0.0)
        acc[n][s] += (end_us - t0) / 1e6
    return acc


def test_radio_states_in_the_trace_add_up_to_the_energy_account(tmp_path):
    """ContikiMAC (many off/listen changes) and a node that goes down: the
    trace's intervals per state equal tx_s, rx_s, listen_s and sleep_s."""
    sc = {
        "name": "dyn-radio", "seed": 4, "duration_s": 6,
        "topology": {"type": "chain", "nodes": 4, "spacing_m": 40},
        "mac": {"type": "csma_ca", "rdc": {"type": "contikimac"}},
        "flows": [{"type": "udp", "src": 0, "dst": 3, "interval_s": 0.5, "count": 8}],
        "events": [{"type": "node_down", "at_s": 2, "node": 2},
                   {"type": "node_up", "at_s": 3, "node": 2}],
        "stop_when_done": False,
    }
    trace = tmp_path / "t.jsonl"
    r = run_ok(sc, tmp_path, "--trace", str(trace), "--trace-radio")
    got = radio_intervals(trace, r["sim_time_s"] * 1e6)
    states = {e["state"] for e in trace_lines(trace) if e["ev"] == "radio"}
    assert states == {"off", "listen", "rx", "tx"}
    for ns in r["node_stats"]:
        g = got[ns["id"]]
        for state, key in (("tx", "tx_s"), ("rx", "rx_s"), ("listen", "listen_s"),
                           ("off", "sleep_s")):
            assert g.get(state, 0.0) == pytest.approx(ns[key], abs=1e-6), (ns["id"], state)
    # without the flag the trace has no radio events
    plain = tmp_path / "p.jsonl"
    run_ok(sc, tmp_path, "--trace", str(plain))
    assert not any(e["ev"] == "radio" for e in trace_lines(plain))


def test_trace_radio_needs_a_trace(tmp_path):
    r = run_sim(grid_flow([]), tmp_path, "--trace-radio")
    assert r.rc == 2 and "--trace-radio needs --trace" in r.stderr


@pytest.mark.parametrize("events, topo, msg", [
    ([{"type": "node_up", "at_s": 1, "node": 1}], None,
     "events[0].node: expected a node that is down then"),
    ([{"type": "node_down", "at_s": 1, "node": 1}, {"type": "node_down", "at_s": 2, "node": 1}],
     None, "events[1].node: expected a node that is up then"),
    ([{"type": "node_down", "at_s": 1, "at_ms": 1000, "node": 1}], None,
     "events[0].at_ms: expected at_s or at_ms, not both"),
    ([{"type": "node_down", "node": 1}], None, "events[0].at_s: missing"),
    ([{"type": "node_down", "at_s": 500, "node": 1}], None,
     "events[0].at_s: expected a time within duration_s"),
    ([{"type": "node_down", "at_s": 1, "node": 1, "prr": 0.5}], None,
     "events[0].prr: expected a key of link events only"),
    ([{"type": "link", "at_s": 1, "node": 1, "to": 2}], None, "events[0].prr: missing"),
    ([{"type": "link", "at_s": 1, "node": 1, "to": 1, "prr": 0.5}], None,
     "events[0].to: expected a node other than node"),
    ([{"type": "move", "at_s": 1, "node": 1, "x": 3}], None, "events[0].y: missing"),
    ([{"type": "move", "at_s": 1, "node": 1, "x": 3, "y": 4}],
     {"type": "links", "nodes": 3, "links": [[0, 1], [1, 2]]},
     "events[0].type: expected an event of a topology with positions"),
    ([{"type": "reboot", "at_s": 1, "node": 1}], None, "events[0].type: expected one of"),
    ([{"type": "node_down", "at_s": 1, "node": 99}], None, "events[0].node: expected"),
    ([{"type": "node_down", "at_s": 1, "node": 1, "when": 3}], None,
     "events[0].when: unknown key"),
])
def test_bad_events_are_named(tmp_path, events, topo, msg):
    sc = grid_flow(events)
    if topo is not None:
        sc["topology"] = topo
        sc["flows"] = []
    r = run_sim(sc, tmp_path, "--check")
    assert r.rc == 2
    assert msg in r.stderr, r.stderr


def test_repair_delay_is_a_shortest_key(tmp_path):
    sc = grid_flow([], type="static", routes=[], repair_delay_s=1)
    r = run_sim(sc, tmp_path, "--check")
    assert r.rc == 2 and "routing.repair_delay_s: expected a key of shortest routing only" in r.stderr


def test_node_up_of_a_service_node_is_refused(tmp_path):
    sc = grid_flow([{"type": "node_down", "at_s": 1, "node": 5},
                    {"type": "node_up", "at_s": 2, "node": 5}])
    sc["services"] = [{"type": "tcp_echo", "node": 5}]
    r = run_sim(sc, tmp_path, "--check")
    assert r.rc == 2
    assert "events[1].node: expected a node without a service" in r.stderr


# --- the RPL arm (routing.type "rpl") -------------------------------------------------------

def rpl_grid(**routing) -> dict:
    """4 x 4 grid 40 m apart, RPL rooted at node 0."""
    return {
        "name": "dyn-rpl", "seed": 1, "duration_s": 120, "stop_when_done": False,
        "topology": {"type": "grid", "rows": 4, "cols": 4, "spacing_m": 40},
        "routing": {"type": "rpl", **routing},
    }


def test_rpl_convergence_and_control_frames(tmp_path):
    """Every node joins and the root reaches it (its node table chains it):
    routing.convergence_s. The control frames are RPL's, retries included,
    and the shortest arm sends none."""
    sc = rpl_grid()
    sc["duration_s"] = 60
    r = run_ok(sc, tmp_path)
    ro = r["routing"]
    assert 0 < ro["convergence_s"] < 30
    assert ro["joined_at_end"] == 16
    assert ro["root_table"] == 15 and ro["root_table_peak"] == 15
    assert ro["parent_changes"] >= 15            # each node's first parent counts
    sent = sum(n["rpl"].get(k, 0) for n in r["node_stats"]
               for k in ("dio_tx", "dis_tx", "dao_tx", "dao_ack_tx"))
    ctrl = r["totals"]["control_frames_tx"]
    assert 0 < sent <= ctrl <= r["totals"]["frames_tx"]
    n0 = r["node_stats"][0]
    assert n0["control_frames_per_h"] == pytest.approx(n0["control_frames_tx"] * 60)
    sc["routing"] = {"type": "shortest"}
    assert run_ok(sc, tmp_path)["totals"]["control_frames_tx"] == 0


def test_rpl_rejoins_after_a_parent_dies_only_with_a_parent_timeout(tmp_path):
    """Node 10 (parent of 11 and 14) dies at 60 s. Without a parent timeout
    a child with nothing to send never notices: not reconverged by the end.
    With a 10 s timeout the children find other parents."""
    ev = [{"type": "node_down", "at_s": 60, "node": 10}]
    sc = rpl_grid()
    sc["events"] = ev
    r = run_ok(sc, tmp_path)
    assert r["scenario_events"][0]["reconverged_after_s"] is None
    assert r["routing"]["joined_at_end"] < 15
    sc = rpl_grid(parent_timeout_ms=10000)
    sc["events"] = ev
    r = run_ok(sc, tmp_path)
    assert 0 < r["scenario_events"][0]["reconverged_after_s"] < 30
    assert r["routing"]["joined_at_end"] == 15


def test_tcp_over_rpl_is_classified_and_counted(tmp_path):
    """With RPL a datagram carries an RPL Option (hop-by-hop) before TCP:
    the frame classification, the segment counts and the hops still find
    the TCP header."""
    sc = rpl_grid()
    sc["flows"] = [{"type": "tcp", "src": 15, "dst": 0, "bytes": 8000, "start_s": 20}]
    r = run_ok(sc, tmp_path)
    f = r["flows"][0]
    assert f["complete"] is True
    assert r["totals"]["tcp_data_frames_tx"] > 0 and r["totals"]["tcp_ack_frames_tx"] > 0
    assert f["data_segments_arrived"] > 0
    st = r["routing"]["flows"][0]
    assert st["datagrams"] >= f["data_segments_arrived"] and st["hops_mean"] == 6
    assert st["path_stretch"] == pytest.approx(1.0)
