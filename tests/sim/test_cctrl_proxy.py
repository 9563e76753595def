"""cctrl split-and-merge proxies ([B] 4.5.1; apps/cctrl_proxy.h, scenario key
"proxy"): an unmodified client's SYN is taken over by its next hop, the
stream crosses the network split over two subflows to the server's cctrl
node, which opens the real connection and merges the stream back in order.
A SYN to a port the proxies were not given passes through untouched."""
from __future__ import annotations

from simrun import run_ok, run_sim

MB = 1 << 20


def scenario(flows: list[dict], link: dict | None = None, **proxy) -> dict:
    sc = {"name": "proxy", "seed": 1, "duration_s": 4000,
          "topology": {"type": "chain", "nodes": 5, "spacing_m": 10},
          "medium": {"range_m": 12},
          "flows": flows,
          "proxy": {"nodes": [1], "peer": 3, "port": 5000, "chunk": 128, **proxy}}
    if link:
        sc["link"] = link
    return sc


def proxies(r: dict) -> dict[int, dict]:
    return {n["node"]: n for n in r["proxy"]["nodes"]}


def test_a_megabyte_through_the_proxies_arrives_byte_exact_and_in_order(tmp_path):
    r = run_ok(scenario([{"type": "tcp", "src": 0, "dst": 4, "port": 5000, "bytes": MB}]),
               tmp_path)
    (f,) = r["flows"]
    # every byte checked against the pattern, in order, at the server
    assert f["complete"] and f["integrity_ok"] and f["bytes_delivered"] == MB, f
    p = proxies(r)
    assert p[1]["syn_taken"] == 1 and p[1]["streams_split"] == 1 and p[1]["fallback"] == 0
    assert p[3]["streams_served"] == 1 and p[3]["tunnels_accepted"] == 2
    # the whole stream went through the split and came out of the merge
    assert p[1]["bytes_split"] == MB and p[3]["bytes_merged"] == MB
    assert p[1]["diverted"] > 0 and p[1]["rewritten"] > 0
    assert p[1]["aborted"] == p[3]["aborted"] == 0
    # the subflow ahead found the merge full and was held back in its TCP
    # ring (its window closing) until the one behind caught up
    assert p[3]["merge_full"] > 0


def test_a_syn_to_another_port_passes_untouched(tmp_path):
    flows = [{"type": "tcp", "src": 0, "dst": 4, "port": 5000, "bytes": 20000},
             {"type": "tcp", "src": 0, "dst": 4, "port": 5001, "bytes": 20000}]
    r = run_ok(scenario(flows), tmp_path)
    for f in r["flows"]:
        assert f["complete"] and f["integrity_ok"] and f["bytes_delivered"] == 20000, f
    p = proxies(r)
    # only port 5000's stream was taken over and split
    assert p[1]["syn_taken"] == 1 and p[1]["bytes_split"] == 20000
    assert p[3]["bytes_merged"] == 20000 and p[3]["streams_served"] == 1


def test_ipv4_over_raw_frames_as_in_cctrl_double(tmp_path):
    flow = {"type": "tcp", "src": 0, "dst": 4, "port": 5000, "bytes": 50000, "tx_buffer": 16,
            "sender": {"sack": False, "timestamps": False, "cwnd_cap": 1},
            "receiver": {"profile": "tiny", "delayed_ack": False}}
    r = run_ok(scenario([flow], {"mode": "raw", "ip": "ipv4", "header_bytes": 23},
                        chunk=16, cwnd_cap=1), tmp_path)
    (f,) = r["flows"]
    assert f["complete"] and f["integrity_ok"] and f["bytes_delivered"] == 50000, f
    p = proxies(r)
    assert p[1]["bytes_split"] == 50000 and p[3]["bytes_merged"] == 50000


def test_bad_proxy_keys_are_named(tmp_path):
    flows = [{"type": "tcp", "src": 0, "dst": 4, "port": 5000, "bytes": 1000}]
    sc = scenario(flows)
    sc["proxy"]["nodes"] = [3]
    r = run_sim(sc, tmp_path)
    assert r.rc != 0 and "a node other than the peer" in r.stderr, r.stderr
    sc = scenario(flows)
    del sc["proxy"]["nodes"]
    r = run_sim(sc, tmp_path)
    assert r.rc != 0 and "nodes" in r.stderr, r.stderr
    sc = scenario(flows, subflows=5)
    r = run_sim(sc, tmp_path)
    assert r.rc != 0 and "subflows" in r.stderr, r.stderr
