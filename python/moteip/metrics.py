"""Metrics: one flat {name: number} dict per run, from the simulator's result.

Names are key paths into the result, so a metric says where it came from:

    sim_time_s, events                      the run
    flows[0].goodput_bps, flows[0].complete  every number (and boolean, as 0/1)
    flows[0].srtt_ms.mean                    of every flow, nested ones too
    totals.energy_j                          the result's totals
    nodes.sum.frames_tx                      every per-node number summed over
    nodes.sum.mac.tx_frames                  the nodes, and every MAC, stack and
    nodes.sum.tcp.rto_timeouts               TCP counter likewise
    nodes.max.energy_j, nodes.max.energy_mj  the busiest node's energy
    nodes.mean.duty_cycle                    the radio duty cycle, averaged
    nodes.max.duty_cycle                     ... and the highest one
    nodes.mean.cpu_duty_cycle                the CPU duty cycle (the simulator's
    nodes.max.cpu_energy_mj                  CPU account), likewise; the busiest
                                             node's CPU energy
    nodes.mean.radio_on_per_delivered_segment_ms  per-node shares of a delivery,
    nodes.max.energy_per_delivered_kb_mj          averaged and at the busiest node
    totals.radio_on_per_delivered_segment_ms the network's radio-on time, energy
    totals.energy_per_delivered_kb_mj        per delivered segment / 1000 bytes
    routing.flows[0].path_stretch            hops against the shortest path
    scenario_events[0].flows[0].resumed_after_s  a flow around each scenario event
                                             (in time order)

The simulator writes only non-zero counters, so a counter missing from a run
is 0 there (`missing_is_zero`). Per-node figures stay in the raw result,
which a sweep keeps beside every run; experiments derive their own metrics
from it.
"""
from __future__ import annotations

from typing import Any

from .jsontypes import JsonObj
from .scenario import canonical_key

#: Families whose absent members count as 0 (the simulator omits zero counters).
ZERO_PREFIXES = ("nodes.sum.", "totals.")

#: Per-node shares, whose sum over nodes means nothing: averaged and maxed.
NODE_SHARES = ("duty_cycle", "cpu_duty_cycle", "radio_on_per_delivered_segment_ms",
               "energy_per_delivered_kb_mj")


def missing_is_zero(name: str) -> bool:
    return name.startswith(ZERO_PREFIXES)


def _number(v: Any) -> float | int | None:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    return None


def _flatten(prefix: str, v: Any, out: JsonObj) -> None:
    if isinstance(v, dict):
        for k, x in v.items():
            _flatten(f"{prefix}.{k}" if prefix else k, x, out)
        return
    n = _number(v)
    if n is not None:
        out[prefix] = n


def from_result(result: JsonObj) -> dict[str, float]:
    """The flat metrics of one simulator result."""
    m: dict[str, float] = {}
    for k in ("sim_time_s", "events"):
        if _number(result.get(k)) is not None:
            m[k] = result[k]
    for i, flow in enumerate(result.get("flows", [])):
        _flatten(f"flows[{i}]", {k: v for k, v in flow.items() if k != "id"}, m)
    _flatten("totals", result.get("totals", {}), m)
    sums: dict[str, float] = {}
    for node in result.get("node_stats", []):
        flat: dict[str, float] = {}
        _flatten("", {k: v for k, v in node.items() if k != "id"}, flat)
        for k, v in flat.items():
            sums[k] = sums.get(k, 0) + v
    nodes = result.get("node_stats", [])
    for k, v in sums.items():
        if k not in NODE_SHARES:
            m[f"nodes.sum.{k}"] = v
    for k in NODE_SHARES:
        vals = [n[k] for n in nodes if _number(n.get(k)) is not None]
        if vals:
            m[f"nodes.mean.{k}"] = sum(vals) / len(vals)
            m[f"nodes.max.{k}"] = max(vals)
    for k in ("energy_j", "energy_mj", "cpu_energy_mj"):
        vals = [n[k] for n in nodes if _number(n.get(k)) is not None]
        if vals:
            m[f"nodes.max.{k}"] = max(vals)
    # dynamics (docs/SIMULATOR.md): routing.flows[N].path_stretch by flow id,
    # scenario_events[I].flows[N].stall_s by the event's place in time order
    routing = result.get("routing", {})
    _flatten("routing", {k: v for k, v in routing.items() if k != "flows"}, m)
    for f in routing.get("flows", []):
        _flatten(f"routing.flows[{f['flow']}]", {k: v for k, v in f.items() if k != "flow"}, m)
    for i, ev in enumerate(result.get("scenario_events", [])):
        _flatten(f"scenario_events[{i}]",
                 {k: v for k, v in ev.items() if k not in ("flows", "index")}, m)
        for f in ev.get("flows", []):
            _flatten(f"scenario_events[{i}].flows[{f['flow']}]",
                     {k: v for k, v in f.items() if k != "flow"}, m)
    return m


def resolve(name: str) -> str:
    """The canonical spelling of a metric name typed by a user."""
    return canonical_key(name)


