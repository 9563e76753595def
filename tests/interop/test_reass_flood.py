"""Forged first fragments from invented on-link sources (issue 24) leave a
real peer's fragmented datagrams alone. Before, three of them every 1.5 s
held every reassembly slot (each protected for MIP_REASS_PROTECT_MS, 2 s)
and Linux's fragmented pings went unanswered, 0 of 14. Here
tests/interop/onlink_flood.py sends 10 first fragments a second (the first
256 bytes of an echo request whose other fragments never come) to both
addresses from 192.0.2.3-254 and random fd00::/64 sources, while Linux
pings both families with 3,000-byte payloads (three fragments each way)
every 0.5 s: at least 90 % must be answered (the target of
docs/BENCHMARKS.md, bench/reass-flood). Bounded: 120 forged fragments in
at most 12 s, inside the test's namespace."""
from __future__ import annotations

import re
import subprocess
import time

from flood_util import Flood
from moteip_netns import LINUX_V4, LINUX_V6, STACK_V4, STACK_V6, counters_delta

PINGS = 20
SIZE = 3000


def _ping(host, addr: str) -> subprocess.Popen:
    args = ["ping", "-6" if ":" in addr else "-4", "-n", "-c", str(PINGS), "-s", str(SIZE),
            "-i", "0.5", "-W", "1", addr]
    return subprocess.Popen(["ip", "netns", "exec", host.ns.name, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _received(p: subprocess.Popen) -> tuple[int, str]:
    out, err = p.communicate(timeout=40)
    m = re.search(r"(\d+) received", out)
    return (int(m.group(1)) if m else -1), out[-300:] + err


def test_forged_first_fragments_leave_real_datagrams_alone(make_host):
    host = make_host()
    flood = Flood(host, "frag", [STACK_V4, STACK_V6], rate=10, duration=12, count=120,
                  exclude=[LINUX_V4, LINUX_V6])
    try:
        # the families a quarter period apart: two datagrams that begin in the
        # same instant during a flood evict each other (reass.h, "What remains")
        pings = [_ping(host, STACK_V4)]
        time.sleep(0.25)
        pings.append(_ping(host, STACK_V6))
        got = [_received(p) for p in pings]
        sent = flood.wait()
    finally:
        flood.kill()
    c = host.stop()["counters"]
    for (k, out), addr in zip(got, (STACK_V4, STACK_V6)):
        assert k >= PINGS * 9 // 10, \
            f"ping -s {SIZE} {addr}: {k} of {PINGS} answered during the flood\n{out}\n" \
            f"{counters_delta(c)}"
    assert sent["sent"] >= 100, sent
    # the forged fragments reached reassembly and gave their slots up
    assert c["drop_frag_evicted"] > 0, counters_delta(c)
    assert c["frag_reassembled"] >= 2 * PINGS * 9 // 10, counters_delta(c)
