"""The experiments behind docs/results.md that answer the seeds' tables and
figures (TSS Table 1 and Figs. 7-13 with its sensitivity, DTC's grid and
Fig. 9.3, cctrl's double route and Fig. 5.7, uIP's delayed-ACK formula and
window figures): registration and sources, the analytic values they print,
and short runs of each (two seeds)."""
from __future__ import annotations

import json
import subprocess

import pytest

import moteip.experiments as experiments
from moteip.experiments import cctrl_figures, dtc_figures, physics, relay, tss, uip
from moteip.scenario import load

PNG = b"\x89PNG\r\n\x1a\n"
NEW = ["tss-rtt", "tss-overhearing", "tss-inflight", "tss-sensitivity", "dtc-grid",
       "dtc-grid-uniform", "dtc-load", "cctrl-double", "cctrl-crc", "uip-delack", "uip-window"]


def test_registered_with_seed_section_and_figure():
    for name in NEW + ["tss-table1", "dtc", "cctrl", "tcplp-hops", "hidden-terminals"]:
        e = experiments.get(name)
        assert "seeds/00" in e.source, (name, e.source)
        assert "section" in e.source, (name, e.source)
    for name in ("tss-rtt", "tss-overhearing", "tss-inflight", "dtc-load"):
        assert "Fig" in experiments.get(name).source, name
    # DTC's numbers come from Paper D of the licentiate thesis, not from the
    # Med-Hoc-Net DTC paper (which is not among the seeds)
    for name in ("dtc", "dtc-grid", "dtc-load"):
        src = experiments.get(name).source
        assert "Making TCP/IP Viable" in src and "seeds/000" in src, src
        assert "Ritter" not in src and "Schiller" not in src, src


def test_tss_optimal_is_computed_from_the_channel(repo_root):
    sc = load(repo_root / "examples" / "tss-table1.toml").data
    for ber, paper in zip(relay.TSS_BERS, relay.TSS_OPTIMAL_PAPER):
        o = relay.tss_optimal(sc, ber)
        per = lambda bits: 1 - (1 - ber) ** bits
        expect = 10 * (1000 / (1 - per(1416)) + 2 / (1 - per(480)))
        assert o["segments"] == pytest.approx(expect, rel=1e-12)
        assert o["data_bits"] == 1416
        # the paper's row used 1001.5 frames per hop at BER 0; the channel model is the same
        assert o["segments"] == pytest.approx(paper, rel=1e-3), (ber, o, paper)
        assert o["total"] == pytest.approx(o["segments"] + o["acks"])
    # from the scenario, not a constant: a longer chain, bigger segments
    sc["topology"]["nodes"] = 21
    sc["flows"][0]["segment_bytes"] = 250
    o = relay.tss_optimal(sc, 1e-4)
    assert o["data_bits"] == 8 * (250 + 52)
    assert o["segments"] == pytest.approx(
        20 * (1000 / (1 - 1e-4) ** (8 * 302) + 2 / (1 - 1e-4) ** 480), rel=1e-12)


def test_tcp_1hop_bound_from_the_scenario(repo_root):
    sc = load(repo_root / "examples" / "tcp-1hop.toml").data
    b = physics.one_hop_bound(sc)
    assert b["frames"] == [122, 120, 120, 120, 120] and b["ack"] == 46 and b["syn"] == 54
    assert b["total_us"] == 5_414_528
    assert b["bps"] == pytest.approx(115_364, abs=1)
    # Hamilton's load of each data frame (1755 us of host time, the length
    # byte and MPDU over 5 MHz SPI) before its channel access; not the ACK's
    h = physics.one_hop_bound(sc, {"frame_host_us": 1755, "bus_bps": 5_000_000})
    assert h["total_us"] == pytest.approx(b["total_us"] + (160 * 5 + 1) * 1755 + 160 * (
        (123 + 4 * 121) * 8 / 5) + 55 * 8 / 5, abs=1)
    assert h["bps"] == pytest.approx(89_544, abs=1)
    sc["flows"][0]["mss"] = 300                # 288 data bytes: 72 + 2 x 104 + 8
    b2 = physics.one_hop_bound(sc)
    assert b2["frames"] == [122, 120, 120, 24] and b2["segments"] == 272
    assert b2["bps"] < b["bps"]


