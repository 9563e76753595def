"""Spatial addresses and geographic forwarding (issue 26, seed 000 paper D
9.2): geo against RPL and the simulator's omniscient routes.

spatial-routing: examples/spatial-routing.toml, seven sources in a grid's
left column reporting to a sink at its right edge, on the full 7 x 7 grid
and on the grid with a 3 x 3 void in its middle; and seven sources to a
sink in a sparse random network (voids of every shape). Arms: topology x routing
(shortest, RPL rooted at the sink, geo with beacons every 10 s and 60 s).
Per run: delivery ratio, path stretch (hops of delivered datagrams over the
shortest path's), routing state per node in bytes, control frames and
bytes per node and hour, energy per node and hour and per delivered
reading.
"""
from __future__ import annotations

from ..jsontypes import JsonObj
from ..table import num
from . import Arms, Experiment, Report, metric, point, register
from .routing import _cell  # a mean with its CI, or the bare mean for one run

N = 7                      # the grid's side
SPACING = 10               # metres (the scenario's)
HOLE = range(2, 5)         # the void: columns and rows 2..4


def positions(void: bool) -> list[list[int]]:
    return [[x * SPACING, y * SPACING] for y in range(N) for x in range(N)
            if not (void and x in HOLE and y in HOLE)]


def flows(pos: list[list[int]]) -> list[JsonObj]:
    """The scenario's flows on these positions: the left column to (60, 30)."""
    sink = pos.index([(N - 1) * SPACING, (N // 2) * SPACING])
    return [{"type": "udp", "src": pos.index([0, y * SPACING]), "dst": sink, "interval_s": 30,
             "payload_bytes": 20, "count": 20, "start_s": 60} for y in range(N)]


#: the random arm: 60 nodes in a 100 m square (from the scenario's seed key,
#: so every run has the same network), range 16 m, interference 32 m: sparse
#: enough for voids of every shape (4 neighbours on average, some with 1)
RANDOM: JsonObj = {"type": "random", "nodes": 60, "width_m": 100, "height_m": 100}
RANDOM_RANGE_M = 16


def _topology(topo: str) -> JsonObj:
    if topo == "random":
        return {"topology": RANDOM, "medium.range_m": RANDOM_RANGE_M,
                "medium.interference_range_m": 2 * RANDOM_RANGE_M,
                "flows": [{"type": "udp", "src": s, "dst": 0, "interval_s": 30,
                           "payload_bytes": 20, "count": 20, "start_s": 60}
                          for s in range(1, N + 1)]}
    pos = positions(topo == "void")
    return {"topology": {"type": "positions", "positions": pos}, "flows": flows(pos)}


def _routings(topo: str) -> list[tuple[str, JsonObj]]:
    sink = (0 if topo == "random" else
            positions(topo == "void").index([(N - 1) * SPACING, (N // 2) * SPACING]))
    geo = {"link.addressing": "spatial", "routing.type": "geo"}
    return [
        ("shortest", {"routing.type": "shortest"}),
        ("rpl", {"routing.type": "rpl", "routing.root": sink}),
        ("geo-b10", {**geo, "routing.beacon_s": 10}),
        ("geo-b60", {**geo, "routing.beacon_s": 60}),
    ]


TOPOLOGIES = ("grid", "void", "random")
ARMS: Arms = [(f"{topo}/{label}", {**_topology(topo), **keys})
              for topo in TOPOLOGIES for label, keys in _routings(topo)]


def spatial_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    """Per run: delivery, stretch, state per node, energy per reading."""
    fl: list[JsonObj] = result.get("flows", [])
    sent = sum(f.get("sent", 0) for f in fl)
    got = sum(f.get("received", 0) for f in fl)
    out: JsonObj = {}
    if sent:
        out["spatial.delivery_ratio"] = got / sent
    routing: JsonObj = result.get("routing", {})
    hops = short = 0.0
    for f in routing.get("flows", []):
        if f.get("hops_mean") is not None and f.get("shortest_hops_mean") is not None:
            hops += f["hops_mean"] * f["datagrams"]
            short += f["shortest_hops_mean"] * f["datagrams"]
    if short:
        out["spatial.path_stretch"] = hops / short
    nodes: list[JsonObj] = result.get("node_stats", [])
    n = len(nodes) or 1
    # the driver's struct (fixed tables) + the route entries in use
    routes = routing.get("routes_mean", 0.0) * routing.get("route_entry_bytes", 0)
    out["spatial.state_bytes"] = routing.get("driver_bytes", 0) + routes
    # what of it is in use: geo's neighbour entries (16 B each), RPL's
    # whole struct (its arrays are its state), the shortest arm's routes
    geo_used = sum(x.get("geo", {}).get("neighbours", 0) for x in nodes) / n * 16
    out["spatial.state_used_bytes"] = (geo_used + routes if "geo" in nodes[0]
                                       else out["spatial.state_bytes"]) if nodes else 0
    totals: JsonObj = result.get("totals", {})
    if got:
        out["spatial.energy_per_reading_mj"] = totals.get("energy_mj", 0.0) / got
    return out


def spatial_report(summary: JsonObj) -> Report:
    rows = []
    for label, _ in ARMS:
        p = point(summary, arm=label)
        rows.append([
            label,
            _cell(p, "spatial.delivery_ratio"),
            _cell(p, "spatial.path_stretch"),
            num((metric(p, "spatial.state_bytes") or {}).get("mean"), 4),
            num((metric(p, "spatial.state_used_bytes") or {}).get("mean"), 3),
            _cell(p, "totals.control_frames_per_node_h"),
            _cell(p, "totals.control_bytes_per_node_h"),
            _cell(p, "totals.duty_cycle_mean"),
            _cell(p, "totals.energy_j_per_node_h"),
            _cell(p, "spatial.energy_per_reading_mj"),
        ])
    notes = [
        "delivery: readings received at the sink over readings sent (7 sources x 20). stretch: "
        "the hops of the delivered readings (from their hop limit) over the shortest path's at "
        "each delivery; 1 = shortest.",
        "state: the RAM a node gives its routing, in bytes: the routing driver's struct (RPL: "
        "struct mip_rpl with its neighbour set and the root's node table, every node reserving "
        "it; geo: struct mip_geo, 16 neighbour entries of 16 B and 8 broadcast digests) plus "
        "the route-table entries with a gateway it holds (the shortest arm's host routes, "
        "sizeof(struct mip_route) each). used: geo's live neighbour entries (16 B each) plus "
        "those routes; for RPL and shortest the same as state.",
        "control: every transmission of an RPL message (ICMPv6 155) or a geo beacon (UDP "
        "0xF0B6), per node and simulated hour; on ContikiMAC a broadcast is repeated for a "
        "whole wake-up interval (125 ms), so one beacon is tens of frames. The shortest arm "
        "has none (its routes are installed by the simulator).",
        "energy: the radio's (CC2420 currents, docs/SIMULATOR.md) per node and hour, and the "
        "network's per delivered reading.",
        "geo-bN: beacon interval N s, neighbour timeout 4.5 N (GPSR's), perimeter mode on. "
        "On the void topology greedy forwarding stops at the void's edge and the perimeter "
        "walk (right-hand rule on the Gabriel graph) carries the readings round it.",
        "random: 60 nodes at random in 100 m x 100 m (the same network in every run), range "
        "16 m, interference 32 m; nodes 1-7 report to node 0.",
    ]
    return Report(["arm", "delivery", "stretch", "state B", "used B", "control frames/node/h",
                   "control B/node/h", "duty cycle", "energy J/node/h", "energy mJ/reading"],
                  rows, notes)


register(Experiment(
    name="spatial-routing",
    title="Geographic forwarding on spatial addresses vs RPL and the omniscient routes (issue 26)",
    source="seed 000 paper D 9.2 (spatial addresses); GPSR (Karp and Kung 2000) for greedy and "
           "perimeter forwarding; RFC 6550 defaults for RPL",
    scenario="spatial-routing.toml",
    runs=5,
    report=spatial_report,
    arms=ARMS,
    vary={},
    metrics_fn=spatial_metrics,
))
