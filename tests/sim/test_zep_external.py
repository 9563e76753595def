"""External nodes in moteip-sim --realtime (docs/ZEP.md, "External nodes in a
simulation"): a node of the scenario is a program speaking ZEP on loopback.
Here the program is the test's own UDP socket: the frame it sends enters
the medium and simulated node 0 receives it; the frames the medium delivers
at its position come back as ZEP v2 datagrams with every field filled; a
malformed datagram, one of another channel and one with a bad FCS are
dropped and counted. The scenario keys are checked (loopback only, not the
border router, no apps on the node, --realtime only). No root: loopback
sockets only."""
from __future__ import annotations

import json
import socket
import struct
import subprocess
import time

from simrun import run_sim, sim_binary
from test_sim_pcap import crc16_kermit as fcs


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scenario(local: str, remote: str, **extra) -> dict:
    sc = {"name": "external", "seed": 1, "duration_s": 2,
          "topology": {"type": "chain", "nodes": 2, "spacing_m": 40},
          # node 0 pings the external node 1 (which never answers: 3 requests,
          # each sent with its retries)
          "flows": [{"type": "ping", "src": 0, "dst": 1, "count": 3, "interval_s": 0.2,
                     "start_s": 0.2}],
          "external": [{"node": 1, "local": local, "remote": remote}]}
    sc.update(extra)
    return sc


def zep(frame_no_fcs: bytes, channel: int = 26, good_fcs: bool = True, seq: int = 0) -> bytes:
    c = fcs(frame_no_fcs) ^ (0 if good_fcs else 0xFFFF)
    frame = frame_no_fcs + bytes([c & 0xFF, c >> 8])
    return (b"EX\x02\x01" + bytes([channel]) + struct.pack(">HBB", 1, 1, 0xFF) + bytes(8) +
            struct.pack(">I", seq) + bytes(10) + bytes([len(frame)]) + frame)


# a broadcast data frame of node 1 (short addresses, PAN 0xABCD): not 6LoWPAN,
# so node 0's stack drops it, but the medium and node 0's MAC take it
BCAST = bytes([0x41, 0x88, 7, 0xCD, 0xAB, 0xFF, 0xFF, 0x01, 0x00]) + b"\x00hello"


def test_an_external_node_sends_and_receives_over_zep(tmp_path):
    local = free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        remote = s.getsockname()[1]
        path = tmp_path / "scenario.json"
        path.write_text(json.dumps(scenario(f"127.0.0.1:{local}", f"127.0.0.1:{remote}")))
        p = subprocess.Popen([str(sim_binary()), str(path), "--realtime"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = p.stderr.readline()
            assert f"external node 1 on zep 127.0.0.1:{local},127.0.0.1:{remote}" in line, line
            to = ("127.0.0.1", local)
            for d in (zep(BCAST), b"EX\x02\x01" + bytes(20), zep(BCAST, channel=11),
                      zep(BCAST, good_fcs=False)):
                s.sendto(d, to)
                time.sleep(0.01)
            out, err = p.communicate(timeout=20)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        assert p.returncode == 0, err
        s.settimeout(0.2)
        dgrams = []
        try:
            while True:
                dgrams.append(s.recv(512))
        except socket.timeout:
            pass
    r = json.loads(out)
    (ext,) = r["external"]
    assert ext["datagrams_in"] == 4 and ext["frames_in"] == 1, ext
    assert ext["drop_malformed"] == ext["drop_channel"] == ext["drop_fcs"] == 1, ext
    assert r["node_stats"][0]["mac"]["rx_frames"] >= 1     # node 0 heard node 1's frame
    # node 0's echo requests (and their MAC retries: nobody ACKs) came out
    assert len(dgrams) == ext["frames_out"] == r["node_stats"][0]["frames_tx"] >= 3
    for i, d in enumerate(dgrams):
        assert d[:4] == b"EX\x02\x01" and d[4] == 26 and d[7] == 1, d[:8]   # v2 data, ch, CRC
        assert struct.unpack(">H", d[5:7])[0] == 0                          # sent by node 0
        assert struct.unpack(">I", d[17:21])[0] == i                        # sequence
        seconds = struct.unpack(">I", d[9:13])[0] - 2208988800              # NTP, simulated
        assert 0 <= seconds <= 2
        frame = d[32:]
        assert len(frame) == d[31] and fcs(frame[:-2]) == frame[-2] | frame[-1] << 8


def check(tmp_path, sc: dict, *args: str) -> str:
    r = run_sim(sc, tmp_path, *args)
    assert r.rc == 2, (r.rc, r.stderr)
    return r.stderr


def test_external_keys_are_checked(tmp_path):
    ok = ("127.0.0.1:17790", "127.0.0.1:17791")
    err = check(tmp_path, scenario("192.0.2.1:17790", ok[1]), "--check")
    assert "external[0].local" in err and "loopback" in err, err
    err = check(tmp_path, scenario(*ok, border={"node": 1, "device": "x", "address": "fd01::2/64"}),
                "--check")
    assert "external[0].node" in err and "the border router" in err, err
    sc = scenario(*ok)
    sc["flows"] = [{"type": "udp", "src": 1, "dst": 0, "count": 1}]
    err = check(tmp_path, sc, "--check")
    assert "external[0].node" in err and "an end of a flow" in err, err
    sc = scenario(*ok)
    sc["external"].append(dict(sc["external"][0]))
    err = check(tmp_path, sc, "--check")
    assert "external[1].node" in err, err
    err = check(tmp_path, scenario(*ok))
    assert "external nodes run only with --realtime" in err, err
