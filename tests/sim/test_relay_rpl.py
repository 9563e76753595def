"""The relay over RPL (issue 23): cctrl on a chain whose routes RPL forms, in
both modes (docs/RELAY.md "Source routes"). In non-storing mode the ACKs
come down from the root (the server) on a Source Routing Header whose
Destination Address is only the next hop; every relay must still see them,
or its cache is never cleared by a TCP ACK and only the last hop's relay
(where the route ends) works."""
from __future__ import annotations

import pytest

from simrun import run_ok

BYTES = 40 * 64            # 160 segments of 16 bytes (tx_buffer 16)
SEGMENTS = BYTES // 16


def cctrl_rpl_chain(mode: str) -> dict:
    """examples/cctrl.toml's 5-hop chain (6 nodes; client node 5, server and
    DODAG root node 0) over 6LoWPAN IPHC, a fixed number of 16-byte segments
    starting once the chain has joined."""
    return {
        "name": "cctrl-rpl", "seed": 1, "duration_s": 2000, "stop_when_done": True,
        "medium": {"model": "unit_disk", "range_m": 10, "interference_range_m": 10,
                   "ber": 2.5e-4},
        "topology": {"type": "chain", "nodes": 6, "spacing_m": 10},
        "mac": {"type": "csma_ca", "max_retries": 1},
        "link": {"mode": "iphc", "ip": "ipv6"},
        "routing": {"type": "rpl", "mode": mode},
        "relay": {"mode": "cctrl", "keep": True, "max_local_rexmit": 3},
        "flows": [{"type": "tcp", "src": "last", "dst": 0, "start_s": 30,
                   "segments": BYTES // 64, "segment_bytes": 64, "tx_buffer": 16,
                   "sender": {"sack": False, "timestamps": False, "cwnd_cap": 1,
                              "max_retries": 255},
                   "receiver": {"profile": "tiny", "delayed_ack": False,
                                "max_retries": 255}}],
    }


@pytest.mark.parametrize("mode", ["non-storing", "storing"])
def test_cctrl_over_rpl_delivers_and_every_relay_acts(tmp_path, mode):
    res = run_ok(cctrl_rpl_chain(mode), tmp_path)
    f = res["flows"][0]
    assert f["complete"] and f["integrity_ok"], f
    assert f["bytes_delivered"] == BYTES, f
    relays = res["node_stats"][1:5]
    for n in relays:
        r = n["relay"]
        # every relay caches the segments going up and frees each one by the
        # server's TCP ACK coming down (before the relay parsed past a
        # source route: 0 of 160 freed at nodes 1-3 in non-storing mode)
        assert r.get("cached", 0) >= SEGMENTS * 9 // 10, (n["id"], r)
        assert r.get("tcp_acks_cleared", 0) >= SEGMENTS * 9 // 10, (n["id"], r)
    assert sum(n["relay"].get("local_rexmits", 0) for n in relays) > 0
    assert sum(n["relay"].get("send_failed", 0) for n in relays) == 0
