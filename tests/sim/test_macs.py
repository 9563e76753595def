"""X-MAC, LPP, sleepy leaves and the adaptive interval in the simulator.

1. the idle duty cycle of each MAC against its formula (docs/MAC.md), fixed
   and adaptive intervals;
2. TCP over 1-6 lossy hops delivers every byte over each MAC (a leaf as the
   last hop), with the adaptive interval too; the same seed the same bytes;
3. the leaf's polling policies: fast polls while TCP waits for an ACK or
   CoAP for a response (TCPlp s.9), a frame for a sleeping leaf waits at its
   parent;
4. their frames decode in Wireshark with default preferences (no malformed
   frame, no expert error);
5. a bad parameter exits 2 naming its key.

docs/SIMULATOR.md ("Duty cycling") has the numbers these runs give.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from simrun import run_ok, run_sim

US_PER_BYTE = 32
PHY_HDR = 6
TA, CCA = 192, 128
ACK_US = (PHY_HDR + 5) * US_PER_BYTE            # 352
CTL_US = (PHY_HDR + 13) * US_PER_BYTE           # strobe, probe: MHR 9 + 2 + FCS 2 = 608
DR_US = (PHY_HDR + 12) * US_PER_BYTE            # data request: MHR 9 + 1 + FCS 2 = 576
T = 125_000                                     # 8 Hz
XMAC_ON = 6250
LPP_TR, LPP_LISTEN = 192, 7812


def run_many(scenarios: list[dict], tmp_path, *args: str) -> list[dict]:
    def one(i_sc):
        i, sc = i_sc
        d = tmp_path / f"run{i}"
        d.mkdir()
        return run_ok(sc, d, *args)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, enumerate(scenarios)))


def leaf_nodes(leaf: int, parent: int, **params) -> list:
    return [{"ids": [parent], "rdc": {"type": "parent"}},
            {"ids": [leaf], "rdc": {"type": "leaf", "parent": parent, **params}}]


# --- 1. idle ---------------------------------------------------------------------------

IDLE = [
    # (rdc, seconds, duty cycle by the formula)
    ({"type": "xmac"}, 60, XMAC_ON / T),
    ({"type": "xmac", "check_rate_hz": 4}, 60, XMAC_ON / (2 * T)),
    ({"type": "xmac", "adapt_max_ms": 1000}, 120, XMAC_ON / 1_000_000),
    ({"type": "lpp"}, 60, (LPP_TR + TA + CTL_US + LPP_LISTEN) / T),
    ({"type": "lpp", "check_rate_hz": 4}, 60, (LPP_TR + TA + CTL_US + LPP_LISTEN) / (2 * T)),
    ({"type": "lpp", "adapt_max_ms": 1000}, 120, (LPP_TR + TA + CTL_US + LPP_LISTEN) / 1_000_000),
    ({"type": "contikimac", "adapt_max_ms": 1000}, 120, 2 * 192 / 1_000_000),
]


@pytest.mark.parametrize("rdc,seconds,expect", IDLE,
                         ids=[f"{r['type']}-{i}" for i, (r, _, _) in enumerate(IDLE)])
def test_idle_duty_cycle_matches_its_formula(tmp_path, rdc, seconds, expect):
    sc = {"name": "idle", "duration_s": seconds,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
          "medium": {"range_m": 12}, "mac": {"type": "csma_ca", "rdc": rdc}}
    r = run_ok(sc, tmp_path)
    for n in r["node_stats"]:
        assert n["rdc"] == rdc["type"]
        assert abs(n["duty_cycle"] - expect) <= 0.1 * expect, (n["duty_cycle"], expect)
        if rdc["type"] != "lpp":        # (a neighbour's probe may fall into a listen)
            assert n["rx_s"] == 0


@pytest.mark.parametrize("leaf,seconds,interval_s", [
    ({"poll_ms": 1000}, 60, 1.0),
    ({"poll_ms": 250}, 60, 0.25),
    # TCPlp Appendix C: 20 ms doubling to 5 s while nothing comes
    ({"poll_ms": 20, "adapt_max_ms": 5000}, 600, 5.0),
])
def test_idle_leaf_polls_at_its_formula(tmp_path, leaf, seconds, interval_s):
    """A data request under CSMA-CA, answered without the pending bit: the
    CCA, a turnaround, the request, the ACK's turnaround and the ACK."""
    sc = {"name": "idle-leaf", "duration_s": seconds,
          "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
          "medium": {"range_m": 12}, "mac": {"type": "csma_ca", "nodes": leaf_nodes(1, 0, **leaf)}}
    r = run_ok(sc, tmp_path)
    parent, node = r["node_stats"]
    assert parent["rdc"] == "parent" and parent["duty_cycle"] == 1
    assert node["rdc"] == "leaf"
    per_poll = CCA + TA + DR_US + TA + ACK_US                   # 1440 us
    expect = per_poll / (interval_s * 1e6)
    assert abs(node["duty_cycle"] - expect) <= 0.1 * expect, (node["duty_cycle"], expect)
    assert node["mac"]["rdc_polls"] == parent["mac"]["rdc_polls"]
    assert "rdc_polls_pending" not in node["mac"]


