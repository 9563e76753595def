"""Scenario validation: `moteip check` and `moteip.load_scenario` name the
file, the key and what was expected, exit 2, and never show a traceback."""
from __future__ import annotations

import itertools
import math
import pathlib
import tempfile

import pytest

import moteip
from moteip import ScenarioError
from moteip.scenario import load, validate

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[2] / "examples").glob("*.toml"))


def _sub(old: str, new: str):
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


def _append(extra: str):
    return lambda text: text + extra


# (file, edit of the udp3 scenario, the whole message after "moteip: " or fragments of it,
#  caught by the front end itself (True) or by the simulator's loader (False))
BAD = [
    ("syntax.toml", _sub("duration_s = 60", "duration_s = = 60"),
     ["syntax.toml: TOML syntax error: ", "(at line 4, column 14)"], True),
    ("type.toml", _sub("nodes = 3", 'nodes = "x"'),
     ["type.toml: topology.nodes: expected an integer", 'got "x"'], False),
    ("top.toml", lambda t: "bogus = 1\n" + t,
     ["top.toml: bogus: unknown key; known keys here: name, seed, duration_s", "topology",
      "flows"], False),
    ("nested.toml", _sub("ber = 0\n", "ber = 0\nrange = 3\n"),
     ["nested.toml: medium.range: unknown key; known keys here: model, range_m, "
      "interference_range_m, ber"], False),
    ("dst.toml", lambda t: t.replace("nodes = 3", "nodes = 11").replace('dst = "last"', "dst = 12"),
     'dst.toml: flows[0].dst: expected an integer node id 0..10 or "last", got 12', False),
    ("interval.toml", _sub("interval_s = 0.1", "interval_s = -1"),
     ["interval.toml: flows[0].interval_s: expected a number", "got -1"], False),
    ("ber.toml", _sub("ber = 0\n", "ber = -0.1\n"),
     "ber.toml: medium.ber: expected a number in [0, 1], got -0.1", False),
    ("date.toml", _sub("count = 20", "count = 20\nstart_s = 1979-05-27"),
     "date.toml: flows[0].start_s: expected a number, string, boolean, table or array, "
     "got the TOML date/time 1979-05-27", True),
    ("datetime.toml", lambda t: "when = 1979-05-27T07:32:00Z\n" + t,
     "datetime.toml: when: expected a number, string, boolean, table or array, "
     "got the TOML date/time 1979-05-27 07:32:00+00:00", True),
    ("nan.toml", _sub("ber = 0\n", "ber = nan\n"),
     "nan.toml: medium.ber: expected a finite number, got nan", True),
    ("inf.toml", _sub("range_m = 10.5", "range_m = inf"),
     "inf.toml: medium.range_m: expected a finite number, got inf", True),
    ("neginf.toml", _sub("interval_s = 0.1", "interval_s = -inf"),
     "neginf.toml: flows[0].interval_s: expected a finite number, got -inf", True),
    ("sweep_key.toml", _append("\n[sweep]\nrunz = 3\n"),
     "sweep_key.toml: sweep.runz: unknown key; known keys here: runs, vary, table", True),
    ("sweep_runs.toml", _append("\n[sweep]\nruns = 0\n"),
     "sweep_runs.toml: sweep.runs: expected an integer >= 1, got 0", True),
    ("sweep_scalar.toml", lambda t: t.replace('description = "tiny UDP chain for the tool tests"',
                                                  "sweep = 3"),
     "sweep_scalar.toml: sweep: expected a table, got int", True),
    ("vary_scalar.toml", _append('\n[sweep]\nvary = { "medium.ber" = 0.1 }\n'),
     "vary_scalar.toml: sweep.vary.medium.ber: expected a non-empty array of values, got 0.1", True),
    ("vary_empty.toml", _append('\n[sweep]\nvary = { "medium.ber" = [] }\n'),
     "vary_empty.toml: sweep.vary.medium.ber: expected a non-empty array of values, got []", True),
    ("vary_key.toml", _append('\n[sweep]\nvary = { "a..b" = [1, 2] }\n'),
     "vary_key.toml: sweep.vary: key 'a..b': expected a dotted path such as medium.ber or "
     "flows[0].dst", True),
    ("table_key.toml", _append('\n[sweep]\ntable = ["flows[0].goodput_bps", "a..b"]\n'),
     "table_key.toml: sweep.table: key 'a..b': expected a dotted path such as medium.ber or "
     "flows[0].dst", True),
    ("desc.toml", _sub('description = "tiny UDP chain for the tool tests"', "description = 3"),
     "desc.toml: description: expected a string, got 3", True),
    ("rdc_rate.toml", _sub('type = "csma_ca"\n', 'type = "csma_ca"\nrdc = { type = "contikimac", '
                                                  'check_rate_hz = -8 }\n'),
     "rdc_rate.toml: mac.rdc.check_rate_hz: expected an integer in [1, 1000], got -8", False),
    ("rdc_kind.toml", _sub('type = "csma_ca"\n', 'type = "csma_ca"\nrdc = { type = "bmac" }\n'),
     'rdc_kind.toml: mac.rdc.type: expected one of "nullrdc", "contikimac", "xmac", "lpp", '
     '"leaf", "parent", got "bmac"', False),
    ("rdc_leaf.toml", _sub('type = "csma_ca"\n', 'type = "csma_ca"\nrdc = { type = "leaf" }\n'),
     "rdc_leaf.toml: mac.rdc.parent: missing; expected the node id of the leaf's parent (a node "
     "running the parent RDC)", False),
    ("rdc_node.toml", _append('\n[[mac.nodes]]\nids = [7]\nrdc = { type = "contikimac" }\n'),
     'rdc_node.toml: mac.nodes[0].ids[0]: expected an integer node id 0..2 or "last", got 7',
     False),
]


