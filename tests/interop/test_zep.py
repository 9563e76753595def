"""moteip-host over ZEP (docs/ZEP.md): the real 802.15.4 MAC, RDCs and 6LoWPAN
with UDP datagrams for a radio. Every host runs inside a namespace the test
makes, on its loopback: two hosts ping each other with fragmented datagrams
and carry TCP; a third routes between two that cannot hear each other; each
RDC carries TCP; tshark captures the ZEP stream and decodes every frame
(ZEP, 802.15.4 with its FCS, 6LoWPAN, IPv6, ICMPv6) with zero malformed; a
malformed datagram is dropped and counted."""
from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

from moteip_netns import HOST_BIN, read_ready_line

PORT_A, PORT_B, PORT_C = 17754, 17755, 17756        # 17754: ZEP's own port
A6, B6, C6 = "fd00::ff:fe00:1", "fd00::ff:fe00:2", "fd00::ff:fe00:3"


def zep_host(ns, tmp_path, name: str, local: int, remotes: list[int], short: int, addr: str,
             extra: list[str] | None = None) -> subprocess.Popen:
    """A moteip-host on a ZEP radio in `ns`, serving TCP echo on 7; waits for its line."""
    spec = ",".join(f"127.0.0.1:{p}" for p in [local, *remotes])
    p = subprocess.Popen(["ip", "netns", "exec", ns.name, str(HOST_BIN), "--zep", spec,
                          "--short", str(short), "--addr", f"{addr}/64", "--echo", "7",
                          "--stats-json", str(tmp_path / f"{name}.json"), *(extra or [])],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = read_ready_line(p, 10, f"moteip-host {name}")
    assert line.startswith(f"moteip-host: zep {spec} short 0x{short:04x}"), line
    return p


def client(ns, local: int, remote: int, *args: str, timeout: float = 60) -> str:
    r = ns.cmd([HOST_BIN, "--zep", f"127.0.0.1:{local},127.0.0.1:{remote}", "--short", "1",
                "--addr", f"{A6}/64", *args], timeout=timeout, check=False)
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


def stop(p: subprocess.Popen) -> None:
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=10)


def test_two_hosts_ping_with_fragments_and_carry_tcp(netns, tmp_path):
    b = zep_host(netns, tmp_path, "b", PORT_B, [PORT_A], 2, B6)
    try:
        out = client(netns, PORT_A, PORT_B, "--ping", B6, "--ping-size", "1232", "--ping-count", "3")
        assert "ping: 3/3 replies of 1232 data bytes" in out, out
        out = client(netns, PORT_A, PORT_B, "--ping", B6, "--ping-size", "8", "--ping-count", "3")
        assert "ping: 3/3 replies of 8 data bytes" in out, out
        out = client(netns, PORT_A, PORT_B, "--tcp-client", f"[{B6}]:7", "--client-send", "20000",
                     "--client-expect", "20000")
        assert "tcp-client: ok, sent 20000 bytes, received 20000 bytes" in out, out
    finally:
        stop(b)
    st = json.loads((tmp_path / "b.json").read_text())
    assert st["counters"]["lowpan_reassembled"] >= 3 and st["mac"]["tx_ok"] > 20
    assert st["zep"]["drop_malformed"] == 0 and st["zep"]["drop_fcs"] == 0


def test_a_third_host_routes_between_two_that_cannot_hear_each_other(netns, tmp_path):
    """A hears B only, C hears B only: A reaches C through B's forwarding."""
    b = zep_host(netns, tmp_path, "b", PORT_B, [PORT_A, PORT_C], 2, B6, ["--forward"])
    c = zep_host(netns, tmp_path, "c", PORT_C, [PORT_B], 3, C6,
                 ["--route", f"{A6}/128", "via", B6])
    try:
        via = ["--route", f"{C6}/128", "via", B6]
        out = client(netns, PORT_A, PORT_B, *via, "--ping", C6, "--ping-count", "3")
        assert "ping: 3/3 replies of 1000 data bytes" in out, out
        out = client(netns, PORT_A, PORT_B, *via, "--tcp-client", f"[{C6}]:7",
                     "--client-send", "5000", "--client-expect", "5000")
        assert "tcp-client: ok" in out, out
    finally:
        stop(c)
        stop(b)
    assert json.loads((tmp_path / "b.json").read_text())["counters"]["ip_forwarded"] >= 6