def test_tss_table1_short(cli, tmp_path):
    r = cli("reproduce", "tss-table1", "--runs", "2", "--out", "t1")
    assert r.rc == 0, r
    s = json.loads((tmp_path / "t1" / "summary.json").read_text())
    assert s["vary"]["arm"] == ["tcp", "tss-backpressure", "tss-cwnd3", "tss-backpressure-ackrel",
                                "tss-cwnd3-ackrel"]
    lines = r.stdout.splitlines()
    opt = [ln for ln in lines if ln.startswith("optimal ")]
    assert opt and "10020 (10015)" in opt[0] and "11542 (11539)" in opt[0], opt
    assert sum(ln.startswith("Conclusions: ") for ln in lines) == 6
    # one segment on the path: at BER 0 no collision, every seed the same counts
    p = next(p for p in s["points"] if p["params"] == {"arm": "tss-backpressure-ackrel",
                                                       "medium.ber": 0})
    assert p["metrics"]["flows[0].e2e_retransmissions"]["max"] == 0
    assert p["metrics"]["totals.tcp_data_frames_tx"]["min"] == \
        p["metrics"]["totals.tcp_data_frames_tx"]["max"]


@pytest.mark.parametrize("name,files", [
    ("tss-rtt", ["fig7-rtt-per-node.png", "fig8-10-rtt-over-time.png"]),
    ("tss-overhearing", ["fig11-hold-cdf.png"]),
    ("tss-inflight", ["fig12-13-in-flight.png"]),
])
def test_tss_figures_short(cli, tmp_path, name, files):
    r = cli("reproduce", name, "--runs", "2", "--out", "f")
    assert r.rc == 0, r
    for f in files:
        png = (tmp_path / "f" / f).read_bytes()
        assert png[:8] == PNG and len(png) > 5000, f
    assert (tmp_path / "f" / "report.txt").read_text() == r.stdout
    s = json.loads((tmp_path / "f" / "summary.json").read_text())
    assert s["vary"]["arm"] == ["tss-backpressure", "tss-backpressure-ackrel"]
    if name == "tss-rtt":
        # [T]'s node 1 (ours 9): one data frame and one ACK, 18.32 ms
        row = next(ln for ln in r.stdout.splitlines() if ln.split()[:2] == ["1", "9"])
        assert "18.32" in row and row.split()[3].startswith("18."), row
    if name == "tss-overhearing":
        assert "paper (one run)" in r.stdout and "0.97" in r.stdout
    if name == "tss-inflight":
        rows = [ln.split() for ln in r.stdout.splitlines() if ln[:2] in ("11", "21")]
        assert [(x[0], x[2], x[6]) for x in rows] == [
            ("11", "tss-backpressure", "1.4"), ("11", "tss-backpressure-ackrel", "1.4"),
            ("21", "tss-backpressure", "2.5"), ("21", "tss-backpressure-ackrel", "2.5")]


def test_tss_sensitivity_arms():
    arms = dict(experiments.get("tss-sensitivity").arms)
    labels = [v[0] for v in tss.SENS_VARIANTS]
    assert labels[0] == "main"
    # every variant changes exactly the keys it names over the arm's own keys
    assert arms["v0:tcp"] == {"relay.mode": "off"}
    assert arms["v1:tss-backpressure"]["phy.backoff_us"] == 14160
    assert "v7:tcp" not in arms                                 # overhearing: relays only
    assert "v8:tss-backpressure-ackrel" not in arms            # no delay to vary
    assert arms["v5:tss-cwnd3"]["medium.interference_range_m"] == 300


def test_dtc_grid_loss_models():
    assert dtc_figures.loss_model(0.10, True) == {"tcp_data": 0.10, "tcp_ack": 0.05, "link_ack": 0.02}
    assert dtc_figures.loss_model(0.05, False) == {"tcp_data": 0.05, "tcp_ack": 0.05,
                                                   "link_ack": 0.05}
    e = experiments.get("dtc-grid")
    assert e.vary["topology.nodes"] == [6, 7, 8, 9, 10, 11]
    assert [fl["tcp_data"] for fl in e.vary["medium.frame_loss"]] == [0.05, 0.10, 0.15]


def test_dtc_grid_and_load_short(cli, tmp_path):
    r = cli("reproduce", "dtc-grid", "--runs", "2", "--out", "g")
    assert r.rc == 0, r
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.endswith(tuple("0123456789"))
            and ln.split()[0].endswith("%")]
    assert len(rows) == 18, r.stdout
    assert (tmp_path / "g" / "factor-vs-hops.png").read_bytes()[:8] == PNG
    r = cli("reproduce", "dtc-load", "--runs", "2", "--out", "l")
    assert r.rc == 0, r
    nodes = [ln.split() for ln in r.stdout.splitlines() if ln[:2].strip().isdigit()]
    assert [n[0] for n in nodes] == [str(i) for i in range(11)]
    assert (tmp_path / "l" / "load-per-node.png").read_bytes()[:8] == PNG


