"""Packet builders for the interop tests: Ethernet, IPv4, IPv6, UDP, TCP, ICMP.

Plain byte-level code (no scapy), so every field a test sets is visible.
"""
from __future__ import annotations

import ipaddress
import struct

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
PROTO_ICMP = 1
PROTO_TCP = 6
PROTO_UDP = 17
PROTO_ICMPV6 = 58
NH_FRAGMENT = 44


def checksum(data: bytes) -> int:
    """RFC 1071 internet checksum: the value to store in a checksum field."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def verify(data: bytes) -> bool:
    """True when data (with its checksum field in place) sums correctly."""
    return checksum(data) == 0


def mac_bytes(mac: str) -> bytes:
    return bytes(int(x, 16) for x in mac.split(":"))


def ip4(a: str) -> bytes:
    return ipaddress.IPv4Address(a).packed


def ip6(a: str) -> bytes:
    return ipaddress.IPv6Address(a).packed


def eth(dst: str, src: str, ethertype: int, payload: bytes) -> bytes:
    return mac_bytes(dst) + mac_bytes(src) + struct.pack("!H", ethertype) + payload


def pseudo4(src: str, dst: str, proto: int, length: int) -> bytes:
    return ip4(src) + ip4(dst) + struct.pack("!BBH", 0, proto, length)


def pseudo6(src: str, dst: str, nh: int, length: int) -> bytes:
    return ip6(src) + ip6(dst) + struct.pack("!IxxxB", length, nh)


def ipv4(src: str, dst: str, proto: int, payload: bytes, *, ident: int = 0x1234,
         ttl: int = 64, mf: bool = False, frag_offset: int = 0,
         total_length: int | None = None, bad_checksum: bool = False,
         ihl: int = 5, options: bytes = b"") -> bytes:
    """An IPv4 header (+ `options`, zero-padded to ihl * 4 bytes or to a
    multiple of 4) followed by payload."""
    ihl = max(ihl, 5 + (len(options) + 3) // 4)
    hlen = ihl * 4
    tl = hlen + len(payload) if total_length is None else total_length
    flags = (0x2000 if mf else 0) | (frag_offset // 8)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, tl, ident, flags, ttl, proto, 0,
                      ip4(src), ip4(dst)) + options + b"\0" * (hlen - 20 - len(options))
    ck = checksum(hdr)
    if bad_checksum:
        ck ^= 0x5A5A
    hdr = hdr[:10] + struct.pack("!H", ck) + hdr[12:]
    return hdr + payload


def ipv6(src: str, dst: str, nh: int, payload: bytes, *, hop_limit: int = 64,
         payload_len: int | None = None) -> bytes:
    pl = len(payload) if payload_len is None else payload_len
    return struct.pack("!IHBB16s16s", 0x60000000, pl, nh, hop_limit, ip6(src),
                       ip6(dst)) + payload


def frag6(nh: int, offset: int, more: bool, ident: int, data: bytes) -> bytes:
    """An IPv6 Fragment header followed by the fragment's data."""
    return struct.pack("!BBHI", nh, 0, offset | (1 if more else 0), ident) + data


def udp(sport: int, dport: int, payload: bytes, pseudo: bytes | None, *,
        bad_checksum: bool = False, length: int | None = None) -> bytes:
    """A UDP header + payload; checksum over `pseudo` (None: checksum 0)."""
    ln = 8 + len(payload) if length is None else length
    hdr = struct.pack("!HHHH", sport, dport, ln, 0)
    if pseudo is None:
        return hdr + payload
    ck = checksum(pseudo + hdr + payload) or 0xFFFF
    if bad_checksum:
        ck ^= 0x0F0F
    return hdr[:6] + struct.pack("!H", ck) + payload


TCP_SYN, TCP_ACK = 0x02, 0x10


def tcp(sport: int, dport: int, seq: int, ack: int, flags: int, pseudo: bytes, *,
        window: int = 64240, opts: bytes = b"") -> bytes:
    """A TCP header with `opts` (a multiple of 4 bytes), no payload; checksum
    over `pseudo`, which must give the length 20 + len(opts)."""
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                      (5 + len(opts) // 4) << 4, flags, window, 0, 0) + opts
    return hdr[:16] + struct.pack("!H", checksum(pseudo + hdr)) + hdr[18:]


def icmp4_echo(ident: int, seq: int, payload: bytes, *, type_: int = 8,
               bad_checksum: bool = False) -> bytes:
    hdr = struct.pack("!BBHHH", type_, 0, 0, ident, seq)
    ck = checksum(hdr + payload)
    if bad_checksum:
        ck ^= 0x3C3C
    return hdr[:2] + struct.pack("!H", ck) + hdr[4:] + payload


def icmp6_echo(src: str, dst: str, ident: int, seq: int, payload: bytes, *,
               type_: int = 128, bad_checksum: bool = False,
               with_checksum: bool = True) -> bytes:
    """ICMPv6 echo request; with_checksum False leaves it 0 (raw sockets fill it)."""
    hdr = struct.pack("!BBHHH", type_, 0, 0, ident, seq)
    if not with_checksum:
        return hdr + payload
    msg = hdr + payload
    ck = checksum(pseudo6(src, dst, PROTO_ICMPV6, len(msg)) + msg)
    if bad_checksum:
        ck ^= 0x3C3C
    return hdr[:2] + struct.pack("!H", ck) + hdr[4:] + payload


def pattern(n: int, seed: int = 0) -> bytes:
    """n bytes of a position-dependent pattern (catches shifted or reused bytes)."""
    return bytes(((i * 7) + (i >> 8) + seed) & 0xFF for i in range(n))
