"""No routing loop under churn (issue 23's rule for the simulator's RPL tests).

A 4x4 grid runs RPL, in both modes, with UDP traffic up to the root from
three corners and down from the root to the far corner, while nodes die,
reboot with their state lost, and a link degrades. Whatever the repair
does, no datagram may loop: none runs out of hop limit anywhere, and every
delivered datagram took at most as many hops as a loop-free path can have
(15: each of the 16 nodes once; the simulator's flows report the most hops
any delivered datagram took). The ranks themselves move during the repair,
so the bound a datagram's rank allows is checked where it is known: RPL's
data-path validation (RFC 6550 11.2) drops the second datagram that goes
against the ranks, and a loop that escaped it would run out of hop limit.
"""
from __future__ import annotations

import pytest

from simrun import run_ok

GRID = {"type": "grid", "rows": 4, "cols": 4, "spacing_m": 10}


def churn(mode: str) -> dict:
    up = [{"type": "udp", "src": s, "dst": 0, "interval_s": 0.5, "payload_bytes": 40,
           "count": 160, "start_s": 10} for s in (15, 12, 3)]
    down = [{"type": "udp", "src": 0, "dst": 15, "interval_s": 0.5, "payload_bytes": 40,
             "count": 160, "start_s": 10}]
    return {"name": "rpl-churn", "seed": 7, "duration_s": 100, "stop_when_done": False,
            "topology": GRID,
            "medium": {"model": "unit_disk", "range_m": 10.5, "interference_range_m": 20.5},
            "mac": {"type": "csma_ca"},
            "routing": {"type": "rpl", "mode": mode},
            "flows": up + down,
            "events": [{"type": "node_down", "at_s": 25, "node": 5},
                       {"type": "link", "at_s": 30, "node": 9, "to": 10, "prr": 0.3},
                       {"type": "node_up", "at_s": 45, "node": 5},
                       {"type": "node_down", "at_s": 55, "node": 10},
                       {"type": "node_down", "at_s": 60, "node": 6},
                       {"type": "node_up", "at_s": 75, "node": 10}]}


@pytest.mark.parametrize("mode", ["non-storing", "storing"])
def test_no_datagram_loops_while_the_network_churns(tmp_path, mode):
    r = run_ok(churn(mode), tmp_path)
    assert all(e["applied"] for e in r["scenario_events"]), r["scenario_events"]
    nodes = r["node_stats"]
    # a loop drains a datagram's hop limit (64) somewhere: nowhere here
    for n in nodes:
        assert n["stack"].get("drop_ipv6_hop_limit_expired", 0) == 0, (mode, n["id"], n["stack"])
    # the repair really happened: parents changed after the deaths
    assert r["routing"]["parent_changes"] > len(nodes), r["routing"]
    flows = r["routing"]["flows"]
    assert len(flows) == 4
    for f in flows:
        assert f["datagrams"] > 0, (mode, f)
        assert f["hops_max"] <= len(nodes) - 1, (mode, f)
    delivered = [f["received"] for f in r["flows"]]
    assert all(d > 0 for d in delivered), (mode, r["flows"])