# --- 2. TCP over lossy hops ----------------------------------------------------------------

def tcp_chain(kind: str, hops: int, seed: int = 1, nbytes: int = 8000, **params) -> dict:
    n = hops + 1
    mac: dict = {"type": "csma_ca", "retry_delay_max_us": 125000}
    if kind == "leaf":
        mac["retry_delay_max_us"] = 40000
        mac["nodes"] = leaf_nodes(n - 1, n - 2, **(params or {"poll_ms": 20, "adapt_max_ms": 5000}))
    else:
        mac["rdc"] = {"type": kind, **params}
    return {"name": f"{kind}-tcp-{hops}", "seed": seed, "duration_s": 3000,
            "topology": {"type": "chain", "nodes": n, "spacing_m": 10},
            "medium": {"range_m": 10.5, "interference_range_m": 20.5, "ber": 1e-4},
            "mac": mac,
            "flows": [{"type": "tcp", "src": 0, "dst": "last", "bytes": nbytes, "mss": 88,
                       "rx_buffer": 304}]}


@pytest.mark.parametrize("kind", ["xmac", "lpp", "leaf"])
def test_tcp_byte_exact_over_1_to_6_lossy_hops(tmp_path, kind):
    results = run_many([tcp_chain(kind, h) for h in range(1, 7)], tmp_path)
    for h, r in enumerate(results, 1):
        f = r["flows"][0]
        assert f["complete"] and f["integrity_ok"], (kind, h, f)
        assert f["bytes_delivered"] == 8000 and f["error"] == "none"
        assert r["totals"]["frames_corrupted"] > 0      # the BER did bite
        rdcs = [n["rdc"] for n in r["node_stats"]]
        if kind == "leaf":
            assert rdcs[-1] == "leaf" and rdcs[-2] == "parent"
            assert r["node_stats"][-1]["duty_cycle"] < 0.9
        else:
            assert set(rdcs) == {kind}
            assert r["totals"]["duty_cycle_mean"] < 0.7


@pytest.mark.parametrize("kind", ["contikimac", "xmac", "lpp", "leaf"])
def test_tcp_over_adaptive_intervals(tmp_path, kind):
    """Every duty-cycled MAC takes the adaptive interval (issue 13 item 4)."""
    params = {"poll_ms": 20, "adapt_max_ms": 5000} if kind == "leaf" else {"adapt_max_ms": 1000}
    r = run_ok(tcp_chain(kind, 3, nbytes=4000, **params), tmp_path)
    f = r["flows"][0]
    assert f["complete"] and f["integrity_ok"], f


@pytest.mark.parametrize("kind", ["xmac", "lpp", "leaf"])
def test_same_seed_same_result(tmp_path, kind):
    a, b = run_many([tcp_chain(kind, 3, seed=5), tcp_chain(kind, 3, seed=5)], tmp_path)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    c = run_ok(tcp_chain(kind, 3, seed=6), tmp_path)
    assert c["events"] != a["events"]


# --- 3. the leaf's policies -----------------------------------------------------------------

def leaf_pair(src: int, dst: int, **leaf) -> dict:
    return {"name": "leaf", "seed": 2, "duration_s": 2000,
            "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
            "medium": {"range_m": 10.5, "interference_range_m": 20.5},
            "mac": {"type": "csma_ca", "retry_delay_max_us": 40000,
                    "nodes": leaf_nodes(2, 1, **leaf)},
            "flows": [{"type": "tcp", "src": src, "dst": dst, "bytes": 3000, "mss": 88,
                       "rx_buffer": 304}]}


def test_leaf_polls_fast_while_tcp_waits_for_an_ack(tmp_path):
    """TCPlp s.9: 240 s polls, 100 ms while unacknowledged data waits: a
    leaf sending uplink gets its ACKs within a few fast polls."""
    fast, slow = run_many([leaf_pair(2, 0, poll_ms=240000),
                           leaf_pair(2, 0, poll_ms=240000, poll_fast_ms=0)], tmp_path)
    f = fast["flows"][0]
    assert f["complete"] and f["integrity_ok"]
    assert f["completion_time_s"] < 60
    leaf = fast["node_stats"][2]["mac"]
    assert leaf["rdc_polls"] >= 10 and leaf["rdc_polls_pending"] >= 10
    # without fast polls the ACKs wait for the 240 s poll: TCP gives up
    assert not slow["flows"][0]["complete"]


