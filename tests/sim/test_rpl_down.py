"""routing.type "rpl", downward: the root reaches every node.

Nodes advertise themselves with DAOs (src/route/rpl_dao.c); in
non-storing mode the root keeps the node table and source-routes (an SRH
each router sends on, RFC 6554), in storing mode each router keeps routes
from its children's DAOs. A UDP datagram from the root to every node of a
4x4 grid arrives, and a TCP transfer from the root to the far end of a line
delivers every byte, in both modes (non-storing: its full-sized segments
go in a fragmented tunnel). tshark reads the source-routed frames
of a capture with nothing malformed.
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from simrun import run_ok, run_sim

MODES = ["non-storing", "storing"]
GRID = {"type": "grid", "rows": 4, "cols": 4, "spacing_m": 10}


def base(topology: dict, mode: str, flows: list[dict], duration: int = 120) -> dict:
    return {"name": "rpl-down", "seed": 5, "duration_s": duration, "stop_when_done": True,
            "topology": topology,
            "medium": {"model": "unit_disk", "range_m": 10.5, "interference_range_m": 20.5},
            # a channel access failure is retried like a missing ACK: these
            # tests are about routes, and a UDP datagram given up by CSMA-CA
            # after its backoffs (two of the grid's neighbours sending at
            # once) is not a routing loss
            "mac": {"type": "csma_ca", "retry_on_busy": True},
            "routing": {"type": "rpl", "mode": mode},
            "flows": flows}


@pytest.mark.parametrize("mode", MODES)
def test_root_reaches_every_node_of_a_grid(tmp_path, mode):
    # after 30 s every node has joined and sent its DAO; then one datagram
    # a second from the root to each node in turn
    flows = [{"type": "udp", "src": 0, "dst": d, "interval_s": 1, "payload_bytes": 40,
              "count": 3, "start_s": 30 + d} for d in range(1, 16)]
    r = run_ok(base(GRID, mode, flows), tmp_path)
    assert all(n["rpl"]["joined"] for n in r["node_stats"])
    for f in r["flows"]:
        assert f["sent"] == 3 and f["received"] == 3, (mode, f)


@pytest.mark.parametrize("mode", MODES)
def test_tcp_root_to_leaf_delivers_every_byte(tmp_path, mode):
    # the default MSS: a segment fills the 1280-byte MTU, so the root sends
    # it in a tunnel whose outer datagram it fragments (RFC 2473 7.1)
    line = {"type": "chain", "nodes": 6, "spacing_m": 10}
    flows = [{"type": "tcp", "src": 0, "dst": 5, "bytes": 20000, "start_s": 30}]
    r = run_ok(base(line, mode, flows, duration=600), tmp_path)
    f = r["flows"][0]
    assert f["complete"] and f["integrity_ok"], (mode, f)
    relays = r["node_stats"][1:5]
    if mode == "non-storing":              # each router on the way swapped
        assert all(n["stack"].get("srh_forwarded", 0) >= 30 for n in relays), relays
        assert r["node_stats"][5]["stack"].get("rx_ipv6_decap", 0) >= 15
    else:
        assert all(n["stack"].get("srh_forwarded", 0) == 0 for n in relays), relays


def test_source_routed_frames_decode(tmp_path):
    """The root's source-routed datagrams and the nodes' DAOs, DAO-ACKs and
    RPL Options in the simulator's capture: tshark finds the SRH (routing
    type 3) and nothing malformed or in error."""
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: run scripts/setup.sh (it installs tshark)")
    line = {"type": "chain", "nodes": 4, "spacing_m": 10}
    sc = base(line, "non-storing", [{"type": "udp", "src": 0, "dst": 3, "interval_s": 1,
                                     "payload_bytes": 40, "count": 3, "start_s": 30}])
    pcap = tmp_path / "sim.pcap"
    cfg = tmp_path / "wireshark-config"
    cfg.mkdir()
    env = dict(os.environ, WIRESHARK_CONFIG_DIR=str(cfg))
    r = run_sim(sc, tmp_path, "--pcap", str(pcap))
    assert r.rc == 0, r.stderr

    def tshark(*args: str) -> str:
        p = subprocess.run([exe, "-r", str(pcap), *args], capture_output=True, text=True,
                           env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout

    assert tshark("-Y", "_ws.malformed || _ws.expert.severity == error") == ""
    assert tshark("-Y", "ipv6.routing.type == 3 && udp").count("\n") >= 3
    codes = set(tshark("-Y", "icmpv6.type == 155", "-T", "fields",
                       "-e", "icmpv6.code").split())
    assert {"2", "3"} <= codes                    # DAO, DAO-ACK
