#!/usr/bin/env python3
"""Generates the seed corpora of the moteip fuzz harnesses.

    python3 fuzz/make_corpus.py            # writes fuzz/corpus/<harness>/seed-*

Deterministic, standard library only. It rewrites only files named seed-*
(regression inputs, regress-*, are kept as they are).

Record format of the stack harnesses (see fuzz/stack_harness.h):
    [1 byte time step, 100 ms units][2 bytes BE: bit 15 = driver fails,
     bits 0..14 = length][frame]
fuzz_wire input: [1 byte codec selector][bytes] (see fuzz/fuzz_wire.c).
fuzz_mac_input: [4 config bytes][operations] (see mac_seeds() below).
fuzz_slip: [cap selector][chunk seed][serial line bytes] (see fuzz/fuzz_slip.c).
"""
import os
import struct
import zlib
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

# --- addresses ---------------------------------------------------------------

OUR_MAC = bytes.fromhex("020000000002")
PEER_MAC = bytes.fromhex("020000000001")      # 192.0.2.1 / fd00::1, the gateway
HOST3_MAC = bytes.fromhex("020000000003")     # 192.0.2.3 / fd00::3
BCAST_MAC = b"\xff" * 6

def v4(s):
    return bytes(int(x) for x in s.split("."))

def v6(s):
    if "::" in s:
        head, tail = s.split("::")
        h = [int(x, 16) for x in head.split(":")] if head else []
        t = [int(x, 16) for x in tail.split(":")] if tail else []
        words = h + [0] * (8 - len(h) - len(t)) + t
    else:
        words = [int(x, 16) for x in s.split(":")]
    return b"".join(struct.pack(">H", w) for w in words)

OUR4, PEER4, HOST3_4 = v4("192.0.2.2"), v4("192.0.2.1"), v4("192.0.2.3")
REMOTE4 = v4("198.51.100.7")
OUR6, PEER6, HOST3_6 = v6("fd00::2"), v6("fd00::1"), v6("fd00::3")
OUR_LL_ETH = v6("fe80::ff:fe00:2")
OUR_LL_RAW = v6("fe80::2")
PEER_LL = v6("fe80::1")
REMOTE6 = v6("2001:db8::7")
ALL_NODES = v6("ff02::1")

def solicited(a):
    return v6("ff02::1:ff00:0")[:13] + a[13:]

def mcast_mac6(a):
    return b"\x33\x33" + a[12:]

# --- checksums and headers ---------------------------------------------------

def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF

def pseudo4(src, dst, proto, length):
    return src + dst + struct.pack(">BBH", 0, proto, length)

def pseudo6(src, dst, nh, length):
    return src + dst + struct.pack(">I", length) + b"\0\0\0" + bytes([nh])

