"""Routing under dynamics (issue 23): what a dead node on a TCP flow's path
costs the flow, with the simulator's ideal routing as the reference arm.

rpl-repair: examples/rpl-repair.toml kills node 2 at 20 s, in the middle of
the one shortest path of a running 100,000-byte TCP flow (a 2 x 5 ladder,
4 hops, 6 round the dead node). Arms: the ideal arm ("shortest": routes
computed again from global knowledge a fixed delay after the death,
routing.repair_delay_s; docs/SIMULATOR.md "Dynamics") at 0, 1, 5 and 30 s,
no repair at all, and RPL (non-storing, rooted at the flow's destination)
with MRHOF and with OF0, and MRHOF with a 10 s parent timeout: RPL's
repair time is a result, not a parameter.
"""
from __future__ import annotations

from ..jsontypes import JsonObj
from ..table import mean_ci, num
from . import Arms, Experiment, PlotSpec, Report, metric, point, register

#: (label, keys): the ideal arm at several repair delays, none, and RPL
RPL = {"routing.type": "rpl", "routing.root": 4}
REPAIR_ARMS: Arms = [
    ("ideal-0s", {"routing.repair_delay_s": 0}),
    ("ideal-1s", {"routing.repair_delay_s": 1}),
    ("ideal-5s", {"routing.repair_delay_s": 5}),
    ("ideal-30s", {"routing.repair_delay_s": 30}),
    ("no-repair", {"routing.repair_delay_s": 280}),
    ("rpl-mrhof", {**RPL, "routing.of": "mrhof"}),
    ("rpl-of0", {**RPL, "routing.of": "of0"}),
    ("rpl-mrhof-timeout", {**RPL, "routing.of": "mrhof", "routing.parent_timeout_ms": 10000}),
    ("rpl-storing-mrhof", {**RPL, "routing.of": "mrhof", "routing.mode": "storing"}),
]

W = "scenario_events[0].flows[0]."


def _cell(p: JsonObj | None, name: str, digits: int = 3) -> str:
    m = metric(p, name)
    if m is None:
        return "-"
    return mean_ci(m) if m.get("n", 0) > 1 else num(m["mean"], digits)


def repair_report(summary: JsonObj) -> Report:
    rows = []
    for label, keys in REPAIR_ARMS:
        p = point(summary, arm=label)
        n = (metric(p, "flows[0].complete") or {}).get("n", 0)
        complete = metric(p, "flows[0].complete")
        intact = metric(p, "flows[0].integrity_ok")
        resumed = metric(p, W + "resumed_after_s")
        rows.append([
            label,
            num(keys.get("routing.repair_delay_s"), 3) if "routing.repair_delay_s" in keys else
            _cell(p, "scenario_events[0].reconverged_after_s"),
            _cell(p, W + "stall_s"),
            _cell(p, W + "resumed_after_s") if resumed else f"never (0/{n})",
            _cell(p, W + "rto_timeouts"),
            _cell(p, W + "e2e_retransmissions"),
            f"{round(complete['mean'] * complete['n'])}/{complete['n']}" if complete else "-",
            f"{round(intact['mean'] * intact['n'])}/{intact['n']}" if intact else "-",
            _cell(p, "flows[0].bytes_delivered", 6),
            _cell(p, "flows[0].completion_time_s"),
            _cell(p, "routing.flows[0].hops_mean"),
        ])
    notes = [
        "The window is the event's: from the death (20 s) to the run's end. stall = the longest "
        "time without new in-order bytes at the receiver, from the last delivery before the death "
        "(to TCP giving up, for a flow that does); resumed = from the death to the delivery that "
        "ended that stall (segments already past the dead node do not count; with an immediate "
        "repair the longest gap of the window may be a later, unrelated one); RTOs and "
        "retransmissions are the sender's in the window.",
        "ideal-Ns: the simulator computes every route again N s after the death from the network "
        "as it is then (an omniscient protocol that repairs in N s). TCP resumes at its next "
        "retransmission after the repair, so the stall is the repair delay rounded up to the "
        "sender's backed-off RTO: the RTOs taken grow with the delay (doubling each time).",
        "no-repair: the routes stay through the dead node; the sender retransmits until TCP gives "
        "up (MIP_TCP_MAX_RETRIES) and the flow ends incomplete.",
        "rpl-*: RPL non-storing (but the last) rooted at node 4 (the flow's destination; the ACKs go down by "
        "the root's source routes), RFC 6550 defaults otherwise. Its repair delay column is the "
        "time from the death until every node that is up again had a parent chain to the root "
        "and the root a source route to it (reconverged_after_s). A child learns of the death "
        "from its MAC's unacknowledged frames (the link reports raise the ETX) or, with "
        "rpl-mrhof-timeout, when the parent has not been heard for 10 s; it then needs a new "
        "parent and, for the ACKs, a DAO to the root.",
        "rpl-storing-mrhof: the same in storing mode (every router keeps routes to the nodes "
        "below it; the ACKs follow them).",
        "hops = the mean hops of the flow's delivered segments: 4 before the death, 6 after.",
    ]
    return Report(["arm", "repair s", "stall s", "resumed after s", "RTOs", "retx",
                   "complete", "intact", "bytes delivered", "completion s", "hops"], rows, notes)


