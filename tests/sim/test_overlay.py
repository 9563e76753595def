"""The application overlay in the simulator (scenario key "overlay", sim/overlay.c).

Every node runs apps/overlay.c; the sink at a corner of a 5 x 5 grid (8 hops
to the far corner) subscribes; each round must count every sensor once with
the right sum, min and max, and each node but the sink sends one DATA a round.
"""
from __future__ import annotations

from simrun import run_ok, run_sim

GRID = {"type": "grid", "rows": 5, "cols": 5, "spacing_m": 30}
MEDIUM = {"range_m": 35, "interference_range_m": 70}


def scenario(**overlay) -> dict:
    return {"name": "overlay", "seed": 1, "duration_s": 130, "stop_when_done": False,
            "topology": GRID, "medium": MEDIUM, "mac": {"type": "csma_ca"},
            "overlay": {"sink": 0, "interval_s": 30, "depth": 8, "slot_ms": 1000,
                        "lifetime_s": 90, **overlay}}


def test_every_round_aggregates_every_sensor(tmp_path):
    ov = run_ok(scenario(), tmp_path)["overlay"]
    assert ov["sensors"] == 24
    # rounds end at 30, 60, 90, 120 s and are reported 8 slots (8 s) later
    assert ov["rounds"] == 4
    assert ov["rounds_exact"] == 4
    assert ov["readings_delivered"] == ov["readings_taken"] == 4 * 24
    assert ov["data_tx"] == 4 * 24          # one aggregate per node and round
    assert 0 < ov["latency_mean_ms"] < 8 * 1000 + 1000
    assert sum(ov["drops"][k] for k in ("malformed", "late", "no_gradient", "tx")) == 0


def test_the_schedule_must_fit_the_round(tmp_path):
    r = run_sim(scenario(interval_s=8, depth=8, slot_ms=1000), tmp_path)
    assert r.rc != 0
    assert "overlay.slot_ms" in r.stderr and "depth * slot_ms under interval_s" in r.stderr
