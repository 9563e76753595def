"""`moteip reproduce --check`: a rerun against docs/results.md
(python/moteip/experiments/check.py).

The parsing and the comparison on made-up sections (a drift names the
experiment, the table, the row and the column, with both values); then the
real thing on --quick's experiments against the repository's results.md,
which must hold their current numbers: the test command's short version of
`moteip reproduce --all --check`.
"""
from __future__ import annotations

from moteip.experiments import Report
from moteip.experiments import check as chk
from moteip.table import render

DOC = """# Results

## Small systems

### uIP (`moteip reproduce demo-x`, `demo-y`)

Some text.

| t_d (ms) | measured p (B/s) | formula |
|---|---|---|
| 0 | 16113 ± 280 | 16113 |
| 500 | 1824.7 ± 6.0 | 1779 |

| what | value |
|---|---|
| hand-made | table |

### Other (`moteip reproduce demo-z`)

| t_d (ms) | measured p (B/s) | formula |
|---|---|---|
| 0 | 1 | 2 |

## Next part
"""


def rep(rows, notes=()):
    return Report(["t_d (ms)", "measured p (B/s)", "formula"], rows, list(notes))


def test_sections_follow_the_heading_that_names_the_experiment():
    s = chk.sections(DOC, "demo-y")
    assert len(s) == 1 and "1824.7" in s[0] and "demo-z" not in s[0]
    assert chk.sections(DOC, "demo-x") == s
    assert "| 0 | 1 | 2 |" in chk.sections(DOC, "demo-z")[0]
    assert chk.sections(DOC, "demo") == []


def test_a_rerun_that_matches_passes():
    fresh = chk.report_tables(rep([["0", "16113 ± 280", "16113"], ["500", "1824.7 ± 6.0", "1779"]]))
    assert chk.compare("demo-x", fresh, DOC) == []


def test_a_changed_cell_names_experiment_table_row_column_and_values():
    fresh = chk.report_tables(rep([["0", "16113 ± 280", "16113"], ["500", "1825.5 ± 2.6", "1779"]]))
    d = chk.compare("demo-x", fresh, DOC)
    assert [str(x) for x in d] == [
        "demo-x: table 't_d (ms)', row '500', column 'measured p (B/s)': docs/results.md has "
        "'1824.7 ± 6.0', the rerun gives '1825.5 ± 2.6'"]


def test_rows_added_or_lost_and_tables_missing_are_drift():
    fresh = chk.report_tables(rep([["0", "16113 ± 280", "16113"]]))
    d = [str(x) for x in chk.compare("demo-x", fresh, DOC)]
    assert d == ["demo-x: table 't_d (ms)', row '500': in docs/results.md, not in the rerun"]
    other = Report(["x", "y"], [["1", "2"]])
    d = [str(x) for x in chk.compare("demo-x", chk.report_tables(other), DOC)]
    assert d == ["demo-x: no table in its section of docs/results.md shows the rerun's (columns "
                 "['x', 'y']): `moteip reproduce demo-x --markdown` prints them"]
    assert [str(x) for x in chk.compare("nosuch", [], DOC)] == [
        "nosuch: no section of docs/results.md names `moteip reproduce nosuch`"]


def test_a_section_may_show_some_columns_and_rows_in_its_own_typography():
    doc = DOC.replace("| 500 | 1824.7 ± 6.0 | 1779 |", "| 500 | 1824.7 ± 6.0 | 1,779 |")
    wide = Report(["t_d (ms)", "measured p (B/s)", "extra", "formula"],
                  [["0", "16113 ± 280", "x", "16113"], ["200", "1", "y", "2"],
                   ["500", "1824.7 ± 6.0", "z", "1779"]])
    assert chk.compare("demo-x", chk.report_tables(wide), doc) == []
    minus = DOC.replace("| 0 | 16113 ± 280 | 16113 |", "| 0 | \u22121 | 16113 |")
    fresh = chk.report_tables(rep([["0", "-1", "16113"], ["500", "1824.7 ± 6.0", "1779"]]))
    assert chk.compare("demo-x", fresh, minus) == []


def test_markdown_prints_what_the_check_reads():
    r = rep([["0", "16113 ± 280", "16113"], ["500", "1824.7 ± 6.0", "1779"]])
    md = chk.markdown(chk.report_tables(r))
    assert chk.markdown_tables(md) == chk.report_tables(r)


def test_tables_rendered_into_notes_are_checked_too():
    note = render(["what", "value"], [["hand-made", "table"]])
    fresh = chk.report_tables(rep([["0", "16113 ± 280", "16113"], ["500", "1824.7 ± 6.0", "1779"]],
                                  ["Some words:", note]))
    assert fresh[1] == (["what", "value"], [["hand-made", "table"]])
    assert chk.compare("demo-x", fresh, DOC) == []
    note = render(["what", "value"], [["hand-made", "tables"]])
    fresh[1:] = chk.report_tables(rep([], [note]))[1:]
    assert len(chk.compare("demo-x", fresh, DOC)) == 1


def test_check_refuses_runs(cli):
    r = cli("reproduce", "uip-delack", "--check", "--runs", "2")
    assert r.rc == 2 and "--runs or --seed would change them" in r.stderr, r
    r = cli("reproduce", "uip-delack", "--quick")
    assert r.rc == 2 and "not several" in r.stderr, r


