"""medium.frame_loss: an independent drop per reception by what the frame carries
(TCP data/SYN/FIN, pure TCP ACK, 802.15.4 link ACK, anything else), on top of the
channel model, drawn from the receiver's channel stream and counted as corrupted.

The DTC paper's experiment loses 10 % of data packets, 5 % of ACKs and 2 % of
link-level ACKs (docs/relay-papers.md 1(f)); examples/dtc.toml uses these keys.
"""
from __future__ import annotations

import copy
import json
import math

import pytest

from simrun import run_ok, run_sim


def sigma(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


def udp_one_hop(mac: dict, loss: dict, count: int, interval_s: float, stop: bool = True) -> dict:
    return {"seed": 7, "duration_s": count * interval_s + 10, "stop_when_done": stop,
            "medium": {"model": "unit_disk", "range_m": 10, "frame_loss": loss},
            "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
            "mac": mac,
            "flows": [{"type": "udp", "src": 0, "dst": 1, "interval_s": interval_s,
                       "payload_bytes": 64, "count": count}]}


def test_other_loss_drops_udp_reports_binomially(tmp_path):
    # NullMAC: no retries, no ACKs; every frame is received or dropped by the draw
    r = run_ok(udp_one_hop({"type": "nullmac"}, {"other": 0.3}, 2000, 0.02), tmp_path)
    tx, rx = r["node_stats"][0], r["node_stats"][1]
    assert tx["frames_tx"] == 2000
    assert rx["frames_rx"] + rx["frames_corrupted"] == 2000
    assert rx.get("frames_collided", 0) == 0
    lost = rx["frames_corrupted"] / 2000
    assert abs(lost - 0.3) <= 4 * sigma(0.3, 2000), lost
    assert r["flows"][0]["received"] == rx["frames_rx"]
    assert r["totals"]["frames_corrupted"] == rx["frames_corrupted"]


def tcp_one_hop(loss: dict) -> dict:
    # CSMA without link ACKs (NullMAC's immediate sends would put the SYN and SYN-ACK
    # retransmissions in lock step); one segment in flight, an ACK per segment, so
    # node 0 sends only TCP data (its SYN included) and node 1 only pure ACKs (and
    # one SYN-ACK, a data frame by its SYN flag)
    return {"seed": 3, "duration_s": 5000, "stop_when_done": True,
            "medium": {"model": "unit_disk", "range_m": 10, "frame_loss": loss},
            "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
            "mac": {"type": "csma"},
            "link": {"mode": "raw", "ip": "ipv4", "header_bytes": 23},
            "flows": [{"type": "tcp", "src": 0, "dst": 1, "segments": 2000, "segment_bytes": 64,
                       "sender": {"profile": "tiny", "max_retries": 255},
                       "receiver": {"profile": "tiny", "delayed_ack": False,
                                    "max_retries": 255}}]}


def test_tcp_data_and_ack_losses_apply_by_kind(tmp_path):
    r = run_ok(tcp_one_hop({"tcp_data": 0.1, "tcp_ack": 0.2}), tmp_path)
    f = r["flows"][0]
    assert (f["complete"], f["integrity_ok"], f["bytes_delivered"]) == (True, True, 128000)
    snd, rcv = r["node_stats"]
    assert snd["tcp_data_frames_tx"] == snd["frames_tx"]        # data only
    assert rcv["tcp_ack_frames_tx"] == rcv["frames_tx"] - 1     # ACKs and one SYN-ACK
    # every frame reaches the other radio and is either decoded or dropped by the draw
    assert rcv["frames_rx"] + rcv["frames_corrupted"] == snd["frames_tx"]
    assert snd["frames_rx"] + snd["frames_corrupted"] == rcv["frames_tx"]
    data_lost = rcv["frames_corrupted"] / snd["frames_tx"]
    ack_lost = snd["frames_corrupted"] / rcv["frames_tx"]
    assert abs(data_lost - 0.1) <= 4 * sigma(0.1, snd["frames_tx"]), data_lost
    assert abs(ack_lost - 0.2) <= 4 * sigma(0.2, rcv["frames_tx"]), ack_lost
    # each lost data frame or lost ACK costs one RTO retransmission (one segment in
    # flight): 2000 segments + 1 SYN + retransmissions = frames sent
    assert f["e2e_retransmissions"] == snd["frames_tx"] - 2001


def test_lost_link_acks_exhaust_the_retries(tmp_path):
    # every 802.15.4 ACK is lost: each report is sent 1 + max_retries times and ends
    # as noack, though the receiver got (and deduplicated) every copy. The run goes
    # on after the last report so its retries finish too.
    sc = udp_one_hop({"type": "csma_ca", "max_retries": 3}, {"link_ack": 1.0}, 200, 0.1,
                     stop=False)
    r = run_ok(sc, tmp_path)
    snd, rcv = r["node_stats"]
    assert snd["mac"]["tx_frames"] == 200
    assert snd["mac"]["tx_noack"] == 200
    assert snd["mac"]["tx_retries"] == 600
    assert snd["frames_tx"] == 800
    assert rcv["mac"]["acks_tx"] == 800 and rcv["frames_tx"] == 800
    assert snd["frames_corrupted"] == 800 and snd["frames_rx"] == 0
    assert rcv["frames_rx"] == 800 and rcv["mac"]["rx_duplicates"] == 600
    assert (r["totals"]["link_noack"], r["totals"]["link_retries"]) == (200, 600)
    assert r["flows"][0]["received"] == 200


def test_zero_frame_loss_draws_nothing(tmp_path):
    """All-zero probabilities leave the channel streams alone: the result is
    byte-identical to a scenario without the key (and to itself, run twice)."""
    sc = udp_one_hop({"type": "csma_ca"}, {}, 300, 0.02)
    sc["medium"]["ber"] = 1e-4
    del sc["medium"]["frame_loss"]
    a = run_sim(sc, tmp_path)
    sc["medium"]["frame_loss"] = {"tcp_data": 0, "tcp_ack": 0, "link_ack": 0, "other": 0}
    b = run_sim(sc, tmp_path)
    assert a.rc == b.rc == 0 and a.stdout == b.stdout
    sc["medium"]["frame_loss"] = {"other": 0.2}
    c, d = run_sim(sc, tmp_path), run_sim(sc, tmp_path)
    assert c.rc == 0 and c.stdout == d.stdout
    assert c.stdout != a.stdout


BASE = udp_one_hop({"type": "nullmac"}, {}, 10, 0.1)


@pytest.mark.parametrize("loss, path, what", [
    ({"tcp_data": 1.5}, "medium.frame_loss.tcp_data", "expected a number in [0, 1], got 1.5"),
    ({"other": -0.1}, "medium.frame_loss.other", "expected a number in [0, 1], got -0.1"),
    ({"link_ack": "x"}, "medium.frame_loss.link_ack", 'expected a number in [0, 1], got "x"'),
    ({"data": 0.1}, "medium.frame_loss.data",
     "unknown key; known keys here: tcp_data, tcp_ack, link_ack, other"),
    (0.1, "medium.frame_loss", "expected an object, got 0.1"),
])
def test_frame_loss_errors_name_the_key(tmp_path, loss, path, what):
    sc = copy.deepcopy(BASE)
    sc["medium"]["frame_loss"] = loss
    r = run_sim(sc, tmp_path)
    assert (r.rc, r.stdout) == (2, ""), r
    name = str(tmp_path / "scenario.json")
    assert r.stderr.strip() == f"moteip-sim: {name}: {path}: {what}", r.stderr


def test_medium_lists_frame_loss_as_a_known_key(tmp_path):
    sc = copy.deepcopy(BASE)
    sc["medium"]["frame_losses"] = {}
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and "medium.frame_losses: unknown key" in r.stderr
    assert "cca_dbm, frame_loss" in r.stderr
    json.dumps(sc)  # the scenario itself is plain JSON


def test_tx_buffer_goes_down_to_16_bytes(tmp_path):
    """A 16-byte send buffer makes 16-byte segments (TCP keeps its MSS at 64 or
    more): cctrl's uIP client, examples/cctrl.toml. 15 is refused."""
    sc = tcp_one_hop({})
    sc["flows"][0] = {"type": "tcp", "src": 0, "dst": 1, "bytes": 1600, "tx_buffer": 16,
                      "sender": {"sack": False, "timestamps": False, "cwnd_cap": 1},
                      "receiver": {"profile": "tiny", "delayed_ack": False}}
    r = run_ok(sc, tmp_path)
    f = r["flows"][0]
    assert (f["complete"], f["bytes_delivered"], f["e2e_retransmissions"]) == (True, 1600, 0)
    # SYN + 100 segments of 16 bytes: 23 + 20 + 20 + 16 = 79-byte frames
    assert r["node_stats"][0]["tcp_data_frames_tx"] == 101
    assert r["node_stats"][0]["tx_s"] == pytest.approx(((6 + 71) + 100 * (6 + 79)) * 32e-6)
    sc["flows"][0]["tx_buffer"] = 15
    bad = run_sim(sc, tmp_path)
    assert bad.rc == 2
    assert bad.stderr.strip().endswith(
        "flows[0].tx_buffer: expected an integer in [16, 65535], got 15"), bad.stderr