def _check_message(msg: str, expected) -> None:
    if isinstance(expected, str):
        assert msg == expected
    else:
        assert msg.startswith(expected[0])
        for frag in expected[1:]:
            assert frag in msg


def _no_temp_name(msg: str) -> None:
    assert "/tmp/moteip-" not in msg
    assert str(pathlib.Path(tempfile.gettempdir()) / "moteip-") not in msg


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_passes_check(cli, path):
    sc = moteip.load_scenario(path)
    npoints = math.prod(len(v) for v in sc.sweep.vary.values())
    r = cli("check", path)
    assert r.rc == 0, r
    assert r.stdout == f"{path}: ok ({npoints} point{'s' if npoints != 1 else ''})\n"
    assert r.stderr == ""


def test_the_examples_are_all_there():
    assert {p.name for p in EXAMPLES} >= {"chain10-ber.toml", "hidden-terminals.toml",
                                          "per-ber.toml", "tcp-1hop.toml", "tcplp-hops.toml"}


@pytest.mark.parametrize("name,edit,expected,front_end", BAD, ids=[b[0] for b in BAD])
def test_bad_scenario_check_exits_2_naming_file_and_key(cli, write_scenario, scenario_text,
                                                        name, edit, expected, front_end):
    write_scenario(name, edit(scenario_text["udp3"]))
    r = cli("check", name)
    assert r.rc == 2, r
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("moteip: ") and r.stderr.endswith("\n") and r.stderr.count("\n") == 1
    _check_message(r.stderr[len("moteip: "):-1], expected)
    _no_temp_name(r.stderr)


@pytest.mark.parametrize("name,edit,expected,front_end", BAD, ids=[b[0] for b in BAD])
def test_bad_scenario_api_raises_scenario_error(write_scenario, scenario_text, sim_path,
                                                name, edit, expected, front_end):
    path = write_scenario(name, edit(scenario_text["udp3"]))
    given = str(path)  # the API gets an absolute path: the message names exactly that
    with pytest.raises(ScenarioError) as ei:
        validate(load(given), sim_path)
    msg = str(ei.value)
    if front_end:  # caught while loading, before the simulator is asked
        with pytest.raises(ScenarioError):
            load(given)
    assert msg.startswith(given + ": ")
    rel = expected if isinstance(expected, str) else expected[0]
    _check_message(msg, [given + rel[len(name):]] + ([] if isinstance(expected, str) else expected[1:]))
    _no_temp_name(msg)


