"""cctrl beyond the single route ([B] = Buergi's MSc thesis, seeds/001):
the double-route scenario of section 5.4 (Table 5.2, Figs. 5.14-5.15) and
Fig. 5.7, frames with a bad CRC per end-to-end TCP transmission
(docs/results.md, "cctrl")."""
from __future__ import annotations

import pathlib

from ..jsontypes import JsonObj
from ..plot import pyplot
from ..table import mean_ci, num, render
from . import Arms, Experiment, Report, metric, point, register
from .relay import (
    _CCTRL_FLOW,
    _KEEP,
    CCTRL_HOPS,
    CCTRL_SOURCE,
    TELOSB,
    _hops_text,
    cctrl_metrics,
    gain_ci,
    mean_of_cells,
    separated_cells,
)

# --- cctrl-double: section 5.4 -------------------------------------------------------------------

#: Table 5.2, two-route rows: the client of each route for each path length,
#: as our node ids (N1 = 0); the servers are N1 (route 1) and N2 (route 2)
DOUBLE_CLIENTS = {2: (4, 3), 3: (5, 8), 4: (6, 7), 5: (9, 11), 6: (12, 10)}
DOUBLE_SERVERS = (0, 1)
#: both routes from the client end of the 6-hop route to its server (our ids)
DOUBLE_ROUTES = ((12, 9, 6, 5, 4, 2, 0), (10, 11, 7, 8, 3, 2, 1))
#: N3, the node both routes share: the cctrl node of both servers' end target
DOUBLE_SHARED = 2
#: [B] Fig. 5.15 (text, p. 59-60): average change of the throughput over 2..6 hops
#: with cctrl (keep + activity + dual) against unmodified nodes, per MAC
DOUBLE_PAPER = {"NullMAC": 3.0, "X-MAC": -16.0, "LPP": 49.0, "ContikiMAC": 14.0}
DOUBLE_PAPER_NULLMAC_SEGMENTS = 2000        # "just about 2000 ... on average" (both routes)


#: the second route's client starts this much later: clients started at the
#: same microsecond send SYNs that collide at N3 (the two are hidden from each
#: other) and, with equal RTOs, collide again on every retry
ROUTE2_START_S = 0.5


def double_flows(hops: int, connections: int, merge: bool = False) -> list[JsonObj]:
    """The flows of both routes; merge: each route's connections carry one
    stream, split and merged as [B] 4.5.1 designs it (merge_group = the
    route, docs/RELAY.md "cctrl split and merge")."""
    flows = []
    for r, (client, server) in enumerate(zip(DOUBLE_CLIENTS[hops], DOUBLE_SERVERS, strict=True)):
        for c in range(connections):
            flows.append({**_CCTRL_FLOW, "src": client, "dst": server, "port": 5000 + c,
                          "start_s": r * ROUTE2_START_S, **({"merge_group": r + 1} if merge else {})})
    return flows


def double_proxy(hops: int) -> JsonObj:
    """[B] 4.5.1's takeover (apps/cctrl_proxy.h, docs/RELAY.md): each
    client's next hop takes over its SYN and splits the stream over two
    uIP-like connections (one segment in flight, no delayed ACK, no SACK or
    timestamps, as the end points) to N3, which opens the real connection to the server; 64
    bytes of merge hold-back per subflow, as in the split-merge arms."""
    nodes = [route[route.index(c) + 1] for route, c in zip(DOUBLE_ROUTES, DOUBLE_CLIENTS[hops],
                                                           strict=True)]
    return {"proxy": {"nodes": nodes, "peer": DOUBLE_SHARED, "port": 5000, "subflows": 2,
                      "chunk": 16, "hold": 64, "cwnd_cap": 1, "max_retries": 255,
                      "delayed_ack": False, "options": False}}


