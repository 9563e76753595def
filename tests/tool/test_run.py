"""`moteip run` and `moteip.run`: one run, its table, result JSON, pcap and trace."""
from __future__ import annotations

import json
import re
import struct
import tomllib

import moteip
import pytest


def _pcap_records(data: bytes) -> int:
    assert data[:4] == b"\xd4\xc3\xb2\xa1"  # classic pcap, little endian
    assert struct.unpack("<I", data[20:24])[0] == 195  # LINKTYPE_IEEE802_15_4_WITHFCS
    off, n = 24, 0
    while off < len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        off += 16 + incl
        n += 1
    assert off == len(data)
    return n - 1    # the first record is the 6LoWPAN context, sent by no node


def test_run_writes_result_pcap_trace_and_prints_the_table(cli, tcp2, tmp_path):
    r = cli("run", "tcp2.toml", "--seed", "3", "--out", "res/r.json", "--pcap", "t.pcap",
            "--trace", "t.jsonl")
    assert r.rc == 0, r
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0] == "tcp2.toml: seed 3"
    assert lines[1].split() == ["flow", "type", "path", "hops", "done", "result"]
    assert re.fullmatch(r"0\s+tcp\s+0 -> 1\s+1\s+yes\s+4000/4000 B intact, \d+ b/s, \d+ retx, \d+ RTOs",
                        lines[3]), lines[3]
    assert re.search(r"^2 nodes, [\d.]+ s simulated, \d+ events; frames sent \d+, ", r.stdout, re.M)
    assert r.stdout.endswith("\nresult: res/r.json\npcap: t.pcap\ntrace: t.jsonl\n")

    result = json.loads((tmp_path / "res" / "r.json").read_text())
    assert result["seed"] == 3 and result["nodes"] == 2
    f = result["flows"][0]
    assert (f["type"], f["complete"], f["integrity_ok"], f["bytes_delivered"]) == ("tcp", True, True, 4000)
    # the printed numbers are the result's
    assert f"{f['bytes_delivered']}/{f['bytes_expected']} B intact, " in lines[3]
    assert f"frames sent {result['totals']['frames_tx']}," in r.stdout

    # determinism: the API gives the same result for the same seed
    assert moteip.run(tcp2, seed=3) == result
    assert moteip.run(tcp2, seed=4) != result

    pcap = (tmp_path / "t.pcap").read_bytes()
    assert len(pcap) > 2000
    assert _pcap_records(pcap) == result["totals"]["frames_tx"]

    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert events and all({"t_us", "ev", "node"} <= e.keys() for e in events)
    assert sum(e["ev"] == "tx" for e in events) == result["totals"]["frames_tx"]
    assert [e["ev"] for e in events].count("flow_done") == 1
    assert [e["t_us"] for e in events] == sorted(e["t_us"] for e in events)


def test_set_changes_the_result(cli, udp3, tmp_path):
    r = cli("run", "udp3.toml", "--seed", "2", "--out", "clean.json")
    assert r.rc == 0, r
    r = cli("run", "udp3.toml", "--seed", "2", "--set", "medium.ber=1e-3", "--out", "ber.json")
    assert r.rc == 0, r
    clean = json.loads((tmp_path / "clean.json").read_text())
    ber = json.loads((tmp_path / "ber.json").read_text())
    assert clean["totals"]["frames_corrupted"] == 0
    assert ber["totals"]["frames_corrupted"] > 0
    assert ber["totals"]["link_retries"] > clean["totals"]["link_retries"]
    assert ber == moteip.run(udp3, seed=2, params={"medium.ber": 1e-3})
    # the same key spelled with a dotted index
    r = cli("run", "udp3.toml", "--seed", "2", "--set", "flows.0.count=5", "--out", "five.json")
    assert r.rc == 0, r
    assert json.loads((tmp_path / "five.json").read_text())["flows"][0]["sent"] == 5


def test_run_a_plain_dict(udp3):
    d = tomllib.loads(udp3.read_text())
    d.pop("description")
    r = moteip.run(d, seed=5)
    assert r["seed"] == 5 and r["scenario"] == "udp3" and r["nodes"] == 3
    assert r["flows"][0]["received"] == 20
    assert r == moteip.run(udp3, seed=5)
    assert d == {k: v for k, v in tomllib.loads(udp3.read_text()).items() if k != "description"}


def test_run_a_scenario_object(udp3):
    sc = moteip.load_scenario(udp3)
    assert moteip.run(sc, seed=1, params={"flows[0].count": 3})["flows"][0]["sent"] == 3


