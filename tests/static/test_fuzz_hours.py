"""fuzz/ledger.tsv is the record of issue 24's fuzzing hours: every row names a real
harness and whole numbers, scripts/fuzz-long.sh appends through `fuzz/hours.py add`, and
fuzz/README.md's per-harness table is exactly the ledger's sums."""
from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HOURS = ROOT / "fuzz" / "hours.py"
HEADER = "date\tcommit\tseconds\tharness\tcpu_s\texecs\tnew_entries\toutcome\n"


def hours(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HOURS), *args], capture_output=True,
                          text=True, timeout=30, check=False)


def test_the_readme_table_is_the_ledgers_sums():
    p = hours("--check")
    assert p.returncode == 0, p.stderr


def test_every_harness_of_fuzz_is_in_the_table():
    p = hours()
    assert p.returncode == 0, p.stderr
    for c in sorted((ROOT / "fuzz").glob("fuzz_*.c")):
        assert f"| {c.stem} | " in p.stdout, c.stem


def test_add_appends_a_row_and_the_total_grows(tmp_path):
    ledger = tmp_path / "ledger.tsv"
    ledger.write_text(HEADER + "2026-11-29\ta36fca6\t480\tfuzz_wire\t100\t-\t-\tok\n")
    p = hours("add", "--ledger", str(ledger), "--date", "2026-11-30", "--commit", "0123abc",
              "--seconds", "60", "--harness", "fuzz_wire", "--cpu", "61", "--execs", "1000",
              "--new", "2", "--outcome", "stopped")
    assert p.returncode == 0, p.stderr
    assert ledger.read_text().splitlines()[-1] == \
        "2026-11-30\t0123abc\t60\tfuzz_wire\t61\t1000\t2\tstopped"
    p = hours("--ledger", str(ledger), "--goal", "200")
    assert p.returncode == 0, p.stderr
    assert "| fuzz_wire | 161 | 2 | 80 % |" in p.stdout
    assert "**161 s of CPU**" in p.stdout


def test_add_refuses_a_bad_value_and_leaves_the_ledger(tmp_path):
    ledger = tmp_path / "ledger.tsv"
    ledger.write_text(HEADER)
    p = hours("add", "--ledger", str(ledger), "--date", "2026-11-30", "--commit", "0123abc",
              "--seconds", "60", "--harness", "fuzz_wire", "--cpu", "1.5", "--outcome", "ok")
    assert p.returncode == 1
    assert "cpu_s '1.5' is not a whole number" in p.stderr
    assert ledger.read_text() == HEADER


def test_a_row_naming_no_harness_is_reported_with_its_line(tmp_path):
    ledger = tmp_path / "ledger.tsv"
    ledger.write_text(HEADER + "2026-11-29\ta36fca6\t480\tfuzz_wire\t100\t-\t-\tok\n"
                      "2026-11-29\ta36fca6\t480\tfuzz_nothing\t100\t-\t-\tok\n")
    p = hours("--ledger", str(ledger))
    assert p.returncode == 1
    assert "ledger.tsv:3: harness 'fuzz_nothing' has no fuzz/fuzz_nothing.c" in p.stderr


def test_a_short_row_and_a_bad_header_are_refused(tmp_path):
    ledger = tmp_path / "ledger.tsv"
    ledger.write_text(HEADER + "2026-11-29\ta36fca6\t480\tfuzz_wire\t100\n")
    p = hours("--ledger", str(ledger))
    assert p.returncode == 1 and "ledger.tsv:2: 5 fields, expected 8" in p.stderr
    ledger.write_text("date commit\n")
    p = hours("--ledger", str(ledger))
    assert p.returncode == 1 and "ledger.tsv:1: header is not" in p.stderr


def test_blind_runs_are_recorded_but_not_counted(tmp_path):
    """A run of a harness later found not to reach what it claims (fuzz_coap's
    zero UDP checksums) keeps its row, and its CPU is not toward the goal."""
    ledger = tmp_path / "ledger.tsv"
    ledger.write_text(HEADER + "2026-11-29\ta36fca6\t480\tfuzz_coap\t100\t-\t-\tblind\n"
                      "2026-11-29\ta36fca6\t480\tfuzz_coap\t30\t-\t-\tok\n")
    p = hours("--ledger", str(ledger), "--goal", "200")
    assert p.returncode == 0, p.stderr
    assert "| fuzz_coap | 30 | 1 | 15 % |" in p.stdout
    assert "**30 s of CPU**" in p.stdout and "Cumulative (1 harness runs" in p.stdout
    assert "Not counted (outcome `blind`" in p.stdout and "fuzz_coap 100 s in 1 runs" in p.stdout


