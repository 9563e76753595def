"""The TSS paper's figures 7-13 and the sensitivity of Table 1 to the values
the paper leaves open (docs/results.md, "TSS").

[T] IV.A: "For local rtt measurements, overhearing time evaluation, and
congestion control considerations we performed a single simulation run with
medium bit error rate" (1e-5), with "TSS with backpressure in the end point".
Each figure here runs that configuration (examples/tss-table1.toml) over
several seeds, the table gives mean ± 95 % CI and the plots show the first
seed (the paper's single run) or all of them pooled. The -ackrel arm adds
the forwarding rule the paper leaves open (relay.ack_release, docs/RELAY.md).
"""
from __future__ import annotations

import math
import pathlib
from types import ModuleType

from ..jsontypes import JsonObj
from ..plot import pyplot
from ..stats import summarize
from ..table import mean_ci, num
from . import Arms, Experiment, Report, mean, metric, point, raw_results, register
from .relay import TSS_ARMS, TSS_BERS, TSS_PAPER_ARM, TSS_SOURCE, TSS_TABLE1, tss_metrics

FIG_BER = 1e-5
_ARMS: dict[str, JsonObj] = dict(TSS_ARMS)
FIG_ARMS: Arms = [("tss-backpressure", {**_ARMS["tss-backpressure"], "medium.ber": FIG_BER}),
            ("tss-backpressure-ackrel", {**_ARMS["tss-backpressure-ackrel"], "medium.ber": FIG_BER})]


def airtimes_ms(sc: JsonObj) -> tuple[float, float]:
    """(data frame, ACK frame) airtime in ms on the scenario's chain: IPv4 +
    TCP (40 bytes) + the link header (+ the payload for data), at its bit rate."""
    bitrate = sc["phy"]["bitrate"]
    phy = sc["phy"].get("phy_header_bytes", 6)
    hdr = sc["link"]["header_bytes"]
    data = (phy + hdr + 40 + sc["flows"][0]["segment_bytes"]) * 8 / bitrate * 1e3
    ack = (phy + hdr + 40) * 8 / bitrate * 1e3
    return data, ack


def _plt() -> ModuleType:
    return pyplot()


def _paper_node(ours: int, nodes: int) -> int:
    """[T] numbers the chain from the receiver (node 0) to the sender (node
    10); ours from the sender (node 0)."""
    return nodes - 1 - ours


# --- tss-rtt: Figs. 7-10 -----------------------------------------------------------------

def rtt_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    """Per node, the mean and the coefficient of variation of its rtt estimate
    (the EWMA its RTO is 1.5 times), over every change of it in the run."""
    by: dict[int, list[float]] = {}
    for _t, node, rtt in result.get("records", {}).get("relay_rtt", []):
        by.setdefault(node, []).append(rtt)
    m = {}
    for node, v in by.items():
        mean = sum(v) / len(v)
        sd = math.sqrt(sum((x - mean) ** 2 for x in v) / len(v))
        m[f"rtt_mean_ms.node{node}"] = mean
        m[f"rtt_cv.node{node}"] = sd / mean if mean else 0.0
    m.update(tss_metrics(result, params))
    return m


def rtt_report(summary: JsonObj) -> Report:
    sc = summary["scenario_data"]
    nodes = sc["topology"]["nodes"]
    t_data, t_ack = airtimes_ms(sc)
    arms = summary["vary"]["arm"]
    rows = []
    for i in range(nodes - 1):
        hops = nodes - 1 - i
        cells = [str(_paper_node(i, nodes)), str(i), num(hops * (t_data + t_ack))]
        for arm in arms:
            p = point(summary, arm=arm)
            cells.append(mean_ci(metric(p, f"rtt_mean_ms.node{i}")) if p else "-")
            cells.append(mean_ci(metric(p, f"rtt_cv.node{i}")) if p else "-")
        rows.append(cells)
    heads = ["paper node", "our node", "idle path rtt (ms)"]
    for arm in arms:
        heads += [f"{arm} rtt (ms)", f"{arm} rtt CV"]
    notes = [f"[T] Fig. 7: the average rtt (the estimate the RTO is 1.5 times) falls towards the "
             f"destination; Figs. 8-10: at nodes 1, 5, 9 it stays 'rather close to an average "
             f"value' despite a few spikes (values only in the figures). BER {num(FIG_BER)}, "
             f"TSS with backpressure in the end point.",
             f"idle path rtt: (hops to the destination) x (data frame {t_data:.2f} ms + ACK "
             f"{t_ack:.2f} ms), nothing waiting. rtt CV: standard deviation / mean of the "
             f"estimate over the run. Plots: fig7-rtt-per-node.png (all seeds), "
             f"fig8-10-rtt-over-time.png (seed 1, paper nodes 1, 5, 9)."]
    return Report(heads, rows, notes)


