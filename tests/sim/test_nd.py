"""link.addressing = "6lowpan-nd": nodes take their addresses from the network.

Node 0 is the 6LoWPAN-ND router (6LBR); four hosts around it solicit, form
their addresses by SLAAC from the RA's prefix, learn context 0 from its 6CO
and register their addresses. Checked: UDP both ways arrives; tshark decodes
every RS, RA, NS and NA (with the ARO) and finds nothing malformed; the data
frames carry both addresses compressed by the learnt context (SAC = DAC = 1),
exactly as short as with the context configured statically (without a
context each would carry its 16-byte address inline: test_nd6lo.c measures
31 bytes more per frame).
"""
from __future__ import annotations

import subprocess

from simrun import run_sim

SCENARIO = {
    "name": "nd-star", "seed": 3, "duration_s": 30,
    "topology": {"type": "positions",
                 "positions": [[0, 0], [20, 0], [0, 20], [-20, 0], [0, -20]]},
    "mac": {"type": "csma_ca"},
    "link": {"mode": "iphc", "addressing": "6lowpan-nd"},
    "flows": [{"type": "udp", "src": 2, "dst": 0, "start_s": 5, "count": 5, "interval_s": 2},
              {"type": "udp", "src": 0, "dst": 3, "start_s": 5, "count": 5, "interval_s": 2}],
}


def tshark(pcap, *args: str) -> list[list[str]]:
    out = subprocess.run(["tshark", "-n", "-r", str(pcap), *args], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def run(tmp_path, addressing: str):
    sc = dict(SCENARIO, link={"mode": "iphc", "addressing": addressing})
    d = tmp_path / addressing
    d.mkdir()
    pcap = d / "run.pcap"
    r = run_sim(sc, d, "--pcap", str(pcap))
    assert r.rc == 0, r.stderr
    return r.result, pcap


def test_hosts_register_and_traffic_uses_the_context(tmp_path):
    res, pcap = run(tmp_path, "6lowpan-nd")
    assert [(f["sent"], f["received"]) for f in res["flows"]] == [(5, 5), (5, 5)]
    nd = tshark(pcap, "-Y", "icmpv6.type >= 133 && icmpv6.type <= 136", "-T", "fields",
                "-e", "icmpv6.type", "-e", "icmpv6.opt.aro.status")
    types = [int(t[0]) for t in nd]
    # each of the four hosts solicited, was answered and registered
    assert types.count(133) >= 4 and types.count(134) >= 4
    assert types.count(135) >= 4 and types.count(136) >= 4
    assert all(t[1] == "0" for t in nd if t[0] == "136")
    bad = tshark(pcap, "-Y", "_ws.malformed || _ws.expert.severity == error", "-T", "fields",
                 "-e", "frame.number")
    assert bad == []
    udp = tshark(pcap, "-Y", "udp", "-T", "fields", "-e", "frame.len",
                 "-e", "6lowpan.iphc.sac", "-e", "6lowpan.iphc.dac")
    assert len(udp) >= 10
    assert all(u[1] == "1" and u[2] == "1" for u in udp), udp
    _, pcap_static = run(tmp_path, "static")
    udp_static = tshark(pcap_static, "-Y", "udp", "-T", "fields", "-e", "frame.len")
    assert sorted({u[0] for u in udp}) == sorted({u[0] for u in udp_static})


def test_addressing_needs_iphc(tmp_path):
    sc = dict(SCENARIO, link={"mode": "raw", "addressing": "6lowpan-nd"})
    r = run_sim(sc, tmp_path)
    assert r.rc != 0
    assert "addressing" in r.stderr


LEAF = {
    "name": "nd-leaf", "seed": 3, "duration_s": 4000,
    "topology": {"type": "positions", "positions": [[0, 0], [20, 0], [0, 20]]},
    "mac": {"type": "csma_ca", "rdc": {"type": "parent"},
            "nodes": [{"ids": [2], "rdc": {"type": "leaf", "parent": 0, "poll_ms": 5000}}]},
    "link": {"mode": "iphc", "addressing": "6lowpan-nd"},
    "flows": [{"type": "udp", "src": 2, "dst": 0, "start_s": 30, "interval_s": 300},
              {"type": "udp", "src": 0, "dst": 2, "start_s": 30, "interval_s": 300}],
}


def test_sleepy_leaf_registers_through_its_parent(tmp_path):
    """A leaf polling its parent (the router) every 5 s registers at once:
    while its RS or NS waits for an answer it polls fast (mip_stack_awaits_reply),
    so no NS goes unanswered (before that, each RA and NA waited for the next
    5 s poll and three NSs 1 s apart timed out, over and over). The
    registration lifetime (30 min) drives its renewals: at 3/4, twice in
    4000 s."""
    r = run_sim(LEAF, tmp_path)
    assert r.rc == 0, r.stderr
    res = r.result
    assert all(f["sent"] == f["received"] and f["sent"] >= 13 for f in res["flows"])
    st = res["node_stats"][2]["stack"]
    assert st["nd6lo_reg_ok"] == 3
    assert st["nd6lo_reg_tx"] == 3
    assert st.get("nd6lo_reg_timeout", 0) == 0
    assert res["node_stats"][2]["duty_cycle"] < 0.01
