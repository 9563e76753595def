"""The simulator's physics checks as experiments (docs/SIMULATOR.md,
"Physics checks"): measured against analytic values and TCPlp's testbed."""
from __future__ import annotations

from ..table import mean_ci, num
from . import Experiment, PlotSpec, Report, metric, points_by, register

# --- per-ber: packet error rate vs bit error rate -------------------------------------

PER_BITS = 8 * 84  # the 84-byte MPDU of a 64-byte UDP report (docs/SIMULATOR.md)


def per_metrics(result: dict, params: dict) -> dict:
    tx = result["node_stats"][0]["frames_tx"]
    rx = result["node_stats"][1]["frames_rx"]
    return {"per": (tx - rx) / tx if tx else 0.0, "frames": tx, "mpdu_bytes":
            result["node_stats"][0]["tx_s"] * 250000 / 8 / tx - 6 if tx else 0.0}


def per_report(summary: dict) -> Report:
    rows = []
    for ber, p in sorted(points_by(summary, "medium.ber").items()):
        exp = 1 - (1 - ber) ** PER_BITS
        s = metric(p, "per")
        frames = metric(p, "frames")
        total = frames["mean"] * frames["n"] if frames else 0
        sigma = (exp * (1 - exp) / total) ** 0.5 if total else 0
        dev = (s["mean"] - exp) / sigma if sigma and s else None
        rows.append([num(ber), f"{exp:.4f}", mean_ci(s), num(metric(p, "mpdu_bytes")["mean"]),
                     "-" if dev is None else f"{dev:+.2f}"])
    return Report(["BER", "PER = 1-(1-BER)^672", "measured PER", "MPDU bytes", "(mean-PER)/σ"], rows,
                  ["NullMAC, two nodes in range, 2000 UDP reports of 64 bytes per run: every frame "
                   "is 84 bytes (672 bits), so the loss must follow the binomial. σ is the standard "
                   "error of the mean over all runs' frames."])


register(Experiment(
    name="per-ber",
    title="Packet error rate vs bit error rate (the BER overlay against the binomial)",
    source="analytic: PER = 1 - (1 - BER)^bits",
    scenario="per-ber.toml",
    runs=4,
    metrics_fn=per_metrics,
    report=per_report,
    plots=[PlotSpec("per-vs-ber.png", "medium.ber", "per", logx=True, ylabel="packet error rate",
                    reference_label="1 - (1 - BER)^672",
                    reference=lambda s: {b: 1 - (1 - b) ** PER_BITS for b in s["vary"]["medium.ber"]})],
))


# --- tcp-1hop: single-hop goodput against the serialised-airtime bound ----------------

BOUND_BPS = 115_360  # docs/SIMULATOR.md, physics check 2


def one_hop_report(summary: dict) -> Report:
    p = summary["points"][0]
    g = metric(p, "flows[0].goodput_bps")
    return Report(["goodput b/s", "analytic bound b/s", "ratio", "link retries", "RTOs"],
                  [[mean_ci(g), num(BOUND_BPS), num(g["mean"] / BOUND_BPS, 3) if g else "-",
                    mean_ci(metric(p, "totals.link_retries")),
                    mean_ci(metric(p, "flows[0].rto_timeouts"))]],
                  ["The bound serialises every frame's backoff, CCA, turnarounds, PPDU and link "
                   "ACK: (160 five-frame segments + 160 TCP ACKs + handshake) = 5.41 s for 78,080 "
                   "bytes. Collisions between the next fragment and the TCP ACK cost the rest."])


register(Experiment(
    name="tcp-1hop",
    title="Single-hop TCP goodput vs the serialised-airtime bound",
    source="analytic (docs/SIMULATOR.md, physics check 2)",
    scenario="tcp-1hop.toml",
    runs=6,
    report=one_hop_report,
))


# --- hidden-terminals: delay between link retries (TCPlp section 7.1) -----------------

def hidden_metrics(result: dict, params: dict) -> dict:
    sent = sum(f["sent"] for f in result["flows"])
    recv = sum(f["received"] for f in result["flows"])
    return {"delivery": recv / sent if sent else 0.0,
            "collided_at_sink": result["node_stats"][1]["frames_collided"]}


def hidden_report(summary: dict) -> Report:
    rows = []
    for d, p in sorted(points_by(summary, "mac.retry_delay_max_us").items()):
        rows.append([f"{d / 1000:g} ms", mean_ci(metric(p, "delivery")),
                     mean_ci(metric(p, "collided_at_sink")), mean_ci(metric(p, "totals.link_noack")),
                     mean_ci(metric(p, "totals.link_retries"))])
    return Report(["max retry delay", "delivery", "collisions at sink", "link no-ACK", "link retries"],
                  rows, ["TCPlp section 7.1: without a delay the retries of two hidden senders "
                         "collide again; a random delay of tens of ms before each retry separates "
                         "them. TCPlp shows this for TCP on OpenThread (its figure 6b); here two "
                         "UDP senders hidden from each other send to the node between them."])


register(Experiment(
    name="hidden-terminals",
    title="Hidden terminals and the random delay between link retries (TCPlp section 7.1)",
    source="Kumar et al., TCPlp, NSDI 2020, section 7.1",
    scenario="hidden-terminals.toml",
    runs=3,
    metrics_fn=hidden_metrics,
    report=hidden_report,
))
