"""`moteip reproduce`: the registered experiments, their tables, reports,
plots and the physics they check."""
from __future__ import annotations

import json

import pytest

import moteip.experiments as experiments

PNG = b"\x89PNG\r\n\x1a\n"
REGISTERED = ["chain-ber", "hidden-terminals", "per-ber", "tcp-1hop", "tcplp-hops", "tcplp-mss",
              "tcplp-buffer", "tcplp-model", "tcplp-cwnd", "tcplp-fairness"]


def test_list(cli):
    r = cli("reproduce", "--list")
    assert (r.rc, r.stderr) == (0, ""), r
    names = [line.split()[0] for line in r.stdout.splitlines()]
    assert set(names) >= set(REGISTERED)
    assert names == sorted(names)
    for e in experiments.all_experiments():
        assert f"{e.name:18} {e.title}  [{e.source}]" in r.stdout.splitlines()


def test_every_experiment_has_its_example(repo_root):
    for e in experiments.all_experiments():
        assert (repo_root / "examples" / e.scenario).is_file(), e.name


def test_unknown_experiment(cli):
    r = cli("reproduce", "nosuch")
    assert (r.rc, r.stdout) == (2, ""), r
    assert r.stderr.startswith("moteip: reproduce 'nosuch': no such experiment; registered: ")
    for name in REGISTERED:
        assert name in r.stderr
    r = cli("reproduce")
    assert (r.rc, r.stderr) == (2, "moteip: reproduce: name an experiment, or --list them\n"), r


def test_per_ber_against_the_binomial(cli, tmp_path):
    r = cli("reproduce", "per-ber", "--runs", "2", "--out", "per")
    assert r.rc == 0, r
    out = tmp_path / "per"
    assert "PER = 1-(1-BER)^672" in r.stdout
    assert r.stdout.startswith("Packet error rate vs bit error rate")
    assert "scenario: examples/per-ber.toml; 2 runs per point; mean ± 95 % CI" in r.stdout
    assert (out / "report.txt").read_text() == r.stdout
    png = (out / "per-vs-ber.png").read_bytes()
    assert png[:8] == PNG and len(png) > 5000
    assert r.stdout.endswith("\n\nplots: per/per-vs-ber.png\nsweep: per (summary.csv, summary.json, "
                             "runs.csv)\n")

    s = json.loads((out / "summary.json").read_text())
    bers = s["vary"]["medium.ber"]
    assert len(bers) >= 3 and 0 in bers
    for p in s["points"]:
        ber = p["params"]["medium.ber"]
        frames = p["metrics"]["frames"]
        assert (frames["n"], frames["min"], frames["max"]) == (2, 2000, 2000)  # NullMAC: no retries
        total = 2 * 2000
        expected = 1 - (1 - ber) ** 672
        per = p["metrics"]["per"]["mean"]
        if ber == 0:
            assert per == 0
        else:
            sigma = (expected * (1 - expected) / total) ** 0.5
            assert abs(per - expected) <= 5 * sigma, (ber, per, expected, sigma)
        assert p["metrics"]["mpdu_bytes"]["mean"] == pytest.approx(84, abs=1e-6)
        # the table row of that BER shows the analytic value
        assert f"{expected:.4f}" in r.stdout


def test_tcplp_hops_at_or_above_tcplp(cli, tmp_path):
    """Issue 16's goal: TCPlp's segments (462 bytes, five frames) and windows
    (four segments) over 1-4 hops reach at least TCPlp's 64.1 / 28.3 /
    19.5 / 17.5 kb/s in TCPlp's geometry, and one hop at least 90 % of the
    bound computed from the scenario (94 % measured with the 40 ms retry
    delay, 98.8 % without: results.md)."""
    from moteip.experiments.tcplp import TCPLP_HOPS_KBPS
    r = cli("reproduce", "tcplp-hops", "--runs", "2", "--out", "hops")
    assert r.rc == 0, r
    out = tmp_path / "hops"
    png = (out / "goodput-vs-hops.png").read_bytes()
    assert png[:8] == PNG and len(png) > 5000
    assert (out / "report.txt").read_text() == r.stdout
    s = json.loads((out / "summary.json").read_text())

    def goodput(arm, nodes, irange=10.5):
        [p] = [p for p in s["points"] if p["params"] == {"arm": arm, "medium.interference_range_m":
                                                         irange, "topology.nodes": nodes}]
        assert p["runs"] == 2
        assert p["metrics"]["flows[0].complete"]["mean"] == 1
        assert p["metrics"]["flows[0].integrity_ok"]["mean"] == 1
        return p["metrics"]["flows[0].goodput_bps"]["mean"]

    for hops, kbps in TCPLP_HOPS_KBPS.items():
        assert goodput("reassemble", hops + 1) >= kbps * 1000, hops
        assert goodput("forward", hops + 1) > 0
    assert 0.9 <= goodput("reassemble", 2) / 118631 <= 1.0
    assert "Single-hop bound from the scenario's own parameters" in r.stdout
    assert "118631 b/s" in r.stdout
