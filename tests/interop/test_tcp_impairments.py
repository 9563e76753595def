"""moteip's TCP over an impaired link, in both directions so data, ACKs and
handshakes all suffer: netem on the Linux side of the TAP (egress of mtap0,
and its ingress through an ifb device) where the kernel has sch_netem, else
moteip-host's own --impair, which does the same in userspace
(tcp_util.start_impaired_host). Downloads come from the
HTTP app with curl, uploads go to the discard app with nc; every byte is
checked (SHA-256 of the body, CRC-32 of the upload). Sizes are chosen so
each test ends well within a minute; every command has a timeout."""
from __future__ import annotations

import subprocess
import time

import pytest

from moteip_netns import STACK_V4, STACK_V6, MoteipHost
from tcp_util import (DISCARD, SERVICE_ARGS, body_pattern, body_sha256, crc32, curl_args,
                      dump, file_sha256, start_impaired_host)

MB = 1 << 20


def _download(host: MoteipHost, tmp_path, addr: str, n: int, max_time: float = 50) -> dict:
    out = tmp_path / "body"
    t0 = time.monotonic()
    p = host.ns.cmd(curl_args(addr, f"/bytes/{n}", str(out), max_time), check=False,
                    timeout=max_time + 10)
    took = time.monotonic() - t0
    stats = host.stop()
    assert p.returncode == 0 and p.stdout == f"200 {n}", \
        f"curl rc {p.returncode} after {took:.1f}s: {p.stdout} {p.stderr}\n{dump(stats)}"
    assert file_sha256(out) == body_sha256(n), "body differs from the pattern"
    return stats


IMPAIRMENTS = [
    # id, impairment (tcp_util.netem_args), family, bytes
    ("loss-1pct", {"loss": 1}, "v4", 10 * MB),
    ("loss-5pct", {"loss": 5}, "v6", 2 * MB),
    ("loss-10pct", {"loss": 10}, "v4", 512 * 1024),
    ("reorder", {"delay": 10, "reorder": 25}, "v6", 2 * MB),
    ("duplicate-5pct", {"dup": 5}, "v4", 10 * MB),
    ("delay-50ms", {"delay": 50}, "v6", 512 * 1024),
]


@pytest.mark.parametrize("spec,fam,n", [x[1:] for x in IMPAIRMENTS],
                         ids=[x[0] for x in IMPAIRMENTS])
def test_download_survives(make_host, tmp_path, spec, fam, n):
    host = start_impaired_host(make_host, spec, SERVICE_ARGS)
    # 10 % loss each way makes the time heavy-tailed: a lost retransmission
    # backs the RTO off, and a second one doubles it again (a tail loss
    # probe does not help there: no RACK, docs/TCP.md). 1 MB runs mostly took 13-30 s before limited transmit,
    # but session 8's fresh clone had 728 KB after 50 s and session 9's
    # 900 KB after 100 s, every byte right. The test is that the transfer
    # survives, not its speed: half a megabyte, and 150 s for the tail
    stats = _download(host, tmp_path, STACK_V4 if fam == "v4" else STACK_V6, n,
                      max_time=150 if spec.get("loss", 0) >= 10 else 50)
    tcp = stats["tcp"]
    # how the losses were repaired (docs/TCP.md quotes these; `pytest -s` shows them)
    print(f"{spec}: timeouts {tcp['timeouts']}, fast_rexmits {tcp['fast_rexmits']}, "
          f"sack_rexmits {tcp['sack_rexmits']}, rexmits {tcp['rexmits']}, "
          f"tlp_probes {tcp.get('tlp_probes')}, tlp_losses {tcp.get('tlp_losses')}, "
          f"early_rexmits {tcp.get('early_rexmits')}")
    if "loss" in spec:
        # Losses were repaired by retransmission, and with SACK (full
        # profile) not only by timeouts.
        assert tcp["rexmits"] > 0, dump(stats)
        assert tcp["fast_rexmits"] + tcp["sack_rexmits"] > 0, dump(stats)
    if "dup" in spec and host.impaired_by != "netem":
        # Duplicated ACKs and requests reached the stack.
        assert stats["impair"]["rx_duplicated"] > 0, dump(stats)


