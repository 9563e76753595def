"""What Wireshark makes of moteip-sim's captures with its default preferences.

Each capture is decoded by tshark with an empty configuration directory (no
user preferences, no decode-as) and must show no malformed frame and no
expert error, and every frame as the protocols it carries:

- an IPHC network (TCP, UDP and ping flows): the 6LoWPAN context comes from
  the capture itself, so addresses read fd00::ff:fe00:N; the TCP flow's
  default port is one no dissector claims (5000 was read as GSM over IP);
- raw-IP networks (IPv4 and IPv6): the IP view (LINKTYPE_RAW) by default,
  where the radio view could only show "wpan -> data" (or, for IPv4, a
  malformed LwMesh frame);
- per-node capture (--pcap-node): the sender's own view holds each segment
  once per transmission by TCP, where the capture of the medium holds a copy
  per hop that Wireshark flags as a retransmission.
"""
from __future__ import annotations

import collections
import os
import shutil
import struct
import subprocess

import pytest

from simrun import run_sim

CHAIN = {"type": "chain", "nodes": 4, "spacing_m": 10}
UNIT_DISK = {"model": "unit_disk", "range_m": 10.5, "interference_range_m": 10.5}


def scenario(link: dict, flows: list[dict], **top) -> dict:
    return {"name": "views", "seed": 1, "duration_s": 120, "stop_when_done": True,
            "topology": CHAIN, "medium": UNIT_DISK,
            "mac": {"type": "csma_ca", "retry_delay_max_us": 40000},
            "link": link, "flows": flows, **top}


TCP = {"type": "tcp", "src": 0, "dst": 3, "bytes": 3000, "mss": 88, "rx_buffer": 304}
TCP_SEGMENTS = 40       # 3000 bytes in segments of 76 (88 less the timestamp option)
UDP = {"type": "udp", "src": 0, "dst": 3, "interval_s": 0.2, "payload_bytes": 40, "count": 10}
PING = {"type": "ping", "src": 3, "dst": 0, "count": 5, "interval_s": 0.5}


@pytest.fixture(scope="module")
def tshark(tmp_path_factory):
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: run scripts/setup.sh (it installs tshark)")
    cfg = tmp_path_factory.mktemp("wireshark-config")   # default preferences only
    env = dict(os.environ, WIRESHARK_CONFIG_DIR=str(cfg))

    def run(pcap, *args: str) -> str:
        p = subprocess.run([exe, "-r", str(pcap), *args], capture_output=True, text=True,
                           env=env, timeout=120)
        assert p.returncode == 0, f"tshark {' '.join(args)}: exit {p.returncode}: {p.stderr}"
        return p.stdout
    return run


