"""DTC beyond the paper's one example ([D] section 9.6.2): the grid of path
lengths and loss rates behind its "factor of four to eight", and Fig. 9.3,
the load on every node of the path (docs/results.md, "DTC")."""
from __future__ import annotations

import pathlib

from ..jsontypes import JsonObj
from ..plot import pyplot
from ..table import mean_ci, num
from . import Arms, Experiment, Report, mean, metric, point, register
from .relay import DTC_SOURCE, dtc_metrics

#: [D] 9.6.2: "For path lengths between 5 and 10 hops and packet loss rates between
#: 5% and 15%, the number of retransmissions that the TCP sender has to perform
#: decreases by a factor of four to eight."
GRID_HOPS = [5, 6, 7, 8, 9, 10]
GRID_LOSS = [0.05, 0.10, 0.15]
PAPER_FACTOR = (4.0, 8.0)


def loss_model(p: float, scaled: bool) -> JsonObj:
    """medium.frame_loss for a data loss rate p. scaled: ACKs and link ACKs
    keep the example's ratios to it (10 % / 5 % / 2 %); else every packet p."""
    if scaled:
        return {"tcp_data": p, "tcp_ack": round(p / 2, 6), "link_ack": round(p / 5, 6)}
    return {"tcp_data": p, "tcp_ack": p, "link_ack": p}


GRID_ARMS: Arms = [("tcp", {"relay.mode": "off"}), ("dtc", {"relay.mode": "dtc"})]


def _grid_vary(scaled: bool) -> JsonObj:
    return {"topology.nodes": [h + 1 for h in GRID_HOPS],
            "medium.frame_loss": [loss_model(p, scaled) for p in GRID_LOSS]}


def grid_report(summary: JsonObj) -> Report:
    rows = []
    factors = []
    loss = summary["vary"]["medium.frame_loss"][0]
    scaled = loss["tcp_ack"] != loss["tcp_data"]
    for fl in summary["vary"]["medium.frame_loss"]:
        for nodes in summary["vary"]["topology.nodes"]:
            t = point(summary, arm="tcp", topology__nodes=nodes, medium__frame_loss=fl)
            d = point(summary, arm="dtc", topology__nodes=nodes, medium__frame_loss=fl)
            te = metric(t, "flows[0].e2e_retransmissions") if t else None
            de = metric(d, "flows[0].e2e_retransmissions") if d else None
            f = te["mean"] / de["mean"] if te and de and de["mean"] else None
            if f is not None:
                factors.append(f)
            rows.append([f"{fl['tcp_data']:.0%}", str(nodes - 1), mean_ci(te), mean_ci(de), num(f, 3),
                         mean_ci(metric(d, "relay_local_rexmits")) if d else "-"])
    lo = min(factors) if factors else None
    hi = max(factors) if factors else None
    notes = [f"{DTC_SOURCE}: 'a factor of four to eight' over 5-10 hops and 5-15 % loss; the "
             "grid itself is not published.",
             "Loss model: medium.frame_loss per reception, " +
             ("TCP ACKs at half and link ACKs at a fifth of the data loss (the example's "
              "10 % / 5 % / 2 %)" if scaled else "every packet (data, TCP ACK, link ACK) at the "
              "same rate") + "; the rest as examples/dtc.toml (CSMA-CA, one link retry, one "
             "segment in flight, 500 segments).",
             f"Factor = TCP's source retransmissions / DTC's: here {num(lo, 3)} to {num(hi, 3)} "
             f"(paper: {PAPER_FACTOR[0]:g} to {PAPER_FACTOR[1]:g})."]
    return Report(["data loss", "hops", "TCP e2e retransmissions", "DTC e2e retransmissions",
                   "factor", "DTC local rexmits"], rows, notes)


