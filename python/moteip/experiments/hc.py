"""Header compression (issue 26; seed 000 s.9.3): UDP sensor readings under
RFC 6282 IPHC against shared-context compression (the checksum elided under
a link-layer MIC, RFC 6282 s.4.3.2, and moteip's shared-port NHC form).
docs/LOWPAN.md holds the formats and the rule; docs/results.md the table."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..jsontypes import JsonObj
from ..table import mean_ci
from . import Arms, Experiment, Report, metric, point, register

#: the three reporters' flows (examples/udp-hc.toml)
_FLOWS = 3


def _ports(port: int) -> JsonObj:
    return {f"flows[{k}].port": port for k in range(_FLOWS)}


#: (label, keys): what each arm changes in the UDP/IP header, nothing else
UDP_HC_ARMS: Arms = [
    # 7000: no 0xF0xx form, both ports inline
    ("iphc-16bit-ports", {**_ports(7000), "link.udp_checksum": "carry"}),
    # 0xF0B1: the 4-bit form; today's minimum (checksum carried)
    ("iphc-4bit-ports", {**_ports(61617), "link.udp_checksum": "carry"}),
    ("checksum-elided", {**_ports(61617), "link.udp_checksum": "elide"}),
    ("shared-context", {**_ports(61617), "link.udp_checksum": "elide",
                        "link.udp_shared_port_src": 61617, "link.udp_shared_port_dst": 61617}),
]


def udp_hc_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    nodes = result["node_stats"]
    hc = sum(n["stack"].get("lowpan_hc_bytes_tx", 0) for n in nodes)
    dgrams = sum(n["stack"].get("lowpan_iphc_tx", 0) for n in nodes)
    readings = sum(f["received"] for f in result["flows"])
    sent = sum(f["sent"] for f in result["flows"])
    per = (lambda x: x / readings) if readings else (lambda x: None)
    return {"hc_bytes": hc / dgrams if dgrams else None,
            "frames_per_reading": per(result["totals"]["frames_tx"]),
            "bytes_per_reading": per(sum(n["bytes_tx"] for n in nodes)),
            "tx_ms_per_reading": per(sum(n["tx_s"] for n in nodes) * 1e3),
            "energy_mj_per_reading": per(result["totals"]["energy_mj"]),
            "delivery": readings / sent if sent else None,
            "refused": sum(n["stack"].get("drop_lowpan_unsupported", 0) for n in nodes)}


def _rows(summary: JsonObj, arms: Arms, metrics: tuple[str, ...]) -> list[list[str]]:
    """One row per BER and arm: the arm, the BER, each metric's mean ± CI."""
    rows = []
    for ber in summary["vary"]["medium.ber"]:
        for arm, _ in arms:
            p = point(summary, arm=arm, medium__ber=ber)
            if p is not None:
                rows.append([arm, f"{ber:g}"] + [mean_ci(metric(p, m)) for m in metrics])
    return rows


def udp_hc_report(summary: JsonObj) -> Report:
    rows = _rows(summary, UDP_HC_ARMS, ("hc_bytes", "frames_per_reading", "bytes_per_reading",
                                        "tx_ms_per_reading", "energy_mj_per_reading", "delivery"))
    return Report(["arm", "BER", "IPHC+NHC bytes/hop", "frames/reading", "bytes on air/reading",
                   "TX ms/reading", "energy mJ/reading", "delivery"], rows,
                  ["Three reporters 1, 2 and 3 hops from the sink (4-node chain), a 12-byte "
                   "reading each every 10 s, ContikiMAC 8 Hz under CSMA-CA, security level 5 "
                   "(ENC-MIC-32) on every arm. IPHC+NHC bytes/hop: the compressed IPv6 + UDP "
                   "header of every datagram every node sent, averaged over hops. A hop whose link "
                   "source and destination are the datagram's own ends (the 1-hop reporter's) "
                   "derives both addresses from the link layer: 3 bytes with the shared context, "
                   "4 with the checksum elided, 6 carried, 9 with 16-bit ports; every other hop "
                   "carries the 16-bit IID of each end that is not its link neighbour, 2 bytes "
                   "each, and a forwarded datagram its decremented hop limit inline, 1 byte "
                   "(docs/LOWPAN.md). Energy per reading "
                   "counts every node's whole radio energy (ContikiMAC's idle checks dominate); "
                   "TX ms is what the header changes."])


