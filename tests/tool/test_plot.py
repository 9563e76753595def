"""`moteip plot` and `moteip metrics` on sweep directories."""
from __future__ import annotations

import pathlib

import pytest

import moteip

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory, scenario_text):
    """Two small sweeps of the udp3 scenario: one key (3 BERs x 3 seeds) and
    two keys (2 BERs x 2 payload sizes x 2 seeds)."""
    d = tmp_path_factory.mktemp("plot")
    sc = d / "udp3.toml"
    sc.write_text(scenario_text["udp3"])
    one = moteip.sweep(sc, vary={"medium.ber": [0, 1e-4, 1e-3]}, runs=3, out=d / "one", log=None,
                       progress=False)
    two = moteip.sweep(sc, vary={"medium.ber": [0, 1e-3], "flows.0.payload_bytes": [20, 60]}, runs=2,
                       out=d / "two", log=None, progress=False)
    return pathlib.Path(one["out"]), pathlib.Path(two["out"])


def _png(path: pathlib.Path) -> None:
    data = path.read_bytes()
    assert data[:8] == PNG
    assert len(data) > 5000


def test_plot_one_key(cli, sweeps, tmp_path):
    one, _ = sweeps
    r = cli("plot", one, "--x", "medium.ber", "--y", "flows[0].delivery_ratio", "--out", "p/d.png")
    assert (r.rc, r.stdout, r.stderr) == (0, "p/d.png\n", ""), r
    _png(tmp_path / "p" / "d.png")


def test_plot_summary_json_default_file_name_logx(cli, sweeps, tmp_path):
    one, _ = sweeps
    # the summary.json path works as well as its directory; the dotted spelling of a metric too;
    # the plot goes beside the sweep, not into the current directory
    r = cli("plot", one / "summary.json", "--x", "medium.ber", "--y", "flows.0.latency_mean_ms", "--logx")
    assert (r.rc, r.stdout) == (0, f"{one / 'flows0.latency_mean_ms-vs-medium.ber.png'}\n"), r
    _png(one / "flows0.latency_mean_ms-vs-medium.ber.png")
    assert list(tmp_path.glob("*.png")) == []
    r = cli("plot", one, "--x", "medium.ber", "--y", "flows.0.delivery_ratio")
    assert (r.rc, r.stdout) == (0, f"{one / 'flows0.delivery_ratio-vs-medium.ber.png'}\n"), r


@pytest.mark.parametrize("name, text", [
    ("flows[0].goodput_bps", "flows[0] goodput [b/s]"),
    ("flows.1.latency_mean_ms", "flows[1] mean latency [ms]"),
    ("flows[0].srtt_ms.mean", "flows[0] mean smoothed RTT [ms]"),
    ("flows[0].complete", "flows[0] complete (share of runs)"),
    ("totals.energy_j", "total energy [J]"),
    ("nodes.sum.frames_tx", "frames sent, sum over nodes"),
    ("nodes.max.energy_j", "energy, max over nodes [J]"),
    ("nodes.mean.duty_cycle", "radio duty cycle, mean over nodes"),
    ("nodes.sum.mac.tx_frames", "MAC tx frames, sum over nodes"),
    ("medium.ber", "bit error rate (medium.ber)"),
    ("mac.retry_delay_max_us", "max. delay before a link retry (mac.retry_delay_max_us) [µs]"),
    ("flows[0].sender.profile", "profile (flows[0].sender.profile)"),
    ("topology.spacing_m", "node spacing (topology.spacing_m) [m]"),
    ("medium.tx_power_dbm", "tx power (medium.tx_power_dbm) [dBm]"),   # by its unit suffix
    ("per", "per"),                                                      # a derived metric
])
def test_axis_labels_have_words_and_units(name, text):
    from moteip.metrics import label
    assert label(name) == text