def test_short_downloads_probe_their_tails(make_host, tmp_path):
    """RFC 8985's tail loss probe against Linux: 40 downloads of 6 KB (five
    segments and the FIN) over netem with 10 ms of delay and 5 % loss each
    way, so that tails are lost (the last segments, or the ACKs of them).
    Every body is checked; the stack sent probes (a tail whose ACK is
    missing has about one chance in seven per download) and Linux's answers
    to them, SACKs and D-SACKs, took each transfer on to its end."""
    host = start_impaired_host(make_host, {"loss": 5, "delay": 10}, SERVICE_ARGS)
    n = 6000
    for i in range(40):
        out = tmp_path / f"body{i}"
        p = host.ns.cmd(curl_args(STACK_V6, f"/bytes/{n}", str(out), 30), check=False,
                        timeout=40)
        assert p.returncode == 0 and p.stdout == f"200 {n}", \
            f"download {i}: curl rc {p.returncode}: {p.stdout} {p.stderr}"
        assert file_sha256(out) == body_sha256(n), f"download {i}: body differs"
    stats = host.stop()
    tcp = stats["tcp"]
    print(f"40 x {n} B: timeouts {tcp['timeouts']}, tlp_probes {tcp['tlp_probes']}, "
          f"tlp_losses {tcp['tlp_losses']}, early_rexmits {tcp['early_rexmits']}, "
          f"fast_rexmits {tcp['fast_rexmits']}, rexmits {tcp['rexmits']}")
    assert tcp["tlp_probes"] > 0, dump(stats)


@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_upload_to_discard_under_loss(make_host, tmp_path, fam):
    """Linux sends, moteip receives: out-of-order segments are kept and
    SACKed by moteip, every byte arrives (CRC-32)."""
    n = 2 * MB
    data = body_pattern(n, 777)
    src = tmp_path / "upload"
    src.write_bytes(data)
    tcp_host = start_impaired_host(make_host, {"loss": 5}, SERVICE_ARGS)
    addr = STACK_V4 if fam == "v4" else STACK_V6
    with open(src, "rb") as f:
        p = subprocess.run(["ip", "netns", "exec", tcp_host.ns.name, "nc", "-N", "-w", "40",
                            addr, str(DISCARD)], stdin=f, capture_output=True, timeout=50)
    stats = tcp_host.stop()
    assert p.returncode == 0, f"nc: {p.stderr.decode()}\n{dump(stats)}"
    d = stats["apps"]["tcp_discard"]
    assert d["last_bytes"] == n, dump(stats)
    assert d["last_crc32"] == crc32(data)
    assert stats["tcp"]["ooo_segs"] > 0, dump(stats)


def _linux_counter(host: MoteipHost, name: str) -> int:
    """A TCP counter of the namespace's Linux stack (nstat, absolute, the
    history file left alone)."""
    p = host.ns.cmd(["nstat", "-asz", name], timeout=10)
    for line in p.stdout.splitlines():
        fields = line.split()
        if fields and fields[0] == name:
            return int(fields[1])
    raise AssertionError(f"nstat has no {name}: {p.stdout!r}")


def test_duplicated_upload_draws_dsacks_that_linux_counts(make_host, tmp_path):
    """Linux sends, the link duplicates 5 % of the packets: moteip answers
    each duplicate data segment with a D-SACK block (RFC 2883), which the
    Linux sender counts (TcpExtTCPDSACKRecv), and every byte arrives."""
    n = 512 * 1024
    data = body_pattern(n, 2883)
    src = tmp_path / "upload"
    src.write_bytes(data)
    host = start_impaired_host(make_host, {"dup": 5}, SERVICE_ARGS)
    before = _linux_counter(host, "TcpExtTCPDSACKRecv")
    with open(src, "rb") as f:
        p = subprocess.run(["ip", "netns", "exec", host.ns.name, "nc", "-N", "-w", "40",
                            STACK_V4, str(DISCARD)], stdin=f, capture_output=True, timeout=50)
    got = _linux_counter(host, "TcpExtTCPDSACKRecv") - before
    stats = host.stop()
    assert p.returncode == 0, f"nc: {p.stderr.decode()}\n{dump(stats)}"
    d = stats["apps"]["tcp_discard"]
    assert (d["last_bytes"], d["last_crc32"]) == (n, crc32(data)), dump(stats)
    dups = stats["tcp"]["drop_out_of_window"] + stats["tcp"]["dup_segs"]
    assert dups > 0, dump(stats)
    print(f"dsack: linux {got}, duplicates {dups}")
    assert got > 0, f"Linux counted no D-SACK for {dups} duplicates\n{dump(stats)}"
