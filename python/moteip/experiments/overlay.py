"""Application overlay routing (seed 000, paper D s.9.4; issue 26):
in-network aggregation up a Directed Diffusion tree of link-local UDP
(apps/overlay.c) against every node reporting its own reading to the sink
in a UDP datagram over RPL.

overlay: examples/overlay.toml, a 5 x 5 grid with the sink at a corner.
Arms, with the radio always on (csma) and on ContikiMAC at 8 Hz:
  unicast-rpl   the scenario as written: 24 UDP flows to the sink over RPL
                (non-storing, rooted at the sink), a 12-byte reading every 30 s;
  overlay       no flows and no routing protocol (the overlay needs none):
                apps/overlay on every node, rounds of 30 s;
  overlay+rpl   the same with RPL running beside it, as in a network that
                also needs IP routes: what the overlay adds to RPL's cost;
  overlay-lt600 our variant: interests that live 600 s instead of 90 s
                (refreshed every 200 s instead of 30 s).
"""
from __future__ import annotations

from ..jsontypes import JsonObj
from . import Arms, Experiment, Report, point, register
from .routing import _cell

#: the overlay's parameters (docs/OVERLAY.md derives them)
OVERLAY = {"sink": 0, "interval_s": 30, "depth": 8, "slot_ms": 1000, "lifetime_s": 90}
MACS = [("csma", {}), ("contikimac", {"mac.rdc": {"type": "contikimac"}})]
ARMS: Arms = []
for _mac, _keys in MACS:
    ARMS += [
        (f"unicast-rpl-{_mac}", dict(_keys)),
        (f"overlay-{_mac}", {**_keys, "flows": [], "overlay": OVERLAY,
                             "routing": {"type": "shortest"}}),
        (f"overlay+rpl-{_mac}", {**_keys, "flows": [], "overlay": OVERLAY}),
        # our variant: interests live 600 s (refreshed every 200 s): fewer floods
        (f"overlay-lt600-{_mac}", {**_keys, "flows": [], "routing": {"type": "shortest"},
                                   "overlay": {**OVERLAY, "lifetime_s": 600}}),
    ]


def overlay_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    """Per run: readings taken and delivered, the delivery ratio, the mean
    latency of a delivered reading (overlay: from its taking to the sink's
    report of its round; unicast: from send to arrival), and frames, radio
    energy and radio-on time per delivered reading (every frame and joule
    of the run: RPL's control traffic counts against the arms that run it)."""
    t = result["totals"]
    ov = result.get("overlay")
    if ov is not None:
        taken, got, lat = ov["readings_taken"], ov["readings_delivered"], ov["latency_mean_ms"]
    else:
        flows = [f for f in result["flows"] if f["type"] == "udp"]
        taken = sum(f["sent"] for f in flows)
        got = sum(f["received"] for f in flows)
        lat = (sum(f["latency_mean_ms"] * f["received"] for f in flows) / got) if got else 0.0
    out: JsonObj = {"readings_taken": taken, "readings_delivered": got,
                    "delivery_ratio": got / taken if taken else 0.0, "latency_ms": lat,
                    "frames_tx": t["frames_tx"], "control_frames_tx": t["control_frames_tx"],
                    "duty_cycle": t["duty_cycle_mean"]}
    if got:
        out["frames_per_reading"] = t["frames_tx"] / got
        out["energy_mj_per_reading"] = t["energy_mj"] / got
        out["radio_on_ms_per_reading"] = t["radio_on_s"] * 1e3 / got
    return out


def overlay_report(summary: JsonObj) -> Report:
    rows = []
    for label, _ in ARMS:
        p = point(summary, arm=label)
        rows.append([label] + [_cell(p, k) for k in (
            "readings_delivered", "delivery_ratio", "latency_ms", "frames_tx", "control_frames_tx",
            "frames_per_reading", "energy_mj_per_reading", "duty_cycle")])
    notes = [
        "5 x 5 grid, 30 m apart (range 35 m), sink at a corner (8 hops to the far one), 24 "
        "sensors, one reading each per 30 s, 620 s. unicast-rpl: a 12-byte UDP report per reading "
        "over RPL (non-storing, RFC 6550 defaults) from 20 s; overlay: apps/overlay's rounds of "
        "30 s, one 16-byte DATA per node and round carrying count, min, max and sum (mean = "
        "sum / count), interests flooded to ff02::1 every 30 s.",
        "latency: unicast from send to arrival; overlay from a reading's taking to the sink's "
        "report of its round (the schedule: a node h hops out sends (depth - h) slots after "
        "the round's end, so a reading waits about h slots of 1 s).",
        "per reading: every frame and joule of the run over the readings delivered (RPL's DIOs "
        "and DAOs count against the arms that run RPL; the overlay arm has no routing protocol).",
        "A lost DATA loses its whole subtree's readings for that round: aggregation trades "
        "frames for the weight of each frame.",
    ]
    return Report(["arm", "delivered", "ratio", "latency ms", "frames", "control frames",
                   "frames/reading", "mJ/reading", "duty cycle"], rows, notes)


register(Experiment(
    name="overlay",
    title="Application overlay routing: in-network aggregation vs per-node reports over RPL",
    source="Dunkels, licentiate thesis (seeds/000), paper D s.9.4; issue 26",
    scenario="overlay.toml",
    runs=5,
    vary={},
    arms=ARMS,
    metrics_fn=overlay_metrics,
    report=overlay_report,
))