def test_plot_labels_default_from_the_metric_table_or_as_given(sweeps, tmp_path, monkeypatch):
    import matplotlib.figure
    seen = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda fig, path, **kw: seen.append(
                            (fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel(), fig.axes[0].get_title())))
    s = moteip.load_summary(sweeps[0])
    moteip.plot(s, "medium.ber", "flows[0].delivery_ratio", out=tmp_path / "a.png")
    assert seen[-1][:2] == ("bit error rate (medium.ber)", "flows[0] delivery ratio")
    assert seen[-1][2] == "udp3: flows[0] delivery ratio (3 runs, 95 % CI)"
    moteip.plot(s, "medium.ber", "flows[0].delivery_ratio", out=tmp_path / "b.png", xlabel="BER",
                ylabel="delivered share", title="mine")
    assert seen[-1] == ("BER", "delivered share", "mine")


def test_plot_command_takes_labels(cli, sweeps, tmp_path):
    one, _ = sweeps
    r = cli("plot", one, "--x", "medium.ber", "--y", "flows.0.delivery_ratio", "--out", "l.png",
            "--xlabel", "BER", "--ylabel", "delivered", "--title", "T")
    assert (r.rc, r.stdout) == (0, "l.png\n"), r
    _png(tmp_path / "l.png")


def test_plot_two_keys_with_hue_or_where(cli, sweeps, tmp_path):
    _, two = sweeps
    r = cli("plot", two, "--x", "medium.ber", "--y", "flows[0].delivery_ratio",
            "--hue", "flows[0].payload_bytes", "--out", "hue.png")
    assert r.rc == 0, r
    _png(tmp_path / "hue.png")
    r = cli("plot", two, "--x", "flows.0.payload_bytes", "--y", "totals.energy_j",
            "--where", "medium.ber=1e-3", "--out", "where.png")
    assert r.rc == 0, r
    _png(tmp_path / "where.png")


def test_plot_api(sweeps, tmp_path):
    _, two = sweeps
    s = moteip.load_summary(two)
    out = moteip.plot(s, x="medium.ber", y="flows[0].delivery_ratio", hue="flows[0].payload_bytes",
                      out=tmp_path / "api.png", reference={0: 1.0, 0.001: 0.5})
    assert out == tmp_path / "api.png"
    _png(out)


ERRORS = [
    ("one", ["--x", "topology.nodes", "--y", "flows[0].delivery_ratio"],
     "--x topology.nodes: not a varied key of this sweep; varied keys: medium.ber"),
    ("two", ["--x", "medium.ber", "--y", "flows[0].delivery_ratio", "--hue", "mac.type"],
     "--hue mac.type: not a varied key of this sweep; varied keys: medium.ber, flows[0].payload_bytes"),
    ("one", ["--x", "medium.ber", "--y", "flows[0].goodput"],
     "--y flows[0].goodput: no such metric in this sweep; e.g. events, flows[0].complete, "),
    ("one", ["--x", "medium.ber", "--y", "flows[0].delivery"],
     "--y flows[0].delivery: no such metric in this sweep; similar: flows[0].delivery_ratio"),
    ("two", ["--x", "medium.ber", "--y", "flows[0].delivery_ratio"],
     "the sweep also varies flows[0].payload_bytes: put one on --hue or fix it with --where KEY=VALUE"),
    ("two", ["--x", "medium.ber", "--y", "flows[0].delivery_ratio", "--where", "flows[0].payload_bytes=33"],
     "--where flows[0].payload_bytes=33: no point has that value; values: 20, 60"),
    ("two", ["--x", "medium.ber", "--y", "flows[0].delivery_ratio", "--where", "topology.nodes=3"],
     "--where topology.nodes: not a varied key of this sweep; varied keys: "),
    ("one", ["--x", "medium..ber", "--y", "flows[0].delivery_ratio"],
     "key 'medium..ber': expected a dotted path such as medium.ber or flows[0].dst"),
]
ERROR_IDS = ["x-not-varied", "hue-not-varied", "y-unknown", "y-similar", "also-varies", "where-no-point",
             "where-not-varied", "x-bad-key"]
#: the cases run through the command (each loads matplotlib: ~0.7 s); all of them through the API
CLI_ERRORS = {"x-not-varied", "y-unknown", "also-varies", "where-no-point"}


@pytest.mark.parametrize("which,args,msg", [e for e, i in zip(ERRORS, ERROR_IDS) if i in CLI_ERRORS],
                         ids=[i for i in ERROR_IDS if i in CLI_ERRORS])
