"""cctrl split and merge ([B] 4.5.1; flows' merge_group, sim/apps.c): two TCP
connections between the same nodes carry one stream, chunk k of tx_buffer
bytes on connection k mod 2, merged in order at the receiver."""
from __future__ import annotations

from simrun import run_ok, run_sim


def flows(group: int | None, n: int = 2) -> list[dict]:
    out = []
    for c in range(n):
        f = {"type": "tcp", "src": 3, "dst": 0, "port": 5000 + c, "duration_s": 20,
             "tx_buffer": 16, "sender": {"cwnd_cap": 1}}
        if group is not None:
            f["merge_group"] = group
        out.append(f)
    return out


def scenario(fl: list[dict]) -> dict:
    return {"name": "merge", "seed": 1, "duration_s": 30, "stop_when_done": False,
            "topology": {"type": "chain", "nodes": 4, "spacing_m": 10},
            "medium": {"range_m": 12, "ber": 1e-4},
            "relay": {"mode": "cctrl", "keep": True}, "flows": fl}


def test_two_connections_carry_one_stream_in_order(tmp_path):
    r = run_ok(scenario(flows(1)), tmp_path)
    a, b = r["flows"]
    assert a["integrity_ok"] and b["integrity_ok"]
    assert (a["merge"]["index"], b["merge"]["index"]) == (0, 1)
    merged = a["merge"]["bytes_merged"]
    assert merged == b["merge"]["bytes_merged"]
    # the split alternates 16-byte chunks: the two sent as much, within a chunk
    assert abs(a["bytes_sent"] - b["bytes_sent"]) <= 16
    # what left the merge is at most what arrived, and no more than a
    # hold-back buffer (64 bytes) per connection short of it
    arrived = a["bytes_delivered"] + b["bytes_delivered"]
    assert arrived - 2 * 64 <= merged <= arrived and merged > 16 * 50


def test_a_group_needs_two_flows_between_the_same_nodes(tmp_path):
    r = run_sim(scenario(flows(1, n=1)), tmp_path)
    assert r.rc != 0 and "merge_group 1 has one flow" in r.stderr, r.stderr
    fl = flows(2)
    fl[1]["src"] = 2
    r = run_sim(scenario(fl), tmp_path)
    assert r.rc != 0 and "merge_group 2" in r.stderr, r.stderr
