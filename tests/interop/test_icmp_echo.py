"""ICMP echo over IPv4 and IPv6: Linux's ping, a raw-socket sweep of every
payload size up to the unfragmented maximum, and fragmented 4000-byte pings
(reassembly on our side, our fragmented reply reassembled by Linux)."""
from __future__ import annotations

import os
import socket
import struct
import time

import pytest

import netpkt
from moteip_netns import LINUX_V6, STACK_V4, STACK_V6, assert_safe_addr

PING_SIZES = [0, 1, 7, 8, 56, 64, 100, 500, 1000, 1400, 1452, 1472]
V4_MAX = 1472   # 1500 - 20 - 8
V6_MAX = 1452   # 1500 - 40 - 8


@pytest.mark.parametrize("size", PING_SIZES)
def test_ping_v4_sizes(host, size):
    host.ping(STACK_V4, size=size, count=2)


@pytest.mark.parametrize("size", [s for s in PING_SIZES if s <= V6_MAX])
def test_ping_v6_sizes(host, size):
    host.ping(STACK_V6, size=size, count=2)


def _recv_v4_reply(s: socket.socket, ident: int, seq: int, deadline: float) -> bytes:
    """The ICMP echo reply (from its IPv4 header on) matching ident/seq."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no IPv4 echo reply for seq {seq}")
        s.settimeout(left)
        try:
            data, addr = s.recvfrom(65535)
        except socket.timeout:
            raise AssertionError(f"no IPv4 echo reply for seq {seq}") from None
        ihl = (data[0] & 0x0F) * 4
        icmp = data[ihl:]
        if addr[0] != STACK_V4 or len(icmp) < 8 or icmp[0] != 0:
            continue
        rid, rseq = struct.unpack("!HH", icmp[4:8])
        if rid == ident and rseq == seq:
            return data


def test_raw_sweep_v4_every_size(host):
    """Every payload size 0..1472: the reply carries the same payload, with
    correct IPv4 header and ICMP checksums."""
    s = host.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    assert_safe_addr(STACK_V4)
    ident = int.from_bytes(os.urandom(2), "big")
    full = netpkt.pattern(V4_MAX, seed=3)
    with s:
        for size in range(V4_MAX + 1):
            seq = size
            payload = full[:size]
            s.sendto(netpkt.icmp4_echo(ident, seq, payload), (STACK_V4, 0))
            data = _recv_v4_reply(s, ident, seq, time.monotonic() + 3)
            ihl = (data[0] & 0x0F) * 4
            assert ihl == 20, f"size {size}: IHL {ihl}"
            assert netpkt.verify(data[:20]), f"size {size}: bad IPv4 header checksum"
            assert struct.unpack("!H", data[2:4])[0] == len(data), f"size {size}: total length"
            assert data[12:16] == netpkt.ip4(STACK_V4)
            icmp = data[20:]
            assert len(icmp) == 8 + size, f"size {size}: reply has {len(icmp) - 8} bytes"
            assert netpkt.verify(icmp), f"size {size}: bad ICMP checksum"
            assert icmp[1] == 0, f"size {size}: code {icmp[1]}"
            assert icmp[8:] == payload, f"size {size}: payload differs"


def test_raw_sweep_v6_every_size(host):
    """Every payload size 0..1452 over IPv6; the ICMPv6 checksum is checked
    here over the pseudo header (the kernel checks it too)."""
    s = host.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    assert_safe_addr(STACK_V6)
    ident = int.from_bytes(os.urandom(2), "big")
    full = netpkt.pattern(V6_MAX, seed=5)
    with s:
        for size in range(V6_MAX + 1):
            seq = size
            payload = full[:size]
            # The kernel fills in the ICMPv6 checksum of raw ICMPv6 sockets.
            s.sendto(netpkt.icmp6_echo(LINUX_V6, STACK_V6, ident, seq, payload,
                                       with_checksum=False), (STACK_V6, 0))
            deadline = time.monotonic() + 3
            while True:
                left = deadline - time.monotonic()
                assert left > 0, f"no IPv6 echo reply for size {size}"
                s.settimeout(left)
                try:
                    msg, addr = s.recvfrom(65535)
                except socket.timeout:
                    raise AssertionError(f"no IPv6 echo reply for size {size}") from None
                if addr[0] != STACK_V6 or len(msg) < 8 or msg[0] != 129:
                    continue
                rid, rseq = struct.unpack("!HH", msg[4:8])
                if rid == ident and rseq == seq:
                    break
            assert msg[1] == 0
            assert len(msg) == 8 + size, f"size {size}: reply has {len(msg) - 8} bytes"
            assert netpkt.verify(netpkt.pseudo6(STACK_V6, LINUX_V6, 58, len(msg)) + msg), \
                f"size {size}: bad ICMPv6 checksum"
            assert msg[8:] == payload, f"size {size}: payload differs"


def test_ping_4000_fragmented(host):
    """Linux fragments 4000-byte pings; we reassemble and answer with a
    fragmented reply that Linux reassembles."""
    host.ping(STACK_V4, size=4000, count=3)
    host.ping(STACK_V6, size=4000, count=3)
    stats = host.stop()
    c = stats["counters"]
    assert c["frag_reassembled"] >= 6, c
    assert c["frag_rx"] >= 6, c
    assert c["frag_tx"] >= 6, c
    assert c["icmp_echo_replied"] >= 6, c
    assert c["drop_frag_overlap"] == 0 and c["drop_frag_timeout"] == 0, c


def test_ping_flood_pbufs_bounded(host):
    """A burst of pings is answered and leaves the pbuf pool within bounds."""
    host.ping(STACK_V4, size=1000, count=200, interval=0.002, timeout=2)
    host.ping(STACK_V6, size=1000, count=200, interval=0.002, timeout=2)
    stats = host.stop()
    assert stats["counters"]["icmp_echo_replied"] >= 400
    assert 1 <= stats["pbuf_high_water"] <= 16, stats["pbuf_high_water"]
