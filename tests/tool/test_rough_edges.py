"""Rough edges a new user hit (issue 19), each with the test that would have
caught it: `sweep --set`, "seed None" in a failed run's message, an output
path that cannot be written, a static route out of radio range (a warning;
--strict makes it exit 2), timed TCP flows printed as "341236/0 B", the
capture options, and --version; and from issue 28: sensor flows printed as JSON, an
unknown [sweep].table metric printed as "-", and a bad [sweep].vary key blamed on --vary."""
from __future__ import annotations

import json
import re
import stat

import pytest

import moteip

OUT_OF_RANGE = """
[routing]
type = "static"
routes = [{ node = 0, dst = 2, via = 2 }, { node = 1, dst = 2, via = 2 }]
"""


def test_sweep_set_fixes_a_key_for_every_point(cli, udp3, tmp_path):
    r = cli("sweep", "udp3.toml", "--set", "flows.0.count=5", "--set", "medium.ber=1e-5",
            "--vary", "flows[0].payload_bytes=20,40", "--runs", "2", "--out", "sw", "--no-progress")
    assert r.rc == 0, r
    sw = tmp_path / "sw"
    manifest = json.loads((sw / "sweep.json").read_text())
    assert manifest["set"] == {"flows[0].count": 5, "medium.ber": 1e-5}
    for p in (sw / "scenarios").glob("*.json"):
        sc = json.loads(p.read_text())
        assert sc["flows"][0]["count"] == 5 and sc["medium"]["ber"] == 1e-5
    for p in (sw / "results").glob("*.json"):
        assert json.loads(p.read_text())["flows"][0]["sent"] == 5
    # a varied key wins over a set one
    r = cli("sweep", "udp3.toml", "--set", "flows.0.count=5", "--vary", "flows.0.count=3",
            "--runs", "1", "--out", "sw2", "--no-progress")
    assert r.rc == 0, r
    (res,) = (tmp_path / "sw2" / "results").glob("*.json")
    assert json.loads(res.read_text())["flows"][0]["sent"] == 3


@pytest.mark.parametrize("args, message", [
    (["--set", "flows.0.count=-1"], "flows[0].count: expected an integer"),
    (["--set", "flows.0.count"], "--set 'flows.0.count': expected KEY=VALUE"),
    (["--set", "medium.rangee=3"], "medium.rangee: unknown key"),
])
def test_sweep_set_errors_exit_2(cli, udp3, args, message):
    r = cli("sweep", "udp3.toml", *args, "--runs", "1", "--no-progress")
    assert r.rc == 2 and message in r.stderr, r
    if "=" in args[1] and "rangee" not in args[1]:
        assert "(with flows[0].count = -1 from --set)" in r.stderr


