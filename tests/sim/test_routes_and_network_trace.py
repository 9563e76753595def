"""Static routes the radio cannot carry, and the network as the trace describes it.

A static route whose next hop is out of radio range used to run silently to a
delivery of 0 with exit 0. Now it is a warning on stderr (the run still
happens), and --strict makes it exit 2, as it does with --check.
"""
from __future__ import annotations

import json

import pytest

from simrun import run_sim


def chain(nodes: int, routes: list[dict] | None, flow: dict) -> dict:
    sc = {"name": "routes", "seed": 1, "duration_s": 30, "stop_when_done": True,
          "topology": {"type": "chain", "nodes": nodes, "spacing_m": 10},
          "medium": {"model": "unit_disk", "range_m": 10.5, "interference_range_m": 20.5},
          "mac": {"type": "csma_ca"}, "flows": [flow]}
    if routes is not None:
        sc["routing"] = {"type": "static", "routes": routes}
    return sc


UDP = {"type": "udp", "src": 0, "dst": 2, "interval_s": 0.5, "payload_bytes": 20, "count": 4}
GOOD = [{"node": 0, "dst": 2, "via": 1}, {"node": 1, "dst": 2, "via": 2}]


@pytest.mark.parametrize("name, routes, warnings", [
    ("in range", GOOD, []),
    ("next hop out of range", [{"node": 0, "dst": 2, "via": 2}],
     ["routing.routes[0]: node 0 cannot reach its next hop 2 (not in radio range): "
      "traffic to 2 through it is lost"]),
    ("route via itself", [{"node": 0, "dst": 2, "via": 0}],
     ["routing.routes[0]: node 0 cannot reach its next hop 0 (not in radio range): "
      "traffic to 2 through it is lost",
      "flows[0]: the static routes do not lead from node 0 to node 2"]),
    ("no route at the relay", [{"node": 0, "dst": 2, "via": 1}],
     ["flows[0]: the static routes do not lead from node 0 to node 2"]),
])
def test_static_routes_warn_and_strict_fails(tmp_path, name, routes, warnings):
    sc = chain(3, routes, UDP)
    r = run_sim(sc, tmp_path)
    assert r.rc == 0, r.stderr
    got = [line.removeprefix("moteip-sim: warning: ") for line in r.stderr.splitlines()]
    assert got == warnings
    if warnings:
        assert r.result["flows"][0]["received"] == 0      # what the warning is about
        for extra in (["--strict"], ["--check", "--strict"]):
            s = run_sim(sc, tmp_path, *extra)
            assert s.rc == 2 and s.stdout == "", (extra, s.stderr)
            n = len(warnings)
            assert s.stderr.splitlines()[-1].endswith(
                f"{n} warning{'s' if n > 1 else ''}, and --strict makes them errors")
    else:
        assert r.result["flows"][0]["received"] == 4
        assert run_sim(sc, tmp_path, "--strict").rc == 0


def test_tcp_route_without_a_way_back_warns(tmp_path):
    tcp = {"type": "tcp", "src": 0, "dst": 2, "bytes": 200}
    r = run_sim(chain(3, GOOD, tcp), tmp_path)
    assert r.rc == 0
    assert r.stderr == ("moteip-sim: warning: flows[0]: the static routes do not lead back from "
                        "node 2 to node 0\n")


def test_trace_describes_nodes_links_and_paths(tmp_path):
    tcp = {"type": "tcp", "src": 0, "dst": "last", "bytes": 500}
    trace = tmp_path / "t.jsonl"
    r = run_sim(chain(4, None, tcp), tmp_path, "--trace", str(trace))
    assert r.rc == 0, r.stderr
    ev = [json.loads(line) for line in trace.read_text().splitlines()]
    nodes = [e for e in ev if e["ev"] == "node"]
    assert [(e["node"], e["x"], e["y"]) for e in nodes] == [(i, 10.0 * i, 0.0) for i in range(4)]
    links = {(e["node"], e["to"]): e["prr"] for e in ev if e["ev"] == "link"}
    assert links == {(a, b): 1.0 for a in range(4) for b in range(4) if abs(a - b) == 1}
    hops = [(e["node"], e["to"], e["back"]) for e in ev if e["ev"] == "hop"]
    assert hops == [(0, 1, False), (1, 2, False), (2, 3, False),
                    (3, 2, True), (2, 1, True), (1, 0, True)]
    assert all(e["t_us"] == 0 for e in nodes + [e for e in ev if e["ev"] in ("link", "hop")])


def test_trace_link_prr_follows_the_bit_error_rate(tmp_path):
    sc = chain(2, None, {"type": "udp", "src": 0, "dst": 1, "interval_s": 1, "count": 1})
    sc["medium"]["ber"] = 1e-4
    trace = tmp_path / "t.jsonl"
    assert run_sim(sc, tmp_path, "--trace", str(trace)).rc == 0
    prr = [json.loads(line)["prr"] for line in trace.read_text().splitlines()
           if '"ev":"link"' in line]
    # a 127-byte frame (the routing metric's) survives 1016 bits at 1e-4
    assert prr == [pytest.approx((1 - 1e-4) ** 1016, abs=1e-4)] * 2