def grid_figures(summary: JsonObj, out: pathlib.Path) -> list[str]:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for fl in summary["vary"]["medium.frame_loss"]:
        xs, ys = [], []
        for nodes in summary["vary"]["topology.nodes"]:
            t = point(summary, arm="tcp", topology__nodes=nodes, medium__frame_loss=fl)
            d = point(summary, arm="dtc", topology__nodes=nodes, medium__frame_loss=fl)
            te = metric(t, "flows[0].e2e_retransmissions") if t else None
            de = metric(d, "flows[0].e2e_retransmissions") if d else None
            if te and de and de["mean"]:
                xs.append(nodes - 1)
                ys.append(te["mean"] / de["mean"])
        ax.plot(xs, ys, marker="o", label=f"data loss {fl['tcp_data']:.0%}")
    ax.axhspan(*PAPER_FACTOR, color="grey", alpha=0.2, label="[D]: 4 to 8")
    ax.set_xlabel("hops")
    ax.set_ylabel("TCP / DTC source retransmissions")
    ax.set_title("dtc-grid: the factor behind [D] 9.6.2", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "factor-vs-hops.png"
    fig.savefig(path)
    plt.close(fig)
    return [str(path)]


for _name, _scaled, _what in (("dtc-grid", True, "ACK losses scaled with the data loss"),
                              ("dtc-grid-uniform", False, "every packet at the same loss")):
    register(Experiment(
        name=_name,
        title=f"DTC over 5-10 hops x 5-15 % loss: the factor of source retransmissions ({_what})",
        source=f"{DTC_SOURCE}, section 9.6.2 (text)",
        scenario="dtc.toml",
        runs=30,
        vary=_grid_vary(_scaled),
        arms=GRID_ARMS,
        metrics_fn=dtc_metrics,
        report=grid_report,
        figures=grid_figures,
    ))


# --- dtc-load: Fig. 9.3 -------------------------------------------------------------------------

LOAD_ARMS: Arms = [("tcp", {"relay.mode": "off"}), ("dtc", {"relay.mode": "dtc"}),
             ("dtc-ours", {"relay.mode": "dtc", "relay.endpoints": True, "relay.ack_repair": True})]


def load_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    m = {f"node{n['id']}.frames_tx": n["frames_tx"] for n in result["node_stats"]}
    m.update({f"node{n['id']}.data_tx": n["tcp_data_frames_tx"] for n in result["node_stats"]})
    m.update(dtc_metrics(result, params))
    return m


def load_report(summary: JsonObj) -> Report:
    arms = summary["vary"]["arm"]
    nodes = summary["scenario_data"]["topology"]["nodes"]
    rows = []
    for i in range(nodes):
        cells = [str(i)]
        base = None
        for arm in arms:
            p = point(summary, arm=arm)
            s = metric(p, f"node{i}.frames_tx") if p else None
            cells.append(mean_ci(s))
            if arm == "tcp" and s:
                base = s["mean"]
            elif s and base:
                cells.append(f"{100.0 * (s['mean'] / base - 1):+.1f} %")
        rows.append(cells)
    heads = ["node"]
    for arm in arms:
        heads.append(f"{arm} frames")
        if arm != "tcp":
            heads.append("vs tcp")
    notes = [f"{DTC_SOURCE}, Fig. 9.3 'DTC load reduction close to sender': every frame each "
             "node sent (data, TCP ACKs, link ACKs, retries) on the 10-hop example of "
             "examples/dtc.toml (10 % / 5 % / 2 % loss); node 0 is the TCP sender (the sink in "
             "[D]'s scenario), node 10 the receiver. The figure's values are not in the text.",
             "Plot: load-per-node.png."]
    return Report(heads, rows, notes)


def load_figures(summary: JsonObj, out: pathlib.Path) -> list[str]:
    plt = pyplot()
    arms = summary["vary"]["arm"]
    nodes = summary["scenario_data"]["topology"]["nodes"]
    fig, ax = plt.subplots(figsize=(7.0, 4.2), dpi=120)
    width = 0.8 / len(arms)
    for k, arm in enumerate(arms):
        p = point(summary, arm=arm)
        ys = [mean(p, f"node{i}.frames_tx") or 0 for i in range(nodes)]
        es = [(metric(p, f"node{i}.frames_tx") or {}).get("ci95") or 0 for i in range(nodes)] if p else None
        ax.bar([i + k * width for i in range(nodes)], ys, width=width, yerr=es, capsize=2, label=arm)
    ax.set_xlabel("node (0 = TCP sender)")
    ax.set_ylabel("frames sent")
    ax.set_title("dtc-load: [D] Fig. 9.3, load per node", fontsize=10)
    ax.grid(True, alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "load-per-node.png"
    fig.savefig(path)
    plt.close(fig)
    return [str(path)]


register(Experiment(
    name="dtc-load",
    title="DTC: frames sent by every node of the 10-hop path ([D] Fig. 9.3)",
    source=f"{DTC_SOURCE}, section 9.6.2, Fig. 9.3",
    scenario="dtc.toml",
    runs=30,
    arms=LOAD_ARMS,
    metrics_fn=load_metrics,
    report=load_report,
    figures=load_figures,
))



# --- dtc-cause: why the factor is 2.8-3.1 at 5 hops ----------------------------------------------

#: (label, keys the arm sets, what the model lets through, the tcp arm its
#: factor is against): `dtc` whether relays repair data lost on hops 2..n,
#: `first` whether the sender's own node repairs its first hop
#: (relay.endpoints), `acks` whether a lost TCP ACK is repaired where it was
#: lost (relay.ack_repair), `no_ack_loss` whether TCP ACKs are never lost
_NO_ACK_LOSS = {"tcp_data": 0.10, "tcp_ack": 0.0, "link_ack": 0.02}
_NO_LINK_ACK_LOSS = {"tcp_data": 0.10, "tcp_ack": 0.05, "link_ack": 0.0}
_CC2420 = {"platform": "cc2420"}
CAUSE_ARMS: list[tuple[str, JsonObj, dict[str, bool], str | None]] = [
    ("tcp", {"relay.mode": "off"}, {}, None),
    ("dtc", {"relay.mode": "dtc"}, {"dtc": True}, "tcp"),
    ("tcp-no-ack-loss", {"relay.mode": "off", "medium.frame_loss": _NO_ACK_LOSS},
     {"no_ack_loss": True}, None),
    ("dtc-no-ack-loss", {"relay.mode": "dtc", "medium.frame_loss": _NO_ACK_LOSS},
     {"dtc": True, "no_ack_loss": True}, "tcp-no-ack-loss"),
    ("dtc-endpoints", {"relay.mode": "dtc", "relay.endpoints": True}, {"dtc": True, "first": True},
     "tcp"),
    ("dtc-ack-repair", {"relay.mode": "dtc", "relay.ack_repair": True}, {"dtc": True, "acks": True},
     "tcp"),
    ("dtc-ours", {"relay.mode": "dtc", "relay.endpoints": True, "relay.ack_repair": True},
     {"dtc": True, "first": True, "acks": True}, "tcp"),
    # ack_repair_wait: a repair waits for new data, which says the ACK arrived
    ("dtc-ack-repair-wait", {"relay.mode": "dtc", "relay.ack_repair": True,
                             "relay.ack_repair_wait": True}, {"dtc": True, "acks": True}, "tcp"),
    ("dtc-ours-wait", {"relay.mode": "dtc", "relay.endpoints": True, "relay.ack_repair": True,
                       "relay.ack_repair_wait": True},
     {"dtc": True, "first": True, "acks": True}, "tcp"),
    # dtc and dtc-ack-repair with no link ACK lost: a repair of an ACK that
    # arrived (its link ACK lost) is a duplicate upstream
    ("dtc-no-link-ack-loss", {"relay.mode": "dtc", "medium.frame_loss": _NO_LINK_ACK_LOSS},
     {"dtc": True}, None),
    ("dtc-ack-repair-no-link-ack-loss", {"relay.mode": "dtc", "relay.ack_repair": True,
                                         "medium.frame_loss": _NO_LINK_ACK_LOSS},
     {"dtc": True, "acks": True}, None),
    # the same pair on the TelosB platform (CC2420 timing, SPI and CPU time per
    # frame, drifting clocks; docs/SIMULATOR.md): the paper names no radio
    ("tcp-cc2420", {"relay.mode": "off", **_CC2420}, {}, None),
    ("dtc-cc2420", {"relay.mode": "dtc", **_CC2420}, {"dtc": True}, "tcp-cc2420"),
]
CAUSE_HOPS = [5, 10]


def predicted_e2e(hops: int, loss: JsonObj, retries: int, segments: int,
                  how: dict[str, bool]) -> float:
    """The sender's expected retransmissions with one segment in flight: an
    attempt succeeds when no hop loses the data for good (all 1 + retries
    copies, q_d = p_data^(1+retries)) where nobody repairs it, and no hop
    loses the ACK for good (q_a) where nobody repairs it; the sender repeats
    until one succeeds: segments * (1/P - 1). Leaves out link-ACK losses
    (a frame delivered but reported lost) and collisions."""
    qd = float(loss["tcp_data"]) ** (1 + retries)
    qa = 0.0 if how.get("no_ack_loss") else float(loss["tcp_ack"]) ** (1 + retries)
    data_hops = 0 if how.get("dtc") and how.get("first") else 1 if how.get("dtc") else hops
    ack_hops = 0 if how.get("acks") else hops
    p = (1 - qd) ** data_hops * (1 - qa) ** ack_hops
    return segments * (1 / p - 1)


def cause_report(summary: JsonObj) -> Report:
    sd = summary["scenario_data"]
    loss, retries = sd["medium"]["frame_loss"], sd["mac"]["max_retries"]
    segments = sd["flows"][0]["segments"]
    rows = []
    for nodes in summary["vary"]["topology.nodes"]:
        base: dict[str, float] = {}
        for label, fixed, how, ref in CAUSE_ARMS:
            p = point(summary, arm=label, topology__nodes=nodes)
            e = metric(p, "flows[0].e2e_retransmissions") if p else None
            arm_loss = fixed.get("medium.frame_loss", loss)
            pred = predicted_e2e(nodes - 1, arm_loss, retries, segments, how)
            if ref is None and e:
                base[label] = e["mean"]
            b = base.get(ref) if ref else None
            f = b / e["mean"] if b and e and e["mean"] else None
            rows.append([str(nodes - 1), label, mean_ci(e), num(pred, 3), num(f, 3),
                         mean_ci(metric(p, "relay_local_rexmits")) if p else "-"])
    notes = [f"{DTC_SOURCE}: 'a factor of four to eight' over 5-10 hops; 51 -> 6 at 10 hops.",
             "examples/dtc.toml (10 % data / 5 % TCP ACK / 2 % link-ACK loss per reception, "
             "CSMA-CA with one link retry, one segment in flight, 500 segments, RTO >= 1 s) at 5 "
             "and 10 hops. -no-ack-loss: TCP ACKs never lost (data and link ACKs as before); "
             "-endpoints: relay.endpoints (the sender's own node caches its segments); "
             "-ack-repair: relay.ack_repair (a TCP ACK the link layer reports lost is sent again "
             "by the node that lost it); -ours: both; -no-link-ack-loss: no link ACK lost "
             "(no factor: its tcp arm is not run); -cc2420: the TelosB platform (CC2420 "
             "timing, bus and CPU time per frame, drifting clocks).",
             "model: segments * (1/P - 1), P = (1 - q_d)^(data hops nobody repairs) * "
             "(1 - q_a)^(ACK hops nobody repairs), q = p^(1 + retries): q_d = 0.01, q_a = "
             "0.0025 (no link-ACK losses, no collisions). factor: tcp / the arm (against "
             "tcp-no-ack-loss and tcp-cc2420 for their dtc arms)."]
    return Report(["hops", "arm", "e2e retransmissions", "model", "factor", "local rexmits"],
                  rows, notes)


register(Experiment(
    name="dtc-cause",
    title="DTC at 5 and 10 hops: what the sender still retransmits (first hop, lost ACKs)",
    source=f"{DTC_SOURCE}, section 9.6.2 (text)",
    scenario="dtc.toml",
    runs=30,
    vary={"topology.nodes": [h + 1 for h in CAUSE_HOPS]},
    arms=[(label, fixed) for label, fixed, _, _ in CAUSE_ARMS],
    metrics_fn=dtc_metrics,
    report=cause_report,
))
