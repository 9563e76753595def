"""Routing under dynamics (issue 23): what a dead node on a TCP flow's path
costs the flow, with the simulator's ideal routing as the reference arm.

rpl-repair: examples/rpl-repair.toml kills node 4 at 20 s, on the path of a
running 60,000-byte TCP flow (8 hops, 5 x 5 grid). Arms: the ideal arm
("shortest": routes computed again from global knowledge a fixed delay
after the death, routing.repair_delay_s; docs/SIMULATOR.md "Dynamics") at
0, 1, 5 and 30 s, and no repair at all. A routing protocol's arm is one
more entry of REPAIR_ARMS (its routing keys); its repair time is then a
result, not a parameter.
"""
from __future__ import annotations

from ..jsontypes import JsonObj
from ..table import mean_ci, num
from . import Arms, Experiment, PlotSpec, Report, metric, point, register

#: (label, keys): the ideal arm at several repair delays, and none
REPAIR_ARMS: Arms = [
    ("ideal-0s", {"routing.repair_delay_s": 0}),
    ("ideal-1s", {"routing.repair_delay_s": 1}),
    ("ideal-5s", {"routing.repair_delay_s": 5}),
    ("ideal-30s", {"routing.repair_delay_s": 30}),
    ("no-repair", {"routing.repair_delay_s": 280}),
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
            num(keys.get("routing.repair_delay_s"), 3) if "routing.repair_delay_s" in keys else "-",
            _cell(p, W + "stall_s"),
            _cell(p, W + "resumed_after_s") if resumed else f"never (0/{n})",
            _cell(p, W + "rto_timeouts"),
            _cell(p, W + "e2e_retransmissions"),
            f"{round(complete['mean'] * complete['n'])}/{complete['n']}" if complete else "-",
            f"{round(intact['mean'] * intact['n'])}/{intact['n']}" if intact else "-",
            _cell(p, "flows[0].bytes_delivered", 6),
            _cell(p, "flows[0].completion_time_s"),
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
        "RPL arms (storing, non-storing) join this table when routing.type = \"rpl\" is in the "
        "simulator: their repair time is a result of DIO/DAO timing, to be set beside the ideal "
        "arm's.",
    ]
    return Report(["arm", "repair delay s", "stall s", "resumed after s", "RTOs", "retx",
                   "complete", "intact", "bytes delivered", "completion s"], rows, notes)


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
