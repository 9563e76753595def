#!/usr/bin/env python3
"""tests/interop/onlink_flood.py -- a bounded flood from invented on-link sources.

Sends TCP SYNs, ICMP echo requests or bogus first fragments to a moteip
node from source addresses nobody owns, on the same link, each in an
Ethernet frame from an invented MAC: the node cannot resolve them, so every
reply starts an ARP / Neighbor Discovery resolution. This is the attack of
issue 12 (items 9 and 10) and, with --kind frag, of issue 24 on IP
reassembly (the first 256 bytes of a fragmented echo request whose other
fragments never come); the interop tests (test_neigh_scan.py,
test_syn_flood.py, test_reass_flood.py, through flood_util.py),
bench/syn-flood and bench/reass-flood run it. Packets are built with
netpkt.py.

  ip netns exec NS python3 tests/interop/onlink_flood.py --iface mtap0 \\
      --dst-mac 02:00:00:00:00:02 --dst 192.0.2.2 --dst fd00::2 \\
      --kind syn --port 80 --rate 3000 --duration 60

Sources: hosts 3..254 of the destination's /24 (IPv4) and random interface
identifiers in its /64 (IPv6), skipping the destination and every --exclude
(the real peer). With several --dst the packets alternate between them.

Safety (hard limits, checked before anything is sent):
  - runs only inside a named network namespace (`ip netns add`: the
    test's or the benchmark's own), never the initial one, on the
    interface named;
  - every address must lie in 192.0.2.0/24 or fd00::/8;
  - stops by itself: --duration at most 120 s, --count at most 2,000,000,
    --rate at most 20,000 packets/s.
Prints one JSON object: {"sent", "elapsed_s", "rate", "kind"}.
Exit status: 0 ok, 2 usage or a safety check refused.
"""
from __future__ import annotations

import argparse
import ipaddress
import json
import os
import random
import socket
import struct
import sys
import time

import netpkt as P

MAX_DURATION_S = 120.0
MAX_COUNT = 2_000_000
MAX_RATE = 20_000
SAFE_NETS = [ipaddress.ip_network("192.0.2.0/24"), ipaddress.ip_network("fd00::/8")]

class Refused(Exception):
    pass


def in_own_netns() -> bool:
    """True when this process runs in a named network namespace (one that
    `ip netns add` made, as the tests and benchmarks do), never the
    initial one."""
    me = os.stat("/proc/self/ns/net").st_ino
    try:
        if os.stat("/proc/1/ns/net").st_ino == me:
            return False
    except OSError:
        pass          # not readable from inside `ip netns exec`: the names decide
    try:
        names = os.listdir("/run/netns")
    except OSError:
        return False
    for name in names:
        try:
            if os.stat(os.path.join("/run/netns", name)).st_ino == me:
                return True
        except OSError:
            continue
    return False


def safe(addr) -> bool:
    return any(addr.version == n.version and addr in n for n in SAFE_NETS)


class Sources:
    """Invented on-link sources for one destination."""

    def __init__(self, dst, exclude: set, rng: random.Random) -> None:
        self.dst = dst
        self.rng = rng
        if dst.version == 4:
            net = ipaddress.ip_network(f"{dst}/24", strict=False)
            self.pool = [a for a in (net.network_address + k for k in range(3, 255))
                         if a != dst and a not in exclude]
            if not self.pool:
                raise Refused(f"no source left in {net}")
        else:
            self.net = ipaddress.ip_network(f"{dst}/64", strict=False)
            self.exclude = exclude | {dst}

    def pick(self):
        if self.dst.version == 4:
            return self.rng.choice(self.pool)
        while True:
            iid = self.rng.getrandbits(64)
            a = self.net.network_address + iid
            if iid > 2 and a not in self.exclude:
                return a


def invented_mac(rng: random.Random) -> str:
    b = bytearray(rng.getrandbits(48).to_bytes(6, "big"))
    b[0] = (b[0] & 0xFC) | 0x02          # locally administered, unicast
    return ":".join(f"{x:02x}" for x in b)


# MSS 1460, SACK permitted, timestamps, window scale 7: what Linux offers
SYN_OPTS = (struct.pack("!BBH", 2, 4, 1460) + struct.pack("!BB", 4, 2) +
            struct.pack("!BBII", 8, 10, 1, 0) + struct.pack("!BBBB", 1, 3, 3, 7))


