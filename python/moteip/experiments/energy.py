"""Duty cycling and energy against the seeds (issue 13): the ContikiMAC
report's idle duty cycle and unicast cost, DTC's energy per delivered
segment and per-node load, cctrl over four MACs (Buergi), TCP over a sleepy
leaf (TCPlp Appendix C, section 9), and TCP across an all-duty-cycled path."""
from __future__ import annotations

from ..jsontypes import JsonObj
from ..table import mean_ci, num, render
from . import Arms, Experiment, PlotSpec, Report, mean, metric, point, register
from .relay import (
    CCTRL_ARMS,
    CCTRL_HOPS,
    TELOSB,
    _hops_text,
    _overall,
    cctrl_metrics,
    gain_ci,
    overall_ci,
    separated_hops,
)

# --- contikimac-idle: idle duty cycle and the cost of a unicast --------------------

#: The ContikiMAC report (SICS T2011:13): radio off 99.2-99.6 % idle at 8 Hz;
#: a unicast adds 0.07-1.2 % radio-on time.
REPORT_OFF = (0.992, 0.996)
REPORT_UNICAST = (0.0007, 0.012)


def idle_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    s, r = result["node_stats"][0], result["node_stats"][1]
    return {"sender_dc": s["duty_cycle"], "receiver_dc": r["duty_cycle"],
            "sender_on_s": s["radio_on_s"], "receiver_on_s": r["radio_on_s"],
            "sent": result["flows"][0]["sent"], "delivery": result["flows"][0]["delivery_ratio"]}


