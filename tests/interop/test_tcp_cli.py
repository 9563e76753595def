"""The TCP part of the moteip-host command line: the service options, the
client-test options, --profile and --impair (usage errors: one stderr line
naming the option, exit 2), --help, and the "tcp" counters in the stats
JSON."""
from __future__ import annotations

import re

import pytest

from moteip_netns import HOST_BIN, REPO, TAP

BAD_ARGS = [
    (["--echo"], "--echo"),
    (["--echo", "0"], "--echo"),
    (["--echo", "65536"], "--echo"),
    (["--echo", "7x"], "--echo"),
    (["--echo", "-7"], "--echo"),
    (["--echo", "7", "--echo", "8"], "--echo"),
    (["--discard", ""], "--discard"),
    (["--chargen", "abc"], "--chargen"),
    (["--http", "99999"], "--http"),
    (["--http", "80", "--echo", "80"], "--echo"),
    (["--profile", "tiny"], "--profile"),
    (["--profile", "huge"], "--profile"),
    (["--profile"], "--profile"),
    (["--tcp-client", "192.0.2.1"], "--tcp-client"),
    (["--tcp-client", "192.0.2.1:0"], "--tcp-client"),
    (["--tcp-client", "fd00::1:80"], "--tcp-client"),
    (["--tcp-client", "[fd00::1]80"], "--tcp-client"),
    (["--tcp-client", "224.0.0.1:80"], "--tcp-client"),
    (["--tcp-client", "192.0.2.1:80", "--client-send", "x"], "--client-send"),
    (["--tcp-client", "192.0.2.1:80", "--client-expect", "-1"], "--client-expect"),
    (["--tcp-client", "192.0.2.1:80", "--client-timeout", "0"], "--client-timeout"),
    (["--client-send", "10"], "--client-send"),
    (["--client-rx-ring", "100000"], "--client-rx-ring"),
    (["--tcp-client", "192.0.2.1:80", "--client-rx-ring", "0"], "--client-rx-ring"),
    (["--tcp-client", "192.0.2.1:80", "--client-rx-ring", "1073741824"], "--client-rx-ring"),
    (["--tcp-client", "192.0.2.1:80", "--client-rx-ring", "9", "--client-rx-ring", "9"],
     "--client-rx-ring"),
    (["--impair", "loss"], "--impair"),
    (["--impair", "loss=101"], "--impair"),
    (["--impair", "jitter=5"], "--impair"),
    (["--impair", "reorder=25"], "--impair"),
]


@pytest.mark.parametrize("args,option", BAD_ARGS,
                         ids=[" ".join(a) or "empty" for a, _ in BAD_ARGS])
def test_bad_tcp_arguments(netns, args, option):
    p = netns.cmd([str(HOST_BIN), "--tap", TAP, *args], check=False, timeout=10)
    assert p.returncode == 2, f"exit {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1, f"want one stderr line, got: {p.stderr!r}"
    assert lines[0].startswith("moteip-host: "), lines[0]
    assert option in lines[0], f"{option} not named in: {lines[0]}"
    assert p.stdout == ""
    assert TAP not in netns.ip(["link", "show"]).stdout


def test_help_lists_tcp_options(netns):
    p = netns.cmd([str(HOST_BIN), "--help"], timeout=10)
    for opt in ("--echo", "--discard", "--chargen", "--http", "--profile", "--tcp-client",
                "--client-send", "--client-expect", "--client-timeout", "--client-rx-ring",
                "--impair"):
        assert opt in p.stdout, opt


def _tcp_stat_names() -> list[str]:
    text = (REPO / "include" / "moteip" / "tcp.h").read_text()
    m = re.search(r"#define MIP_TCP_STATS_LIST\(X\)(.*?)\n\s*\n", text, re.S)
    assert m, "MIP_TCP_STATS_LIST not found"
    return re.findall(r"\bX\((\w+)\)", m.group(1))


def test_profile_full_accepted_and_tcp_counters_in_json(make_host):
    host = make_host(["--profile", "full", "--http", "8080"])
    stats = host.stop()
    names = _tcp_stat_names()
    assert len(names) > 20
    assert set(stats["tcp"]) == set(names)
    assert all(isinstance(v, int) and v >= 0 for v in stats["tcp"].values())
    assert stats["apps"]["http"]["port"] == 8080
    assert stats["apps"]["tcp_echo"]["port"] == 0      # not started
