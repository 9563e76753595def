"""Platform timing and clock drift (docs/SIMULATOR.md "Platform timing").

1. "ideal" is the default and changes nothing: no key, "ideal", and every
   platform figure set to 0 by hand give the same result;
2. each RDC's idle duty cycle is its analytic formula under the platform's
   receiver start-up and CCA (within 5 %): ContikiMAC 2 (Ton + Tcca) / T
   (0.512 % on the CC2420), X-MAC (Ton + on) / T, LPP (Ton + Tcca + Tturn +
   probe + listen) / T;
3. the host's load time (CPU + SPI) delays a frame's channel access;
4. drift within ContikiMAC's phase-lock guard keeps a unicast at about one
   frame and its ACK, with no miss; a receiver whose clock runs ahead by more
   than the guard per interval makes every aimed train miss, each miss is
   counted, and the full train after it delivers and learns the phase again.
"""
from __future__ import annotations

import json

import pytest

from simrun import run_ok, run_sim
from test_rdc import run_many

US_PER_BYTE = 32                # 250 kb/s
PHY_HDR = 6
ACK_US = (PHY_HDR + 5) * US_PER_BYTE        # 352
TURN = 192
GUARD_US = 1343                 # Contiki 2.5's GUARD_TIME, the platforms' default
# (rx_on_us, cca_us) of each platform (sim/scenario.c, docs/SIMULATOR.md)
PLATFORM = {"cc2420": (192, 128), "at86rf233": (80, 128), "nrf52840": (40, 128)}


def idle(platform: str | None, rdc: str, **radio) -> dict:
    sc = {"name": "idle", "duration_s": 20,
          "topology": {"type": "chain", "nodes": 2, "spacing_m": 100},
          "medium": {"range_m": 50},
          "mac": {"type": "csma_ca", "rdc": {"type": rdc}}}
    if platform is not None:
        sc["platform"] = platform
    if radio:
        sc["radio"] = radio
    return sc


def test_ideal_is_the_default_and_the_zero_platform(tmp_path):
    flows = [{"type": "tcp", "src": 0, "dst": "last", "bytes": 3000}]
    base = {"name": "p", "seed": 4, "duration_s": 60,
            "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
            "medium": {"range_m": 12}, "mac": {"type": "csma_ca", "rdc": {"type": "contikimac"}},
            "flows": flows}
    zero = {"rx_on_us": 0, "frame_host_us": 0, "bus_bps": 0, "drift_ppm": 0,
            "profile": "cc2420"}
    scs = [base, {**base, "platform": "ideal"},
           {**base, "platform": "cc2420", "radio": zero,
            "mac": {"type": "csma_ca", "rdc": {"type": "contikimac", "cca_on_us": 192,
                                               "phase_guard_us": 0}}}]
    a, b, c = run_many(scs, tmp_path)
    assert a["flows"][0]["complete"]
    assert a["radio"]["platform"] == "ideal" and c["radio"]["platform"] == "cc2420"
    for r in (b, c):
        r["radio"]["platform"] = "ideal"
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert json.dumps(a, sort_keys=True) == json.dumps(c, sort_keys=True)


@pytest.mark.parametrize("platform", ["cc2420", "at86rf233", "nrf52840"])
def test_idle_duty_cycle_of_each_rdc_is_its_formula(tmp_path, platform):
    ton, tcca = PLATFORM[platform]
    period = 125_000            # every RDC's default 8 Hz
    probe_us = 19 * US_PER_BYTE     # LPP's probe: 13-byte MPDU + PHY header
    expect = {
        "contikimac": 2 * (ton + tcca) / period,
        "xmac": (ton + 6250) / period,
        "lpp": (ton + tcca + TURN + probe_us + 7812) / period,
    }
    rs = run_many([idle(platform, rdc) for rdc in expect], tmp_path)
    for (rdc, want), r in zip(expect.items(), rs):
        assert r["radio"]["rx_on_us"] == ton
        for n in r["node_stats"]:
            assert n["duty_cycle"] == pytest.approx(want, rel=0.05), (rdc, platform)
    # ContikiMAC's idle is now a result: 192 us start-up + 128 us RSSI per CCA
    if platform == "cc2420":
        assert rs[0]["node_stats"][0]["duty_cycle"] == pytest.approx(0.00512, rel=0.01)
    # the nRF52840's fast ramp-up (40 us) + 128 us ED/CCA per check
    if platform == "nrf52840":
        assert rs[0]["node_stats"][0]["duty_cycle"] == pytest.approx(0.002688, rel=0.01)


