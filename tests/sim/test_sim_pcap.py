"""moteip-sim --pcap: every frame on the air as LINKTYPE_IEEE802_15_4_WITHFCS.

A 3-hop TCP transfer (4-node chain, 6LoWPAN IPHC, CSMA-CA with link ACKs)
is captured and checked twice: by hand (pcap format, the context record,
then one record per transmission, FCS) and by tshark with its default
preferences (802.15.4 FCS: ITU-T CRC-16 = CRC-16/KERMIT, payload dissected
only when the FCS is good; the 6LoWPAN context learnt from the capture's
first record) but for TCP checksum checking, which must decode every frame
as 802.15.4 and the data frames as 6LoWPAN + IPv6 + TCP, without malformed
packets, expert errors or bad TCP checksums.

tshark comes from scripts/setup.sh; without it these tests fail rather
than skip.
"""
from __future__ import annotations

import collections
import json
import os
import shutil
import struct
import subprocess

import pytest

from simrun import run_sim

PORT = 7400      # the simulator's default for flows[0]: a port no dissector claims
BYTES = 5000
SRC_IP, DST_IP = "fd00::ff:fe00:0", "fd00::ff:fe00:3"
SCENARIO = {
    "name": "pcap-3hop", "seed": 7, "duration_s": 60,
    "topology": {"type": "chain", "nodes": 4, "spacing_m": 40},
    "mac": {"type": "csma_ca"},
    "link": {"mode": "iphc"},
    "flows": [{"type": "tcp", "src": 0, "dst": 3, "bytes": BYTES}],
}
# Nothing but TCP checksum checking: the IPHC context 0 (fd00::/64) comes from
# the capture's first record (a router advertisement with a 6CO option), and
# the flow's default port is one no dissector claims. Without the context
# tshark could rebuild neither the addresses nor the TCP pseudo-header.
TSHARK_OPTS = ["-o", "tcp.check_checksum:TRUE"]


