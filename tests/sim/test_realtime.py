"""moteip-sim --realtime, the border router's scenario keys and services
(docs/SIMULATOR.md, "Real time and the border router").

Nothing here needs root: the border router's traffic with Linux is tested in
tests/interop/test_sim_border.py, inside a network namespace. Here: pacing
to the wall clock, the same events as a plain run, a host that cannot keep
up, SIGTERM, and every bad border/services/link.prefix key exiting 2 with
its name.
"""
from __future__ import annotations

import contextlib
import copy
import json
import pathlib
import re
import select
import signal
import struct
import subprocess
import time

import pytest

from simrun import run_ok, run_sim, sim_binary


def ping_chain(duration_s: float = 1.5) -> dict:
    """4-node chain with bit errors (link retries: the MAC's random draws
    matter) and a ping flow; the run lasts its whole duration."""
    return {
        "name": "rt", "seed": 5, "duration_s": duration_s, "stop_when_done": False,
        "topology": {"type": "chain", "nodes": 4, "spacing_m": 40},
        "medium": {"ber": 1e-4},
        "flows": [{"type": "ping", "src": 0, "dst": 3, "count": 8, "interval_s": 0.1,
                   "payload_bytes": 300}],
    }


def border_chain(**border) -> dict:
    """6-node chain, the border router at node 0, HTTP on node 5."""
    b = {"node": 0, "device": "nosuchdev0", "address": "fd01::2/64"}
    b.update(border)
    return {
        "name": "border", "duration_s": 10,
        "topology": {"type": "chain", "nodes": 6, "spacing_m": 40},
        "services": [{"type": "http", "node": 5}],
        "border": b,
    }


