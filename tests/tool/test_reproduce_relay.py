"""`moteip reproduce dtc` and `moteip reproduce cctrl`: registration, the
examples' frames, the derived metrics, and short smoke runs of the reports."""
from __future__ import annotations

import json
import struct
import subprocess
import tomllib

import pytest

import moteip.experiments as experiments
from moteip.experiments import relay


def test_dtc_and_cctrl_are_registered_with_their_examples(cli, repo_root):
    r = cli("reproduce", "--list")
    assert r.rc == 0, r
    names = [line.split()[0] for line in r.stdout.splitlines()]
    assert {"dtc", "cctrl"} <= set(names)
    dtc, cc = experiments.get("dtc"), experiments.get("cctrl")
    assert (dtc.scenario, dtc.runs, [a for a, _ in dtc.arms]) == (
        "dtc.toml", 30, ["tcp", "dtc", "dtc-nosack", "tcp-w4", "dtc-w4", "dtc-ours", "tcp-2-link-retries",
                         "tcp-ipv6", "dtc-ipv6", "tcp-rpl-ns", "dtc-rpl-ns", "tcp-rpl-s", "dtc-rpl-s"])
    assert (cc.scenario, cc.runs, cc.vary) == ("cctrl.toml", 15, {"topology.nodes": [3, 4, 5, 6, 7]})
    # issue 25: [B]'s IPv4 configurations on its TelosB platform, any other arm as it was
    for a, k in cc.arms:
        assert (k.get("platform") == "cc2420") == (a in experiments.relay.CCTRL_TELOSB_ARMS), a
    assert [a for a, _ in cc.arms] == ["unmodified", "basic", "keep", "keep-drop", "hop", "activity",
                                       "dual", "dual-unmodified", "keep-link", "dual-link",
                                       "ipv6-unmodified", "ipv6-keep", "rpl-ns-unmodified",
                                       "rpl-ns-keep", "rpl-s-unmodified", "rpl-s-keep"]
    # issue 23's arms: each RPL arm differs from its ipv6- arm in routing (and the
    # 30 s the chain takes to join) only
    arms = dict(cc.arms)
    for relay in ("unmodified", "keep"):
        base = arms[f"ipv6-{relay}"]
        for mode, name in (("non-storing", "rpl-ns"), ("storing", "rpl-s")):
            assert arms[f"{name}-{relay}"] == {**base, "routing.type": "rpl", "routing.mode": mode,
                                               "flows[0].start_s": 30, "duration_s": 630}
    for e in (dtc, cc):
        assert (repo_root / "examples" / e.scenario).is_file()


def example_json(repo_root, name: str, **top) -> dict:
    d = tomllib.loads((repo_root / "examples" / name).read_text())
    d.pop("description"), d.pop("sweep")
    d.update(top)
    return d


def pcap_lengths(path) -> list[int]:
    data = path.read_bytes()
    assert struct.unpack_from("<I", data, 20)[0] == 195
    off, out = 24, []
    while off < len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        out.append(incl)
        off += 16 + incl
    return out