def _plan(ledger, *args: str) -> tuple[int, list[tuple[int, list[str]]]]:
    p = hours("plan", "--ledger", str(ledger), *args)
    assert p.returncode == 0, p.stderr
    runs = []
    for line in p.stdout.splitlines():
        if line.startswith("#"):
            continue
        words = line.split()
        assert words[:2] == ["JOBS=2", "scripts/fuzz-long.sh"], line
        runs.append((int(words[2]), words[3:]))
    return p.returncode, runs


def test_a_plan_brings_every_harness_to_the_goal_and_no_further_than_its_run(tmp_path):
    """Each harness below the goal is in exactly one run, whose seconds cover
    its shortfall; the largest shortfalls go first, two to a run."""
    ledger = tmp_path / "ledger.tsv"
    ledger.write_text(HEADER + "2026-11-29\ta36fca6\t480\tfuzz_wire\t150\t-\t-\tok\n"
                      "2026-11-29\ta36fca6\t480\tfuzz_tcp\t250\t-\t-\tok\n"
                      "2026-11-29\ta36fca6\t480\tfuzz_slip\t140\t-\t-\tok\n")
    _, runs = _plan(ledger, "--goal", "200")
    have = {c.stem: 0 for c in (ROOT / "fuzz").glob("fuzz_*.c")}
    have.update(fuzz_wire=150, fuzz_tcp=250, fuzz_slip=140)
    planned = [h for _, hs in runs for h in hs]
    assert sorted(planned) == sorted(h for h, cpu in have.items() if cpu < 200)
    for secs, hs in runs:
        assert 1 <= len(hs) <= 2
        assert all(have[h] + secs >= 200 for h in hs), (secs, hs)
        assert max(200 - have[h] for h in hs) == secs
    assert planned[-2:] == ["fuzz_slip", "fuzz_wire"] and "fuzz_tcp" not in planned
    assert [s for s, _ in runs] == sorted((s for s, _ in runs), reverse=True)


def test_a_budget_raises_the_least_fuzzed_to_one_level(tmp_path):
    """With less CPU than the goal needs, the least fuzzed are brought up to
    the highest level the budget pays for, and the rest are left alone."""
    ledger = tmp_path / "ledger.tsv"
    rows = "".join(f"2026-11-29\ta36fca6\t480\t{c.stem}\t1000\t-\t-\tok\n"
                   for c in sorted((ROOT / "fuzz").glob("fuzz_*.c")))
    ledger.write_text(HEADER + rows.replace("fuzz_wire\t1000", "fuzz_wire\t400")
                      .replace("fuzz_tcp\t1000", "fuzz_tcp\t700"))
    p = hours("plan", "--ledger", str(ledger), "--budget", "500", "--goal", "3600")
    assert p.returncode == 0, p.stderr
    # level L with (L - 400) + (L - 700) <= 500: L = 800
    assert "up to 800 s of CPU each" in p.stdout
    _, runs = _plan(ledger, "--budget", "500", "--goal", "3600")
    assert runs == [(400, ["fuzz_wire", "fuzz_tcp"])]


def test_nothing_to_plan_once_every_harness_has_the_goal(tmp_path):
    ledger = tmp_path / "ledger.tsv"
    ledger.write_text(HEADER + "".join(f"2026-11-29\ta36fca6\t480\t{c.stem}\t100\t-\t-\tok\n"
                                       for c in sorted((ROOT / "fuzz").glob("fuzz_*.c"))))
    p = hours("plan", "--ledger", str(ledger), "--goal", "100")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "# every harness has 100 s or more: nothing to run\n"
    p = hours("plan", "--ledger", str(ledger), "--jobs", "0")
    assert p.returncode == 2 and "must be at least 1" in p.stderr
