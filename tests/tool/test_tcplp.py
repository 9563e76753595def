"""TCPlp's studies (python/moteip/experiments/tcplp.py): the frame model
behind the single-hop bound against the simulator's own frames, the bound
computed from each scenario, `moteip cwnd`, and each study's report."""
from __future__ import annotations

import json
import struct

import pytest

from moteip.experiments import physics, tcplp

PNG = b"\x89PNG\r\n\x1a\n"


def pcap_mpdus(path) -> list[bytes]:
    data = path.read_bytes()
    off, out = 24, []
    while off < len(data):
        _, _, incl, _ = struct.unpack_from("<IIII", data, off)
        off += 16
        out.append(data[off:off + incl])
        off += incl
    return out[1:]      # the first record is the 6LoWPAN context (docs/SIMULATOR.md)


def test_frame_model_matches_the_simulator(cli, tmp_path, repo_root):
    """The bound's frames are the ones on the air: every segment of TCPlp's
    462 bytes goes as 122+120+120+120+94-byte MPDUs at one hop, the TCP ACKs
    are 46 bytes, one per two segments (delayed ACKs)."""
    r = cli("run", str(repo_root / "examples" / "tcplp-hops.toml"), "--pcap", "one.pcap",
            "--pcap-node", "0", "--out", "one.json")     # node 0's view: no link retries
    assert r.rc == 0, r
    frames = [f for f in pcap_mpdus(tmp_path / "one.pcap") if len(f) > 5]   # no link ACKs
    data = [len(f) for f in frames if f[7] == 0]
    acks = [len(f) for f in frames if f[7] == 1]
    bound = physics.one_hop_bound(json.loads((tmp_path / "one.scenario.json").read_text()))
    want = physics.segment_frames(462)
    assert want == bound["frames"] == [122, 120, 120, 120, 94]
    segs = [data[i:i + 5] for i in range(1, len(data) - 1, 5)]      # after the SYN
    assert sum(s == want for s in segs) == 400, segs[:3]
    assert acks.count(bound["ack"]) in range(195, 206)
    res = json.loads((tmp_path / "one.json").read_text())
    assert res["flows"][0]["segment_loss"] == 0


@pytest.mark.parametrize("change,expect", [
    ({}, 118631),
    ({"phy": {"bitrate": 100000}}, None),
    ({"link": {"frame_max": 80}}, None),
    ({"flows": [{"receiver": {"delayed_ack": False}}]}, None),
])
def test_single_hop_bound_is_computed_from_the_scenario(change, expect):
    """tcplp-hops' bound, and what each scenario parameter does to it."""
    d = {"flows": [{"mss": 474, "rx_buffer": 1848, "bytes": 184800}]}
    for k, v in change.items():
        if k == "flows":
            d["flows"][0].update(v[0])
        else:
            d[k] = v
    b = physics.one_hop_bound(d)
    if expect is not None:
        assert round(b["bps"]) == expect and b["acks_per_segment"] == 0.5
    else:
        assert b["bps"] < 118631
    if "link" in change:
        assert len(b["frames"]) > 5 and max(b["frames"]) <= 80


def test_payload_for_frames_fills_them():
    for k in range(1, 9):
        p = tcplp.payload_for_frames(k)
        assert len(physics.segment_frames(p)) == k
        assert len(physics.segment_frames(p + 1)) == k + 1


def test_equations():
    assert tcplp.eq2(462, 0.1, 0.0, 4) == pytest.approx(462 * 8 * 4 / 0.1)
    assert tcplp.eq2(462, 0.1, 0.05, 4) == pytest.approx(462 * 8 / 0.1 / 0.35)
    assert tcplp.eq1(462, 0.1, 0.0) is None
    assert tcplp.eq1(462, 0.1, 1.5 / 100) == pytest.approx(462 * 8 / 0.1 * 10)


def test_cwnd_command(cli, tmp_path, repo_root):
    r = cli("run", str(repo_root / "examples" / "tcplp-cwnd.toml"), "--set",
            "flows[0].duration_s=20", "--trace", "t.jsonl", "--out", "r.json")
    assert r.rc == 0, r
    r = cli("cwnd", "t.jsonl", "--csv", "cc.csv", "--out", "cc.png", "--mss", "462",
            "--from", "2", "--to", "18")
    assert r.rc == 0, r
    assert r.stdout.startswith("flow 0: ") and "cwnd at the peer's window" in r.stdout
    lines = (tmp_path / "cc.csv").read_text().splitlines()
    assert lines[0] == "flow,t_s,cwnd,ssthresh,rto_ms,wnd,srtt_ms,flight"
    rows = [line.split(",") for line in lines[1:]]
    assert len(rows) > 20
    ts = [float(x[1]) for x in rows]
    assert ts == sorted(ts)
    assert all(int(x[2]) >= 474 and int(x[4]) >= 300 for x in rows)   # cwnd >= 1 MSS, RTO >= min
    assert (tmp_path / "cc.png").read_bytes()[:8] == PNG
    r = cli("cwnd", "t.jsonl", "--flow", "3")
    assert r.rc == 2 and "no tcp_cc events of flow 3" in r.stderr, r
    r = cli("cwnd", "nosuch.jsonl")
    assert r.rc == 2 and "cannot read the trace" in r.stderr, r


