"""moteip-sim "ping" flows: ICMP echo through the real stacks (mip_ping_send
on the source, the destination's own echo code answering).

docs/SIMULATOR.md: sent / received / duplicates / loss_ratio / rtt_ms per flow,
the RTT measured from the send time carried in the first 8 payload bytes.
"""
from __future__ import annotations

import pytest

from simrun import run_ok, run_sim


def chain(flows: list[dict], ber: float = 0.0, seed: int = 1) -> dict:
    """4 nodes 40 m apart, 50 m range: node i hears only i - 1 and i + 1."""
    return {
        "name": "ping-chain", "seed": seed, "duration_s": 120, "stop_when_done": True,
        "topology": {"type": "chain", "nodes": 4, "spacing_m": 40},
        "medium": {"model": "unit_disk", "range_m": 50, "interference_range_m": 100,
                   "ber": ber},
        "flows": flows,
    }


def test_chain_all_answered_rtt_grows_with_hops(tmp_path):
    # Staggered starts keep the three flows' echoes from meeting on the air.
    r = run_ok(chain([{"type": "ping", "src": 0, "dst": d, "count": 20,
                       "start_s": 0.3 * (d - 1)} for d in (1, 2, 3)]), tmp_path)
    flows = r["flows"]
    for d, f in zip((1, 2, 3), flows):
        assert f["type"] == "ping" and f["dst"] == d and f["hops"] == d, f
        assert f["sent"] == 20 and f["received"] == 20, f
        assert f["duplicates"] == 0 and f["loss_ratio"] == 0, f
        assert f["complete"] is True, f
        rtt = f["rtt_ms"]
        assert 0 < rtt["min"] <= rtt["mean"] <= rtt["max"], f
    one, two, three = (f["rtt_ms"] for f in flows)
    assert one["mean"] < two["mean"] < three["mean"], flows
    # Each hop adds a frame each way (16-byte payload: ~2 ms of airtime + ACK +
    # backoff per frame), so three hops cost well over twice one.
    assert three["min"] > one["max"], flows
    assert three["mean"] > 2 * one["mean"], flows
    # All echoes answered: the run ends once the last reply is in, without
    # waiting out the time after the last request.
    assert r["sim_time_s"] < 0.6 + 19 + 1, r["sim_time_s"]
    # The source's stack handed every reply to its ping handler.
    assert r["node_stats"][0]["stack"]["icmp_echo_reply_rx"] == 60
    assert r["node_stats"][3]["stack"]["icmp_echo_replied"] == 20


def test_bit_errors_lose_some_echoes(tmp_path):
    # BER 1e-3 on ~100-byte frames (64-byte payload): PER ~ 55 %, so link
    # retries run out now and then over 6 hop-transmissions per echo.
    r = run_ok(chain([{"type": "ping", "src": 0, "dst": 3, "count": 20,
                       "payload_bytes": 64}], ber=1e-3), tmp_path)
    f = r["flows"][0]
    assert f["sent"] == 20, f
    assert 0 < f["received"] < f["sent"], f
    assert f["loss_ratio"] == pytest.approx((f["sent"] - f["received"]) / f["sent"]), f
    assert f["complete"] is True, f
    assert r["totals"]["frames_corrupted"] > 0
    rtt = f["rtt_ms"]
    assert 0 < rtt["min"] <= rtt["mean"] <= rtt["max"], f
    # Lost echoes mean the flow waits for the last reply before it is done.
    assert r["sim_time_s"] >= 19 + 5 - 1e-6, r["sim_time_s"]


def test_defaults_and_ipv4(tmp_path):
    # count 10, interval 1 s, payload 16 by default; over raw IPv4 the
    # requests are ICMPv4 and the reply goes back the way it came.
    sc = chain([{"type": "ping", "src": 3, "dst": 0}])
    sc["link"] = {"mode": "raw", "ip": "ipv4", "header_bytes": 12}
    r = run_ok(sc, tmp_path)
    f = r["flows"][0]
    assert (f["sent"], f["received"], f["loss_ratio"]) == (10, 10, 0), f
    assert 9 < r["sim_time_s"] < 10, r["sim_time_s"]
    assert r["node_stats"][3]["stack"]["tx_ipv4"] >= 10
    assert r["node_stats"][3]["stack"]["icmp_echo_reply_rx"] == 10


def test_count_zero_runs_until_the_end(tmp_path):
    sc = chain([{"type": "ping", "src": 0, "dst": 2, "count": 0, "interval_s": 0.5}])
    sc["duration_s"] = 10
    r = run_ok(sc, tmp_path)
    f = r["flows"][0]
    assert f["complete"] is False, f
    assert f["sent"] == 21, f     # at 0, 0.5, ..., 10 s (an event at the end time runs)
    assert 19 <= f["received"] <= 20, f  # the one sent at the end gets no time to return


@pytest.mark.parametrize("extra, path, expect", [
    ({"port": 7}, "flows[0].port", 'no "port" in a ping flow'),
    ({"bytes": 100}, "flows[0].bytes", 'no "bytes" in a ping flow'),
    ({"sender": {}}, "flows[0].sender", 'no "sender" in a ping flow'),
    ({"payload_bytes": 7}, "flows[0].payload_bytes", "[8, 1232]"),
    ({"payload_bytes": 1233}, "flows[0].payload_bytes", "[8, 1232]"),
    ({"count": 65536}, "flows[0].count", "[0, 65535]"),
    ({"interval_s": 0}, "flows[0].interval_s", "a number in"),
    ({"dst": 0}, "flows[0].dst", "a node other than src"),
    ({"dst": 4}, "flows[0].dst", "node id 0..3"),
])
def test_bad_ping_flow_is_an_error_naming_the_key(tmp_path, extra, path, expect):
    flow = {"type": "ping", "src": 0, "dst": 3}
    flow.update(extra)
    r = run_sim(chain([flow]), tmp_path)
    assert r.rc == 2, r.stderr
    assert path in r.stderr and expect in r.stderr, r.stderr
