"""`moteip reproduce spatial-routing` (issue 26): the arms cover both
topologies and every routing, the void is where the scenario says, and the
per-run metrics (delivery, stretch, state, energy per reading) come out of
a result as docs/results.md describes them."""
from __future__ import annotations

from moteip.experiments import get, spatial


def test_arms_are_topology_by_routing():
    e = get("spatial-routing")
    labels = [label for label, _ in e.arms or []]
    assert labels == [f"{t}/{r}" for t in ("grid", "void", "random")
                      for r in ("shortest", "rpl", "geo-b10", "geo-b60")]
    keys = dict(e.arms or [])
    void = keys["void/geo-b10"]["topology"]["positions"]
    assert len(void) == 40 and [20, 30] not in void and [10, 30] in void
    # RPL is rooted at the sink, which moves with the ids
    assert keys["void/rpl"]["routing.root"] == void.index([60, 30])
    assert keys["grid/rpl"]["routing.root"] == 27
    assert keys["void/geo-b60"]["link.addressing"] == "spatial"
    assert {f["dst"] for f in keys["void/geo-b60"]["flows"]} == {void.index([60, 30])}
    assert keys["random/rpl"]["routing.root"] == 0
    assert keys["random/shortest"]["topology"]["type"] == "random"


def test_metrics_from_a_result():
    result = {
        "flows": [{"sent": 20, "received": 18}, {"sent": 20, "received": 20}],
        "routing": {"driver_bytes": 496, "route_entry_bytes": 36, "routes_mean": 0.0,
                    "flows": [{"datagrams": 18, "hops_mean": 10, "shortest_hops_mean": 8},
                              {"datagrams": 20, "hops_mean": 6, "shortest_hops_mean": 6}]},
        "node_stats": [{"geo": {"neighbours": 3}}, {"geo": {"neighbours": 4}}],
        "totals": {"energy_mj": 3800.0},
    }
    m = spatial.spatial_metrics(result, {})
    assert m["spatial.delivery_ratio"] == 38 / 40
    assert m["spatial.path_stretch"] == (180 + 120) / (144 + 120)
    assert m["spatial.state_bytes"] == 496
    assert m["spatial.state_used_bytes"] == 3.5 * 16
    assert m["spatial.energy_per_reading_mj"] == 100.0