#: [B] 5.4: "unmodified" (one connection per client) against "cctrl" = keep +
#: activity + dual (the best single-route configuration); dual-unmodified and
#: keep-link (ours, examples/cctrl.toml) for reference
#: The testbed's link graph is unknown (three floors); the -i25 arms let every node
#: within 25 m disturb a reception (two hops along a route, and across the routes
#: near N3) instead of only the route neighbours: the sensitivity to that choice
_I25 = {"medium.interference_range_m": 25}
DOUBLE_CONFIGS: list[tuple[str, JsonObj, int]] = [("unmodified", {"relay.mode": "off"}, 1),
                  ("cctrl", {**_KEEP, "relay.activity": True}, 2),
                  ("dual-unmodified", {"relay.mode": "off"}, 2),
                  ("keep-link", {**_KEEP, "relay.link": True, "relay.ack_repair": True}, 1),
                  ("unmodified-i25", {"relay.mode": "off", **_I25}, 1),
                  ("cctrl-i25", {**_KEEP, "relay.activity": True, **_I25}, 2),
                  ("split-merge", {**_KEEP, "relay.activity": True}, 2),
                  ("split-merge-unmodified", {"relay.mode": "off"}, 2),
                  ("takeover", {**_KEEP, "relay.activity": True}, 1),
                  ("takeover-unmodified", {"relay.mode": "off"}, 1)]
#: the arms whose two connections carry one stream split and merged ([B] 4.5.1)
MERGED = ("split-merge", "split-merge-unmodified")
#: the arms whose one connection per client the proxies split ([B] 4.5.1's
#: takeover): from 3 hops, where the client's next hop is not N3 itself
PROXIED = ("takeover", "takeover-unmodified")
PROXY_HOPS = [h for h in CCTRL_HOPS if h >= 3]


#: [B] 5.4's other MACs, each at its Contiki 2.5 defaults (docs/MAC.md) under the
#: same CSMA-CA, as in cctrl-mac: unmodified against cctrl, the thesis's pair
DOUBLE_MACS: Arms = [("X-MAC", {"mac.rdc.type": "xmac"}), ("LPP", {"mac.rdc.type": "lpp"}),
                     ("ContikiMAC", {"mac.rdc.type": "contikimac"})]
DOUBLE_MAC_CONFIGS: list[tuple[str, JsonObj, int]] = [
    (f"{mac}/{label}", {**mkeys, **keys}, conns)
    for mac, mkeys in DOUBLE_MACS for label, keys, conns in DOUBLE_CONFIGS[:2]]


def _double_base(label: str) -> str:
    """The configuration a row's change is against: the same MAC's (and
    interference range's) unmodified forwarders."""
    if "/" in label:
        return label.split("/")[0] + "/unmodified"
    return "unmodified-i25" if label.endswith("-i25") else "unmodified"


def _double_arms() -> list[tuple[str, JsonObj]]:
    arms: Arms = []
    for label, keys, conns in DOUBLE_CONFIGS + DOUBLE_MAC_CONFIGS:
        for h in PROXY_HOPS if label in PROXIED else CCTRL_HOPS:
            arms.append((f"{label}/{h}", {**keys, "flows": double_flows(h, conns, label in MERGED),
                                          **(double_proxy(h) if label in PROXIED else {}),
                                          **TELOSB}))
    return arms


def _double_cells(summary: JsonObj, config: str, hops: list[int]) -> list[JsonObj | None]:
    """A configuration's segments cell at each path length of `hops`."""
    return [metric(point(summary, arm=f"{config}/{h}"), "delivered_segments") for h in hops]


def _double_mean(summary: JsonObj, config: str, hops: list[int] | None = None) -> float | None:
    ov = mean_of_cells(_double_cells(summary, config, hops or CCTRL_HOPS))
    return None if ov is None else ov[0]


def double_separations(summary: JsonObj) -> list[list[str]]:
    """Each configuration against its base (_double_base): the change of the
    average with its 95 % interval (relay.overall_ci's rule) and the path
    lengths whose per-hop intervals separate (issue 25: conclusions only
    there)."""
    rows = []
    for label, _k, _c in DOUBLE_CONFIGS + DOUBLE_MAC_CONFIGS:
        base = _double_base(label)
        hops = PROXY_HOPS if label in PROXIED else CCTRL_HOPS
        a, b = _double_cells(summary, label, hops), _double_cells(summary, base, hops)
        oa, ob = mean_of_cells(a), mean_of_cells(b)
        if base == label or oa is None or ob is None:
            continue
        g, ci = gain_ci(oa, ob)
        rows.append([label, base, f"{g:+.0f} ± {ci:.0f} %",
                     _hops_text(*separated_cells(list(zip(hops, a, b, strict=True))))])
    return rows


