"""Denial of sleep (issue 24): a misbehaving node (scenario key "misbehave")
against each duty-cycling RDC, the victim's radio-on time without and under
each attack. docs/MAC.md ("Denial of sleep") holds the table before and after
the RDCs' bounded, earned bursts."""
from __future__ import annotations

from ..jsontypes import JsonObj
from ..table import mean_ci
from . import Arms, Experiment, Report, mean, metric, point, register

#: the victim's RDC: keys that set it (node 2 runs the same, or is the leaf's parent)
RDCS: list[tuple[str, JsonObj]] = [
    ("contikimac", {"mac.rdc": {"type": "contikimac"}}),
    ("xmac", {"mac.rdc": {"type": "xmac"}}),
    ("lpp", {"mac.rdc": {"type": "lpp"}}),
    ("leaf", {"mac.rdc": {"type": "leaf", "parent": 2, "poll_ms": 250},
              "mac.nodes": [{"ids": [1], "rdc": {"type": "nullrdc"}},
                            {"ids": [2], "rdc": {"type": "parent"}}]}),
]

#: the attacks: misbehave[0]'s keys (all of them, so each arm says exactly what runs)
ATTACKS: list[tuple[str, JsonObj]] = [
    ("none", {"pending_every_ms": 20, "start_s": 1e6}),
    ("pending", {"pending_every_ms": 20}),
    ("broadcast", {"pending_every_ms": 20, "pending_to": "broadcast"}),
    ("replay", {"replay_every_ms": 20}),                    # without CCA: a jammer too
    ("replay-cca", {"replay_every_ms": 20, "cca": True}),   # through CSMA-CA
    ("strobe", {"strobe_every_ms": 200}),
]


def _arms() -> Arms:
    arms: Arms = []
    for rdc, keys in RDCS:
        for atk, mb in ATTACKS:
            if atk == "strobe" and rdc != "xmac":
                continue
            arms.append((f"{rdc}/{atk}", {**keys, "misbehave": [{"node": 1, "target": 0, **mb}]}))
    return arms


def dos_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    v = result["node_stats"][0]
    mac = v["mac"]
    return {"victim_dc": v["duty_cycle"], "bursts": mac.get("rdc_bursts_rx", 0),
            "refused": mac.get("rdc_burst_refused", 0),
            "delivery": result["flows"][0]["delivery_ratio"]}


def _scaled(cell: JsonObj | None, scale: float = 1.0) -> str:
    """mean ± ci of a cell times scale, the interval rounded to 1e-9 (an
    interval of float noise reads as 0)."""
    if cell is None or cell.get("mean") is None:
        return "-"
    ci = cell.get("ci95")
    return mean_ci({"mean": round(cell["mean"] * scale, 9),
                    "ci95": round(ci * scale, 9) if ci is not None else None})


def dos_report(summary: JsonObj) -> Report:
    rows = []
    for rdc, _ in RDCS:
        b = mean(point(summary, arm=f"{rdc}/none"), "victim_dc")
        for atk, _ in ATTACKS:
            p = point(summary, arm=f"{rdc}/{atk}")
            if p is None:
                continue
            m = mean(p, "victim_dc")
            ratio = m / b if m is not None and b else None
            rows.append([rdc, atk, _scaled(metric(p, "victim_dc"), 100),
                         f"{ratio:.1f}x" if ratio is not None else "-",
                         _scaled(metric(p, "refused")), _scaled(metric(p, "delivery"))])
    return Report(["victim RDC", "attack", "victim radio-on %", "x no attack",
                   "pending bits refused", "legit delivery"], rows,
                  ["A misbehaving node (always on) 5 m from the victim; a legitimate neighbour "
                   "sends the victim 300 bytes every 2 s. Attacks: a data frame with the frame "
                   "pending bit to the victim at least every 20 ms, the same to the broadcast "
                   "address, the last frame overheard for the victim replayed at least every "
                   "20 ms (straight on the air, a jammer, or through CSMA-CA: replay-cca), "
                   "an X-MAC strobe naming the victim at least every 200 ms. Without "
                   "link-layer security the bound is the budget's (docs/MAC.md): a pending-bit "
                   "sender holds a victim at most about 0.33 s a second; with it, an attacker "
                   "without the key opens no burst at all."])


register(Experiment(
    name="denial-of-sleep",
    title="Denial of sleep: a misbehaving node against each duty-cycling RDC (issue 24)",
    source="issue 24's audit (forged pending bits, replays, strobes); docs/MAC.md",
    scenario="denial-of-sleep.toml",
    runs=5,
    vary={},
    arms=_arms(),
    metrics_fn=dos_metrics,
    report=dos_report,
))