def test_message_names_the_path_as_given_not_the_temporary_json(cli, write_scenario, scenario_text,
                                                                tmp_path):
    text = scenario_text["udp3"].replace("nodes = 3", "nodes = 11").replace('dst = "last"', "dst = 12")
    write_scenario("sub/dir/chain.toml", text)
    tail = ': flows[0].dst: expected an integer node id 0..10 or "last", got 12\n'
    r = cli("check", "sub/dir/chain.toml")
    assert (r.rc, r.stderr) == (2, "moteip: sub/dir/chain.toml" + tail), r
    absolute = tmp_path / "sub" / "dir" / "chain.toml"
    r = cli("check", absolute, cwd=tmp_path / "sub")
    assert (r.rc, r.stderr) == (2, f"moteip: {absolute}" + tail), r
    r = cli("run", "dir/chain.toml", "--out", tmp_path / "r.json", cwd=tmp_path / "sub")
    assert (r.rc, r.stderr) == (2, "moteip: dir/chain.toml" + tail), r
    _no_temp_name(r.stderr)
    assert not (tmp_path / "r.json").exists()


def test_missing_file(cli, tmp_path):
    r = cli("check", "missing.toml")
    assert (r.rc, r.stdout, r.stderr) == (2, "", "moteip: missing.toml: no such file\n"), r
    with pytest.raises(ScenarioError, match=r"^nowhere/x\.toml: no such file$"):
        moteip.load_scenario("nowhere/x.toml")


def test_directory_as_scenario(cli, tmp_path):
    (tmp_path / "adir.toml").mkdir()
    r = cli("check", "adir.toml")
    assert r.rc == 2, r
    assert r.stderr.startswith("moteip: adir.toml: cannot read the scenario: ")
    assert "Is a directory" in r.stderr
    assert "Traceback" not in r.stderr


def test_json_syntax_error(cli, write_scenario):
    write_scenario("bad.json", '{"topology": {"type": "chain", "nodes": 2,}}\n')
    r = cli("check", "bad.json")
    assert r.rc == 2, r
    assert r.stderr.startswith("moteip: bad.json: JSON syntax error: ")
    assert "(line 1, column 43)" in r.stderr
    assert "Traceback" not in r.stderr


def test_json_scenario_is_accepted(cli, write_scenario, udp3):
    import json
    import tomllib

    write_scenario("udp3.json", json.dumps(tomllib.loads(udp3.read_text())))
    r = cli("check", "udp3.json")
    assert (r.rc, r.stdout) == (0, "udp3.json: ok (1 point)\n"), r


def test_json_scenario_that_is_not_a_table(cli, write_scenario):
    write_scenario("list.json", "[1, 2]\n")
    r = cli("check", "list.json")
    assert (r.rc, r.stderr) == (2, "moteip: list.json: expected a table of scenario keys, got list\n"), r


# --- sweeps: every point is validated before anything runs -------------------------------------

def test_sweep_with_an_invalid_point_is_refused_before_any_run(cli, udp3, tmp_path):
    msg = ("moteip: udp3.toml: medium.ber: expected a number in [0, 1], got -1 "
           "(with medium.ber = -1 from the sweep)\n")
    r = cli("sweep", "udp3.toml", "--vary", "medium.ber=0,-1", "--runs", "2", "--out", "sw")
    assert (r.rc, r.stdout, r.stderr) == (2, "", msg), r
    assert not (tmp_path / "sw").exists()
    assert not list(tmp_path.rglob("*-s1.json"))
    r = cli("check", "udp3.toml", "--vary", "medium.ber=0,-1")
    assert (r.rc, r.stdout, r.stderr) == (2, "", msg), r


def test_invalid_point_message_names_every_parameter_of_the_point(cli, udp3):
    r = cli("check", "udp3.toml", "--vary", "medium.ber=0,-1", "--vary", "flows[0].count=5")
    assert r.rc == 2, r
    assert r.stderr.endswith("got -1 (with medium.ber = -1, flows[0].count = 5 from the sweep)\n")