def _sub(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _pct(x: float | None, digits: int) -> str:
    return f"{x * 100:.{digits}f} %" if x is not None else "-"


def idle_report(summary: JsonObj) -> Report:
    def find(arm: str, rate: float, payload: int, tr: int) -> JsonObj | None:
        points: list[JsonObj] = summary["points"]
        for p in points:
            q = p["params"]
            if (q["arm"], q["mac.rdc.check_rate_hz"], q["flows[0].payload_bytes"],
                    q["mac.rdc.cca_on_us"]) == (arm, rate, payload, tr):
                return p
        return None
    v = summary["vary"]
    rows = []
    for tr in v["mac.rdc.cca_on_us"]:
        for rate in v["mac.rdc.check_rate_hz"]:
            for payload in v["flows[0].payload_bytes"]:
                idle, uni = find("idle", rate, payload, tr), find("unicast", rate, payload, tr)
                dc0 = mean(idle, "sender_dc")
                formula = 2 * tr * rate / 1e6
                ds = _sub(mean(uni, "sender_dc"), dc0)
                dr = _sub(mean(uni, "receiver_dc"), mean(idle, "receiver_dc"))
                sent = mean(uni, "sent")
                on_s = _sub(mean(uni, "sender_on_s"), mean(idle, "sender_on_s"))
                on_r = _sub(mean(uni, "receiver_on_s"), mean(idle, "receiver_on_s"))
                per_s = on_s * 1e3 / sent if on_s is not None and sent else None
                per_r = on_r * 1e3 / sent if on_r is not None and sent else None
                rows.append([str(tr), str(rate), str(payload),
                             f"{dc0 * 100:.4f} %" if dc0 is not None else "-",
                             f"{formula * 100:.4f} %",
                             f"{(1 - dc0) * 100:.2f} %" if dc0 is not None else "-",
                             "99.2-99.6 %" if rate == 8 else "-",
                             f"{ds * 100:.3f} %" if ds is not None else "-",
                             f"{dr * 100:.3f} %" if dr is not None else "-",
                             num(per_s, 3), num(per_r, 3), mean_ci(metric(uni, "delivery")) if uni else "-"])
    return Report(["T_r us", "rate Hz", "payload B", "idle duty cycle", "2 T_r / T", "radio off",
                   "report off", "+1 unicast/s sender", "+ receiver", "ms/unicast sender",
                   "ms/unicast receiver", "delivery"], rows,
                  ["The ContikiMAC report: idle at 8 Hz the radio is off 99.2-99.6 %; a unicast adds "
                   "0.07-1.2 % radio-on time. The model counts a channel check as its cca_count CCA "
                   "windows of T_r (the report's T_r = 0.192 ms, the CC2420's RSSI settling time), "
                   "so idle is exactly 2 T_r / T; the hardware figure also pays the radio's "
                   "oscillator start-up and the MCU's wake-up around each check, which the report's "
                   "timing leaves out of T_r. T_r = 250 us shows the sensitivity: 0.40 % at 8 Hz. "
                   "A unicast a second: the sender pays its own check, a copy that wakes the "
                   "receiver, the copy it receives and the ACK (5 ms for a 52-byte MPDU); the first "
                   "report of a run, before the phase is learned, costs about T/2 of copies and is "
                   "included (1 of ~59). ms/unicast: extra radio-on time per report sent."])


register(Experiment(
    name="contikimac-idle",
    title="ContikiMAC idle duty cycle and the cost of one unicast (ContikiMAC report, SICS T2011:13)",
    source="Dunkels, The ContikiMAC Radio Duty Cycling Protocol, SICS T2011:13",
    scenario="contikimac-idle.toml",
    runs=2,
    metrics_fn=idle_metrics,
    report=idle_report,
    arms=[("idle", {"flows[0].start_s": 100000}), ("unicast", {})],
))


# --- contikimac-platform: the same on the platforms' timing and drifting clocks -----


def platform_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    m = idle_metrics(result, params)
    s = result["node_stats"][0]
    hours = result["sim_time_s"] / 3600
    m.update({"rx_on_us": result["radio"]["rx_on_us"],
              "phase_misses": s["mac"].get("rdc_phase_misses", 0),
              "phase_locked": s["mac"].get("rdc_phase_locked", 0),
              # the CPU account beside the radio's (docs/SIMULATOR.md "CPU energy")
              "cpu_dc": s["cpu_duty_cycle"],
              "radio_mj_h": s["energy_mj"] / hours, "cpu_mj_h": s["cpu_energy_mj"] / hours})
    return m


def platform_report(summary: JsonObj) -> Report:
    rows = []
    for plat in summary["vary"]["platform"]:
        for payload in summary["vary"]["flows[0].payload_bytes"]:
            q = {"platform": plat, "flows[0]__payload_bytes": payload}
            idle, uni = point(summary, arm="idle", **q), point(summary, arm="unicast", **q)
            dc0 = mean(idle, "sender_dc")
            ton = mean(idle, "rx_on_us") or 0.0
            # a CCA window: the report's T_r (192 us) on the ideal radio, the
            # start-up and the 8-symbol RSSI average (128 us) on a platform
            formula = 2 * (192 if plat == "ideal" else ton + 128) * 8 / 1e6
            ds = _sub(mean(uni, "sender_dc"), dc0)
            dr = _sub(mean(uni, "receiver_dc"), mean(idle, "receiver_dc"))
            sent = mean(uni, "sent")
            on_s = _sub(mean(uni, "sender_on_s"), mean(idle, "sender_on_s"))
            per_s = on_s * 1e3 / sent if on_s is not None and sent else None
            rows.append([plat, str(payload),
                         f"{dc0 * 100:.4f} %" if dc0 is not None else "-",
                         f"{formula * 100:.4f} %",
                         f"{(1 - dc0) * 100:.2f} %" if dc0 is not None else "-",
                         f"{ds * 100:.3f} %" if ds is not None else "-",
                         f"{dr * 100:.3f} %" if dr is not None else "-",
                         num(per_s, 3), num(mean(uni, "phase_misses"), 3),
                         num(mean(uni, "phase_locked"), 3),
                         mean_ci(metric(uni, "delivery")) if uni else "-",
                         _pct(mean(idle, "cpu_dc"), 4), num(mean(idle, "radio_mj_h"), 3),
                         num(mean(idle, "cpu_mj_h"), 3)])
    return Report(["platform", "payload B", "idle duty cycle", "formula", "radio off",
                   "+1 unicast/s sender", "+ receiver", "ms/unicast sender", "phase misses",
                   "phase-locked", "delivery", "idle CPU duty cycle", "idle radio mJ/h",
                   "idle CPU mJ/h"], rows,
                  ["The ContikiMAC report (SICS T2011:13): idle at 8 Hz the radio is off "
                   "99.2-99.6 % (0.4-0.8 % on); a unicast adds 0.07-1.2 % radio-on time. "
                   "Formula: 2 CCA windows per 125 ms, each T_r = 192 us on the ideal radio "
                   "(a parameter), the receiver's start-up plus its 128 us RSSI average on a "
                   "platform (a result of the datasheet: docs/SIMULATOR.md). On the platforms "
                   "each node's clock runs within +/-40 ppm and phase-locked trains start "
                   "Contiki's 1.343 ms guard early; phase misses: aimed trains that found no "
                   "receiver (none while the guard covers the drift between reports).",
                   "Beside the radio, the idle sender's CPU account (docs/SIMULATOR.md \"CPU "
                   "energy\"): its channel checks at the measured cost of one on the profile's "
                   "CPU (ATmega1284P cycles on the MSP430 and SAM R21, Cortex-M4 instructions "
                   "on the nRF52840) and the rest in low-power mode; radio and CPU energy per "
                   "hour at the profiles' currents and 3 V (the nRF52840's radio draws nothing "
                   "of its own when off: its kept HFXO is not counted)."])


register(Experiment(
    name="contikimac-platform",
    title="ContikiMAC idle and one unicast on the CC2420, AT86RF233 and nRF52840 platforms, "
          "clocks drifting",
    source="Dunkels, The ContikiMAC Radio Duty Cycling Protocol, SICS T2011:13; issue 25",
    scenario="contikimac-platform.toml",
    runs=2,
    metrics_fn=platform_metrics,
    report=platform_report,
    arms=[("idle", {"flows[0].start_s": 100000}), ("unicast", {})],
))


# --- dtc-energy: energy per delivered segment and per-node load (DTC section 9.6, Fig. 9.3) ---

DTC_NODES = 11          # examples/dtc.toml: a 10-hop chain, the sender is node 0
_OURS = {"relay.endpoints": True, "relay.ack_repair": True}
_CMAC = {"mac.rdc.type": "contikimac"}


def dtc_energy_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    nodes, t = result["node_stats"], result["totals"]
    seg = t["delivered_segments"] or None
    m = {"e2e": result["flows"][0]["e2e_retransmissions"],
         "completion_s": result["flows"][0]["completion_time_s"],
         "duty_cycle_mean": t["duty_cycle_mean"],
         "radio_on_per_segment_ms": t["radio_on_per_delivered_segment_ms"],
         "energy_per_segment_mj": t["energy_mj"] / seg if seg else None,
         "energy_per_kb_mj": t["energy_per_delivered_kb_mj"],
         "frames_tx": sum(n["frames_tx"] for n in nodes),
         "max_node_on_per_segment_ms": max(n["radio_on_s"] for n in nodes) * 1e3 / seg if seg else None}
    for i, n in enumerate(nodes):
        m[f"n{i}.on_per_segment_ms"] = n["radio_on_s"] * 1e3 / seg if seg else None
        m[f"n{i}.frames_tx"] = n["frames_tx"]
        m[f"n{i}.energy_per_segment_mj"] = n["energy_mj"] / seg if seg else None
    return {k: v for k, v in m.items() if v is not None}


def dtc_energy_report(summary: JsonObj) -> Report:
    arms = summary["vary"]["arm"]
    rows = []
    for arm in arms:
        p = point(summary, arm=arm)
        rows.append([arm, mean_ci(metric(p, "e2e")), mean_ci(metric(p, "completion_s")),
                     mean_ci(metric(p, "frames_tx")),
                     mean_ci(metric(p, "duty_cycle_mean")),
                     mean_ci(metric(p, "radio_on_per_segment_ms")),
                     mean_ci(metric(p, "max_node_on_per_segment_ms")),
                     mean_ci(metric(p, "energy_per_segment_mj"))])
    load, on = [], []
    for arm in arms:
        p = point(summary, arm=arm)
        load.append([arm] + [num((metric(p, f"n{i}.frames_tx") or {}).get("mean"), 4)
                             for i in range(DTC_NODES)])
        on.append([arm] + [num((metric(p, f"n{i}.on_per_segment_ms") or {}).get("mean"), 3)
                           for i in range(DTC_NODES)])
    notes = ["DTC (seeds/000 section 9.6): caching saves energy because a lost segment is resent "
             "from near the loss, not from the source; Fig. 9.3 (no values in the text) shows the "
             "load on the nodes near the sender falling with DTC.",
             "Scenario examples/dtc.toml unchanged (10 hops, 10 % data / 5 % ACK / 2 % link-ACK loss "
             "per reception, CSMA-CA with one link retry, 500 segments of 64 B, one in flight); "
             "*-cmac arms run ContikiMAC (8 Hz, the report's timing) on every node instead of an "
             "always-on radio. Energy: CC2420 profile (docs/SIMULATOR.md), every node, the flow's "
             "time only (stop_when_done).",
             "radio-on / segment: all nodes' radio-on time over the 500 delivered segments; "
             "busiest node: the largest single node's; energy / segment: all nodes' mJ over 500.",
             "Per-node load, frames sent by node 0 (the sender) .. 10 (the receiver), means:",
             render(["arm"] + [f"n{i}" for i in range(DTC_NODES)], load),
             "Per-node radio-on time per delivered segment (ms), node 0 .. 10, means "
             "(a ContikiMAC frame counts every copy of a train, so radio time is its load):",
             render(["arm"] + [f"n{i}" for i in range(DTC_NODES)], on)]
    return Report(["arm", "e2e retransmissions", "completion (s)", "frames (all)", "duty cycle (mean)",
                   "radio-on / segment (ms)", "busiest node on / segment (ms)",
                   "energy / segment (mJ)"], rows, notes)


register(Experiment(
    name="dtc-energy",
    title="DTC: energy per delivered segment and per-node load (DTC section 9.6, Fig. 9.3)",
    source="Dunkels, Alonso, Voigt, Ritter, Schiller, Distributed TCP Caching, section 9.6",
    scenario="dtc.toml",
    runs=10,
    metrics_fn=dtc_energy_metrics,
    report=dtc_energy_report,
    arms=[("tcp", {"relay.mode": "off"}),
          ("dtc", {"relay.mode": "dtc"}),
          ("dtc-ours", {"relay.mode": "dtc", **_OURS}),
          ("tcp-cmac", {"relay.mode": "off", **_CMAC}),
          ("dtc-cmac", {"relay.mode": "dtc", **_CMAC}),
          ("dtc-ours-cmac", {"relay.mode": "dtc", **_OURS, **_CMAC})],
))


# --- cctrl-mac: Buergi's single-route experiments over four MACs (chapter 5) ------------

#: (label, scenario keys): the duty-cycled MACs of [B] Figs. 5.12(b-d), 5.13. NullMAC
#: (Fig. 5.12(a)) is `moteip reproduce cctrl`: the same scenario, platform and seeds
CCTRL_MACS = [("xmac", {"mac.rdc.type": "xmac"}),
              ("lpp", {"mac.rdc.type": "lpp"}),
              ("contikimac", {"mac.rdc.type": "contikimac"})]
#: the thesis's single-route overall comparison (Fig. 5.12 throughput, 5.13 radio-on), as
#: its text states it (section 5.3.6); the figures' bars have no values in the text
CCTRL_MAC_THESIS = {
    "xmac": "Fig. 5.12(b): dual up to +17 %, hop about -17 %; Fig. 5.13(a): best radio-on -6 %/packet",
    "lpp": "Fig. 5.12(c): hop lowest, activity + dual +40 %; Fig. 5.13(b): that one +15 % radio-on",
    "contikimac": "Fig. 5.12(d): no cctrl configuration helps; cctrl decreases throughput "
                  "'dramatically' (spurious local retransmissions interfere)",
}
CCTRL_MAC_CONFIGS = ["unmodified", "basic", "keep", "keep-drop", "hop", "activity", "dual",
                     "dual-unmodified", "keep-link"]


def _cctrl_mac_arms() -> list[tuple[str, JsonObj]]:
    """Every MAC x configuration on the TelosB platform (issue 25: [B]'s
    hardware; the duty-cycled MACs' grids and phase locks on drifting clocks)."""
    cfg = dict(CCTRL_ARMS)
    return [(f"{mac}/{c}", {**keys, **cfg[c], **TELOSB})
            for mac, keys in CCTRL_MACS for c in CCTRL_MAC_CONFIGS]


def cctrl_mac_report(summary: JsonObj) -> Report:
    arms = set(summary["vary"]["arm"])
    macs = [m for m, _ in CCTRL_MACS if f"{m}/unmodified" in arms]
    rows = []
    for c in CCTRL_MAC_CONFIGS:
        row = [c]
        for m in macs:
            seg = _overall(summary, f"{m}/{c}", "delivered_segments")
            base = _overall(summary, f"{m}/unmodified", "delivered_segments")
            on = _overall(summary, f"{m}/{c}", "radio_on_ms_per_node_segment")
            on0 = _overall(summary, f"{m}/unmodified", "radio_on_ms_per_node_segment")
            row.append("-" if seg is None else
                       f"{seg:.0f} ({100 * (seg / base - 1):+.0f} %)" if base else f"{seg:.0f}")
            row.append("-" if on is None else
                       f"{on:.1f} ({100 * (on / on0 - 1):+.0f} %)" if on0 else f"{on:.1f}")
        rows.append(row)
    headers = ["configuration"]
    for m in macs:
        fig = {"xmac": "5.12(b)", "lpp": "5.12(c)", "contikimac": "5.12(d)"}[m]
        efig = {"xmac": "5.13(a)", "lpp": "5.13(b)", "contikimac": "5.13 -"}[m]
        headers += [f"{m} segments [Fig {fig}]", f"{m} radio-on ms/node/seg [Fig {efig}]"]
    per_hop = []
    for m in macs:
        for c in CCTRL_MAC_CONFIGS:
            cells = []
            for h in CCTRL_HOPS:
                p = point(summary, arm=f"{m}/{c}", topology__nodes=h + 1)
                cells.append(mean_ci(metric(p, "delivered_segments")) if p else "-")
            per_hop.append([f"{m}/{c}"] + cells)
    # issue 25: a change counts only where the intervals separate
    sep = []
    for c in CCTRL_MAC_CONFIGS[1:]:
        cells = [c]
        for m in macs:
            a = overall_ci(summary, f"{m}/{c}", "delivered_segments")
            b = overall_ci(summary, f"{m}/unmodified", "delivered_segments")
            if a is None or b is None:
                cells += ["-", "-"]
                continue
            g, ci = gain_ci(a, b)
            cells += [f"{g:+.0f} ± {ci:.0f} %",
                      _hops_text(*separated_hops(summary, f"{m}/{c}", f"{m}/unmodified"))]
        sep.append(cells)
    sep_headers = ["configuration (change ± CI)"]
    for m in macs:
        sep_headers += [f"{m} vs unmodified", f"{m}: hops separated"]
    notes = ["Cells: the thesis's 'overall' value, the mean over 2-6 hops of the per-hop means, and "
             "its change against the same MAC's unmodified forwarders.",
             "Thesis (Buergi, section 5.3.6, as its text states; no bar values in the text): "]
    notes += [f"  {m}: {CCTRL_MAC_THESIS[m]}" for m in macs]
    notes += ["Scenario examples/cctrl.toml (802.15.4 CSMA-CA with one link retry, BER 2.5e-4, "
              "16-byte segments, one in flight, 600 s) with each MAC's RDC at its Contiki 2.5 "
              "defaults (docs/MAC.md); configurations as `moteip reproduce cctrl`.",
              "Platform: cc2420 (TelosB, [B]'s mote: 192 us receiver start-up, 500 kb/s SPI per "
              "frame, clocks within +/-40 ppm; docs/SIMULATOR.md).",
              "Change of segments against unmodified with its 95 % interval (overall interval "
              "sqrt(sum ci^2) / 5, propagated to the ratio), and the path lengths whose per-hop "
              "intervals separate (cctrl above or below):",
              render(sep_headers, sep),
              "Segments delivered in 600 s per hop count (mean ± 95 % CI):",
              render(["arm"] + [f"{h} hops" for h in CCTRL_HOPS], per_hop)]
    return Report(headers, rows, notes)


register(Experiment(
    name="cctrl-mac",
    title="cctrl over X-MAC, LPP and ContikiMAC on the TelosB platform: throughput and radio-on "
          "time per packet (Buergi, Figs 5.12(b-d), 5.13; NullMAC: cctrl)",
    source="Buergi, cctrl (Contiki cache-and-control module), chapter 5.3",
    scenario="cctrl.toml",
    runs=15,
    metrics_fn=cctrl_metrics,
    report=cctrl_mac_report,
    vary={"topology.nodes": [3, 4, 5, 6, 7]},
    arms=_cctrl_mac_arms(),
))


# --- tcplp-dutycycle: TCPlp Appendix C and section 9 over a sleepy leaf ------------------

#: TCPlp Appendix C.2: adaptive interval, uplink 68.6 kb/s, 0.1 % idle duty cycle;
#: Table 8 (section 9): TCPlp reliability 99.3 %, radio duty cycle 2.29 %, CPU duty cycle
#: 0.973 %; CoAP 99.5 %, 1.84 %, 0.834 %.
TCPLP_ADAPTIVE_UP_BPS = 68_600
TCPLP_ADAPTIVE_DOWN_BPS = 55_600
TCPLP_IDLE_DC = 0.001
TCPLP_TABLE8 = {"tcp": (0.993, 0.0229, 0.00973), "coap": (0.995, 0.0184, 0.00834)}

_LEAF = "mac.nodes[1].rdc"
_IDLE = {"flows[0].start_s": 100000, "duration_s": 600}
_DOWN = {"flows[0].src": 0, "flows[0].dst": 1}
_S9_NODES = [{"ids": [2], "rdc": {"type": "parent"}},
             {"ids": [3], "rdc": {"type": "leaf", "parent": 2, "poll_ms": 240000, "poll_fast_ms": 100}}]
_S9 = {"topology.nodes": 4, "medium.range_m": 10.5, "medium.interference_range_m": 20.5,
       "mac.link_acks": True, "mac.retry_delay_max_us": 40000, "mac.nodes": _S9_NODES}


def _sleep(poll_ms: int, adapt_max_ms: int = 0) -> JsonObj:
    return {f"{_LEAF}.poll_ms": poll_ms, f"{_LEAF}.adapt_max_ms": adapt_max_ms}


TCPLP_DC_ARMS: Arms = [
    ("fixed-20ms", _sleep(20)), ("fixed-100ms", _sleep(100)), ("fixed-500ms", _sleep(500)),
    ("fixed-2s", _sleep(2000)),
    ("adaptive-20ms-5s", _sleep(20, 5000)),
    ("adaptive-20ms-2s", _sleep(20, 2000)), ("adaptive-20ms-10s", _sleep(20, 10000)),
    ("idle/fixed-20ms", {**_sleep(20), **_IDLE}), ("idle/fixed-2s", {**_sleep(2000), **_IDLE}),
    ("idle/adaptive-20ms-5s", {**_sleep(20, 5000), **_IDLE}),
    ("idle/adaptive-20ms-2s", {**_sleep(20, 2000), **_IDLE}),
    ("idle/adaptive-20ms-10s", {**_sleep(20, 10000), **_IDLE}),
    ("down/fixed-20ms", {**_sleep(20), **_DOWN}), ("down/fixed-2s", {**_sleep(2000), **_DOWN}),
    ("down/adaptive-20ms-5s", {**_sleep(20, 5000), **_DOWN}),
    ("s9/tcp", {**_S9, "flows": [{"type": "sensor", "src": "last", "dst": 0, "transport": "tcp",
                                  "count": 640}]}),
    # CoAP over the same leaf: its requests ask for fast polls too (mip_stack_awaits_reply)
    ("s9/coap", {**_S9, "flows": [{"type": "sensor", "src": "last", "dst": 0, "transport": "coap",
                                   "count": 640}]}),
]


def tcplp_dc_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    f = result["flows"][0]
    leaf = result["node_stats"][-1]
    m = {"leaf_duty_cycle": 100.0 * leaf["duty_cycle"], "leaf_energy_mj": leaf["energy_mj"],
         "leaf_cpu_duty_cycle": 100.0 * leaf["cpu_duty_cycle"],
         "leaf_cpu_energy_mj": leaf["cpu_energy_mj"], "sim_time_s": result["sim_time_s"]}
    if f["type"] == "tcp":
        m.update(goodput_bps=f["goodput_bps"], complete=1.0 if f["complete"] else 0.0,
                 rto=f["rto_timeouts"])
        if f["srtt_ms"]["samples"]:
            m["srtt_ms"] = f["srtt_ms"]["mean"]
    else:
        m.update(reliability=f["reliability"], rto=f.get("rto_timeouts", 0),
                 latency_ms=f["latency_mean_ms"])
    return m


def tcplp_dc_report(summary: JsonObj) -> Report:
    rows = []
    for arm in summary["vary"]["arm"]:
        if arm.split("/")[0] in ("idle", "s9", "down"):
            continue
        p = point(summary, arm=arm)
        idle = point(summary, arm=f"idle/{arm}")
        rows.append([arm, mean_ci(metric(p, "goodput_bps")), mean_ci(metric(p, "srtt_ms")),
                     mean_ci(metric(p, "leaf_duty_cycle")),
                     num(mean(idle, "leaf_duty_cycle"), 3) if idle else "-",
                     num(TCPLP_ADAPTIVE_UP_BPS) if arm == "adaptive-20ms-5s" else "-",
                     f"{100 * TCPLP_IDLE_DC:.1f}" if arm == "adaptive-20ms-5s" else "-"])
    down = []
    for arm in summary["vary"]["arm"]:
        if arm.startswith("down/"):
            p = point(summary, arm=arm)
            down.append([arm, mean_ci(metric(p, "goodput_bps")), mean_ci(metric(p, "rto")),
                         mean_ci(metric(p, "leaf_duty_cycle")),
                         num(TCPLP_ADAPTIVE_DOWN_BPS) if arm == "down/adaptive-20ms-5s" else "-"])
    s9 = []
    for arm in summary["vary"]["arm"]:
        if arm.startswith("s9/"):
            p = point(summary, arm=arm)
            pub = TCPLP_TABLE8[arm.split("/")[1]]
            s9.append([arm, mean_ci(metric(p, "reliability")), f"{pub[0]:.3f}",
                       mean_ci(metric(p, "leaf_duty_cycle")), f"{100 * pub[1]:.2f}",
                       mean_ci(metric(p, "leaf_cpu_duty_cycle")), f"{100 * pub[2]:.3f}",
                       mean_ci(metric(p, "rto")), mean_ci(metric(p, "latency_ms"))])
    notes = ["TCPlp Appendix C: uplink bulk TCP from a sleepy leaf to its always-on parent; fixed "
             "sleep intervals (Fig. 12: RTT about one sleep interval uplink, goodput falling with "
             "it), then the adaptive interval (C.2: 68.6 kb/s uplink, 0.1 % duty cycle idle). "
             "The minimum (20 ms) and maximum (5 s) are derived (examples/tcplp-dutycycle.toml); "
             "2 s and 10 s maxima show the sensitivity. Idle: the same leaf with no traffic for "
             "600 s.",
             "Downlink (node 0 to the leaf; TCPlp C.2: 55.6 kb/s adaptive):",
             render(["arm", "goodput b/s", "RTOs", "leaf duty cycle %", "TCPlp"], down),
             "Section 9, Table 8 (a day on TCPlp's testbed; ours 640 readings without injected "
             "loss): leaf duty cycle and reliability of the anemometer workload over TCP and "
             "over CoAP, the leaf polling every 4 min and every 100 ms while its transport waits "
             "for a reply (TCP: unacknowledged data; CoAP: a request without its response). "
             "The leaf's CPU duty cycle is the simulator's account (docs/SIMULATOR.md \"CPU "
             "energy\": the stack's measured cycles per event on the SAM R21's 48 MHz, without "
             "an operating system's scheduler and timers, which Table 8's RIOT figure includes):",
             render(["arm", "reliability", "Table 8", "leaf duty cycle %", "Table 8 %",
                     "leaf CPU duty cycle %", "Table 8 CPU %", "RTOs", "latency (ms)"], s9)]
    return Report(["arm (uplink)", "goodput b/s", "srtt (ms)", "leaf duty cycle % (transfer)",
                   "leaf duty cycle % idle", "TCPlp goodput", "TCPlp idle %"], rows, notes)


register(Experiment(
    name="tcplp-dutycycle",
    title="TCP over a duty-cycled leaf: fixed vs adaptive sleep interval (TCPlp App. C) and "
          "the section 9 sensor workload",
    source="Kumar et al., TCPlp, NSDI 2020, Appendix C and section 9 (Table 8)",
    scenario="tcplp-dutycycle.toml",
    runs=5,
    metrics_fn=tcplp_dc_metrics,
    report=tcplp_dc_report,
    vary={},
    arms=TCPLP_DC_ARMS,
))


#: The same leaf on the Hamilton platform (docs/SIMULATOR.md "platform": TCPlp's
#: AT86RF233 with its host's 8.2 ms per 127-byte frame, clocks within +/-40 ppm).
_HAMILTON_DC = ("fixed-20ms", "fixed-2s", "adaptive-20ms-5s", "idle/fixed-20ms", "idle/fixed-2s",
                "idle/adaptive-20ms-5s", "down/adaptive-20ms-5s", "s9/tcp", "s9/coap")

register(Experiment(
    name="tcplp-dutycycle-hamilton",
    title="tcplp-dutycycle on the Hamilton platform (at86rf233 timing, drifting clocks)",
    source="Kumar et al., TCPlp, NSDI 2020, Appendix C, section 9 (Table 8), section 6.4",
    scenario="tcplp-dutycycle.toml",
    runs=5,
    metrics_fn=tcplp_dc_metrics,
    report=tcplp_dc_report,
    vary={},
    arms=[(a, {**p, "platform": "at86rf233"}) for a, p in TCPLP_DC_ARMS if a in _HAMILTON_DC],
))


# --- tcp-dutycycled-path: beyond the seeds, TCP over an all-duty-cycled path -----------

def dc_path_metrics(result: JsonObj, params: JsonObj) -> JsonObj:
    f = result["flows"][0]
    dcs = [100.0 * n["duty_cycle"] for n in result["node_stats"]]
    interval = params.get("flows[0].interval_s", 1.0)
    return {"reliability": f["reliability"], "duty_max_pct": max(dcs),
            "duty_mean_pct": sum(dcs) / len(dcs),
            "goodput_bps": f["readings_delivered"] * 82 * 8 / (640 * interval),
            "rto": f["rto_timeouts"], "latency_s": f["latency_mean_ms"] / 1000}


def dc_path_report(summary: JsonObj) -> Report:
    rows = []
    for arm in summary["vary"]["arm"]:
        for n in summary["vary"]["topology.nodes"]:
            p = point(summary, arm=arm, topology__nodes=n)
            if p is None:
                continue
            rows.append([arm, str(n - 1), mean_ci(metric(p, "goodput_bps")),
                         mean_ci(metric(p, "reliability")), mean_ci(metric(p, "duty_mean_pct")),
                         mean_ci(metric(p, "duty_max_pct")), mean_ci(metric(p, "rto"))])
    return Report(["readings", "hops", "goodput b/s", "reliability", "duty cycle % (mean)",
                   "duty cycle % (busiest node)", "RTOs"], rows,
                  ["Every node runs ContikiMAC (8 Hz); goodput: readings delivered x 82 bytes over "
                   "the sampling time (the application's rate when nothing is lost). Target: TCP "
                   "across an all-duty-cycled multi-hop path at <= 2 % radio duty cycle."])


register(Experiment(
    name="tcp-dutycycled-path",
    title="TCP across 1-6 hops with every node on ContikiMAC: goodput at <= 2 % duty cycle",
    source="beyond the seeds (issue 13); workload TCPlp section 9",
    scenario="tcp-dutycycled-path.toml",
    runs=3,
    metrics_fn=dc_path_metrics,
    report=dc_path_report,
    arms=[("1-per-s", {}), ("4-per-s", {"flows[0].interval_s": 0.25}),
          # the adaptive interval (TCPlp Appendix C) on ContikiMAC: 125 ms after
          # traffic, doubling to 1 s while idle
          ("1-per-s-adaptive-1s", {"mac.rdc.adapt_max_ms": 1000})],
    plots=[PlotSpec("duty-vs-hops.png", "topology.nodes", "duty_max_pct", hue="arm",
                    xlabel="nodes (hops + 1)", ylabel="busiest node's radio duty cycle (%)",
                    reference=lambda s: {n: 2.0 for n in s["vary"]["topology.nodes"]},
                    reference_label="2 % (the target)")],
))
