"""fuzz/reach.tsv names, for every harness, functions its committed corpus must
reach (fuzz/run.sh checks them with libFuzzer's -print_coverage=1 before it
fuzzes). Here: the table itself is sound, so that check cannot pass on a typo.
A harness with no row could go blind again unnoticed, as fuzz_coap was until
2026-11-29 (its datagrams never passed the stack's UDP checksum check)."""
from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
REACH = ROOT / "fuzz" / "reach.tsv"


def rows() -> list[list[str]]:
    lines = REACH.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "harness\tfunction\tfile", lines[0]
    return [line.split("\t") for line in lines[1:]]


def test_every_row_has_three_fields_and_no_duplicate():
    seen = set()
    for i, r in enumerate(rows(), start=2):
        assert len(r) == 3 and all(r), f"reach.tsv:{i}: {r}"
        assert tuple(r) not in seen, f"reach.tsv:{i}: {r} twice"
        seen.add(tuple(r))


def test_every_harness_names_at_least_two_functions():
    harnesses = sorted(p.stem for p in (ROOT / "fuzz").glob("fuzz_*.c"))
    count = {h: 0 for h in harnesses}
    for h, _, _ in rows():
        assert h in count, f"reach.tsv names {h}, which has no fuzz/{h}.c"
        count[h] += 1
    assert not [h for h, n in count.items() if n < 2], count


def test_every_function_is_defined_in_its_file():
    for h, fn, file in rows():
        path = ROOT / file
        assert path.is_file(), f"{h}: {file} does not exist"
        text = path.read_text(encoding="utf-8")
        # a definition: the name at the start of a declarator, then its
        # parameters, on a line that does not end in ';'
        pat = re.compile(rf"^[A-Za-z_][\w \*]*\b{re.escape(fn)}\([^;]*$", re.M)
        assert pat.search(text), f"{h}: no definition of {fn} in {file}"
