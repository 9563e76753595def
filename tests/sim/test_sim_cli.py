"""moteip-sim command line and scenario validation (docs/SIMULATOR.md).

A bad scenario or command line is exit status 2 with a message naming the
file, the JSON path of the offending value and what was expected, and no
result on stdout; an output file that cannot be written is exit status 1; a
run is exit status 0 whatever its flows achieved.
"""
from __future__ import annotations

import copy
import json
import pathlib
import subprocess

import pytest

from simrun import run_ok, run_sim, sim_binary


def base() -> dict:
    """A valid 3-node scenario (40 m spacing, 50 m range: 2 hops)."""
    return {
        "name": "cli",
        "topology": {"type": "chain", "nodes": 3, "spacing_m": 40},
        "flows": [{"type": "udp", "src": 0, "dst": 2, "interval_s": 1, "count": 2}],
    }


def with_(change) -> dict:
    sc = copy.deepcopy(base())
    change(sc)
    return sc


def run_cli(*args: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([str(sim_binary()), *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=60)


def assert_usage_error(rc: int, stdout: str, stderr: str, *expected: str) -> None:
    assert rc == 2, f"exit {rc}, stderr: {stderr}"
    assert stdout == "", f"a failed run must print no result, got: {stdout[:200]!r}"
    for e in expected:
        assert e in stderr, f"{e!r} not in stderr: {stderr!r}"


# (id, change to the base scenario, key path, expectation) -- the message must
# read "FILE: <key path>: <expectation...>".
SCENARIO_ERRORS = [
    ("unknown_top_level_key", lambda s: s.update(bogus=1),
     "bogus", "unknown key; known keys here: name, seed, duration_s"),
    ("unknown_nested_key", lambda s: s.update(medium={"rangee": 30}),
     "medium.rangee", "unknown key; known keys here: model, range_m"),
    ("unknown_key_in_flow", lambda s: s["flows"][0].update(intervall_s=1),
     "flows[0].intervall_s", "unknown key"),
    ("wrong_type_nodes_string", lambda s: s["topology"].update(nodes="x"),
     "topology.nodes", 'expected an integer in [1, 1000000], got "x"'),
    ("wrong_type_medium_not_object", lambda s: s.update(medium=[1]),
     "medium", "expected an object"),
    ("wrong_type_flows_not_array", lambda s: s.update(flows={}),
     "flows", "expected an array of flows"),
    ("wrong_type_bool", lambda s: s.update(stop_when_done="yes"),
     "stop_when_done", 'expected true or false, got "yes"'),
    ("dst_equal_to_node_count", lambda s: s["flows"][0].update(dst=3),
     "flows[0].dst", "expected an integer node id 0..2 or \"last\", got 3"),
    ("src_negative", lambda s: s["flows"][0].update(src=-1),
     "flows[0].src", "expected an integer node id 0..2 or \"last\", got -1"),
    ("dst_equal_to_src", lambda s: s["flows"][0].update(dst=0),
     "flows[0].dst", "expected a node other than src"),
    ("static_route_via_out_of_range",
     lambda s: s.update(routing={"type": "static", "routes": [{"node": 0, "dst": 2, "via": 7}]}),
     "routing.routes[0].via", "expected an integer node id 0..2 or \"last\", got 7"),
    ("negative_start_s", lambda s: s["flows"][0].update(start_s=-1),
     "flows[0].start_s", "expected a number in [0, 1e+07], got -1"),
    ("zero_udp_interval", lambda s: s["flows"][0].update(interval_s=0),
     "flows[0].interval_s", "expected a number in [0.001, 1e+07], got 0"),
    ("zero_duration", lambda s: s.update(duration_s=0),
     "duration_s", "expected a number in [1e-06, 3.2e+08], got 0"),
    ("zero_nodes", lambda s: s["topology"].update(nodes=0),
     "topology.nodes", "expected an integer in [1, 1000000], got 0"),
    ("negative_ber", lambda s: s.update(medium={"ber": -0.1}),
     "medium.ber", "expected a number in [0, 1], got -0.1"),
    ("udp_payload_below_header", lambda s: s["flows"][0].update(payload_bytes=11),
     "flows[0].payload_bytes", "expected an integer in [12, 1232], got 11"),
    ("fractional_seed", lambda s: s.update(seed=1.5),
     "seed", "expected an integer in [0, 9223372036854775807], got 1.5"),
    ("missing_topology", lambda s: s.pop("topology"),
     "topology", "missing; expected an object"),
    ("missing_topology_type", lambda s: s["topology"].pop("type"),
     "topology.type", 'missing; expected one of "chain", "grid", "random", "positions", "links"'),
    ("missing_flow_src", lambda s: s["flows"][0].pop("src"),
     "flows[0].src", "missing; expected an integer node id 0..2 or \"last\""),
    ("missing_flow_type", lambda s: s["flows"][0].pop("type"),
     "flows[0].type", 'missing; expected one of "tcp", "udp"'),
    ("missing_chain_spacing", lambda s: s["topology"].pop("spacing_m"),
     "topology.spacing_m", "missing; expected a distance in metres"),
    ("tcp_bytes_and_duration",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2, "bytes": 1000, "duration_s": 5}]),
     "flows[0]", 'expected exactly one of "bytes", "segments" (with "segment_bytes") or "duration_s"'),
    ("tcp_without_amount",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2}]),
     "flows[0]", 'expected exactly one of "bytes", "segments"'),
    ("tcp_segments_without_segment_bytes",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2, "segments": 10}]),
     "flows[0].segment_bytes", "missing; expected the payload bytes of each segment"),
    ("tcp_segment_bytes_without_segments",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2, "bytes": 10,
                                "segment_bytes": 100}]),
     "flows[0].segment_bytes", 'expected to come with "segments"'),
    ("tcp_with_udp_key",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2, "bytes": 10, "interval_s": 1}]),
     "flows[0]", "expected no UDP keys"),
    ("prr_medium_without_links_topology", lambda s: s.update(medium={"model": "prr"}),
     "medium.model", 'expected "prr" only with topology type "links"'),
    ("links_self_loop",
     lambda s: s.update(topology={"type": "links", "nodes": 3, "links": [[0, 1], [1, 1]]}),
     "topology.links[1]", "expected [a, b] or [a, b, prr] with node ids 0..2, prr in [0, 1]"),
    ("links_prr_above_one",
     lambda s: s.update(topology={"type": "links", "nodes": 3, "links": [[0, 1, 1.5]]}),
     "topology.links[0]", "expected [a, b] or [a, b, prr] with node ids 0..2, prr in [0, 1]"),
    ("links_node_out_of_range",
     lambda s: s.update(topology={"type": "links", "nodes": 3, "links": [[0, 1], [1, 3]]}),
     "topology.links[1]", "expected [a, b] or [a, b, prr] with node ids 0..2"),
    ("tiny_profile_with_sack",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2, "bytes": 1000,
                                "sender": {"profile": "tiny", "sack": True}}]),
     "flows[0].sender.sack", 'expected false with profile "tiny"'),
    ("tiny_profile_with_timestamps",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2, "bytes": 1000,
                                "receiver": {"profile": "tiny", "timestamps": True}}]),
     "flows[0].receiver.timestamps", 'expected false with profile "tiny"'),
    ("endpoint_value_out_of_range",
     lambda s: s["flows"].append({"type": "tcp", "src": 0, "dst": 2, "bytes": 1000,
                                  "sender": {"cwnd_cap": 300}}),
     "flows[1].sender.cwnd_cap", "expected an integer in [0, 255], got 300"),
    ("cwnd_hold_backlog_out_of_range",
     lambda s: s["flows"].append({"type": "tcp", "src": 0, "dst": 2, "bytes": 1000,
                                  "sender": {"cwnd_hold_backlog": 256}}),
     "flows[1].sender.cwnd_hold_backlog", "expected an integer in [0, 255], got 256"),
    ("max_retries_zero",
     lambda s: s["flows"].append({"type": "tcp", "src": 0, "dst": 2, "bytes": 1000,
                                  "sender": {"max_retries": 0}}),
     "flows[1].sender.max_retries", "expected an integer in [1, 255], got 0"),
    ("max_retries_out_of_range",
     lambda s: s["flows"].append({"type": "tcp", "src": 0, "dst": 2, "bytes": 1000,
                                  "receiver": {"max_retries": 256}}),
     "flows[1].receiver.max_retries", "expected an integer in [1, 255], got 256"),
    ("unknown_enum_value", lambda s: s.update(mac={"type": "tdma"}),
     "mac.type", 'expected one of "csma_ca", "csma", "nullmac", got "tdma"'),
    ("grid_without_cols", lambda s: s.update(topology={"type": "grid", "rows": 2, "spacing_m": 40}),
     "topology.cols", "missing; expected an integer >= 1"),
    ("random_without_height",
     lambda s: s.update(topology={"type": "random", "nodes": 3, "width_m": 40}),
     "topology.height_m", "missing; expected the area's size in metres"),
    ("position_not_a_pair",
     lambda s: s.update(topology={"type": "positions", "positions": [[0, 0], [1], [2, 0]]}),
     "topology.positions[1]", "expected [x, y] in metres"),
    ("link_acks_without_csma_ca", lambda s: s.update(mac={"type": "csma", "link_acks": True}),
     "mac.link_acks", "expected false: only csma_ca or a duty-cycling rdc waits for link ACKs"),
    ("min_be_above_max_be", lambda s: s.update(mac={"min_be": 5, "max_be": 3}),
     "mac.min_be", "expected min_be <= max_be, got 5"),
    ("raw_ipv6_frame_too_small", lambda s: s.update(link={"mode": "raw", "frame_max": 127}),
     "link.frame_max", "expected room for a 1280-byte IPv6 datagram"),
    ("ipv4_over_iphc", lambda s: s.update(link={"mode": "iphc", "ip": "ipv4"}),
     "link.ip", 'expected "ipv6" with mode "iphc"'),
    ("routes_without_static_routing", lambda s: s.update(routing={"routes": []}),
     "routing.routes", 'expected no "routes" unless type is "static"'),
    ("mss_with_segment_bytes",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2, "segments": 2,
                                "segment_bytes": 100, "mss": 100}]),
     "flows[0].mss", 'expected no "mss" with "segment_bytes"'),
    ("tcp_port_reused_at_same_dst",
     lambda s: s.update(flows=[{"type": "tcp", "src": 0, "dst": 2, "bytes": 100, "port": 7401},
                               {"type": "tcp", "src": 1, "dst": 2, "bytes": 100}]),
     "flows[1]", "expected a port not used by an earlier tcp flow to the same node"),
    ("name_too_long", lambda s: s.update(name="x" * 64),
     "name", "expected a string of at most 63 bytes"),
    ("unknown_fragment_mode", lambda s: s.update(link={"fragments": "mesh"}),
     "link.fragments", 'expected one of "reassemble", "forward", got "mesh"'),
    ("fragment_gap_without_forwarding", lambda s: s.update(link={"frag_gap_us": 5000}),
     "link.frag_gap_us", 'expected 0 unless fragments is "forward"'),
    ("fragment_forwarding_over_raw",
     lambda s: s.update(link={"mode": "raw", "ip": "ipv4", "fragments": "forward"}),
     "link.fragments", 'expected "reassemble" with mode "raw"'),
    ("retry_on_busy_not_a_bool", lambda s: s.update(mac={"retry_on_busy": 1}),
     "mac.retry_on_busy", "expected true or false, got 1"),
    # a key that only some topology types or flow types read is refused, not ignored
    ("rows_outside_grid", lambda s: s["topology"].update(rows=2),
     "topology.rows", 'expected a key of grid topologies only (this topology\'s type is "chain")'),
    ("cols_outside_grid", lambda s: s["topology"].update(cols=2),
     "topology.cols", 'expected a key of grid topologies only (this topology\'s type is "chain")'),
    ("nodes_in_grid",
     lambda s: s.update(topology={"type": "grid", "rows": 1, "cols": 3, "nodes": 3,
                                  "spacing_m": 40}),
     "topology.nodes",
     'expected a key of chain, random, links topologies only (this topology\'s type is "grid")'),
    ("width_in_chain", lambda s: s["topology"].update(width_m=100),
     "topology.width_m",
     'expected a key of random topologies only (this topology\'s type is "chain")'),
    ("spacing_in_random",
     lambda s: s.update(topology={"type": "random", "nodes": 3, "width_m": 40, "height_m": 40,
                                  "spacing_m": 40}),
     "topology.spacing_m",
     'expected a key of chain, grid topologies only (this topology\'s type is "random")'),
    ("symmetric_outside_links", lambda s: s["topology"].update(symmetric=False),
     "topology.symmetric",
     'expected a key of links topologies only (this topology\'s type is "chain")'),
    ("segment_bytes_in_udp_flow", lambda s: s["flows"][0].update(segment_bytes=100),
     "flows[0].segment_bytes",
     'expected a key of tcp flows only (this flow\'s type is "udp"), got 100'),
    ("mss_in_udp_flow", lambda s: s["flows"][0].update(mss=100),
     "flows[0].mss",
     'expected a key of tcp and sensor flows only (this flow\'s type is "udp"), got 100'),
    ("tx_buffer_in_udp_flow", lambda s: s["flows"][0].update(tx_buffer=100),
     "flows[0].tx_buffer",
     'expected a key of tcp and sensor flows only (this flow\'s type is "udp"), got 100'),
    ("rx_buffer_in_udp_flow", lambda s: s["flows"][0].update(rx_buffer=100),
     "flows[0].rx_buffer",
     'expected a key of tcp and sensor flows only (this flow\'s type is "udp"), got 100'),
    ("segment_bytes_in_sensor_flow",
     lambda s: s.update(flows=[{"type": "sensor", "src": 2, "dst": 0, "segment_bytes": 100}]),
     "flows[0].segment_bytes",
     'expected a key of tcp flows only (this flow\'s type is "sensor"), got 100'),
    # a relay or MAC key that the scenario's relay mode or MAC type does not
    # read is refused, not ignored
    ("backpressure_in_dtc_relay",
     lambda s: s.update(relay={"mode": "dtc", "backpressure": False}),
     "relay.backpressure",
     'expected a key of tss relays only (this relay\'s mode is "dtc"), got false'),
    ("ack_release_in_cctrl_relay",
     lambda s: s.update(relay={"mode": "cctrl", "ack_release": True}),
     "relay.ack_release",
     'expected a key of tss relays only (this relay\'s mode is "cctrl"), got true'),
    ("ack_gamma_in_dtc_relay", lambda s: s.update(relay={"mode": "dtc", "ack_gamma": 2}),
     "relay.ack_gamma",
     'expected a key of tss relays only (this relay\'s mode is "dtc"), got 2'),
    ("forward_delay_in_cctrl_relay",
     lambda s: s.update(relay={"mode": "cctrl", "forward_delay_ms": 10}),
     "relay.forward_delay_ms",
     'expected a key of tss relays only (this relay\'s mode is "cctrl"), got 10'),
    ("keep_in_tss_relay", lambda s: s.update(relay={"mode": "tss", "keep": True}),
     "relay.keep",
     'expected a key of cctrl relays only (this relay\'s mode is "tss"), got true'),
    ("hop_max_in_dtc_relay", lambda s: s.update(relay={"mode": "dtc", "hop_max": 4}),
     "relay.hop_max",
     'expected a key of cctrl relays only (this relay\'s mode is "dtc"), got 4'),
    ("sack_in_cctrl_relay", lambda s: s.update(relay={"mode": "cctrl", "sack": True}),
     "relay.sack",
     'expected a key of dtc relays only (this relay\'s mode is "cctrl"), got true'),
    ("endpoints_in_tss_relay", lambda s: s.update(relay={"mode": "tss", "endpoints": True}),
     "relay.endpoints",
     'expected a key of dtc relays only (this relay\'s mode is "tss"), got true'),
    ("ack_repair_in_tss_relay", lambda s: s.update(relay={"mode": "tss", "ack_repair": True}),
     "relay.ack_repair",
     'expected a key of dtc, cctrl relays only (this relay\'s mode is "tss"), got true'),
    ("ack_repair_wait_without_ack_repair",
     lambda s: s.update(relay={"mode": "dtc", "ack_repair_wait": True}),
     "relay.ack_repair_wait", "expected false while ack_repair is false, got true"),
    ("min_be_in_csma_mac", lambda s: s.update(mac={"type": "csma", "min_be": 2}),
     "mac.min_be",
     'expected a key of csma_ca MACs only (this MAC\'s type is "csma"), got 2'),
    ("retry_on_busy_in_nullmac", lambda s: s.update(mac={"type": "nullmac", "retry_on_busy": True}),
     "mac.retry_on_busy",
     'expected a key of csma_ca MACs only (this MAC\'s type is "nullmac"), got true'),
    ("retry_delay_in_csma_mac",
     lambda s: s.update(mac={"type": "csma", "retry_delay_max_us": 1000}),
     "mac.retry_delay_max_us",
     'expected a key of csma_ca MACs only (this MAC\'s type is "csma"), got 1000'),
    ("max_backoffs_in_nullmac", lambda s: s.update(mac={"type": "nullmac", "max_backoffs": 2}),
     "mac.max_backoffs",
     'expected a key of csma_ca, csma MACs only (this MAC\'s type is "nullmac"), got 2'),
    ("min_periods_in_csma_ca_mac", lambda s: s.update(mac={"min_periods": 2}),
     "mac.min_periods",
     'expected a key of csma MACs only (this MAC\'s type is "csma_ca"), got 2'),
    ("sense_first_in_nullmac", lambda s: s.update(mac={"type": "nullmac", "sense_first": True}),
     "mac.sense_first",
     'expected a key of csma MACs only (this MAC\'s type is "nullmac"), got true'),
    ("continuous_backoff_in_csma_ca_mac",
     lambda s: s.update(mac={"type": "csma_ca", "continuous_backoff": True}),
     "mac.continuous_backoff",
     'expected a key of csma MACs only (this MAC\'s type is "csma_ca"), got true'),
    ("max_retries_in_csma_mac", lambda s: s.update(mac={"type": "csma", "max_retries": 2}),
     "mac.max_retries",
     'expected a key of csma_ca MACs, or of MACs with a parent RDC, only '
     '(this MAC\'s type is "csma"), got 2'),
    # misbehave (sim/misbehave.c): a victim other than the node, some attack, keys of the
    # pending attack only with it, a stop after the start, ranges
    ("misbehave_target_is_node",
     lambda s: s.update(misbehave=[{"node": 1, "target": 1, "pending_every_ms": 20}]),
     "misbehave[0].target", "expected a node other than the misbehaving node itself"),
    ("misbehave_without_attack", lambda s: s.update(misbehave=[{"node": 1, "target": 0}]),
     "misbehave[0]", "expected at least one attack: pending_every_ms"),
    ("misbehave_pending_to_without_pending",
     lambda s: s.update(misbehave=[{"node": 1, "target": 0, "strobe_every_ms": 200,
                                    "pending_to": "broadcast"}]),
     "misbehave[0].pending_to", "expected a key of the pending attack only"),
    ("misbehave_stop_before_start",
     lambda s: s.update(misbehave=[{"node": 1, "target": 0, "poll_every_ms": 100,
                                    "start_s": 5, "stop_s": 2}]),
     "misbehave[0].stop_s", "expected 0 (the end of the run) or a time after start_s"),
    ("misbehave_node_out_of_range",
     lambda s: s.update(misbehave=[{"node": 7, "target": 0, "pending_every_ms": 20}]),
     "misbehave[0].node", "expected an integer node id 0..2"),
    ("misbehave_period_too_long",
     lambda s: s.update(misbehave=[{"node": 1, "target": 0, "probe_every_ms": 600001}]),
     "misbehave[0].probe_every_ms", "expected an integer in [0, 600000]"),
    ("misbehave_unknown_key",
     lambda s: s.update(misbehave=[{"node": 1, "target": 0, "pending_every": 20}]),
     "misbehave[0].pending_every", "unknown key; known keys here: node, target, pending_every_ms"),
    ("interference_range_below_range",
     lambda s: s.update(medium={"range_m": 50, "interference_range_m": 40}),
     "medium.interference_range_m", "expected a value >= range_m"),
]


