"""uIP and lwIP against a delayed-ACK receiver (Dunkels, Full TCP/IP for
8-Bit Architectures, MobiSys 2003, seeds/002, sections 8.2-8.3): the
throughput formula p = s / (t + t_d) and the throughput-vs-send-window
figures 4, 5 and 7 (docs/results.md, "uIP")."""
from __future__ import annotations

import pathlib
from typing import Any

from ..jsontypes import JsonObj
from ..plot import pyplot
from ..table import mean_ci, num
from . import Arms, Experiment, Report, metric, point, register

UIP_SOURCE = "Dunkels, Full TCP/IP for 8-Bit Architectures (MobiSys 2003, seeds/002)"
#: section 8.2: s = 1000 bytes, t = 40 ms, t_d = 200 ms -> 4166 B/s; no delayed ACK: 25000 B/s
PAPER_EXAMPLE = {"s": 1000, "t_ms": 40.0, "td_ms": 200.0, "p": 4166.0, "p_nodelack": 25000.0}
DELACKS = [0, 100, 200, 500]


def _bps(p: JsonObj | None) -> JsonObj | None:
    s = metric(p, "flows[0].goodput_bps") if p else None
    if not s:
        return None
    return {**s, "mean": s["mean"] / 8, "ci95": s["ci95"] / 8 if s["ci95"] is not None else None}


def delack_report(summary: JsonObj) -> Report:
    sc = summary["scenario_data"]
    s_bytes = sc["flows"][0]["mss"]
    base = _bps(point(summary, **{"flows[0].receiver.delack_ms": 0}))
    t_ms = s_bytes / base["mean"] * 1e3 if base else None
    rows = []
    for td in summary["vary"]["flows[0].receiver.delack_ms"]:
        p = _bps(point(summary, **{"flows[0].receiver.delack_ms": td}))
        formula = s_bytes / ((t_ms + td) / 1e3) if t_ms else None
        rows.append([str(td), mean_ci(p), num(formula), num(p["mean"] / formula, 3) if p and formula else "-",
                     num(s_bytes / ((PAPER_EXAMPLE["t_ms"] + td) / 1e3))])
    notes = [f"{UIP_SOURCE}, section 8.2: p = s / (t + t_d), one segment in flight against a "
             f"receiver that delays its ACK t_d; the paper's example: s = 1000 B, t = 40 ms, "
             f"t_d = 200 ms: {num(PAPER_EXAMPLE['p'])} B/s, {num(PAPER_EXAMPLE['p_nodelack'])} B/s "
             f"without the delayed ACK (last column: the formula with t = 40 ms).",
             f"Here: s = {s_bytes} B over one 802.15.4 hop (6LoWPAN, 10 fragments), t = "
             f"{num(t_ms)} ms measured as s / p at t_d = 0 (the paper's t came from its Ethernet "
             f"and a 10 ms Dummynet delay). 'formula': s / (t + t_d) with that t."]
    return Report(["t_d (ms)", "measured p (B/s)", "formula (B/s)", "ratio", "paper's t (B/s)"],
                  rows, notes)


register(Experiment(
    name="uip-delack",
    title="uIP's throughput against a delayed-ACK receiver: p = s / (t + t_d)",
    source=UIP_SOURCE + ", section 8.2 (formula)",
    scenario="uip.toml",
    runs=3,
    vary={"flows[0].receiver.delack_ms": DELACKS},
    report=delack_report,
))


# --- uip-window: Figs. 4, 5 (uIP) and 7 (lwIP) ------------------------------------------------

UIP_SEGMENTS = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200]
LWIP_WINDOWS = [200, 400, 600, 800, 1000, 1200, 1600, 2000]
LWIP_MSS = 400


def _window_arms() -> Arms:
    arms: Arms = []
    for td in (0, 200):
        for s in UIP_SEGMENTS:
            arms.append((f"uip/delack{td}/{s}", {"flows[0].mss": s, "flows[0].tx_buffer": s,
                                                  "flows[0].receiver.delack_ms": td}))
    for w in LWIP_WINDOWS:
        arms.append((f"lwip/delack200/{w}", {"flows[0].mss": LWIP_MSS, "flows[0].tx_buffer": w,
                                              "flows[0].sender": {"profile": "full", "sack": False,
                                                                  "timestamps": False},
                                              "flows[0].receiver.delack_ms": 200}))
    return arms


def window_report(summary: JsonObj) -> Report:
    rows = []
    for arm in summary["vary"]["arm"]:
        stack, td, win = arm.split("/")
        p = point(summary, arm=arm)
        rows.append([stack, td[len("delack"):], win, mean_ci(_bps(p))])
    notes = [f"{UIP_SOURCE}, section 8.3, Figs. 4 and 5: uIP's throughput grows with its send "
             "window (one segment in flight, so the window is the segment) and a delayed-ACK "
             "receiver holds it far down; Fig. 7: lwIP with a window of more than two segments "
             "'is able to send out two TCP segments per round-trip time and thereby avoids the "
             "delayed acknowledgments throughput degradation'. The figures' values are not in the "
             "text (and came from Ethernet).",
             f"Here: one 802.15.4 hop; uip: the tiny profile with an MSS of the window; lwip: a "
             f"full-profile sender, MSS {LWIP_MSS} (5 fragments), send buffer = window, no SACK or "
             "timestamps. Above three such segments the MAC's 16-frame queue overflows "
             "(fragments dropped, segments resent): a limit of this radio stack, not the paper's. "
             "Plot: throughput-vs-window.png."]
    return Report(["stack", "t_d (ms)", "send window (B)", "throughput (B/s)"], rows, notes)


def window_figures(summary: JsonObj, out: pathlib.Path) -> list[str]:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    series: dict[str, list[Any]] = {}
    for arm in summary["vary"]["arm"]:
        stack, td, win = arm.split("/")
        s = _bps(point(summary, arm=arm))
        if s:
            series.setdefault(f"{stack}, t_d = {td[len('delack'):]} ms", []).append(
                (int(win), s["mean"], s["ci95"] or 0.0))
    for label, pts in series.items():
        pts.sort()
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts],
                    marker="o", capsize=3, label=label)
    ax.axvline(2 * LWIP_MSS, color="grey", lw=0.6, ls="--", label="two lwip segments")
    ax.set_xlabel("send window (bytes)")
    ax.set_ylabel("throughput (B/s)")
    ax.set_title("uip-window: [Dunkels 2003] Figs. 4, 5, 7 over one 802.15.4 hop", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "throughput-vs-window.png"
    fig.savefig(path)
    plt.close(fig)
    return [str(path)]


register(Experiment(
    name="uip-window",
    title="uIP and lwIP throughput vs send window, with and without delayed ACKs",
    source=UIP_SOURCE + ", section 8.3, Figs. 4, 5, 7",
    scenario="uip.toml",
    runs=3,
    vary={},
    arms=_window_arms(),
    report=window_report,
    figures=window_figures,
))