def rtt_figures(summary: JsonObj, out: pathlib.Path) -> list[str]:
    plt = _plt()
    sc = summary["scenario_data"]
    nodes = sc["topology"]["nodes"]
    arms = summary["vary"]["arm"]
    paths = []
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for arm in arms:
        p = point(summary, arm=arm)
        xs, ys, es = [], [], []
        for i in range(nodes - 1):
            s = metric(p, f"rtt_mean_ms.node{i}") if p else None
            if s:
                xs.append(_paper_node(i, nodes))
                ys.append(s["mean"])
                es.append(s["ci95"] or 0.0)
        ax.errorbar(xs, ys, yerr=es, marker="o", capsize=3, label=arm)
    ax.set_xlabel("node ([T]'s numbering: 0 = destination, 10 = source)")
    ax.set_ylabel("average rtt estimate (ms)")
    ax.set_title(f"tss-rtt: [T] Fig. 7, BER {num(FIG_BER)}", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(out / "fig7-rtt-per-node.png")
    fig.savefig(paths[-1])
    plt.close(fig)

    runs = raw_results(out, arms[0])
    if runs:
        _seed, res = runs[0]
        fig, axes = plt.subplots(3, 1, figsize=(6.4, 7.0), dpi=120, sharex=True)
        for ax, paper in zip(axes, (1, 5, 9), strict=True):
            ours = nodes - 1 - paper
            pts = [(t / 1e3, v) for t, n, v in res.get("records", {}).get("relay_rtt", []) if n == ours]
            if pts:
                ax.plot([t for t, _ in pts], [v for _, v in pts], lw=0.8)
            ax.set_ylabel("rtt (ms)")
            ax.set_title(f"[T] node {paper} (ours {ours})", fontsize=9)
            ax.grid(True, alpha=0.3)
        axes[-1].set_xlabel("time (s)")
        fig.suptitle(f"tss-rtt: [T] Figs. 8-10, {arms[0]}, seed {_seed}", fontsize=10)
        fig.tight_layout()
        paths.append(out / "fig8-10-rtt-over-time.png")
        fig.savefig(paths[-1])
        plt.close(fig)
    return [str(p) for p in paths]


register(Experiment(
    name="tss-rtt",
    title="TSS rtt per node and over time ([T] Figs. 7-10)",
    source=TSS_SOURCE + ", section IV.B.3, Figs. 7-10",
    scenario="tss-table1.toml",
    runs=10,
    vary={"record.relay_rtt": [True]},
    arms=FIG_ARMS,
    metrics_fn=rtt_metrics,
    report=rtt_report,
    figures=rtt_figures,
))


# --- tss-overhearing: Fig. 11 --------------------------------------------------------------

#: [T] IV.B.4 at node 5: "in 97 % of the cases, the packet is overheard after
#: approximately 28 ms ... the time values go up to 280 ms, but in average a
#: node must store the packet 33.5 ms only"
HOLD_PAPER = {"share_near_min": 0.97, "mean_ms": 33.5, "max_ms": 280.0}
HOLD_NODE = 5


def _holds(result: JsonObj, node: int) -> list[tuple[float, str]]:
    return [(ms, how) for n, ms, how in result.get("records", {}).get("cache_hold", []) if n == node]


def hold_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    holds = _holds(result, HOLD_NODE)
    m: JsonObj = {}
    if holds:
        v = sorted(ms for ms, _ in holds)
        m["hold_n"] = len(v)
        m["hold_mean_ms"] = sum(v) / len(v)
        m["hold_max_ms"] = v[-1]
        m["hold_p97_ms"] = v[min(len(v) - 1, int(math.ceil(0.97 * len(v))) - 1)]
        m["hold_timeouts"] = sum(1 for _, how in holds if how == "timeout")
    m.update(tss_metrics(result, params))
    return m


def _near_min(result: JsonObj, limit_ms: float) -> float | None:
    holds = _holds(result, HOLD_NODE)
    return sum(1 for ms, _ in holds if ms <= limit_ms) / len(holds) if holds else None


def hold_report(summary: JsonObj) -> Report:
    sc = summary["scenario_data"]
    t_data, _ = airtimes_ms(sc)
    floor = 2 * t_data
    limit = floor + 1.0
    rows = []
    for arm in summary["vary"]["arm"]:
        p = point(summary, arm=arm)
        shares = [x for x in (_near_min(r, limit) for _s, r in raw_results(summary["out"], arm))
                  if x is not None]
        share = summarize(shares) if shares else None
        rows.append([arm, mean_ci(metric(p, "hold_n")), mean_ci(share),
                     mean_ci(metric(p, "hold_mean_ms")), mean_ci(metric(p, "hold_p97_ms")),
                     mean_ci(metric(p, "hold_max_ms")), mean_ci(metric(p, "hold_timeouts"))])
    rows.append(["paper (one run)", "-", num(HOLD_PAPER["share_near_min"]), num(HOLD_PAPER["mean_ms"]),
                 "~28", num(HOLD_PAPER["max_ms"]), "-"])
    notes = [f"Node {HOLD_NODE} (the middle of the chain, [T]'s node 5), BER {num(FIG_BER)}: the time "
             f"a segment stays cached after this node sends it, until the next hop is heard "
             f"forwarding it, a TCP ACK covers it or its timer runs out (then the next wait "
             f"starts). At least two frames: {floor:.2f} ms ({t_data:.2f} ms each, no backoff). "
             f"'near the minimum': at most {limit:.2f} ms.",
             "Plot: fig11-hold-cdf.png, the CDF over all seeds and for seed 1."]
    return Report(["arm", "holds", "share near the minimum", "mean (ms)", "97th percentile (ms)",
                   "max (ms)", "timer ran out"], rows, notes)


def hold_figures(summary: JsonObj, out: pathlib.Path) -> list[str]:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for arm in summary["vary"]["arm"]:
        runs = raw_results(out, arm)
        allv = sorted(ms for _s, r in runs for ms, _ in _holds(r, HOLD_NODE))
        if allv:
            ax.step(allv, [(k + 1) / len(allv) for k in range(len(allv))], where="post",
                    label=f"{arm} ({len(runs)} seeds)")
        if runs:
            one = sorted(ms for ms, _ in _holds(runs[0][1], HOLD_NODE))
            if one:
                ax.step(one, [(k + 1) / len(one) for k in range(len(one))], where="post", lw=0.7,
                        ls=":", label=f"{arm}, seed {runs[0][0]}")
    t_data, _ = airtimes_ms(summary["scenario_data"])
    ax.axvline(2 * t_data, color="k", lw=0.6, ls="--", label="two frames")
    ax.axhline(HOLD_PAPER["share_near_min"], color="grey", lw=0.6, ls="-.", label="[T]: 97 %")
    ax.set_xscale("log")
    ax.set_xlabel(f"hold time at node {HOLD_NODE} (ms)")
    ax.set_ylabel("cumulative share")
    ax.set_title(f"tss-overhearing: [T] Fig. 11, BER {num(FIG_BER)}", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "fig11-hold-cdf.png"
    fig.savefig(path)
    plt.close(fig)
    return [str(path)]


register(Experiment(
    name="tss-overhearing",
    title="TSS overhearing time: how long a segment waits in a cache ([T] Fig. 11)",
    source=TSS_SOURCE + ", section IV.B.4, Fig. 11",
    scenario="tss-table1.toml",
    runs=10,
    vary={"record.cache_hold": [True]},
    arms=FIG_ARMS,
    metrics_fn=hold_metrics,
    report=hold_report,
    figures=hold_figures,
))


# --- tss-inflight: Figs. 12-13 --------------------------------------------------------------

#: [T] IV.B.5: mean packets in flight on the 11-node and the 21-node chain
INFLIGHT_PAPER = {11: 1.4, 21: 2.5}


def inflight_report(summary: JsonObj) -> Report:
    rows = []
    for nodes in summary["vary"]["topology.nodes"]:
        for arm in summary["vary"]["arm"]:
            p = point(summary, arm=arm, topology__nodes=nodes)
            rows.append([str(nodes), str(nodes - 1), arm,
                         mean_ci(metric(p, "flows[0].in_flight.mean")) if p else "-",
                         num(INFLIGHT_PAPER.get(nodes)), num((nodes - 1) / 4),
                         mean_ci(metric(p, "flows[0].goodput_bps")) if p else "-"])
    notes = ["[T] IV.B.5: 'after each segment has been sent', how many segments have not yet "
             "arrived at the receiver; means 1.4 (11 nodes) and 2.5 (21 nodes), 'in most cases "
             "lower than h/4'. Here: each time the source puts a new segment on the air, the "
             "segments it sent that the receiver has not delivered, the new one included. "
             f"BER {num(FIG_BER)}.",
             "Plot: fig12-13-in-flight.png, the share of each count over all seeds."]
    return Report(["nodes", "hops", "arm", "mean in flight", "paper", "h/4", "throughput (b/s)"],
                  rows, notes)


def inflight_figures(summary: JsonObj, out: pathlib.Path) -> list[str]:
    plt = _plt()
    sizes = summary["vary"]["topology.nodes"]
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.4 * len(sizes) / 1.5, 4.0), dpi=120)
    if len(sizes) == 1:
        axes = [axes]
    arms = summary["vary"]["arm"]
    width = 0.8 / max(1, len(arms))
    for ax, nodes in zip(axes, sizes, strict=True):
        for k, arm in enumerate(arms):
            hist: list[int] = []
            for _s, r in raw_results(out, arm, topology__nodes=nodes):
                h = r["flows"][0].get("in_flight", {}).get("hist", [])
                hist += [0] * (len(h) - len(hist))
                for i, c in enumerate(h):
                    hist[i] += c
            total = sum(hist)
            if total:
                ax.bar([i + k * width for i in range(len(hist))], [c / total for c in hist],
                       width=width, label=arm)
        ax.set_title(f"[T] Fig. {12 if nodes == 11 else 13}: {nodes} nodes (paper mean "
                     f"{num(INFLIGHT_PAPER.get(nodes))})", fontsize=9)
        ax.set_xlabel("segments in flight")
        ax.set_ylabel("share")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "fig12-13-in-flight.png"
    fig.savefig(path)
    plt.close(fig)
    return [str(path)]


