"""Simulated time past the wraps of the nodes' clocks (issue 24).

A node's stack clock is 32-bit milliseconds (wraps at 2^32 ms = 49.7 days)
and its MAC clock 32-bit microseconds (71.6 min); the simulator's own time
is 64-bit microseconds. Every deadline a node reports must land after the
simulator's current time, never at the truncated clock's wrapped value:
the trace's times never go back, and a sparse sensor flow (one CoAP reading
every 6 h, two nodes, so a simulated year costs about a second) delivers
every reading across every wrap."""
from __future__ import annotations

import json

import pytest

from simrun import run_ok, run_sim

DAY_S = 86400
YEAR_S = 365 * DAY_S + DAY_S // 4
READING_S = 6 * 3600


def scenario(duration_s: int, transport: str) -> dict:
    return {
        "name": "long-uptime", "seed": 7, "duration_s": duration_s,
        "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
        "medium": {"model": "unit_disk", "range_m": 10.5, "interference_range_m": 10.5},
        "mac": {"type": "csma_ca", "link_acks": True},
        "flows": [{"type": "sensor", "src": 1, "dst": 0, "transport": transport,
                   "interval_s": READING_S, "batch": 1}],
    }


def trace_times(path) -> list[int]:
    return [json.loads(line)["t_us"] for line in path.read_text().splitlines()]


@pytest.mark.parametrize("days,transport", [(60, "coap"), (60, "tcp"), (365.25, "coap")])
def test_time_runs_forward_and_every_reading_arrives(tmp_path, days, transport):
    duration_s = int(days * DAY_S)
    trace = tmp_path / "trace.jsonl"
    r = run_ok(scenario(duration_s, transport), tmp_path, "--trace", str(trace))
    t = trace_times(trace)
    back = [(a, b) for a, b in zip(t, t[1:]) if b < a]
    assert not back, f"the trace goes back in time: {back[:3]}"
    # the run reached its end, past the stack clock's wrap (2^32 ms)
    assert t[-1] > (2**32) * 1000 and t[-1] <= duration_s * 10**6, t[-1]
    f = r["flows"][0]
    taken = duration_s // READING_S          # readings at 0, 6 h, ... before the end
    assert taken <= f["readings_taken"] <= taken + 1, f
    # the last reading may still be on its way at the end
    assert f["readings_delivered"] >= f["readings_taken"] - 1, f
    assert f["bad_readings"] == 0 and f["queue_drops"] == 0 and f["duplicates"] == 0, f


def test_ten_years_are_accepted_and_more_is_refused(tmp_path):
    r = run_sim(scenario(10 * YEAR_S, "coap"), tmp_path, "--check")
    assert r.rc == 0, r.stderr
    r = run_sim(scenario(11 * YEAR_S, "coap"), tmp_path, "--check")
    assert r.rc == 2 and "duration_s" in r.stderr, r.stderr
