"""The tables `moteip run` and `moteip sweep` print."""
from __future__ import annotations

import difflib

from .errors import UsageError
from .jsontypes import JsonObj
from .table import mean_ci, num, render

#: Per flow type, the metrics a table shows by default.
FLOW_COLUMNS = {
    "tcp": ["goodput_bps", "complete", "e2e_retransmissions", "rto_timeouts"],
    "udp": ["delivery_ratio", "latency_mean_ms"],
    "ping": ["loss_ratio", "rtt_ms.mean"],
    "sensor": ["reliability", "latency_mean_ms", "readings_delivered"],
}


def default_metrics(names: set[str], max_flows: int = 3) -> list[str]:
    """The default columns of a sweep table, from the metric names present."""
    out = []
    for i in range(max_flows):
        for cols in FLOW_COLUMNS.values():
            if f"flows[{i}].{cols[0]}" in names:
                out += [f"flows[{i}].{c}" for c in cols if f"flows[{i}].{c}" in names]
                break
    if "totals.energy_j" in names:
        out.append("totals.energy_j")
    return out


def run_table(result: JsonObj) -> str:
    """A single run: one row per flow, then the network's totals."""
    rows = []
    for f in result.get("flows", []):
        t = f.get("type")
        timed = t == "tcp" and not f.get("bytes_expected")   # duration_s: no byte count to reach
        if timed:
            what = (f"{num(f.get('bytes_delivered'))} B of {num(f.get('bytes_sent'))} sent"
                    f"{' intact' if f.get('integrity_ok') else ' CORRUPT'} (timed), "
                    f"{num(f.get('goodput_bps'))} b/s, {num(f.get('e2e_retransmissions'))} retx, "
                    f"{num(f.get('rto_timeouts'))} RTOs")
        elif t == "tcp":
            what = (f"{num(f.get('bytes_delivered'))}/{num(f.get('bytes_expected'))} B"
                    f"{' intact' if f.get('integrity_ok') else ' CORRUPT'}, "
                    f"{num(f.get('goodput_bps'))} b/s, {num(f.get('e2e_retransmissions'))} retx, "
                    f"{num(f.get('rto_timeouts'))} RTOs")
        elif t == "udp":
            what = (f"{num(f.get('received'))}/{num(f.get('sent'))} reports, delivery "
                    f"{num(f.get('delivery_ratio'))}, latency {num(f.get('latency_mean_ms'))} ms")
        elif t == "ping":
            what = (f"{num(f.get('received'))}/{num(f.get('sent'))} replies, rtt mean "
                    f"{num((f.get('rtt_ms') or {}).get('mean'))} ms")
        elif t == "sensor":
            what = (f"{num(f.get('readings_delivered'))}/{num(f.get('readings_taken'))} readings "
                    f"over {f.get('transport', 'tcp')}, reliability {num(f.get('reliability'))}, "
                    f"latency {num(f.get('latency_mean_ms'))} ms"
                    + (f", {num(f.get('retransmissions'))} retx" if "retransmissions" in f else ""))
        else:       # a flow type this table does not know yet: its numbers, not its JSON
            what = ", ".join(f"{k} {num(v)}" for k, v in f.items()
                             if k not in ("id", "type", "src", "dst", "hops", "complete")
                             and isinstance(v, (int, float)) and not isinstance(v, bool))
        done = f.get("complete")
        rows.append([str(f.get("id")), t, f"{f.get('src')} -> {f.get('dst')}", num(f.get("hops")),
                     "-" if done is None or timed else ("yes" if done else "no"), what])
    text = render(["flow", "type", "path", "hops", "done", "result"], rows, right={3})
    tot = result.get("totals", {})
    text += (f"\n\n{result.get('nodes')} nodes, {num(result.get('sim_time_s'))} s simulated, "
             f"{num(result.get('events'))} events; frames sent {num(tot.get('frames_tx'))}, "
             f"collided {num(tot.get('frames_collided'))}, corrupted {num(tot.get('frames_corrupted'))}, "
             f"link retries {num(tot.get('link_retries'))}, energy {num(tot.get('energy_j'))} J")
    if "cpu_duty_cycle_mean" in tot:    # the CPU account beside the radio's (TCPlp Table 8)
        text += (f"\nduty cycle (mean over nodes): radio {100 * tot.get('duty_cycle_mean', 0):.3g} %, "
                 f"CPU {100 * tot['cpu_duty_cycle_mean']:.3g} %; energy: radio "
                 f"{num(tot.get('energy_mj'))} mJ, CPU {num(tot.get('cpu_energy_mj'))} mJ")
    for v in result.get("services", []):
        counts = (f"{num(v.get('datagrams'))} datagrams echoed" if v.get("type") == "udp_echo" else
                  f"{num(v.get('accepted'))} connections"
                  + (f", {num(v.get('requests'))} requests" if v.get("type") == "http" else ""))
        text += f"\nservice {v.get('type')} on node {v.get('node')} port {v.get('port')}: {counts}"
    b = result.get("border")
    if b:
        text += (f"\nborder router node {b.get('node')} on {b.get('type')} '{b.get('device')}': "
                 f"{num(b.get('frames_from_host'))} frames from the host, "
                 f"{num(b.get('frames_to_host'))} to it")
    for e in result.get("scenario_events", []):
        what = {"node_down": f"node {e.get('node')} down", "node_up": f"node {e.get('node')} up",
                "link": f"link {e.get('node')}-{e.get('to')} prr {num(e.get('prr'))}",
                "move": f"node {e.get('node')} to ({num(e.get('x'))}, {num(e.get('y'))})"
                }.get(e.get("type"), str(e.get("type")))
        text += f"\nat {num(e.get('at_s'))} s {what}"
        if not e.get("applied", True):
            text += ": not reached"
            continue
        for w in e.get("flows", []):
            if "stall_s" in w:
                r = w.get("resumed_after_s")
                text += (f"; flow {w.get('flow')} stalled {num(w.get('stall_s'))} s, "
                         + (f"resumed after {num(r)} s" if r is not None else "never resumed")
                         + f", {num(w.get('rto_timeouts'))} RTOs")
            elif "lost" in w:
                text += f"; flow {w.get('flow')} lost {num(w.get('lost'))}/{num(w.get('sent'))}"
    rt = result.get("realtime")
    if rt:
        text += (f"\nrealtime: {num(rt.get('wall_s'))} wall s at speed {num(rt.get('speed'))}, "
                 f"max lag {num(rt.get('max_lag_ms'))} ms, {num(rt.get('late_events'))} events "
                 f"more than 1 ms late" + (", ended by a signal" if rt.get("stopped_by_signal") else ""))
    return text


def sweep_table(summary: JsonObj, metrics: list[str] | None = None) -> str:
    """One row per point: the varied parameters, the run count, and each
    metric as mean ± 95 % CI half-width."""
    names = {n for p in summary["points"] for n in p["metrics"]}
    asked, origin = (metrics, "--metric") if metrics else (summary.get("table") or [], "sweep.table")
    for m in asked:
        if m not in names:
            near = difflib.get_close_matches(m, sorted(names), n=5, cutoff=0.6)
            near += sorted(n for n in names if m.split(".")[-1] in n and n not in near)
            raise UsageError(f"{origin} {m}: no such metric in this sweep"
                             + (f"; similar: {', '.join(near[:8])}" if near else
                                "; `moteip metrics DIR` lists them"))
    cols = asked or default_metrics(names)
    keys = list(summary["vary"])
    rows = []
    for p in summary["points"]:
        rows.append([num(p["params"][k]) for k in keys] + [str(p["runs"])] +
                    [mean_ci(p["metrics"].get(c)) for c in cols])
    return render(keys + ["runs"] + cols, rows, right=set(range(len(keys) + 1 + len(cols))))
