"""The CPU energy account (sim/cpu_energy.c, docs/SIMULATOR.md "CPU energy").

1. an idle ContikiMAC node's CPU time is its channel checks (duration x rate,
   known without the run) times a check's measured cost, and its energy that
   time at the active current plus the rest in low-power mode;
2. in a TCP run every node's CPU time is the sum of its events times their
   costs, the counts being the run's own counters (frames, TCP segments,
   checks), on either radio profile's CPU;
3. the same scenario and seed give the same account.
"""
from __future__ import annotations

import math

import pytest

from simrun import run_ok

# Measured ATmega1284P cycles per event (bench/avr-cycles --events), as
# sim/cpu_energy.c holds them; the profiles' clocks and currents.
AVR_CYCLES = {"channel_check": 6186, "frame_tx": 8937, "frame_rx": 9880,
              "tcp_seg_in": 3609, "tcp_seg_out": 16420}
# ... and Cortex-M4 instructions per event (bench/events-arm), the nRF52840's
M4_INSNS = {"channel_check": 1114, "frame_tx": 1628, "frame_rx": 2301,
            "tcp_seg_in": 640, "tcp_seg_out": 3427}
CPUS = {"cc2420": (8e6, 2.4, 0.0051), "at86rf233": (48e6, 4.09, 0.0038),
        "nrf52840": (64e6, 3.3, 0.00316)}
COUNTS = {"cc2420": AVR_CYCLES, "at86rf233": AVR_CYCLES, "nrf52840": M4_INSNS}
VOLTAGE = 3.0


def event_us(profile: str, event: str) -> float:
    return COUNTS[profile][event] / CPUS[profile][0] * 1e6


def test_idle_cpu_time_is_its_checks_times_their_cost(tmp_path):
    duration, rate = 20, 8
    sc = {"name": "cpu-idle", "duration_s": duration, "stop_when_done": False,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
          "mac": {"type": "nullmac", "rdc": {"type": "contikimac", "check_rate_hz": rate}}}
    r = run_ok(sc, tmp_path)
    assert r["cpu"]["mcu"] == "MSP430F1611" and r["cpu"]["clock_hz"] == 8e6
    for n in r["node_stats"]:
        checks = n["cpu"]["channel_check"]
        assert checks == n["mac"]["rdc_checks"]
        assert abs(checks - duration * rate) <= 1
        active_s = checks * event_us("cc2420", "channel_check") / 1e6
        assert n["cpu"]["active_s"] == pytest.approx(active_s, rel=1e-9)
        assert n["cpu_duty_cycle"] == pytest.approx(active_s / duration, rel=1e-9)
        _, active_ma, lpm_ma = CPUS["cc2420"]
        mj = (active_ma * active_s + lpm_ma * (duration - active_s)) * VOLTAGE
        assert n["cpu_energy_mj"] == pytest.approx(mj, rel=1e-9)
        # nothing else happened: no frame, no segment
        assert all(n["cpu"][k] == 0 for k in AVR_CYCLES if k != "channel_check")
    assert r["totals"]["cpu_duty_cycle_mean"] == pytest.approx(
        sum(n["cpu_duty_cycle"] for n in r["node_stats"]) / 3, rel=1e-9)


@pytest.mark.parametrize("profile", ["cc2420", "at86rf233", "nrf52840"])
def test_a_tcp_run_costs_the_sum_of_its_events(tmp_path, profile):
    sc = {"name": "cpu-tcp", "seed": 5, "duration_s": 60,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
          "medium": {"range_m": 12}, "radio": {"profile": profile},
          "mac": {"type": "csma"},
          "flows": [{"type": "tcp", "src": 0, "dst": 2, "bytes": 4000}]}
    r = run_ok(sc, tmp_path)
    assert r["flows"][0]["complete"]
    assert r["cpu"]["clock_hz"] == CPUS[profile][0]
    for k in AVR_CYCLES:
        assert r["cpu"]["event_us"][k] == pytest.approx(event_us(profile, k), rel=1e-9)
    total = 0.0
    for n in r["node_stats"]:
        c = n["cpu"]
        # the counts are the run's own counters
        assert c["frame_tx"] == n["frames_tx"] and c["frame_rx"] == n["frames_rx"]
        assert c["tcp_seg_in"] == n.get("tcp", {}).get("segs_rx", 0)
        assert c["tcp_seg_out"] == n.get("tcp", {}).get("segs_tx", 0)
        assert c["channel_check"] == 0          # no duty cycling
        us = sum(c[k] * event_us(profile, k) for k in AVR_CYCLES)
        assert c["active_s"] == pytest.approx(us / 1e6, rel=1e-9)
        total += c["active_s"]
    ends = [r["node_stats"][0], r["node_stats"][2]]
    assert all(n["cpu"]["tcp_seg_out"] > 0 and n["cpu"]["tcp_seg_in"] > 0 for n in ends)
    assert r["node_stats"][1]["cpu"]["frame_rx"] > 0        # the relay forwards
    assert r["totals"]["cpu_active_s"] == pytest.approx(total, rel=1e-9)


def test_the_account_is_deterministic(tmp_path):
    sc = {"name": "cpu-det", "seed": 9, "duration_s": 30,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
          "medium": {"range_m": 12},
          "mac": {"type": "nullmac", "rdc": {"type": "contikimac"}},
          "flows": [{"type": "tcp", "src": 0, "dst": 2, "bytes": 2000}]}
    runs = []
    for i in range(2):
        d = tmp_path / f"r{i}"
        d.mkdir()
        runs.append(run_ok(sc, d))
    a, b = ([(n["cpu"], n["cpu_duty_cycle"], n["cpu_energy_mj"]) for n in r["node_stats"]]
            for r in runs)
    assert a == b
    assert all(math.isfinite(x[2]) and x[2] > 0 for x in a)