def ipv4(src, dst, proto, payload, ttl=64, ident=0x1234, df=False, mf=False,
         frag_off=0, tos=0, options=b"", total_len=None):
    ihl = 5 + len(options) // 4
    tl = total_len if total_len is not None else ihl * 4 + len(payload)
    flags = (0x4000 if df else 0) | (0x2000 if mf else 0) | (frag_off // 8)
    h = struct.pack(">BBHHHBBH4s4s", 0x40 | ihl, tos, tl, ident, flags, ttl, proto,
                    0, src, dst) + options
    h = h[:10] + struct.pack(">H", csum(h)) + h[12:]
    return h + payload

def ipv6(src, dst, nh, payload, hlim=64, tc=0, flow=0):
    return struct.pack(">IHBB", (6 << 28) | (tc << 20) | flow, len(payload), nh,
                       hlim) + src + dst + payload

def icmp4(typ, code, rest, body):
    m = struct.pack(">BBHI", typ, code, 0, rest) + body
    return m[:2] + struct.pack(">H", csum(m)) + m[4:]

def icmp6(src, dst, typ, code, rest, body):
    m = struct.pack(">BBHI", typ, code, 0, rest) + body
    c = csum(pseudo6(src, dst, 58, len(m)) + m)
    return m[:2] + struct.pack(">H", c) + m[4:]

def udp(src, dst, sport, dport, data):
    u = struct.pack(">HHHH", sport, dport, 8 + len(data), 0) + data
    ph = pseudo4(src, dst, 17, len(u)) if len(src) == 4 else pseudo6(src, dst, 17, len(u))
    c = csum(ph + u) or 0xFFFF
    return u[:6] + struct.pack(">H", c) + u[8:]

TCP_ALL_OPTS = (b"\x02\x04\x05\xb4"                     # MSS 1460
                b"\x01\x03\x03\x07"                     # NOP, WS 7
                b"\x04\x02"                             # SACK permitted
                b"\x08\x0a\x00\x00\x10\x00\x00\x00\x00\x00"  # timestamps
                b"\x01\x01\x05\x0a\x00\x00\x00\x01\x00\x00\x00\x02")  # NOP NOP SACK 1

def tcp(src, dst, sport, dport, flags, opts=b"", seq=1000, ack=0, data=b""):
    while len(opts) % 4:
        opts += b"\x00"
    off = (20 + len(opts)) // 4
    t = struct.pack(">HHIIBBHHH", sport, dport, seq, ack, off << 4, flags, 65535, 0,
                    0) + opts + data
    ph = pseudo4(src, dst, 6, len(t)) if len(src) == 4 else pseudo6(src, dst, 6, len(t))
    c = csum(ph + t)
    return t[:16] + struct.pack(">H", c) + t[18:]

def eth(dst, src, etype, payload):
    return dst + src + struct.pack(">H", etype) + payload

def arp(op, sha, spa, tha, tpa):
    return struct.pack(">HHBBH", 1, 0x0800, 6, 4, op) + sha + spa + tha + tpa

def frag6_hdr(nh, off, more, ident):
    return struct.pack(">BBHI", nh, 0, off | (1 if more else 0), ident)

def ext_opts(nh, opts):
    """Hop-by-hop / destination options header padded to 8n bytes."""
    body = bytes([nh, 0]) + opts
    pad = (-len(body)) % 8
    if pad == 1:
        body += b"\x00"
    elif pad:
        body += bytes([1, pad - 2]) + b"\0" * (pad - 2)
    return bytes([nh, len(body) // 8 - 1]) + body[2:]

def routing_hdr(nh, segleft, rtype=0, addrs=()):
    body = struct.pack(">BBBBI", nh, 2 * len(addrs), rtype, segleft, 0) + b"".join(addrs)
    return body

def nd_ns(src, dst, target, slla=None):
    body = target          # the 4 reserved bytes are the header's "rest"
    if slla is not None:
        body += b"\x01\x01" + slla
    return icmp6(src, dst, 135, 0, 0, body)

def nd_na(src, dst, target, flags, tlla=None):
    body = target
    if tlla is not None:
        body += b"\x02\x01" + tlla
    return icmp6(src, dst, 136, 0, flags << 24, body)

# --- records ----------------------------------------------------------------

def rec(frame, step=0, fail=False):
    return bytes([step]) + struct.pack(">H", len(frame) | (0x8000 if fail else 0)) + frame

def e4(payload, dst=OUR_MAC, src=PEER_MAC):
    return eth(dst, src, 0x0800, payload)

def e6(payload, dst=OUR_MAC, src=PEER_MAC):
    return eth(dst, src, 0x86DD, payload)

def ea(payload, dst=BCAST_MAC, src=PEER_MAC):
    return eth(dst, src, 0x0806, payload)

PING_BODY = bytes(range(56))
ARP_REQ = arp(1, PEER_MAC, PEER4, b"\0" * 6, OUR4)      # who has .2? tell .1
ARP_REP = arp(2, PEER_MAC, PEER4, OUR_MAC, OUR4)        # .1 is at PEER_MAC

def ping4(src, dst, body=PING_BODY, **kw):
    return ipv4(src, dst, 1, icmp4(8, 0, 0x42000001, body), **kw)

def ping6(src, dst, body=PING_BODY, **kw):
    return ipv6(src, dst, 58, icmp6(src, dst, 128, 0, 0x42000001, body), **kw)

def frags4(src, dst, proto, l4, size, ident=0x4242, ttl=64):
    out, off = [], 0
    while off < len(l4):
        chunk = l4[off:off + size]
        more = off + len(chunk) < len(l4)
        out.append(ipv4(src, dst, proto, chunk, ident=ident, mf=more, frag_off=off, ttl=ttl))
        off += len(chunk)
    return out

def frags6(src, dst, nh, l4, size, ident=0x6666, hlim=64):
    out, off = [], 0
    while off < len(l4):
        chunk = l4[off:off + size]
        more = off + len(chunk) < len(l4)
        out.append(ipv6(src, dst, 44, frag6_hdr(nh, off, more, ident) + chunk, hlim=hlim))
        off += len(chunk)
    return out

def ns_from_peer(target=OUR6, src=PEER6, mac=PEER_MAC):
    """NS from a neighbour, so it is in our cache afterwards."""
    d = solicited(target)
    return ipv6(src, d, 58, nd_ns(src, d, target, mac), hlim=255)

def na_from_peer(target=PEER6, dst=OUR6, mac=PEER_MAC, flags=0x60):
    return ipv6(target, dst, 58, nd_na(target, dst, target, flags, mac), hlim=255)

# --- the seeds --------------------------------------------------------------

def ip_seeds(ll_ours):
    """(name, [ (ip_datagram, step, fail) ... ]) shared by both link types.
    Link-layer resolution records are added by the Ethernet wrapper."""
    big = bytes((i * 7) & 0xFF for i in range(2000))
    s = {}
    s["ping4"] = [ping4(PEER4, OUR4)]
    s["ping4-offlink"] = [ping4(REMOTE4, OUR4)]
    s["ping4-bcast"] = [ping4(PEER4, v4("192.0.2.255"))]
    s["ping4-ttl1-fwd"] = [ping4(PEER4, REMOTE4, ttl=1)]
    s["ping4-big-reply-fragmented"] = [ping4(PEER4, OUR4, body=big[:1472 - 8 + 100])]
    icmp_big = icmp4(8, 0, 0x42000002, big)
    s["ping4-frag"] = frags4(PEER4, OUR4, 1, icmp_big, 1480)
    s["ping4-frag-reverse"] = list(reversed(frags4(PEER4, OUR4, 1, icmp_big, 800)))
    f = frags4(PEER4, OUR4, 1, icmp_big, 1000)
    s["ping4-frag-overlap"] = [f[0], ipv4(PEER4, OUR4, 1, icmp_big[992:1496], ident=0x4242,
                                          mf=True, frag_off=992), f[1]]
    s["ping4-frag-dup"] = [f[0], f[0], f[1]]
    s["ping4-frag-timeout"] = [f[0], (None, 255), (None, 255)]
    s["ping4-frag-tiny"] = frags4(PEER4, OUR4, 1, icmp4(8, 0, 7, PING_BODY), 8)
    s["udp4-echo"] = [ipv4(PEER4, OUR4, 17, udp(PEER4, OUR4, 40000, 7, b"hello moteip"))]
    s["udp4-echo-frag"] = frags4(PEER4, OUR4, 17, udp(PEER4, OUR4, 40001, 7, big[:1800]), 1024)
    s["udp4-closed"] = [ipv4(PEER4, OUR4, 17, udp(PEER4, OUR4, 40000, 9, b"anyone?"))]
    s["udp4-nocsum"] = [ipv4(PEER4, OUR4, 17, struct.pack(">HHHH", 5, 7, 12, 0) + b"abcd")]
    s["tcp4-syn"] = [ipv4(PEER4, OUR4, 6, tcp(PEER4, OUR4, 40000, 80, 0x02, TCP_ALL_OPTS))]
    s["proto4-unknown"] = [ipv4(PEER4, OUR4, 253, b"\0" * 16)]
    s["fwd4-udp"] = [ipv4(PEER4, REMOTE4, 17, udp(PEER4, REMOTE4, 1000, 2000, b"through"))]
    u_big = udp(PEER4, REMOTE4, 1000, 2000, big[:1482])   # 1510-byte datagram
    s["fwd4-refragment"] = [ipv4(PEER4, REMOTE4, 17, u_big)]
    s["fwd4-df-too-big"] = [ipv4(PEER4, REMOTE4, 17, u_big, df=True)]
    s["fwd6-too-big"] = [ipv6(PEER6, REMOTE6, 17, udp(PEER6, REMOTE6, 1, 2, big[:1462]))]
    s["fwd4-onlink"] = [ipv4(PEER4, HOST3_4, 17, udp(PEER4, HOST3_4, 1000, 2000, b"x"))]
    s["fwd4-options"] = [ipv4(PEER4, REMOTE4, 17, udp(PEER4, REMOTE4, 1, 2, b"o"),
                              options=b"\x07\x07\x04\0\0\0\0\x01")]
    quoted = ipv4(OUR4, PEER4, 17, udp(OUR4, PEER4, 7, 40000, b"echo"))
    s["icmp4-error-in"] = [ipv4(PEER4, OUR4, 1, icmp4(3, 3, 0, quoted[:28]))]
    s["icmp4-fragneeded-in"] = [ipv4(PEER4, OUR4, 1, icmp4(3, 4, 576, quoted))]
    s["ping4-drvfail"] = [(ping4(PEER4, OUR4), 0, True)]

    s["ping6"] = [ping6(PEER6, OUR6)]
    s["ping6-ll"] = [ping6(PEER_LL, ll_ours)]
    s["ping6-allnodes"] = [ping6(PEER_LL, ALL_NODES)]
    s["ping6-offlink"] = [ping6(REMOTE6, OUR6)]
    icmp6_big = icmp6(PEER6, OUR6, 128, 0, 0x42000003, big)
    s["ping6-frag"] = frags6(PEER6, OUR6, 58, icmp6_big, 1232)
    g = frags6(PEER6, OUR6, 58, icmp6_big, 1000)
    s["ping6-frag-overlap"] = [g[0], ipv6(PEER6, OUR6, 44, frag6_hdr(58, 992, True, 0x6666) +
                                          icmp6_big[992:1504]), g[1]]
    s["ping6-frag-timeout"] = [g[0], (None, 255), (None, 255)]
    s["ping6-atomic-frag"] = [ipv6(PEER6, OUR6, 44, frag6_hdr(58, 0, False, 9) +
                                   icmp6(PEER6, OUR6, 128, 0, 5, PING_BODY))]
    s["ping6-frag-badlen"] = [ipv6(PEER6, OUR6, 44, frag6_hdr(58, 0, True, 10) +
                                   icmp6(PEER6, OUR6, 128, 0, 5, PING_BODY[:13]))]
    u6 = udp(PEER6, OUR6, 40000, 7, b"hello six")
    s["udp6-echo"] = [ipv6(PEER6, OUR6, 17, u6)]
    s["udp6-closed"] = [ipv6(PEER6, OUR6, 17, udp(PEER6, OUR6, 40000, 9, b"closed"))]
    s["udp6-zero-csum"] = [ipv6(PEER6, OUR6, 17, struct.pack(">HHHH", 5, 7, 12, 0) + b"abcd")]
    chain = (ext_opts(60, b"\x01\x02\0\0") +               # HBH: PadN
             ext_opts(43, b"\x00\x00") +                   # dest options: Pad1 Pad1
             routing_hdr(44, 0) +                          # routing, segments left 0
             frag6_hdr(17, 0, False, 77))                  # atomic fragment
    s["ipv6-ext-chain"] = [ipv6(PEER6, OUR6, 0, chain + u6)]
    s["ipv6-opt-unknown-10"] = [ipv6(PEER6, OUR6, 60, ext_opts(17, b"\x80\x02\0\0") + u6)]
    s["ipv6-opt-unknown-11-mcast"] = [ipv6(PEER_LL, ALL_NODES, 60,
                                           ext_opts(17, b"\xc0\x02\0\0") + u6)]
    s["ipv6-opt-unknown-01"] = [ipv6(PEER6, OUR6, 60, ext_opts(17, b"\x40\x02\0\0") + u6)]
    s["ipv6-routing-segleft"] = [ipv6(PEER6, OUR6, 43, routing_hdr(17, 1, 0, [REMOTE6]) + u6)]
    s["ipv6-hbh-late"] = [ipv6(PEER6, OUR6, 60, ext_opts(0, b"") + ext_opts(17, b"") + u6)]
    s["ipv6-nonext"] = [ipv6(PEER6, OUR6, 59, b"\0" * 8)]
    s["ipv6-unknown-nh"] = [ipv6(PEER6, OUR6, 253, b"\0" * 8)]
    s["tcp6-syn"] = [ipv6(PEER6, OUR6, 6, tcp(PEER6, OUR6, 40000, 80, 0x02, TCP_ALL_OPTS))]
    s["fwd6-udp"] = [ipv6(PEER6, REMOTE6, 17, udp(PEER6, REMOTE6, 1, 2, b"through"))]
    s["fwd6-hlim1"] = [ipv6(PEER6, REMOTE6, 17, udp(PEER6, REMOTE6, 1, 2, b"x"), hlim=1)]
    s["fwd6-ll-dst"] = [ipv6(PEER6, PEER_LL, 17, udp(PEER6, PEER_LL, 1, 2, b"x"))]
    q6 = ipv6(OUR6, PEER6, 17, udp(OUR6, PEER6, 7, 40000, b"echo"))
    s["icmp6-ptb-in"] = [ipv6(PEER6, OUR6, 58, icmp6(PEER6, OUR6, 2, 0, 1280, q6))]
    s["icmp6-unreach-in"] = [ipv6(PEER6, OUR6, 58, icmp6(PEER6, OUR6, 1, 4, 0, q6))]
    s["ns-dad"] = [ipv6(bytes(16), solicited(OUR6), 58,
                        nd_ns(bytes(16), solicited(OUR6), OUR6), hlim=255)]
    s["ns-ll"] = [ipv6(PEER_LL, solicited(ll_ours), 58,
                       nd_ns(PEER_LL, solicited(ll_ours), ll_ours, PEER_MAC), hlim=255)]
    s["na-unsolicited"] = [ipv6(PEER6, ALL_NODES, 58,
                                nd_na(PEER6, ALL_NODES, PEER6, 0x20, PEER_MAC), hlim=255)]
    s["rs-ra"] = [ipv6(PEER_LL, ALL_NODES, 58,
                       icmp6(PEER_LL, ALL_NODES, 134, 0, 0x40000708,
                             struct.pack(">II", 0, 0) + b"\x01\x01" + PEER_MAC), hlim=255)]
    s["ping6-drvfail"] = [(ping6(PEER6, OUR6), 0, True)]
    return s

def norm(items):
    out = []
    for it in items:
        if isinstance(it, tuple):
            pkt, step = it[0], it[1]
            fail = it[2] if len(it) > 2 else False
        else:
            pkt, step, fail = it, 0, False
        out.append((pkt, step, fail))
    return out

def eth_wrap(name, items):
    """Ethernet framing: make the peer known first (ARP request or NS from
    it), so replies go out without waiting; a few seeds keep the unresolved
    path instead."""
    recs = []
    fam6 = any(p is not None and p[0] >> 4 == 6 for p, _, _ in items)
    unresolved = name.endswith("-unresolved")
    if not unresolved:
        if fam6:
            recs.append(rec(e6(ns_from_peer(), dst=mcast_mac6(solicited(OUR6)))))
        else:
            recs.append(rec(ea(ARP_REQ)))
    for pkt, step, fail in items:
        if pkt is None:
            recs.append(rec(b"", step))
            continue
        if pkt[0] >> 4 == 4:
            d = pkt[16:20]
            mac = BCAST_MAC if d in (v4("192.0.2.255"), b"\xff" * 4) else OUR_MAC
            recs.append(rec(e4(pkt, dst=mac), step, fail))
        else:
            d = pkt[24:40]
            mac = mcast_mac6(d) if d[0] == 0xFF else OUR_MAC
            recs.append(rec(e6(pkt, dst=mac), step, fail))
    return b"".join(recs)

def raw_wrap(items):
    return b"".join(rec(b"" if p is None else p, step, fail) for p, step, fail in items)

def eth_only_seeds():
    s = {}
    s["arp-request"] = rec(ea(ARP_REQ))
    s["arp-request-padded"] = rec(ea(ARP_REQ + b"\0" * 18))
    s["arp-reply-unsolicited"] = rec(ea(ARP_REP, dst=OUR_MAC))
    s["arp-probe"] = rec(ea(arp(1, PEER_MAC, b"\0" * 4, b"\0" * 6, OUR4)))
    s["arp-gratuitous"] = rec(ea(arp(1, PEER_MAC, PEER4, b"\0" * 6, PEER4)))
    # the reply waits for resolution, then the answer flushes it
    s["ping4-unresolved"] = (rec(e4(ping4(PEER4, OUR4))) +
                             rec(ea(ARP_REP, dst=OUR_MAC), 3))
    s["ping4-unresolved-timeout"] = rec(e4(ping4(HOST3_4, OUR4), src=HOST3_MAC))
    s["ping4-unresolved-replaced"] = (rec(e4(ping4(PEER4, OUR4))) +
                                      rec(e4(ping4(PEER4, OUR4, body=b"second"))) +
                                      rec(ea(ARP_REP, dst=OUR_MAC), 5))
    s["fwd4-via-gw-unresolved"] = (rec(e4(ipv4(HOST3_4, REMOTE4, 17,
                                               udp(HOST3_4, REMOTE4, 1, 2, b"x"))))
                                   + rec(ea(ARP_REP, dst=OUR_MAC), 2))
    s["ping4-stale-reprobe"] = (rec(ea(ARP_REQ)) + rec(e4(ping4(PEER4, OUR4))) +
                                rec(e4(ping4(PEER4, OUR4)), 255) +
                                rec(e4(ping4(PEER4, OUR4)), 255) +
                                rec(ea(ARP_REP, dst=OUR_MAC), 1))
    s["ping6-unresolved"] = (rec(e6(ping6(PEER6, OUR6))) +
                             rec(e6(na_from_peer()), 3))
    s["ping6-unresolved-timeout"] = rec(e6(ping6(HOST3_6, OUR6), src=HOST3_MAC))
    # ipv6.c ipv6_input(): link_mcast is ignored for local delivery, so an
    # IPv6 unicast datagram received in a link-layer multicast/broadcast frame
    # is answered with ICMPv6 errors (RFC 4443 2.4(e.2), (e.3)).
    s["regress-v6-error-for-link-mcast"] = rec(e6(ns_from_peer(),
                                                  dst=mcast_mac6(solicited(OUR6)))) + rec(e6(ipv6(PEER6, OUR6, 17,
                                                       udp(PEER6, OUR6, 40000, 9, b"x")),
                                                  dst=mcast_mac6(ALL_NODES)))
    # stack.c mip_stack_poll(): neigh_poll() runs before reass_poll(), so the
    # neighbor entry created when a reassembly timeout sends its ICMP error
    # is not in the returned delay: poll says MIP_POLL_IDLE while an NS
    # retransmission (and the queued error) are pending.
    s["regress-poll-idle-after-reass-error"] = rec(e6(frags6(PEER6, OUR6, 58,
                                                            icmp6(PEER6, OUR6, 128, 0, 1,
                                                                  bytes(2000)), 1232)[0]))
    # ipv6.c ipv6_fragment(): the Parameter Problem for a bad fragment length
    # is sent for a frame that was link-layer multicast too (RFC 4443 2.4(e.2)).
    s["regress-v6-fragparam-for-link-mcast"] = rec(e6(ns_from_peer(),
                                                      dst=mcast_mac6(solicited(OUR6)))) + rec(
        e6(ipv6(PEER6, OUR6, 44, frag6_hdr(58, 0, True, 10) +
                icmp6(PEER6, OUR6, 128, 0, 5, PING_BODY[:13])), dst=mcast_mac6(ALL_NODES)))
    s["ns-for-us"] = rec(e6(ns_from_peer(), dst=mcast_mac6(solicited(OUR6))))
    s["ns-unicast"] = rec(e6(ipv6(PEER6, OUR6, 58, nd_ns(PEER6, OUR6, OUR6, PEER_MAC),
                                  hlim=255)))
    s["na-solicited"] = rec(e6(na_from_peer()))
    s["vlan-tagged"] = rec(eth(OUR_MAC, PEER_MAC, 0x8100, b"\0\x01\x08\0" + ping4(PEER4, OUR4)))
    s["not-for-us"] = rec(e4(ping4(PEER4, OUR4), dst=HOST3_MAC))
    s["runt"] = rec(OUR_MAC + PEER_MAC)
    return s

def regress_seeds_ip():
    """Hand-made reproducers of bugs the fuzzers found (fixed or not, they
    stay as regression inputs). Named regress-*."""
    s = {}
    # ipv4.c ipv4_input(): a source of 192.0.2.255 (our subnet's broadcast)
    # passes bad_source(); the echo reply then goes to the broadcast address
    # (RFC 1122 3.2.1.3 / 3.2.2: such sources are invalid, no reply/error).
    s["regress-v4-src-subnet-bcast"] = [ping4(v4("192.0.2.255"), OUR4)]
    # ipv6.c ipv6_forward(): a packet from :: is forwarded (RFC 4291 2.5.2:
    # must never be forwarded).
    s["regress-v6-fwd-unspecified-src"] = [ipv6(bytes(16), REMOTE6, 17,
                                                udp(bytes(16), REMOTE6, 1, 2, b"x"))]
    # ipv4.c ipv4_input(): datagrams to 0.0.0.0 (and 127/8, 240/4) are
    # forwarded (RFC 1812 5.3.7 / 4.2.3.1: a router MUST NOT forward them).
    # ip_output.c ip_route(): with an explicit netif, a multicast destination
    # that the default route matches gets the gateway as next hop, so the
    # DAD-defence NA to ff02::1 (and every multicast NS) is sent unicast to
    # the gateway's MAC, or queued behind resolving the gateway.
    s["regress-v6-mcast-nexthop-gateway"] = [ipv6(bytes(16), solicited(OUR6), 58,
                                                  nd_ns(bytes(16), solicited(OUR6), OUR6),
                                                  hlim=255)]
    # ipv6.c ipv6_forward(): packets to :: and to/from ::1 are forwarded
    # (RFC 4291 2.5.2, 2.5.3).
    s["regress-v6-fwd-unspecified-dst"] = [ipv6(PEER6, bytes(16), 17,
                                                udp(PEER6, bytes(16), 1, 2, b"x"))]
    s["regress-v6-fwd-loopback-dst"] = [ipv6(PEER6, v6("::1"), 17,
                                             udp(PEER6, v6("::1"), 1, 2, b"x"))]
    # ipv4.c bad_source(): sources in 0/8 other than 0.0.0.0 pass, and get
    # echo replies / ICMP errors (RFC 1122 3.2.1.3, 3.2.2).
    s["regress-v4-src-net0"] = [ping4(v4("0.0.113.1"), OUR4)]
    # icmpv4.c icmpv4_send_error(): the directed broadcast of our subnet is
    # not seen as a broadcast: a reassembly timeout for fragments sent to
    # 192.0.2.255 is answered with Time Exceeded (RFC 1122 3.2.2).
    s["regress-v4-reass-error-for-subnet-bcast"] = [
        ipv4(PEER4, v4("192.0.2.255"), 1, icmp4(8, 0, 1, bytes(64)), mf=True),
        (None, 255), (None, 255)]
    # icmpv6.c icmpv6_echo(): an echo request from :: is answered, with an
    # echo reply to :: (RFC 4291 2.5.2: never a destination). The same for
    # the UDP echo service's reply: mip_ip_output accepts dst ::.
    s["regress-v6-echo-reply-to-unspecified"] = [ping6(bytes(16), OUR6)]
    s["regress-v6-udp-reply-to-unspecified"] = [ipv6(bytes(16), OUR6, 17,
                                                     udp(bytes(16), OUR6, 9, 7, b"x"))]
    s["regress-v4-fwd-martian-dst"] = [ipv4(PEER4, v4("0.0.0.0"), 17,
                                            udp(PEER4, v4("0.0.0.0"), 1, 2, b"x"))]
    # ipv4.c ipv4_input() (issue 12, an outside review): options with a
    # length of 0, 1 or past the header were answered, and source-routed
    # datagrams accepted, delivered or forwarded (RFC 7126: drop them).
    s["regress-v4-option-length-0"] = [ping4(PEER4, OUR4, options=b"\x44\x00\x00\x00")]
    s["regress-v4-option-length-1"] = [ping4(PEER4, OUR4, options=b"\x07\x01\x00\x00")]
    s["regress-v4-option-past-header"] = [ping4(PEER4, OUR4, options=b"\x07\x09\x04" + bytes(5))]
    s["regress-v4-option-no-length"] = [ping4(PEER4, OUR4, options=b"\x01\x01\x01\x94")]
    s["regress-v4-lsrr-to-us"] = [ping4(PEER4, OUR4, options=b"\x83\x07\x04" + PEER4 + b"\x00")]
    s["regress-v4-ssrr-forwarded"] = [ipv4(PEER4, REMOTE4, 17, udp(PEER4, REMOTE4, 1, 2, b"x"),
                                           options=b"\x89\x07\x04" + REMOTE4 + b"\x00")]
    return s

# --- fuzz_wire ----------------------------------------------------------------

def wire_seeds():
    s = {}
    # selector bytes: 0 eth, 1 arp, 2 ipv4, 3 ipv6, 4 icmpv4, 5 icmpv6, 6 nd,
    # 7 udp, 8 tcp, 9 checksum
    s["eth-ipv4"] = bytes([0]) + e4(ping4(PEER4, OUR4))
    s["arp-request"] = bytes([1]) + ARP_REQ
    s["arp-reply-padded"] = bytes([1]) + ARP_REP + b"\0" * 18
    s["ipv4-ping"] = bytes([2]) + ping4(PEER4, OUR4)
    s["ipv4-options"] = bytes([2]) + ipv4(PEER4, OUR4, 17, udp(PEER4, OUR4, 1, 7, b"x"),
                                          options=b"\x94\x04\0\0\x01\x01\x01\0")
    s["ipv4-frag"] = bytes([2]) + ipv4(PEER4, OUR4, 1, b"\0" * 16, mf=True, frag_off=1480,
                                       df=False)
    s["ipv4-padded"] = bytes([2]) + ipv4(PEER4, OUR4, 1, icmp4(8, 0, 1, b"")) + b"\0" * 10
    chain = (ext_opts(60, b"\x01\x02\0\0") + ext_opts(43, b"\x00\x00") +
             routing_hdr(44, 0) + frag6_hdr(17, 1232, True, 0xdeadbeef))
    s["ipv6-ext-chain"] = bytes([3]) + ipv6(PEER6, OUR6, 0, chain + b"\0" * 16)
    s["ipv6-opt-unknown"] = bytes([3]) + ipv6(PEER6, OUR6, 60, ext_opts(17, b"\xc0\x02\0\0"))
    s["ipv6-routing-segleft"] = bytes([3]) + ipv6(PEER6, OUR6, 43,
                                                  routing_hdr(17, 1, 0, [REMOTE6]))
    s["ipv6-ping"] = bytes([3]) + ping6(PEER6, OUR6)
    s["icmpv4-echo"] = bytes([4]) + icmp4(8, 0, 0x10001, PING_BODY)
    s["icmpv4-unreach"] = bytes([4]) + icmp4(3, 3, 0, ping4(OUR4, PEER4)[:28])
    s["icmpv6-echo"] = bytes([5]) + icmp6(PEER6, OUR6, 128, 0, 1, PING_BODY)
    s["icmpv6-ptb"] = bytes([5]) + icmp6(PEER6, OUR6, 2, 0, 1280, ping6(OUR6, PEER6)[:48])
    s["nd-ns-slla"] = bytes([6]) + nd_ns(PEER6, solicited(OUR6), OUR6, PEER_MAC)
    s["nd-na-tlla"] = bytes([6]) + nd_na(PEER6, OUR6, PEER6, 0xE0, PEER_MAC)
    s["nd-ns-long-lla"] = bytes([6]) + nd_ns(PEER6, OUR6, OUR6) + b"\x01\x02" + bytes(range(14))
    s["nd-ra-prefix"] = bytes([6]) + icmp6(PEER_LL, ALL_NODES, 134, 0, 0x40000708,
                                           struct.pack(">II", 30000, 1000) +
                                           b"\x01\x01" + PEER_MAC +
                                           b"\x03\x04\x40\xc0" + b"\0" * 12 + OUR6[:8] +
                                           b"\0" * 8 + b"\x05\x01\0\0\0\0\x05\xdc")
    s["nd-rs"] = bytes([6]) + icmp6(PEER_LL, v6("ff02::2"), 133, 0, 0,
                                    b"\x01\x01" + PEER_MAC)
    s["nd-redirect"] = bytes([6]) + icmp6(PEER_LL, OUR_LL_ETH, 137, 0, 0,
                                          PEER_LL + REMOTE6 + b"\x02\x01" + PEER_MAC)
    s["udp"] = bytes([7]) + udp(PEER4, OUR4, 40000, 7, b"hello")
    s["udp-padded"] = bytes([7]) + udp(PEER4, OUR4, 40000, 7, b"hello") + b"\0\0\0"
    s["tcp-syn-all-opts"] = bytes([8]) + tcp(PEER4, OUR4, 40000, 80, 0x02, TCP_ALL_OPTS)
    s["tcp-sack4"] = bytes([8]) + tcp(PEER4, OUR4, 1, 2, 0x10,
                                      b"\x01\x01\x05\x22" + bytes(range(32)) + b"\x01\x01")
    s["tcp-ts-sack3"] = bytes([8]) + tcp(PEER4, OUR4, 1, 2, 0x10,
                                         b"\x01\x01\x08\x0a" + b"\1" * 8 + b"\x01\x01\x05\x1a" +
                                         bytes(range(24)))
    s["tcp-plain"] = bytes([8]) + tcp(PEER4, OUR4, 1, 2, 0x18, data=b"GET /")
    s["csum-even"] = bytes([9]) + b"\x00\x01\x02\x03\x04" + bytes(range(40))
    s["csum-odd"] = bytes([9]) + b"\xff\xff\xff\xff\x03" + bytes(range(41))
    s["csum-zero"] = bytes([9]) + b"\0\0\0\0\0" + b"\0" * 40
    # 10: 802.15.4 MHR (+ FCS residue), 11: 6LoWPAN (see fz_sixlowpan)
    ping = ipv6(LP_PEER6, LP_OUR6, 58, icmp6(LP_PEER6, LP_OUR6, 128, 0, 1, b"abcd"))
    s["mhr-short"] = bytes([10]) + mhr(LP_US0, LP_PEER0) + b"\x7a\x33\x3a"
    s["mhr-ext-nocomp"] = bytes([10]) + bytes.fromhex("01c88bffff020023006" "0e216211c4ac2ae")
    s["mhr-ack"] = bytes([10]) + b"\x12\x00\x56"
    lp_env = (bytes([0x10 | 0x04 | 0x01]) + struct.pack(">H", LP_PEER0) + bytes(6) +
              bytes.fromhex("0200000000000002") + LP_CTX0 + bytes(24))
    hc, rest, _ = iphc(ping, LP_PEER0, bytes.fromhex("0200000000000002"))
    s["iphc-ctx0"] = bytes([11]) + lp_env + hc + rest
    u = ipv6(LP_PEER_LL, v6("ff02::1"), 17, udp(LP_PEER_LL, v6("ff02::1"), 0xF0B1, 0xF0B2,
                                                 b"x"), tc=0x21, flow=0xABCDE, hlim=7)
    hc, rest, _ = iphc(u, LP_PEER0, None)
    s["iphc-mcast-nhc"] = bytes([11]) + lp_env + hc + rest
    s["frag1-iphc"] = (bytes([11]) + bytes([lp_env[0] | 0x80]) + lp_env[1:] +
                       struct.pack(">H", 400) + struct.pack(">HH", 0xC000 | 400, 7) + hc)
    s["fragn"] = bytes([11]) + lp_env + struct.pack(">HHB", 0xE000 | 400, 7, 13) + bytes(16)
    # fz_sixlowpan's own findings (properties stated too strongly, the codec
    # was right): a context whose prefix is multicast makes M=0 DAC=1 decode
    # to a multicast address, which the compressor carries in a multicast
    # form (here inline), longer than the input; an extended source
    # 02:00:00:ff:fe:00:12:34 has the IID of short address 0x1234.
    mc_env = (bytes([0x10 | 0x08]) + bytes(8) + bytes.fromhex("0200000000000002") +
              bytes.fromhex("ffff740a00000000") + bytes(24))
    s["regress-iphc-m0-context-multicast-prefix"] = (
        bytes([11]) + mc_env + bytes([0x7a, 0x15]) + bytes.fromhex("2b20ffff0100ffff") +
        bytes(8) + b"\x3a" + bytes(8))
    s["regress-ext-addr-with-short-iid"] = (
        bytes([11, 0x02]) + bytes.fromhex("020000fffe001234") + bytes(40) + b"\x7a\x33\x3a")
    # sixlowpan.c mip_lowpan_iphc_compress() (issue 12, found by an outside
    # fuzz_wire run): a FRAG1 of datagram_size 41 whose IPHC header carries
    # next header 17 inline, followed by a UDP header with Length 1. The
    # decompressed datagram (Payload Length 1) compressed again with NHC
    # UDP, whose header lies past the datagram's end, and the decompressor
    # refused that. Then the same datagram read directly as IPv6 (the
    # compress-first direction): 48 bytes with Payload Length 1.
    ll_env = (bytes([0x80 | 0x04 | 0x01]) + struct.pack(">H", 1) + bytes(6) +
              struct.pack(">H", 2) + bytes(6) + bytes(32))
    udp_len1 = struct.pack(">HHHH", 1234, 5678, 1, 0xABCD)
    s["regress-iphc-udp-length-1"] = (bytes([11]) + ll_env + struct.pack(">H", 41) +
                                      bytes([0x7A, 0x33, 0x11]) + udp_len1)
    s["regress-iphc-compress-bytes-past-end"] = (
        bytes([11, ll_env[0] & 0x7F]) + ll_env[1:] +
        struct.pack(">IHBB", 0x60000000, 1, 17, 64) + v6("fe80::ff:fe00:1") +
        v6("fe80::ff:fe00:2") + udp_len1)
    # 12: RPL's headers: [the packet's Destination Address][an SRH or an
    # RPL Option] (fz_rpl_ext)
    srh_one_byte = bytes([17, 1, 3, 2, 0xFF, 0x60, 0, 0, 0x02, 0x03]) + bytes(6)
    s["srh-cmpr15"] = bytes([12]) + v6("fd00::1") + srh_one_byte
    s["srh-uncompressed"] = (bytes([12]) + v6("fd00::1") + bytes([58, 4, 3, 1, 0, 0, 0, 0]) +
                             v6("2001:db8::7") + bytes(16))
    s["srh-cmpr-8-15"] = (bytes([12]) + v6("fd00::1") + bytes([6, 3, 3, 3, 0x8F, 0x70, 0, 0]) +
                          bytes(7) + b"\x02" + bytes(7) + b"\x03" + b"\x04" + bytes(7))
    s["rpl-opt-6553"] = bytes([12]) + v6("fd00::1") + bytes([0x63, 4, 0x80, 30, 2, 0])
    s["rpl-opt-9008-subtlv"] = bytes([12]) + v6("fd00::1") + bytes([0x23, 6, 0x40, 1, 1, 0,
                                                                   0, 0])
    return s

# --- fuzz_tcp -------------------------------------------------------------------
#
# Input: 5 header bytes [active peer / flags][active cfg][passive cfg]
# [active behaviour][passive behaviour], then operations (see fuzz/fuzz_tcp.c
# and fuzz/README.md). These helpers write one operation each.

def t_hdr(peer=0, no_connect=False, refuse=False, acfg=0x02, pcfg=0x02, abeh=0, pbeh=0):
    return bytes([peer | (4 if refuse else 0) | (8 if no_connect else 0), acfg, pcfg, abeh, pbeh])

def t_inject(tgt, flags, seq=None, ack=None, seq_raw=None, ack_raw=None, ack_una=None,
             win=None, ts=False, sack=None, raw_opts=None, urg=None, dlen=0):
    """seq: delta from the base (int8 or int16), seq_raw: absolute; ack: delta
    from snd_max (int8), ack_una: offset from snd_una, ack_raw: absolute."""
    mode, tail = 0, b""
    if seq_raw is not None:
        mode |= 3
        tail += struct.pack(">I", seq_raw)
    elif seq is not None and seq != 0:
        if -128 <= seq < 128:
            mode |= 1
            tail += struct.pack(">b", seq)
        else:
            mode |= 2
            tail += struct.pack(">h", seq)
    if ack_raw is not None:
        mode |= 3 << 2
        tail += struct.pack(">I", ack_raw)
    elif ack_una is not None:
        mode |= 1 << 2
        tail += struct.pack(">H", ack_una)
    elif ack is not None and ack != 0:
        mode |= 2 << 2
        tail += struct.pack(">b", ack)
    if win is not None:
        mode |= 0x10
        tail += struct.pack(">H", win)
    if ts:
        mode |= 0x40
    if sack:
        mode |= 0x80
        tail += bytes([len(sack) - 1])
        for off, ln in sack:
            tail += struct.pack(">HH", off, ln)
    if raw_opts is not None:
        mode |= 0x20
        tail += bytes([len(raw_opts)]) + raw_opts
    if urg is not None:
        tail += struct.pack(">H", urg)
    tail += struct.pack(">H", dlen)
    return bytes([0, tgt, flags, mode]) + tail

def t_time(ms):
    if ms < 1000:
        return bytes([4, ms // 5])
    return bytes([4, 199 + ms // 2000])

def t_write(slot, n):
    return bytes([6, slot]) + struct.pack(">H", n)

def t_read(slot, units=31):
    return bytes([7, slot | (units << 2)])

DATA_IDX = {0: 0, 1: 1, 10: 2, 100: 3, 536: 4, 1000: 5, 1220: 6, 1400: 7}

def t_ack(slot, data=0, fin=False, zero_win=False, small_win=False):
    a = slot | (DATA_IDX[data] << 2)
    if fin:
        a |= 0x20
    if zero_win:
        a |= 0x40
    if small_win:
        a |= 0xC0
    return bytes([8, a])

def t_synack(slot=0, mss100=False, no_ws_sack=False, ws14=False, no_ts=False, syn_only=False):
    a = slot | (4 if mss100 else 0) | (8 if no_ws_sack else 0) | (0x10 if ws14 else 0) | \
        (0x20 if no_ts else 0) | (0x80 if syn_only else 0)
    return bytes([8, a])

def t_end(slot, how):        # 0 shutdown, 1 close, 2 abort
    return bytes([10, slot | (how << 2)])

def t_toggle(slot, what, hi=0):   # 0 nodelay, 1 keepalive, 2 behaviour=hi, 3 flip bit
    return bytes([11, slot | (what << 2) | (hi << 4)])

def t_connect(sel, cfg_xor=None):
    return bytes([12, sel | (4 if cfg_xor else 0) | ((cfg_xor or 0) & 0xF8)])

def t_peer_syn(port, addr=0, optset=0):   # optset 0 all, 1 MSS 536, 2 none, 3 tiny
    return bytes([13, port | (addr << 4) | (optset << 6)])

def t_syn_complete(idx=0, data=0, fin=False, zero_win=False):
    return bytes([14, idx | (DATA_IDX[data] << 3) | (0x40 if fin else 0) |
                  (0x80 if zero_win else 0)])

def t_misc(a):              # a&3: 0 listen toggle, 1 refuse toggle, 2 driver fails a>>2 frames
    return bytes([15, a])

F_FIN, F_SYN, F_RST, F_PSH, F_ACK, F_URG = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20

def regress_seeds_tcp():
    """Reproducers of bugs fuzz_tcp found. Named regress-*."""
    s = {}
    # tcp_input.c fin_input(): the application aborts in `readable` (called
    # by data_input for the data of a DATA+FIN segment); fin_input then
    # still takes the FIN on the CLOSED struct and calls `readable` again,
    # after `closed`.
    s["regress-fin-after-abort-in-readable"] = (t_hdr(0, abeh=0x08) + t_synack(0) +
                                                t_ack(0, data=536, fin=True))
    # tcp_input.c data_input(): data past the advertised right edge was taken
    # whenever the ring had room: after a passive open (the SYN-ACK offers
    # 1024, the ring is 2048) rcv_nxt passed rcv_adv; after mip_tcp_close
    # (TCPF_NO_READ) a segment of any length was taken whole.
    s["regress-data-past-window-passive"] = (t_hdr(8, no_connect=True) + t_peer_syn(1) +
                                             t_syn_complete(0) + t_ack(1, data=1400))
    s["regress-data-past-window-no-read"] = (t_hdr(0, acfg=0x00) + t_synack(0) + t_end(0, 1) +
                                             t_ack(0, data=1400) + t_ack(0, data=1000))
    return s

def tcp_seeds():
    s = {}
    est = t_synack(0)
    # active opens to each peer address, data both ways, orderly close
    for sel, name in ((0, "v4"), (1, "v6"), (2, "v6-linklocal"), (3, "v4-other")):
        s["active-" + name] = (t_hdr(sel) + est + t_write(0, 1000) + t_ack(0) +
                               t_ack(0, data=100) + t_read(0) + t_end(0, 0) +
                               t_ack(0, fin=True) + t_time(60000))
    s["active-no-options"] = (t_hdr(0) + t_synack(0, no_ws_sack=True, no_ts=True) +
                              t_write(0, 2000) + t_ack(0) + t_time(300) + t_ack(0) +
                              t_end(0, 1) + t_ack(0, fin=True))
    s["active-mss100-ws14"] = (t_hdr(1, acfg=0x26) + t_synack(0, mss100=True, ws14=True) +
                               t_write(0, 1500) + t_ack(0) + t_ack(0) + t_ack(0))
    s["simultaneous-open"] = (t_hdr(0) + t_synack(0, syn_only=True) +
                              t_inject(0, F_ACK, ack=0, ts=True) + t_write(0, 100))
    s["syn-timeout"] = t_hdr(1) + t_time(30000) + t_time(60000)
    s["syn-refused"] = t_hdr(0) + t_inject(0, F_RST | F_ACK, seq=0, ack=0)
    s["syn-bad-ack"] = t_hdr(0) + t_inject(0, F_ACK | F_SYN, ack=50, ts=True)
    # passive opens
    s["passive-all-opts"] = (t_hdr(8, no_connect=True) + t_peer_syn(1) +
                             t_syn_complete(0, data=100) + t_read(1) + t_write(1, 700) +
                             t_ack(1) + t_end(1, 1) + t_ack(1, fin=True) + t_time(2000))
    s["passive-mss536"] = (t_hdr(8, no_connect=True, pcfg=0x0B) + t_peer_syn(2, 1, 1) +
                           t_syn_complete(0) + t_ack(1, data=536) + t_ack(1, data=1000) +
                           t_write(1, 3000) + t_ack(1) + t_ack(1) + t_time(1000))
    s["passive-tiny-mss"] = (t_hdr(8, no_connect=True, pcfg=0x20) + t_peer_syn(3, 2, 3) +
                             t_syn_complete(0) + t_write(1, 1000) + t_time(500) + t_ack(1) +
                             t_ack(1) + t_ack(1))
    s["passive-no-opts-fin"] = (t_hdr(8, no_connect=True) + t_peer_syn(4, 3, 2) +
                                t_syn_complete(0, data=10, fin=True) + t_read(1) +
                                t_end(1, 0) + t_ack(1))
    s["passive-refused"] = (t_hdr(8, no_connect=True, refuse=True) + t_peer_syn(5) +
                            t_syn_complete(0))
    s["passive-three-and-full"] = (t_hdr(0) + b"".join(t_peer_syn(p) + t_syn_complete(0)
                                                       for p in range(1, 5)))
    s["syn-flood"] = (t_hdr(0) + b"".join(t_peer_syn(p, p & 1) for p in range(12)) +
                      t_time(3000) + t_time(70000))
    s["synack-lost-resyn"] = (t_hdr(8, no_connect=True) + t_peer_syn(6) + t_peer_syn(6) +
                              t_inject(4, F_RST, seq=0) + t_peer_syn(6) +
                              t_inject(4, F_ACK, ack=5))
    s["unlisten"] = (t_hdr(8, no_connect=True) + t_misc(0) + t_peer_syn(1) + t_misc(0) +
                     t_peer_syn(2) + t_syn_complete(0))
    # data transfer paths
    s["out-of-order-fill"] = (t_hdr(0) + est + t_inject(0, F_ACK, seq=200, dlen=300, ts=True) +
                              t_inject(0, F_ACK, seq=600, dlen=100, ts=True) +
                              t_inject(0, F_ACK, seq=0, dlen=250, ts=True) + t_read(0) +
                              t_inject(0, F_ACK, seq=0, dlen=800, ts=True) + t_read(0))
    s["ooo-no-bitmap"] = (t_hdr(0, acfg=0x12) + est + t_inject(0, F_ACK, seq=100, dlen=100) +
                          t_ack(0, data=536) + t_read(0))
    s["rx-ring-full"] = (t_hdr(0, acfg=0x00) + est + t_ack(0, data=1000) + t_ack(0, data=1000) +
                         t_time(300) + t_read(0, 3) + t_read(0, 63) + t_ack(0, data=10))
    s["sack-recovery"] = (t_hdr(0, acfg=0x2A) + est + t_write(0, 2048) +
                          t_inject(0, F_ACK, ack_una=0, ts=True) + t_ack(0) + t_write(0, 2048) +
                          b"".join(t_inject(0, F_ACK, ack_una=0, ts=True,
                                            sack=[(300 + 200 * i, 200)]) for i in range(5)) +
                          t_inject(0, F_ACK, ack_una=500, ts=True, sack=[(900, 300)]) +
                          t_ack(0))
    s["newreno-dupacks"] = (t_hdr(0, acfg=0x2A) + t_synack(0, no_ws_sack=True, no_ts=True) +
                            t_write(0, 2048) + t_ack(0) + t_write(0, 2048) +
                            t_inject(0, F_ACK, ack_una=0) * 4 + t_inject(0, F_ACK, ack_una=600) +
                            t_ack(0))
    s["zero-window-persist"] = (t_hdr(0) + est + t_ack(0, zero_win=True) + t_write(0, 500) +
                                t_time(2000) + t_time(5000) + t_ack(0, zero_win=True) +
                                t_time(10000) + t_ack(0))
    s["small-window"] = (t_hdr(0, acfg=0x2A) + est + t_ack(0, small_win=True) +
                         t_write(0, 1500) + t_ack(0, small_win=True) + t_time(300) + t_ack(0))
    s["rexmit-timeout-abort"] = (t_hdr(0) + est + t_write(0, 800) +
                                 b"".join(t_time(60000) for _ in range(8)))
    s["keepalive"] = (t_hdr(0, acfg=0x82) + est + t_time(6000) + t_time(2000) + t_ack(0) +
                      t_time(20000))
    s["delack"] = (t_hdr(0) + est + t_ack(0, data=100) + t_time(250) + t_ack(0, data=100) +
                   t_ack(0, data=100))
    # RFC 5961 and friends
    s["rst-exact"] = t_hdr(1) + est + t_inject(0, F_RST, seq=0)
    s["rst-in-window"] = t_hdr(0) + est + t_inject(0, F_RST, seq=10) + t_inject(0, F_RST | F_ACK, seq=0)
    s["syn-in-window"] = t_hdr(0) + est + t_inject(0, F_SYN, seq=5)
    s["ack-above-snd-max"] = t_hdr(0) + est + t_write(0, 100) + t_inject(0, F_ACK, ack=50)
    s["ack-far-below"] = t_hdr(0) + est + t_inject(0, F_ACK, ack_raw=0x01020304)
    s["paws"] = (t_hdr(0) + est + t_inject(0, F_ACK, dlen=10,
                                           raw_opts=b"\x01\x01\x08\x0a\0\0\0\x01\0\0\0\0"))
    s["urgent"] = t_hdr(0) + est + t_inject(0, F_ACK | F_URG, urg=5, dlen=10, ts=True) + t_read(0)
    s["out-of-window"] = t_hdr(0) + est + t_inject(0, F_ACK, seq=-3000, dlen=50, ts=True)
    s["no-conn-rst"] = (t_hdr(0) + t_inject(6, F_ACK, seq_raw=5, ack_raw=7) +
                        bytes([3, 0]) + struct.pack(">HH", 1234, 4321) +
                        t_inject(6, F_SYN, seq_raw=9) + struct.pack(">HH", 1, 22))
    # closing
    s["active-close-timewait"] = (t_hdr(0) + est + t_end(0, 1) + t_ack(0) + t_ack(0, fin=True) +
                                  t_inject(7, F_FIN | F_ACK, seq=-1) + t_inject(7, F_RST) +
                                  t_time(61000))
    s["passive-close-timewait-reuse"] = (t_hdr(8, no_connect=True) + t_peer_syn(7) +
                                         t_syn_complete(0) + t_end(1, 1) + t_ack(1, fin=True) +
                                         t_inject(7, F_SYN, seq=1000) + t_syn_complete(0))
    s["closing-simultaneous"] = (t_hdr(0) + est + t_end(0, 0) +
                                 t_inject(0, F_FIN | F_ACK, ack=-1, ts=True) + t_ack(0))
    s["close-wait-last-ack"] = (t_hdr(0) + est + t_ack(0, data=10, fin=True) + t_read(0) +
                                t_end(0, 1) + t_ack(0))
    s["abort"] = t_hdr(0) + est + t_write(0, 10) + t_end(0, 2) + t_ack(0)
    s["close-then-data"] = (t_hdr(0) + est + t_end(0, 1) + t_ack(0, data=100) +
                            t_ack(0, data=1000) + t_ack(0, fin=True))
    # callbacks re-entering the API
    s["callbacks"] = (t_hdr(0, abeh=0x17, pbeh=0x07) + est + t_ack(0, data=100) +
                      t_ack(0, fin=True) + t_peer_syn(1) + t_syn_complete(0, data=1000) +
                      t_ack(1, fin=True))
    # the `writable` callback sends (and re-advertises the window) while the
    # peer's data segment is being processed
    s["write-in-writable-with-data"] = (t_hdr(1, acfg=0x03, abeh=0x02) + est + t_write(0, 300) +
                                        t_ack(0, data=1000) + t_ack(0, data=1000) + t_read(0))
    s["reconnect-in-closed"] = (t_hdr(0, abeh=0x20) + est + t_inject(0, F_RST, seq=0) +
                                t_synack(0) + t_end(0, 2) + t_time(60000))
    s["driver-fails"] = (t_hdr(0) + t_misc(2 | (3 << 2)) + t_time(1500) + est +
                         t_misc(2 | (2 << 2)) + t_write(0, 500) + t_time(2000) + t_ack(0))
    s["reconnect-v6"] = (t_hdr(0) + est + t_end(0, 2) + t_connect(1) + t_synack(0) +
                         t_write(0, 100) + t_ack(0))
    return s

# --- fuzz_tcp_peer ---------------------------------------------------------------
#
# Input: 8 header bytes, then operations (see fuzz/fuzz_tcp_peer.c and
# fuzz/README.md, "fuzz_tcp_peer"). An operation byte is k | conn << 4 | x << 5
# (conn 0: A, our active open; 1: B, the peer's open to our port 80).

P_A, P_B = 0, 1
P_MSS = {1460: 0, 536: 1, 100: 2, None: 3}
P_SHIFT = {0: 0, 2: 1, 7: 2, 14: 3}
P_LAT = {1: 0, 20: 1, 100: 2, 500: 3}
P_KA = {0: 0, 10000: 1, 600000: 2, 7200000: 3}
P_TAIL = {"close": 0, "write-close": 1, "write": 2, "keepalive": 3}
P_WND = {65535: 0, 4096: 1, 1000: 2, 0: 3}

def p_cfg(rx=2048, tx=2048, bitmap=True, nodelay=False, delack=True, ts=True):
    ring = {512: 0, 1024: 1, 2048: 2, 4096: 3}
    return (ring[rx] | ring[tx] << 2 | (0 if bitmap else 0x10) | (0x20 if nodelay else 0) |
            (0 if delack else 0x40) | (0 if ts else 0x80))

def p_opt(mss=1460, ws=2, sack=True, ts=True, iss_wrap=False):
    return (P_MSS[mss] | (0 if ws is None else 0x04 | P_SHIFT[ws] << 3) |
            (0x20 if sack else 0) | (0x40 if ts else 0) | (0x80 if iss_wrap else 0))

def p_hdr(start="A", a6=False, b6=False, responsive=False, lat=20, peer_fin=False,
          acfg=None, bcfg=None, aopt=None, bopt=None, read=(True, True),
          close_on_fin=(False, False), ka=(0, 0), tail=("close", "close"), wnd=65535,
          sack_off=False, ent=0):
    h0 = ({"A": 0, "B": 1, "AB": 2}[start] | (4 if a6 else 0) | (8 if b6 else 0) |
          (0x10 if responsive else 0) | P_LAT[lat] << 5 | (0x80 if peer_fin else 0))
    app = (read[0] | read[1] << 1 | close_on_fin[0] << 2 | close_on_fin[1] << 3 |
           P_KA[ka[0]] << 4 | P_KA[ka[1]] << 6)
    h6 = P_TAIL[tail[0]] | P_TAIL[tail[1]] << 2 | P_WND[wnd] << 4 | (0x40 if sack_off else 0)
    return bytes([h0, p_cfg() if acfg is None else acfg, p_cfg() if bcfg is None else bcfg,
                  p_opt() if aopt is None else aopt, p_opt() if bopt is None else bopt,
                  app, h6, ent])

def p_op(k, conn, x=0, *args):
    return bytes([k | conn << 4 | x << 5]) + bytes(args)

P_AUTO = {0: 0, 1: 1, 100: 2, 536: 3, 1220: 4, 3000: 5, "fill": 6, "fin": 7}

def p_auto(conn, data=0):
    """The peer answers as a TCP would: the handshake step, else data, else an ACK."""
    return p_op(0, conn, P_AUTO[data])

def p_ack(conn, ack="cum", win="keep", ts="fresh", bogus_sack=False, v=0):
    a = {"cum": 0, "partial": 1, "old": 2, "future": 3}[ack]
    w = {"keep": 0, "full": 1, 0: 2, 1: 3, "v16": 4, "half": 5, 4096: 6, "shrink": 7}[win]
    t = {"fresh": 0, "none": 1, "old": 2, "jump": 3}[ts]
    return p_op(2, conn, 0, a | w << 2 | t << 5 | (0x80 if bogus_sack else 0), v)

def p_data(conn, how, n=100):
    x = {"in": 0, "fin": 1, "rexmit": 2, "beyond": 3, "lost": 4, "old": 5, "overrun": 6,
         "old-ts": 7}[how]
    return p_op(3, conn, x, n if n <= 200 else 200 + (n + 24) // 25)

def p_rst(conn, how, v=0):
    x = {"exact": 0, "in-window": 1, "outside": 2, "syn": 3, "resyn": 4, "fin-hole": 5,
         "exact2": 6, "no-ack": 7}[how]
    return p_op(4, conn, x, v)

def p_time(ms, jump=False):
    units = (1, 10, 100, 1000, 10000, 60000, 3600000, 86400000)
    out = b""
    while ms > 0:
        u = max(i for i, un in enumerate(units) if un <= ms)
        n = min(ms // units[u], 32)
        out += p_op(5, 0, 1 if jump else 0, u << 5 | (n - 1))
        ms -= n * units[u]
    return out

def p_write(conn, n):
    return p_op(7, conn, {1: 0, 10: 1, 100: 2, 536: 3, 1000: 4, 2000: 5, 4096: 6, 16384: 7}[n])

def p_read(conn, n="all"):
    return p_op(8, conn, {1: 0, 10: 1, 100: 2, 536: 3, "all": 4, "toggle": 5, "close-on-fin": 6}[n])

def p_end(conn, how):
    return p_op(9, conn, {"shutdown": 0, "abort": 1, "close": 2}[how])

def p_set(conn, what):
    x = {"ka-off": 0, "ka-10s": 1, "ka-10min": 2, "ka-2h": 3, "nodelay": 4, "delack": 5,
         "peer-fin": 6, "responsive": 7}[what]
    return p_op(10, conn, x)

def p_net(conn, what):
    x = {"lose1": 0, "lose2": 1, "lose4": 2, "blackhole": 3, "lat1": 4, "lat30": 5,
         "lat300": 6, "lat3000": 7}[what]
    return p_op(11, conn, x)

def p_open(conn, other_family=False, other_opts=False, same_port=False):
    return p_op(12, conn, (1 if other_family else 0) | (2 if other_opts else 0) |
                (4 if same_port else 0))

def p_window(conn, w):
    return p_op(13, conn, {0: 0, 1: 1, 100: 2, 536: 3, 1024: 4, 4096: 5, 65535: 6, "full": 7}[w])

def regress_seeds_tcp_peer():
    """Reproducers of bugs fuzz_tcp_peer found. Named regress-*."""
    s = {}
    # tcp_input.c ack_input(): an old ACK (below SND.UNA, inside RFC 5961's
    # acceptable range) from a later segment updates SND.WND, which is then
    # counted from SND.UNA: the peer offered 100 bytes past SND.UNA, then 640
    # bytes from 640 below it; the stack sends 640 past SND.UNA (RFC 9293
    # 3.10.7.4: only SND.UNA =< SEG.ACK updates the window).
    s["regress-old-ack-moves-window"] = (p_hdr("A", wnd=1000) + p_auto(P_A) +
                                         p_write(P_A, 1000) + p_window(P_A, 100) +
                                         p_data(P_A, "in", 10) +
                                         p_ack(P_A, ack="old", win="v16", v=40) +
                                         p_write(P_A, 1000))
    # tcp_input.c ack_input(): an out-of-order segment (here a FIN beyond a
    # hole) moves SND.WL1 ahead of the peer's in-order sequence numbers, so
    # no later ACK updates the window while SND.UNA still advances: the old
    # window, counted from the new SND.UNA, lets the stack send past every
    # right edge the peer offered (here 100 bytes past a zero window).
    s["regress-ooo-segment-freezes-window"] = (p_hdr("A", wnd=0) + p_auto(P_A) +
                                               p_window(P_A, 100) + p_rst(P_A, "fin-hole") +
                                               p_write(P_A, 100) + p_window(P_A, 1) +
                                               p_write(P_A, 100))
    # tcp_input.c cookie_check(): with the SYN cache full (8 handshakes
    # pending) the ninth SYN gets a cookie; an ACK above the cookie + 1
    # (here + 2; the peer offered MSS 536, index 3) still decodes as a
    # cookie with another MSS index (ack - 1 - hash < 8) and completes the
    # handshake with ISS = ack - 1, acknowledging sequence numbers never
    # sent, where an entry of the cache takes only ack = ISS + 1 and anything
    # else draws RST (RFC 9293 3.10.7.3).
    s["regress-cookie-takes-ack-above-synack"] = (p_hdr("B", bopt=p_opt(536)) +
                                                  b"".join(p_open(P_B) for _ in range(8)) +
                                                  p_ack(P_B, ack="future", v=1))
    # tcp_input.c conn_input(): the 24-day timer that marks TS.Recent stale
    # (RFC 7323 5.5) restarts with every segment, also one PAWS drops: a
    # segment 1 s before the 24 days whose timestamp looks old (its clock
    # ran 13 % fast: the ACK jumps it by 255 << 20) puts the marking off
    # another 24 days, and data two days later, 26 days after TS.Recent
    # was last set, is dropped: one such segment every 24 days (or a
    # spoofed one: PAWS comes before the sequence check) freezes the
    # connection.
    s["regress-paws-drop-restarts-stale-timer"] = (p_hdr("A") + p_auto(P_A) +
                                                   p_time(24 * 86400000 - 1000) +
                                                   p_ack(P_A, ts="jump", v=255) +
                                                   p_time(2 * 86400000) + p_auto(P_A, 100))
    return s

def tcp_peer_seeds():
    s = {}
    # handshake, data both ways, orderly close and TIME_WAIT (our FIN first)
    s["active-transfer"] = (p_hdr("A") + p_auto(P_A) + p_write(P_A, 2000) + p_auto(P_A) +
                            p_auto(P_A, 1220) + p_time(300) + p_auto(P_A, 3000) +
                            p_end(P_A, "close") + p_auto(P_A) + p_auto(P_A, "fin"))
    # the peer's open, IPv6, its FIN first: CLOSE_WAIT, LAST_ACK
    s["passive-transfer-v6"] = (p_hdr("B", b6=True, bopt=p_opt(536, ws=7, ts=False)) +
                                p_auto(P_B, 536) + p_write(P_B, 4096) + p_auto(P_B) +
                                p_time(250) + p_auto(P_B, "fin") + p_end(P_B, "close") +
                                p_auto(P_B))
    # a zero window from the SYN-ACK on: persist probes, then it opens
    s["zero-window"] = (p_hdr("A", wnd=0, acfg=p_cfg(512, 1024)) + p_auto(P_A) +
                        p_write(P_A, 1000) + p_time(1500) + p_auto(P_A) + p_time(5000) +
                        p_window(P_A, 4096) + p_auto(P_A) + p_end(P_A, "close") + p_auto(P_A))
    # a responsive peer over a lossy path: SACK recovery, timeouts, both ends
    s["responsive-loss"] = (p_hdr("AB", responsive=True, lat=20, peer_fin=True) + p_time(100) +
                            p_write(P_A, 16384) + p_net(P_A, "lose2") + p_write(P_B, 4096) +
                            p_net(P_B, "lose1") + p_time(20000) + p_auto(P_B, 3000) +
                            p_end(P_A, "close") + p_end(P_B, "shutdown") + p_time(5000))
    # our FIN acknowledged, the peer's never comes: FIN_WAIT_2 must end
    s["fin-wait-2"] = (p_hdr("A", read=(False, False)) + p_auto(P_A) + p_end(P_A, "close") +
                       p_auto(P_A) + p_time(60000))
    # idle for 26 days with timestamps, then data: TS.Recent is stale (RFC 7323 5.5)
    s["idle-days"] = (p_hdr("A") + p_auto(P_A) + p_auto(P_A, 100) +
                      p_time(20 * 86400000, jump=True) + p_time(6 * 86400000) +
                      p_auto(P_A, 100) + p_time(1000))
    # resets and SYNs at the wrong moment, a refused connect, reopening
    s["rst-reopen"] = (p_hdr("AB") + p_auto(P_A) + p_auto(P_B) + p_rst(P_B, "in-window", 5) +
                       p_rst(P_B, "syn", 3) + p_rst(P_A, "exact") + p_open(P_A, other_family=True) +
                       p_rst(P_A, "exact") + p_open(P_A) + p_auto(P_A) + p_end(P_B, "close") +
                       p_auto(P_B, "fin") + p_open(P_B, same_port=True) + p_auto(P_B))
    # keepalive on an idle connection, the peer answers, then falls silent
    s["keepalive"] = (p_hdr("B", ka=(0, 10000), tail=("close", "keepalive")) + p_auto(P_B) +
                      p_auto(P_B, 100) + p_time(15000) + p_auto(P_B) + p_time(10000))
    return s

# --- fuzz_mac_input -------------------------------------------------------------
# [hdr0 hdr1 hdr2 hdr3] then operations (see fuzz/fuzz_mac_input.c setup() and
# run_op()). hdr0: bits 0-1 kind (0 CSMA-CA, 1 CSMA, 2 NullMAC), 0x04 the
# radio ends transmissions after their airtime, 0x08 zero backoff period (with
# 0x20), 0x10 tx_done queues another frame, 0x20 zero timings, 0x40 retry delay
# hdr3 * 97 us, 0x80 retry delay 0x7FFFFFFF >> (hdr3 & 31). hdr1: min_be
# (bits 0-2), max_be - min_be (bits 3-4), 0x20 ContikiMAC under the protocol,
# 0x40 with it: 64 Hz checks, 1 + (hdr3 >> 6) misses drop a phase, 2 ms bursts,
# 0x80 no overheard callback. hdr2:
# max_backoffs (bits 0-2; 0xFF: 255), max_retries (bits 3-5). hdr3: CSMA
# min periods (bits 0-1), max - min (bits 2-3).

MAC_CSMA_CA, MAC_CSMA, MAC_NULLMAC = 0, 1, 2
M_AUTO, M_ZERO_BO, M_RESEND, M_ZERO, M_RDELAY = 0x04, 0x08, 0x10, 0x20, 0x40

# hdr0 kind 3 ("loose"): CSMA-CA over the RDC rdc (0 X-MAC, 1 LPP, 2 a leaf of
# OTHER, 3 the parent of OTHER and 00..03) in hdr1 bits 5-6; hdr3 0x40 64 Hz
# wake-ups (leaf: 20 ms polls), 0x80 adaptive intervals up to 4x.
MAC_LOOSE = 3
RDC_XMAC, RDC_LPP, RDC_LEAF, RDC_PARENT = 0, 1, 2, 3

def m_hdr(kind=MAC_CSMA_CA, flags=M_AUTO, min_be=3, max_be=5, backoffs=4, retries=3,
          cmin=1, cmax=3, h3=None, no_overheard=False, cm=False, cm_fast=False, rdc=None):
    h1 = min_be | ((max_be - min_be) << 3) | (0x80 if no_overheard else 0)
    h1 |= (0x20 if cm else 0) | (0x40 if cm_fast else 0)
    if rdc is not None:
        kind = MAC_LOOSE
        h1 = (h1 & ~0x60) | (rdc << 5)
    h2 = 0xFF if backoffs == 255 else (backoffs | (retries << 3))
    h3 = (cmin | ((cmax - cmin) << 2)) if h3 is None else h3
    return bytes([kind | flags, h1, h2, h3])

def m_raw(frame):                   # op 0: raw bytes to mip_mac_radio_rx
    return bytes([0, len(frame)]) + frame

def m_rx(dst=0, ack=False, pan=0, src=0, seq=0, cmd=False, ext_src=False):
    """op 1: a built frame. dst 0 us, 1 broadcast, 2 our extended address,
    3 another node; pan 0 ours, 1 broadcast PAN, 2 another PAN."""
    sel = dst | (4 if ack else 0) | ({0: 0, 1: 8, 2: 0x18}[pan]) | (0x80 if cmd else 0)
    sel |= 0x20 if ext_src else ((src & 3) << 5)
    return bytes([1, sel & 0xFF, seq & 0xFF])

def m_ack(head=True, seq=0, late_us=None, pending=False):
    """op 3: an ACK for the head frame's DSN, or seq; late_us: it arrives that
    much later (8 us units) without a poll in between; with the frame pending
    bit."""
    a = (1 if head else 0) | (2 if late_us is not None else 0) | (4 if pending else 0)
    return bytes([3, a, seq & 0xFF, ((late_us or 0) // 8) & 0xFF])

M_TXDONE = bytes([4])               # op 4: the radio ends its transmission now

def m_send(dst=0, ack=False, extra=8, cmd=False):
    """op 5: a frame from us. dst 0 another node, 1 broadcast, 2 extended,
    3 a fourth node."""
    return bytes([5, dst | (4 if ack else 0) | (0x40 if cmd else 0), extra & 0xFF])

def m_time(us):                     # op 7: time passes, every deadline polled
    v = us if us < 0x8000 else 0x8000 | min(us // 64, 0x7FFF)
    return bytes([7]) + struct.pack(">H", v)

M_POLL = bytes([8])

def m_cca(mode, pattern=0):         # op 9: 0 clear, 1 busy, 2 alternate, 3 pattern
    return bytes([9, mode, pattern])

def m_refuse(n):                    # op 10: the radio refuses the next n transmits
    return bytes([10, n])

def m_invalid(data):                # op 11: a frame mip_mac_send must refuse
    return bytes([11, len(data)]) + data

def mac_seeds():
    s = {}
    # CSMA-CA, the radio ended by hand: the ACK for the head frame comes in time
    s["csma-ca-acked"] = (m_hdr(flags=0) + m_send(0, ack=True) + m_time(3000) + M_TXDONE +
                          m_time(500) + m_ack() + M_POLL)
    s["csma-ca-noack-retries"] = m_hdr() + m_send(0, ack=True) + m_time(60000)
    s["csma-ca-retry-delay"] = (m_hdr(flags=M_AUTO | M_RDELAY, h3=100) + m_send(2, ack=True) +
                                m_time(100000))
    s["csma-ca-busy"] = m_hdr() + m_cca(1) + m_send(0, ack=True) + m_time(100000)
    s["csma-ca-busy-then-clear"] = (m_hdr() + m_cca(3, 0b11110110) + m_send(1) + m_send(0, ack=True) +
                                    m_send(3) + m_time(200000))
    s["csma-ca-255-backoffs"] = (m_hdr(min_be=0, max_be=0, backoffs=255) + m_cca(1) + m_send(1) +
                                 m_time(100000))
    s["csma-ca-wrong-ack"] = (m_hdr(flags=0) + m_send(0, ack=True) + m_time(3000) + M_TXDONE +
                              m_ack(False, 0x55) + m_time(2000) + M_TXDONE + m_time(5000))
    s["csma-ca-late-ack"] = (m_hdr(flags=0) + m_send(0, ack=True) + m_time(3000) + M_TXDONE +
                             m_ack(late_us=1000) + m_time(3000) + M_TXDONE + m_ack(late_us=800) +
                             m_time(5000))
    s["queue-full"] = m_hdr() + b"".join(m_send(i & 3, ack=bool(i & 4)) for i in range(20)) + \
        m_time(400000)
    s["radio-refuses"] = (m_hdr() + m_refuse(2) + m_send(0, ack=True) + m_send(1) + m_send(0) +
                          m_rx(0, ack=True, seq=4) + m_time(50000))
    s["rx-ack-and-duplicate"] = (m_hdr() + m_rx(0, ack=True, seq=7) + m_time(1000) +
                                 m_rx(0, ack=True, seq=7) + m_time(1000) +
                                 m_rx(2, ack=True, seq=8, ext_src=True) + m_time(1000))
    s["rx-filtering"] = (m_hdr() + m_rx(3, ack=True) + m_rx(0, pan=2) + m_rx(1, pan=1) +
                         m_rx(0, pan=1, seq=1) + m_rx(0, cmd=True, seq=2) +
                         m_raw(b"\x41\xcc\x00") + m_raw(b"\x02\x00\x09") + m_raw(b"\x49") +
                         m_raw(b"\x21\x08\x05\xcd\xab\x02\x00\x99") + m_ack(False, 3))
    s["rx-no-overheard-listener"] = m_hdr(no_overheard=True) + m_rx(3) + m_rx(0, pan=2)
    s["ack-during-own-access"] = (m_hdr() + m_send(1) + m_time(300) + m_rx(0, ack=True, seq=1) +
                                  m_time(150) + m_rx(0, ack=True, seq=2) + m_time(20000))
    s["ack-while-waiting-for-ack"] = (m_hdr(flags=0) + m_send(0, ack=True) + m_time(3000) +
                                      M_TXDONE + m_rx(0, ack=True, seq=9) + m_time(192) +
                                      m_ack() + m_time(400) + M_TXDONE + m_time(3000))
    s["csma"] = (m_hdr(MAC_CSMA) + m_send(0, ack=True) + m_send(1) + m_cca(2) + m_send(3) +
                 m_time(50000))
    s["csma-busy"] = m_hdr(MAC_CSMA, cmin=0, cmax=3) + m_cca(1) + m_send(0) + m_time(50000)
    s["nullmac"] = (m_hdr(MAC_NULLMAC) + m_send(0, ack=True) + m_rx(0, ack=True, seq=3) +
                    m_send(1) + m_time(192) + m_send(2) + m_time(20000))
    s["nullmac-manual-radio"] = (m_hdr(MAC_NULLMAC, flags=0) + m_send(0) + m_send(1) + M_TXDONE +
                                 M_TXDONE + M_TXDONE + m_time(10) + M_TXDONE)
    s["zero-timing-resend"] = (m_hdr(flags=M_AUTO | M_ZERO | M_ZERO_BO | M_RESEND, min_be=0,
                                     max_be=0, backoffs=255) + m_cca(1) + m_send(1) + m_send(0) +
                               m_time(1000) + m_cca(0) + m_time(1000))
    s["resend-from-callback"] = m_hdr(flags=M_AUTO | M_RESEND) + m_send(1) + m_time(30000)
    # ContikiMAC (hdr1 0x20): idle checks, a listen on energy, trains, phase
    # lock, bursts both ways, repeats
    pending = b"\x71\x88\x05\xcd\xab\x02\x00\x01\x00\x42"   # for us, ACK req, pending
    last = b"\x61\x88\x06\xcd\xab\x02\x00\x01\x00\x43"      # the burst's last
    s["cm-idle-and-listen"] = (m_hdr(MAC_NULLMAC, cm=True) + m_time(0x8000 | 4000) + m_cca(1) +
                               m_time(0x8000 | 2000) + m_cca(0) + m_time(0x8000 | 4000))
    s["cm-unicast-acked"] = (m_hdr(MAC_NULLMAC, flags=0, cm=True) + m_send(0, ack=True) +
                             m_time(884) + M_TXDONE + m_time(400) + m_ack() + m_time(60000))
    s["cm-unicast-noack-retries"] = (m_hdr(cm=True, cm_fast=True, retries=2) +
                                     m_send(0, ack=True) + m_time(0x8000 | 3000))
    s["cm-broadcast-train"] = m_hdr(MAC_NULLMAC, cm=True) + m_send(1) + m_time(0x8000 | 3000)
    s["cm-phase-lock"] = (m_hdr(MAC_NULLMAC, flags=0, cm=True, cm_fast=True, h3=0x40) +
                          b"".join(m_send(0, ack=True) + m_time(884 + 400 * i) + M_TXDONE +
                                   m_time(400) + M_TXDONE + m_time(400) + m_ack() +
                                   m_time(20000) for i in range(4)))
    s["cm-burst-send"] = (m_hdr(MAC_CSMA_CA, cm=True) + m_send(0, ack=True) + m_send(0, ack=True) +
                          m_send(0, ack=True) + m_time(3000) + m_ack(late_us=400) +
                          m_time(3000) + m_ack(late_us=400) + m_time(0x8000 | 3000))
    s["cm-burst-receive"] = (m_hdr(MAC_CSMA, cm=True) + m_raw(pending) + m_send(0, ack=True) +
                             m_time(5000) + m_raw(pending) + m_time(5000) + m_raw(last) +
                             m_time(0x8000 | 3000))
    s["cm-repeats"] = (m_hdr(MAC_NULLMAC, cm=True) + m_rx(0, ack=True, seq=9) + m_time(2000) +
                       m_rx(0, ack=True, seq=9) + m_time(0x8000 | 2000) + m_rx(1, seq=10) +
                       m_time(0x8000 | 2000) + m_rx(1, seq=10) + m_rx(3, seq=11) +
                       m_time(0x8000 | 2000))
    # found by its own seed: a CCA at the instant its step began, before the
    # radio was switched on for it
    s["regress-cm-zero-timing-cca-before-radio-on"] = (m_hdr(MAC_CSMA_CA, flags=M_AUTO | M_ZERO | M_RESEND, cm=True,
                                 min_be=0, max_be=0) + m_send(0, ack=True) + m_send(1) +
                           m_cca(2) + m_time(0x8000 | 3000))
    # X-MAC, LPP, sleepy leaf and parent (hdr0 kind 3), under CSMA-CA
    strobe_ack = b"\x41\x88\x07\xcd\xab\x02\x00\x03\x00\x00\x13"   # from OTHER to us
    strobe_us = b"\x41\x88\x08\xcd\xab\x02\x00\x03\x00\x00\x10"    # OTHER strobes us
    probe = b"\x41\x88\x09\xcd\xab\xff\xff\x03\x00\x00\x20"        # OTHER's probe
    dr_other = b"\x63\x88\x0a\xcd\xab\x02\x00\x03\x00\x04"          # OTHER's data request
    data_us = b"\x61\x88\x0b\xcd\xab\x02\x00\x03\x00\x41\x42"       # OTHER's data for us
    s["xmac-strobes-noack"] = m_hdr(rdc=RDC_XMAC, h3=0x40) + m_send(0, ack=True) + \
        m_time(0x8000 | 3000)
    s["xmac-strobe-ack-data"] = (m_hdr(rdc=RDC_XMAC, h3=0x40) + m_send(0, ack=True) +
                                 m_send(0, ack=True) + m_time(9000) + m_raw(strobe_ack) +
                                 m_time(3000) + m_ack() + m_time(20000) + m_ack() +
                                 m_time(0x8000 | 2000))
    s["xmac-receive"] = (m_hdr(rdc=RDC_XMAC) + m_time(0x8000 | 2000) + m_raw(strobe_us) +
                         m_time(2000) + m_raw(data_us) + m_rx(3, seq=0x80) + m_send(1) +
                         m_time(0x8000 | 3000))
    s["xmac-adaptive"] = (m_hdr(rdc=RDC_XMAC, h3=0xC0) + m_time(0x8000 | 3000) + m_raw(data_us) +
                          m_time(0x8000 | 3000))
    s["lpp-probe-and-send"] = (m_hdr(rdc=RDC_LPP, h3=0x40) + m_send(0, ack=True) + m_time(2000) +
                               m_raw(probe) + m_time(4000) + m_ack() + m_send(1) +
                               m_raw(probe) + m_time(0x8000 | 2000))
    s["lpp-timeout-and-receive"] = (m_hdr(rdc=RDC_LPP, h3=0xC0) + m_send(0, ack=True) +
                                    m_time(0x8000 | 3000) + m_raw(data_us) + m_rx(0, seq=0x82) +
                                    m_time(0x8000 | 2000))
    s["leaf-polls"] = (m_hdr(rdc=RDC_LEAF, h3=0x40) + m_time(30000) + m_ack(pending=True) +
                       m_time(3000) + m_raw(data_us) + m_send(0, ack=True) + m_time(30000) +
                       bytes([11, 0]) + m_time(30000) + bytes([11, 1]) + m_time(0x8000 | 2000))
    s["leaf-adaptive"] = (m_hdr(rdc=RDC_LEAF, h3=0xC0) + m_time(0x8000 | 2000) + m_ack() +
                          m_time(0x8000 | 1000))
    s["parent-holds"] = (m_hdr(rdc=RDC_PARENT) + m_send(0, ack=True) + m_send(0, ack=True) +
                         m_send(2, ack=True) + m_send(3, ack=True) + m_time(20000) +
                         m_raw(dr_other) + m_time(5000) + m_ack() + m_time(5000) + m_ack() +
                         m_time(5000) + m_raw(dr_other) + m_time(0x8000 | 3000))
    s["parent-learns-and-expires"] = (m_hdr(rdc=RDC_PARENT) + m_rx(0, ack=True, cmd=True, seq=1) +
                                      bytes([11, 2 | (5 << 2)]) + m_send(0, ack=True) +
                                      m_time(0x8000 | 6000))
    # found by fuzzing the harness: a frame with the ACK request bit that
    # carries a strobe ACK's two bytes is data (passed up), not X-MAC's
    s["regress-xmac-ack-request-makes-it-data"] = (
        m_hdr(rdc=RDC_XMAC) + m_raw(b"\x61\x88\x07\xcd\xab\x02\x00\x03\x00\x00\x13") +
        m_time(2000))
    s["invalid-sends"] = (m_hdr() + m_invalid(b"") + m_invalid(b"\x41\x88") +
                          m_invalid(b"\x02\x00\x01") + m_invalid(b"\x41\x88\x00\xcd\xab") +
                          m_send(1, extra=200) + m_time(10000))
    return s

# --- fuzz_lowpan_input --------------------------------------------------------
#
# The node of fuzz/fuzz_lowpan_input.c (see fuzz/stack_harness.h): PAN
# 0xABCD; netif 0 = IPHC, short 0x0002, fd00::2/64, context 0 fd00::/64;
# netif 1 = RAW_IP with a 23-byte link header, short 0x0202,
# fd01::ff:fe00:202/64 and 192.0.2.2/24. Records: [step][len | 0x8000 driver
# fails | 0x4000 netif 1][frame without FCS]. The IPHC encoder below is an
# independent one (shortest forms of RFC 6282), so seeds also cross-check
# the stack's decoder.

LP_PAN = 0xABCD
LP_US0, LP_US1 = 0x0002, 0x0202
LP_PEER0, LP_PEER1 = 0x0001, 0x0201            # fe80::ff:fe00:1, 192.0.2.1
LP_BCAST = 0xFFFF
LP_CTX0 = v6("fd00::")[:8]
LP_FMAX = 125                                   # frame_max 127 - FCS
LP_RAW_HDR = 23
LP_OUR6 = v6("fd00::2")
LP_PEER6 = v6("fd00::ff:fe00:1")
LP_PEER_LL = v6("fe80::ff:fe00:1")
LP_OUR_LL = v6("fe80::ff:fe00:2")
LP_OUR6_RAW = v6("fd01::ff:fe00:202")
LP_PEER6_RAW = v6("fd01::ff:fe00:201")

def mhr(dst, src, seq=0, ack=None, dst_ext=None, src_ext=None, pan=LP_PAN):
    """Data frame, PAN ID compression; short addresses unless ext given
    (8 bytes, text order)."""
    dm = 3 if dst_ext is not None else 2
    sm = 3 if src_ext is not None else 2
    if ack is None:
        ack = dst != LP_BCAST
    fcf = 1 | (0x20 if ack else 0) | 0x40 | (dm << 10) | (sm << 14)
    h = struct.pack("<HBH", fcf, seq, pan)
    h += dst_ext[::-1] if dst_ext is not None else struct.pack("<H", dst)
    h += src_ext[::-1] if src_ext is not None else struct.pack("<H", src)
    return h

def lp_iid(link):
    """IID of a link address: int = short, bytes = extended."""
    if isinstance(link, int):
        return b"\0\0\0\xff\xfe\0" + struct.pack(">H", link)
    return bytes([link[0] ^ 2]) + link[1:]

def _iphc_unicast(a, link, ctxs):
    """(ac, am, ci, inline bytes)"""
    if a[:8] == v6("fe80::")[:8]:
        ac, ci = 0, 0
    else:
        for i, c in enumerate(ctxs):
            if a[:8] == c:
                ac, ci = 1, i
                break
        else:
            return 0, 0, 0, a
    iid = a[8:]
    if link is not None and iid == lp_iid(link):
        return ac, 3, ci, b""
    if iid[:6] == b"\0\0\0\xff\xfe\0":
        return ac, 2, ci, iid[6:]
    return ac, 1, ci, iid

def _iphc_multicast(a, ctxs):
    if a[1] == 2 and a[2:15] == bytes(13):
        return 0, 3, 0, a[15:]
    if a[2:13] == bytes(11):
        return 0, 2, 0, a[1:2] + a[13:]
    if a[2:11] == bytes(9):
        return 0, 1, 0, a[1:2] + a[11:]
    for i, c in enumerate(ctxs):
        if a[3] == 64 and a[4:12] == c:
            return 1, 0, i, a[1:3] + a[12:]
    return 0, 0, 0, a

def iphc(ip, lsrc, ldst, ctxs=(LP_CTX0,), nhc=True):
    """IPHC (+NHC UDP) of an IPv6 datagram; returns header + the rest."""
    vtcfl = struct.unpack(">I", ip[:4])[0]
    tc, flow = (vtcfl >> 20) & 0xFF, vtcfl & 0xFFFFF
    ecn, dscp = tc & 3, tc >> 2
    nh, hlim, src, dst = ip[6], ip[7], ip[8:24], ip[24:40]
    b0, b1, out = 0x60, 0, b""
    if src == bytes(16):
        sac, sam, sci, sb = 1, 0, 0, b""
    else:
        sac, sam, sci, sb = _iphc_unicast(src, lsrc, ctxs)
    if dst[0] == 0xFF:
        m = 1
        dac, dam, dci, db = _iphc_multicast(dst, ctxs)
    else:
        m = 0
        dac, dam, dci, db = _iphc_unicast(dst, ldst, ctxs)
    if (sac and sci) or (dac and dci):
        b1 |= 0x80
        out += bytes([(sci << 4) | dci])
    if tc == 0 and flow == 0:
        b0 |= 3 << 3
    elif flow == 0:
        b0 |= 2 << 3
        out += bytes([(ecn << 6) | dscp])
    elif dscp == 0:
        b0 |= 1 << 3
        out += bytes([(ecn << 6) | (flow >> 16)]) + struct.pack(">H", flow & 0xFFFF)
    else:
        out += bytes([(ecn << 6) | dscp, flow >> 16]) + struct.pack(">H", flow & 0xFFFF)
    udp_nhc = nhc and nh == 17 and len(ip) >= 48 and ip[44:46] == ip[4:6]
    if udp_nhc:
        b0 |= 4
    else:
        out += bytes([nh])
    hl = {1: 1, 64: 2, 255: 3}.get(hlim)
    if hl is None:
        out += bytes([hlim])
    else:
        b0 |= hl
    b1 |= (sac << 6) | (sam << 4) | (m << 3) | (dac << 2) | dam
    out += sb + db
    rest = ip[40:]
    if udp_nhc:
        sp, dp = struct.unpack(">HH", ip[40:44])
        if sp & 0xFFF0 == 0xF0B0 and dp & 0xFFF0 == 0xF0B0:
            out += bytes([0xF3, ((sp & 15) << 4) | (dp & 15)])
        elif dp & 0xFF00 == 0xF000:
            out += bytes([0xF1]) + struct.pack(">HB", sp, dp & 0xFF)
        elif sp & 0xFF00 == 0xF000:
            out += bytes([0xF2]) + struct.pack(">BH", sp & 0xFF, dp)
        else:
            out += bytes([0xF0]) + struct.pack(">HH", sp, dp)
        out += ip[46:48]
        rest = ip[48:]
    return bytes([b0, b1]) + out, rest, 48 if udp_nhc else 40

def lp_frames(ip, dst=LP_US0, src=LP_PEER0, tag=0x1234, fmax=LP_FMAX, dispatch41=False,
              src_ext=None):
    """An IPv6 datagram as the peer's 802.15.4 frames to netif 0: one IPHC
    frame, or FRAG1 + FRAGNs (RFC 4944: sizes and offsets in uncompressed
    bytes, full 8-byte blocks)."""
    lsrc = src_ext if src_ext is not None else src
    h = mhr(dst, src, src_ext=src_ext)
    if dispatch41:
        hc, rest, consumed = b"\x41", ip[40:], 40
        hc += ip[:40]
    else:
        hc, rest, consumed = iphc(ip, lsrc, dst if dst != LP_BCAST else None)
    if len(h) + len(hc) + len(rest) <= fmax:
        return [h + hc + rest]
    size = len(ip)
    room = fmax - len(h) - 4 - len(hc)
    first = (consumed + room) // 8 * 8 - consumed
    frames = [h + struct.pack(">HH", 0xC000 | size, tag) + hc + rest[:first]]
    off = consumed + first
    per = (fmax - len(h) - 5) // 8 * 8
    while off < size:
        chunk = ip[off:off + per]
        frames.append(h + struct.pack(">HHB", 0xE000 | size, tag, off // 8) + chunk)
        off += len(chunk)
    return frames

def lp_raw(ip, dst=LP_US1, src=LP_PEER1):
    """A datagram behind the RAW_IP header of netif 1."""
    h = mhr(dst, src)
    disp = 0x41 if ip[0] >> 4 == 6 else 0x3F
    return h + bytes(LP_RAW_HDR - 2 - len(h) - 1) + bytes([disp]) + ip

def lrec(frame, step=0, fail=False, raw=False):
    return bytes([step]) + struct.pack(">H", len(frame) | (0x8000 if fail else 0) |
                                       (0x4000 if raw else 0)) + frame

def lrecs(frames, step=0, fail=False):
    return b"".join(lrec(f, step if i == 0 else 0, fail) for i, f in enumerate(frames))

def lowpan_seeds():
    s = {}
    body = bytes(range(56))
    big = bytes((i * 13) & 0xFF for i in range(1400))
    p6 = lambda src, dst, b=body, **kw: ipv6(src, dst, 58,
                                               icmp6(src, dst, 128, 0, 0x42000001, b), **kw)
    # IPHC netif 0
    s["ping6-ctx0"] = lrecs(lp_frames(p6(LP_PEER6, LP_OUR6)))
    s["ping6-ll"] = lrecs(lp_frames(p6(LP_PEER_LL, LP_OUR_LL)))
    s["ping6-allnodes"] = lrecs(lp_frames(p6(LP_PEER_LL, ALL_NODES), dst=LP_BCAST))
    s["ping6-tc-flow"] = lrecs(lp_frames(p6(LP_PEER6, LP_OUR6, tc=0xB8, flow=0x12345)))
    s["ping6-hlim-inline"] = lrecs(lp_frames(p6(LP_PEER6, LP_OUR6, hlim=33)))
    s["ping6-ext-src"] = lrecs(lp_frames(p6(v6("fe80::1122:3344:5566:7788"), LP_OUR_LL),
                                         src_ext=bytes.fromhex("1322334455667788")))
    s["ping6-dispatch41"] = lrecs(lp_frames(p6(LP_PEER6, LP_OUR6), dispatch41=True))
    s["ping6-frag"] = lrecs(lp_frames(p6(LP_PEER6, LP_OUR6, big[:600])))
    s["ping6-frag-1232"] = lrecs(lp_frames(p6(LP_PEER6, LP_OUR6, big[:1224])))
    s["ping6-frag-dispatch41"] = lrecs(lp_frames(p6(LP_PEER6, LP_OUR6, big[:300]),
                                                 dispatch41=True))
    f = lp_frames(p6(LP_PEER6, LP_OUR6, big[:700]))
    s["frag-reverse"] = lrecs(list(reversed(f)))
    s["frag-dup"] = lrecs([f[0], f[0], f[1], f[1]] + f[2:])
    s["frag-missing-timeout"] = lrecs([f[0]] + f[2:]) + lrec(b"", 90) + lrec(b"", 90)
    g = bytearray(f[2])
    g[9 + 4] -= 1                                              # overlap
    s["frag-overlap"] = lrecs(f[:2] + [bytes(g)] + f[2:])
    g = bytearray(f[1])
    g[9 + 1] += 8                                              # other size, same tag
    s["frag-size-change"] = lrecs([f[0], bytes(g)] + f[1:])
    f2 = lp_frames(p6(LP_PEER6, LP_OUR6, big[100:900]), tag=0x4321)
    f3 = lp_frames(p6(LP_PEER_LL, LP_OUR_LL, big[200:700]), tag=0x1234, src=0x0003)
    inter = []
    for i in range(max(len(f), len(f2), len(f3))):
        for fr in (f, f2, f3):
            if i < len(fr):
                inter.append(fr[i])
    s["frag-interleaved-3"] = lrecs(inter)
    u6 = udp(LP_PEER6, LP_OUR6, 40000, 7, b"hello lowpan")
    s["udp6-echo"] = lrecs(lp_frames(ipv6(LP_PEER6, LP_OUR6, 17, u6)))
    u6c = udp(LP_PEER6, LP_OUR6, 0xF0B1, 7, b"nhc")
    s["udp6-echo-ports-f0"] = lrecs(lp_frames(ipv6(LP_PEER6, LP_OUR6, 17, u6c)))
    ub = udp(LP_PEER6, LP_OUR6, 40001, 7, big[:1000])
    s["udp6-echo-frag"] = lrecs(lp_frames(ipv6(LP_PEER6, LP_OUR6, 17, ub)))
    s["udp6-closed"] = lrecs(lp_frames(ipv6(LP_PEER6, LP_OUR6, 17,
                                            udp(LP_PEER6, LP_OUR6, 40000, 9, b"x"))))
    s["udp6-echo-no-nhc"] = lrec(mhr(LP_US0, LP_PEER0) +
                                 iphc(ipv6(LP_PEER6, LP_OUR6, 17, u6), LP_PEER0, LP_US0,
                                      nhc=False)[0] + u6)
    s["ns-for-us"] = lrecs(lp_frames(ipv6(LP_PEER6, solicited(LP_OUR6), 58,
                                          nd_ns(LP_PEER6, solicited(LP_OUR6), LP_OUR6),
                                          hlim=255), dst=LP_BCAST))
    s["ping6-drvfail"] = lrecs(lp_frames(p6(LP_PEER6, LP_OUR6, big[:400])), fail=True)
    # forwarding both ways and a too-big forward
    fw = udp(LP_PEER6, LP_PEER6_RAW, 1000, 2000, b"through")
    s["fwd6-iphc-to-raw"] = lrecs(lp_frames(ipv6(LP_PEER6, LP_PEER6_RAW, 17, fw)))
    fw2 = udp(LP_PEER6_RAW, LP_PEER6, 1000, 2000, b"back")
    s["fwd6-raw-to-iphc"] = lrec(lp_raw(ipv6(LP_PEER6_RAW, LP_PEER6, 17, fw2)), raw=True)
    fw3 = udp(LP_PEER6_RAW, REMOTE6, 1, 2, b"via gw")
    s["fwd6-raw-to-gw-ext"] = lrec(lp_raw(ipv6(LP_PEER6_RAW, REMOTE6, 17, fw3)), raw=True)
    fw4 = udp(LP_PEER6, LP_PEER6_RAW, 1000, 2000, big[:500])
    s["fwd6-too-big-for-raw"] = lrecs(lp_frames(ipv6(LP_PEER6, LP_PEER6_RAW, 17, fw4)))
    s["fwd6-no-l2addr"] = lrecs(lp_frames(ipv6(LP_PEER6, v6("fd01::1:2:3:4"), 17,
                                               udp(LP_PEER6, v6("fd01::1:2:3:4"), 1, 2,
                                                   b"x"))))
    s["fwd4-raw-to-raw"] = lrec(lp_raw(ipv4(PEER4, HOST3_4, 17,
                                            udp(PEER4, HOST3_4, 1, 2, b"again"))), raw=True)
    # RAW_IP netif 1
    s["raw-ping6"] = lrec(lp_raw(p6(LP_PEER6_RAW, LP_OUR6_RAW)), raw=True)
    s["raw-ping4"] = lrec(lp_raw(ping4(PEER4, OUR4)), raw=True)
    s["raw-ping4-bcast"] = lrec(lp_raw(ping4(PEER4, v4("192.0.2.255")), dst=LP_BCAST), raw=True)
    s["raw-udp4-echo"] = lrec(lp_raw(ipv4(PEER4, OUR4, 17, udp(PEER4, OUR4, 40000, 7, b"hi"))),
                              raw=True)
    icmp_big = icmp4(8, 0, 0x42000002, big[:300])
    s["raw-ping4-frag"] = b"".join(lrec(lp_raw(x), raw=True)
                                   for x in frags4(PEER4, OUR4, 1, icmp_big, 80))
    s["raw-udp6-echo-big-reply"] = b"".join(
        lrec(lp_raw(x), raw=True)
        for x in frags6(LP_PEER6_RAW, LP_OUR6_RAW, 17,
                        udp(LP_PEER6_RAW, LP_OUR6_RAW, 4000, 7, big[:400]), 48))
    s["raw-ping4-drvfail"] = lrec(lp_raw(ping4(PEER4, OUR4)), fail=True, raw=True)
    s["raw-iphc-dispatch"] = lrec(mhr(LP_US1, LP_PEER1) + bytes(11) + b"\x7a" + bytes(48),
                                  raw=True)
    # refused frames
    ok = lp_frames(p6(LP_PEER6, LP_OUR6))[0]
    s["not-for-us"] = lrec(mhr(0x0003, LP_PEER0) + ok[9:])
    s["other-pan"] = lrec(mhr(LP_US0, LP_PEER0, pan=0x1111) + ok[9:])
    s["bcast-pan"] = lrec(mhr(LP_US0, LP_PEER0, pan=0xFFFF) + ok[9:])
    s["mhr-truncated"] = lrec(ok[:6])
    s["security-bit"] = lrec(bytes([ok[0] | 0x08]) + ok[1:])
    s["ack-frame"] = lrec(b"\x02\x00\x07")
    s["mesh-header"] = lrec(ok[:9] + b"\x80" + ok[9:])
    s["unknown-context"] = lrec(ok[:9] + bytes([ok[9], ok[10] | 0x80, 0xF0]) + ok[11:])
    s["nhc-ext-header"] = lrec(ok[:9] + b"\x7e\x77\xe0\x3a\x00" + bytes(8))
    s["oversize"] = lrec(ok + bytes(130 - len(ok)))
    return s

# --- fuzz_relay_input --------------------------------------------------------
# [config byte][mode byte] then operations (see fuzz/fuzz_relay_input.c):
# op 4 / 5 a well-formed segment input / overheard from the next hop, op 6
# the link layer's report on one this node sent, op 3 time.

R_TSS, R_DTC, R_CCTRL = 0x00, 0x01, 0x02
R_KEEP, R_DROP, R_HOP, R_ACTIVITY, R_OURS = 0x08, 0x10, 0x20, 0x40, 0x80

R_ACK, R_PSH, R_SYN, R_SYNACK, R_FIN, R_RST = 0, 1, 4, 5, 6, 7

def r_seg(flags, seq=0, ack=0, plen=0, ident=0, v6=False, rev=False, port=0,
          ts=False, overheard=False, other=False):
    b0 = (1 if v6 else 0) | (2 if rev else 0) | (port << 2) | (flags << 4)
    b5 = (plen & 63) | (0x40 if other else 0)
    b6 = (ident & 0x7F) | (0x80 if ts else 0)
    return bytes([5 if overheard else 4, b0]) + struct.pack(">HHBB", seq, ack, b5, b6)

def r_time(t):
    return bytes([3, t])

def r_link(flags, seq=0, ack=0, plen=0, ident=0, v6=False, ok=False):
    return bytes([6]) + r_seg(flags, seq, ack, plen, ident, v6=v6)[1:] + bytes([1 if ok else 0])

def r_raw_input(ip, from_succ=False):
    return bytes([0, 1 if from_succ else 0]) + struct.pack(">H", len(ip)) + ip

def r_handshake(v6=False, port=0):
    return (r_seg(R_SYN, 0, 0, v6=v6, port=port) + r_time(20) +
            r_seg(R_SYNACK, 0, 1, v6=v6, rev=True, port=port) +
            r_seg(R_ACK, 1, 1, ident=1, v6=v6, port=port) +
            r_seg(R_ACK, 1, 1, ident=1, v6=v6, port=port, overheard=True))

def relay_seeds():
    seeds = {}
    for v6 in (False, True):
        fam = "v6" if v6 else "v4"
        seeds["relay-tss-" + fam] = bytes([0x04, R_TSS]) + (
            r_handshake(v6) +
            r_seg(R_PSH, 1, 1, 40, 2, v6=v6) +              # forwarded, cached
            r_seg(R_PSH, 41, 1, 40, 3, v6=v6) +             # buffered
            r_seg(R_PSH, 1, 1, 40, 2, v6=v6, overheard=True) +  # implicit ACK
            r_time(4) +                                     # delayed forward
            r_seg(R_ACK, 1, 81, 0, 4, v6=v6, rev=True, ts=True) +  # TCP ACK
            r_seg(R_PSH, 1, 1, 40, 5, v6=v6) +              # regenerated ACK
            r_seg(R_ACK, 1, 81, 0, 4, v6=v6, rev=True, overheard=True) +
            r_seg(R_ACK, 1, 81, 0, 6, v6=v6, rev=True) +    # suppressed
            r_seg(R_PSH, 81, 1, 40, 7, v6=v6) +
            r_time(60) + r_time(60) +                       # local retransmissions
            r_seg(R_ACK, 1, 121, 0, 8, v6=v6, rev=True) +
            r_time(100) +                                   # ACK recovery
            r_seg(R_FIN, 121, 1, 0, 9, v6=v6) +
            r_seg(R_FIN, 1, 122, 0, 10, v6=v6, rev=True) +
            r_seg(R_ACK, 122, 2, 0, 11, v6=v6))
        seeds["relay-giveup-" + fam] = bytes([0x02, R_TSS]) + (
            r_handshake(v6) + r_seg(R_PSH, 1, 1, 30, 2, v6=v6) +
            b"".join(r_time(40) for _ in range(6)) +
            r_seg(R_PSH, 1, 1, 30, 2, v6=v6) +              # a copy: history
            r_seg(R_PSH, 1, 1, 30, 3, v6=v6))               # end to end: passes
    many = b""
    for port in range(4):
        for v6 in (False, True):
            many += r_handshake(v6, port) + r_seg(R_PSH, 1, 1, 20, port, v6=v6, port=port)
            many += r_seg(R_PSH, 21, 1, 20, port + 8, v6=v6, port=port)
    seeds["relay-many-flows"] = bytes([0x14, R_TSS]) + many + r_time(250)
    seeds["relay-rst"] = bytes([0x0c, R_TSS]) + r_handshake() + r_seg(R_PSH, 1, 1, 10, 2) + \
        r_seg(R_RST, 11, 0, 0, 3) + r_seg(R_PSH, 11, 1, 10, 4)
    syn = ipv4(v4("10.0.1.10"), v4("10.0.2.10"), 6,
               tcp(v4("10.0.1.10"), v4("10.0.2.10"), 1000, 80, 0x02, seq=999))
    seeds["relay-raw-ip"] = bytes([0x04, R_TSS]) + r_raw_input(syn) + \
        r_raw_input(syn[:30]) + r_raw_input(b"\x45" + bytes(40))
    for v6 in (False, True):
        fam = "v6" if v6 else "v4"
        seeds["relay-dtc-" + fam] = bytes([0x04, R_DTC]) + (
            r_handshake(v6) +
            r_seg(R_PSH, 1, 1, 40, 2, v6=v6) +              # cached, pending
            r_link(R_PSH, 1, 1, 40, 2, v6=v6, ok=True) +    # unlocked
            r_seg(R_PSH, 41, 1, 40, 3, v6=v6) +             # replaces it
            r_link(R_PSH, 41, 1, 40, 3, v6=v6) +            # locked
            r_seg(R_PSH, 81, 1, 40, 4, v6=v6) +             # not cached
            r_seg(R_ACK, 1, 41, 0, 5, v6=v6, rev=True) +    # names it
            r_seg(R_ACK, 1, 41, 0, 6, v6=v6, rev=True) +    # dup: resent, dropped
            r_time(250) +                                   # the lock's timer
            r_seg(R_ACK, 1, 121, 0, 7, v6=v6, rev=True) +   # clears it
            r_seg(R_PSH, 41, 1, 40, 8, v6=v6) +             # regenerated ACK
            r_seg(R_RST, 121, 0, 0, 9, v6=v6))
        seeds["relay-cctrl-" + fam] = bytes([0x03, R_CCTRL | R_KEEP | R_DROP | R_HOP | R_ACTIVITY]) + (
            r_handshake(v6) +
            r_seg(R_PSH, 1, 1, 16, 2, v6=v6) +              # cached
            r_seg(R_PSH, 1, 1, 16, 3, v6=v6) +              # drop: a copy
            r_seg(R_PSH, 1, 1, 16, 4, v6=v6, overheard=True, other=True) +  # activity
            r_time(201) + r_time(201) +                     # early, then full RTO
            r_seg(R_ACK, 1, 17, 0, 5, v6=v6, rev=True) +    # clears, samples
            r_seg(R_PSH, 1, 1, 16, 6, v6=v6) +              # regenerated ACK
            r_seg(R_PSH, 17, 1, 16, 7, v6=v6) +
            b"".join(r_time(202) for _ in range(5)) +       # keep: 3 then gone
            r_seg(R_FIN, 33, 1, 0, 8, v6=v6))
    # our extensions: the node as the sender (own segments through the local
    # hook, config bit 7), lost frames reported for data and for an ACK
    own = ipv4(v4("10.0.1.10"), v4("10.0.2.10"), 6,
               tcp(v4("10.0.1.10"), v4("10.0.2.10"), 1000, 80, 0x18, seq=1000, ack=5001,
                   data=bytes(20)))
    for mode, name in ((R_DTC, "dtc"), (R_CCTRL | R_KEEP, "cctrl")):
        seeds["relay-ours-" + name] = bytes([0x83, mode | R_OURS]) + (
            r_handshake() +
            bytes([0, 2]) + struct.pack(">H", len(own)) + own +     # own, local hook
            r_seg(R_PSH, 1, 1, 20, 2) +
            r_link(R_PSH, 1, 1, 20, 2) +                            # data frame lost
            r_seg(R_ACK, 1, 21, 0, 3, rev=True) +
            bytes([6, 0x02]) + struct.pack(">HHBB", 1, 21, 0, 3) + bytes([0]) +  # ACK lost
            r_time(200) + r_time(220))
    return seeds

# --- fuzz_slip: [cap selector][chunk seed][serial line bytes] -------------

def slip(frame, lead=True):
    body = frame.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc")
    return (b"\xc0" if lead else b"") + body + b"\xc0"

def slip_seeds():
    big6 = ping6(PEER6, OUR6, body=bytes((7 * i) & 0xFF for i in range(1000)))
    return {
        "ping6": bytes([3, 1]) + slip(ping6(PEER6, OUR6)),
        "ping4-no-lead": bytes([3, 2]) + slip(ping4(PEER4, OUR4), lead=False),
        "ping6-escapes-big": bytes([3, 3]) + slip(big6),
        "udp6-and-udp4": bytes([2, 4]) + slip(ipv6(PEER6, OUR6, 17, udp(PEER6, OUR6, 1234, 7, b"\xc0\xdb" * 8))) +
                         slip(ipv4(PEER4, OUR4, 17, udp(PEER4, OUR4, 1234, 9, b"x"))),
        "bad-escape-then-ping": bytes([3, 5]) + b"\x45\xdb\x01\xc0" + slip(ping6(PEER6, OUR6)),
        "esc-end-then-ping": bytes([1, 6]) + b"\x60\xdb\xc0" + slip(ping4(PEER4, OUR4), lead=False),
        "over-mtu-then-ping": bytes([3, 7]) + b"\x60" * 1290 + slip(ping6(PEER6, OUR6)),
        "small-cap": bytes([0, 8]) + slip(b"\x01\x02") + slip(b"\x03") + b"\xc0\xc0",
        "empty-frames": bytes([1, 9]) + b"\xc0" * 16,
        "noise": bytes([2, 10]) + bytes(range(256)),
    }

# --- fuzz_zep: one ZEP datagram (wire/zep.h) ------------------------------------

def fcs802154(b):
    crc = 0
    for x in b:
        crc ^= x
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc

def zep_seeds():
    mpdu = bytes([0x41, 0xd8, 0x07, 0xcd, 0xab, 0xff, 0xff, 0x01, 0x00, 0x7a, 0x33, 0x3a, 0x80, 0x00])
    fr = mpdu + struct.pack("<H", fcs802154(mpdu))
    v2 = (b"EX\x02\x01\x1a" + struct.pack(">H", 1) + b"\x01\xff" + struct.pack(">II", 0xE8000001, 0) +
          struct.pack(">I", 5) + bytes(10) + bytes([len(fr)]) + fr)
    v1 = b"EX\x01\x0b" + struct.pack(">H", 9) + b"\x00\xc8" + bytes(7) + bytes([len(fr)]) + fr
    return {"v2-data": v2, "v1-lqi": v1, "v2-ack": b"EX\x02\x02\x00\x00\x00\x07"}

# --- fuzz_loader: [1 byte: odd = the harness fixes the CRC][an MPM1 module] ------

def loader_module(text_words, data_words, bss, init, relocs, names):
    body = b"".join(struct.pack("<I", w) for w in text_words + data_words)
    body += b"".join(struct.pack("<IBBH", off, kind, 0, arg) for off, kind, arg in relocs)
    body += names
    hdr = b"MPM1" + struct.pack("<BBHIIIIHHI", 0, 1, 32, 4 * len(text_words),
                                4 * len(data_words), bss, init, len(relocs), len(names),
                                zlib.crc32(body))
    return hdr + body

def loader_seeds():
    names = b"mip_a\0mip_bc\0"
    ok = loader_module([8, 0], [4], 16, 1, [(0, 1, 0), (4, 2, 0), (8, 2, 6)], names)
    return {
        "linked": b"\0" + ok,
        "linked-fix-crc": b"\1" + ok[:28] + b"\0\0\0\0" + ok[32:],
        "no-relocations": b"\0" + loader_module([0x4770], [], 0, 1, [], b""),
        "unknown-name": b"\1" + loader_module([0], [], 0, 0, [(0, 2, 0)], b"mip_z\0"),
    }

# --- output -----------------------------------------------------------------

def write_dir(harness, files):
    d = os.path.join(CORPUS, harness)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        # (seed-hand-*: written by hand, not by this script: kept)
        if f.startswith("seed-") and not f.startswith("seed-hand-"):
            os.unlink(os.path.join(d, f))
    for name, data in sorted(files.items()):
        fname = name if name.startswith("regress-") else "seed-" + name
        with open(os.path.join(d, fname), "wb") as fh:
            fh.write(data)
    return len(files)

# --- fuzz_lowpan_fwd -----------------------------------------------------------
#
# The forwarder of fuzz/fuzz_lowpan_fwd.c: PAN 0xABCD, short 0x0002,
# fd00::ff:fe00:2/64, fragment forwarding on; fd00::ff:fe00:9 through short
# 3, the rest of fd00::/64 on-link, the rest through fd00::ff:fe00:1.
# Records: [step][len | 0x8000 no room | 0x4000 driver refuses][frame].

FW_FAR = v6("fd00::ff:fe00:9")
FW_ONLINK = v6("fd00::ff:fe00:5")
FW_AWAY = v6("fd01::7")

def frec(frame, step=0, no_room=False, refuse=False):
    return bytes([step]) + struct.pack(">H", len(frame) | (0x8000 if no_room else 0) |
                                       (0x4000 if refuse else 0)) + frame

def frecs(frames, step=0, **kw):
    return b"".join(frec(f, step if i == 0 else 0, **kw) for i, f in enumerate(frames))

def fwd_seeds():
    s = {}
    big = bytes((i * 29 + 3) & 0xFF for i in range(1300))
    u = lambda dst, n, src=LP_PEER6, **kw: ipv6(src, dst, 17, udp(src, dst, 40000, 7, big[:n]), **kw)
    f = lp_frames(u(FW_FAR, 900))
    s["fwd-far"] = frecs(f)
    s["fwd-onlink"] = frecs(lp_frames(u(FW_ONLINK, 500)))
    s["fwd-away"] = frecs(lp_frames(u(FW_AWAY, 1200, hlim=200)))
    s["fwd-local"] = frecs(lp_frames(u(v6("fd00::ff:fe00:2"), 700)))
    s["fwd-hlim1"] = frecs(lp_frames(u(FW_FAR, 400, hlim=1)))
    s["fwd-reverse"] = frecs(list(reversed(f)))
    s["fwd-first-lost"] = frecs(f[1:]) + frecs(lp_frames(u(FW_FAR, 300), tag=0x1235))
    s["fwd-dup"] = frecs([f[0], f[0], f[1], f[1]] + f[2:])
    g = bytearray(f[2])
    g[9 + 4] -= 1
    s["fwd-overlap"] = frecs(f[:2] + [bytes(g)] + f[2:])
    g = bytearray(f[1])
    g[9 + 1] += 8
    s["fwd-size-change"] = frecs([f[0], bytes(g)] + f[1:])
    s["fwd-no-room-first"] = frec(f[0], no_room=True) + frecs(f[1:])
    s["fwd-no-room-mid"] = frecs(f[:2]) + frec(f[2], no_room=True) + frecs(f[3:])
    s["fwd-refused"] = frecs(f[:2]) + frec(f[2], refuse=True) + frecs(f[3:])
    s["fwd-timeout"] = frecs(f[:3]) + frec(b"", 230) + frec(b"", 230) + frecs(f[3:])
    f2 = lp_frames(u(FW_FAR, 700, src=v6("fd00::ff:fe00:4")), src=0x0004, tag=0x0777)
    f3 = lp_frames(u(FW_ONLINK, 800), tag=0x1236)
    inter = []
    for i in range(max(len(f), len(f2), len(f3))):
        for fr in (f, f2, f3):
            if i < len(fr):
                inter.append(fr[i])
    s["fwd-interleaved-3"] = frecs(inter)
    flood = []
    for k in range(12):
        g = bytearray(f[0])
        g[7:9] = struct.pack("<H", 0x300 + k)
        g[9 + 2:9 + 4] = struct.pack(">H", 0x4000 + k)
        flood.append(bytes(g))
    s["fwd-flood"] = frecs(f[:1] + flood + f[1:])
    s["fwd-small-frames"] = frecs(lp_frames(u(FW_FAR, 600), fmax=60))
    return s

# --- fuzz_sim_json -------------------------------------------------------------
#
# [max_depth byte, 0 = default][text]: the bench scenarios, and small texts
# near what cJSON lets through and we refuse (see sim/json.h).

def json_seeds():
    bench = os.path.join(HERE, "..", "bench", "scenarios")
    seeds = {}
    for name in ("tss-chain-1000seg.json", "contikimac-chain-tcp.json"):
        with open(os.path.join(bench, name), "rb") as fh:
            seeds["bench-" + name[:-5]] = b"\0" + fh.read()
    texts = {
        "every-type": b'{"n":null,"t":true,"f":false,"i":-42,"d":2.5e-3,"s":"a\\u00e9\\ud83d\\ude00",'
                      b'"a":[1,[2,{}],[]],"big":9007199254740993}',
        "nul-in-key": b'{"k\\u0000":1,"k":2}',
        "escapes": b'["\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041"]',
        "lax-whitespace": b"[1,\x0b2]",
        "lax-number": b"[01, 1., 1e400]",
        "lax-hex": b'["\\u12G4"]',
        "duplicate": b'{"a":1,"a\\u0000":2,"a":3}',
        "deep": b"[" * 40 + b"]" * 40,
        "utf8": b'["caf\xc3\xa9", "\xed\xa0\x80"]',
        "bom": b"\xef\xbb\xbf{}",
    }
    for name, text in texts.items():
        seeds[name] = b"\0" + text
    seeds["depth-3"] = b"\x03" + b'{"a":{"b":[[1]]}}'
    return seeds

# --- fuzz_rpl_stack -------------------------------------------------------------
# [mode: bit 0 root, bit 1 storing][records: step, 2-byte length, IPv6 datagram]

def rpl_stack_seeds():
    root, n3, n4, out = v6("fd00::2"), v6("fd00::3"), v6("fd00::4"), v6("fd01::9")

    def r(frame, step=1):
        return bytes([step]) + struct.pack(">H", len(frame)) + frame

    def dao(src, target, parent, seq, lifetime=30):
        body = (bytes([0, 0x80, 0, seq]) + bytes([5, 18, 0, 128]) + target +
                bytes([6, 20, 0, 0, 240, lifetime]) + parent)
        return ipv6(src, root, 58, icmp6(src, root, 155, 2, 0, b"")[:4] + body)

    def srh(dst, route, nh=17):
        n = len(route)
        body = b"".join(a[15:] for a in route)
        pad = (8 - len(body) % 8) % 8
        return bytes([nh, (8 + len(body) + pad) // 8 - 1, 3, n, 0xFF, pad << 4, 0, 0]) + \
            body + bytes(pad)

    ping = icmp6(out, n4, 128, 0, 0x00010001, b"rpl!")
    s = {}
    s["root-daos-tunnel"] = bytes([1]) + (
        r(dao(n3, n3, root, 1)) + r(dao(n4, n4, n3, 1)) +
        r(ipv6(out, n4, 58, ping)) +
        r(ipv6(out, n4, 17, struct.pack(">HHHH", 1, 7, 1240, 0) + bytes(1232))) +
        r(dao(n4, n4, root, 2, lifetime=0), 50))
    hop = ipv6(v6("fd00::1"), root, 43,
               srh(root, [v6("fd00::5"), v6("fd00::6")]) + struct.pack(">HHHH", 1, 7, 8, 0))
    s["srh-through-us"] = bytes([1]) + r(hop) + r(hop[:7] + b"\x01" + hop[8:])
    inner = ipv6(out, root, 58, icmp6(out, root, 128, 0, 0x00020002, b"x"))
    s["ipv6-in-ipv6"] = bytes([0]) + r(ipv6(v6("fd00::1"), root, 41, inner))
    rpi = bytes([58, 0, 0x63, 4, 0x80, 30, 2, 0])
    s["rpi-forward"] = bytes([2]) + r(ipv6(v6("fd00::7"), v6("fd00::1"), 0,
                                           rpi + icmp6(v6("fd00::7"), v6("fd00::1"), 128, 0, 1,
                                                       b"")))

    def dio(src, rank):
        # storing mode (MOP 2), grounded; a DODAG Configuration option (OF0,
        # MinHopRankIncrease 256) and the prefix fd00::/64 (A)
        conf = bytes([4, 14, 0, 20, 3, 10]) + struct.pack(">HHHBBH", 0, 256, 0, 0, 30, 60)
        pio = bytes([8, 30, 64, 0x40]) + struct.pack(">III", 3600, 1800, 0) + v6("fd00::")
        body = bytes([0x90, 1, 0, 0]) + v6("fd00::1") + conf + pio
        dst = v6("ff02::1a")
        return ipv6(src, dst, 58, icmp6(src, dst, 155, 1, (0 << 24) | (1 << 16) | rank, body),
                    hlim=255)

    # joins under fe80::a, sends it a DAO, then a better parent appears:
    # a No-Path DAO to the one it left (RFC 6550 9.8)
    s["storing-parent-switch"] = bytes([2]) + (
        r(dio(v6("fe80::a"), 768)) + r(b"", 30) + r(dio(v6("fe80::a"), 768), 30) +
        r(dio(v6("fe80::b"), 256), 50) + r(b"", 30))
    return s

def main():
    eth_files, raw_files = {}, {}
    for name, items in ip_seeds(OUR_LL_ETH).items():
        eth_files[name] = eth_wrap(name, norm(items))
    for name, items in ip_seeds(OUR_LL_RAW).items():
        raw_files[name] = raw_wrap(norm(items))
    for name, data in eth_only_seeds().items():
        eth_files[name] = data
    for name, items in regress_seeds_ip().items():
        eth_files[name] = eth_wrap(name, norm(items))
        raw_files[name] = raw_wrap(norm(items))
    n = write_dir("fuzz_eth_input", eth_files)
    n += write_dir("fuzz_rawip_input", raw_files)
    n += write_dir("fuzz_wire", wire_seeds())
    n += write_dir("fuzz_tcp", dict(tcp_seeds(), **regress_seeds_tcp()))
    n += write_dir("fuzz_tcp_peer", dict(tcp_peer_seeds(), **regress_seeds_tcp_peer()))
    n += write_dir("fuzz_mac_input", mac_seeds())
    n += write_dir("fuzz_lowpan_input", lowpan_seeds())
    n += write_dir("fuzz_relay_input", relay_seeds())
    n += write_dir("fuzz_lowpan_fwd", fwd_seeds())
    n += write_dir("fuzz_slip", slip_seeds())
    n += write_dir("fuzz_zep", zep_seeds())
    n += write_dir("fuzz_loader", loader_seeds())
    n += write_dir("fuzz_sim_json", json_seeds())
    n += write_dir("fuzz_rpl_stack", rpl_stack_seeds())
    print("wrote %d corpus files under %s" % (n, os.path.relpath(CORPUS)), file=sys.stderr)

if __name__ == "__main__":
    main()
