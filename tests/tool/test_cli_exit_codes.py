"""Exit status and messages of the command for bad options and a missing
simulator: 2 for bad input, 1 for the machinery, never a traceback."""
from __future__ import annotations

import subprocess
import sys

import pytest

import moteip


def _usage_error(r, fragment: str) -> None:
    assert r.rc == 2, r
    assert r.stdout == ""
    assert "usage: moteip" in r.stderr
    assert fragment in r.stderr, r
    assert "Traceback" not in r.stderr


def test_no_command(cli):
    _usage_error(cli(), "moteip: error: the following arguments are required: COMMAND")


def test_unknown_command(cli):
    _usage_error(cli("frobnicate"), "moteip: error: argument COMMAND: invalid choice: 'frobnicate'")


def test_unknown_option(cli, udp3):
    _usage_error(cli("run", "udp3.toml", "--bogus"), "moteip: error: unrecognized arguments: --bogus")


@pytest.mark.parametrize("args,fragment", [
    (["sweep", "udp3.toml", "--runs", "0"], "moteip sweep: error: argument --runs: expected an integer >= 1, got '0'"),
    (["sweep", "udp3.toml", "--runs", "x"], "moteip sweep: error: argument --runs: expected an integer >= 1, got 'x'"),
    (["sweep", "udp3.toml", "--jobs", "0"], "moteip sweep: error: argument --jobs: expected an integer >= 1, got '0'"),
    (["sweep", "udp3.toml", "--seed", "-1"],
     "moteip sweep: error: argument --seed: expected an integer in [0, 9223372036854775807], got '-1'"),
    (["run", "udp3.toml", "--seed", "1.5"],
     "moteip run: error: argument --seed: expected an integer in [0, 9223372036854775807], got '1.5'"),
    # the scenario's seed key has this range: --seed takes no more (it took 2^64 - 1)
    (["run", "udp3.toml", "--seed", "18446744073709551615"],
     "moteip run: error: argument --seed: expected an integer in [0, 9223372036854775807], got '18446744073709551615'"),
    (["reproduce", "per-ber", "--runs", "0"],
     "moteip reproduce: error: argument --runs: expected an integer >= 1, got '0'"),
    (["sweep", "udp3.toml", "--progress", "--no-progress"],
     "argument --no-progress: not allowed with argument --progress"),
    (["plot", "somewhere", "--y", "flows[0].goodput_bps"], "the following arguments are required: --x"),
    (["run"], "the following arguments are required: SCENARIO"),
], ids=["runs-0", "runs-x", "jobs-0", "seed-negative", "seed-float", "seed-2^64-1",
        "reproduce-runs-0", "progress-both",
        "plot-no-x", "run-no-scenario"])
def test_argument_errors(cli, udp3, tmp_path, args, fragment):
    _usage_error(cli(*args), fragment)
    assert not (tmp_path / "out").exists()


def test_a_sweeps_seeds_stay_in_the_seed_range(cli, udp3, tmp_path):
    """A sweep's runs take seeds first, first + 1, ...: the last must be a seed the
    scenario file and the simulator take, or the sweep is refused before it runs."""
    r = cli("sweep", "udp3.toml", "--seed", "9223372036854775807", "--runs", "2", "--out", "s", "--no-progress")
    assert (r.rc, r.stdout) == (2, ""), r
    assert r.stderr == ("moteip: seed 9223372036854775807 with 2 runs: the last run's seed 9223372036854775808 "
                        "is above the largest seed, 9223372036854775807\n"), r
    assert not (tmp_path / "s").exists()


def test_version(cli):
    r = cli("--version")
    assert (r.rc, r.stdout, r.stderr) == (0, f"moteip {moteip.__version__}\n", ""), r


