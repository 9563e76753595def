"""UDP echo (port 7) and discard (port 9) over IPv4 and IPv6 from Linux
sockets, fragmented datagrams, oversized datagrams (beyond MIP_REASS_SIZE),
and closed ports (ICMP port unreachable -> ECONNREFUSED)."""
from __future__ import annotations

import socket
import time

import pytest

import netpkt
from moteip_netns import STACK_V4, STACK_V6, assert_safe_addr

FAMILIES = [(socket.AF_INET, STACK_V4), (socket.AF_INET6, STACK_V6)]
FAMILY_IDS = ["v4", "v6"]
REASS_SIZE = 4608            # MIP_REASS_SIZE of the full profile


def _echo(host, family, addr, payload: bytes, timeout: float = 3.0) -> bytes:
    assert_safe_addr(addr)
    s = host.socket(family, socket.SOCK_DGRAM, timeout=timeout)
    with s:
        s.connect((addr, 7))
        s.send(payload)
        data, frm = s.recvfrom(65535)
        assert frm[0] == addr and frm[1] == 7, f"reply from {frm}"
        return data


@pytest.mark.parametrize("family,addr", FAMILIES, ids=FAMILY_IDS)
def test_udp_echo_sizes(host, family, addr):
    """Unfragmented sizes up to the 1500-byte MTU, then fragmented ones."""
    max_unfrag = 1472 if family == socket.AF_INET else 1452
    sizes = [0, 1, 2, 100, 512, max_unfrag - 1, max_unfrag, max_unfrag + 1, 3000, 4000]
    for i, n in enumerate(sizes):
        payload = netpkt.pattern(n, seed=i)
        assert _echo(host, family, addr, payload) == payload, f"size {n}"
    stats = host.stop()
    c = stats["counters"]
    assert c["udp_rx"] >= len(sizes) and c["udp_tx"] >= len(sizes), c
    assert c["frag_reassembled"] >= 3, c
    assert stats["apps"]["udp_echo"]["datagrams"] == len(sizes), stats["apps"]
    assert stats["apps"]["udp_echo"]["bytes"] == sum(sizes), stats["apps"]


@pytest.mark.parametrize("family,addr", FAMILIES, ids=FAMILY_IDS)
def test_udp_echo_many_sources(host, family, addr):
    """Replies go back to each sender's port."""
    socks = [host.socket(family, socket.SOCK_DGRAM) for _ in range(5)]
    try:
        for i, s in enumerate(socks):
            s.sendto(f"hello from {i}".encode(), (addr, 7))
        for i, s in enumerate(socks):
            data, frm = s.recvfrom(2048)
            assert data == f"hello from {i}".encode()
            assert frm[1] == 7
    finally:
        for s in socks:
            s.close()


@pytest.mark.parametrize("family,addr", FAMILIES, ids=FAMILY_IDS)
def test_udp_too_big_to_reassemble(host, family, addr):
    """8000 bytes exceed MIP_REASS_SIZE (4608): dropped, counted, no reply;
    the stack keeps working afterwards."""
    assert 8000 > REASS_SIZE
    with pytest.raises(socket.timeout):
        _echo(host, family, addr, netpkt.pattern(8000), timeout=1.5)
    # Still fine afterwards, also for a datagram that does fit.
    assert _echo(host, family, addr, netpkt.pattern(3000, 9)) == netpkt.pattern(3000, 9)
    host.assert_alive()
    stats = host.stop()
    c = stats["counters"]
    assert c["drop_frag_too_big"] >= 1, c
    assert stats["apps"]["udp_echo"]["datagrams"] == 1


@pytest.mark.parametrize("family,addr", FAMILIES, ids=FAMILY_IDS)
def test_udp_closed_port_refused(host, family, addr):
    """A datagram to a closed port is answered with ICMP port unreachable,
    which Linux reports to a connected socket as ECONNREFUSED."""
    s = host.socket(family, socket.SOCK_DGRAM, timeout=3)
    with s:
        s.connect((addr, 4242))
        s.send(b"anyone there?")
        with pytest.raises(ConnectionRefusedError):
            s.recv(2048)
    stats = host.stop()
    c = stats["counters"]
    assert c["drop_udp_no_port"] == 1, c
    assert c["icmp_errors_tx"] >= 1, c


def test_udp_closed_port_refused_both(host):
    """Both families in one run: the no-port counter counts each datagram."""
    for family, addr in FAMILIES:
        s = host.socket(family, socket.SOCK_DGRAM, timeout=3)
        with s:
            s.connect((addr, 5353 + family))
            s.send(b"x")
            with pytest.raises(ConnectionRefusedError):
                s.recv(2048)
    stats = host.stop()
    assert stats["counters"]["drop_udp_no_port"] == 2, stats["counters"]


def test_udp_discard(host):
    """Port 9 swallows datagrams silently; the app counts them."""
    sent = 0
    for family, addr in FAMILIES:
        assert_safe_addr(addr)
        s = host.socket(family, socket.SOCK_DGRAM, timeout=1)
        with s:
            for n in (0, 10, 1000, 3000):
                s.sendto(netpkt.pattern(n), (addr, 9))
                sent += n
            with pytest.raises(socket.timeout):
                s.recv(2048)
    time.sleep(0.2)
    host.assert_alive()
    stats = host.stop()
    assert stats["apps"]["udp_discard"]["datagrams"] == 8, stats["apps"]
    assert stats["apps"]["udp_discard"]["bytes"] == sent, stats["apps"]
    assert stats["counters"]["drop_udp_no_port"] == 0
