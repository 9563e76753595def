"""Scenario key "record" (sim/record.c, docs/SIMULATOR.md): the relays' rtt
estimates over time, how long each segment waits in a cache, and the source's
segments in flight, checked on the TSS chain where their values are known."""
from __future__ import annotations

import pytest

from simrun import run_ok, run_sim

DATA_MS = 1416 / 100.0          # a 177-byte frame at 100 kb/s
ACK_MS = 416 / 100.0            # a 52-byte ACK frame


def chain(ack_release: bool, record: dict | None, segments: int = 60) -> dict:
    sc = {
        "name": "records", "seed": 1, "duration_s": 20000,
        "phy": {"bitrate": 100000, "phy_header_bytes": 0, "backoff_us": 10000,
                "turnaround_us": 0, "cca_us": 0},
        "medium": {"model": "unit_disk", "range_m": 200, "interference_range_m": 500,
                   "overhear_header_bytes": 52},
        "topology": {"type": "chain", "nodes": 11, "spacing_m": 200},
        "mac": {"type": "csma", "sense_first": True, "continuous_backoff": True},
        "link": {"mode": "raw", "ip": "ipv4", "header_bytes": 12, "frame_max": 177},
        "relay": {"mode": "tss", "ack_release": ack_release},
        "flows": [{"type": "tcp", "src": 0, "dst": "last", "segments": segments,
                   "segment_bytes": 125,
                   "sender": {"sack": False, "timestamps": False, "cwnd_hold_backlog": 3},
                   "receiver": {"sack": False, "timestamps": False, "delayed_ack": False}}],
    }
    if record is not None:
        sc["record"] = record
    return sc


ALL = {"relay_rtt": True, "cache_hold": True, "in_flight": True}


def test_nothing_recorded_unless_asked(tmp_path):
    r = run_ok(chain(True, None), tmp_path)
    assert "records" not in r and "in_flight" not in r["flows"][0]
    off = run_ok(chain(True, {"relay_rtt": False}), tmp_path)
    assert off == r
    # recording only looks: the run is the same
    rec = run_ok(chain(True, ALL), tmp_path)
    assert rec["totals"] == r["totals"] and rec["node_stats"] == r["node_stats"]


def test_one_segment_on_the_path_records_its_airtimes(tmp_path):
    """With relay.ack_release at BER 0 nothing collides: node 9's rtt is one
    data frame and one ACK, node i's (10 - i) of each; a segment node 5 sends
    is heard forwarded after exactly two data frames; one segment is in flight
    whenever the source sends."""
    r = run_ok(chain(True, ALL), tmp_path)
    rec = r["records"]
    last = {}
    for t_ms, node, rtt in rec["relay_rtt"]:
        assert 0 <= node <= 9 and t_ms >= 0 and rtt > 0
        last[node] = rtt
    assert set(last) == set(range(10)), sorted(last)
    for node, rtt in last.items():
        idle = (10 - node) * (DATA_MS + ACK_MS)
        assert rtt == pytest.approx(idle, rel=0.02), (node, rtt, idle)
    holds5 = [(ms, how) for node, ms, how in rec["cache_hold"] if node == 5]
    assert len(holds5) >= 60
    exact = [ms for ms, how in holds5 if how == "overheard"]
    assert len(exact) >= 59
    assert all(ms == pytest.approx(2 * DATA_MS, abs=0.01) for ms in exact[1:]), sorted(exact)[-3:]
    # node 9 is never freed by overhearing (the destination forwards nothing)
    assert {how for node, _ms, how in rec["cache_hold"] if node == 9} <= {"ack", "timeout"}
    fl = r["flows"][0]["in_flight"]
    assert fl["samples"] == 60 and sum(fl["hist"]) == 60
    assert fl["hist"][1] == 60 and fl["mean"] == 1


def test_pipelined_tss_has_more_in_flight(tmp_path):
    r = run_ok(chain(False, {"in_flight": True}), tmp_path)
    fl = r["flows"][0]["in_flight"]
    assert fl["samples"] == 60 and sum(fl["hist"]) == 60
    assert fl["mean"] > 1.5, fl


def test_record_key_errors(tmp_path):
    sc = chain(True, {"relay_rtt": 1})
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and "record.relay_rtt: expected true or false, got 1" in r.stderr, r.stderr
    sc = chain(True, {"holds": True})
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and "record.holds: unknown key; known keys here: relay_rtt" in r.stderr, r.stderr