def fields(tshark, pcap, *names: str) -> list[dict]:
    args = ["-2", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"]
    for n in names:
        args += ["-e", n]
    return [dict(zip(names, line.split("\t"))) for line in tshark(pcap, *args).splitlines()]


def linktype(pcap) -> int:
    return struct.unpack_from("<I", pcap.read_bytes(), 20)[0]


def capture(tmp_path, sc: dict, *args: str) -> tuple[dict, object]:
    pcap = tmp_path / "c.pcap"
    r = run_sim(sc, tmp_path, "--pcap", str(pcap), *args)
    assert r.rc == 0, r.stderr
    return r.result, pcap


def assert_clean(tshark, pcap) -> None:
    bad = tshark(pcap, "-Y", "_ws.malformed || _ws.expert.severity == error")
    assert bad == "", f"tshark with default preferences complains:\n{bad}"


def test_iphc_capture_decodes_in_full_with_default_preferences(tshark, tmp_path):
    r, pcap = capture(tmp_path, scenario({"mode": "iphc"}, [TCP, UDP, PING]))
    assert all(f["complete"] for f in r["flows"]), r["flows"]
    assert linktype(pcap) == 195
    assert_clean(tshark, pcap)
    rows = fields(tshark, pcap, "frame.protocols", "wpan.frame_type", "ipv6.src", "ipv6.dst",
                  "tcp.srcport", "tcp.dstport", "6lowpan.frag.tag")
    protos = collections.Counter(f["frame.protocols"] for f in rows)
    allowed = {"wpan", "wpan:6lowpan:ipv6:icmpv6", "wpan:6lowpan:ipv6:tcp",
               "wpan:6lowpan:ipv6:tcp:data", "wpan:6lowpan:ipv6:udp:data",
               "wpan:6lowpan:ipv6:icmpv6:data", "wpan:6lowpan:data"}
    assert set(protos) <= allowed, protos
    assert protos["wpan:6lowpan:ipv6:udp:data"] and protos["wpan:6lowpan:ipv6:tcp:data"]
    # every address is whole: the context came from the capture
    addrs = {a for f in rows[1:] for a in (f["ipv6.src"], f["ipv6.dst"]) if a}
    assert addrs == {"fd00::ff:fe00:0", "fd00::ff:fe00:3"}, addrs
    ports = {p for f in rows for p in (f["tcp.srcport"], f["tcp.dstport"]) if p}
    assert "7400" in ports and "5000" not in ports


def test_raw_ip_capture_is_the_ip_view_and_decodes(tshark, tmp_path):
    # (raw IPv6 needs frames of 1280 bytes and more: the simulator's radios stop at 255)
    link = {"mode": "raw", "ip": "ipv4", "header_bytes": 23}
    r, pcap = capture(tmp_path, scenario(link, [TCP, UDP]))
    assert all(f["complete"] for f in r["flows"]), r["flows"]
    assert linktype(pcap) == 101                          # LINKTYPE_RAW
    assert_clean(tshark, pcap)
    protos = collections.Counter(f["frame.protocols"] for f in fields(tshark, pcap, "frame.protocols"))
    assert set(protos) <= {"raw:ip:tcp", "raw:ip:tcp:data", "raw:ip:udp:data"}, protos
    # one record per frame carrying IP: every transmission but the link ACKs
    acks = r["totals"]["frames_tx"] - sum(protos.values())
    assert 0 < acks <= sum(protos.values())


def test_iphc_ip_view_shows_compressed_tcp_decompressed(tshark, tmp_path):
    """With moteip's TCP NHC on (docs/LOWPAN.md), which Wireshark cannot
    decode in the radio view, the IP view holds each frame's datagram as its
    receiver rebuilt it: tshark reads every one as TCP, with the flow's
    ports and no malformed frame, one record per transmission of a frame."""
    r, pcap = capture(tmp_path, scenario({"mode": "iphc", "tcp_hc": True}, [TCP]),
                      "--pcap-view", "ip")
    assert all(f["complete"] for f in r["flows"]), r["flows"]
    assert linktype(pcap) == 101
    assert_clean(tshark, pcap)
    rows = fields(tshark, pcap, "frame.protocols", "tcp.dstport", "tcp.len")
    protos = collections.Counter(f["frame.protocols"] for f in rows)
    assert set(protos) <= {"raw:ipv6:tcp", "raw:ipv6:tcp:data"}, protos
    # (tshark shows a forwarded copy as a retransmission, without ":data")
    data = [f for f in rows if f["tcp.len"] not in ("", "0")]
    assert len(data) >= TCP_SEGMENTS * 3                          # 3 hops
    assert {f["tcp.dstport"] for f in data} == {"7400"}
    tcphc = sum(n["stack"].get("lowpan_tcphc_tx", 0) for n in r["node_stats"])
    assert 0 < tcphc <= len(rows)


def test_raw_ip_radio_view_on_request(tmp_path):
    link = {"mode": "raw", "ip": "ipv4", "header_bytes": 23}
    r, pcap = capture(tmp_path, scenario(link, [TCP]), "--pcap-view", "radio")
    assert linktype(pcap) == 195
    n, off, data = 0, 24, pcap.read_bytes()
    while off < len(data):
        off += 16 + struct.unpack_from("<I", data, off + 8)[0]
        n += 1
    assert n == r["totals"]["frames_tx"]                  # no context record without IPHC


@pytest.mark.parametrize("args, message", [
    (["--pcap-node", "4"], "node 4 does not exist (nodes 0..3)"),
    (["--pcap-view", "sideways"], "--pcap-view: expected auto, radio or ip, got 'sideways'"),
    (["--pcap-node", "-1"], "--pcap-node: expected a node id, got '-1'"),
])
def test_bad_capture_options_exit_2(tmp_path, args, message):
    r = run_sim(scenario({"mode": "iphc"}, [TCP]), tmp_path, "--pcap", str(tmp_path / "x.pcap"),
                *args)
    assert r.rc == 2 and message in r.stderr, r.stderr


def test_capture_options_need_pcap(tmp_path):
    r = run_sim(scenario({"mode": "iphc"}, [TCP]), tmp_path, "--pcap-node", "1")
    assert r.rc == 2 and "--pcap-view and --pcap-node need --pcap FILE" in r.stderr


def retransmissions(tshark, pcap, sender: str) -> int:
    rows = fields(tshark, pcap, "ipv6.src", "tcp.len", "tcp.analysis.retransmission",
                  "tcp.analysis.fast_retransmission", "tcp.analysis.spurious_retransmission")
    return sum(1 for f in rows if f["ipv6.src"] == sender and f["tcp.len"] not in ("", "0")
               and any(f[k] for k in list(f)[2:]))


def test_per_node_capture_has_no_forwarded_copies(tshark, tmp_path):
    """A clean 3-hop transfer: TCP resent nothing, so the sender's own capture has no
    retransmission; the medium's capture flags each forwarded copy of a segment."""
    sc = scenario({"mode": "iphc"}, [TCP])
    r, medium = capture(tmp_path, sc)
    f = r["flows"][0]
    assert f["complete"] and f["e2e_retransmissions"] == 0, f
    assert retransmissions(tshark, medium, "fd00::ff:fe00:0") >= f["segments_sent"]

    node0 = tmp_path / "node0.pcap"
    assert run_sim(sc, tmp_path, "--pcap", str(node0), "--pcap-node", "0").rc == 0
    assert_clean(tshark, node0)
    assert retransmissions(tshark, node0, "fd00::ff:fe00:0") == 0
    rows = fields(tshark, node0, "wpan.frame_type", "wpan.src16", "wpan.dst16", "ipv6.src",
                  "tcp.len")
    data = [x for x in rows[1:] if x["ipv6.src"] == "fd00::ff:fe00:0" and x["tcp.len"] not in ("", "0")]
    assert len(data) == f["segments_sent"] - 1 == TCP_SEGMENTS     # the SYN carries none
    # only node 0's own frames and frames addressed to it; no link ACKs
    assert {x["wpan.frame_type"] for x in rows[1:]} == {"0x0001"}
    assert all("0x0000" in (x["wpan.src16"], x["wpan.dst16"]) for x in rows[1:])


def test_per_node_capture_of_a_lossy_run_counts_what_tcp_resent(tshark, tmp_path):
    sc = scenario({"mode": "iphc"}, [TCP], medium=dict(UNIT_DISK, ber=3e-4))
    pcap = tmp_path / "node0.pcap"
    r = run_sim(sc, tmp_path, "--pcap", str(pcap), "--pcap-node", "0")
    assert r.rc == 0, r.stderr
    f = r.result["flows"][0]
    assert f["complete"] and f["e2e_retransmissions"] > 0, f
    assert_clean(tshark, pcap)
    # link retries are no TCP retransmissions: what is flagged is at least what the RTOs
    # resent and at most every data segment sent beyond the first copies
    # (e2e_retransmissions counts the segment each RTO resends, not those sent again
    # after it)
    flagged = retransmissions(tshark, pcap, "fd00::ff:fe00:0")
    assert f["e2e_retransmissions"] <= flagged <= f["segments_sent"] - 1 - TCP_SEGMENTS