@pytest.mark.parametrize("change,key,expect", [c[1:] for c in SCENARIO_ERRORS],
                         ids=[c[0] for c in SCENARIO_ERRORS])
def test_scenario_error_names_key_path_and_expectation(tmp_path, change, key, expect):
    sc = with_(change)
    r = run_sim(sc, tmp_path)
    path = tmp_path / "scenario.json"
    assert_usage_error(r.rc, r.stdout, r.stderr, f"moteip-sim: {path}: {key}: {expect}")


def test_base_scenario_is_valid(tmp_path):
    """The error cases above differ from this scenario by one change only."""
    r = run_sim(base(), tmp_path)
    assert r.rc == 0, r.stderr
    assert r.result["flows"][0]["sent"] == 2


# Keys that the relay mode or MAC type does read stay accepted (the other
# side of the *_in_*_relay / *_in_*_mac rows above).
KIND_KEYS_READ = [
    ("ack_repair_in_dtc_relay", lambda s: s.update(relay={"mode": "dtc", "ack_repair": True})),
    ("ack_repair_in_cctrl_relay",
     lambda s: s.update(relay={"mode": "cctrl", "ack_repair": True, "hop_max": 4})),
    ("ack_repair_wait_in_dtc_relay",
     lambda s: s.update(relay={"mode": "dtc", "ack_repair": True, "ack_repair_wait": True})),
    ("rtt_keys_in_every_mode",
     lambda s: s.update(relay={"mode": "tss", "rto_mult": 2, "alpha": 0.5, "max_local_rexmit": 2,
                               "backpressure": False, "forward_delay_ms": 10})),
    # off runs no relay: a sweep arm that switches it off keeps the others' keys
    ("relay_off_keeps_mode_keys",
     lambda s: s.update(relay={"mode": "off", "forward_delay_ms": 29, "sack": True})),
    ("max_backoffs_in_csma_mac",
     lambda s: s.update(mac={"type": "csma", "max_backoffs": 3, "sense_first": True})),
    # the parent RDC limits a held frame's returns by max_retries under any MAC
    ("max_retries_with_parent_rdc",
     lambda s: s.update(mac={"type": "csma", "max_retries": 2,
                             "nodes": [{"ids": [1], "rdc": {"type": "parent"}}]})),
]