register(Experiment(
    name="rpl-repair",
    title="A node on a running TCP flow's path dies: stall, resume, RTOs (issue 23)",
    source="RFC 6550 repair vs the simulator's ideal routing (docs/SIMULATOR.md, Dynamics)",
    scenario="rpl-repair.toml",
    runs=10,
    report=repair_report,
    arms=REPAIR_ARMS,
    vary={},
    plots=[PlotSpec("stall-by-arm.png", "arm", W + "stall_s", ylabel="stall (s)", xlabel="arm")],
))


# --- Trickle's prediction (for rpl-convergence's control overhead) ---------------------------

#: RFC 6550 section 17: DIOIntervalMin 3 (Imin = 2^3 ms), DIOIntervalDoublings 20,
#: DIORedundancyConstant 10
RPL_DIO_INT_MIN, RPL_DIO_INT_DOUBLINGS, RPL_DIO_REDUNDANCY = 3, 20, 10


def trickle_expected_tx(from_s: float, to_s: float, int_min: int = RPL_DIO_INT_MIN,
                        doublings: int = RPL_DIO_INT_DOUBLINGS) -> float:
    """Expected transmissions of one Trickle timer (RFC 6206) in [from_s, to_s)
    when it started (reset) at 0 and nothing suppresses or resets it: interval
    j lasts I_j = Imin * 2^min(j, doublings) (Imin = 2^int_min ms, RPL's
    encoding) and transmits once at a uniform point of its second half."""
    imin = 2.0 ** int_min / 1000.0
    imax = imin * 2.0 ** doublings
    start, i, n = 0.0, imin, 0.0
    while start < to_s:
        lo, hi = start + i / 2, start + i          # where this interval transmits
        overlap = max(0.0, min(hi, to_s) - max(lo, from_s))
        n += overlap / (hi - lo)
        start += i
        i = min(2 * i, imax)
    return n


def trickle_suppression(neighbours: int, k: int = RPL_DIO_REDUNDANCY) -> float:
    """The share of its intervals in which a node transmits when every node
    of a single-hop neighbourhood of `neighbours` + 1 nodes runs Trickle with
    redundancy k on consistent state: about k transmissions per interval in
    the neighbourhood (RFC 6206 section 6; Levis et al., NSDI 2004), so
    min(1, k / (neighbours + 1)) per node; k = 0 never suppresses."""
    if k == 0:
        return 1.0
    return min(1.0, k / (neighbours + 1))


def trickle_predicted_dios(degrees: list[int], from_s: float, to_s: float,
                           int_min: int = RPL_DIO_INT_MIN, doublings: int = RPL_DIO_INT_DOUBLINGS,
                           k: int = RPL_DIO_REDUNDANCY) -> float:
    """DIOs a network sends in [from_s, to_s) whose nodes reset their
    timers at about 0 and have the given neighbour counts."""
    per = trickle_expected_tx(from_s, to_s, int_min, doublings)
    return sum(per * trickle_suppression(d, k) for d in degrees)




# --- rpl-convergence ----------------------------------------------------------------------------

#: (label, keys): mode x objective function x MAC
CONVERGENCE_ARMS: Arms = [
    (f"{mode_label}-{of}-{mac_label}",
     {"routing.mode": mode, "routing.of": of, "mac.rdc.type": rdc})
    for mode, mode_label in (("non-storing", "ns"), ("storing", "s"))
    for of in ("mrhof", "of0")
    for rdc, mac_label in (("nullrdc", "csma"), ("contikimac", "contikimac"))
]