def run_pcap(sim_path, tmp_path, sc: dict) -> tuple[dict, list[int]]:
    (tmp_path / "s.json").write_text(json.dumps(sc))
    # the radio view: raw-IP networks capture their IP view by default (sim/capture.h)
    p = subprocess.run([str(sim_path), str(tmp_path / "s.json"), "--pcap", str(tmp_path / "p.pcap"),
                        "--pcap-view", "radio"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout), pcap_lengths(tmp_path / "p.pcap")


def test_cctrl_frames_are_79_and_63_bytes(sim_path, tmp_path, repo_root):
    # [B] Table 5.1: IPv4 20 + TCP 20 + 16 bytes behind 23 bytes of link header;
    # the ACK without the payload. A lossless 2-hop run of 5 s: every frame is a
    # data frame, a TCP ACK, a link ACK (5 bytes) or one of the 4 handshake frames
    # (SYN, SYN-ACK with the 4-byte MSS option: 71 bytes) sent on both hops.
    sc = example_json(repo_root, "cctrl.toml", duration_s=5)
    sc["medium"]["ber"] = 0
    sc["flows"][0]["duration_s"] = 5
    r, lengths = run_pcap(sim_path, tmp_path, sc)
    hist = {n: lengths.count(n) for n in set(lengths)}
    assert set(hist) == {5, 63, 71, 79}, hist
    assert hist[71] == 4
    f = r["flows"][0]
    assert f["bytes_delivered"] % 16 == 0 and f["e2e_retransmissions"] == 0
    d = f["bytes_delivered"] // 16
    assert d > 200
    # each segment crossed 2 hops, and so did its ACK (the run may end with the
    # last ones part way)
    assert hist[79] in (2 * d, 2 * d + 1), (hist, d)
    assert 2 * d - 2 <= hist[63] <= 2 * d + 2, (hist, d)
    assert hist[79] + hist[63] + hist[71] - 1 <= hist[5] <= hist[79] + hist[63] + hist[71]
    # airtime: the client sent its SYN (71), the d data frames (79) and a link ACK
    # (5) for everything else it transmitted, each (6 + MPDU) x 32 us on the air
    c = r["node_stats"][2]
    assert c["tcp_data_frames_tx"] == 1 + d
    link_acks = c["frames_tx"] - 1 - d
    assert c["tx_s"] == pytest.approx((6 + 71 + d * (6 + 79) + link_acks * (6 + 5)) * 32e-6,
                                      rel=1e-12)


def test_dtc_data_frames_are_116_bytes(sim_path, tmp_path, repo_root):
    # IPv4 20 + TCP 20 + 64 data + 12 link bytes; no loss: 500 segments, each
    # sent once over 10 hops
    sc = example_json(repo_root, "dtc.toml")
    del sc["medium"]["frame_loss"]
    r, lengths = run_pcap(sim_path, tmp_path, sc)
    assert lengths.count(116) == 10 * 500
    assert r["flows"][0]["e2e_retransmissions"] == 0 and r["flows"][0]["complete"]


def fake_result(nodes: int, flows: list[dict], relay_rexmits: list[int], rexmits: int) -> dict:
    ns = [{"id": i, "frames_tx": 10 * i, "radio_on_s": 600.0, "tcp": {}} for i in range(nodes)]
    for i, n in enumerate(relay_rexmits):
        if n:
            ns[i]["relay"] = {"local_rexmits": n}
    ns[nodes - 1]["tcp"] = {"rexmits": rexmits}
    return {"node_stats": ns, "flows": flows}


def tcp_flow(src: int, delivered: int, rtt: float, e2e: int) -> dict:
    return {"type": "tcp", "src": src, "bytes_delivered": delivered, "e2e_retransmissions": e2e,
            "srtt_ms": {"samples": 10, "mean": rtt}}


def test_cctrl_metrics_count_both_flows_and_the_client_node_once():
    # dual: both flows of node 3 report the node's 30 retransmissions; counted once
    r = fake_result(4, [tcp_flow(3, 1600, 20.0, 30), tcp_flow(3, 800, 40.0, 30)], [0, 4, 6, 0], 30)
    m = relay.cctrl_metrics(r, {})
    assert m["delivered_segments"] == 150                  # (1600 + 800) / 16
    assert m["e2e_rexmits"] == 30 and m["local_rexmits"] == 10
    assert m["rexmits_per_segment"] == pytest.approx(40 / 150)
    assert m["rtt_ms"] == pytest.approx(30.0)
    assert m["radio_on_ms_per_node_segment"] == pytest.approx(1000 * 2400 / (4 * 150))


def test_dtc_metrics_read_the_nodes_near_the_sender():
    r = fake_result(11, [tcp_flow(0, 32000, 1.0, 5)], [0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 1], 0)
    m = relay.dtc_metrics(r, {})
    assert m == {"node_stats[0].frames_tx": 0, "node_stats[1].frames_tx": 10,
                 "node_stats[2].frames_tx": 20, "node_stats[3].frames_tx": 30,
                 "relay_local_rexmits": 6}


def test_reproduce_dtc_smoke(cli, tmp_path):
    r = cli("reproduce", "dtc", "--runs", "2", "--out", "dtc")
    assert r.rc == 0, r
    assert r.stdout.startswith("DTC: source retransmissions on a 10-hop chain")
    assert (tmp_path / "dtc" / "report.txt").read_text() == r.stdout
    s = json.loads((tmp_path / "dtc" / "summary.json").read_text())
    assert s["vary"]["arm"] == ["tcp", "dtc", "dtc-nosack", "tcp-w4", "dtc-w4", "dtc-ours",
                                "tcp-2-link-retries", "tcp-ipv6", "dtc-ipv6", "tcp-rpl-ns",
                                "dtc-rpl-ns", "tcp-rpl-s", "dtc-rpl-s"]
    lines = r.stdout.splitlines()
    [tcp] = [ln for ln in lines if ln.startswith("tcp ")]
    cells = tcp.split()
    assert "51" in cells
    for p in s["points"]:
        m = p["metrics"]
        assert m["flows[0].complete"]["mean"] == 1           # max_retries 255: nothing aborts
        assert m["flows[0].bytes_delivered"]["mean"] == 500 * 64
        assert m["flows[0].segments_sent"]["min"] >= 501     # 500 + the SYN
        for i in range(4):
            assert m[f"node_stats[{i}].frames_tx"]["n"] == 2
    # the baseline loses segments: 10 hops x ~1 % per hop
    tcp_e2e = s["points"][0]["metrics"]["flows[0].e2e_retransmissions"]["mean"]
    assert 25 <= tcp_e2e <= 120, tcp_e2e


def _cctrl_points(segs: dict[str, float], ci: float = 1.0, **params: object) -> list[dict]:
    """A summary's points: each arm delivers segs[arm] x hops, +/- ci."""
    return [{"params": {"arm": arm, "topology.nodes": h + 1, **params},
             "metrics": {"delivered_segments": {"n": 15, "mean": seg * h, "ci95": ci * h}}}
            for arm, seg in segs.items() for h in relay.CCTRL_HOPS]


def test_cctrl_report_from_a_summary():
    pts = _cctrl_points({"unmodified": 100.0, "keep": 150.0})
    rep = relay.cctrl_report({"vary": {"arm": ["unmodified", "keep"]}, "points": pts})
    assert rep.headers[-1] == "overall" and rep.headers[2] == "2 hops"
    row = rep.rows[0]
    assert row[:2] == ["unmodified", "segments delivered in 600 s"]
    assert row[-1] == "400"                                 # mean of 200, 300, .., 600
    assert any(n.startswith("Overall segments vs unmodified (mean over 2-6 hops): keep +50 %")
               for n in rep.notes)
    # the change's interval, and every path length separated (+/-2..6 against 100 apart)
    assert "+50 ± 1 %" in rep.notes[-1] and "above at 2,3,4,5,6" in rep.notes[-1]


def test_cctrl_report_compares_each_routing_with_its_own_unmodified():
    """An RPL arm's change is against the same routing's unmodified arm."""
    pts = _cctrl_points({"unmodified": 100.0, "keep": 150.0, "rpl-ns-unmodified": 50.0,
                         "rpl-ns-keep": 100.0})
    rep = relay.cctrl_report({"vary": {"arm": ["unmodified", "keep", "rpl-ns-unmodified",
                                               "rpl-ns-keep"]}, "points": pts})
    table = rep.notes[-1].splitlines()
    line = next(x for x in table if x.startswith("rpl-ns-keep"))
    assert "rpl-ns-unmodified" in line and "+100 ± " in line
    assert not any(x.startswith("rpl-ns-unmodified") for x in table)


def test_overall_interval_and_gain():
    """The overall interval adds the per-hop half-widths in quadrature; the
    change's interval propagates both; separation needs disjoint intervals."""
    s = {"points": _cctrl_points({"unmodified": 100.0, "keep": 101.0}, ci=3.0)}
    m, ci = relay.overall_ci(s, "keep", "delivered_segments")
    assert m == pytest.approx(404.0)
    assert ci == pytest.approx(3.0 * (4 + 9 + 16 + 25 + 36) ** 0.5 / 5)
    g, gci = relay.gain_ci((150.0, 0.0), (100.0, 0.0))
    assert (g, gci) == (pytest.approx(50.0), 0.0)
    g, gci = relay.gain_ci((150.0, 3.0), (100.0, 4.0))
    assert gci == pytest.approx(150.0 * ((3 / 150) ** 2 + (4 / 100) ** 2) ** 0.5)
    # 101 vs 100 per hop with +/-3 per hop: never separated
    assert relay.separated_hops(s, "keep", "unmodified") == ([], [])
    s = {"points": _cctrl_points({"unmodified": 100.0, "keep": 90.0}, ci=3.0)}
    assert relay.separated_hops(s, "keep", "unmodified") == ([], [2, 3, 4, 5, 6])
    assert relay._hops_text([], [2, 3]) == "below at 2,3" and relay._hops_text([], []) == "none"


def test_cctrl_ber_sweeps_the_channel_on_telosb():
    """cctrl-ber: [B]'s main comparison on the cc2420 platform across the BER
    sweep, 15 runs (the thesis's); every arm is its cctrl arm plus the platform."""
    e = experiments.get("cctrl-ber")
    assert (e.scenario, e.runs) == ("cctrl.toml", 15)
    assert e.vary == {"topology.nodes": [3, 4, 5, 6, 7], "medium.ber": relay.CCTRL_BERS}
    assert 2.5e-4 in relay.CCTRL_BERS and 1e-4 in relay.CCTRL_BERS and 0.0 in relay.CCTRL_BERS
    cfg = dict(relay.CCTRL_ARMS)
    for arm, keys in e.arms:
        assert keys == {**cfg[arm], "platform": "cc2420"}
    assert [a for a, _ in e.arms] == ["unmodified", "keep", "dual"]
    # [B]'s 79-byte data frame: 14.6 % lost at 2.5e-4
    assert relay.per(2.5e-4, relay.CCTRL_DATA_BITS) == pytest.approx(0.146, abs=5e-4)
    for name in ("cctrl-mac", "cctrl-crc"):
        assert all(k.get("platform") == "cc2420" for _, k in experiments.get(name).arms), name
    assert experiments.get("cctrl-mac").runs == 15


def test_cctrl_ber_report_places_the_paper_gain():
    """The report's gain per BER, where the intervals separate, and the BER at
    which the curve crosses [B]'s +84 %."""
    pts = []
    for ber, dual in ((1e-4, 150.0), (2.5e-4, 200.0)):
        pts += _cctrl_points({"unmodified": 100.0, "keep": 101.0, "dual": dual},
                             medium__ber=ber)
    for p in pts:
        p["params"]["medium.ber"] = p["params"].pop("medium__ber")
    rep = relay.cctrl_ber_report({"vary": {"arm": ["unmodified", "keep", "dual"],
                                           "medium.ber": [1e-4, 2.5e-4]}, "points": pts})
    assert len(rep.rows) == 6 and rep.rows[0][:3] == ["0.0001", "6.1 %", "unmodified"]
    dual = [r for r in rep.rows if r[2] == "dual"]
    assert [r[-1] for r in dual] == ["+50 ± 1 %", "+100 ± 1 %"]
    table = next(n for n in rep.notes if n.startswith("BER (gain)"))
    assert "above at 2,3,4,5,6" in table and "none" in table      # dual separated, keep not
    crossing = next(n for n in rep.notes if n.startswith("dual: "))
    # between +50 % at 1e-4 and +100 % at 2.5e-4, in log(1 + gain):
    # 1e-4 + 1.5e-4 x (ln 1.84 - ln 1.5) / (ln 2 - ln 1.5) = 2.07e-4
    assert "crossed at BER 0.00021 (between 0.0001 and 0.00025)" in crossing, crossing
    assert relay.paper_gain_ber([(0.0, 10.0, 1.0)]).startswith("+84 % is crossed at BER no BER swept")