def test_quick_check_against_the_repository(cli, tmp_path, repo_root):
    """The test command's `moteip reproduce --all --check`: the quick subset."""
    r = cli("reproduce", "--quick", "--check", "--no-progress", "--out", tmp_path / "out",
            "--results-md", repo_root / "docs" / "results.md", timeout=300)
    assert r.rc == 0, r
    for name in chk.QUICK:
        assert f"{name}: as in docs/results.md" in r.stdout
    # and a drift fails it: one cell of one table changed
    doc = (repo_root / "docs" / "results.md").read_text()
    bad = tmp_path / "results.md"
    bad.write_text(doc.replace("| 0.0691 ± 0.0076 |", "| 0.0692 ± 0.0076 |", 1))
    r = cli("reproduce", "per-ber", "--check", "--no-progress", "--out", tmp_path / "out" / "per-ber",
            "--results-md", bad)   # the runs on disk: nothing to rerun
    assert r.rc == 1 and ("per-ber: table 'BER', row '0.0001', column 'measured PER': docs/results.md "
                          "has '0.0692 ± 0.0076', the rerun gives '0.0691 ± 0.0076'") in r.stdout, r


def test_repeated_columns_and_continued_groups():
    """tss-sensitivity's shape: 'packets' once per BER, a variant's rows
    after its first with an empty first cell."""
    doc = """### S (`moteip reproduce demo-s`)

| variant | configuration | b/s (BER 0) | packets | b/s (BER 1e-05) | packets |
|---|---|---|---|---|---|
| main | tcp | 1 | 10 | 2 | 20 |
|  | tss | 3 | 30 | 4 | 40 |
| tau | tcp | 5 | 50 | 6 | 60 |
|  | tss | 7 | 70 | 8 | 80 |
"""
    rows = [["main", "tcp", "1", "10", "2", "20"], ["", "tss", "3", "30", "4", "40"],
            ["tau", "tcp", "5", "50", "6", "60"], ["", "tss", "7", "70", "8", "81"]]
    fresh = chk.report_tables(Report(["variant", "configuration", "b/s (BER 0)", "packets",
                                      "b/s (BER 1e-05)", "packets"], rows))
    assert [str(d) for d in chk.compare("demo-s", fresh, doc)] == [
        "demo-s: table 'variant', row 'tau / tss', column 'packets': docs/results.md has '80', "
        "the rerun gives '81'"]


def test_a_subsection_naming_another_experiment_is_that_ones():
    doc = DOC.replace("## Next part", "#### Uniform (`moteip reproduce demo-u`)\n\n"
                      "| t_d (ms) | measured p (B/s) | formula |\n|---|---|---|\n| 0 | 7 | 8 |\n\n"
                      "#### More of demo-z\n\n## Next part")
    z = chk.sections(doc, "demo-z")[0]
    assert "| 0 | 1 | 2 |" in z and "| 0 | 7 | 8 |" not in z and "More of demo-z" in z
    assert chk.sections(doc, "demo-u") == [
        ("#### Uniform (`moteip reproduce demo-u`)\n\n| t_d (ms) | measured p (B/s) | formula |\n"
         "|---|---|---|\n| 0 | 7 | 8 |\n")]
    fresh = chk.report_tables(rep([["0", "1", "2"]]))
    assert chk.compare("demo-z", fresh, doc) == []
    # a subsection of the experiment's own section stays in it
    own = doc.replace("#### More of demo-z", "#### More\n\n| t_d (ms) | formula |\n|---|---|\n| 0 | 3 |")
    assert len(chk.compare("demo-z", fresh, own)) == 1


def test_tables_with_the_same_columns_each_find_their_own():
    per_node = ["arm", "n0", "n1"]
    frames = render(per_node, [["tcp", "1160", "2249"], ["tcp-cmac", "3626", "6278"]])
    radio = render(per_node, [["tcp", "312", "312"], ["tcp-cmac", "41.2", "59.4"]])
    fresh = chk.report_tables(rep([], ["frames:", frames, "radio-on:", radio]))
    doc = ("### E (`moteip reproduce demo-e`)\n\n| arm | n0 | n1 |\n|---|---|---|\n"
           "| tcp | 1160 | 2249 |\n\nand on ContikiMAC:\n\n| arm | n0 | n1 |\n|---|---|---|\n"
           "| tcp-cmac | 41.2 | 59.4 |\n")
    assert chk.compare("demo-e", fresh, doc) == []
    assert [str(d) for d in chk.compare("demo-e", fresh, doc.replace("41.2", "41.1"))] == [
        ("demo-e: table 'arm', row 'tcp-cmac', column 'n0': docs/results.md has '41.1', the "
         "rerun gives '41.2'")]


def test_every_registered_experiment_has_a_section_with_tables(repo_root):
    """`--all --check` fails at once on an experiment results.md never
    documented (chain-ber and denial-of-sleep were): each registered name
    has a section of its own holding at least one table."""
    from moteip import experiments
    doc = (repo_root / "docs" / "results.md").read_text()
    for e in experiments.all_experiments():
        secs = chk.sections(doc, e.name)
        assert secs, e.name
        assert any(chk.markdown_tables(s) for s in secs), e.name
