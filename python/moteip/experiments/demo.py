"""The README demo: TCP over a 10-hop chain at several bit error rates."""
from __future__ import annotations

from ..jsontypes import JsonObj
from ..table import mean_ci, num
from . import Experiment, PlotSpec, Report, metric, register

FRAME_BITS = 127 * 8  # a full 802.15.4 frame, FCS included


def report(summary: JsonObj) -> Report:
    rows = []
    for p in summary["points"]:
        ber = p["params"]["medium.ber"]
        done = metric(p, "flows[0].complete")
        rows.append([num(ber), p["params"].get("flows[0].sender.profile", "full"),
                     f"{1 - (1 - ber) ** FRAME_BITS:.3f}",
                     mean_ci(metric(p, "flows[0].goodput_bps")),
                     f"{num(done['mean'] * done['n'])}/{done['n']}" if done else "-",
                     mean_ci(metric(p, "flows[0].e2e_retransmissions")),
                     mean_ci(metric(p, "flows[0].rto_timeouts")),
                     mean_ci(metric(p, "totals.link_retries")),
                     mean_ci(metric(p, "totals.frames_corrupted"))])
    return Report(["BER", "sender", "P(127 B frame hit)", "goodput b/s", "complete", "e2e retx", "RTOs",
                   "link retries", "frames corrupted"], rows,
                  ["Every delivered byte is checked against the pattern at the receiver. Link "
                   "retries absorb most bit errors; end-to-end retransmissions and RTOs grow when "
                   "a frame fails all 4 attempts. The tiny (uIP-class) sender keeps one segment "
                   "in flight, so each segment pays a whole 10-hop round trip: full-scale TCP's "
                   "window is what makes it faster (TCPlp's argument)."])


register(Experiment(
    name="chain-ber",
    title="TCP goodput across 10 lossy 802.15.4 hops vs bit error rate (the README demo)",
    source="moteip demo (setup as TCPlp section 7: CSMA-CA, link retries with a random delay)",
    scenario="chain10-ber.toml",
    runs=5,
    report=report,
    plots=[PlotSpec("goodput-vs-ber.png", "medium.ber", "flows[0].goodput_bps",
                    hue="flows[0].sender.profile", logx=True, ylabel="goodput (b/s)"),
           PlotSpec("retransmissions-vs-ber.png", "medium.ber", "flows[0].e2e_retransmissions",
                    hue="flows[0].sender.profile", logx=True, ylabel="end-to-end retransmissions")],
))
