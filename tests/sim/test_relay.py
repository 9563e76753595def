"""The relay (in-network TCP support) inside moteip-sim: scenario keys and
errors, and TSS on the TSS paper's chain (docs/RELAY.md, docs/SIMULATOR.md)."""
from __future__ import annotations

import copy

import pytest

from simrun import run_ok, run_sim


def tss_chain(mode: str, ber: float, seed: int = 1, segments: int = 150) -> dict:
    """The TSS paper's 11-node chain (examples/tss-table1.toml), shorter."""
    return {
        "name": "relay-chain", "seed": seed, "duration_s": 20000, "stop_when_done": True,
        "phy": {"bitrate": 100000, "phy_header_bytes": 0, "backoff_us": 1000,
                "turnaround_us": 0, "cca_us": 0},
        "medium": {"model": "unit_disk", "range_m": 200, "interference_range_m": 500, "ber": ber},
        "topology": {"type": "chain", "nodes": 11, "spacing_m": 200},
        "mac": {"type": "csma", "min_periods": 1, "max_periods": 3, "max_backoffs": 50},
        "link": {"mode": "raw", "ip": "ipv4", "header_bytes": 12, "frame_max": 177},
        "relay": {"mode": mode},
        "flows": [{"type": "tcp", "src": 0, "dst": "last", "segments": segments,
                   "segment_bytes": 125,
                   "sender": {"sack": False, "timestamps": False, "cwnd_cap": 2},
                   "receiver": {"sack": False, "timestamps": False, "delayed_ack": False}}],
    }


def relay_sum(res: dict, counter: str) -> int:
    return sum(n.get("relay", {}).get(counter, 0) for n in res["node_stats"])


@pytest.mark.parametrize("change,key,expect", [
    (lambda s: s["relay"].update(mode="fast"), "relay.mode",
     'expected one of "off", "tss", "dtc", "cctrl", got "fast"'),
    (lambda s: s["relay"].pop("mode"), "relay.mode", "missing; expected one of"),
    (lambda s: s["relay"].update(bogus=1), "relay.bogus", "unknown key; known keys here: mode"),
    (lambda s: s["relay"].update(rto_mult=0), "relay.rto_mult", "expected a number in [0.25, 16], got 0"),
    (lambda s: s["relay"].update(max_local_rexmit=99), "relay.max_local_rexmit",
     "expected an integer in [0, 15], got 99"),
    (lambda s: s["relay"].update(mode="dtc", endpoints="yes"), "relay.endpoints",
     'expected true or false, got "yes"'),
    (lambda s: s["relay"].update(mode="dtc", ack_repair=1), "relay.ack_repair",
     "expected true or false, got 1"),
    (lambda s: s["relay"].update(mode="cctrl", link=None), "relay.link",
     "expected true or false, got null"),
    (lambda s: s["relay"].update(ack_release="no"), "relay.ack_release",
     'expected true or false, got "no"'),
], ids=["bad-mode", "no-mode", "unknown-key", "zero-mult", "rexmit-range", "endpoints-bool",
        "ack-repair-bool", "link-bool", "ack-release-bool"])
def test_relay_scenario_errors(tmp_path, change, key, expect):
    sc = copy.deepcopy(tss_chain("tss", 0))
    change(sc)
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and r.stdout == "", r.stderr
    assert (f"{key}: " if key else "") + expect in r.stderr, r.stderr


def test_relay_off_is_the_same_run_as_no_relay(tmp_path):
    res = run_ok(tss_chain("off", 0, segments=20), tmp_path)
    no_key = tss_chain("off", 0, segments=20)
    del no_key["relay"]
    assert run_ok(no_key, tmp_path) == res
    assert all("relay" not in n for n in res["node_stats"])


def test_tss_caches_and_repairs_locally_and_delivers_intact(tmp_path):
    res = run_ok(tss_chain("tss", 1e-4), tmp_path)
    f = res["flows"][0]
    assert f["complete"] and f["integrity_ok"] and f["bytes_delivered"] == 150 * 125, f
    # every forwarder cached; implicit ACKs (overheard forwarding) freed most of it
    forwarders = res["node_stats"][1:10]
    assert all(n["relay"].get("cached", 0) > 0 for n in forwarders), forwarders
    assert relay_sum(res, "implicit_acks") > relay_sum(res, "cached") // 2
    assert relay_sum(res, "local_rexmits") > 0
    # the end points run TSS on their own segments (the local hook,
    # docs/RELAY.md): the source on its data, the destination on its FIN
    assert res["node_stats"][0]["relay"].get("implicit_acks", 0) > 0
    assert res["node_stats"][10]["relay"].get("cached", 0) <= 1
    # frames are classified: data and ACK transmissions add up to what went on air
    t = res["totals"]
    assert t["tcp_data_frames_tx"] + t["tcp_ack_frames_tx"] == t["frames_tx"]


def test_tss_finishes_where_end_to_end_recovery_alone_does_not(tmp_path):
    """BER 1e-4 hits 13 % of the 1416-bit frames on each of 10 hops: end to end,
    a segment crosses with probability 0.87^10 = 0.24 and its ACK likewise."""
    off = run_ok(tss_chain("off", 1e-4, segments=60), tmp_path)
    tss = run_ok(tss_chain("tss", 1e-4, segments=60), tmp_path)
    assert tss["flows"][0]["complete"] and tss["flows"][0]["integrity_ok"]
    assert (not off["flows"][0]["complete"]
            or off["flows"][0]["completion_time_s"] > 3 * tss["flows"][0]["completion_time_s"])
    assert off["flows"][0]["bytes_delivered"] < tss["flows"][0]["bytes_delivered"]