def test_cctrl_double_routes_follow_table_5_2():
    # route 1 is the single-route path; route 2 shares N3 (our node 2)
    for h, (c1, c2) in cctrl_figures.DOUBLE_CLIENTS.items():
        flows = cctrl_figures.double_flows(h, 2)
        assert [(f["src"], f["dst"], f["port"], f["start_s"]) for f in flows] == [
            (c1, 0, 5000, 0), (c1, 0, 5001, 0), (c2, 1, 5000, 0.5), (c2, 1, 5001, 0.5)]
    # Table 5.2 in our ids (N1 = 0): C1 = N5, N6, N7, N10, N13; C2 = N4, N9, N8, N12, N11
    assert [cctrl_figures.DOUBLE_CLIENTS[h][0] + 1 for h in range(2, 7)] == [5, 6, 7, 10, 13]
    assert [cctrl_figures.DOUBLE_CLIENTS[h][1] + 1 for h in range(2, 7)] == [4, 9, 8, 12, 11]


def test_cctrl_double_route_hops(sim_path, tmp_path, repo_root):
    """The geometry of examples/cctrl-double.toml gives each client its route
    of h hops through N3 (short runs report the hop counts)."""
    sc = load(repo_root / "examples" / "cctrl-double.toml")
    for h in cctrl_figures.DOUBLE_CLIENTS:
        flows = [{**f, "duration_s": 30} for f in cctrl_figures.double_flows(h, 1)]
        (tmp_path / "s.json").write_text(sc.to_json({"flows": flows, "duration_s": 30}))
        p = subprocess.run([str(sim_path), str(tmp_path / "s.json")], capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        res = json.loads(p.stdout)
        assert [f["hops"] for f in res["flows"]] == [h, h]
        assert all(f["bytes_delivered"] > 0 for f in res["flows"]), res["flows"]


def test_cctrl_reports_from_summaries():
    pts = []
    for label, _k, _c in cctrl_figures.DOUBLE_CONFIGS:
        for h in relay.CCTRL_HOPS:
            pts.append({"params": {"arm": f"{label}/{h}"},
                        "metrics": {"delivered_segments": {"n": 2, "mean": 100.0 * h * (
                            2 if label.startswith("cctrl") else 1), "ci95": 1.0}}})
    rep = cctrl_figures.double_report({"vary": {"arm": [p["params"]["arm"] for p in pts]},
                                       "points": pts})
    rows = {r[0]: r for r in rep.rows}
    assert rows["unmodified"][-2:] == ["400", "-"]
    assert rows["cctrl"][-1] == "+100 %"
    assert rows["unmodified-i25"][-1] == "-" and rows["cctrl-i25"][-1] == "+100 %"
    assert "NullMAC +3 %" in rep.notes[0] and "LPP +49 %" in rep.notes[0]
    # issue 25: each configuration against its base, with the interval and the
    # path lengths where the per-hop intervals separate (only there a conclusion)
    sep = {ln.split()[0]: ln for ln in rep.notes[-1].splitlines()[2:]}
    assert "unmodified" in sep["cctrl"] and "above at 2,3,4,5,6" in sep["cctrl"]
    assert "+100 ± 0 %" in sep["cctrl"], sep["cctrl"]     # 800 vs 400, ci 0.45 each
    assert "unmodified-i25" in sep["cctrl-i25"] and "unmodified" not in sep
    assert sep["dual-unmodified"].rstrip().endswith("none")      # 100 h +/- 1 vs itself
    rows = cctrl_figures.double_separations({"points": pts[:10]})  # unmodified, cctrl
    assert rows == [["cctrl", "unmodified", "+100 ± 0 %", "above at 2,3,4,5,6"]]


def test_cctrl_double_runs_on_telosb():
    """issue 25: every cctrl-double arm on [B]'s mote, the cc2420 platform."""
    e = experiments.get("cctrl-double")
    assert e.runs == 15
    assert all(k.get("platform") == "cc2420" for _, k in e.arms)


def test_cctrl_crc_metric():
    res = {"node_stats": [{"frames_corrupted": 3, "frames_collided": 1, "radio_on_s": 1.0},
                          {"frames_corrupted": 5, "frames_collided": 1, "radio_on_s": 1.0}],
           "flows": [{"type": "tcp", "src": 1, "bytes_delivered": 160, "segments_sent": 20,
                      "srtt_ms": {"samples": 0, "mean": 0}}]}
    m = cctrl_figures.crc_metrics(res, {})
    assert m["bad_crc_per_tcp_tx"] == pytest.approx(10 / 20)


def test_uip_delack_formula(cli, tmp_path):
    r = cli("reproduce", "uip-delack", "--runs", "2", "--out", "u")
    assert r.rc == 0, r
    rows = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines() if ln[:3].strip().isdigit()}
    assert set(rows) == {"0", "100", "200", "500"}
    # the formula s / (t + t_d) with t measured at t_d = 0 holds within 5 %
    for td in ("100", "200", "500"):
        ratio = float(rows[td][-2])
        assert 0.95 <= ratio <= 1.05, rows[td]
    # the paper's example: 1000 / (40 ms + 200 ms) = 4167 B/s
    assert rows["200"][-1] == "4167"


