"""moteip-sim --zep-mirror ADDR:PORT: every frame on the simulated air is also sent
as a ZEP datagram, for a live capture (docs/ZEP.md). A UDP socket of the test on
loopback receives them: one per frame the medium carried, each a version 2 data
datagram naming its sender, with the frame and a good FCS; tshark decodes them all
(ZEP, 802.15.4 with a verified FCS, 6LoWPAN, IPv6) with nothing malformed."""
from __future__ import annotations

import shutil
import socket
import struct
import subprocess

import pytest

from simrun import run_sim
from test_sim_pcap import crc16_kermit as fcs

CHAIN = {"name": "zep-mirror", "seed": 3, "duration_s": 5,
         "topology": {"type": "chain", "nodes": 4, "spacing_m": 40},
         "flows": [{"type": "ping", "src": 0, "dst": "last", "count": 3, "payload_bytes": 300}]}


def collect(sock: socket.socket) -> list[bytes]:
    out = []
    sock.settimeout(0.5)
    try:
        while True:
            out.append(sock.recv(512))
    except socket.timeout:
        return out


def test_every_frame_on_the_air_is_mirrored_over_zep(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        r = run_sim(CHAIN, tmp_path, "--zep-mirror", f"127.0.0.1:{port}")
        assert r.rc == 0, r.stderr
        dgrams = collect(s)
    res = r.result
    assert res["flows"][0]["received"] == 3
    assert len(dgrams) == res["totals"]["frames_tx"] > 20
    senders = set()
    for i, d in enumerate(dgrams):
        assert d[:4] == b"EX\x02\x01" and d[7] == 1, d[:8]          # v2 data, CRC mode
        assert struct.unpack(">I", d[17:21])[0] == i                  # ZEP sequence numbers
        n = d[31]
        assert len(d) == 32 + n
        frame = d[32:]
        assert fcs(frame[:-2]) == frame[-2] | frame[-1] << 8
        senders.add(struct.unpack(">H", d[5:7])[0])
    assert senders == {0, 1, 2, 3}
    if shutil.which("tshark") is None:
        pytest.fail("tshark is missing (scripts/setup.sh installs it)")
    # the datagrams as a capture of IPv4/UDP on loopback (LINKTYPE_RAW), for tshark
    pcap = tmp_path / "mirror.pcap"
    with open(pcap, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101))
        for i, d in enumerate(dgrams):
            udp = struct.pack(">HHHH", 40000, port, 8 + len(d), 0) + d
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0,
                             bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1])) + udp
            f.write(struct.pack("<IIII", 1, i, len(ip), len(ip)) + ip)
    t = subprocess.run(["tshark", "-n", "-r", str(pcap), "-d", f"udp.port=={port},zep",
                        "-o", "6lowpan.context0:fd00::/64", "-T", "fields", "-e", "frame.protocols",
                        "-e", "wpan.fcs_ok", "-e", "_ws.malformed"],
                       capture_output=True, text=True, timeout=60)
    assert t.returncode == 0, t.stderr
    rows = [line.split("\t") for line in t.stdout.splitlines()]
    assert len(rows) == len(dgrams)
    assert all("zep:wpan" in row[0] and row[1] == "1" and not row[2] for row in rows), t.stdout
    assert any("6lowpan:ipv6" in row[0] for row in rows), t.stdout


@pytest.mark.parametrize("value", ["127.0.0.1", "localhost:17754", "[::1]17754", "1.2.3.4:0"])
def test_a_bad_mirror_address_is_a_usage_error(tmp_path, value):
    r = run_sim(CHAIN, tmp_path, "--zep-mirror", value)
    assert r.rc == 2 and r.stdout == "", r
    assert r.stderr.startswith("moteip-sim: --zep-mirror: "), r.stderr