def test_figures_are_overridden_one_by_one(tmp_path):
    # a slower receiver start-up (radio.rx_on_us) and a longer CCA (phy.cca_us)
    sc = idle("cc2420", "contikimac", rx_on_us=400)
    sc["phy"] = {"cca_us": 200}
    r = run_ok(sc, tmp_path)
    assert r["radio"]["rx_on_us"] == 400
    assert r["node_stats"][0]["duty_cycle"] == pytest.approx(2 * 600 / 125_000, rel=0.05)
    bad = run_sim({**idle(None, "contikimac"), "platform": "msp430"}, tmp_path)
    assert bad.rc != 0 and "platform" in bad.stderr and "cc2420" in bad.stderr


def first_tx_us(tmp_path, platform: str, **radio) -> int:
    sc = {"name": "load", "duration_s": 2, "platform": platform,
          "radio": {"drift_ppm": 0, **radio},
          "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
          "medium": {"range_m": 12}, "mac": {"type": "csma_ca"},
          "flows": [{"type": "udp", "src": 0, "dst": 1, "interval_s": 1, "count": 1,
                     "payload_bytes": 40, "start_s": 1}]}
    trace = tmp_path / f"{platform}-{len(radio)}.jsonl"
    run_ok(sc, tmp_path, "--trace", str(trace))
    ev = [json.loads(x) for x in open(trace)]
    return next(e["t_us"] for e in ev if e["ev"] == "tx" and e["node"] == 0) - 1_000_000


def test_frame_load_time_delays_channel_access(tmp_path):
    ideal = first_tx_us(tmp_path, "ideal")
    # CSMA-CA's first backoff is at most 7 periods, then CCA and turnaround
    assert ideal <= 7 * 320 + 128 + 192
    slow = first_tx_us(tmp_path, "ideal", frame_host_us=20_000, bus_bps=100_000)
    # 20 ms of CPU and the length byte and MPDU at 100 kb/s before the backoff
    assert slow - ideal >= 20_000 + (1 + 60) * 8 * 10
    # the nRF52840's RADIO reads the frame from RAM by EasyDMA as it sends
    # it: no load time, channel access as on the ideal host; the CC2420's
    # 500 kb/s SPI puts its 61 bytes (976 us) first
    assert first_tx_us(tmp_path, "nrf52840") <= 7 * 320 + 128 + 192
    assert first_tx_us(tmp_path, "cc2420") >= (1 + 60) * 8 * 2


def drifting_pair(ppm: float, count: int, seed: int = 3, platform: str = "cc2420") -> dict:
    return {"name": "drift", "seed": seed, "duration_s": 140,
            "stop_when_done": False, "platform": platform, "radio": {"drift_ppm": ppm},
            "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
            "medium": {"range_m": 12},
            "mac": {"type": "csma_ca", "rdc": {"type": "contikimac"}},
            "flows": [{"type": "udp", "src": 0, "dst": 1, "interval_s": 10.0, "count": count,
                       "payload_bytes": 32, "start_s": 1}]}