def test_a_failed_run_names_the_seed_it_used(cli, udp3, tmp_path):
    # a simulator that validates, then fails: the message names the scenario's seed
    fake = tmp_path / "fake-sim"
    fake.write_text("#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --check ] && exit 0; done\n"
                    "echo 'moteip-sim: out of disk' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    r = cli("run", "udp3.toml", env={"MOTEIP_SIM": str(fake)})
    assert r.rc == 1
    assert r.stderr == "moteip: moteip-sim failed on udp3.toml (seed 1, exit 1): out of disk\n"
    r = cli("run", "udp3.toml", "--set", "seed=7", env={"MOTEIP_SIM": str(fake)})
    assert "(seed 7, exit 1)" in r.stderr


@pytest.mark.parametrize("opt", ["--pcap", "--trace"])
def test_an_output_path_that_cannot_be_written_is_a_usage_error(cli, udp3, tmp_path, opt):
    (tmp_path / "file").write_text("")
    r = cli("run", "udp3.toml", opt, "file/x.out")
    assert r.rc == 2
    assert r.stderr == f"moteip: {opt} file/x.out: cannot write: a part of file is not a directory\n"
    r = cli("run", "udp3.toml", opt, ".")
    assert r.rc == 2 and r.stderr == f"moteip: {opt} .: cannot write: Is a directory\n"
    # a directory that does not exist yet is made, as for --out
    r = cli("run", "udp3.toml", opt, "new/dir/x.out")
    assert r.rc == 0 and (tmp_path / "new" / "dir" / "x.out").stat().st_size > 0


def test_static_route_out_of_range_warns_and_strict_exits_2(cli, write_scenario, scenario_text, tmp_path):
    write_scenario("bad.toml", scenario_text["udp3"] + OUT_OF_RANGE)
    warning = ("moteip: warning: bad.toml: routing.routes[0]: node 0 cannot reach its next hop 2 "
               "(not in radio range): traffic to 2 through it is lost\n")
    r = cli("run", "bad.toml")
    assert r.rc == 0 and r.stderr == warning, r
    assert re.search(r"0/20 reports, delivery 0", r.stdout)
    for cmd in (["run", "bad.toml", "--strict"], ["check", "bad.toml", "--strict"],
                ["sweep", "bad.toml", "--runs", "1", "--strict", "--no-progress"]):
        r = cli(*cmd)
        assert r.rc == 2, (cmd, r)
        assert "routing.routes[0]: node 0 cannot reach its next hop 2" in r.stderr
        assert r.stderr.rstrip().endswith("bad.toml: 1 warning, and --strict makes them errors")
    # a sweep says it once, whatever the number of points
    r = cli("sweep", "bad.toml", "--vary", "medium.ber=0,1e-5", "--runs", "1", "--no-progress")
    assert r.rc == 0 and r.stderr.count("warning:") == 1, r


def test_timed_tcp_flow_is_printed_as_timed(cli, write_scenario, scenario_text):
    text = scenario_text["tcp2"].replace("bytes = 4000", "duration_s = 2").replace("stop_when_done = true",
                                                                                  "stop_when_done = false")
    write_scenario("timed.toml", text.replace("duration_s = 60", "duration_s = 3"))
    r = cli("run", "timed.toml")
    assert r.rc == 0, r
    row = r.stdout.splitlines()[3]
    assert re.fullmatch(r"0\s+tcp\s+0 -> 1\s+1\s+-\s+\d+ B of \d+ sent intact \(timed\), \d+ b/s, "
                        r"\d+ retx, \d+ RTOs", row), row
    assert "/0 B" not in r.stdout


def test_capture_options_reach_the_simulator(cli, tcp2, tmp_path):
    r = cli("run", "tcp2.toml", "--pcap", "n1.pcap", "--pcap-node", "1")
    assert r.rc == 0, r
    whole = cli("run", "tcp2.toml", "--pcap", "all.pcap")
    assert whole.rc == 0
    assert 0 < (tmp_path / "n1.pcap").stat().st_size < (tmp_path / "all.pcap").stat().st_size
    r = cli("run", "tcp2.toml", "--pcap", "x.pcap", "--pcap-view", "ip")
    assert r.rc == 0, r
    # the IP view of an IPHC network (LINKTYPE_RAW, 101): the option reached moteip-sim
    assert int.from_bytes((tmp_path / "x.pcap").read_bytes()[20:24], "little") == 101
    r = cli("run", "tcp2.toml", "--pcap-node", "1")
    assert (r.rc, r.stderr) == (2, "moteip: --pcap-node and --pcap-view need --pcap FILE\n")


def test_version(cli):
    r = cli("--version")
    assert (r.rc, r.stdout) == (0, f"moteip {moteip.__version__}\n")
    assert re.fullmatch(r"\d+\.\d+\.\d+", moteip.__version__)


# --- issue 28: rough edges of the workbench ----------------------------------------------

SENSOR3 = """\
name = "sensor3"
duration_s = 30
[topology]
type = "chain"
nodes = 3
spacing_m = 40
[[flows]]
type = "sensor"
src = 2
dst = 0
transport = "coap"
batch = 5
"""


def test_a_sensor_flow_prints_as_a_row_not_json(cli, write_scenario):
    write_scenario("s.toml", SENSOR3)
    r = cli("run", "s.toml", "--out", "r.json")
    assert r.rc == 0, r
    row = next(line for line in r.stdout.splitlines() if line.startswith("0 "))
    assert "{" not in row and '"' not in row, row
    assert re.search(r"\b\d+/\d+ readings over coap, reliability [\d.]+, latency [\d.]+ ms", row), row


def test_an_unknown_sweep_table_metric_is_an_error_naming_close_ones(cli, write_scenario, scenario_text):
    write_scenario("t.toml", scenario_text["udp3"] + '\n[sweep]\ntable = ["flows[0].delivery_rate"]\n')
    r = cli("sweep", "t.toml", "--runs", "1", "--out", "t", "--no-progress")
    assert r.rc == 2, r
    assert "moteip: sweep.table flows[0].delivery_rate: no such metric in this sweep; similar: " in r.stderr
    assert "flows[0].delivery_ratio" in r.stderr and "Traceback" not in r.stderr


def test_a_bad_sweep_vary_key_is_blamed_on_the_file_not_on_vary(cli, write_scenario, scenario_text):
    write_scenario("v.toml", scenario_text["udp3"] + '\n[sweep]\nvary = { "flows[3].count" = [1, 2] }\n')
    for cmd in (["sweep", "v.toml", "--runs", "1", "--out", "v", "--no-progress"], ["check", "v.toml"]):
        r = cli(*cmd)
        assert r.rc == 2, r
        assert r.stderr == "moteip: v.toml: sweep.vary: flows[3]: the scenario's flows has 1 element\n", r
    r = cli("check", "v.toml", "--vary", "flows[3].count=5")       # typed: then it is --vary's
    assert r.rc == 2 and r.stderr.startswith("moteip: --vary: flows[3]"), r