def build_frame(kind: str, dst_mac: str, dst, sources: Sources, port: int,
                rng: random.Random, n: int) -> bytes:
    src, d = str(sources.pick()), str(dst)
    v4 = dst.version == 4
    if kind == "frag":
        # the first fragment of an echo request announced as 1,256 bytes
        data = P.pattern(1248, n & 0xFF)
        if v4:
            l4 = P.icmp4_echo(0x4F46, n & 0xFFFF, data)[:256]
            return P.eth(dst_mac, invented_mac(rng), P.ETH_IPV4,
                         P.ipv4(src, d, P.PROTO_ICMP, l4, ident=rng.getrandbits(16), mf=True))
        l4 = P.icmp6_echo(src, d, 0x4F46, n & 0xFFFF, data)[:256]
        return P.eth(dst_mac, invented_mac(rng), P.ETH_IPV6,
                     P.ipv6(src, d, P.NH_FRAGMENT,
                            P.frag6(P.PROTO_ICMPV6, 0, True, rng.getrandbits(32), l4)))
    if kind == "syn":
        ln = 20 + len(SYN_OPTS)
        pseudo = P.pseudo4(src, d, P.PROTO_TCP, ln) if v4 else P.pseudo6(src, d, P.PROTO_TCP, ln)
        l4 = P.tcp(rng.randrange(1024, 65536), port, rng.getrandbits(32), 0, P.TCP_SYN, pseudo,
                   opts=SYN_OPTS)
        proto = P.PROTO_TCP
    elif v4:
        l4, proto = P.icmp4_echo(0x4F46, n & 0xFFFF, b"onlink-flood-scan"), P.PROTO_ICMP
    else:
        l4 = P.icmp6_echo(src, d, 0x4F46, n & 0xFFFF, b"onlink-flood-scan")
        proto = P.PROTO_ICMPV6
    if v4:
        return P.eth(dst_mac, invented_mac(rng), P.ETH_IPV4,
                     P.ipv4(src, d, proto, l4, ident=rng.getrandbits(16)))
    return P.eth(dst_mac, invented_mac(rng), P.ETH_IPV6, P.ipv6(src, d, proto, l4))


def flood(iface: str, dst_mac: str, dsts: list[str], kind: str, rate: float,
          duration: float, count: int, port: int = 80, exclude: list[str] | None = None,
          seed: int | None = None) -> dict:
    """Sends at `rate` packets/s until `duration` s or `count` packets,
    whichever comes first. Raises Refused when a safety check fails."""
    if not in_own_netns():
        raise Refused("refusing to run in the initial network namespace: "
                      "run it inside the test's namespace (ip netns exec NAME ...)")
    if kind not in ("syn", "echo", "frag"):
        raise Refused(f"unknown kind {kind!r}")
    if not (0 < rate <= MAX_RATE) or not (0 < duration <= MAX_DURATION_S) or \
            not (0 < count <= MAX_COUNT):
        raise Refused(f"bounds: 0 < rate <= {MAX_RATE}, 0 < duration <= {MAX_DURATION_S}, "
                      f"0 < count <= {MAX_COUNT}")
    addrs = [ipaddress.ip_address(d) for d in dsts]
    excl = {ipaddress.ip_address(e) for e in (exclude or [])}
    for a in addrs + list(excl):
        if not safe(a):
            raise Refused(f"refusing {a}: outside 192.0.2.0/24 and fd00::/8")
    if not addrs:
        raise Refused("no --dst")
    try:
        mac = P.mac_bytes(dst_mac)
    except ValueError:
        mac = b""
    if len(mac) != 6 or mac[0] & 1:
        raise Refused(f"--dst-mac {dst_mac}: not a unicast MAC")
    rng = random.Random(seed)
    sources = [Sources(a, excl, rng) for a in addrs]
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    try:
        sock.bind((iface, 0))
        sent = 0
        start = time.monotonic()
        end = start + duration
        while sent < count:
            now = time.monotonic()
            if now >= end:
                break
            due = min(count, int((now - start) * rate) + 1)
            while sent < due:
                k = sent % len(addrs)
                frame = build_frame(kind, dst_mac, addrs[k], sources[k], port, rng, sent)
                try:
                    sock.send(frame)
                except BlockingIOError:
                    pass                    # the TAP queue is full: the packet is lost
                except OSError as e:
                    if e.errno not in (105, 11):   # ENOBUFS, EAGAIN
                        raise
                sent += 1
            if sent < count:
                wait = (sent + 1) / rate - (time.monotonic() - start)
                left = end - time.monotonic()
                if wait > 0 and left > 0:
                    time.sleep(min(wait, left))
        elapsed = time.monotonic() - start
    finally:
        sock.close()
    return {"kind": kind, "sent": sent, "elapsed_s": round(elapsed, 3),
            "rate": round(sent / elapsed, 1) if elapsed > 0 else 0.0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iface", required=True, help="interface to send on (the TAP)")
    ap.add_argument("--dst-mac", required=True, help="the node's MAC")
    ap.add_argument("--dst", action="append", required=True,
                    help="the node's address (repeat for both families)")
    ap.add_argument("--kind", choices=["syn", "echo", "frag"], default="syn")
    ap.add_argument("--port", type=int, default=80, help="TCP port for --kind syn")
    ap.add_argument("--rate", type=float, default=1000.0, help="packets per second")
    ap.add_argument("--duration", type=float, default=5.0, help="seconds (at most 120)")
    ap.add_argument("--count", type=int, default=MAX_COUNT, help="packets at most")
    ap.add_argument("--exclude", action="append", default=[],
                    help="an address never used as a source (the real peer)")
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args(argv)
    try:
        res = flood(a.iface, a.dst_mac, a.dst, a.kind, a.rate, a.duration, a.count, a.port,
                    a.exclude, a.seed)
    except Refused as e:
        print(f"onlink_flood: {e}", file=sys.stderr)
        return 2
    print(json.dumps(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
