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
    # the summary.json path works as well as its directory; the dotted spelling of a metric too
    r = cli("plot", one / "summary.json", "--x", "medium.ber", "--y", "flows.0.latency_mean_ms", "--logx")
    assert (r.rc, r.stdout) == (0, "flows0.latency_mean_ms-vs-medium.ber.png\n"), r
    _png(tmp_path / "flows0.latency_mean_ms-vs-medium.ber.png")


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