def test_sender_backlog_key_and_errors(tmp_path):
    sc = tss_chain("tss", 0, segments=10)
    sc["flows"][0]["sender"]["cwnd_hold_backlog"] = -1
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and "flows[0].sender.cwnd_hold_backlog: expected an integer in [0, 255]" \
        in r.stderr, r.stderr


def test_tss_backpressure_at_the_sender_on_the_chain(tmp_path):
    """[T] Table 1, BER 0, "backpressure in end point": the source's own segments go
    through TSS (held until node 1 is heard forwarding the previous one) and its TCP
    does not grow cwnd while 3 segments wait. No end-to-end retransmission is needed
    (a few are allowed: hidden-terminal collisions of data and ACKs on the chain can
    outlast a relay's retries), and it beats TCP without relays."""
    def chain(mode, sender):
        sc = tss_chain(mode, 0, segments=200)
        sc["flows"][0]["sender"] = {"sack": False, "timestamps": False, **sender}
        return run_ok(sc, tmp_path)
    tcp = chain("off", {})
    bp = chain("tss", {"cwnd_hold_backlog": 3})
    f, t = bp["flows"][0], tcp["flows"][0]
    assert f["complete"] and f["integrity_ok"], f
    assert f["e2e_retransmissions"] <= 5, f
    assert f["goodput_bps"] > t["goodput_bps"], (f, t)
    src = bp["node_stats"][0]["relay"]
    assert src["src_held"] > 0 and src["implicit_acks"] > 150, src
    assert bp["node_stats"][1]["relay"].get("gap_dropped", 0) <= 2, bp["node_stats"][1]


def test_end_to_end_tcp_that_never_gives_up_completes(tmp_path):
    """BER 1e-4 without a relay: with the default retry limit (8) the sender
    gives up before 20 segments are through; with "max_retries": 255 (the TSS
    paper's TCP never gives up) the same flow completes."""
    def chain(max_retries=None) -> dict:
        sc = tss_chain("off", 1e-4, segments=20)
        sc["duration_s"] = 200000
        del sc["flows"][0]["sender"]["cwnd_cap"]
        if max_retries is not None:
            sc["flows"][0]["sender"]["max_retries"] = max_retries
        return sc
    default = run_ok(chain(), tmp_path)["flows"][0]
    assert not default["complete"] and default["error"] == "timeout", default
    assert default["bytes_delivered"] < 20 * 125
    never = run_ok(chain(255), tmp_path)["flows"][0]
    assert never["complete"] and never["integrity_ok"] and never["error"] == "none", never
    assert never["bytes_delivered"] == 20 * 125
    assert never["rto_timeouts"] > 8


def test_rto_min_ms_reaches_the_sender(tmp_path):
    """An end point's "rto_min_ms" is its node's run-time RTO floor: over the
    TSS chain at BER 1e-5 without a relay (RTOs under a second; with
    cwnd_cap 2 every loss costs one timeout), a 5 s floor makes each of the
    same timeouts wait 5 s: the 150 segments take several times longer
    (123 s and 842 s with seed 1), and every byte still arrives."""
    def run(rto_min=None) -> dict:
        sc = tss_chain("off", 1e-5)
        if rto_min is not None:
            sc["flows"][0]["sender"]["rto_min_ms"] = rto_min
        return run_ok(sc, tmp_path)["flows"][0]
    fast, slow = run(), run(5000)
    for f in (fast, slow):
        assert f["complete"] and f["integrity_ok"], f
    assert slow["rto_timeouts"] == fast["rto_timeouts"] > 20, (slow, fast)
    assert slow["completion_time_s"] > 4 * fast["completion_time_s"], (slow, fast)
    sc = tss_chain("off", 0)
    sc["flows"][0]["sender"]["rto_min_ms"] = 60001
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and "flows[0].sender.rto_min_ms: expected an integer in [0, 60000], got 60001" \
        in r.stderr, r.stderr


def test_tss_ack_release_keeps_one_segment_on_the_path(tmp_path):
    """relay.ack_release: every buffered (or queued) segment waits for the TCP
    ACK of the one before, so one segment is on the chain at a time: at BER 0
    with the paper's CSMA (sense first) nothing ever collides, each data
    segment crosses the 10 hops once and each ACK too, and every seed gives
    the same counts (a busy channel, and so a backoff draw, is rare)."""
    def run(seed):
        sc = tss_chain("tss", 0, seed=seed, segments=50)
        sc["phy"]["backoff_us"] = 10000
        sc["mac"].update(sense_first=True, continuous_backoff=True)
        sc["relay"]["ack_release"] = True
        sc["flows"][0]["sender"] = {"sack": False, "timestamps": False, "cwnd_hold_backlog": 3}
        return run_ok(sc, tmp_path)
    a, b = run(1), run(2)
    for r in (a, b):
        f = r["flows"][0]
        assert f["complete"] and f["e2e_retransmissions"] == 0, f
        assert r["totals"]["frames_collided"] == 0
        # the first segment (and its ACK) may be resent by a relay whose
        # timers came from the 60-byte handshake frames (docs/RELAY.md)
        assert relay_sum(r, "local_rexmits") <= 3 and relay_sum(r, "acks_recovered") <= 3
        # SYN and SYN-ACK, 50 segments over 10 hops (the run ends when the
        # last byte is in: the FIN and the last ACKs are still on the way)
        assert 520 <= r["totals"]["tcp_data_frames_tx"] <= 530, r["totals"]
    for k in ("frames_tx", "tcp_data_frames_tx", "tcp_ack_frames_tx"):
        assert a["totals"][k] == b["totals"][k], (a["totals"], b["totals"])
    assert a["flows"][0]["goodput_bps"] == pytest.approx(b["flows"][0]["goodput_bps"], rel=0.01)