@pytest.mark.parametrize("change", [c[1] for c in KIND_KEYS_READ],
                         ids=[c[0] for c in KIND_KEYS_READ])
def test_keys_the_mode_or_mac_type_reads_are_accepted(tmp_path, change):
    r = run_sim(with_(change), tmp_path)
    assert r.rc == 0, r.stderr


def _json_error(tmp_path: pathlib.Path, text: str):
    path = tmp_path / "bad.json"
    path.write_text(text)
    return path, run_sim(path, tmp_path)


def test_malformed_json_reports_line_and_column(tmp_path):
    line2 = '  "topology": {"type": "chain", "nodes": 3,, "spacing_m": 40}'
    col = line2.index(",,") + 2                     # 1-based column of the second comma
    path, r = _json_error(tmp_path, "{\n" + line2 + "\n}\n")
    assert_usage_error(r.rc, r.stdout, r.stderr, f"{path}: line 2, column {col}:")


def test_malformed_json_position_on_a_later_line(tmp_path):
    text = '{\n  "name": "x",\n\n    "seed" 4\n}'
    path, r = _json_error(tmp_path, text)
    assert_usage_error(r.rc, r.stdout, r.stderr, f"{path}: line 4, column 12:",
                       "expected ':'")


def test_trailing_garbage_after_json_is_an_error(tmp_path):
    text = json.dumps(base()) + " x"
    path, r = _json_error(tmp_path, text)
    assert_usage_error(r.rc, r.stdout, r.stderr, f"{path}: line 1, column {len(text)}:")