def test_default_output_path_is_out_stem_run_seed(cli, udp3, tmp_path):
    r = cli("run", "udp3.toml", "--seed", "4")
    assert r.rc == 0, r
    out = tmp_path / "out" / "udp3" / "run-seed4.json"
    assert r.stdout.endswith("\nresult: out/udp3/run-seed4.json\n")
    assert json.loads(out.read_text())["seed"] == 4
    r = cli("run", "udp3.toml")  # the scenario's seed
    assert r.rc == 0, r
    assert json.loads((tmp_path / "out" / "udp3" / "run-seed1.json").read_text())["seed"] == 1


def test_default_output_path_follows_a_seed_set_with_set(cli, udp3, tmp_path):
    r = cli("run", "udp3.toml", "--set", "seed=7")
    assert r.rc == 0, r
    assert r.stdout.startswith("udp3.toml: seed 7\n")
    assert json.loads((tmp_path / "out" / "udp3" / "run-seed7.json").read_text())["seed"] == 7
    assert not (tmp_path / "out" / "udp3" / "run-seed1.json").exists()


def test_duty_cycling_keys_pass_through_and_give_energy_metrics(cli, udp3, tmp_path):
    """mac.rdc and radio.profile reach the simulator as written; the result's
    energy and per-delivery figures become metrics."""
    params = {"mac.rdc.type": "contikimac", "mac.rdc.check_rate_hz": 8,
              "radio.profile": "at86rf233"}
    r = moteip.run(udp3, seed=1, params=params)
    assert r["radio"]["profile"] == "at86rf233"
    assert [n["rdc"] for n in r["node_stats"]] == ["contikimac"] * 3
    # reports 0.1 s apart over 125 ms wake-ups: CSMA-CA meets the trains and
    # gives one report up (five busy CCAs)
    got = r["flows"][0]["received"]
    assert got + r["node_stats"][0]["mac"].get("tx_channel_busy", 0) == 20
    m = moteip.result_metrics(r)
    assert 0 < m["nodes.mean.duty_cycle"] < 0.2
    assert m["nodes.max.duty_cycle"] >= m["nodes.mean.duty_cycle"]
    assert m["totals.energy_mj"] == pytest.approx(sum(n["energy_mj"] for n in r["node_stats"]))
    assert m["totals.energy_per_delivered_kb_mj"] == pytest.approx(
        m["totals.energy_mj"] / (got * 40 / 1000))
    assert m["nodes.mean.radio_on_per_delivered_segment_ms"] == pytest.approx(
        m["totals.radio_on_per_delivered_segment_ms"] / 3)
    assert "nodes.sum.radio_on_per_delivered_segment_ms" not in m
    # the command line takes the same keys
    r = cli("run", "udp3.toml", "--set", "mac.rdc.type=contikimac", "--set",
            "mac.rdc.check_rate_hz=16", "--out", "cm.json")
    assert r.rc == 0, r
    cm = json.loads((tmp_path / "cm.json").read_text())
    assert cm["node_stats"][0]["mac"]["rdc_checks"] > 0


def test_toml_events_and_the_radio_trace_pass_through(cli, tmp_path):
    """[[events]] tables reach the simulator as its "events" list, and
    --trace-radio adds the radio state changes to the trace."""
    (tmp_path / "dyn.toml").write_text(
        'name = "dyn"\nduration_s = 20\nstop_when_done = false\n'
        '[topology]\ntype = "chain"\nnodes = 3\nspacing_m = 40\n'
        '[[flows]]\ntype = "udp"\nsrc = 0\ndst = 2\ninterval_s = 1\ncount = 15\n'
        '[[events]]\ntype = "node_down"\nat_s = 5\nnode = 1\n'
        '[[events]]\ntype = "node_up"\nat_s = 10\nnode = 1\n')
    r = cli("run", "dyn.toml", "--out", "r.json", "--trace", "t.jsonl", "--trace-radio")
    assert r.rc == 0, r
    result = json.loads((tmp_path / "r.json").read_text())
    assert [e["type"] for e in result["scenario_events"]] == ["node_down", "node_up"]
    down = result["scenario_events"][0]["flows"][0]
    assert down["sent"] == 5 and down["received"] == 0 and down["lost"] == 5
    assert result["node_stats"][1]["reboots"] == 1
    evs = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert {e["state"] for e in evs if e["ev"] == "radio"} >= {"off", "listen", "tx"}
    # moteip view takes them as the timeline's state bands, the events as others
    from moteip import viewer
    page = viewer.load_trace(tmp_path / "t.jsonl")
    assert len(page["states"]) == sum(e["ev"] == "radio" for e in evs)
    assert {o[2] for o in page["others"]} >= {"node_down", "node_up", "routes"}
    assert "\nat 5 s node 1 down; flow 0 lost 5/5\nat 10 s node 1 up; flow 0 lost 0/" in r.stdout
    r = cli("run", "dyn.toml", "--trace-radio")
    assert r.rc == 2 and "--trace-radio needs --trace FILE" in r.stderr