@contextlib.contextmanager
def started(sc: dict, tmp_path):
    """moteip-sim --realtime on sc, past its ready line: yields (process,
    ready line); killed if it still runs at the end."""
    path = tmp_path / "s.json"
    path.write_text(json.dumps(sc))
    p = subprocess.Popen([str(sim_binary()), str(path), "--realtime"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert select.select([p.stderr], [], [], 10)[0], "no ready line"
        yield p, p.stderr.readline()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def without_realtime(result: dict) -> dict:
    r = copy.deepcopy(result)
    r.pop("realtime")
    return r


def test_realtime_run_lasts_its_simulated_time_on_the_wall_clock(tmp_path):
    t0 = time.monotonic()
    r = run_ok(ping_chain(1.5), tmp_path, "--realtime")
    wall = time.monotonic() - t0
    # never ahead: 1.5 simulated s take at least 1.5 wall s; the upper bound
    # only catches a run that does not pace at all or sleeps far too long
    assert wall >= 1.5
    assert wall < 1.5 + 3.0
    rt = r["realtime"]
    assert rt["speed"] == 1 and rt["stopped_by_signal"] is False
    assert 1.5 <= rt["wall_s"] < 1.5 + 3.0
    assert r["sim_time_s"] == 1.5
    assert r["flows"][0]["received"] > 0


def test_speed_scales_the_wall_time(tmp_path):
    """--speed 0.5: a simulated second takes two on the wall clock."""
    t0 = time.monotonic()
    r = run_ok(ping_chain(0.6), tmp_path, "--realtime", "--speed", "0.5")
    assert time.monotonic() - t0 >= 1.2
    assert r["realtime"]["speed"] == 0.5


def test_realtime_runs_the_same_events_as_a_plain_run(tmp_path):
    """Pacing changes when events run, never which or in what order: the
    result is the plain run's, byte for byte, but for the realtime object."""
    plain = run_ok(ping_chain(1.0), tmp_path)
    paced = run_ok(ping_chain(1.0), tmp_path, "--realtime")
    assert "realtime" not in plain
    assert without_realtime(paced) == plain


def test_a_host_that_cannot_keep_up_runs_late_with_the_same_outcome(tmp_path):
    """At a million simulated seconds per wall second nothing keeps up: the
    events run back to back, late, and the outcome is the plain run's."""
    sc = {
        "name": "busy", "seed": 2, "duration_s": 3000,
        "topology": {"type": "chain", "nodes": 11, "spacing_m": 40},
        "medium": {"ber": 1e-5},
        "flows": [{"type": "tcp", "src": 0, "dst": "last", "bytes": 100000}],
    }
    plain = run_ok(sc, tmp_path)
    r = run_ok(sc, tmp_path, "--realtime", "--speed", "1e6")
    assert r["realtime"]["late_events"] > 0 and r["realtime"]["max_lag_ms"] > 0
    assert without_realtime(r) == plain


def test_a_stalled_host_catches_up_and_warns(tmp_path):
    """The simulator stopped for 0.4 s (SIGSTOP: a host too busy to run it)
    runs the missed events late, back to back, catches up with the wall
    clock, says so on stderr, and ends as the plain run does, on time."""
    sc = ping_chain(3.0)
    sc["flows"][0].update(count=28, interval_s=0.1)
    plain = run_ok(sc, tmp_path)
    t0 = time.monotonic()
    with started(sc, tmp_path) as (p, _):
        time.sleep(0.8)
        p.send_signal(signal.SIGSTOP)
        time.sleep(0.4)
        p.send_signal(signal.SIGCONT)
        out, err = p.communicate(timeout=20)
    wall = time.monotonic() - t0
    assert p.returncode == 0, err
    assert "behind the wall clock" in err and "the host cannot keep up" in err
    r = json.loads(out)
    assert r["realtime"]["max_lag_ms"] >= 300 and r["realtime"]["late_events"] > 0
    assert r["realtime"]["end_lag_ms"] < 100          # caught up
    assert wall < 3.0 + 2.0                           # not stretched by the stall
    assert without_realtime(r) == plain


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_ends_a_realtime_run_with_its_result(tmp_path, sig):
    """SIGHUP (the terminal closed) ends a run as SIGTERM does: with its result, and the
    TUN of a border router freed, not by the default action that writes nothing."""
    with started(ping_chain(60), tmp_path) as (p, line):
        assert line.startswith("moteip-sim: realtime: running 4 nodes for 60.000 simulated s")
        time.sleep(1.0)
        p.send_signal(sig)
        out, err = p.communicate(timeout=10)
    assert p.returncode == 0, err
    r = json.loads(out)
    assert r["realtime"]["stopped_by_signal"] is True
    assert 1.0 <= r["sim_time_s"] < 10
    for n in r["node_stats"]:      # the energy books close at the stop time
        total = n["tx_s"] + n["rx_s"] + n["listen_s"] + n["sleep_s"]
        assert total == pytest.approx(r["sim_time_s"], abs=1e-6)


def test_check_builds_a_border_network_without_touching_the_host(tmp_path):
    r = run_sim(border_chain(), tmp_path, "--check")
    assert r.rc == 0, r.stderr
    assert r.stdout == ""


def test_a_border_router_runs_only_in_real_time(tmp_path):
    r = run_sim(border_chain(), tmp_path)
    assert r.rc == 2 and r.stdout == ""
    assert "border: a border router runs only with --realtime" in r.stderr


def test_a_missing_device_is_named(tmp_path):
    r = run_sim(border_chain(), tmp_path, "--realtime")
    assert r.rc == 2 and r.stdout == ""
    assert ("border.device: no interface 'nosuchdev0' in this network namespace: create it "
            "first (ip tuntap add dev nosuchdev0 mode tun)") in r.stderr


def test_speed_needs_realtime(tmp_path):
    r = run_sim(ping_chain(), tmp_path, "--speed", "2")
    assert r.rc == 2 and "--speed needs --realtime" in r.stderr
    r = run_sim(ping_chain(), tmp_path, "--realtime", "--speed", "0")
    assert r.rc == 2 and "--speed: expected simulated seconds per wall second" in r.stderr


def _border(**kw):
    return lambda s: s["border"].update(kw)


# (id, change to border_chain(), key path, expectation): exit 2, "FILE: key: ...".
ERRORS = [
    ("border_node_not_a_node", _border(node=6),
     "border.node", 'expected an integer node id 0..5 or "last", got 6'),
    ("device_missing", lambda s: s["border"].pop("device"),
     "border.device", "missing; expected the name of a TUN or TAP device"),
    ("device_too_long", _border(device="x" * 16),
     "border.device", "expected an interface name of 1 to 15 characters"),
    ("type_unknown", _border(type="veth"),
     "border.type", 'expected one of "tun", "tap"'),
    ("address_missing", lambda s: s["border"].pop("address"),
     "border.address", "missing; expected the border router's address on the host link"),
    ("address_overlaps_mesh", _border(address="fd00::1/64"),
     "border.address", "expected a prefix that does not overlap the mesh's fd00::/64 (link.prefix)"),
    ("address_wider_than_mesh", _border(address="fd00:0:0:1::1/32"),
     "border.address", "does not overlap the mesh's fd00::/64"),
    ("address_link_local", _border(address="fe80::2/64"),
     "border.address", "not link-local, multicast"),
    ("address_not_ipv6", _border(address="192.0.2.2/24"),
     "border.address", "expected an IPv6 address or prefix"),
    ("route_overlaps_mesh", _border(routes=[{"dst": "fd00::/48"}]),
     "border.routes[0].dst", "does not overlap the mesh's fd00::/64"),
    ("route_via_off_link", _border(routes=[{"dst": "fd02::/64", "via": "fd03::1"}]),
     "border.routes[0].via", "a next hop on the host link"),
    ("route_unknown_key", _border(routes=[{"dst": "::/0", "gw": "fd01::1"}]),
     "border.routes[0].gw", "unknown key; known keys here: dst, via"),
    ("too_many_routes", _border(routes=[{"dst": f"fd0{i}::/64"} for i in range(1, 10)]),
     "border.routes", "an array of at most 8"),
    ("reach_not_a_node", _border(reach=[3, 9]),
     "border.reach[1]", 'expected an integer node id 0..5 or "last", got 9'),
    ("border_over_ipv4", lambda s: s.update(link={"mode": "raw", "ip": "ipv4", "frame_max": 127}),
     "border", 'no border router with link.ip "ipv4"'),
    ("service_unknown_type", lambda s: s["services"][0].update(type="ftp"),
     "services[0].type", 'expected one of "http", "tcp_echo", "tcp_discard", "tcp_chargen", '
                         '"udp_echo"'),
    ("service_node_missing", lambda s: s["services"][0].pop("node"),
     "services[0].node", "missing"),
    ("service_port_twice", lambda s: s["services"].append({"type": "tcp_echo", "node": 5,
                                                            "port": 80}),
     "services[1].port", "a port no earlier service of the node uses"),
    ("service_udp_mss", lambda s: s["services"].append({"type": "udp_echo", "node": 5,
                                                         "mss": 100}),
     "services[1].mss", "no mss for a UDP service"),
    ("prefix_not_64", lambda s: s.update(link={"prefix": "fd00:0:0:7::/48"}),
     "link.prefix", "a /64 prefix with its last 64 bits zero"),
    ("prefix_multicast", lambda s: s.update(link={"prefix": "ff02::/64"}),
     "link.prefix", "not link-local, multicast"),
    ("prefix_moves_under_the_border_address",
     lambda s: s.update(link={"prefix": "fd01::/64"}),
     "border.address", "does not overlap the mesh's fd01::/64"),
]


@pytest.mark.parametrize("change,key,expect", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_bad_border_and_service_keys_exit_2_naming_the_key(tmp_path, change, key, expect):
    sc = border_chain()
    change(sc)
    r = run_sim(sc, tmp_path, "--check")
    assert r.rc == 2, r.stderr
    assert r.stdout == ""
    assert f"{tmp_path / 'scenario.json'}: {key}: " in r.stderr, r.stderr
    assert expect in r.stderr, r.stderr


def test_a_service_on_a_flow_port_is_refused_by_name(tmp_path):
    sc = border_chain()
    sc["flows"] = [{"type": "tcp", "src": 0, "dst": 5, "bytes": 1000, "port": 80}]
    r = run_sim(sc, tmp_path, "--check")
    assert r.rc == 2
    assert "services[0]: node 5 cannot serve http on port 80: " in r.stderr
    assert "a flow or another service has the port" in r.stderr


def test_route_tables_that_cannot_hold_the_tree_name_border_reach(tmp_path):
    """A border router at the end of a 20-node chain: node 1 would need host
    routes to the 18 nodes behind it (MIP_ROUTE_MAX is 16). Naming fewer
    nodes in border.reach fits."""
    sc = border_chain()
    sc["topology"]["nodes"] = 20
    r = run_sim(sc, tmp_path, "--check")
    assert r.rc == 2
    assert "border: node 0's route table is full (MIP_ROUTE_MAX 16)" in r.stderr
    assert "name fewer nodes in border.reach" in r.stderr
    sc["border"]["reach"] = [5, 10, 19]
    r = run_sim(sc, tmp_path, "--check")
    assert r.rc == 0, r.stderr


def test_link_prefix_moves_every_address_and_the_context(tmp_path):
    """link.prefix fd00:0:0:7::/64: nodes live there (pings across 3 hops
    are answered), IPHC still elides the addresses through context 0 (the
    same frames as under fd00::/64), and the capture's context record
    carries the new prefix."""
    sc = ping_chain(5)
    sc.update(stop_when_done=True, medium={})
    sc["flows"][0].update(interval_s=0.5, payload_bytes=16)
    plain = run_ok(sc, tmp_path)
    sc["link"] = {"prefix": "fd00:0:0:7::/64"}
    pcap = tmp_path / "p.pcap"
    r = run_ok(sc, tmp_path, "--pcap", str(pcap))
    assert r["flows"][0]["received"] == 8
    assert r["flows"] == plain["flows"] and r["totals"] == plain["totals"]
    data = pcap.read_bytes()
    first_len = struct.unpack_from("<I", data, 24 + 8)[0]
    first = data[24 + 16:24 + 16 + first_len]
    assert bytes.fromhex("fd00000000000007") in first        # the 6CO option
    assert bytes.fromhex("fd00000000000000") not in first


def test_services_without_a_border_leave_a_plain_run_deterministic(tmp_path):
    """Services change nothing on the air until someone talks to them; the
    result gains their counters and is the same bytes twice."""
    sc = ping_chain(2)
    sc["services"] = [{"type": "http", "node": 3}, {"type": "udp_echo", "node": 2}]
    a = run_sim(sc, tmp_path)
    b = run_sim(sc, tmp_path)
    assert a.rc == 0, a.stderr
    assert a.stdout == b.stdout
    plain = run_ok(ping_chain(2), tmp_path)
    r = a.result
    assert [v["type"] for v in r.pop("services")] == ["http", "udp_echo"]
    assert r["flows"] == plain["flows"]


def test_the_walkthrough_scenario_of_simulator_md_checks(tmp_path):
    """docs/SIMULATOR.md's border.json is a valid scenario."""
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "SIMULATOR.md").read_text()
    block = re.search(r'```json\n(\{ "name": "border".*?)```', text, re.S)
    assert block, "no border.json block in docs/SIMULATOR.md"
    path = tmp_path / "border.json"
    path.write_text(block.group(1))
    r = run_sim(path, tmp_path, "--check")
    assert r.rc == 0, r.stderr
