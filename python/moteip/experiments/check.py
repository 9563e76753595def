"""`moteip reproduce --check`: a fresh rerun against docs/results.md.

Each experiment's section of results.md (the one whose heading names
`moteip reproduce NAME`, or names NAME in backticks beside another) holds
its report's tables as Markdown, whole or with some columns or rows left
out. The check reruns the experiment, takes every table of its report (the
main one, and those its notes render), and compares each table of the
section that shows one of them (same first column, its other columns among
the report's) cell by cell, rows found by their leading cells: a run is
deterministic, so any difference is drift (new code, a new default, or a
section that was never regenerated). Cells compare as text, but for the
typographic minus and dashes and thousands separators. A section with no
such table is drift too: its numbers cannot be checked.

Failures name the experiment, the table (its first column's header), the
row (its leading text cells) and the column, with both values.
"""
from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass

from ..errors import UsageError
from . import Report

#: `--quick`: experiments whose default runs take a few seconds each, for
#: the test command (docs/results.md "Checking this file").
QUICK = ("per-ber", "tcp-1hop", "tcplp-mss", "uip-delack")

#: The tables of one report: (headers, rows).
Table = tuple[list[str], list[list[str]]]

_HEADING = re.compile(r"^(#{2,4}) ")
_DASHES = re.compile(r"^-+(  -+)*$")
_CELL_SEP = re.compile(r"\s{2,}")
#: a heading naming an experiment as the command does
_OTHER = re.compile(r"`moteip reproduce [\w-]+`")


@dataclass
class Drift:
    experiment: str
    message: str

    def __str__(self) -> str:
        return f"{self.experiment}: {self.message}"


def sections(text: str, name: str) -> list[str]:
    """The sections of results.md (heading to the next heading of its level
    or above) whose heading names experiment `name`, without the
    subsections whose heading names another experiment (`moteip reproduce
    OTHER`): those hold the other one's tables."""
    lines = text.splitlines()
    found = []
    pat = re.compile(rf"`(moteip reproduce )?{re.escape(name)}`")
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if not m or not pat.search(line):
            continue
        level = len(m.group(1))
        kept, skip = [line], 0
        for j in range(i + 1, len(lines)):
            n = _HEADING.match(lines[j])
            if n and len(n.group(1)) <= level:
                break
            if n and skip and len(n.group(1)) <= skip:
                skip = 0
            if n and not skip and _OTHER.search(lines[j]) and not pat.search(lines[j]):
                skip = len(n.group(1))
            if not skip:
                kept.append(lines[j])
        found.append("\n".join(kept))
    return found


def markdown_tables(text: str) -> list[Table]:
    """Every pipe table in `text`: (header cells, body rows)."""
    tables: list[Table] = []
    lines = text.splitlines()
    i = 0
    while i + 1 < len(lines):
        if lines[i].startswith("|") and re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", lines[i + 1]):
            headers = _pipe_cells(lines[i])
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(_pipe_cells(lines[j]))
                j += 1
            tables.append((headers, rows))
            i = j
        else:
            i += 1
    return tables


def _pipe_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def rendered_tables(text: str) -> list[Table]:
    """The tables table.render() wrote into a report's notes: a header line,
    a line of dashes, then rows; columns are two or more spaces apart."""
    tables: list[Table] = []
    lines = text.splitlines()
    for i in range(1, len(lines)):
        if not _DASHES.match(lines[i]):
            continue
        widths = [len(d) for d in lines[i].split("  ")]
        headers = _split_fixed(lines[i - 1], widths)
        rows = []
        for line in lines[i + 1:]:
            if not line.strip() or _DASHES.match(line):
                break
            rows.append(_split_fixed(line, widths))
        tables.append((headers, rows))
    return tables


def _split_fixed(line: str, widths: list[int]) -> list[str]:
    """A render() line cut at its column widths (cells may hold spaces)."""
    cells, pos = [], 0
    for w in widths:
        cells.append(line[pos:pos + w].strip())
        pos += w + 2
    return cells


def report_tables(rep: Report) -> list[Table]:
    """The main table of a Report and those its notes render."""
    tables: list[Table] = [([str(h) for h in rep.headers], [[str(c) for c in r] for r in rep.rows])]
    for note in rep.notes:
        tables += rendered_tables(note)
    return tables


def _norm(cell: str) -> str:
    """A cell as compared: the typographic minus and dashes as '-', no
    thousands separators, single spaces."""
    c = cell.replace("\u2212", "-").replace("\u2014", "-").replace("\u2013", "-")
    c = re.sub(r"(?<=\d),(?=\d{3})", "", c)
    return " ".join(c.split())


def _norm_header(h: str) -> str:
    return _norm(h).replace(" ", "").lower()