def test_duplicate_key_is_an_error(tmp_path):
    text = json.dumps(base())[:-1] + ', "seed": 1, "seed": 2}'
    path, r = _json_error(tmp_path, text)
    assert_usage_error(r.rc, r.stdout, r.stderr, f"{path}: line 1", 'duplicate key "seed"')


def test_empty_scenario_file_is_an_error(tmp_path):
    path, r = _json_error(tmp_path, "")
    assert_usage_error(r.rc, r.stdout, r.stderr, f"{path}: line 1, column 1:")


def test_scenario_that_is_not_an_object_is_an_error(tmp_path):
    path, r = _json_error(tmp_path, "[1, 2]")
    assert_usage_error(r.rc, r.stdout, r.stderr,
                       f"{path}: (root): expected a scenario object, got an array")


def test_nonexistent_scenario_file(tmp_path):
    missing = tmp_path / "no-such-scenario.json"
    p = run_cli(str(missing))
    assert_usage_error(p.returncode, p.stdout, p.stderr, f"{missing}: cannot open:")


def test_unreachable_flow_destination_is_a_build_error(tmp_path):
    # 60 m spacing, 50 m range: node 1 is out of node 0's range
    sc = with_(lambda s: s["topology"].update(spacing_m=60))
    sc["flows"] = [{"type": "tcp", "src": 0, "dst": 2, "bytes": 1000}]
    r = run_sim(sc, tmp_path)
    assert_usage_error(r.rc, r.stdout, r.stderr,
                       f"moteip-sim: {tmp_path / 'scenario.json'}: flows[0]: node 0 cannot reach node 2")


