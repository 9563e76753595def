"""Sweeps that stop half way: Ctrl-C (exit 130, resume with the same
command) and runs that fail (exit 1, the next invocation retries only them)."""
from __future__ import annotations

import json
import pathlib
import signal
import subprocess
import time

import pytest


def _run_files(d: pathlib.Path) -> list[pathlib.Path]:
    return sorted(d.glob("*.json")) if d.is_dir() else []


def test_interrupted_sweep_resumes_to_the_same_summary(cli, moteip_argv, write_scenario, scenario_text,
                                                       tmp_path):
    write_scenario("slow.toml", scenario_text["slow"])
    args = ["sweep", "slow.toml", "--runs", "6", "--jobs", "1", "--no-progress", "--out", "sw"]
    runs = tmp_path / "sw" / "runs"
    proc = subprocess.Popen([*moteip_argv, *args], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while len(_run_files(runs)) < 2:
            assert proc.poll() is None, "the sweep ended before it could be interrupted: " + \
                proc.communicate()[1]
            assert time.monotonic() < deadline, "no 2 runs after 120 s"
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    k = len(_run_files(runs))
    assert 2 <= k < 6, err
    assert (f"moteip: interrupted: {k} of 6 runs are on disk in sw; run the same command again "
            f"to resume\n") in err
    assert "interrupted:" in err and "run the same command again to resume" in err
    # what is on disk is whole runs only, nothing partial that could pass for a run
    out_dir = tmp_path / "sw"
    assert not [p for p in out_dir.rglob("*") if p.is_file() and p.suffix != ".json"]
    assert sorted(p.name for p in runs.iterdir()) == [p.name for p in _run_files(runs)]
    for p in _run_files(runs):
        rec = json.loads(p.read_text())
        assert set(rec) == {"point", "params", "seed", "metrics", "wall_s"}
        assert p.name == f"{rec['point']}-s{rec['seed']}.json"
        assert (out_dir / "results" / p.name).is_file()
        assert rec["metrics"]["flows[0].complete"] == 1
    assert not (out_dir / "summary.json").exists()

    r = cli(*args)
    assert r.rc == 0, r
    first = r.stderr.splitlines()[0]
    assert first.startswith("sweep slow.toml: ") and first.endswith(" -> sw"), r
    assert f" x 6 seeds = 6 runs ({k} on disk, {6 - k} to run) on 1 local process" in first, r
    assert len(_run_files(runs)) == 6

    ref = cli("sweep", "slow.toml", "--runs", "6", "--jobs", "2", "--no-progress", "--out", "ref")
    assert ref.rc == 0, ref
    assert (out_dir / "summary.json").read_bytes() == (tmp_path / "ref" / "summary.json").read_bytes()
    assert (out_dir / "runs.csv").read_bytes() == (tmp_path / "ref" / "runs.csv").read_bytes()


FAILING_SIM = """\
#!/bin/sh
# moteip-sim, but seed 3 fails while the flag file exists
if [ -e "{flag}" ]; then
    case " $* " in
        *" --seed 3 "*) {fail} ;;
    esac
fi
exec "{sim}" "$@"
"""


@pytest.mark.parametrize("fail,why", [
    ('echo "moteip-sim: injected failure" >&2; exit 1', "exit 1): injected failure"),
    ("kill -SEGV $$", "signal 11): "),
], ids=["exit1", "segv"])
def test_a_failed_run_is_reported_and_retried_alone(cli, udp3, tmp_path, sim_path, fail, why):
    flag = tmp_path / "fail-seed-3"
    flag.touch()
    wrapper = tmp_path / "flaky-sim"
    wrapper.write_text(FAILING_SIM.format(flag=flag, sim=sim_path, fail=fail))
    wrapper.chmod(0o755)
    env = {"MOTEIP_SIM": str(wrapper)}
    args = ["sweep", "udp3.toml", "--runs", "4", "--jobs", "2", "--no-progress", "--out", "sw"]

    r = cli(*args, env=env)
    assert r.rc == 1, r
    assert "Traceback" not in r.stderr
    assert (f"moteip: 1 of 4 runs failed (the rest is summarised in sw); the first: (base) seed 3: "
            f"moteip-sim failed on udp3.toml (seed 3, {why}") in r.stderr
    out = tmp_path / "sw"
    s = json.loads((out / "summary.json").read_text())
    assert s["points"][0]["runs"] == 3
    assert s["points"][0]["metrics"]["flows[0].sent"]["n"] == 3
    assert sorted(json.loads(p.read_text())["seed"] for p in _run_files(out / "runs")) == [1, 2, 4]
    assert len(list((out / "runs.csv").read_text().splitlines())) == 1 + 3
    before = {p.name: p.stat().st_mtime_ns for p in _run_files(out / "runs")}

    flag.unlink()  # the same simulator (same digest, same point ids), working now
    r = cli(*args, env=env)
    assert r.rc == 0, r
    assert r.stderr.splitlines()[0].endswith(" = 4 runs (3 on disk, 1 to run) on 2 local processes -> sw")
    after = {p.name: p.stat().st_mtime_ns for p in _run_files(out / "runs")}
    assert len(after) == 4 and {k: after[k] for k in before} == before
    s = json.loads((out / "summary.json").read_text())
    assert s["points"][0]["runs"] == 4

    # the metrics are those of the real simulator's sweep
    ref = cli("sweep", "udp3.toml", "--runs", "4", "--jobs", "2", "--out", "ref")
    assert ref.rc == 0, ref
    sref = json.loads((tmp_path / "ref" / "summary.json").read_text())
    assert s["points"][0]["metrics"] == sref["points"][0]["metrics"]


def test_another_simulator_binary_does_not_reuse_runs(cli, udp3, tmp_path, sim_path):
    wrapper = tmp_path / "other-sim"
    wrapper.write_text(f'#!/bin/sh\nexec "{sim_path}" "$@"\n')
    wrapper.chmod(0o755)
    args = ["sweep", "udp3.toml", "--runs", "2", "--jobs", "2", "--no-progress", "--out", "sw"]
    r = cli(*args, env={"MOTEIP_SIM": str(wrapper)})
    assert r.rc == 0, r
    r = cli(*args)
    assert r.rc == 0, r
    assert "on disk" not in r.stderr
    assert len(_run_files(tmp_path / "sw" / "runs")) == 4
    r = cli(*args)
    assert r.rc == 0, r
    assert "(2 on disk, 0 to run)" in r.stderr