def double_report(summary: JsonObj) -> Report:
    rows = []
    for label, _k, _c in DOUBLE_CONFIGS + DOUBLE_MAC_CONFIGS:
        hops = PROXY_HOPS if label in PROXIED else CCTRL_HOPS
        if point(summary, arm=f"{label}/{hops[0]}") is None:
            continue
        # the takeover rows: the average over 3-6 hops, against unmodified's over the same
        base = _double_mean(summary, _double_base(label), hops)
        cells = [label]
        for h in CCTRL_HOPS:
            p = point(summary, arm=f"{label}/{h}")
            cells.append(mean_ci(metric(p, "delivered_segments")) if p else "-")
        ov = _double_mean(summary, label, hops)
        cells += [num(ov), "-" if ov is None or not base or _double_base(label) == label
                  else f"{100.0 * (ov / base - 1):+.0f} %"]
        rows.append(cells)
    notes = [f"{CCTRL_SOURCE}, section 5.4, Table 5.2, Figs. 5.14-5.15: segments both routes "
             f"delivered in 600 s. Paper, average over 2-6 hops, cctrl (keep + activity + dual) "
             f"against unmodified: NullMAC {DOUBLE_PAPER['NullMAC']:+g} % (about "
             f"{DOUBLE_PAPER_NULLMAC_SEGMENTS} segments on average), X-MAC "
             f"{DOUBLE_PAPER['X-MAC']:+g} %, LPP {DOUBLE_PAPER['LPP']:+g} %, ContikiMAC "
             f"{DOUBLE_PAPER['ContikiMAC']:+g} %. Here: 802.15.4 CSMA-CA with one retry, its "
             "radio always on (NullMAC rows) or duty-cycled by X-MAC, LPP or ContikiMAC at their "
             "Contiki 2.5 defaults (MAC/configuration rows, each against the same MAC's "
             "unmodified forwarders).",
             "Routes and geometry: examples/cctrl-double.toml (two straight routes meeting at "
             "N3, neighbours only hear each other). unmodified: one connection per client; "
             "cctrl and dual-unmodified: two; keep-link: ours (examples/cctrl.toml); -i25: "
             "interference range 25 m instead of 10 (two hops along a route and across the "
             "routes near N3), each against unmodified-i25.",
             "split-merge (cctrl as in the cctrl arm) and split-merge-unmodified: each client's "
             "two connections carry ONE stream, [B] 4.5.1's design (docs/RELAY.md): chunk k of "
             "16 bytes on connection k mod 2, merged in order at the server with 64 bytes of "
             "hold-back per connection; segments = the merged stream's bytes / 16 (the other "
             "arms: the connections' bytes, in no common order).",
             "takeover (cctrl as in the cctrl arm) and takeover-unmodified: one connection per "
             "client, unmodified; the client's next hop takes over its SYN and splits the stream "
             "over two subflows to N3, which opens the real connection ([B] 4.5.1, "
             "apps/cctrl_proxy.h); from 3 hops (at 2 the next hop is N3); average and change "
             "over 3-6 hops, against unmodified over the same.",
             "Platform: cc2420 for every arm (TelosB, [B]'s mote, section 3.4.1: 192 us receiver "
             "start-up, 500 kb/s SPI per frame, clocks within +/-40 ppm; docs/SIMULATOR.md).",
             "Change of segments against the same MAC's (and interference range's) unmodified "
             "forwarders, with its 95 % interval (average's interval sqrt(sum ci^2) / hops, "
             "propagated to the ratio), and the path lengths whose per-hop intervals separate:",
             render(["configuration (change)", "against", "change", "hops separated"],
                    double_separations(summary))]
    return Report(["configuration"] + [f"{h} hops" for h in CCTRL_HOPS] + ["average", "vs unmodified"],
                  rows, notes)


