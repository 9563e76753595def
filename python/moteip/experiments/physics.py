"""The simulator's physics checks as experiments (docs/SIMULATOR.md,
"Physics checks"): measured against analytic values and TCPlp's testbed."""
from __future__ import annotations

from ..jsontypes import JsonObj
from ..table import mean_ci, num
from . import Experiment, PlotSpec, Report, mean, metric, point, points_by, register

# --- per-ber: packet error rate vs bit error rate -------------------------------------

PER_BITS = 8 * 84  # the 84-byte MPDU of a 64-byte UDP report (docs/SIMULATOR.md)


def per_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    tx = result["node_stats"][0]["frames_tx"]
    rx = result["node_stats"][1]["frames_rx"]
    return {"per": (tx - rx) / tx if tx else 0.0, "frames": tx, "mpdu_bytes":
            result["node_stats"][0]["tx_s"] * 250000 / 8 / tx - 6 if tx else 0.0}


def per_report(summary: JsonObj) -> Report:
    rows = []
    for ber, p in sorted(points_by(summary, "medium.ber").items()):
        exp = 1 - (1 - ber) ** PER_BITS
        s = metric(p, "per")
        frames = metric(p, "frames")
        total = frames["mean"] * frames["n"] if frames else 0
        sigma = (exp * (1 - exp) / total) ** 0.5 if total else 0
        dev = (s["mean"] - exp) / sigma if sigma and s else None
        rows.append([num(ber), f"{exp:.4f}", mean_ci(s), num(mean(p, "mpdu_bytes")),
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

#: 6LoWPAN over 802.15.4 between two nodes with short addresses (docs/SIMULATOR.md,
#: physics check 2): MAC header, FCS, fragment headers, the compressed IPv6 header
#: (IPHC with the next header inline) and the link ACK frame
MHR, FCS, FRAG1_HDR, FRAGN_HDR, IPHC_HDR, ACK_MPDU = 9, 2, 4, 5, 3, 5
IPV6_HDR, TCP_HDR, TCP_TS, SYN_OPTIONS = 40, 20, 12, 20


def segment_frames(payload: int, frame_max: int = 127, tcp: int = TCP_HDR + TCP_TS) -> list[int]:
    """MPDU sizes (FCS included) of the frames carrying one TCP segment of
    `payload` bytes at one hop: one IPHC frame when it fits; else a FRAG1
    holding the compressed headers and as much data as keeps the next offset
    (counted in uncompressed bytes) a multiple of 8, then FRAGNs of the
    largest multiple of 8 that fits (RFC 4944 as src/core/lowpan_netif.c
    sends it)."""
    if MHR + IPHC_HDR + tcp + payload + FCS <= frame_max:
        return [MHR + IPHC_HDR + tcp + payload + FCS]
    room1 = frame_max - FCS - MHR - FRAG1_HDR - IPHC_HDR - tcp
    first = ((IPV6_HDR + tcp + room1) // 8) * 8 - IPV6_HDR - tcp
    per_fragn = ((frame_max - FCS - MHR - FRAGN_HDR) // 8) * 8
    frames = [MHR + FRAG1_HDR + IPHC_HDR + tcp + first + FCS]
    left = payload - first
    while left > 0:
        n = min(per_fragn, left)
        frames.append(MHR + FRAGN_HDR + n + FCS)
        left -= n
    return frames


def frame_time_us(mpdu: int, sc: JsonObj, host: JsonObj | None = None) -> float:
    """One acknowledged frame alone on the channel: the mean initial backoff
    of CSMA-CA, CCA, two turnarounds, the PPDU and its link ACK, with the
    scenario's PHY timing; with `host` (a run's result "radio": its platform's
    frame_host_us and bus_bps, docs/SIMULATOR.md) also the sender's loading of
    the frame into the radio (CPU, then the length byte and MPDU over SPI)."""
    phy = sc.get("phy", {})
    bitrate = phy.get("bitrate", 250_000)
    phy_hdr = phy.get("phy_header_bytes", 6)
    access = ((2 ** sc.get("mac", {}).get("min_be", 3) - 1) / 2 * phy.get("backoff_us", 320)
              + phy.get("cca_us", 128) + 2 * phy.get("turnaround_us", 192))
    load = 0.0
    if host:
        load = float(host.get("frame_host_us") or 0)
        if host.get("bus_bps"):
            load += (1 + mpdu) * 8e6 / float(host["bus_bps"])
    return float((phy_hdr + mpdu) * 8e6 / bitrate + access + (phy_hdr + ACK_MPDU) * 8e6 / bitrate
                 + load)


def one_hop_bound(sc: JsonObj, host: JsonObj | None = None) -> JsonObj:
    """The serialised-airtime bound of docs/SIMULATOR.md, from the scenario:
    every frame of the transfer (fragments, TCP ACKs, the two SYNs) alone on
    the channel (frame_time_us). Full profile: TCP timestamps on every
    segment (the MSS option counts them); one TCP ACK per segment, or per two
    with the receiver's delayed ACKs (its default)."""
    frame_max = sc.get("link", {}).get("frame_max", 127)
    flow = sc["flows"][0]
    payload = flow["mss"] - TCP_TS
    segments = -(-flow["bytes"] // payload)
    frames = segment_frames(payload, frame_max)
    ack = MHR + IPHC_HDR + TCP_HDR + TCP_TS + FCS
    syn = MHR + IPHC_HDR + TCP_HDR + SYN_OPTIONS + FCS
    acks = 0.5 if flow.get("receiver", {}).get("delayed_ack", True) else 1.0
    # A platform's host time (`host`) delays the sender's next frame; the
    # receiver loads its TCP ACK while the sender loads its next fragment, so
    # the ACK's load overlaps and the channel never waits for it.
    seg_us = (sum(frame_time_us(f, sc, host) for f in frames)
              + acks * frame_time_us(ack, sc))
    total_us = segments * seg_us + frame_time_us(syn, sc, host) + frame_time_us(syn, sc)
    return {"bps": flow["bytes"] * 8 / (total_us / 1e6), "segments": segments, "payload": payload,
            "frames": frames, "ack": ack, "syn": syn, "acks_per_segment": acks,
            "segment_us": seg_us, "total_us": total_us}


def host_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    """The platform's per-frame host time and SPI rate a run paid (its result
    "radio"; 0 on the ideal platform), for the bound with the host's load."""
    radio = result.get("radio", {})
    return {"frame_host_us": radio.get("frame_host_us", 0), "bus_bps": radio.get("bus_bps", 0)}


#: tcp-1hop's platforms (issue 25): the ideal radio the bound was first checked
#: on, and TCPlp's Hamilton (docs/SIMULATOR.md "platform")
ONE_HOP_ARMS = [("ideal", {}), ("at86rf233", {"platform": "at86rf233"})]


def one_hop_report(summary: JsonObj) -> Report:
    rows = []
    notes = []
    for label, _ in ONE_HOP_ARMS:
        p = point(summary, arm=label)
        if p is None:
            continue
        host = {k: mean(p, k) or 0 for k in ("frame_host_us", "bus_bps")}
        b = one_hop_bound(summary["scenario_data"], host)
        g = metric(p, "flows[0].goodput_bps")
        rows.append([label, mean_ci(g), num(b["bps"]), num(g["mean"] / b["bps"], 3) if g else "-",
                     mean_ci(metric(p, "totals.link_retries")),
                     mean_ci(metric(p, "flows[0].rto_timeouts"))])
        if label == "ideal":
            notes.append(
                f"The bound, computed from the scenario, serialises every frame's backoff, CCA, "
                f"turnarounds, PPDU and link ACK: {b['segments']} segments of "
                f"{len(b['frames'])} frames ({'+'.join(str(f) for f in b['frames'])} bytes) + "
                f"{b['segments']} TCP ACKs ({b['ack']} bytes) + two SYNs ({b['syn']} bytes) = "
                f"{b['total_us'] / 1e6:.3f} s (docs/SIMULATOR.md, physics check 2). Collisions "
                f"between the next fragment and the TCP ACK cost the rest.")
        else:
            notes.append(
                f"{label}: the same bound with the platform's load of each data frame "
                f"({host['frame_host_us']:.0f} us of host time and the SPI transfer at "
                f"{host['bus_bps'] / 1e6:g} Mb/s) before its channel access: "
                f"{b['total_us'] / 1e6:.3f} s. The receiver loads its TCP ACK while the sender "
                f"loads its next fragment, so the ACK's load is not on the channel's path.")
    return Report(["platform", "goodput b/s", "analytic bound b/s", "ratio", "link retries",
                   "RTOs"], rows, notes)


register(Experiment(
    name="tcp-1hop",
    title="Single-hop TCP goodput vs the serialised-airtime bound",
    source="analytic (docs/SIMULATOR.md, physics check 2)",
    scenario="tcp-1hop.toml",
    runs=6,
    report=one_hop_report,
    metrics_fn=host_metrics,
    arms=ONE_HOP_ARMS,
))


# --- hidden-terminals: delay between link retries (TCPlp section 7.1) -----------------

def hidden_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    sent = sum(f["sent"] for f in result["flows"])
    recv = sum(f["received"] for f in result["flows"])
    return {"delivery": recv / sent if sent else 0.0,
            "collided_at_sink": result["node_stats"][1]["frames_collided"]}


def hidden_report(summary: JsonObj) -> Report:
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
    source="Kumar et al., TCPlp: Full-Scale TCP in Low-Power Networks (NSDI 2020, seeds/003), section 7.1",
    scenario="hidden-terminals.toml",
    runs=3,
    metrics_fn=hidden_metrics,
    report=hidden_report,
))
