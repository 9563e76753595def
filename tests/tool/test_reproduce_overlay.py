"""`moteip reproduce overlay` (python/moteip/experiments/overlay.py): the arms
and the per-reading metrics, from hand-made results (the simulator's side is
tests/sim/test_overlay.py)."""
from __future__ import annotations

from moteip.experiments import get
from moteip.experiments.overlay import ARMS, overlay_metrics

TOTALS = {"frames_tx": 300, "control_frames_tx": 40, "duty_cycle_mean": 0.01, "energy_mj": 600.0,
          "radio_on_s": 3.0}


def test_registered_with_its_arms():
    e = get("overlay")
    assert e.scenario == "overlay.toml" and e.arms is ARMS
    labels = [a for a, _ in ARMS]
    for mac in ("csma", "contikimac"):
        assert {f"unicast-rpl-{mac}", f"overlay-{mac}", f"overlay+rpl-{mac}",
                f"overlay-lt600-{mac}"} <= set(labels)
    keys = dict(ARMS)
    assert "overlay" not in keys["unicast-rpl-csma"]
    assert keys["overlay-csma"]["flows"] == [] and keys["overlay-csma"]["routing"] == {"type": "shortest"}
    assert "routing" not in keys["overlay+rpl-csma"]          # the scenario's RPL stays


def test_metrics_of_an_overlay_run():
    m = overlay_metrics({"totals": TOTALS, "overlay": {"readings_taken": 100, "readings_delivered": 60,
                                                       "latency_mean_ms": 2500.0}}, {})
    assert (m["readings_delivered"], m["delivery_ratio"], m["latency_ms"]) == (60, 0.6, 2500.0)
    assert (m["frames_per_reading"], m["energy_mj_per_reading"]) == (5.0, 10.0)
    assert m["radio_on_ms_per_reading"] == 50.0


def test_metrics_of_a_unicast_run_weigh_latency_by_arrivals():
    flows = [{"type": "udp", "sent": 10, "received": 10, "latency_mean_ms": 10.0},
             {"type": "udp", "sent": 10, "received": 5, "latency_mean_ms": 40.0}]
    m = overlay_metrics({"totals": TOTALS, "flows": flows}, {})
    assert (m["readings_taken"], m["readings_delivered"]) == (20, 15)
    assert m["latency_ms"] == 20.0 and m["frames_per_reading"] == 20.0
    m = overlay_metrics({"totals": TOTALS, "flows": [{**flows[0], "received": 0}]}, {})
    assert m["delivery_ratio"] == 0.0 and "frames_per_reading" not in m