def test_unreachable_udp_flow_names_its_index(tmp_path):
    sc = base()
    sc["topology"] = {"type": "positions", "positions": [[0, 0], [40, 0], [80, 0], [500, 500]]}
    sc["flows"].append({"type": "udp", "src": 3, "dst": 0})
    r = run_sim(sc, tmp_path)
    assert_usage_error(r.rc, r.stdout, r.stderr, "flows[1]: node 3 cannot reach node 0")


def test_failed_flow_still_exits_zero(tmp_path):
    """A flow that fails (every frame corrupted: SYNs time out) is a result, not an error."""
    sc = {"duration_s": 600, "topology": {"type": "chain", "nodes": 2, "spacing_m": 10},
          "medium": {"ber": 0.05},
          "flows": [{"type": "tcp", "src": 0, "dst": 1, "bytes": 1000}]}
    r = run_sim(sc, tmp_path)
    assert r.rc == 0, r.stderr
    f = r.result["flows"][0]
    assert f["complete"] is False
    assert f["bytes_delivered"] == 0
    assert f["error"] != "none"


def test_incomplete_flow_at_time_limit_exits_zero(tmp_path):
    sc = {"duration_s": 0.5, "topology": {"type": "chain", "nodes": 3, "spacing_m": 40},
          "flows": [{"type": "tcp", "src": 0, "dst": 2, "bytes": 100000}]}
    r = run_sim(sc, tmp_path)
    assert r.rc == 0, r.stderr
    f = r.result["flows"][0]
    assert f["complete"] is False
    assert f["bytes_delivered"] < 100000
    assert r.result["sim_time_s"] == pytest.approx(0.5)