# --- labels: what a metric or key means, with its unit ---------------------------------
#
# By the last part of the name (after the last dot), so flows[2].goodput_bps and
# nodes.sum.energy_j find theirs; a name not listed is labelled from its unit
# suffix (_s, _ms, _bps, ...) or left as it is.

#: last part of a metric or key -> (words, unit or "")
LABELS: dict[str, tuple[str, str]] = {
    # flows
    "goodput_bps": ("goodput", "b/s"),
    "completion_time_s": ("completion time", "s"),
    "complete": ("complete (share of runs)", ""),
    "bytes_delivered": ("bytes delivered", "B"),
    "bytes_sent": ("bytes sent", "B"),
    "e2e_retransmissions": ("end-to-end retransmissions", "segments"),
    "rto_timeouts": ("retransmission timeouts", ""),
    "segments_sent": ("segments sent", ""),
    "delivery_ratio": ("delivery ratio", ""),
    "loss_ratio": ("loss ratio", ""),
    "latency_mean_ms": ("mean latency", "ms"),
    "latency_max_ms": ("max. latency", "ms"),
    "received": ("received", ""),
    "sent": ("sent", ""),
    "hops": ("hops", ""),
    "srtt_ms": ("smoothed RTT", "ms"),
    "rtt_ms": ("round-trip time", "ms"),
    # nodes and totals
    "energy_j": ("energy", "J"),
    "duty_cycle": ("radio duty cycle", ""),
    "cpu_duty_cycle": ("CPU duty cycle", ""),
    "cpu_duty_cycle_mean": ("CPU duty cycle (mean)", ""),
    "cpu_energy_mj": ("CPU energy", "mJ"),
    "cpu_active_s": ("CPU active time", "s"),
    "radio_on_s": ("radio-on time", "s"),
    "tx_s": ("time transmitting", "s"),
    "rx_s": ("time receiving", "s"),
    "listen_s": ("time listening", "s"),
    "sleep_s": ("time asleep", "s"),
    "frames_tx": ("frames sent", ""),
    "frames_rx": ("frames received", ""),
    "frames_collided": ("frames collided", ""),
    "frames_corrupted": ("frames corrupted", ""),
    "link_retries": ("link retries", ""),
    "link_noack": ("frames without a link ACK", ""),
    "tcp_data_frames_tx": ("TCP data frames sent", ""),
    "tcp_ack_frames_tx": ("TCP ACK frames sent", ""),
    "sim_time_s": ("simulated time", "s"),
    "events": ("events", ""),
    # scenario keys (x axes)
    "ber": ("bit error rate", ""),
    "nodes": ("nodes", ""),
    "spacing_m": ("node spacing", "m"),
    "range_m": ("radio range", "m"),
    "interference_range_m": ("interference range", "m"),
    "retry_delay_max_us": ("max. delay before a link retry", "µs"),
    "max_retries": ("link retries allowed", ""),
    "payload_bytes": ("payload", "B"),
    "interval_s": ("report interval", "s"),
    "bytes": ("bytes to send", "B"),
    "mss": ("MSS", "B"),
    "rx_buffer": ("receive buffer", "B"),
    "tx_buffer": ("send buffer", "B"),
    "profile": ("profile", ""),
    "seed": ("seed", ""),
}

#: unit suffixes of names not in LABELS
SUFFIX_UNITS = (("_bps", "b/s"), ("_ms", "ms"), ("_us", "µs"), ("_s", "s"), ("_m", "m"),
                ("_j", "J"), ("_bytes", "B"), ("_dbm", "dBm"), ("_db", "dB"), ("_ma", "mA"))


def _words_unit(last: str) -> tuple[str, str]:
    if last in LABELS:
        return LABELS[last]
    for suffix, u in SUFFIX_UNITS:
        if last.endswith(suffix):
            return last[: -len(suffix)].replace("_", " "), u
    return last.replace("_", " "), ""


def label(name: str) -> str:
    """An axis label for a metric or scenario key: what it is, where it comes from
    and its unit. "flows[0].goodput_bps" -> "flows[0] goodput [b/s]",
    "nodes.sum.frames_tx" -> "frames sent, sum over nodes", "medium.ber" ->
    "bit error rate (medium.ber)"."""
    name = canonical_key(name)
    parts = name.split(".")
    stat = None
    if len(parts) > 1 and parts[-1] in ("mean", "min", "max", "samples"):
        stat, parts = parts[-1], parts[:-1]
    words, unit = _words_unit(parts[-1])
    if stat == "samples":
        words, unit = f"{words} samples", ""
    elif stat:
        words = f"{stat} {words}"
    prefix = parts[:-1]
    if prefix and prefix[0].startswith("flows[") and len(prefix) == 1:
        text = f"{prefix[0]} {words}"
    elif prefix[:1] == ["nodes"] and len(prefix) >= 2:
        sub = " ".join(prefix[2:]).upper()
        text = f"{sub + ' ' if sub else ''}{words}, {prefix[1]} over nodes"
    elif prefix == ["totals"]:
        text = f"total {words}"
    elif prefix:
        text = f"{words} ({name})"
    else:
        text = words
    if unit:
        text += f" [{unit}]"
    return text