@pytest.mark.parametrize("rdc", ["contikimac", "xmac", "lpp"])
def test_every_rdc_runs_over_zep(netns, tmp_path, rdc):
    b = zep_host(netns, tmp_path, "b", PORT_B, [PORT_A], 2, B6, ["--rdc", rdc])
    try:
        out = client(netns, PORT_A, PORT_B, "--rdc", rdc, "--tcp-client", f"[{B6}]:7",
                     "--client-send", "3000", "--client-expect", "3000")
        assert "tcp-client: ok" in out, out
    finally:
        stop(b)


def test_tshark_decodes_the_zep_stream(netns, tmp_path):
    pcap = tmp_path / "zep.pcap"
    cap = subprocess.Popen(["ip", "netns", "exec", netns.name, "tshark", "-n", "-i", "lo", "-f",
                            f"udp portrange {PORT_A}-{PORT_B}", "-F", "pcap", "-w", str(pcap)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    buf = b""
    deadline = time.monotonic() + 20
    while b"Capturing on" not in buf and time.monotonic() < deadline:
        buf += cap.stderr.read1(4096)
    assert b"Capturing on" in buf, buf
    time.sleep(0.5)
    b = zep_host(netns, tmp_path, "b", PORT_B, [PORT_A], 2, B6)
    try:
        out = client(netns, PORT_A, PORT_B, "--ping", B6, "--ping-size", "600", "--ping-count", "2")
        assert "2/2" in out, out
    finally:
        stop(b)
        time.sleep(0.3)
        cap.send_signal(signal.SIGINT)
        cap.communicate(timeout=20)
    prefs = ["-d", f"udp.port=={PORT_B},zep", "-o", "6lowpan.context0:fd00::/64"]
    fields = subprocess.run(["tshark", "-n", "-r", str(pcap), *prefs, "-T", "fields",
                             "-e", "frame.protocols", "-e", "wpan.fcs_ok",
                             "-e", "_ws.malformed"], capture_output=True, text=True, timeout=60)
    assert fields.returncode == 0, fields.stderr
    rows = [line.split("\t") for line in fields.stdout.splitlines()]
    assert len(rows) >= 40, fields.stdout        # 2 x (5 fragments + ACKs) each way
    assert all("zep:wpan" in r[0] for r in rows), fields.stdout
    assert all(r[1] == "1" for r in rows), "an FCS Wireshark did not verify"
    assert not any(r[2] for r in rows), "malformed frames"
    protos = " ".join(r[0] for r in rows)
    assert "6lowpan:ipv6:icmpv6" in protos, protos          # reassembled by Wireshark
    bad = subprocess.run(["tshark", "-n", "-r", str(pcap), *prefs, "-Y", "_ws.malformed || _ws.expert.severity >= error"],
                         capture_output=True, text=True, timeout=60)
    assert bad.stdout.strip() == "", bad.stdout


def test_a_malformed_datagram_is_dropped_and_counted(netns, tmp_path):
    b = zep_host(netns, tmp_path, "b", PORT_B, [PORT_A], 2, B6)
    try:
        netns.python(f"""
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for d in (b"EX", b"EX\\x02\\x01" + bytes(27) + b"\\x7f", b"XY" + bytes(40), b"EX\\x09" + bytes(40)):
    s.sendto(d, ("127.0.0.1", {PORT_B}))
""")
        time.sleep(0.3)
        out = client(netns, PORT_A, PORT_B, "--ping", B6, "--ping-size", "8", "--ping-count", "1")
        assert "1/1" in out, out
    finally:
        stop(b)
    st = json.loads((tmp_path / "b.json").read_text())
    assert st["zep"]["drop_malformed"] == 4, st["zep"]
