"""`moteip reproduce udp-hc` (issue 26): registered, run once per point,
and the header sizes per hop are the codec's (docs/LOWPAN.md)."""
from __future__ import annotations

import json

from moteip import experiments


def test_registered():
    assert "udp-hc" in {e.name for e in experiments.all_experiments()}


def test_udp_hc_header_bytes_per_hop(cli, tmp_path):
    """On the 4-node chain every arm delivers every reading at BER 0, and
    the mean header per hop is exactly the codec's: of the 6 hops a round
    of readings takes (1 + 2 + 3), the 4 that do not join the datagram's
    own ends carry 2 bytes per far end (12 in all) and the 3 forwarded ones
    a hop limit of 63 or 62 inline (3), so the means are the 1-hop sizes +
    15 / 6 = 2.5 bytes."""
    r = cli("reproduce", "udp-hc", "--runs", "1", "--out", "hc")
    assert r.rc == 0, r
    assert "IPHC+NHC bytes/hop" in r.stdout
    s = json.loads((tmp_path / "hc" / "summary.json").read_text())
    at0 = {p["params"]["arm"]: p["metrics"] for p in s["points"] if p["params"]["medium.ber"] == 0}
    want = {"iphc-16bit-ports": 9, "iphc-4bit-ports": 6, "checksum-elided": 4, "shared-context": 3}
    for arm, one_hop in want.items():
        assert at0[arm]["hc_bytes"]["mean"] == one_hop + 2.5, (arm, at0[arm]["hc_bytes"])
        assert at0[arm]["delivery"]["mean"] == 1, arm
        assert at0[arm]["refused"]["mean"] == 0, arm
    assert (at0["shared-context"]["bytes_per_reading"]["mean"]
            < at0["iphc-4bit-ports"]["bytes_per_reading"]["mean"])
