"""Sensor flows (sim/sensor.c): TCPlp section 9's workload over TCP, CoAP
and CoCoA. Every reading is checked byte for byte and counted once at the
server; the injected loss at the server node drops datagrams both ways; bad
keys exit 2 naming the key."""
from __future__ import annotations

import copy

import pytest

from simrun import run_ok, run_sim

BASE = {
    "name": "sensor", "seed": 3, "duration_s": 3000,
    "topology": {"type": "chain", "nodes": 4, "spacing_m": 10},
    "medium": {"model": "unit_disk", "range_m": 10.5, "interference_range_m": 10.5},
    "mac": {"type": "csma_ca", "link_acks": True, "retry_delay_max_us": 40000},
    "flows": [{"type": "sensor", "src": "last", "dst": 0, "transport": "tcp", "count": 200}],
}


def scenario(**flow) -> dict:
    s = copy.deepcopy(BASE)
    s["flows"][0].update(flow)
    return s


@pytest.mark.parametrize("transport", ["tcp", "coap", "cocoa"])
@pytest.mark.parametrize("batch", [1, 64])
def test_every_reading_arrives_intact_once(tmp_path, transport, batch):
    r = run_ok(scenario(transport=transport, batch=batch), tmp_path)
    f = r["flows"][0]
    assert f["type"] == "sensor" and f["transport"] == transport
    assert f["readings_taken"] == 200
    assert f["readings_delivered"] == 200 and f["reliability"] == 1.0, f
    assert f["bad_readings"] == 0 and f["queue_drops"] == 0 and f["queued_at_end"] == 0, f
    assert f["complete"] is True
    # Batching holds readings back: the mean wait of a 64-reading batch is
    # about 32 s; without batching a reading leaves at once.
    if batch == 64:
        assert f["latency_mean_ms"] > 20000, f
    else:
        assert f["latency_mean_ms"] < 5000, f
    if transport != "tcp":
        per_msg = 1 if batch == 1 else 4        # (408 - 16) // 82 readings
        assert f["messages"] >= 200 // per_msg, f


@pytest.mark.parametrize("transport", ["tcp", "coap"])
def test_injected_loss_is_repaired_by_the_transport(tmp_path, transport):
    r = run_ok(scenario(transport=transport, loss=0.1), tmp_path)
    f = r["flows"][0]
    assert f["injected_drops"] > 5, f
    assert f["retransmissions"] > 0, f
    assert f["bad_readings"] == 0
    assert f["readings_delivered"] + f["queue_drops"] + f["queued_at_end"] + \
        f.get("readings_given_up", 0) >= f["readings_taken"], f


def test_coap_gives_up_and_counts_the_lost_readings(tmp_path):
    """With most datagrams lost, CoAP abandons messages after MAX_RETRANSMIT
    and counts their readings as given up; some of those did arrive (only
    the responses were lost), and the server counts every reading once."""
    r = run_ok(scenario(transport="coap", loss=0.7, count=40, batch=1, drain_s=1500), tmp_path)
    f = r["flows"][0]
    assert f["readings_given_up"] > 0, f
    assert f["readings_delivered"] + f["readings_given_up"] + f["queue_drops"] + \
        f["queued_at_end"] + f["in_flight_at_end"] >= f["readings_taken"], f
    assert f["readings_delivered"] <= f["readings_taken"] and f["duplicates"] >= 0


def test_same_seed_same_result(tmp_path):
    a = run_ok(scenario(transport="cocoa", loss=0.15), tmp_path)
    b = run_ok(scenario(transport="cocoa", loss=0.15), tmp_path)
    assert a["flows"] == b["flows"]


@pytest.mark.parametrize("flow,key", [
    ({"batch": 200, "queue": 100}, "flows[0].queue"),
    ({"coap_payload": 50}, "flows[0].coap_payload"),
    ({"transport": "udp"}, "flows[0].transport"),
    ({"loss": 0.95}, "flows[0].loss"),
    ({"bytes": 1000}, "flows[0]"),
])
def test_bad_sensor_keys_name_the_key(tmp_path, flow, key):
    r = run_sim(scenario(**flow), tmp_path)
    assert r.rc == 2, r.stdout
    assert key in r.stderr, r.stderr


def test_sensor_keys_refused_in_other_flows(tmp_path):
    s = copy.deepcopy(BASE)
    s["flows"] = [{"type": "tcp", "src": "last", "dst": 0, "bytes": 1000, "batch": 4}]
    r = run_sim(s, tmp_path)
    assert r.rc == 2 and "flows[0].batch" in r.stderr and "sensor" in r.stderr, r.stderr