register(Experiment(
    name="tss-inflight",
    title="TSS segments in flight on 11- and 21-node chains ([T] Figs. 12-13)",
    source=TSS_SOURCE + ", section IV.B.5, Figs. 12-13",
    scenario="tss-table1.toml",
    runs=10,
    vary={"topology.nodes": [11, 21], "record.in_flight": [True]},
    arms=FIG_ARMS,
    metrics_fn=tss_metrics,
    report=inflight_report,
    figures=inflight_figures,
))


# --- tss-sensitivity: the values [T] leaves open ---------------------------------------------

#: Each variant changes the Table 1 scenario where the paper is open or could be read two
#: ways (docs/results.md lists the reasoning); "relay": whether it matters only with TSS.
SENS_VARIANTS: list[tuple[str, JsonObj, bool]] = [
    ("main", {}, False),
    ("tau 14.16 ms (the whole 1416-bit segment)", {"phy.backoff_us": 14160}, False),
    ("backoff before sensing, whole periods", {"mac.sense_first": False,
                                               "mac.continuous_backoff": False}, False),
    ("backoff before sensing, to the us", {"mac.sense_first": False}, False),
    ("sense first, whole periods", {"mac.continuous_backoff": False}, False),
    ("interference 1 hop (SNR 10 dB, path loss exponent >= 3.3)",
     {"medium.interference_range_m": 300}, False),
    ("interference 3 hops (SNR 10 dB, exponent 2)", {"medium.interference_range_m": 700}, False),
    ("overheard frame counts only when whole", {"medium.overhear_header_bytes": 0}, True),
    ("forward_delayed 0 ms", {"relay.forward_delay_ms": 0}, True),
    ("forward_delayed 15 ms", {"relay.forward_delay_ms": 15}, True),
    ("forward_delayed 45 ms", {"relay.forward_delay_ms": 45}, True),
    ("forward_delayed 60 ms", {"relay.forward_delay_ms": 60}, True),
    ("forward_delayed 100 ms", {"relay.forward_delay_ms": 100}, True),
]
SENS_BERS = [0, 1e-5]
SENS_CONFIGS = ["tcp", "tss-backpressure", "tss-cwnd3", "tss-backpressure-ackrel"]