def convergence_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    """Per run: the time every node had first joined (the latest joined_s;
    absent when a node never did), the DIOs sent and Trickle's prediction for
    them (each node's timer from its join, the root's from 0, suppressed by
    its degree; routing.py's trickle_predicted_dios) and their ratio."""
    nodes = result.get("node_stats", [])
    t_end = float(result.get("sim_time_s", 0))
    joined = [n.get("rpl", {}).get("joined_s") for n in nodes]
    out: JsonObj = {}
    if nodes and all(j is not None for j in joined):
        out["rpl.all_joined_s"] = max(joined)
    dios = sum(n.get("rpl", {}).get("dio_tx", 0) for n in nodes)
    predicted = sum(trickle_expected_tx(0.0, t_end - (j or 0.0)) *
                    trickle_suppression(int(n.get("neighbours", 0)))
                    for n, j in zip(nodes, joined, strict=True) if j is not None)
    out["rpl.dio_tx"] = dios
    out["rpl.dio_predicted"] = predicted
    if predicted > 0:
        out["rpl.dio_vs_trickle"] = dios / predicted
    return out


def convergence_report(summary: JsonObj) -> Report:
    rows = []
    for label, _ in CONVERGENCE_ARMS:
        p = point(summary, arm=label)
        conv = metric(p, "routing.convergence_s")
        n = (metric(p, "routing.joined_at_end") or {}).get("n", 0)
        rows.append([
            label,
            _cell(p, "rpl.all_joined_s"),
            _cell(p, "routing.convergence_s") if conv else f"never (0/{n})",
            f"{conv['n']}/{n}" if conv else f"0/{n}",
            _cell(p, "routing.joined_at_end"),
            _cell(p, "routing.parent_changes"),
            _cell(p, "totals.control_frames_per_node_h"),
            _cell(p, "rpl.dio_tx"),
            num((metric(p, "rpl.dio_predicted") or {}).get("mean"), 4),
            _cell(p, "rpl.dio_vs_trickle"),
            _cell(p, "totals.duty_cycle_mean"),
        ])
    notes = [
        "joined: the latest first-join time of the 100 nodes (each node's rpl.joined_s: a "
        "preferred parent and a rank). converged: the first time every node had a parent chain "
        "to the root through nodes that are up and the root reached it: non-storing, the root's "
        "node table chained it back (a source route); storing, the routers' routes led from the "
        "root down to it (docs/SIMULATOR.md, Convergence). "
        "runs converged: of the runs, how many by 600 s; the mean is over those.",
        "joined at end: nodes that pass that test at 600 s. parent changes: over the run, each "
        "node's first choice included (100 at least).",
        "DIOs vs Trickle: RFC 6206 with RPL's defaults predicts, for a timer reset at the node's "
        "join and never again, one DIO per interval in the interval's second half, intervals "
        "doubling from 8 ms (about 19 in the first hour), and a consistent neighbourhood of d "
        "nodes suppresses to about k/(d+1) of them (k = 10). The ratio is the DIOs sent over "
        "that: above 1 means Trickle resets (inconsistencies, parent changes, DIS) beyond the "
        "join.",
        "control frames: every transmission (retries included) of an ICMPv6 RPL message, per "
        "node and simulated hour; duty cycle: the radio's, averaged over the nodes (1 with the "
        "radio always on).",
        "Every run has the same network: random positions come from the scenario's seed key, "
        "which moteip-sim --seed (a sweep's runs) does not change; the runs differ in the nodes' "
        "and the channel's random streams.",
    ]
    return Report(["arm", "joined s", "converged s", "runs converged", "joined at end",
                   "parent changes", "control frames/node/h", "DIOs", "Trickle DIOs",
                   "DIOs / Trickle", "duty cycle"], rows, notes)


register(Experiment(
    name="rpl-convergence",
    title="100 random nodes form an RPL DODAG: convergence and control overhead (issue 23)",
    source="RFC 6550 defaults, RFC 6206 Trickle's prediction",
    scenario="rpl-convergence.toml",
    runs=3,
    report=convergence_report,
    arms=CONVERGENCE_ARMS,
    vary={},
    metrics_fn=convergence_metrics,
))