def test_uip_window_short(cli, tmp_path):
    r = cli("reproduce", "uip-window", "--runs", "1", "--out", "w")
    assert r.rc == 0, r
    tput = {}
    for ln in r.stdout.splitlines():
        x = ln.split()
        if x and x[0] in ("uip", "lwip"):
            tput[(x[0], x[1], int(x[2]))] = float(x[3])
    # delayed ACKs cost one-segment senders most of their throughput ...
    assert tput[("uip", "200", 1000)] < 0.5 * tput[("uip", "0", 1000)]
    # ... and grow with the segment; a window of two segments escapes them
    assert tput[("uip", "200", 1200)] > tput[("uip", "200", 200)]
    w = uip.LWIP_MSS
    assert tput[("lwip", "200", 2 * w)] > 3 * tput[("lwip", "200", w)]
    assert (tmp_path / "w" / "throughput-vs-window.png").read_bytes()[:8] == PNG


def test_tss_sensitivity_interference_figure(tmp_path):
    """The figure that keeps what each interference setting does: one bar per
    configuration and setting, from the summary's means."""
    points = []
    for vi, _ in tss.SENS_INTERFERENCE:
        for k, cfg in enumerate(tss.SENS_CONFIGS):
            for ber in tss.SENS_BERS:
                m = {"totals.tcp_data_frames_tx": {"mean": 10000.0 + vi, "ci95": 1.0},
                     "totals.tcp_ack_frames_tx": {"mean": 10000.0, "ci95": 1.0},
                     "flows[0].goodput_bps": {"mean": 1000.0 * (k + 1), "ci95": 10.0}}
                points.append({"params": {"arm": f"v{vi}:{cfg}", "medium.ber": ber}, "metrics": m})
    paths = tss.sens_figures({"points": points}, tmp_path)
    assert paths == [str(tmp_path / "interference.png")]
    assert (tmp_path / "interference.png").read_bytes().startswith(PNG)
    assert [v for v, _ in tss.SENS_INTERFERENCE] == [5, 0, 6]
    assert tss.SENS_VARIANTS[5][1] == {"medium.interference_range_m": 300}
    assert tss.SENS_VARIANTS[6][1] == {"medium.interference_range_m": 700}


def test_dtc_cause_model_and_arms():
    """The model behind dtc-cause: with one segment in flight every attempt
    must cross every unrepaired hop both ways; at 5 hops and the example's
    losses TCP / DTC = 2.84 (the audit's 2.8), without ACK losses ~5."""
    loss = {"tcp_data": 0.10, "tcp_ack": 0.05, "link_ack": 0.02}
    tcp = dtc_figures.predicted_e2e(5, loss, 1, 500, {})
    dtc = dtc_figures.predicted_e2e(5, loss, 1, 500, {"dtc": True})
    assert round(tcp, 1) == 32.4 and round(dtc, 1) == 11.4 and round(tcp / dtc, 2) == 2.84
    no_ack = {"no_ack_loss": True}
    assert round(dtc_figures.predicted_e2e(10, loss, 1, 500, no_ack), 1) == 52.9
    assert round(dtc_figures.predicted_e2e(10, loss, 1, 500, {"dtc": True, **no_ack}), 2) == 5.05
    assert dtc_figures.predicted_e2e(5, loss, 1, 500, {"dtc": True, "first": True,
                                                       "acks": True}) == 0
    arms = dict(experiments.get("dtc-cause").arms)
    assert arms["dtc-no-ack-loss"]["medium.frame_loss"]["tcp_ack"] == 0
    assert arms["dtc-endpoints"] == {"relay.mode": "dtc", "relay.endpoints": True}
    assert arms["dtc-cc2420"]["platform"] == "cc2420"