def _sens_arms() -> Arms:
    arms: Arms = []
    for vi, (_label, keys, relay_only) in enumerate(SENS_VARIANTS):
        for cfg in SENS_CONFIGS:
            if relay_only and cfg == "tcp":
                continue
            if "relay.forward_delay_ms" in keys and cfg.endswith("ackrel"):
                continue            # the ACK releases: no delay to vary
            arms.append((f"v{vi}:{cfg}", {**_ARMS[cfg], **keys}))
    return arms


def sens_report(summary: JsonObj) -> Report:
    rows = []
    for vi, (label, _keys, _r) in enumerate(SENS_VARIANTS):
        for cfg in SENS_CONFIGS:
            arm = f"v{vi}:{cfg}"
            if arm not in summary["vary"]["arm"]:
                continue
            cells = [label if cfg == SENS_CONFIGS[0] or (vi and SENS_VARIANTS[vi][2] and
                                                         cfg == "tss-backpressure") else "", cfg]
            for ber in SENS_BERS:
                p = point(summary, arm=arm, medium__ber=ber)
                data, acks = mean(p, "totals.tcp_data_frames_tx"), mean(p, "totals.tcp_ack_frames_tx")
                tot = data + acks if data is not None and acks is not None else None
                cells += [mean_ci(metric(p, "flows[0].goodput_bps")) if p else "-", num(tot),
                          mean_ci(metric(p, "flows[0].e2e_retransmissions")) if p else "-",
                          mean_ci(metric(p, "totals.frames_collided")) if p else "-"]
            rows.append(cells)
    heads = ["variant", "configuration"]
    for ber in SENS_BERS:
        heads += [f"b/s (BER {num(ber)})", "packets", "e2e", "collided"]
    notes = ["Each variant is the Table 1 scenario (examples/tss-table1.toml, the 'main' rows) "
             "with one open value changed; packets = data + ACK transmissions (means); collided = "
             "receptions lost to collisions, all nodes. Paper at BER 0 / 1e-5: TCP 1955 / 831 b/s, "
             "20686 / 22164 packets; TSS backpressure 4997 / 2969 b/s, 20037 / 20614 packets; "
             "cwnd 3 4997 / 2626 b/s."]
    return Report(heads, rows, notes)


