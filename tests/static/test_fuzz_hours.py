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