# --- command line -------------------------------------------------------------------


@pytest.fixture
def scenario_file(tmp_path) -> pathlib.Path:
    p = tmp_path / "ok.json"
    p.write_text(json.dumps(base()))
    return p


def test_no_arguments_is_a_usage_error():
    p = run_cli()
    assert_usage_error(p.returncode, p.stdout, p.stderr, "no scenario file", "usage: moteip-sim")


def test_unknown_option_is_a_usage_error(scenario_file):
    p = run_cli(str(scenario_file), "--bogus")
    assert_usage_error(p.returncode, p.stdout, p.stderr, "unknown option '--bogus'", "usage:")


@pytest.mark.parametrize("value", ["-3", "abc", "", "12x", " -5", "+5", "18446744073709551616",
                                   "9223372036854775808", "18446744073709551615"])
def test_bad_seed_is_a_usage_error(scenario_file, value):
    """--seed takes the range of the scenario's seed key, [0, 2^63 - 1]: a seed the
    scenario file could not hold is not accepted on the command line either."""
    p = run_cli(str(scenario_file), "--seed", value)
    assert_usage_error(p.returncode, p.stdout, p.stderr,
                       f"--seed: expected an integer in [0, 9223372036854775807], got '{value}'")


def test_two_scenario_files_is_a_usage_error(scenario_file, tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps(base()))
    p = run_cli(str(scenario_file), str(other))
    assert_usage_error(p.returncode, p.stdout, p.stderr,
                       f"more than one scenario ('{scenario_file}', '{other}')")


