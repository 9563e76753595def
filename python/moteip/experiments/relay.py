"""In-network TCP support experiments (docs/RELAY.md, docs/results.md)."""
from __future__ import annotations

import math

from ..jsontypes import JsonObj
from ..table import mean_ci, num, render
from . import Arms, Experiment, PlotSpec, Report, metric, point, register

# --- tss-table1 --------------------------------------------------------------------------

TSS_SOURCE = "Braun, Voigt, Dunkels, TCP Support for Sensor Networks (WONS 2007, seeds/004)"
TSS_BERS = [0, 1e-6, 1e-5, 1e-4]
#: Table 1 of the TSS paper, totals over 100 runs divided by 100 (per run).
TSS_TABLE1: dict[str, dict[str, list[float]]] = {
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
#: The paper's "optimal" row, shown beside ours (which is computed, below).
TSS_OPTIMAL_PAPER = [10015.0, 10029.19, 10157.82, 11538.52]
#: Our arms and the paper configuration each one answers. The "-ackrel" arms
#: add the forwarding rule the paper leaves open, derived as the limit of its
#: forward_delayed (relay.ack_release, docs/RELAY.md): one segment on the path.
TSS_PAPER_ARM = {"tcp": "tcp", "tss-backpressure": "tss-backpressure", "tss-cwnd3": "tss-cwnd3",
                 "tss-backpressure-ackrel": "tss-backpressure", "tss-cwnd3-ackrel": "tss-cwnd3"}
_TSS_BP = {"relay.mode": "tss", "flows[0].sender.cwnd_hold_backlog": 3}
_TSS_C3 = {"relay.mode": "tss", "flows[0].sender.cwnd_cap": 3}
TSS_ARMS: Arms = [("tcp", {"relay.mode": "off"}),
            ("tss-backpressure", dict(_TSS_BP)),
            ("tss-cwnd3", dict(_TSS_C3)),
            ("tss-backpressure-ackrel", {**_TSS_BP, "relay.ack_release": True}),
            ("tss-cwnd3-ackrel", {**_TSS_C3, "relay.ack_release": True})]

#: TCP/IP header bytes of the chain's frames without payload: IPv4 20 + TCP
#: 20 (no SACK, no timestamps); a SYN carries 8 more (MSS, window scale).
TSS_IP_TCP = 40
TSS_SYN_OPTIONS = 8

_ROWS = [("segments", "transmitted TCP segments", "totals.tcp_data_frames_tx"),
         ("acks", "transmitted TCP ACKs", "totals.tcp_ack_frames_tx"),
         ("total", "total packets", None),
         ("e2e", "e2e retransmissions", "flows[0].e2e_retransmissions"),
         ("throughput", "throughput (b/s)", "flows[0].goodput_bps")]
#: rows that explain the others (no paper value)
_DIAG_ROWS = [("frames lost to collisions (all receivers)", "totals.frames_collided"),
              ("local retransmissions", "relay_local_rexmits"),
              ("ACKs recovered", "relay_acks_recovered")]


def tss_optimal(scenario: JsonObj, ber: float) -> JsonObj:
    """The paper's optimum, computed from the scenario's channel: every frame
    that must cross a hop is sent again on that hop only when bit errors
    lost it, so a frame of n bits costs 1 / (1 - PER) transmissions per hop,
    PER = 1 - (1 - BER)^n ([T] IV.B.1). Data: the segments and the two SYNs;
    ACKs: one per segment and the handshake's. Collisions are not counted
    (nor are they in the paper's row)."""
    nodes = scenario["topology"]["nodes"]
    hops = nodes - 1
    flow = scenario["flows"][0]
    hdr = scenario["link"]["header_bytes"]

    def per_hop(frame_bytes: int) -> float:
        return 1.0 / (1.0 - ber) ** (8 * frame_bytes)

    data = flow["segments"] * per_hop(flow["segment_bytes"] + TSS_IP_TCP + hdr)
    syns = 2 * per_hop(TSS_IP_TCP + TSS_SYN_OPTIONS + hdr)
    acks = (flow["segments"] + 1) * per_hop(TSS_IP_TCP + hdr)
    return {"segments": hops * (data + syns), "acks": hops * acks,
            "total": hops * (data + syns + acks),
            "data_bits": 8 * (flow["segment_bytes"] + TSS_IP_TCP + hdr)}


def tss_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    nodes = result["node_stats"]
    return {"relay_local_rexmits": sum(n.get("relay", {}).get("local_rexmits", 0) for n in nodes),
            "relay_acks_recovered": sum(n.get("relay", {}).get("acks_recovered", 0) for n in nodes)}


def _total(p: JsonObj) -> JsonObj | None:
    a, b = metric(p, "totals.tcp_data_frames_tx"), metric(p, "totals.tcp_ack_frames_tx")
    if not a or not b:
        return None
    # the two counts come from the same runs: the CI of the sum is not the sum of CIs,
    # so only the mean is shown
    return {"n": a["n"], "mean": a["mean"] + b["mean"], "ci95": None}


def _mean(summary: JsonObj, arm: str, ber: float, key: str) -> float | None:
    p = point(summary, arm=arm, medium__ber=ber)
    if p is None:
        return None
    name = {k: n for k, _, n in _ROWS}[key]
    s = _total(p) if name is None else metric(p, name)
    return s["mean"] if s else None


def tss_conclusions(summary: JsonObj) -> list[str]:
    """The paper's three conclusions that the table tests, each: holds here or not."""
    arms = summary["vary"]["arm"]
    bers = [b for b in TSS_BERS if point(summary, arm="tcp", medium__ber=b)]
    out = []
    for arm in [a for a in arms if a != "tcp"]:
        fewer = [b for b in bers if (_mean(summary, arm, b, "total") or 0) <
                 (_mean(summary, "tcp", b, "total") or 0)]
        faster = [b for b in bers if (_mean(summary, arm, b, "throughput") or 0) >
                  (_mean(summary, "tcp", b, "throughput") or 0)]
        out.append(f"{arm}: fewer packets than TCP at BER {', '.join(num(b) for b in fewer) or 'none'}; "
                   f"faster than TCP at BER {', '.join(num(b) for b in faster) or 'none'} "
                   f"(paper: both at every BER)")
    for bp, c3 in (("tss-backpressure", "tss-cwnd3"), ("tss-backpressure-ackrel", "tss-cwnd3-ackrel")):
        a, b = _mean(summary, bp, 1e-4, "throughput"), _mean(summary, c3, 1e-4, "throughput")
        if a is not None and b is not None:
            out.append(f"BER 1e-4: {bp} {num(a)} b/s vs {c3} {num(b)} b/s: backpressure "
                       f"{'faster' if a > b else 'not faster'} (paper: 465 vs 288, faster)")
    return out


def tss_report(summary: JsonObj) -> Report:
    rows = []
    arms = summary["vary"]["arm"]
    for arm in arms:
        paper = TSS_TABLE1[TSS_PAPER_ARM.get(arm, arm)] if TSS_PAPER_ARM.get(arm, arm) in TSS_TABLE1 else None
        for key, label, name in _ROWS:
            cells = []
            for i, ber in enumerate(TSS_BERS):
                p = point(summary, arm=arm, medium__ber=ber)
                s = (_total(p) if name is None else metric(p, name)) if p else None
                cells.append(f"{mean_ci(s)} ({num(paper[key][i])})" if paper else mean_ci(s))
            rows.append([arm, label] + cells)
        for label, name in _DIAG_ROWS:
            if arm == "tcp" and name.startswith("relay_"):
                continue
            cells = []
            for ber in TSS_BERS:
                p = point(summary, arm=arm, medium__ber=ber)
                cells.append(mean_ci(metric(p, name)) if p else "-")
            rows.append([arm, label] + cells)
    sc = summary.get("scenario_data")
    if sc is not None:
        opt = [tss_optimal(sc, b) for b in TSS_BERS]
        rows.append(["optimal", "transmitted TCP segments",
                     *[f"{num(o['segments'])} ({num(v)})"
                       for o, v in zip(opt, TSS_OPTIMAL_PAPER, strict=True)]])
        rows.append(["optimal (ours)", "transmitted TCP ACKs", *[num(o["acks"]) for o in opt]])
        rows.append(["optimal (ours)", "total packets", *[num(o["total"]) for o in opt]])
    missing = [a for a in TSS_TABLE1 if a not in arms]
    notes = ["Cells: moteip-sim mean ± 95 % CI (the paper's Table 1 value per run, its 100-run "
             "totals divided by 100; the -ackrel arms show the value of the paper's variant they "
             "add a rule to). Segment and ACK counts are transmissions on the air, every hop and "
             "every retransmission included.",
             "optimal: every frame resent only on the hop where bit errors lost it, "
             "N / (1 - PER), PER = 1 - (1 - BER)^n with n = the frame's bits, computed from the "
             "scenario (1416-bit segments, 480-bit SYNs, 416-bit ACKs; the paper's value in "
             "brackets); 'optimal (ours)' extends it to the ACKs.",
             "-ackrel: TSS with relay.ack_release, the limit of the paper's forward_delayed "
             "(a buffered segment waits for the TCP ACK of the one before: one segment on the "
             "path)."]
    notes += ["Conclusions: " + c for c in tss_conclusions(summary)]
    if missing:
        notes.append("Not run: " + ", ".join(missing) + ".")
    return Report(["configuration", "metric"] + [f"BER {num(b)}" for b in TSS_BERS], rows, notes)


register(Experiment(
    name="tss-table1",
    title="TSS Table 1: TCP with and without TSS on an 11-node chain (100 kb/s CSMA, no link ACKs)",
    source=TSS_SOURCE + ", section IV.B.1-2, Table 1 (setup IV.A)",
    scenario="tss-table1.toml",
    runs=100,
    report=tss_report,
    metrics_fn=tss_metrics,
    arms=TSS_ARMS,
    plots=[PlotSpec("throughput-vs-ber.png", "medium.ber", "flows[0].goodput_bps", hue="arm",
                    logx=True, ylabel="throughput (b/s)"),
           PlotSpec("segments-vs-ber.png", "medium.ber", "totals.tcp_data_frames_tx", hue="arm",
                    logx=True, ylabel="transmitted TCP segments")],
))


# --- dtc -------------------------------------------------------------------------------------

#: DTC's only evaluation among the seeds: Paper D of Dunkels' licentiate thesis.
DTC_SOURCE = ("Dunkels, Voigt, Alonso, Making TCP/IP Viable for Wireless Sensor Networks (EWSN 2004 "
              "work in progress; Paper D, chapter 9 of Dunkels' licentiate thesis, seeds/000)")

#: [D] section 9.6.2: 10 hops, 10 % / 5 % / 2 % loss, 500 packets, mean of 30 runs.
DTC_PAPER_E2E = {"tcp": 51.0, "dtc": 6.0}
#: nodes whose transmissions the report shows: the sender's end of the chain, where
#: [D] Fig. 9.3 shows DTC's load reduction
DTC_NEAR_SENDER = (0, 1, 2, 3)


_DTC_W4 = {"flows[0].sender.cwnd_cap": 0, "mac.retry_delay_max_us": 40000}
_DTC_OURS = {"relay.endpoints": True, "relay.ack_repair": True}


def dtc_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    """Per-node transmissions near the sender, and the relay's local
    retransmissions summed over the nodes."""
    nodes = result["node_stats"]
    m = {f"node_stats[{i}].frames_tx": nodes[i]["frames_tx"] for i in DTC_NEAR_SENDER}
    m["relay_local_rexmits"] = sum(n.get("relay", {}).get("local_rexmits", 0) for n in nodes)
    return m


def dtc_report(summary: JsonObj) -> Report:
    rows = []
    for arm in summary["vary"]["arm"]:
        p = point(summary, arm=arm)
        if p is None:
            continue
        cells = [arm, mean_ci(metric(p, "flows[0].e2e_retransmissions")),
                 num(DTC_PAPER_E2E.get(arm)), mean_ci(metric(p, "relay_local_rexmits")),
                 mean_ci(metric(p, "flows[0].segments_sent")),
                 mean_ci(metric(p, "flows[0].completion_time_s"))]
        cells += [mean_ci(metric(p, f"node_stats[{i}].frames_tx")) for i in DTC_NEAR_SENDER]
        cells.append(mean_ci(metric(p, "totals.frames_tx")))
        rows.append(cells)
    notes = [
        f"Paper: {DTC_SOURCE}, section 9.6.2: 51 source retransmissions without DTC, 6 with "
        "it (10 hops, 500 packets, 10 % data / 5 % ACK / 2 % link-ACK loss, mean of 30 runs); "
        "Fig. 9.3 (no values in the text): DTC lowers the load on the nodes near the sender.",
        "Loss model (examples/dtc.toml): medium.frame_loss per reception, 802.15.4 CSMA-CA with "
        "one link retry (docs/relay-papers.md 1(g) item 7): a data frame is lost on a hop with "
        "~0.1^2 = 1 %, 10 hops ~9.6 %: ~53 source retransmissions per 500 segments from data "
        "losses alone; lost TCP ACKs (0.05^2 per hop) add spurious ones.",
        "Every arm: the sender's RTO at least 1 s (rto_min_ms, RFC 2988/6298's floor; "
        "moteip's own is 300 ms).",
        "tcp, dtc, dtc-nosack: one segment in flight (examples/dtc.toml); tcp-w4, dtc-w4: a "
        "window of 4 segments and up to 40 ms random delay before each link retry.",
        "dtc-ours: DTC with our two switches, a relay on the end points' own segments "
        "(relay.endpoints) and lost ACKs sent again on a failed link report (relay.ack_repair). "
        "tcp-2-link-retries: no relay, a second link retry (a reference: another MAC).",
        "tcp-ipv6 / dtc-ipv6: the chain over IPv6 with 6LoWPAN IPHC and the simulator's "
        "routes; -rpl-ns / -rpl-s: the same over RPL, non-storing and storing (MRHOF, RFC 6550 "
        "defaults, root at the sender), the flow starting at 30 s.",
        "frames n0..n3: every frame the node sent (data, TCP ACKs, link ACKs, retries); "
        "local rexmits: the relay's local_rexmits summed over the nodes.",
    ]
    return Report(["arm", "e2e retransmissions", "paper", "local rexmits", "segments sent",
                   "completion (s)", "frames n0", "frames n1", "frames n2", "frames n3",
                   "frames (all nodes)"], rows, notes)


register(Experiment(
    name="dtc",
    title="DTC: source retransmissions on a 10-hop chain (10 % data, 5 % ACK, 2 % link-ACK loss)",
    source=f"{DTC_SOURCE}, section 9.6.2 (text)",
    scenario="dtc.toml",
    runs=30,
    report=dtc_report,
    metrics_fn=dtc_metrics,
    arms=[("tcp", {"relay.mode": "off"}),
          ("dtc", {"relay.mode": "dtc"}),
          ("dtc-nosack", {"relay.mode": "dtc", "relay.sack": False}),
          # a window of 4 segments (no cwnd cap) with TCPlp's random delay before link
          # retries (hidden terminals): DTC's ACK-driven recovery needs segments
          # behind the lost one
          ("tcp-w4", {"relay.mode": "off", **_DTC_W4}),
          ("dtc-w4", {"relay.mode": "dtc", **_DTC_W4}),
          # ours: DTC also on the end points' own segments and repairing ACKs
          # the link layer reports lost (docs/RELAY.md "DTC")
          ("dtc-ours", {"relay.mode": "dtc", **_DTC_OURS}),
          # a reference, not the paper's scenario: one more link retry, no relay
          ("tcp-2-link-retries", {"relay.mode": "off", "mac.max_retries": 2}),
          # issue 23: the same chain over IPv6/6LoWPAN, with the simulator's routes and
          # with RPL (rooted at node 0, the sender; the flow starts at 30 s, once the
          # chain has joined), so that routing is the only difference between pairs
          *[(f"{relay}-{arm}", {"relay.mode": "off" if relay == "tcp" else "dtc",
                                "link.mode": "iphc", "link.ip": "ipv6", **extra})
            for arm, extra in (("ipv6", {}),
                               ("rpl-ns", {"routing.type": "rpl", "routing.mode": "non-storing",
                                           "flows[0].start_s": 30}),
                               ("rpl-s", {"routing.type": "rpl", "routing.mode": "storing",
                                          "flows[0].start_s": 30}))
            for relay in ("tcp", "dtc")]],
))


# --- cctrl -----------------------------------------------------------------------------------

#: cctrl's evaluation: Buergi's master thesis.
CCTRL_SOURCE = ("Buergi, Performance Optimization for TCP-based Wireless Sensor Networks (MSc thesis, "
                "Bern 2011, seeds/001)")
CCTRL_HOPS = [2, 3, 4, 5, 6]
CCTRL_PAYLOAD = 16          # bytes per segment ([B] Table 5.1)

#: the client's flow of examples/cctrl.toml; the dual arms add a copy on port 5001
_CCTRL_FLOW = {"type": "tcp", "src": "last", "dst": 0, "duration_s": 600, "tx_buffer": 16,
               "sender": {"sack": False, "timestamps": False, "cwnd_cap": 1, "max_retries": 255},
               "receiver": {"profile": "tiny", "delayed_ack": False, "max_retries": 255}}
_CCTRL_DUAL = [{**_CCTRL_FLOW, "port": 5000}, {**_CCTRL_FLOW, "port": 5001}]
_KEEP = {"relay.mode": "cctrl", "relay.keep": True, "relay.max_local_rexmit": 3}

CCTRL_ARMS: Arms = [
    ("unmodified", {"relay.mode": "off"}),
    ("basic", {"relay.mode": "cctrl"}),
    ("keep", dict(_KEEP)),
    ("keep-drop", {**_KEEP, "relay.drop": True}),
    ("hop", {**_KEEP, "relay.hop": True}),
    ("activity", {**_KEEP, "relay.activity": True}),
    ("dual", {**_KEEP, "relay.activity": True, "flows": _CCTRL_DUAL}),
    ("dual-unmodified", {"relay.mode": "off", "flows": _CCTRL_DUAL}),
    # ours: the MAC's link reports used (a lost data frame resent at once, a lost
    # ACK repaired), single connection and dual
    ("keep-link", {**_KEEP, "relay.link": True, "relay.ack_repair": True}),
    ("dual-link", {**_KEEP, "relay.activity": True, "relay.link": True, "relay.ack_repair": True,
                   "flows": _CCTRL_DUAL}),
    # issue 23: unmodified and keep over IPv6/6LoWPAN IPHC with the simulator's routes
    # (ipv6-) and over RPL rooted at the server, node 0 (rpl-ns- non-storing, rpl-s-
    # storing; MRHOF, RFC 6550's defaults), so that routing is the only difference
    # between an ipv6- arm and its rpl- arms. The RPL flows start at 30 s, once the
    # chain has joined, and still last 600 s.
    *[(f"{arm}-{relay}", {**({"relay.mode": "off"} if relay == "unmodified" else _KEEP),
                          "link.mode": "iphc", "link.ip": "ipv6", **extra})
      for arm, extra in (("ipv6", {}),
                         ("rpl-ns", {"routing.type": "rpl", "routing.mode": "non-storing",
                                     "flows[0].start_s": 30, "duration_s": 630}),
                         ("rpl-s", {"routing.type": "rpl", "routing.mode": "storing",
                                    "flows[0].start_s": 30, "duration_s": 630}))
      for relay in ("unmodified", "keep")],
]


def cctrl_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    """[B]'s metrics (section 5.2): segments delivered in the run (all flows),
    retransmissions (end to end + local) per delivered segment, the client's
    RTT, and radio-on time per node and delivered segment."""
    nodes = result["node_stats"]
    tcp = [f for f in result["flows"] if f["type"] == "tcp"]
    # split and merge ([B] 4.5.1): a group's stream counts once, as merged in order
    merged = [f for f in tcp if "merge" in f]
    delivered = (sum(f["bytes_delivered"] for f in tcp if "merge" not in f)
                 + sum(f["merge"]["bytes_merged"] for f in merged if f["merge"]["index"] == 0)
                 ) / CCTRL_PAYLOAD
    client = tcp[0]["src"]
    # the client node's counter: flows of one node would each count all of it
    e2e = nodes[client].get("tcp", {}).get("rexmits", 0)
    local = sum(n.get("relay", {}).get("local_rexmits", 0) for n in nodes)
    radio_on = sum(n["radio_on_s"] for n in nodes)
    rtts = [f["srtt_ms"]["mean"] for f in tcp if f["srtt_ms"]["samples"] > 0]
    m = {"delivered_segments": delivered, "e2e_rexmits": e2e, "local_rexmits": local}
    if delivered > 0:
        m["rexmits_per_segment"] = (e2e + local) / delivered
        m["radio_on_ms_per_node_segment"] = 1000.0 * radio_on / (len(nodes) * delivered)
    if rtts:
        m["rtt_ms"] = sum(rtts) / len(rtts)
    return m


_CCTRL_ROWS = [("delivered_segments", "segments delivered in 600 s"),
               ("rexmits_per_segment", "retransmissions per segment (e2e + local)"),
               ("rtt_ms", "client RTT (ms, srtt mean)"),
               ("radio_on_ms_per_node_segment", "radio-on per node and segment (ms)")]

CCTRL_NOTES = [
    "Paper: Buergi, cctrl (docs/relay-papers.md 2(f)): TelosB testbed, NullMAC+CSMA; gives "
    "figures, not tables. Published numbers for NullMAC: keep raises throughput at all path "
    "lengths; drop has little effect (slight gain at 5-6 hops); hop is clearly lower than keep "
    "(most at 2-3 hops); activity is higher at 2-3 hops, lower on longer paths; dual almost "
    "x2 vs unmodified at all hop counts; best overall keep + activity + dual: +84 % segments "
    "(mean over 2-6 hops); basic: lower retransmissions per packet at 5 hops, RTT rising "
    "slightly faster with hops than unmodified.",
    "Ours: a chain (range = interference range = spacing), 802.15.4 CSMA-CA with link ACKs "
    "(one retry), medium.ber 2.5e-4 (79-byte data frame PER 14.6 %, 63-byte ACK 11.8 %), "
    "16-byte segments in 79-byte frames, one segment in flight, immediate ACKs; absolute "
    "throughput is not comparable (no uIP polling interval, no real channel).",
    "Platform: the IPv4 arms (unmodified .. dual-link) on cc2420 (TelosB, [B]'s mote: 192 us "
    "receiver start-up, 500 kb/s SPI per frame, clocks within +/-40 ppm; docs/SIMULATOR.md); "
    "any other arm (issue 23's ipv6-/rpl- arms) on the ideal radio it was made on.",
]


def _overall(summary: JsonObj, arm: str, name: str, **at: object) -> float | None:
    """[B]'s "overall" value: the mean of the per-hop means (at the point
    parameters `at` besides the path length, dots spelled __)."""
    vals = []
    for h in CCTRL_HOPS:
        p = point(summary, arm=arm, topology__nodes=h + 1, **at)
        s = metric(p, name) if p else None
        if not s or s.get("mean") is None:
            return None
        vals.append(s["mean"])
    return sum(vals) / len(vals)


#: the TelosB platform (docs/SIMULATOR.md "platform": CC2420 start-up, 500 kb/s SPI,
#: clocks within +/-40 ppm)
TELOSB = {"platform": "cc2420"}


def overall_ci(summary: JsonObj, arm: str, name: str, **at: object) -> tuple[float, float] | None:
    """[B]'s overall value (the mean of the per-hop means) and its 95 %
    interval: the runs of different path lengths are independent, so the
    half-widths add in quadrature, sqrt(sum ci_h^2) / H."""
    return mean_of_cells([metric(point(summary, arm=arm, topology__nodes=h + 1, **at), name)
                          for h in CCTRL_HOPS])


def mean_of_cells(cells: list[JsonObj | None]) -> tuple[float, float] | None:
    """The mean of per-hop summary cells and its 95 % interval (see
    overall_ci); None if a cell is missing."""
    ms, cs = [], []
    for s in cells:
        if not s or s.get("mean") is None:
            return None
        ms.append(s["mean"])
        cs.append(s.get("ci95") or 0.0)
    n = len(ms)
    return sum(ms) / n, (sum(c * c for c in cs) ** 0.5) / n


def gain_ci(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """The change a / b - 1 in % and its 95 % half-width (independent runs;
    first-order propagation of both intervals)."""
    g = a[0] / b[0]
    rel = ((a[1] / a[0]) ** 2 + (b[1] / b[0]) ** 2) ** 0.5
    return 100.0 * (g - 1.0), 100.0 * g * rel


def separated_hops(summary: JsonObj, arm: str, base: str, **at: object) -> tuple[list[int], list[int]]:
    """The path lengths where the arm's and the base's intervals do not
    overlap: (arm above, arm below)."""
    def cell(a: str, h: int) -> JsonObj | None:
        return metric(point(summary, arm=a, topology__nodes=h + 1, **at), "delivered_segments")
    return separated_cells([(h, cell(arm, h), cell(base, h)) for h in CCTRL_HOPS])


def separated_cells(pairs: list[tuple[int, JsonObj | None, JsonObj | None]]
                    ) -> tuple[list[int], list[int]]:
    """Of (hops, arm's cell, base's cell): the hop counts where the two 95 %
    intervals do not overlap, (arm above, arm below)."""
    above, below = [], []
    for h, a, b in pairs:
        if not a or not b or a.get("ci95") is None or b.get("ci95") is None:
            continue
        if a["mean"] - a["ci95"] > b["mean"] + b["ci95"]:
            above.append(h)
        elif a["mean"] + a["ci95"] < b["mean"] - b["ci95"]:
            below.append(h)
    return above, below


def _hops_text(above: list[int], below: list[int]) -> str:
    parts = []
    if above:
        parts.append("above at " + ",".join(map(str, above)))
    if below:
        parts.append("below at " + ",".join(map(str, below)))
    return "; ".join(parts) or "none"


#: [B]'s configurations and ours over IPv4, as [B] ran them: on the TelosB platform
#: (issue 25). The IPv6/RPL arms (issue 23) keep the ideal radio their table was made on.
CCTRL_TELOSB_ARMS = ("unmodified", "basic", "keep", "keep-drop", "hop", "activity", "dual",
                     "dual-unmodified", "keep-link", "dual-link")


def _cctrl_base(arm: str) -> str:
    """The arm a configuration's change is against: unmodified for [B]'s
    IPv4 arms, its own routing's unmodified arm for the others (ipv6-keep
    against ipv6-unmodified; an unmodified arm against itself: no change)."""
    if arm in CCTRL_TELOSB_ARMS:
        return "unmodified"
    head, _, tail = arm.rpartition("-")
    return f"{head}-unmodified" if tail == "keep" else arm


def cctrl_report(summary: JsonObj) -> Report:
    rows = []
    arms = summary["vary"]["arm"]
    for arm in arms:
        for name, label in _CCTRL_ROWS:
            cells = []
            for h in CCTRL_HOPS:
                p = point(summary, arm=arm, topology__nodes=h + 1)
                cells.append(mean_ci(metric(p, name)) if p else "-")
            ov = _overall(summary, arm, name)
            rows.append([arm, label] + cells + [num(ov)])
    notes = list(CCTRL_NOTES)
    base = _overall(summary, "unmodified", "delivered_segments") if "unmodified" in arms else None
    if base:
        gains = []
        for arm in arms:
            ov = _overall(summary, arm, "delivered_segments")
            if ov is not None and arm != "unmodified":
                gains.append(f"{arm} {100.0 * (ov / base - 1.0):+.0f} %")
        notes.append("Overall segments vs unmodified (mean over 2-6 hops): " + ", ".join(gains)
                     + " (paper, NullMAC: keep + activity + dual +84 %).")
    sep = []
    for arm in arms:
        b = _cctrl_base(arm)
        if arm == b or b not in arms:
            continue
        oa = overall_ci(summary, arm, "delivered_segments")
        ob = overall_ci(summary, b, "delivered_segments")
        if oa is None or ob is None:
            continue
        g, ci = gain_ci(oa, ob)
        sep.append([arm, b, f"{g:+.0f} ± {ci:.0f} %", _hops_text(*separated_hops(summary, arm, b))])
    if sep:
        notes += ["Change of segments against the same routing's unmodified arm, with its 95 % "
                  "interval (overall interval sqrt(sum ci^2) / 5, propagated to the ratio), and the "
                  "path lengths whose per-hop intervals separate:",
                  render(["configuration (change)", "against", "change", "hops separated"], sep)]
    return Report(["configuration", "metric"] + [f"{h} hops" for h in CCTRL_HOPS] + ["overall"],
                  rows, notes)


register(Experiment(
    name="cctrl",
    title="cctrl: TCP segments through 2..6 hops in 600 s with in-network caching (uIP-like ends)",
    source=CCTRL_SOURCE + ", section 5.3, Figs. 5.2-5.12 (values from the text)",
    scenario="cctrl.toml",
    runs=15,
    report=cctrl_report,
    metrics_fn=cctrl_metrics,
    vary={"topology.nodes": [h + 1 for h in CCTRL_HOPS]},
    # issue 25: the IPv4 arms on [B]'s TelosB platform (the ideal radio's table in
    # docs/results.md is commit ced9922's)
    arms=[(a, {**k, **TELOSB} if a in CCTRL_TELOSB_ARMS else k) for a, k in CCTRL_ARMS],
    plots=[PlotSpec("segments-vs-hops.png", "topology.nodes", "delivered_segments", hue="arm",
                    xlabel="nodes (hops + 1)", ylabel="segments delivered in 600 s")],
))


# --- cctrl-ber: the gain across the channel's bit error rate (issue 25) ------------------------

#: [B] reports no loss rate, no BER and no link retry count for its testbed (§5.2: 13
#: TelosB nodes over three floors; the only figure is §2.2's "for indoor WSNs packet
#: loss rates of more than 30 % on a single hop are not unusual", citing [5]): the
#: channel is swept instead, from none to a 79-byte frame lost 47 % of the time
CCTRL_BERS = [0.0, 1e-4, 2e-4, 2.5e-4, 5e-4, 1e-3]
#: the thesis's main comparison ([B] 5.3.1-5.3.6): unmodified against cctrl with the keep
#: extension (basic cctrl delivers within 1 % of it, section "cctrl") and its best, keep +
#: activity + dual
CCTRL_BER_CONFIGS = ("unmodified", "keep", "dual")
#: [B] chapter 6 / abstract: keep + activity + dual, mean over 2-6 hops, NullMAC
CCTRL_PAPER_GAIN = 84.0
#: bits of [B]'s data frame (Table 5.1: 79 bytes) and TCP ACK frame (63 bytes)
CCTRL_DATA_BITS = 8 * 79
CCTRL_ACK_BITS = 8 * 63


def per(ber: float, bits: int) -> float:
    """A frame's loss to bit errors: 1 - (1 - BER)^bits."""
    return 1.0 - (1.0 - ber) ** bits


def paper_gain_ber(gains: list[tuple[float, float, float]]) -> str:
    """Where [B]'s +84 % lies on the curve of (BER, gain %, ci): the BERs
    whose interval holds it and the crossing between neighbouring points,
    interpolated in log(1 + gain) (the gain grows about geometrically with
    the BER: unmodified TCP's throughput falls with each RTO back-off)."""
    inside = [num(b) for b, g, c in gains if abs(g - CCTRL_PAPER_GAIN) <= c]
    cross = []
    for (b0, g0, _), (b1, g1, _) in zip(gains, gains[1:], strict=False):
        if (g0 - CCTRL_PAPER_GAIN) * (g1 - CCTRL_PAPER_GAIN) < 0 and min(g0, g1) > -100:
            y0, y1 = math.log1p(g0 / 100), math.log1p(g1 / 100)
            x = b0 + (math.log1p(CCTRL_PAPER_GAIN / 100) - y0) * (b1 - b0) / (y1 - y0)
            cross.append(f"{num(x, 2)} (between {num(b0)} and {num(b1)})")
    return (f"+{CCTRL_PAPER_GAIN:.0f} % is crossed at BER " + (", ".join(cross) or "no BER swept")
            + "; inside the interval at BER " + (", ".join(inside) or "none"))


def cctrl_ber_report(summary: JsonObj) -> Report:
    bers = [b for b in summary["vary"]["medium.ber"]]
    arms = [a for a in CCTRL_BER_CONFIGS if a in summary["vary"]["arm"]]
    rows = []
    for ber in bers:
        base = overall_ci(summary, "unmodified", "delivered_segments", medium__ber=ber)
        for arm in arms:
            cells = [num(ber), f"{100 * per(ber, CCTRL_DATA_BITS):.1f} %", arm]
            for h in CCTRL_HOPS:
                p = point(summary, arm=arm, topology__nodes=h + 1, medium__ber=ber)
                cells.append(mean_ci(metric(p, "delivered_segments")))
            ov = overall_ci(summary, arm, "delivered_segments", medium__ber=ber)
            cells.append("-" if ov is None else f"{ov[0]:.0f} ± {ov[1]:.0f}")
            if arm == "unmodified" or ov is None or base is None:
                cells.append("-")
            else:
                g, c = gain_ci(ov, base)
                cells.append(f"{g:+.0f} ± {c:.0f} %")
            rows.append(cells)
    # the gains, where their intervals separate, and where [B]'s figure lies
    grows: list[list[str]] = []
    curves: dict[str, list[tuple[float, float, float]]] = {}
    for ber in bers:
        base = overall_ci(summary, "unmodified", "delivered_segments", medium__ber=ber)
        cells = [num(ber)]
        for arm in arms[1:]:
            ov = overall_ci(summary, arm, "delivered_segments", medium__ber=ber)
            if ov is None or base is None:
                cells += ["-", "-"]
                continue
            g, c = gain_ci(ov, base)
            curves.setdefault(arm, []).append((ber, g, c))
            cells.append(f"{g:+.0f} ± {c:.0f} %")
            cells.append(_hops_text(*separated_hops(summary, arm, "unmodified", medium__ber=ber)))
        grows.append(cells)
    gheaders = ["BER (gain)"]
    for arm in arms[1:]:
        gheaders += [f"{arm} vs unmodified", f"{arm}: hops separated"]
    notes = [
        f"{CCTRL_SOURCE}: [B] reports no channel figures (no BER, loss rate or link retry count "
        "for its three-floor TelosB testbed, section 5.2), so the channel is swept. Cells: "
        "segments delivered in 600 s (mean ± 95 % CI, 15 runs); overall = [B]'s summary, the "
        "mean of the per-hop means, its interval sqrt(sum ci^2) / 5; the change against "
        "unmodified with its interval propagated from both. PER: a 79-byte data frame's loss "
        "to bit errors (a 63-byte ACK loses a little less).",
        "Platform: cc2420 (TelosB: 192 us receiver start-up, 500 kb/s SPI per frame, clocks "
        "within +/-40 ppm; docs/SIMULATOR.md). Scenario examples/cctrl.toml otherwise: 802.15.4 "
        "CSMA-CA with link ACKs and one retry, radios always on (NullMAC), one 16-byte segment "
        "in flight. keep = cctrl with up to 3 local retransmissions of a cached segment (basic "
        "cctrl, one, delivers within 1 % of it: `moteip reproduce cctrl`), dual = keep + "
        "activity + a second connection ([B]'s best, +84 % overall).",
        "Gains and where the intervals of the per-hop means separate (cctrl above or below "
        "unmodified):",
        render(gheaders, grows),
    ]
    for arm in arms[1:]:
        if arm in curves:
            notes.append(f"{arm}: " + paper_gain_ber(curves[arm]))
    return Report(["BER", "data PER", "configuration"] + [f"{h} hops" for h in CCTRL_HOPS]
                  + ["overall", "vs unmodified"], rows, notes)


register(Experiment(
    name="cctrl-ber",
    title="cctrl's gain across the bit error rate: 2..6 hops on the TelosB platform (cc2420)",
    source=CCTRL_SOURCE + ", sections 5.3.1-5.3.6 (keep + activity + dual +84 %, chapter 6)",
    scenario="cctrl.toml",
    runs=15,
    report=cctrl_ber_report,
    metrics_fn=cctrl_metrics,
    vary={"topology.nodes": [h + 1 for h in CCTRL_HOPS], "medium.ber": CCTRL_BERS},
    arms=[(a, {**dict(CCTRL_ARMS)[a], **TELOSB}) for a in CCTRL_BER_CONFIGS],
    plots=[PlotSpec("segments-vs-ber.png", "medium.ber", "delivered_segments", hue="arm",
                    where={"topology.nodes": 5}, ylabel="segments delivered in 600 s (4 hops)")],
))