def test_invalid_point_from_the_files_sweep_table(cli, write_scenario, scenario_text):
    write_scenario("sw.toml", scenario_text["udp3"] + '\n[sweep]\nvary = { "medium.ber" = [0, 2] }\n')
    r = cli("check", "sw.toml")
    assert (r.rc, r.stderr) == (2, "moteip: sw.toml: medium.ber: expected a number in [0, 1], got 2 "
                                   "(with medium.ber = 2 from the sweep)\n"), r


def test_check_counts_the_points_of_file_and_command_line(cli, write_scenario, scenario_text):
    write_scenario("sw.toml", scenario_text["udp3"] + '\n[sweep]\nvary = { "medium.ber" = [0, 1e-4] }\n')
    r = cli("check", "sw.toml", "--vary", "flows[0].payload_bytes=20..22")
    assert (r.rc, r.stdout) == (0, "sw.toml: ok (6 points)\n"), r


def test_vary_nan_is_refused_like_a_toml_nan(cli, udp3):
    r = cli("check", "udp3.toml", "--vary", "medium.ber=0,inf")
    assert (r.rc, r.stderr) == (2, "moteip: udp3.toml: medium.ber: expected a finite number, got inf "
                                   "(with medium.ber = Infinity from the sweep)\n"), r


# --- --set and --vary keys beyond the scenario ----------------------------------------------

def test_set_index_past_the_end_of_flows(cli, udp3, tmp_path):
    r = cli("run", "udp3.toml", "--set", "flows[1].dst=1", "--out", "r.json")
    assert (r.rc, r.stderr) == (2, "moteip: --set: flows[1]: the scenario's flows has 1 element\n"), r
    assert not (tmp_path / "r.json").exists()


def test_vary_index_past_the_end_of_flows(cli, udp3, tmp_path):
    r = cli("sweep", "udp3.toml", "--vary", "flows.3.count=1,2", "--out", "sw")
    assert (r.rc, r.stderr) == (2, "moteip: --vary: flows[3]: the scenario's flows has 1 element\n"), r
    assert not (tmp_path / "sw").exists()


def test_set_unknown_key_names_set_not_a_sweep(cli, udp3):
    r = cli("run", "udp3.toml", "--set", "nosuch=1", "--out", "r.json")
    assert r.rc == 2, r
    assert r.stderr.startswith("moteip: udp3.toml: nosuch: unknown key; known keys here: name, ")
    assert r.stderr.endswith(" (with nosuch = 1 from --set)\n")
    assert "sweep" not in r.stderr


def test_set_nan_is_refused_like_a_toml_nan(cli, udp3):
    r = cli("run", "udp3.toml", "--set", "medium.ber=nan", "--out", "r.json")
    assert (r.rc, r.stderr) == (2, "moteip: udp3.toml: medium.ber: expected a finite number, got nan "
                                   "(with medium.ber = NaN from --set)\n"), r


def test_last_as_flow_destination(udp3):
    r = moteip.run(udp3, seed=1)
    f = r["flows"][0]
    assert (f["src"], f["dst"], f["hops"]) == (0, 2, 2)
    assert f["sent"] == 20 and f["received"] == 20
    r5 = moteip.run(udp3, seed=1, params={"topology.nodes": 5})
    assert (r5["flows"][0]["dst"], r5["flows"][0]["hops"]) == (4, 4)


def test_scenario_tool_keys_do_not_reach_the_simulator(write_scenario, scenario_text):
    p = write_scenario("sw.toml", scenario_text["udp3"] + '\n[sweep]\nruns = 3\nvary = { "flows.0.count" = [1, 2] }\n'
                       'table = ["flows.0.delivery_ratio"]\n')
    sc = moteip.load_scenario(p)
    assert "description" not in sc.data and "sweep" not in sc.data
    assert sc.description == "tiny UDP chain for the tool tests"
    assert (sc.sweep.runs, sc.sweep.vary, sc.sweep.table) == (3, {"flows[0].count": [1, 2]},
                                                              ["flows[0].delivery_ratio"])
    assert (sc.name, sc.stem, sc.base_seed) == (str(p), "sw", 1)
    assert list(itertools.islice(sc.data, 3)) == ["name", "seed", "duration_s"]