def _match(doc_headers: list[str], fresh: list[Table]) -> list[tuple[Table, list[int]]]:
    """The fresh tables a documented one may show: same first column, and
    every documented column among its columns (a section may leave some
    out), the narrowest first. Each with the fresh index of each documented
    column."""
    found: list[tuple[Table, list[int]]] = []
    want = [_norm_header(h) for h in doc_headers]
    for t in fresh:
        have = [_norm_header(h) for h in t[0]]
        if not want or not have or want[0] != have[0] or not set(want) <= set(have):
            continue
        # a name may repeat (b/s at two BERs): the n-th of the section's
        # is the n-th of the report's
        idx, used = [], set()
        for h in want:
            i = next((j for j, x in enumerate(have) if x == h and j not in used), None)
            if i is None:
                break
            used.add(i)
            idx.append(i)
        if len(idx) != len(want):
            continue
        found.append((t, idx))
    return sorted(found, key=lambda m: len(m[0][0]))


def _filled(rows: list[list[str]]) -> list[list[str]]:
    """Rows with an empty leading cell continue the group above (a table's
    'main | tcp', ' | tss'): the cell is filled from the row before."""
    out, prev = [], None
    for r in rows:
        r = list(r)
        if prev is not None and r and not r[0].strip():
            r[0] = prev[0]
        out.append(r)
        prev = r
    return out


def _key_width(rows: list[list[str]], idx: list[int]) -> int:
    """How many leading documented columns tell the fresh rows apart."""
    for k in range(1, len(idx) + 1):
        keys = [tuple(_norm(r[i]) if i < len(r) else "" for i in idx[:k]) for r in rows]
        if len(set(keys)) == len(keys):
            return k
    return len(idx)


def compare(name: str, fresh: list[Table], doc: str) -> list[Drift]:
    """Every difference between the fresh tables and the tables of
    results.md's section(s) for `name`: each documented table that shows
    one of the rerun's (its first column and a subset of its columns) is
    compared row by row, rows found by their leading cells. A section none
    of whose tables shows a table of the rerun is drift too: its numbers
    cannot be checked (`moteip reproduce NAME --markdown` prints them)."""
    secs = sections(doc, name)
    if not secs:
        return [Drift(name, "no section of docs/results.md names `moteip reproduce "
                            f"{name}`")]
    drifts: list[Drift] = []
    matched = 0
    for headers, doc_rows in (t for s in secs for t in markdown_tables(s)):
        cands = _match(headers, fresh)
        if not cands:
            continue                # a table of the prose (setup, published values)
        matched += 1
        # a report may hold tables with the same columns (frames per node,
        # then radio time per node): the documented one shows the fresh one
        # it differs least from
        least: list[Drift] | None = None
        for m in cands:
            d = _differences(name, headers, doc_rows, m)
            if least is None or len(d) < len(least):
                least = d
        drifts += least or []
    if matched == 0:
        drifts.append(Drift(name, "no table in its section of docs/results.md shows the rerun's "
                                  "(columns " + "; ".join(str(t[0]) for t in fresh) + "): "
                                  f"`moteip reproduce {name} --markdown` prints them"))
    return drifts


def _differences(name: str, headers: list[str], doc_rows: list[list[str]],
                 m: tuple[Table, list[int]]) -> list[Drift]:
    """Every cell of a documented table that the fresh table `m` (with the
    fresh index of each documented column) does not hold."""
    drifts = []
    (_, frows), idx = m
    frows, doc_rows = _filled(frows), _filled(doc_rows)
    k = _key_width(frows, idx)
    by_key = {tuple(_norm(r[i]) if i < len(r) else "" for i in idx[:k]): r for r in frows}
    table = f"table '{headers[0]}'"
    for d in doc_rows:
        key = tuple(_norm(c) for c in d[:k])
        label = " / ".join(d[:k])
        r = by_key.get(key)
        if r is None:
            drifts.append(Drift(name, f"{table}, row '{label}': in docs/results.md, not in "
                                      "the rerun"))
            continue
        for j, i in enumerate(idx[k:], start=k):
            a = r[i] if i < len(r) else ""
            b = d[j] if j < len(d) else ""
            if _norm(a) != _norm(b):
                drifts.append(Drift(name, f"{table}, row '{label}', column '{headers[j]}': "
                                          f"docs/results.md has {b!r}, the rerun gives {a!r}"))
    return drifts


def markdown(tables: list[Table]) -> str:
    """The tables as Markdown, for results.md."""
    out = []
    for headers, rows in tables:
        out.append("| " + " | ".join(headers) + " |")
        out.append("|" + "---|" * len(headers))
        out += ["| " + " | ".join(r) + " |" for r in rows]
        out.append("")
    return "\n".join(out)


def results_md(path: str | pathlib.Path | None = None) -> str:
    p = pathlib.Path(path) if path else _default_results()
    if not p.is_file():
        raise UsageError(f"reproduce --check: no {p} (give --results-md)")
    return p.read_text()


def _default_results() -> pathlib.Path:
    """docs/results.md of the repository this package runs from, else of the
    working directory."""
    here = pathlib.Path(__file__).resolve().parents[3] / "docs" / "results.md"
    return here if here.is_file() else pathlib.Path("docs") / "results.md"
