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
        "rpl-*: RPL non-storing rooted at node 4 (the flow's destination; the ACKs go down by "
        "the root's source routes), RFC 6550 defaults otherwise. Its repair delay column is the "
        "time from the death until every node that is up again had a parent chain to the root "
        "and the root a source route to it (reconverged_after_s). A child learns of the death "
        "from its MAC's unacknowledged frames (the link reports raise the ETX) or, with "
        "rpl-mrhof-timeout, when the parent has not been heard for 10 s; it then needs a new "
        "parent and, for the ACKs, a DAO to the root.",
        "hops = the mean hops of the flow's delivered segments: 4 before the death, 6 after.",
        "Storing mode is not an arm: its downward routes are not in the simulator yet, so the "
        "TCP handshake's SYN-ACK has no way down.",
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