def summary_of(tmp_path, name):
    return json.loads((tmp_path / name / "summary.json").read_text())


def test_reproduce_mss_and_buffer(cli, tmp_path):
    r = cli("reproduce", "tcplp-mss", "--runs", "1", "--out", "mss")
    assert r.rc == 0, r
    s = summary_of(tmp_path, "mss")
    g = [next(p for p in s["points"] if p["params"]["arm"] == f"{k} frames")
         ["metrics"]["flows[0].goodput_bps"]["mean"] for k in tcplp.MSS_FRAMES]
    assert g == sorted(g), g                      # larger segments, more goodput ...
    assert g[4] / g[0] > 1.4 and g[7] / g[4] < 1.1  # ... diminishing beyond five frames
    assert "header overhead" in r.stdout
    r = cli("reproduce", "tcplp-buffer", "--runs", "1", "--out", "buf")
    assert r.rc == 0, r
    assert "TCPlp table 7" in r.stdout
    assert (tmp_path / "buf" / "goodput-vs-window.png").read_bytes()[:8] == PNG


def test_reproduce_model_cwnd_fairness(cli, tmp_path):
    r = cli("reproduce", "tcplp-model", "--runs", "1", "--out", "model")
    assert r.rc == 0, r
    s = summary_of(tmp_path, "model")
    for p in s["points"]:
        assert "eq2_bps" in p["metrics"], p["params"]
    r = cli("reproduce", "tcplp-cwnd", "--runs", "1", "--out", "cwnd")
    assert r.rc == 0, r
    for d in (0, 40):
        assert (tmp_path / "cwnd" / f"cwnd-d{d}ms.png").read_bytes()[:8] == PNG
        assert (tmp_path / "cwnd" / f"cwnd-d{d}ms.csv").is_file()
    assert "cwnd over time, seed 1, delay 40 ms" in r.stdout
    r = cli("reproduce", "tcplp-fairness", "--runs", "1", "--out", "fair")
    assert r.rc == 0, r
    s = summary_of(tmp_path, "fair")
    # two flows share: at one hop equally, at three neither starves (in
    # seed 1 one gets 18 % of the pair's goodput: docs/results.md)
    p = next(p for p in s["points"] if p["params"]["arm"] == "1 hop A+B")
    assert p["metrics"]["jain"]["mean"] > 0.95
    p = next(p for p in s["points"] if p["params"]["arm"] == "3 hops A+B")
    g = [p["metrics"][f"flows[{i}].goodput_bps"]["mean"] for i in (0, 1)]
    assert min(g) >= 0.15 * sum(g), g


def test_gap_link_quality_comes_from_tcplps_own_numbers():
    """tcplp-gap's BER is derived, not chosen: TCPlp's 75 kb/s at d = 0
    against its own 41 + 4.1 ms per segment leaves 0.51 retries of 8.2 ms
    per segment, 9.3 % of 5.5 frames, a BER of 9.6e-5 on 127-byte frames;
    the retry limit is its OpenThread configuration's (10 attempts)."""
    q = tcplp.implied_frame_loss()
    assert q["segment_ms"] == pytest.approx(49.28, abs=0.01)
    assert q["retries_per_segment"] == pytest.approx(0.510, abs=0.001)
    assert q["frame_loss"] == pytest.approx(0.0927, abs=0.0005)
    assert q["ber"] == pytest.approx(9.57e-5, rel=0.01)
    assert tcplp.GAP_BER == 1e-4
    assert tcplp.TCPLP_MAX_RETRIES == 9
    assert tcplp.TCPLP_BOUND_BPS == pytest.approx(81951, abs=1)
    labels = [label for label, _ in tcplp.GAP_ARMS]
    assert labels[:2] == ["hamilton", "hamilton d0"]
    for _, params in tcplp.GAP_ARMS:
        assert params["platform"] == "at86rf233"
