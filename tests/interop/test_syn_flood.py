"""A SYN flood from invented on-link sources (issue 12, item 10): during a
bounded flood (tests/interop/onlink_flood.py: 1,000 SYN/s to port 80 over both
families for 6 s, from 192.0.2.3-254 and random fd00::/64 sources), an
established download from moteip-host's HTTP app completes intact and new
connections from Linux succeed. Before the neighbor cache limits every
SYN-ACK to a spoofed source held a packet buffer while its resolution ran,
and the real peer's entry was evicted: the download stalled and new
connections failed. (Without SYN cookies, a real handshake whose half-open
entry a spoofed SYN replaced is reset: at most two such failures pass.)
bench/syn-flood measures the same at 3,000 SYN/s for
60 s (docs/BENCHMARKS.md)."""
from __future__ import annotations

import subprocess
import time

from flood_util import Flood
from moteip_netns import LINUX_V4, LINUX_V6, STACK_V4, STACK_V6
from tcp_util import HTTP, SERVICE_ARGS, body_sha256, curl_args, dump, file_sha256

MB = 1 << 20


def test_download_and_new_connections_survive_syn_flood(make_host, tmp_path):
    host = make_host(SERVICE_ARGS)
    n = 160 * MB
    body = tmp_path / "body"
    # established before the flood starts, and paced to last through it
    curl = subprocess.Popen(["ip", "netns", "exec", host.ns.name,
                             *curl_args(STACK_V4, f"/bytes/{n}", str(body), 50),
                             "--limit-rate", "25M"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    flood = Flood(host, "syn", [STACK_V4, STACK_V6], rate=1000, duration=6, count=6000,
                  port=HTTP, exclude=[LINUX_V4, LINUX_V6])
    results = []
    try:
        assert curl.poll() is None, "the download ended before the flood began"
        time.sleep(0.5)
        for k in range(12):
            addr = STACK_V4 if k % 2 == 0 else STACK_V6
            out = tmp_path / f"small{k}"
            p = host.ns.cmd(curl_args(addr, "/bytes/1000", str(out), 5), check=False,
                            timeout=10)
            ok = p.returncode == 0 and p.stdout == "200 1000" and \
                file_sha256(out) == body_sha256(1000)
            results.append((addr, ok, p.stdout, p.stderr.strip()))
            time.sleep(0.3)
        sent = flood.wait()
        c_out, c_err = curl.communicate(timeout=60)
    finally:
        flood.kill()
        if curl.poll() is None:
            curl.kill()
    stats = host.stop()
    failed = [r for r in results if not r[1]]
    tcp = stats["tcp"]
    if "cookies_sent" in tcp:
        assert not failed, f"new connections failed during the flood: {failed}\n{dump(stats)}"
    else:
        # Without SYN cookies a spoofed SYN may replace a real handshake's
        # half-open entry before its ACK arrives, which is then reset: the
        # only failure allowed, and rare (counted as drop_no_conn + rst_tx).
        assert len(failed) <= min(tcp.get("drop_no_conn", 0), 2), \
            f"new connections failed during the flood: {failed}\n{dump(stats)}"
    assert curl.returncode == 0 and c_out == f"200 {n}", \
        f"download during the flood: {c_out} {c_err}\n{dump(stats)}"
    assert file_sha256(body) == body_sha256(n)
    assert sent["sent"] >= 4000, sent
    c = stats["counters"]
    assert c["drop_neigh_rate_limited"] > 0 and c["drop_tx_no_pbuf"] == 0, \
        {k: v for k, v in c.items() if k.startswith("drop_") and v}
    # the flood reached TCP: the SYN cache was full (answered with cookies,
    # or entries replaced)
    assert tcp.get("cookies_sent", 0) + tcp.get("syn_cache_evicted", 0) > 0, dump(stats)
