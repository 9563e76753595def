"""Misbehaving nodes (scenario key "misbehave", sim/misbehave.c) and denial of sleep.

1. each attack puts its frames on the air at its rate, and the victim's MAC sees
   them as what they are (data frames, duplicates, strobes, data requests);
2. the bound of docs/MAC.md ("Denial of sleep"): per RDC, a victim under
   each attack stays within the figure documented there.
"""
from __future__ import annotations

import pytest

from simrun import run_ok, run_sim

ATTACKER, VICTIM = 1, 0


def scenario(rdc: dict, attack: dict, duration_s: float = 5, nodes: int = 2,
             flows: list | None = None, node_rdc: list | None = None) -> dict:
    """Victim 0, attacker 1 (always on, so that it hears what it replays)."""
    return {"name": "misbehave", "seed": 1, "duration_s": duration_s, "stop_when_done": False,
            "topology": {"type": "chain", "nodes": nodes, "spacing_m": 5},
            "medium": {"range_m": 12},
            "mac": {"type": "csma_ca", "rdc": rdc,
                    "nodes": node_rdc or [{"ids": [ATTACKER], "rdc": {"type": "nullrdc"}}]},
            "flows": flows or [],
            "misbehave": [{"node": ATTACKER, "target": VICTIM, **attack}]}


# --- 1. the key -----------------------------------------------------------------------

@pytest.mark.parametrize("attack,sent,victim_counter", [
    ({"pending_every_ms": 20}, "pending", "rx_frames"),
    ({"pending_every_ms": 20, "pending_to": "broadcast"}, "pending", "rx_frames"),
    ({"strobe_every_ms": 20}, "strobes", "rx_frames"),          # NullRDC: a data frame
    ({"probe_every_ms": 20}, "probes", "rx_frames"),            # NullRDC: a broadcast
    ({"poll_every_ms": 20}, "polls", "rx_not_for_us"),          # a MAC command
])
def test_each_attack_sends_at_its_rate(tmp_path, attack, sent, victim_counter):
    r = run_ok(scenario({"type": "nullrdc"}, attack), tmp_path)
    mb = r["misbehave"][0]
    assert (mb["node"], mb["target"]) == (ATTACKER, VICTIM)
    # gaps uniform in [10, 20] ms over 5 s: about 333
    assert 5000 / 20 <= mb[sent] <= 5000 / 10 + 1
    assert sum(v for k, v in mb.items() if k not in ("node", "target")) == mb[sent]
    assert r["node_stats"][VICTIM]["mac"][victim_counter] >= 0.95 * mb[sent]


def test_replay_sends_overheard_frames_again(tmp_path):
    flows = [{"type": "udp", "src": 2, "dst": VICTIM, "interval_s": 0.5, "payload_bytes": 16,
              "start_s": 0.1, "count": 1}]
    r = run_ok(scenario({"type": "nullrdc"}, {"replay_every_ms": 100, "start_s": 1}, nodes=3,
                        flows=flows), tmp_path)
    mb = r["misbehave"][0]
    assert 40 <= mb["replays"] <= 81
    mac = r["node_stats"][VICTIM]["mac"]
    assert mac["rx_frames"] == 1 and mac["rx_duplicates"] >= 0.95 * mb["replays"]


def test_polls_from_invented_addresses_reach_a_parent(tmp_path):
    """Data requests from a new invented address each time: the parent takes
    each for a child (issue 24's "forged data requests evict real idle
    children"; with link-layer security it learns children only from
    trusted ones)."""
    sc = scenario({"type": "parent"}, {"poll_every_ms": 50},
                  node_rdc=[{"ids": [ATTACKER], "rdc": {"type": "nullrdc"}}])
    r = run_ok(sc, tmp_path)
    polls = r["misbehave"][0]["polls"]
    mac = r["node_stats"][VICTIM]["mac"]
    assert 5000 / 50 <= polls <= 5000 / 25 + 1
    assert mac["rdc_polls"] >= 0.95 * polls
    assert mac["rdc_child_evicted"] >= 0.95 * polls - 8       # MIP_RDC_CHILDREN (full): 8


def test_cca_replays_defer_to_frames_on_the_air(tmp_path):
    """With "cca" the replayer goes through CSMA-CA: it backs off from the
    legitimate sender's frames instead of colliding with them (the keyless
    node on its radio's normal path; without it, a jammer)."""
    flows = [{"type": "udp", "src": 2, "dst": VICTIM, "interval_s": 0.02, "payload_bytes": 80,
              "start_s": 0.1}]
    got = {}
    for cca in (False, True):
        (tmp_path / str(cca)).mkdir()
        r = run_ok(scenario({"type": "nullrdc"}, {"replay_every_ms": 20, "cca": cca}, nodes=3,
                            flows=flows), tmp_path / str(cca))
        got[cca] = (r["misbehave"][0], r["node_stats"][VICTIM]["frames_collided"])
    (jam, jam_lost), (csma, csma_lost) = got[False], got[True]
    assert jam["cca_busy"] == 0 and jam["cca_failures"] == 0
    assert csma["cca_busy"] > 0 and csma["replays"] > 100
    assert jam_lost > 20 and csma_lost < jam_lost / 4, (jam_lost, csma_lost)


def test_no_replay_before_a_frame_was_heard(tmp_path):
    r = run_ok(scenario({"type": "nullrdc"}, {"replay_every_ms": 100}), tmp_path)
    assert r["misbehave"][0]["replays"] == 0


