"""Header compression (issue 26; seed 000 s.9.3): UDP sensor readings under
RFC 6282 IPHC against shared-context compression (the checksum elided under
a link-layer MIC, RFC 6282 s.4.3.2, and moteip's shared-port NHC form).
docs/LOWPAN.md holds the formats and the rule; docs/results.md the table."""
from __future__ import annotations

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


def udp_hc_report(summary: JsonObj) -> Report:
    rows = []
    for ber in summary["vary"]["medium.ber"]:
        for arm, _ in UDP_HC_ARMS:
            p = point(summary, arm=arm, medium__ber=ber)
            if p is None:
                continue
            rows.append([arm, f"{ber:g}"] + [mean_ci(metric(p, m)) for m in (
                "hc_bytes", "frames_per_reading", "bytes_per_reading", "tx_ms_per_reading",
                "energy_mj_per_reading", "delivery")])
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