def test_python_dash_m(tmp_path):
    p = subprocess.run([sys.executable, "-m", "moteip", "--version"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    assert (p.returncode, p.stdout) == (0, f"moteip {moteip.__version__}\n")


def test_help_exits_0(cli):
    r = cli("sweep", "--help")
    assert r.rc == 0 and "--dask ADDR" in r.stdout, r


@pytest.mark.parametrize("args,msg", [
    (["run", "missing.toml"], "moteip: missing.toml: no such file\n"),
    (["sweep", "missing.toml"], "moteip: missing.toml: no such file\n"),
    (["run", "udp3.toml", "--set", "medium.ber"], "moteip: --set 'medium.ber': expected KEY=VALUE\n"),
    (["run", "udp3.toml", "--set", "a..b=1"],
     "moteip: --set 'a..b=1': key 'a..b': expected a dotted path such as medium.ber or flows[0].dst\n"),
    (["run", "udp3.toml", "--set", "medium.ber="], "moteip: --set 'medium.ber=': empty value\n"),
    (["sweep", "udp3.toml", "--vary", "medium.ber"],
     "moteip: --vary 'medium.ber': expected KEY=V1,V2,... (e.g. medium.ber=0,1e-5)\n"),
    (["check", "udp3.toml", "--vary", "topology.nodes=5..2"],
     "moteip: --vary 'topology.nodes=5..2': empty range 5..2\n"),
])
def test_input_errors_exit_2(cli, udp3, tmp_path, args, msg):
    r = cli(*args)
    assert (r.rc, r.stdout, r.stderr) == (2, "", msg), r
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("cmd", [["run", "udp3.toml"], ["check", "udp3.toml"],
                                 ["sweep", "udp3.toml", "--out", "sw"]])
def test_simulator_missing_exits_1(cli, udp3, tmp_path, cmd):
    r = cli(*cmd, env={"MOTEIP_SIM": "/nonexistent"})
    assert (r.rc, r.stdout, r.stderr) == (1, "", "moteip: MOTEIP_SIM=/nonexistent: not an executable file\n"), r
    assert not (tmp_path / "out").exists() and not (tmp_path / "sw").exists()


def test_simulator_not_executable_exits_1(cli, udp3, tmp_path):
    f = tmp_path / "not-a-sim"
    f.write_text("#!/bin/sh\n")
    f.chmod(0o644)
    r = cli("run", "udp3.toml", env={"MOTEIP_SIM": str(f)})
    assert (r.rc, r.stderr) == (1, f"moteip: MOTEIP_SIM={f}: not an executable file\n"), r


def test_simulator_that_fails_exits_1(cli, udp3, tmp_path):
    f = tmp_path / "broken-sim"
    f.write_text("#!/bin/sh\necho 'moteip-sim: out of cheese' >&2\nexit 1\n")
    f.chmod(0o755)
    r = cli("run", "udp3.toml", "--out", "r.json", env={"MOTEIP_SIM": str(f)})
    assert (r.rc, r.stderr) == (1, "moteip: moteip-sim --check failed (exit 1): out of cheese\n"), r
    assert not (tmp_path / "r.json").exists()


def test_unknown_metric_column_is_an_error_naming_similar_ones(cli, udp3):
    r = cli("sweep", "udp3.toml", "--runs", "1", "--out", "m", "--metric", "flows[0].delivery",
            "--no-progress")
    assert r.rc == 2, r
    assert "moteip: --metric flows[0].delivery: no such metric in this sweep; similar: " in r.stderr
    assert "flows[0].delivery_ratio" in r.stderr and "Traceback" not in r.stderr
    # the runs are on disk: the same sweep with a right column runs nothing
    r = cli("sweep", "udp3.toml", "--runs", "1", "--out", "m", "--metric", "flows[0].delivery_ratio",
            "--no-progress")
    assert r.rc == 0 and "(1 on disk, 0 to run)" in r.stderr, r
    assert "flows[0].delivery_ratio" in r.stdout.splitlines()[0]


def test_bad_dask_address_refused_before_anything_is_written(cli, udp3, tmp_path):
    r = cli("sweep", "udp3.toml", "--runs", "1", "--out", "d", "--dask", "foo")
    assert r.rc == 2 and "expected a scheduler address" in r.stderr, r
    assert not (tmp_path / "d").exists()