def test_plot_errors_exit_2(cli, sweeps, tmp_path, which, args, msg):
    d = dict(zip(("one", "two"), sweeps))[which]
    r = cli("plot", d, *args, "--out", "x.png")
    assert r.rc == 2, r
    assert r.stderr.startswith("moteip: " + msg)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stdout == ""
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("which,args,msg", ERRORS, ids=ERROR_IDS)
def test_plot_errors_api(sweeps, tmp_path, which, args, msg):
    from moteip.cli import parser

    d = dict(zip(("one", "two"), sweeps))[which]
    a = parser().parse_args(["plot", str(d), *args])
    where = dict(moteip.cli._assignment(w, "--where") for w in a.where)
    with pytest.raises(moteip.UsageError) as ei:
        moteip.plot(moteip.load_summary(d), a.x, a.y, hue=a.hue, where=where, out=tmp_path / "x.png")
    assert str(ei.value).startswith(msg)
    assert not (tmp_path / "x.png").exists()


def test_plot_results_path_without_summary(cli, sweeps, tmp_path):
    one, _ = sweeps
    (tmp_path / "empty").mkdir()
    for path in ("empty", "nowhere", one / "runs"):
        r = cli("plot", path, "--x", "medium.ber", "--y", "flows[0].delivery_ratio", "--out", "x.png")
        assert r.rc == 2, r
        assert r.stderr == (f"moteip: {path}: no summary.json here (give a sweep directory or its "
                            f"summary.json)\n")
    (tmp_path / "s.json").write_text("[1, 2]")
    r = cli("plot", "s.json", "--x", "medium.ber", "--y", "flows[0].delivery_ratio")
    assert (r.rc, r.stderr) == (2, "moteip: s.json: not a sweep summary (no points/vary)\n"), r
    (tmp_path / "t.json").write_text("{")
    r = cli("metrics", "t.json")
    assert r.rc == 2 and r.stderr.startswith("moteip: t.json: not a sweep summary ("), r


def test_metrics_lists_names_and_varied_keys(cli, sweeps):
    one, two = sweeps
    r = cli("metrics", one)
    assert r.rc == 0, r
    lines = r.stdout.splitlines()
    assert lines[0] == "varied keys: medium.ber"
    names = lines[1:]
    assert names == sorted(names)
    for n in ("flows[0].delivery_ratio", "flows[0].latency_mean_ms", "totals.energy_j",
              "nodes.sum.frames_tx", "nodes.max.energy_j", "sim_time_s", "events"):
        assert n in names
    assert set(names) == {n for p in moteip.load_summary(one)["points"] for n in p["metrics"]}
    r = cli("metrics", two / "summary.json")
    assert r.rc == 0, r
    assert r.stdout.splitlines()[0] == "varied keys: medium.ber, flows[0].payload_bytes"


def test_logx_without_a_positive_x_is_a_usage_error(cli, tmp_path, scenario_text):
    (tmp_path / "udp3.toml").write_text(scenario_text["udp3"])
    moteip.sweep(tmp_path / "udp3.toml", vary={"flows[0].start_s": [0]}, runs=1, out=tmp_path / "z",
                 log=None, progress=False)
    r = cli("plot", "z", "--x", "flows[0].start_s", "--y", "flows[0].sent", "--logx", "--out", "z.png")
    assert (r.rc, r.stdout) == (2, ""), r
    assert r.stderr == ("moteip: --logx: flows[0].start_s has no positive value to put on a log scale; "
                        "values: 0\n")
    assert not (tmp_path / "z.png").exists()


def test_x_tick_labels_never_overlap():
    """Long category names (and dense values) ran into each other on one plot's x axis:
    fit_tick_labels slants them, then thins them, until none overlaps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from moteip.plot import _overlapping, fit_tick_labels

    for n, words in ((6, "contikimac-with-phase-lock"), (40, "x")):
        fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
        cats = [f"{words}-{i}" for i in range(n)]
        ax.plot(range(n), range(n))
        ax.set_xticks(range(n), cats)
        fig.tight_layout()
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        assert _overlapping(ax.get_xticklabels(), renderer)       # the defect, reproduced
        fit_tick_labels(fig, ax)
        assert not _overlapping(ax.get_xticklabels(), renderer)
        assert sum(t.get_visible() for t in ax.get_xticklabels()) >= 3
        plt.close(fig)
