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
    nodes.mean.radio_on_per_delivered_segment_ms  per-node shares of a delivery,
    nodes.max.energy_per_delivered_kb_mj          averaged and at the busiest node
    totals.radio_on_per_delivered_segment_ms the network's radio-on time, energy
    totals.energy_per_delivered_kb_mj        per delivered segment / 1000 bytes

The simulator writes only non-zero counters, so a counter missing from a run
is 0 there (`missing_is_zero`). Per-node figures stay in the raw result,
which a sweep keeps beside every run; experiments derive their own metrics
from it.
"""
from __future__ import annotations

from typing import Any

from .scenario import canonical_key

#: Families whose absent members count as 0 (the simulator omits zero counters).
ZERO_PREFIXES = ("nodes.sum.", "totals.")

#: Per-node shares, whose sum over nodes means nothing: averaged and maxed.
NODE_SHARES = ("duty_cycle", "radio_on_per_delivered_segment_ms", "energy_per_delivered_kb_mj")


def missing_is_zero(name: str) -> bool:
    return name.startswith(ZERO_PREFIXES)


def _number(v: Any) -> float | int | None:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    return None


def _flatten(prefix: str, v: Any, out: dict) -> None:
    if isinstance(v, dict):
        for k, x in v.items():
            _flatten(f"{prefix}.{k}" if prefix else k, x, out)
        return
    n = _number(v)
    if n is not None:
        out[prefix] = n


def from_result(result: dict) -> dict[str, float]:
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
    for k in ("energy_j", "energy_mj"):
        vals = [n[k] for n in nodes if _number(n.get(k)) is not None]
        if vals:
            m[f"nodes.max.{k}"] = max(vals)
    return m


def resolve(name: str) -> str:
    """The canonical spelling of a metric name typed by a user."""
    return canonical_key(name)
