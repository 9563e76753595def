"""In-network TCP support experiments (docs/RELAY.md, docs/results.md)."""
from __future__ import annotations

from ..table import mean_ci, num
from . import Experiment, PlotSpec, Report, metric, point, register

# --- tss-table1 --------------------------------------------------------------------------

TSS_BERS = [0, 1e-6, 1e-5, 1e-4]
#: Table 1 of the TSS paper, totals over 100 runs divided by 100 (per run).
TSS_TABLE1 = {
    "tcp": {"segments": [10676.0, 10810.9, 11970.01, 34999.74],
            "acks": [10010.0, 10030.15, 10193.95, 12177.39],
            "total": [20686.0, 20841.05, 22163.96, 47177.13],
            "e2e": [333.0, 344.94, 459.91, 4747.76],
            "throughput": [1955, 1811, 831, 7]},
    "tss-backpressure": {"segments": [10020.61, 10168.29, 10584.86, 12315.01],
                         "acks": [10016.0, 10004.67, 10028.87, 10753.84],
                         "total": [20036.61, 20172.96, 20613.73, 23068.85],
                         "e2e": [0.0, 1.46, 2.33, 15.52],
                         "throughput": [4997, 4412, 2969, 465]},
    "tss-cwnd3": {"segments": [10020.61, 10116.93, 10468.49, 12007.17],
                  "acks": [10016.0, 10032.1, 10152.97, 10922.03],
                  "total": [20036.61, 20149.03, 20621.46, 22929.2],
                  "e2e": [0.0, 1.99, 4.17, 19.09],
                  "throughput": [4997, 4309, 2626, 288]},
}
TSS_OPTIMAL_SEGMENTS = [10015.0, 10029.19, 10157.82, 11538.52]

_ROWS = [("segments", "transmitted TCP segments", "totals.tcp_data_frames_tx"),
         ("acks", "transmitted TCP ACKs", "totals.tcp_ack_frames_tx"),
         ("total", "total packets", None),
         ("e2e", "e2e retransmissions", "flows[0].e2e_retransmissions"),
         ("throughput", "throughput (b/s)", "flows[0].goodput_bps")]


def _total(p: dict) -> dict | None:
    a, b = metric(p, "totals.tcp_data_frames_tx"), metric(p, "totals.tcp_ack_frames_tx")
    if not a or not b:
        return None
    # the two counts come from the same runs: the CI of the sum is not the sum of CIs,
    # so only the mean is shown
    return {"n": a["n"], "mean": a["mean"] + b["mean"], "ci95": None}


def tss_report(summary: dict) -> Report:
    rows = []
    arms = summary["vary"]["arm"]
    for arm in arms:
        for key, label, name in _ROWS:
            cells = []
            for i, ber in enumerate(TSS_BERS):
                p = point(summary, arm=arm, medium__ber=ber)
                s = (_total(p) if name is None else metric(p, name)) if p else None
                cells.append(f"{mean_ci(s)} ({num(TSS_TABLE1[arm][key][i])})")
            rows.append([arm, label] + cells)
    rows.append(["optimal", "transmitted TCP segments", *[f"({num(v)})" for v in TSS_OPTIMAL_SEGMENTS]])
    missing = [a for a in TSS_TABLE1 if a not in arms]
    notes = ["Cells: moteip-sim mean ± 95 % CI (the paper's Table 1 value per run, its 100-run "
             "totals divided by 100). Segment and ACK counts are transmissions on the air, "
             "every hop and every retransmission included."]
    if missing:
        notes.append("Not run: " + ", ".join(missing) + ".")
    return Report(["configuration", "metric"] + [f"BER {num(b)}" for b in TSS_BERS], rows, notes)


register(Experiment(
    name="tss-table1",
    title="TSS Table 1: TCP with and without TSS on an 11-node chain (100 kb/s CSMA, no link ACKs)",
    source="Braun, Voigt, Dunkels, TCP Support for Sensor Networks, section IV, Table 1",
    scenario="tss-table1.toml",
    runs=100,
    report=tss_report,
    arms=[("tcp", {"relay.mode": "off"}),
          ("tss-backpressure", {"relay.mode": "tss", "flows[0].sender.cwnd_hold_backlog": 3}),
          ("tss-cwnd3", {"relay.mode": "tss", "flows[0].sender.cwnd_cap": 3})],
    plots=[PlotSpec("throughput-vs-ber.png", "medium.ber", "flows[0].goodput_bps", hue="arm",
                    logx=True, ylabel="throughput (b/s)"),
           PlotSpec("segments-vs-ber.png", "medium.ber", "totals.tcp_data_frames_tx", hue="arm",
                    logx=True, ylabel="transmitted TCP segments")],
))