def test_coap_leaf_polls_fast_for_its_responses(tmp_path):
    """Any transport, not only TCP: a CoAP leaf (TCPlp s.9's anemometer
    readings, CON POSTs) polls every 100 ms while a request waits for its
    response (mip_stack_awaits_reply). Before, only TCP asked for fast
    polls and the leaf saw each response after its 240 s poll: 4 % of the
    readings arrived."""
    def sc(**leaf):
        s = leaf_pair(2, 0, **leaf)
        s["flows"] = [{"type": "sensor", "src": 2, "dst": 0, "transport": "coap",
                       "count": 60}]
        return s
    fast, slow = run_many([sc(poll_ms=240000), sc(poll_ms=240000, poll_fast_ms=0)], tmp_path)
    f = fast["flows"][0]
    assert f["reliability"] == 1, f
    leaf = fast["node_stats"][2]
    assert leaf["mac"]["rdc_polls_pending"] >= f["messages"]   # a response per message
    assert leaf["duty_cycle"] < 0.02
    assert slow["flows"][0]["reliability"] < 0.5


def test_frames_for_a_sleeping_leaf_wait_at_its_parent(tmp_path):
    r = run_ok(leaf_pair(0, 2, poll_ms=500, poll_fast_ms=0), tmp_path)
    f = r["flows"][0]
    assert f["complete"] and f["integrity_ok"]
    parent, leaf = r["node_stats"][1]["mac"], r["node_stats"][2]["mac"]
    assert parent["rdc_ind_held"] > 0 and parent["rdc_polls_pending"] > 0
    assert leaf["rdc_polls_pending"] == parent["rdc_polls_pending"]
    # every downlink frame went after a poll: the leaf's radio is on for its
    # own frames and the waits after a pending bit, a few per cent
    assert r["node_stats"][2]["duty_cycle"] < 0.1


def test_leaf_routes_only_through_its_parent(tmp_path):
    """Node 3 is in range of the leaf (node 2) but only its parent (1)
    carries its traffic."""
    sc = {"name": "leaf-route", "seed": 1, "duration_s": 300,
          "topology": {"type": "positions", "positions": [[0, 0], [10, 0], [20, 0], [20, 10]]},
          "medium": {"range_m": 15},
          "mac": {"type": "csma_ca", "nodes": leaf_nodes(2, 1, poll_ms=50)},
          "flows": [{"type": "ping", "src": 3, "dst": 2, "count": 3}]}
    d = tmp_path / "trace.jsonl"
    r = run_ok(sc, tmp_path, "--trace", str(d))
    assert r["flows"][0]["received"] == 3
    hops = [json.loads(x) for x in d.read_text().splitlines() if '"ev":"hop"' in x]
    assert {(h["node"], h["to"]) for h in hops} == {(3, 1), (1, 2), (2, 1), (1, 3)}


# --- 4. Wireshark ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tshark(tmp_path_factory):
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: run scripts/setup.sh (it installs tshark)")
    cfg = tmp_path_factory.mktemp("wireshark-config")
    env = dict(os.environ, WIRESHARK_CONFIG_DIR=str(cfg))

    def run(pcap, *args: str) -> str:
        p = subprocess.run([exe, "-r", str(pcap), *args], capture_output=True, text=True,
                           env=env, timeout=120)
        assert p.returncode == 0, f"tshark {' '.join(args)}: exit {p.returncode}: {p.stderr}"
        return p.stdout
    return run


@pytest.mark.parametrize("kind,own", [
    ("xmac", {"wpan:data\t0x0001\t0010", "wpan:data\t0x0001\t0013"}),   # strobe, strobe ACK
    ("lpp", {"wpan:data\t0x0001\t0020"}),                              # probe
    ("leaf", {"wpan\t0x0003\t"}),                                      # data request
])
def test_frames_decode_in_wireshark(tshark, tmp_path, kind, own):
    pcap = tmp_path / "c.pcap"
    r = run_sim(tcp_chain(kind, 2, nbytes=1500), tmp_path, "--pcap", str(pcap))
    assert r.rc == 0, r.stderr
    bad = tshark(pcap, "-Y", "_ws.malformed || _ws.expert.severity == error")
    assert bad == "", f"tshark with default preferences complains:\n{bad}"
    rows = set(tshark(pcap, "-T", "fields", "-e", "frame.protocols", "-e", "wpan.frame_type",
                      "-e", "data.data").splitlines())
    assert own <= rows, rows
    assert any(x.startswith("wpan:6lowpan:ipv6:tcp") for x in rows)
    if kind == "leaf":
        cmds = tshark(pcap, "-Y", "wpan.cmd == 0x04", "-T", "fields", "-e", "wpan.cmd")
        assert cmds.split() and set(cmds.split()) == {"0x04"}
        pend = tshark(pcap, "-Y", "wpan.frame_type == 2 && wpan.pending == 1")
        assert pend != ""


