"""A scan of echo requests from invented on-link sources (issue 12, item 9)
changes nothing for a resolved peer. Before the neighbor cache limits,
16 such requests evicted the peer's entry and filled the packet pool with
replies waiting for resolutions that never finish: the node answered
nothing for seconds. Here Linux (the real peer, 192.0.2.1 / fd00::1) pings
both families fast and downloads over TCP while tests/interop/onlink_flood.py sends
echo requests from 192.0.2.3-254 and random fd00::/64 sources, each frame
from an invented MAC. Every ping must be answered and the download arrive
intact. Bounded: 1,600 scan packets in at most 5 s, inside the test's
namespace."""
from __future__ import annotations

import re
import subprocess

from flood_util import Flood
from moteip_netns import LINUX_V4, LINUX_V6, STACK_V4, STACK_V6, counters_delta
from tcp_util import SERVICE_ARGS, body_sha256, curl_args, dump, file_sha256

PINGS = 250


def _ping(host, addr: str) -> subprocess.Popen:
    args = ["ping", "-6" if ":" in addr else "-4", "-n", "-c", str(PINGS), "-i", "0.01",
            "-W", "1", addr]
    return subprocess.Popen(["ip", "netns", "exec", host.ns.name, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _received(p: subprocess.Popen) -> tuple[int, str]:
    out, err = p.communicate(timeout=30)
    m = re.search(r"(\d+) received", out)
    return (int(m.group(1)) if m else -1), out[-300:] + err


def test_scan_from_invented_sources_costs_the_real_peer_nothing(make_host, tmp_path):
    host = make_host(SERVICE_ARGS)
    n = 20 << 20
    body = tmp_path / "body"
    flood = Flood(host, "echo", [STACK_V4, STACK_V6], rate=400, duration=5, count=1600,
                  exclude=[LINUX_V4, LINUX_V6])
    try:
        pings = [_ping(host, STACK_V4), _ping(host, STACK_V6)]
        curl = subprocess.Popen(["ip", "netns", "exec", host.ns.name,
                                 *curl_args(STACK_V4, f"/bytes/{n}", str(body), 30)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        got = [_received(p) for p in pings]
        c_out, c_err = curl.communicate(timeout=40)
        sent = flood.wait()
    finally:
        flood.kill()
    stats = host.stop()
    c = stats["counters"]
    scan_seen = c.get("rx_frames", 0)
    for (k, out), addr in zip(got, (STACK_V4, STACK_V6)):
        assert k == PINGS, f"ping {addr}: {k} of {PINGS} answered during the scan\n{out}\n" \
                           f"{counters_delta(c)}"
    assert curl.returncode == 0 and c_out == f"200 {n}", f"curl: {c_out} {c_err}\n{dump(stats)}"
    assert file_sha256(body) == body_sha256(n)
    assert sent["sent"] >= 1000, sent
    # the scan reached the stack and was refused by the neighbor limits
    assert scan_seen > sent["sent"]
    assert c["drop_neigh_rate_limited"] > 0, counters_delta(c)
    assert c["drop_tx_no_pbuf"] == 0, counters_delta(c)