#: the interference settings of the sensitivity figure: (variant index, label),
#: the derived one (main: 500 m, two hops) between the two others
SENS_INTERFERENCE = [(5, "1 hop (300 m)"), (0, "2 hops (500 m, derived)"),
                     (6, "3 hops (700 m)")]


def sens_figures(summary: JsonObj, out: pathlib.Path) -> list[str]:
    """The figure of what the interference range decides: packets and
    throughput of the four configurations under each setting, at each BER,
    the paper's values dashed (Table 1 has one setting, unstated)."""
    plt = pyplot()
    fig, axes = plt.subplots(2, len(SENS_BERS), figsize=(10.0, 6.4), dpi=120, squeeze=False)
    width = 0.8 / len(SENS_CONFIGS)
    for col, ber in enumerate(SENS_BERS):
        bi = TSS_BERS.index(ber)
        for row, (what, paper_key) in enumerate((("packets", "total"), ("b/s", "throughput"))):
            ax = axes[row][col]
            for k, cfg in enumerate(SENS_CONFIGS):
                ys, es = [], []
                for vi, _label in SENS_INTERFERENCE:
                    p = point(summary, arm=f"v{vi}:{cfg}", medium__ber=ber)
                    if what == "packets":
                        d, a = mean(p, "totals.tcp_data_frames_tx"), mean(p, "totals.tcp_ack_frames_tx")
                        ys.append(d + a if d is not None and a is not None else 0.0)
                        es.append(0.0)
                    else:
                        c = metric(p, "flows[0].goodput_bps") or {}
                        ys.append(c.get("mean") or 0.0)
                        es.append(c.get("ci95") or 0.0)
                xs = [i + (k - (len(SENS_CONFIGS) - 1) / 2) * width
                      for i in range(len(SENS_INTERFERENCE))]
                bars = ax.bar(xs, ys, width=width, yerr=es, capsize=2, label=cfg)
                paper = TSS_TABLE1[TSS_PAPER_ARM[cfg]][paper_key][bi]
                ax.hlines(paper, min(xs) - width / 2, max(xs) + width / 2,
                          colors=bars.patches[0].get_facecolor(), linestyles="dashed", lw=0.8)
            ax.set_xticks(range(len(SENS_INTERFERENCE)))
            ax.set_xticklabels([lab for _, lab in SENS_INTERFERENCE], fontsize=8)
            ax.set_ylabel(what)
            ax.set_title(f"BER {num(ber)}: {what}", fontsize=9)
            ax.grid(True, alpha=0.3, axis="y")
            if what == "packets":
                ax.set_ylim(bottom=15000)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("tss-sensitivity: the interference range decides Table 1's conclusions "
                 "(dashed: [T]'s value)", fontsize=10)
    fig.tight_layout()
    path = out / "interference.png"
    fig.savefig(path)
    plt.close(fig)
    return [str(path)]


register(Experiment(
    name="tss-sensitivity",
    title="TSS Table 1 against the values the paper leaves open (tau, CSMA reading, "
          "interference, overhearing, forward delay)",
    source=TSS_SOURCE + ", section IV.A (setup), "
           "Table 1",
    scenario="tss-table1.toml",
    runs=10,
    vary={"medium.ber": SENS_BERS},
    arms=_sens_arms(),
    metrics_fn=tss_metrics,
    report=sens_report,
    figures=sens_figures,
))
