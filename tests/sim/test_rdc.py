"""Radio duty cycling in the simulator: ContikiMAC against its formulas.

1. the idle duty cycle of a node is cca_count x cca_on_us / T (docs/MAC.md),
   and its energy the state times times the profile's currents;
2. a unicast to a phase-locked neighbour costs the sender its own channel
   check, two copies (the first wakes the receiver, the second is received),
   the gap between them and the ACK; the receiver about one frame and an ACK;
3. a frame no ACK can stop (a broadcast, or unicast without the ACK request)
   is repeated for a whole wake-up interval plus two checks;
4. TCP over 1-6 lossy hops delivers every byte, the same seed the same bytes;
5. per-node RDC choices, and the per-delivery metrics.

docs/SIMULATOR.md ("Duty cycling and energy") has the numbers these runs give.
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor

import pytest

from simrun import run_ok, run_sim

US_PER_BYTE = 32                # 250 kb/s
PHY_HDR = 6
TR, TC, TI, TA = 192, 500, 400, 192
ACK_US = (PHY_HDR + 5) * US_PER_BYTE        # 352


def period_us(rate_hz: int) -> int:
    return 1_000_000 // rate_hz


def check_us(cca_count: int = 2) -> int:
    return cca_count * TR + (cca_count - 1) * TC


def contikimac(**params) -> dict:
    return {"type": "contikimac", **params}


def pair(mac: dict, flows: list, duration_s: float = 40, seed: int = 3) -> dict:
    return {"name": "rdc", "seed": seed, "duration_s": duration_s, "stop_when_done": False,
            "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
            "medium": {"range_m": 12}, "mac": mac, "flows": flows}


def reports(count: int, payload: int = 32) -> list:
    return [{"type": "udp", "src": 0, "dst": 1, "interval_s": 1.0, "count": count,
             "payload_bytes": payload, "start_s": 1}]


def run_many(scenarios: list[dict], tmp_path, *args: str) -> list[dict]:
    def one(i_sc):
        i, sc = i_sc
        d = tmp_path / f"run{i}"
        d.mkdir()
        return run_ok(sc, d, *[a.replace("{dir}", str(d)) for a in args])
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, enumerate(scenarios)))


# --- 1. idle ----------------------------------------------------------------------

@pytest.mark.parametrize("rate,cca_count", [(8, 2), (2, 2), (16, 2), (8, 3)])
def test_idle_duty_cycle_matches_its_formula(tmp_path, rate, cca_count):
    sc = {"name": "idle", "duration_s": 60,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
          "mac": {"type": "nullmac", "rdc": contikimac(check_rate_hz=rate, cca_count=cca_count)}}
    r = run_ok(sc, tmp_path)
    expect = cca_count * TR / period_us(rate)
    for n in r["node_stats"]:
        assert n["rdc"] == "contikimac"
        assert abs(n["duty_cycle"] - expect) <= 0.1 * expect, (n["duty_cycle"], expect)
        assert n["tx_s"] == 0 and n["rx_s"] == 0
        # checks T apart over the whole run: one per interval
        assert abs(n["mac"]["rdc_checks"] - 60 * rate) <= 1
    assert r["totals"]["duty_cycle_mean"] == pytest.approx(expect, rel=0.1)


@pytest.mark.parametrize("profile,listen_ma,off_ma,volt", [("cc2420", 18.8, 0.426, 3.0),
                                                           ("at86rf233", 11.8, 0.3, 3.0),
                                                           ("nrf52840", 6.53, 0.0, 3.0)])
def test_energy_is_state_time_times_profile_current(tmp_path, profile, listen_ma, off_ma, volt):
    sc = {"name": "energy", "duration_s": 30, "radio": {"profile": profile},
          "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
          "mac": {"type": "nullmac", "rdc": contikimac()}}
    r = run_ok(sc, tmp_path)
    assert r["radio"]["profile"] == profile
    for n in r["node_stats"]:
        mj = (n["listen_s"] * listen_ma + n["sleep_s"] * off_ma) * volt
        assert n["energy_mj"] == pytest.approx(mj, rel=1e-9)
        assert n["energy_j"] == pytest.approx(mj / 1000, rel=1e-9)
        assert n["listen_s"] + n["sleep_s"] == pytest.approx(30)
    assert r["totals"]["energy_mj"] == pytest.approx(sum(n["energy_mj"] for n in r["node_stats"]))
    # nothing delivered: no per-delivery figure
    assert r["totals"]["radio_on_per_delivered_segment_ms"] is None


# --- 2. a phase-locked unicast ------------------------------------------------------

def test_phase_locked_unicast_costs_two_copies_and_an_ack(tmp_path):
    """31 reports against 11: the 20 more are all phase-locked, so the
    difference in radio-on time is 20 phase-locked unicasts."""
    mac = {"type": "nullmac", "rdc": contikimac()}
    many, few = run_many([pair(mac, reports(31)), pair(mac, reports(11))], tmp_path)
    for r in (many, few):
        assert r["flows"][0]["delivery_ratio"] == 1
    snd = [r["node_stats"][0] for r in (many, few)]
    rcv = [r["node_stats"][1] for r in (many, few)]
    extra_attempts = snd[0]["mac"]["tx_attempts"] - snd[1]["mac"]["tx_attempts"]
    assert snd[0]["mac"]["rdc_phase_locked"] - snd[1]["mac"]["rdc_phase_locked"] == 20
    assert extra_attempts == 40                   # two copies each
    frame_us = (snd[0]["tx_s"] - snd[1]["tx_s"]) * 1e6 / extra_attempts
    assert frame_us == pytest.approx((PHY_HDR + 52) * US_PER_BYTE)   # a 52-byte MPDU
    per_sender = (snd[0]["radio_on_s"] - snd[1]["radio_on_s"]) * 1e6 / 20
    per_receiver = (rcv[0]["radio_on_s"] - rcv[1]["radio_on_s"]) * 1e6 / 20
    # own check (2 Tr), copy, Ti, copy, Ta, ACK
    assert per_sender == pytest.approx(2 * TR + 2 * frame_us + TI + TA + ACK_US, rel=0.02)
    # the receiver: from its CCA through one whole frame and its ACK
    assert frame_us + TA + ACK_US <= per_receiver <= 2 * frame_us + TI + TA + ACK_US + TR
    # against the full train a unicast to an unknown phase costs (T / 2 on average)
    assert per_sender < 0.1 * period_us(8) / 2


def test_unicast_without_phase_lock_strobes_half_an_interval_on_average(tmp_path):
    mac = {"type": "nullmac", "rdc": contikimac(phase_lock=False)}
    many, few = run_many([pair(mac, reports(31)), pair(mac, reports(11))], tmp_path)
    per_sender = (many["node_stats"][0]["radio_on_s"] - few["node_stats"][0]["radio_on_s"]) / 20
    assert many["node_stats"][0]["mac"].get("rdc_phase_locked", 0) == 0
    # uniform over the receiver's interval: T / 2, loosely (20 samples)
    assert 0.25 * period_us(8) <= per_sender * 1e6 <= 0.75 * period_us(8)


# --- 3. trains no ACK stops ---------------------------------------------------------

def test_frame_without_ack_request_costs_a_whole_interval(tmp_path):
    """The simulator's flows are unicast; without the ACK request bit
    ContikiMAC sends them exactly as broadcasts: copies for T + 2 checks,
    the radio off between them."""
    mac = {"type": "nullmac", "link_acks": False, "rdc": contikimac()}
    r = run_ok(pair(mac, reports(11)), tmp_path, "--trace", str(tmp_path / "t.jsonl"))
    assert r["flows"][0]["delivery_ratio"] == 1
    tx = [json.loads(x) for x in open(tmp_path / "t.jsonl")]
    tx = [e for e in tx if e["ev"] == "tx" and e["node"] == 0]
    trains, cur = [], []
    for e in tx:
        if cur and e["t_us"] - cur[-1]["end_us"] > 10_000:
            trains.append(cur)
            cur = []
        cur.append(e)
    trains.append(cur)
    assert len(trains) == 11
    frame = trains[0][0]["end_us"] - trains[0][0]["t_us"]
    limit = period_us(8) + 2 * check_us()
    copies = math.ceil(limit / (frame + TI))
    for t in trains:
        assert len(t) == copies
        span = t[-1]["end_us"] - t[0]["t_us"]
        assert period_us(8) <= span == copies * (frame + TI) - TI
    snd = r["node_stats"][0]
    # radio on: each train's copies and the sender's own check before it,
    # else only its idle checks: off between copies
    assert snd["tx_s"] == pytest.approx(11 * copies * frame / 1e6)
    # (a check of its own that overlaps an idle one counts once)
    idle_and_own = (11 + snd["mac"]["rdc_checks"]) * 2 * TR / 1e6
    assert 0.99 * idle_and_own <= snd["radio_on_s"] - snd["tx_s"] <= idle_and_own


# --- 4. TCP over lossy duty-cycled hops -----------------------------------------------

def tcp_chain(hops: int, seed: int = 1) -> dict:
    return {"name": f"cm-tcp-{hops}", "seed": seed, "duration_s": 900,
            "topology": {"type": "chain", "nodes": hops + 1, "spacing_m": 10},
            "medium": {"range_m": 10.5, "interference_range_m": 20.5, "ber": 1e-4},
            "mac": {"type": "csma_ca", "retry_delay_max_us": 125000, "rdc": contikimac()},
            "flows": [{"type": "tcp", "src": 0, "dst": "last", "bytes": 20000, "mss": 88,
                       "rx_buffer": 304}]}


def test_tcp_byte_exact_over_1_to_6_lossy_hops(tmp_path):
    results = run_many([tcp_chain(h) for h in range(1, 7)], tmp_path)
    for h, r in enumerate(results, 1):
        f = r["flows"][0]
        assert f["complete"] and f["integrity_ok"], (h, f)
        assert f["bytes_delivered"] == 20000 and f["error"] == "none"
        assert r["totals"]["frames_corrupted"] > 0      # the BER did bite
        assert r["totals"]["duty_cycle_mean"] < 0.2, h
        assert all(n["rdc"] == "contikimac" for n in r["node_stats"])


def test_same_seed_same_result(tmp_path):
    a, b = run_many([tcp_chain(4, seed=5), tcp_chain(4, seed=5)], tmp_path)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    c = run_ok(tcp_chain(4, seed=6), tmp_path)
    assert c["events"] != a["events"]


# --- 5. per node, per delivery ---------------------------------------------------------

def test_per_node_rdc_and_per_delivery_metrics(tmp_path):
    sc = {"name": "mixed", "duration_s": 60, "stop_when_done": False,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
          "medium": {"range_m": 12},
          "mac": {"type": "csma_ca", "rdc": contikimac(),
                  "nodes": [{"ids": [0], "rdc": {"type": "nullrdc"}},
                            {"ids": ["last"], "rdc": {"check_rate_hz": 16}}]},
          "flows": [{"type": "tcp", "src": 2, "dst": 1, "bytes": 3000, "mss": 88}]}
    r = run_ok(sc, tmp_path)
    n = r["node_stats"]
    assert [x["rdc"] for x in n] == ["nullrdc", "contikimac", "contikimac"]
    assert n[0]["duty_cycle"] == 1
    assert n[1]["mac"]["rdc_checks"] < n[2]["mac"]["rdc_checks"]   # 8 Hz against 16 Hz
    f = r["flows"][0]
    assert f["complete"] and f["bytes_delivered"] == 3000
    t = r["totals"]
    assert t["delivered_bytes"] == 3000
    assert t["delivered_segments"] == f["segments_delivered"] > 0
    assert t["radio_on_per_delivered_segment_ms"] == pytest.approx(
        t["radio_on_s"] * 1e3 / t["delivered_segments"])
    assert t["energy_per_delivered_kb_mj"] == pytest.approx(t["energy_mj"] / 3.0)
    for x in n:
        assert x["energy_per_delivered_kb_mj"] == pytest.approx(x["energy_mj"] / 3.0)


@pytest.mark.parametrize("rdc,key,expect", [
    ({"type": "bmac"}, "mac.rdc.type", 'expected one of "nullrdc", "contikimac", "xmac", "lpp", '
     '"leaf", "parent", got "bmac"'),
    ({"type": "contikimac", "check_rate_hz": -8}, "mac.rdc.check_rate_hz",
     "expected an integer in [1, 1000], got -8"),
    ({"type": "contikimac", "check_rate_hz": 1000}, "mac.rdc.check_rate_hz",
     "expected a rate whose interval holds a wake-up (ContikiMAC: two channel checks; LPP: "
     "the probe and its listen), got 1000"),
    ({"type": "contikimac", "copy_gap_us": 500}, "mac.rdc.copy_gap_us",
     "expected longer than phy.turnaround_us plus the PHY header's airtime"),
    ({"type": "contikimac", "cca_count": 0}, "mac.rdc.cca_count",
     "expected an integer in [1, 8], got 0"),
    ({"rate": 8}, "mac.rdc.rate", "unknown key for the nullrdc RDC; its keys: type"),
    ({"type": "contikimac", "rate": 8}, "mac.rdc.rate",
     "unknown key for the contikimac RDC; its keys: type, phase_lock, check_rate_hz, cca_count"),
])
def test_bad_rdc_parameter_names_its_key(tmp_path, rdc, key, expect):
    sc = pair({"type": "nullmac", "rdc": rdc}, [])
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and r.stdout == ""
    assert f"{tmp_path / 'scenario.json'}: {key}: {expect}" in r.stderr, r.stderr


@pytest.mark.parametrize("nodes,key,expect", [
    ([{"ids": [5], "rdc": {}}], "mac.nodes[0].ids[0]",
     'expected an integer node id 0..1 or "last", got 5'),
    ([{"ids": [0]}], "mac.nodes[0].rdc", "missing; expected an RDC object"),
    ([{"ids": [], "rdc": {}}], "mac.nodes[0].ids", "expected a non-empty array of node ids"),
    ([{"ids": [1], "rdc": {"cca_count": 9}}], "mac.nodes[0].rdc.cca_count",
     "expected an integer in [1, 8], got 9"),
    ([{"ids": [1], "rdc": {}, "kind": 1}], "mac.nodes[0].kind", "unknown key"),
])
def test_bad_per_node_rdc_names_its_key(tmp_path, nodes, key, expect):
    sc = pair({"type": "nullmac", "rdc": contikimac(), "nodes": nodes}, [])
    r = run_sim(sc, tmp_path)
    assert r.rc == 2
    assert f"{key}: {expect}" in r.stderr, r.stderr


@pytest.mark.parametrize("radio,key,expect", [
    ({"profile": "cc1101"}, "radio.profile", 'expected one of "cc2420", "at86rf233", "nrf52840", got "cc1101"'),
    ({"sleep_ma": -1}, "radio.sleep_ma", "expected a number in [0, 1000], got -1"),
])
def test_bad_radio_profile_names_its_key(tmp_path, radio, key, expect):
    sc = pair({"type": "nullmac"}, [])
    sc["radio"] = radio
    r = run_sim(sc, tmp_path)
    assert r.rc == 2
    assert f"{key}: {expect}" in r.stderr, r.stderr


def test_link_acks_default_on_when_any_node_duty_cycles(tmp_path):
    """Per-node ContikiMAC under NullMAC: the ACK request bit is on, so a
    unicast train ends at its ACK instead of running a whole interval."""
    mac = {"type": "nullmac", "nodes": [{"ids": [0, 1], "rdc": contikimac()}]}
    r = run_ok(pair(mac, reports(3)), tmp_path)
    snd = r["node_stats"][0]
    assert r["flows"][0]["delivery_ratio"] == 1
    assert snd["mac"]["acks_rx"] == 3
    assert snd["mac"]["tx_attempts"] < 3 * 20       # not three whole-interval trains