# --- 5. bad parameters ------------------------------------------------------------------------

def pair(mac: dict) -> dict:
    return {"name": "bad", "duration_s": 10, "topology": {"type": "chain", "nodes": 3, "spacing_m": 10},
            "medium": {"range_m": 12}, "mac": mac}


@pytest.mark.parametrize("mac,key,expect", [
    ({"rdc": {"type": "bmac"}}, "mac.rdc.type", 'expected one of "nullrdc", "contikimac", '
     '"xmac", "lpp", "leaf", "parent", got "bmac"'),
    ({"rdc": {"type": "xmac", "check_rate_hz": -8}}, "mac.rdc.check_rate_hz",
     "expected an integer in [1, 1000], got -8"),
    ({"rdc": {"type": "xmac", "on_us": 4000}}, "mac.rdc.on_us",
     "expected shorter than the interval and at least strobe_wait_us plus a strobe's airtime"),
    ({"rdc": {"type": "xmac", "strobe_wait_us": 2000}}, "mac.rdc.strobe_wait_us",
     "expected at least two strobes' airtime plus strobe_ack_delay_us"),
    ({"rdc": {"type": "lpp", "listen_us": 2000}}, "mac.rdc.listen_us",
     "expected longer than probe_backoff_us + phy.cca_us + phy.turnaround_us"),
    ({"rdc": {"type": "lpp", "on_us": 6250}}, "mac.rdc.on_us",
     "unknown key for the lpp RDC; its keys: type, check_rate_hz, cca_on_us, burst_wait_us, "
     "burst_max_ms, burst_budget_ms, burst_window_ms, "
     "listen_us, probe_backoff_us, probe_jitter_us, adapt_max_ms"),
    ({"rdc": {"type": "leaf", "parent": 1, "burst_budget_ms": 2000}}, "mac.rdc.burst_budget_ms",
     "expected at most burst_window_ms"),
    ({"rdc": {"type": "xmac", "adapt_max_ms": 100}}, "mac.rdc.adapt_max_ms",
     "expected 0 (a fixed interval) or at least the RDC's own interval"),
    ({"nodes": [{"ids": [2], "rdc": {"type": "leaf"}}]}, "mac.nodes[0].rdc.parent",
     "missing; expected the node id of the leaf's parent"),
    ({"nodes": [{"ids": [2], "rdc": {"type": "leaf", "parent": 1}}]}, "mac.nodes[0].rdc.parent",
     "expected a node running the parent RDC (leaf 2's parent 1 runs nullrdc), got 1"),
    ({"nodes": [{"ids": [2], "rdc": {"type": "leaf", "parent": 2}}]}, "mac.nodes[0].rdc.parent",
     "expected a node other than the leaf 2 itself, got 2"),
    ({"nodes": [{"ids": [2], "rdc": {"type": "leaf", "parent": 7}}]}, "mac.nodes[0].rdc.parent",
     'expected an integer node id 0..2 or "last", got 7'),
    ({"nodes": [{"ids": [2], "rdc": {"type": "leaf", "parent": 1, "poll_ms": 0}}]},
     "mac.nodes[0].rdc.poll_ms", "expected an integer in [1, 1800000], got 0"),
    ({"type": "nullmac", "nodes": [{"ids": [2], "rdc": {"type": "leaf", "parent": 1}}]},
     "mac.nodes[0].rdc.type", 'expected an RDC the MAC protocol can carry: a leaf needs mac.type '
     '"csma_ca"'),
    ({"nodes": [{"ids": [1], "rdc": {"type": "parent", "adapt_max_ms": 1000}}]},
     "mac.nodes[0].rdc.adapt_max_ms", "unknown key for the parent RDC; its keys: type, "
     "wait_us, child_timeout_ms"),
])
def test_bad_mac_parameter_names_its_key(tmp_path, mac, key, expect):
    sc = pair({"type": "csma_ca", **mac})
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and r.stdout == ""
    assert f"{tmp_path / 'scenario.json'}: {key}: {expect}" in r.stderr, r.stderr


def test_leaf_out_of_its_parents_range_exits_2(tmp_path):
    sc = pair({"type": "csma_ca", "nodes": leaf_nodes(2, 0)})
    r = run_sim(sc, tmp_path)
    assert r.rc == 2
    assert "leaf 2's rdc.parent 0 is not in its radio range" in r.stderr, r.stderr