@pytest.mark.parametrize("opt", ["--out", "--pcap", "--trace", "--seed"])
def test_option_without_value_is_a_usage_error(scenario_file, opt):
    p = run_cli(str(scenario_file), opt)
    assert_usage_error(p.returncode, p.stdout, p.stderr, f"{opt} needs a value")


def test_bad_scenario_checked_before_outputs_are_created(tmp_path):
    sc = with_(lambda s: s.update(bogus=1))
    out = tmp_path / "r.json"
    r = run_sim(sc, tmp_path, "--out", str(out))
    assert r.rc == 2
    assert not out.exists()


def test_help_exits_zero():
    p = run_cli("--help")
    assert p.returncode == 0
    assert "usage: moteip-sim SCENARIO.json" in p.stdout + p.stderr
    assert "{" not in p.stdout


def test_out_writes_the_result_stdout_would_print(scenario_file, tmp_path):
    plain = run_cli(str(scenario_file))
    assert plain.returncode == 0, plain.stderr
    out = tmp_path / "result.json"
    p = run_cli(str(scenario_file), "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    assert out.read_text() == plain.stdout
    assert json.loads(out.read_text())["scenario"] == "cli"


@pytest.mark.parametrize("opt", ["--out", "--pcap", "--trace"])
def test_unwritable_output_file_exits_one(scenario_file, opt):
    bad = "/nonexistent/dir/x.out"
    p = run_cli(str(scenario_file), opt, bad)
    assert p.returncode == 1, p.stderr
    assert p.stdout == ""
    assert bad in p.stderr


def test_result_write_failure_on_stdout_exits_one(scenario_file):
    if not pathlib.Path("/dev/full").exists():
        pytest.fail("/dev/full is needed for this test (Linux)")
    with open("/dev/full", "w") as full:
        p = run_cli(str(scenario_file), stdout=full)
    assert p.returncode == 1, p.stderr
    assert "writing the result" in p.stderr


def test_check_validates_without_running(scenario_file, tmp_path):
    p = run_cli(str(scenario_file), "--check")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and p.stderr == ""
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(with_(lambda s: s["flows"][0].update(dst=3))))
    p = run_cli(str(bad), "--check")
    assert_usage_error(p.returncode, p.stdout, p.stderr, f"{bad}: flows[0].dst: expected")


def test_last_names_the_highest_node_id(tmp_path):
    last = run_ok(with_(lambda s: s["flows"][0].update(dst="last")), tmp_path)
    two = run_ok(base(), tmp_path)
    assert last["flows"][0]["dst"] == 2
    assert last == two