def crc16_kermit(data: bytes) -> int:
    """The 802.15.4 FCS: CRC-16/CCITT reflected (poly 0x8408), init 0, no xorout."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def read_pcap(path):
    raw = path.read_bytes()
    assert len(raw) >= 24, "no pcap global header"
    magic, vmaj, vmin, _tz, _sig, snaplen, linktype = struct.unpack("<IHHiIII", raw[:24])
    hdr = {"magic": magic, "version": (vmaj, vmin), "snaplen": snaplen, "linktype": linktype}
    recs, off = [], 24
    while off < len(raw):
        assert off + 16 <= len(raw), f"truncated record header at byte {off}"
        sec, usec, incl, orig = struct.unpack("<IIII", raw[off:off + 16])
        off += 16
        assert off + incl <= len(raw), f"truncated record data at byte {off}"
        recs.append({"t_us": sec * 1_000_000 + usec, "usec": usec, "incl": incl, "orig": orig,
                     "data": raw[off:off + incl]})
        off += incl
    return hdr, recs


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    d = tmp_path_factory.mktemp("pcap")
    pcap, trace = d / "run.pcap", d / "run.jsonl"
    r = run_sim(SCENARIO, d, "--pcap", str(pcap), "--trace", str(trace))
    assert r.rc == 0, r.stderr
    res = r.result
    assert res["flows"][0]["complete"] is True, res["flows"][0]
    assert res["flows"][0]["hops"] == 3
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return {"dir": d, "pcap": pcap, "result": res, "trace": events}


@pytest.fixture(scope="module")
def tshark(capture):
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: run scripts/setup.sh (it installs tshark)")
    cfg = capture["dir"] / "wireshark-config"      # no user preferences leak in
    cfg.mkdir(exist_ok=True)
    env = dict(os.environ, WIRESHARK_CONFIG_DIR=str(cfg))

    def run(*args: str) -> str:
        p = subprocess.run([exe, "-r", str(capture["pcap"]), *TSHARK_OPTS, *args],
                           capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0, f"tshark {' '.join(args)}: exit {p.returncode}: {p.stderr}"
        return p.stdout
    return run


FIELDS = ["frame.number", "frame.protocols", "wpan.frame_type", "wpan.fcs_ok", "wpan.src16",
          "wpan.dst16", "6lowpan.frag.tag", "6lowpan.frag.size", "6lowpan.reassembled.in",
          "ipv6.src", "ipv6.dst", "tcp.checksum.status", "tcp.seq", "tcp.len", "tcp.payload"]


@pytest.fixture(scope="module")
def frames(tshark):
    """One dict per frame, from a two-pass dissection (so fragments know their reassembly)."""
    args = ["-2", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"]
    for f in FIELDS:
        args += ["-e", f]
    rows = []
    for line in tshark(*args).splitlines():
        cols = line.split("\t")
        assert len(cols) == len(FIELDS), line
        rows.append(dict(zip(FIELDS, cols)))
    return rows


# --- the file itself ----------------------------------------------------------------


def test_crc16_kermit_reference_value():
    assert crc16_kermit(b"123456789") == 0x2189      # the catalogue check value


def test_pcap_is_classic_pcap_with_linktype_195(capture):
    hdr, recs = read_pcap(capture["pcap"])
    assert hdr["magic"] == 0xA1B2C3D4                  # classic, microsecond timestamps
    assert hdr["version"] == (2, 4)
    assert hdr["linktype"] == 195                      # IEEE802_15_4_WITHFCS
    assert hdr["snaplen"] >= 127
    assert recs, "no records"
    for i, r in enumerate(recs):
        assert r["incl"] == r["orig"], f"record {i} truncated"
        assert 5 <= r["incl"] <= 127, f"record {i}: {r['incl']} bytes is no 802.15.4 MPDU"
        assert r["usec"] < 1_000_000


def is_context_record(data: bytes) -> bool:
    """The capture's first record (sim/capture.h): 802.15.4 broadcast from short
    address 0, uncompressed IPv6 (dispatch 0x41), ICMPv6 router advertisement
    with a 6CO option for context 0 = fd00::/64."""
    mhr = 9
    icmp = data[mhr + 1 + 40:-2]
    return (data[5:7] == b"\xff\xff" and data[7:9] == b"\x00\x00" and data[mhr] == 0x41
            and data[mhr + 1 + 6] == 58 and icmp[0] == 134 and icmp[16] == 34
            and icmp[18] == 64 and icmp[19] == 0x10 and icmp[24:32] == bytes([0xfd] + [0] * 7))


def test_pcap_starts_with_the_6lowpan_context_record(capture):
    _, recs = read_pcap(capture["pcap"])
    assert recs[0]["t_us"] == 0 and is_context_record(recs[0]["data"])
    assert not any(is_context_record(r["data"]) for r in recs[1:])


def test_pcap_has_one_record_per_transmitted_frame(capture):
    _, recs = read_pcap(capture["pcap"])
    recs = recs[1:]                                    # after the context record
    assert len(recs) == capture["result"]["totals"]["frames_tx"]
    tx = [e for e in capture["trace"] if e["ev"] == "tx"]
    # each record is stamped with its transmission's start time and has its length
    assert [(r["t_us"], r["incl"]) for r in recs] == [(e["t_us"], e["len"]) for e in tx]


def test_pcap_every_frame_has_a_valid_fcs(capture):
    _, recs = read_pcap(capture["pcap"])
    bad = [i + 1 for i, r in enumerate(recs)
           if crc16_kermit(r["data"][:-2]) != int.from_bytes(r["data"][-2:], "little")]
    assert bad == [], f"frames with a bad FCS (1-based): {bad[:20]}"


# --- tshark ---------------------------------------------------------------------------


def test_tshark_learns_the_context_and_decodes_every_frame_as_wpan_with_good_fcs(capture, frames):
    ra, frames = frames[0], frames[1:]
    assert ra["frame.protocols"] == "wpan:6lowpan:ipv6:icmpv6"
    assert (ra["ipv6.src"], ra["ipv6.dst"]) == ("fe80::ff:fe00:0", "ff02::1")
    assert len(frames) == capture["result"]["totals"]["frames_tx"]
    not_wpan = [f["frame.number"] for f in frames if not f["frame.protocols"].startswith("wpan")]
    assert not_wpan == []
    bad_fcs = [f["frame.number"] for f in frames if f["wpan.fcs_ok"] not in ("1", "True")]
    assert bad_fcs == [], f"tshark rejects the FCS of frames {bad_fcs[:20]}"
    kinds = collections.Counter(f["wpan.frame_type"] for f in frames)
    assert set(kinds) == {"0x0001", "0x0002"}, kinds    # data frames and (csma_ca) ACKs
    acks = [f for f in frames if f["wpan.frame_type"] == "0x0002"]
    assert all(f["frame.protocols"] == "wpan" for f in acks)


def test_tshark_decodes_data_frames_as_6lowpan_ipv6_tcp(frames):
    data = [f for f in frames[1:] if f["wpan.frame_type"] == "0x0001"]
    odd = []
    whole = []
    for f in data:
        p = f["frame.protocols"]
        if p.startswith("wpan:6lowpan:ipv6:tcp"):
            whole.append(f)
        elif not (p == "wpan:6lowpan:data" and f["6lowpan.frag.tag"]):
            odd.append((f["frame.number"], p))        # neither a datagram nor a fragment
    assert odd == [], f"data frames not decoded as 6LoWPAN + IPv6 + TCP: {odd[:20]}"
    assert whole, "no frame decoded as IPv6 + TCP"
    for f in whole:
        assert {f["ipv6.src"], f["ipv6.dst"]} == {SRC_IP, DST_IP}, f
    # both directions, and fragmented datagrams among them (a 3-hop 5000-byte transfer)
    assert {f["ipv6.src"] for f in whole} == {SRC_IP, DST_IP}
    assert any(f["6lowpan.frag.tag"] for f in whole), "no reassembled datagram"


def test_tshark_reassembles_every_fragmented_datagram(capture, frames):
    """Each fragment group (sender, receiver, tag) ends in a frame that shows IPv6 + TCP,
    except a datagram its sender gave up on (a link_fail in the trace)."""
    groups = collections.defaultdict(list)
    for f in frames:
        if f["6lowpan.frag.tag"]:
            groups[(f["wpan.src16"], f["wpan.dst16"], f["6lowpan.frag.tag"])].append(f)
    assert groups, "no 6LoWPAN fragments in a 5000-byte transfer"
    failed_senders = {e["node"] for e in capture["trace"] if e["ev"] == "link_fail"}
    incomplete = []
    for key, fs in groups.items():
        done = [f for f in fs if ":ipv6:tcp" in f["frame.protocols"]]
        if done:
            # the fragments before it point at the frame that completes the datagram
            n = done[0]["frame.number"]
            early = [f for f in fs if int(f["frame.number"]) < int(n)]
            assert early, (key, "a fragmented datagram needs more than one fragment")
            assert {f["6lowpan.reassembled.in"] for f in early} == {n}, (key, n)
        elif int(key[0], 16) not in failed_senders:
            incomplete.append(key)
    assert incomplete == [], f"fragment groups never reassembled: {incomplete}"


def test_tshark_finds_no_malformed_frames_or_errors(tshark):
    out = tshark("-Y", "_ws.malformed || _ws.expert.severity == error")
    assert out == "", f"tshark complains:\n{out}"


def test_tshark_filter_would_catch_bad_tcp_checksums(tshark, capture):
    """Guard for the test above: without the IPHC context (the capture less its first
    record) tshark rebuilds wrong addresses, and the same filter must then report the
    TCP checksums as errors."""
    exe = shutil.which("tshark")
    raw = capture["pcap"].read_bytes()
    first = 24 + 16 + struct.unpack_from("<I", raw, 24 + 8)[0]
    stripped = capture["dir"] / "no-context.pcap"
    stripped.write_bytes(raw[:24] + raw[first:])
    p = subprocess.run([exe, "-r", str(stripped), "-o", "tcp.check_checksum:TRUE",
                        "-Y", "_ws.expert.severity == error"], capture_output=True, text=True,
                       env=dict(os.environ, WIRESHARK_CONFIG_DIR=str(capture["dir"] / "wireshark-config")),
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert "CHECKSUM INCORRECT" in p.stdout


def test_tshark_verifies_every_tcp_checksum(tshark, frames):
    assert tshark("-Y", "tcp.checksum.status == 0") == ""       # 0: bad
    tcp = [f for f in frames if ":tcp" in f["frame.protocols"]]
    assert tcp
    assert {f["tcp.checksum.status"] for f in tcp} == {"1"}       # 1: good (verified)


def test_tcp_stream_on_the_last_hop_carries_the_flow_bytes(frames):
    """The data segments node 2 sends to node 3 cover the whole stream with the
    apps/http_server.h pattern: byte i = (7i + (i >> 8) + (i >> 16)) & 0xFF."""
    covered = bytearray(BYTES)
    for f in frames:
        if (f["wpan.src16"], f["wpan.dst16"]) != ("0x0002", "0x0003") or not f["tcp.len"]:
            continue
        n = int(f["tcp.len"])
        if n == 0:
            continue
        start = int(f["tcp.seq"]) - 1                          # relative sequence numbers
        payload = bytes.fromhex(f["tcp.payload"].replace(":", ""))
        assert len(payload) == n
        for k, b in enumerate(payload):
            i = start + k
            assert 0 <= i < BYTES, f"frame {f['frame.number']}: byte {i} outside the stream"
            assert b == (7 * i + (i >> 8) + (i >> 16)) & 0xFF, \
                f"frame {f['frame.number']}: stream byte {i} is {b:#04x}"
            covered[i] = 1
    missing = [i for i, c in enumerate(covered) if not c]
    assert missing == [], f"{len(missing)} stream bytes never seen on the last hop, first {missing[0]}"
