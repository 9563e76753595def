"""`moteip reproduce tcp-hc-*` (issue 26): registered, and across three
ContikiMAC hops one run per point shows what TCP header compression is for:
every transfer completes, the IPv6+TCP header per frame is at least 10
bytes shorter, and no hop drops a segment for a wrong context at BER 0."""
from __future__ import annotations

import json

from moteip import experiments


def test_registered():
    names = {e.name for e in experiments.all_experiments()}
    assert {"tcp-hc-chain", "tcp-hc-hops", "tcp-hc-dutycycled"} <= names


def test_tcp_hc_dutycycled_shorter_headers(cli, tmp_path):
    r = cli("reproduce", "tcp-hc-dutycycled", "--runs", "1", "--out", "thc")
    assert r.rc == 0, r
    s = json.loads((tmp_path / "thc" / "summary.json").read_text())
    m = {(p["params"]["arm"], p["params"]["medium.ber"]): p["metrics"] for p in s["points"]}
    for ber in (0, 1e-4):
        off, on = m[("iphc", ber)], m[("tcp-hc", ber)]
        assert off["complete"]["mean"] == 1 and on["complete"]["mean"] == 1, ber
        assert on["hdr_bytes"]["mean"] <= off["hdr_bytes"]["mean"] - 10, ber
        assert off["full"]["mean"] == 0 and on["full"]["mean"] > 0, ber
    assert m[("tcp-hc", 0)]["mismatch"]["mean"] == 0
