"""Wireshark (tshark) decodes our replies with correct checksums: capture on
the TAP inside the namespace while Linux pings and UDP-echoes the stack
(including fragmented datagrams), then decode with every checksum check
enabled and look for anything bad or malformed from the stack."""
from __future__ import annotations

import selectors
import signal
import socket
import subprocess
import time

import pytest

import netpkt
from moteip_netns import STACK_V4, STACK_V6, TAP, assert_safe_addr, run

# tshark is installed by scripts/setup.sh (tests/static/test_setup_installs_tools.py):
# without it these tests fail rather than skip.

CHECK_PREFS = ["-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
               "-o", "ip.defragment:TRUE", "-o", "ipv6.defragment:TRUE"]


def _start_capture(ns, pcap) -> subprocess.Popen:
    p = subprocess.Popen(["ip", "netns", "exec", ns.name, "tshark", "-n", "-i", TAP,
                          "-F", "pcap", "-w", str(pcap)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stderr, selectors.EVENT_READ)
    buf = b""
    deadline = time.monotonic() + 20
    try:
        while b"Capturing on" not in buf:
            left = deadline - time.monotonic()
            if left <= 0 or p.poll() is not None:
                p.kill()
                raise AssertionError(f"tshark did not start: {buf.decode(errors='replace')}")
            if sel.select(timeout=left):
                chunk = p.stderr.read1(4096) if hasattr(p.stderr, "read1") else p.stderr.read(1)
                if not chunk:
                    continue
                buf += chunk
    finally:
        sel.close()
    time.sleep(0.5)
    return p


def _stop_capture(p: subprocess.Popen) -> None:
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate(timeout=10)


def _count(pcap, display_filter: str) -> int:
    out = run(["tshark", "-n", "-r", str(pcap), *CHECK_PREFS, "-Y", display_filter,
               "-T", "fields", "-e", "frame.number"], timeout=60).stdout
    return len(out.split())


def test_tshark_decodes_replies(host, tmp_path):
    mac = host.stack_mac()
    pcap = tmp_path / "capture.pcap"
    cap = _start_capture(host.ns, pcap)
    try:
        host.ping(STACK_V4, size=56, count=3)
        host.ping(STACK_V6, size=56, count=3)
        host.ping(STACK_V4, size=4000, count=2)
        host.ping(STACK_V6, size=4000, count=2)
        for family, addr in ((socket.AF_INET, STACK_V4), (socket.AF_INET6, STACK_V6)):
            assert_safe_addr(addr)
            s = host.socket(family, socket.SOCK_DGRAM)
            with s:
                for n in (100, 3000):
                    s.sendto(netpkt.pattern(n), (addr, 7))
                    data, _ = s.recvfrom(65535)
                    assert data == netpkt.pattern(n)
            s = host.socket(family, socket.SOCK_DGRAM)
            with s:
                s.connect((addr, 4242))
                s.send(b"closed")
                with pytest.raises(ConnectionRefusedError):
                    s.recv(100)
        time.sleep(0.5)
    finally:
        _stop_capture(cap)
    assert pcap.exists() and pcap.stat().st_size > 0

    from_us = f"eth.src == {mac}"
    bad = ('ip.checksum.status == "Bad" || udp.checksum.status == "Bad" || '
           'icmp.checksum.status == "Bad" || icmpv6.checksum.status == "Bad" || '
           '_ws.malformed || _ws.expert.severity == "error"')
    assert _count(pcap, f"{from_us} && ({bad})") == 0, \
        run(["tshark", "-n", "-r", str(pcap), *CHECK_PREFS, "-Y", f"{from_us} && ({bad})",
             "-V"], timeout=60).stdout[:5000]
    # The replies are there and decode as what they are.
    assert _count(pcap, f"{from_us} && icmp.type == 0 && ip.src == {STACK_V4}") >= 5
    assert _count(pcap, f"{from_us} && icmpv6.type == 129 && ipv6.src == {STACK_V6}") >= 5
    assert _count(pcap, f"{from_us} && udp.srcport == 7 && ip.src == {STACK_V4}") >= 2
    assert _count(pcap, f"{from_us} && udp.srcport == 7 && ipv6.src == {STACK_V6}") >= 2
    # Our fragmented replies were seen as fragments and reassembled.
    assert _count(pcap, f"{from_us} && ip.flags.mf == 1") >= 2
    assert _count(pcap, f"{from_us} && ipv6.fragment") >= 2
    assert _count(pcap, f"{from_us} && ip.fragments && icmp.type == 0") == 2
    assert _count(pcap, f"{from_us} && ipv6.fragments && icmpv6.type == 129") == 2
    assert _count(pcap, f"{from_us} && ip.fragments && udp.srcport == 7") == 1
    assert _count(pcap, f"{from_us} && ipv6.fragments && udp.srcport == 7") == 1
    # Checksums were actually verified (status Good, not "Unverified").
    assert _count(pcap, f'{from_us} && ip.checksum.status == "Good"') >= 5
    assert _count(pcap, f'{from_us} && udp.checksum.status == "Good"') >= 2
    assert _count(pcap, f'{from_us} && icmp.checksum.status == "Good"') >= 3
    assert _count(pcap, f'{from_us} && icmpv6.checksum.status == "Good"') >= 3
    # Port unreachable, both families.
    assert _count(pcap, f"{from_us} && icmp.type == 3 && icmp.code == 3") == 1
    assert _count(pcap, f"{from_us} && icmpv6.type == 1 && icmpv6.code == 4") == 1
    host.stop()