def double_figures(summary: JsonObj, out: pathlib.Path) -> list[str]:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for label, _k, _c in DOUBLE_CONFIGS:
        xs, ys, es = [], [], []
        for h in CCTRL_HOPS:
            p = point(summary, arm=f"{label}/{h}")
            s = metric(p, "delivered_segments") if p else None
            if s:
                xs.append(h)
                ys.append(s["mean"])
                es.append(s["ci95"] or 0.0)
        ax.errorbar(xs, ys, yerr=es, marker="o", capsize=3, label=label)
    ax.set_xlabel("hops per route")
    ax.set_ylabel("segments delivered in 600 s (both routes)")
    ax.set_title("cctrl-double: [B] Fig. 5.14(a), NullMAC", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "double-route-segments.png"
    fig.savefig(path)
    plt.close(fig)
    return [str(path)]


register(Experiment(
    name="cctrl-double",
    title="cctrl double route: two routes sharing node N3, 2..6 hops each (four MACs)",
    source=CCTRL_SOURCE + ", section 5.4, Table 5.2, Figs. 5.14-5.15 (values from the text)",
    scenario="cctrl-double.toml",
    runs=15,
    vary={},
    arms=_double_arms(),
    metrics_fn=cctrl_metrics,
    report=double_report,
    figures=double_figures,
))


# --- cctrl-crc: Fig. 5.7 -------------------------------------------------------------------------

#: [B] Fig. 5.7's MACs, the RDCs at their Contiki 2.5 defaults (docs/MAC.md) under the same
#: CSMA-CA, on the TelosB platform (issue 25)
CRC_MACS: Arms = [("NullMAC", {}),
            ("X-MAC", {"mac.rdc": {"type": "xmac"}}),
            ("LPP", {"mac.rdc": {"type": "lpp"}}),
            ("ContikiMAC", {"mac.rdc": {"type": "contikimac"}})]
CRC_CONFIGS: Arms = [("unmodified", {"relay.mode": "off"}), ("keep", dict(_KEEP))]


def crc_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    """Frames received with a bad FCS (lost to bit errors or collisions, at any
    receiver, addressed to it or overheard) per TCP data segment the client
    sent (its retransmissions included): [B]'s 'bad Rime packets per
    end-to-end TCP transmission'."""
    m = cctrl_metrics(result, params)
    bad = sum(n["frames_corrupted"] + n["frames_collided"] for n in result["node_stats"])
    sent = sum(f.get("segments_sent", 0) for f in result["flows"] if f["type"] == "tcp")
    if sent:
        m["bad_crc_per_tcp_tx"] = bad / sent
    return m


def crc_report(summary: JsonObj) -> Report:
    rows = []
    for arm in summary["vary"]["arm"]:
        cells = [arm]
        for h in CCTRL_HOPS:
            p = point(summary, arm=arm, topology__nodes=h + 1)
            cells.append(mean_ci(metric(p, "bad_crc_per_tcp_tx")) if p else "-")
        rows.append(cells)
    notes = [f"{CCTRL_SOURCE}, section 5.3.3, Fig. 5.7: bad-CRC frames per end-to-end TCP "
             "transmission; the text: 'quite a rare event for non-cctrl ContikiMAC nodes in "
             "comparison to X-MAC and LPP nodes' (values only in the figure).",
             "Scenario: examples/cctrl.toml (its BER of 2.5e-4 corrupts frames on every MAC; [B]'s "
             "testbed had an unknown real channel) on the cc2420 (TelosB) platform. X-MAC, LPP, "
             "ContikiMAC: their Contiki 2.5 defaults (docs/MAC.md) under the same CSMA-CA."]
    return Report(["MAC / configuration"] + [f"{h} hops" for h in CCTRL_HOPS], rows, notes)


register(Experiment(
    name="cctrl-crc",
    title="cctrl: frames with a bad CRC per end-to-end TCP transmission, four MACs, TelosB",
    source=CCTRL_SOURCE + ", section 5.3.3, Fig. 5.7",
    scenario="cctrl.toml",
    runs=15,
    vary={"topology.nodes": [h + 1 for h in CCTRL_HOPS]},
    arms=[(f"{mac}/{cfg}", {**mk, **ck, **TELOSB}) for mac, mk in CRC_MACS for cfg, ck in CRC_CONFIGS],
    metrics_fn=crc_metrics,
    report=crc_report,
))