@pytest.mark.parametrize("platform", ["cc2420", "nrf52840"])
def test_drift_within_the_guard_keeps_the_phase_lock(tmp_path, platform):
    """+/-40 ppm: two clocks part by at most 80 ppm x 10 s = 0.8 ms per
    interval, inside the 1.343 ms guard. 13 reports against 3: the 10 more
    are phase-locked unicasts, each about one frame and its ACK."""
    many, few = run_many([drifting_pair(40, 13, platform=platform),
                          drifting_pair(40, 3, platform=platform)], tmp_path)
    for r in (many, few):
        assert r["flows"][0]["delivery_ratio"] == 1
        rel = abs(r["node_stats"][0]["clock_ppm"] - r["node_stats"][1]["clock_ppm"])
        assert 0 < rel * 10 < GUARD_US
        assert r["node_stats"][0]["mac"].get("rdc_phase_misses", 0) == 0
    snd = [r["node_stats"][0] for r in (many, few)]
    rcv = [r["node_stats"][1] for r in (many, few)]
    assert snd[0]["mac"]["rdc_phase_locked"] - snd[1]["mac"]["rdc_phase_locked"] == 10
    frame_us = (PHY_HDR + 52) * US_PER_BYTE
    copies = (snd[0]["mac"]["tx_attempts"] - snd[1]["mac"]["tx_attempts"]) / 10
    assert copies <= 3          # the guard costs at most one copy more
    per_receiver = (rcv[0]["radio_on_s"] - rcv[1]["radio_on_s"]) * 1e6 / 10
    ton, tcca = PLATFORM[platform]
    # from its CCA through one whole frame and its ACK (at most one copy more)
    assert frame_us + TURN + ACK_US <= per_receiver
    assert per_receiver <= 2 * frame_us + 400 + TURN + ACK_US + ton + tcca


@pytest.mark.parametrize("platform", ["cc2420", "nrf52840"])
def test_drift_beyond_the_guard_misses_and_learns_again(tmp_path, platform):
    """500 ppm, seed 3: the receiver's clock runs ahead of the sender's by
    more than the guard each interval, so every aimed train starts after its
    check: each is a counted miss, and the full train after it delivers the
    frame and learns the phase again (no frame lost)."""
    r = run_ok(drifting_pair(500, 12, platform=platform), tmp_path)
    snd, rcv = r["node_stats"]
    ahead_us = (rcv["clock_ppm"] - snd["clock_ppm"]) * 10
    assert ahead_us > GUARD_US
    m = snd["mac"]
    assert r["flows"][0]["delivery_ratio"] == 1 and m["tx_ok"] == 12
    assert m["rdc_phase_locked"] == 11          # the first found the phase
    assert m["rdc_phase_misses"] == m["rdc_phase_locked"]
    assert m.get("tx_noack", 0) == 0


def test_phase_lock_aims_with_the_senders_own_start_ups(tmp_path):
    """No drift and no guard: a phase-locked train is aimed by the sender's
    own check, whose CCAs each pay the receiver's start-up. Planned without
    it, every train went 2 x 192 us late, learned that, and crept out of the
    receiver's check within seconds (16 misses in 100 reports)."""
    sc = drifting_pair(0, 30)
    sc["flows"][0]["interval_s"] = 1.0
    sc["duration_s"] = 35
    sc["mac"]["rdc"]["phase_guard_us"] = 0
    r = run_ok(sc, tmp_path)
    m = r["node_stats"][0]["mac"]
    assert r["flows"][0]["delivery_ratio"] == 1
    assert m["rdc_phase_locked"] == 29 and m.get("rdc_phase_misses", 0) == 0


def test_an_ack_ends_on_the_receivers_clock(tmp_path):
    """A sender whose clock runs fast measures the ACK it hears (192 us
    turnaround + 352 us) a little short: waiting for exactly its computed end,
    it sent the next copy 1 us before the ACK ended, lost the ACK and called
    a delivered frame a miss (2 in 60 reports for each of these seeds, 96-byte
    payloads, NullMAC: no retry). The wait now allows for the clocks'
    tolerance (timing.clock_ppm)."""
    scs = []
    for seed in (1, 2):
        sc = drifting_pair(40, 60, seed=seed)
        sc.update(duration_s=62, mac={"type": "nullmac", "rdc": {"type": "contikimac"}})
        sc["flows"][0].update(interval_s=1.0, payload_bytes=96)
        scs.append(sc)
    for r in run_many(scs, tmp_path):
        m = r["node_stats"][0]["mac"]
        assert r["flows"][0]["delivery_ratio"] == 1
        assert m["tx_ok"] == 60 and m.get("tx_noack", 0) == 0
        assert m.get("rdc_phase_misses", 0) == 0
