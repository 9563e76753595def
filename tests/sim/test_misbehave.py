"""Misbehaving nodes (scenario key "misbehave", sim/misbehave.c) and denial of sleep.

1. each attack puts its frames on the air at its rate, and the victim's MAC sees
   them as what they are (data frames, duplicates, strobes, data requests);
2. the bound of docs/MAC.md ("Denial of sleep"): per RDC, a victim under
   each attack stays within the figure documented there.
"""
from __future__ import annotations

import pytest

from simrun import run_ok

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


def test_no_replay_before_a_frame_was_heard(tmp_path):
    r = run_ok(scenario({"type": "nullrdc"}, {"replay_every_ms": 100}), tmp_path)
    assert r["misbehave"][0]["replays"] == 0