register(Experiment(
    name="udp-hc",
    title="Shared-context UDP/IP header compression: RFC 6282 IPHC against shared context "
          "(seed 000 s.9.3)",
    source="seed 000 paper D s.9.3 (28 to 3 bytes); RFC 6282 s.4.3; docs/LOWPAN.md",
    scenario="udp-hc.toml",
    runs=10,
    arms=UDP_HC_ARMS,
    metrics_fn=udp_hc_metrics,
    report=udp_hc_report,
))


# --- TCP header compression (docs/LOWPAN.md "TCP header compression") -------------

#: off: standard IPHC (the TCP header inline); on: moteip's TCP NHC on every link
TCP_HC_ARMS: Arms = [("iphc", {"link.tcp_hc": False}), ("tcp-hc", {"link.tcp_hc": True})]


def tcp_hc_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    nodes = result["node_stats"]
    def total(key: str) -> int:
        return sum(int(n["stack"].get(key, 0)) for n in nodes)
    dgrams = total("lowpan_iphc_tx")
    f = result["flows"][0]
    return {"hdr_bytes": total("lowpan_hc_bytes_tx") / dgrams if dgrams else None,
            "goodput_bps": f.get("goodput_bps"),
            "complete": 1.0 if f.get("complete") else 0.0,
            "energy_per_kb_mj": result["totals"].get("energy_per_delivered_kb_mj"),
            "e2e_rtx": f.get("e2e_retransmissions"),
            "full": total("lowpan_tcphc_full_tx"),
            "mismatch": total("drop_lowpan_tcphc_mismatch")}


def _tcp_hc_report(what: str) -> Callable[[JsonObj], Report]:
    def report(summary: JsonObj) -> Report:
        rows = _rows(summary, TCP_HC_ARMS, ("hdr_bytes", "goodput_bps", "energy_per_kb_mj",
                                            "e2e_rtx", "full", "mismatch", "complete"))
        return Report(["arm", "BER", "IPv6+TCP header B/frame", "goodput b/s", "energy mJ/KB",
                       "e2e retransmissions", "FULL sent", "mismatches", "complete"], rows,
                      [what + " IPv6+TCP header B/frame: every datagram every node sent "
                       "(data segments and ACKs, each hop), IPHC bytes plus the TCP header, "
                       "inline or compressed; with timestamps on, 13 of a compressed header's "
                       "bytes are the options carried verbatim. FULL sent: TCP NHC headers sent "
                       "whole (a new context, a retransmission, a refresh); mismatches: segments "
                       "a hop dropped for a missing or wrong context (the TCP checksum)."])
    return report


def _tcp_hc(name: str, title: str, scenario: str, what: str,
            vary: dict[str, list[Any]]) -> None:
    register(Experiment(name=name, title=title,
                        source="seed 000 paper D s.9.3, TSS s.V; docs/LOWPAN.md",
                        scenario=scenario, runs=10, vary=vary, arms=TCP_HC_ARMS,
                        metrics_fn=tcp_hc_metrics, report=_tcp_hc_report(what)))


_tcp_hc("tcp-hc-chain", "TCP header compression on the 10-hop chain demo (chain10-ber)",
        "chain10-ber.toml",
        "examples/chain10-ber.toml: 100 KB over 10 CSMA-CA hops, MSS 88 (76-byte segments "
        "in one frame), SACK and timestamps, a full-profile sender.",
        {"medium.ber": [0, 1e-4], "flows[0].sender.profile": ["full"]})
_tcp_hc("tcp-hc-hops", "TCP header compression on TCPlp's 3-hop chain (tcplp-hops)",
        "tcplp-hops.toml",
        "examples/tcplp-hops.toml at 3 hops: TCPlp's 462-byte segments in five frames (their "
        "TCP header stays inline: only one-frame datagrams are compressed), ACKs in one.",
        {"medium.ber": [0, 1e-4], "topology.nodes": [4]})
_tcp_hc("tcp-hc-dutycycled", "TCP header compression across 3 ContikiMAC hops (contikimac-hops)",
        "contikimac-hops.toml",
        "examples/contikimac-hops.toml at 3 hops: 20 KB, MSS 88, every node on ContikiMAC "
        "8 Hz.",
        {"medium.ber": [0, 1e-4], "topology.nodes": [4]})