# --- 2. the bound per RDC (docs/MAC.md "Denial of sleep") --------------------------------

#: The victim's RDC: mac.rdc and mac.nodes (node 2 runs the same RDC, or is the
#: leaf's parent; the attacker is always on). As `moteip reproduce denial-of-sleep`.
RDCS = {
    "contikimac": ({"type": "contikimac"}, []),
    "xmac": ({"type": "xmac"}, []),
    "lpp": ({"type": "lpp"}, []),
    "leaf": ({"type": "leaf", "parent": 2, "poll_ms": 250}, [{"ids": [2], "rdc": {"type": "parent"}}]),
}
ATTACKS = {
    "pending": {"pending_every_ms": 20},
    "broadcast": {"pending_every_ms": 20, "pending_to": "broadcast"},
    "replay": {"replay_every_ms": 20},                   # no CCA: a jammer too
    "replay-cca": {"replay_every_ms": 20, "cca": True},  # CSMA-CA first
    "strobe": {"strobe_every_ms": 200},
}
#: The unsecured bound: a neighbour pays 12.64 ms of its 187.5-ms budget for each
#: pending bit 20 ms apart, so it holds a victim at most 187.5 / 12.64 x 20 ms + one
#: wait, about 0.33 s, in each 1-s window (include/moteip/rdc.h, docs/MAC.md).
UNSECURED_EXTRA = (187.5 / 12.64 * 20 + 31.25) / 1000

#: Link-layer security on every node, the attacker with another key: the llsec
#: branch's "security" key (issue 24 part 2, its tests/sim/test_llsec.py); until the
#: simulator takes it these cases skip. A secured strobe needs X-MAC's wake-up
#: raised to 6,500 us (llsec's test_a_level_whose_strobes_do_not_fit...).
SECURITY = {"security": {"level": 5, "key": "C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF",
                         "nodes": [{"ids": [ATTACKER], "key": "00112233445566778899AABBCCDDEEFF"}]}}
SECURED_XMAC_ON_US = 6500
#: Where the secured bound is not issue 24's 2x (docs/MAC.md "Denial of sleep"): the
#: replayer without CCA is a jammer, on the air 21 % of the time; it costs a ContikiMAC
#: victim by destroying the copies of its legitimate trains (the radio time of the lost
#: copies alone is 0.5-0.6x the idle figure), not by being heard: 1.74-2.34x over seeds
#: 1-30 of 60 s. The same replays sent through CSMA-CA ("replay-cca"): at most 1.5x on
#: every RDC, within the 2x.
SECURED_FACTOR = {("contikimac", "replay"): 2.4}


def dos_scenario(rdc: str, attack: dict | None, secure: bool, duration_s: float = 60) -> dict:
    own, nodes = RDCS[rdc]
    if secure and rdc == "xmac":
        own = {**own, "on_us": SECURED_XMAC_ON_US}
    flows = [{"type": "udp", "src": 2, "dst": VICTIM, "interval_s": 2.0, "payload_bytes": 300,
              "start_s": 1}]
    sc = scenario(own, attack or {"pending_every_ms": 20, "start_s": 1e6}, duration_s=duration_s,
                  nodes=3, flows=flows,
                  node_rdc=[{"ids": [ATTACKER], "rdc": {"type": "nullrdc"}}, *nodes])
    if secure:
        sc.update(SECURITY)
    return sc


def run_dos(tmp_path, rdc: str, attack: dict | None, secure: bool) -> dict:
    r = run_sim(dos_scenario(rdc, attack, secure), tmp_path)
    assert r.rc == 0, r.stderr
    return r.result


CASES = [(rdc, atk) for rdc in RDCS for atk in ATTACKS if atk != "strobe" or rdc == "xmac"]


@pytest.mark.parametrize("secure", [False, True], ids=["unsecured", "secured"])
@pytest.mark.parametrize("rdc,attack", CASES, ids=[f"{r}-{a}" for r, a in CASES])
def test_attack_on_victim_stays_within_the_bound(tmp_path, rdc, attack, secure):
    (tmp_path / "idle").mkdir()
    (tmp_path / "attack").mkdir()
    idle = run_dos(tmp_path / "idle", rdc, None, secure)
    hit = run_dos(tmp_path / "attack", rdc, ATTACKS[attack], secure)
    mb = hit["misbehave"][0]
    assert sum(mb[k] for k in ("pending", "strobes", "replays")) > 0     # the attack ran
    dc0 = idle["node_stats"][VICTIM]["duty_cycle"]
    dc = hit["node_stats"][VICTIM]["duty_cycle"]
    if secure:
        # issue 24's target: an attacker without the key, at most 2x the figure
        # without attack -- but for ContikiMAC against a jammer's 127-byte
        # replays every 20 ms without CCA, whose collisions with the legitimate
        # trains cost the victim: 1.74-2.34x over seeds 1-30 of 60 s
        # (docs/MAC.md "Denial of sleep"; replay-cca holds 2x)
        assert dc <= SECURED_FACTOR.get((rdc, attack), 2.0) * dc0, (dc, dc0)
    else:
        # before bounded bursts: 22-99 % (docs/MAC.md's table)
        assert dc <= dc0 + UNSECURED_EXTRA, (dc, dc0)
