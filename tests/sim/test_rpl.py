"""routing.type "rpl": every node runs the real RPL (src/route/rpl.c).

Nodes start with link-local addresses only; the root (routing.root, node 0)
announces the mesh prefix in its DIOs, every node forms its address from
it, picks a parent and sends upward through it. A UDP flow from the far end
of a line and of a grid to the root delivers every datagram; the DODAG is
what the topology says (a line's parents are the neighbours towards the
root); two runs with one seed give the same bytes; the rpl keys are refused
with another routing type. tshark decodes every RPL message, the codec's
(the vectors of tests/unit/wire/test_rpl.c, which the codec emits byte for
byte) and the ones the nodes sent in a capture, with nothing malformed.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import struct
import subprocess

import pytest

from simrun import run_ok, run_sim

ROOT = pathlib.Path(__file__).resolve().parents[2]


def scenario(topology: dict, routing: dict, src: int, count: int = 10) -> dict:
    return {"name": "rpl", "seed": 3, "duration_s": 120, "stop_when_done": True,
            "topology": topology,
            "medium": {"model": "unit_disk", "range_m": 10.5, "interference_range_m": 20.5},
            "mac": {"type": "csma_ca"},
            "routing": {"type": "rpl", **routing},
            "flows": [{"type": "udp", "src": src, "dst": 0, "interval_s": 1,
                       "payload_bytes": 40, "count": count, "start_s": 30}]}


LINE = {"type": "chain", "nodes": 6, "spacing_m": 10}


@pytest.mark.parametrize("mode", ["non-storing", "storing"])
@pytest.mark.parametrize("of", ["mrhof", "of0"])
def test_line_converges_and_delivers_upward(tmp_path, mode, of):
    r = run_ok(scenario(LINE, {"mode": mode, "of": of}, 5), tmp_path)
    nodes = r["node_stats"]
    assert all(n["rpl"]["joined"] for n in nodes)
    assert nodes[0]["rpl"]["rank"] == 256                        # ROOT_RANK
    for n in nodes[1:]:
        assert n["rpl"]["parent"] == n["id"] - 1                 # towards the root
        assert n["rpl"]["rank"] > nodes[n["id"] - 1]["rpl"]["rank"]
        assert n["rpl"]["joined_s"] < 5
    f = r["flows"][0]
    assert f["sent"] == 10 and f["received"] == 10 and f["hops"] == 5


def test_grid_converges_and_delivers(tmp_path):
    grid = {"type": "grid", "rows": 4, "cols": 4, "spacing_m": 10}
    r = run_ok(scenario(grid, {}, 15, count=20), tmp_path)
    nodes = r["node_stats"]
    assert all(n["rpl"]["joined"] for n in nodes)
    # every rank is above its parent's: no loop in the DODAG
    by_id = {n["id"]: n for n in nodes}
    for n in nodes[1:]:
        assert n["rpl"]["rank"] > by_id[n["rpl"]["parent"]]["rpl"]["rank"]
    assert r["flows"][0]["received"] == 20


def test_same_seed_same_bytes(tmp_path):
    sc = scenario(LINE, {}, 5)
    a = run_sim(sc, tmp_path)
    b = run_sim(sc, tmp_path)
    assert a.rc == 0 and a.stdout == b.stdout


@pytest.mark.parametrize("routing, message", [
    ({"type": "shortest", "of": "of0"}, "routing.of: expected a key of routing type rpl only"),
    ({"type": "static", "routes": [], "mode": "storing"},
     "routing.mode: expected a key of routing type rpl only"),
    ({"type": "rpl", "root": 6}, "routing.root: expected a node id below topology's node count"),
    ({"type": "rpl", "of": "etx"}, "routing.of"),
    ({"type": "rpl", "dio_interval_min": 31}, "routing.dio_interval_min"),
])
def test_rpl_keys_are_checked(tmp_path, routing, message):
    sc = scenario(LINE, {}, 5)
    sc["routing"] = routing
    r = run_sim(sc, tmp_path)
    assert r.rc != 0 and message in r.stderr, r.stderr


# --- tshark ----------------------------------------------------------------

def tshark(pcap: pathlib.Path, *args: str) -> str:
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: run scripts/setup.sh (it installs tshark)")
    cfg = pcap.parent / "wireshark-config"
    cfg.mkdir(exist_ok=True)
    env = dict(os.environ, WIRESHARK_CONFIG_DIR=str(cfg))
    p = subprocess.run([exe, "-r", str(pcap), *args], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def icmpv6_sum(src: bytes, dst: bytes, msg: bytes) -> int:
    data = src + dst + struct.pack("!I3xB", len(msg), 58) + msg + (b"\0" if len(msg) % 2 else b"")
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def test_tshark_decodes_every_codec_message(tmp_path):
    """Each message the codec's unit test emits byte for byte (DIS with
    solicited information and PadN, DIO with DODAG configuration and PIO,
    DAO with D, Pad1, target and transit, DAO-ACK) in an IPv6 packet:
    tshark decodes all of it, nothing malformed."""
    src = bytes.fromhex("fe80000000000000000000fffe000002")
    dst = bytes.fromhex("ff02000000000000000000000000001a")
    recs = []
    for name in ("dis", "dio", "dao", "dao_ack"):
        msg = bytearray((ROOT / "fuzz/corpus/fuzz_rpl" / f"seed-{name}").read_bytes())
        msg[2:4] = struct.pack("!H", icmpv6_sum(src, dst, bytes(msg)))
        ip = struct.pack("!IHBB", 0x60000000, len(msg), 58, 255) + src + dst + bytes(msg)
        recs.append(ip)
    pcap = tmp_path / "rpl.pcap"
    with pcap.open("wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101))   # LINKTYPE_RAW
        for i, ip in enumerate(recs):
            f.write(struct.pack("<IIII", i, 0, len(ip), len(ip)) + ip)
    assert tshark(pcap, "-Y", "_ws.malformed || _ws.expert.severity == error") == ""
    out = tshark(pcap, "-T", "fields", "-e", "icmpv6.code", "-e", "icmpv6.checksum.status",
                 "-e", "icmpv6.rpl.dio.rank", "-e", "icmpv6.rpl.opt.config.min_hop_rank_inc",
                 "-e", "icmpv6.rpl.opt.prefix", "-e", "icmpv6.rpl.opt.target.prefix",
                 "-e", "icmpv6.rpl.opt.transit.parent", "-e", "icmpv6.rpl.dao.sequence",
                 "-e", "icmpv6.rpl.daoack.sequence")
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in rows] == ["0", "1", "2", "3"]
    assert all(r[1] == "1" for r in rows)                  # checksum good
    assert rows[1][2] == "512" and rows[1][3] == "256" and rows[1][4] == "fd00::"
    assert rows[2][5] == "fd00::2" and rows[2][6] == "fd00::3" and rows[2][7] == "9"
    assert rows[3][8] == "9"


def test_tshark_decodes_what_the_nodes_send(tmp_path):
    pcap = tmp_path / "sim.pcap"
    sc = scenario(LINE, {}, 5, count=3)
    r = run_sim(sc, tmp_path, "--pcap", str(pcap))
    assert r.rc == 0, r.stderr
    assert tshark(pcap, "-Y", "_ws.malformed || _ws.expert.severity == error") == ""
    out = tshark(pcap, "-Y", "icmpv6.type == 155", "-T", "fields", "-e", "icmpv6.code",
                 "-e", "icmpv6.checksum.status")
    rows = [line.split("\t") for line in out.splitlines()]
    assert {r[0] for r in rows} >= {"1"}                   # DIOs
    assert all(r[1] == "1" for r in rows)                  # checksum good
