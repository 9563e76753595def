"""The moteip-host command-line contract: usage errors (one stderr line
naming the argument, exit 2), --help, signals (exit 0 and a valid stats
JSON), and the optional arguments (--mac, --route, --forward)."""
from __future__ import annotations

import json
import signal

import pytest

from moteip_netns import (HOST_BIN, LINUX_V4, LINUX_V6, STACK_V4, STACK_V6, TAP,
                      MoteipHost, stat_names)

# (argv after the program name, the option the error line must name)
BAD_ARGS = [
    ([], "--tap"),
    (["--addr", "192.0.2.2/24"], "--tap"),
    (["--tap"], "--tap"),
    (["--tap", "x" * 16, "--addr", "192.0.2.2/24"], "--tap"),
    (["--tap", "mtap0", "--tap", "mtap1"], "--tap"),
    (["--tap", "mtap0", "--addr", "nonsense"], "--addr"),
    (["--tap", "mtap0", "--addr", "300.1.2.3/24"], "--addr"),
    (["--tap", "mtap0", "--addr", "192.0.2.2/33"], "--addr"),
    (["--tap", "mtap0", "--addr", "192.0.2.2/"], "--addr"),
    (["--tap", "mtap0", "--addr", "192.0.2.2/-1"], "--addr"),
    (["--tap", "mtap0", "--addr", "fd00::2/129"], "--addr"),
    (["--tap", "mtap0", "--addr", "fd00::2::1/64"], "--addr"),
    (["--tap", "mtap0", "--addr", "224.0.0.1/4"], "--addr"),
    (["--tap", "mtap0", "--addr"], "--addr"),
    (["--tap", "mtap0", "--addr", "192.0.2.2/24", "--addr", "192.0.2.3/24",
      "--addr", "192.0.2.4/24"], "--addr"),            # more than MIP_NETIF_ADDR4_MAX
    (["--tap", "mtap0", "--route", "10/8", "via", "x"], "--route"),
    (["--tap", "mtap0", "--route", "0.0.0.0/0", "via", "x"], "--route"),
    (["--tap", "mtap0", "--route", "0.0.0.0/0", "via"], "--route"),
    (["--tap", "mtap0", "--route", "0.0.0.0/0", "through", "192.0.2.1"], "--route"),
    (["--tap", "mtap0", "--route", "0.0.0.0/0", "via", "fd00::1"], "--route"),
    (["--tap", "mtap0", "--route", "10.1.0.0/8", "via", "192.0.2.1"], "--route"),
    (["--tap", "mtap0", "--mac", "zz:00:00:00:00:01"], "--mac"),
    (["--tap", "mtap0", "--mac", "01:00:5e:00:00:01"], "--mac"),
    (["--tap", "mtap0", "--mac"], "--mac"),
    (["--tap", "mtap0", "--stats-json", "/nonexistent-dir/stats.json"], "--stats-json"),
    (["--tap", "mtap0", "--bogus"], "--bogus"),
    (["--tap", "mtap0", "stray"], "stray"),
]


@pytest.mark.parametrize("args,option", BAD_ARGS,
                         ids=[" ".join(a) or "no-args" for a, _ in BAD_ARGS])
def test_bad_arguments(netns, args, option):
    # Inside a fresh namespace: even a parser bug cannot touch the host.
    p = netns.cmd([str(HOST_BIN), *args], check=False, timeout=10)
    assert p.returncode == 2, f"exit {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1, f"want one stderr line, got: {p.stderr!r}"
    assert lines[0].startswith("moteip-host: "), lines[0]
    assert option in lines[0], f"{option} not named in: {lines[0]}"
    assert p.stdout == ""
    # Nothing was created.
    assert TAP not in netns.ip(["link", "show"]).stdout


def test_help(netns):
    p = netns.cmd([str(HOST_BIN), "--help"], timeout=10)
    assert p.returncode == 0
    assert "usage:" in p.stdout and "--tap" in p.stdout and "--route" in p.stdout
    assert p.stderr == ""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_signal_writes_stats(host, sig):
    host.ping(STACK_V4, count=2)
    host.ping(STACK_V6, count=2)
    assert host.ready_line == f"moteip-host: {TAP} up, {STACK_V4}/24 {STACK_V6}/64"
    stats = host.stop(sig)
    names = stat_names()
    assert len(names) > 40
    c = stats["counters"]
    assert set(c) == set(names), set(c) ^ set(names)
    assert all(isinstance(v, int) and v >= 0 for v in c.values())
    assert isinstance(stats["pbuf_high_water"], int) and stats["pbuf_high_water"] >= 1
    assert c["rx_frames"] > 0 and c["tx_frames"] > 0
    assert c["icmp_echo_replied"] >= 4
    assert c["arp_rx"] >= 1 and c["nd_rx"] >= 1
    # Keys appear in MIP_STATS_LIST order.
    assert list(c) == names
    # No leftovers from the atomic write.
    assert not list(host.stats_path.parent.glob(host.stats_path.name + ".tmp*"))


def test_mac_route_forward(make_host, netns):
    """--mac sets the stack's MAC; --route makes replies to off-link sources
    go through the gateway (Linux). The off-link sources are still test
    addresses: 192.0.2.200 (outside the stack's /25) and fd01::1 on Linux's
    loopback."""
    netns.ip(["addr", "add", "192.0.2.200/32", "dev", "lo"])
    netns.ip(["addr", "add", "fd01::1/128", "dev", "lo"])
    netns.cmd(["sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0"])
    h = make_host(["--mac", "02:00:00:aa:bb:cc",
                   "--route", "0.0.0.0/0", "via", LINUX_V4,
                   "--route", "fd01::/16", "via", LINUX_V6,
                   "--forward"],
                  addrs=[f"{STACK_V4}/25", f"{STACK_V6}/64"])
    assert h.stack_mac() == "02:00:00:aa:bb:cc"
    h.ping(STACK_V4, extra=["-I", "192.0.2.200"])
    h.ping(STACK_V6, extra=["-I", "fd01::1"])
    stats = h.stop()
    assert stats["counters"]["icmp_echo_replied"] >= 2


def test_no_route_no_reply(make_host, netns):
    """Without the route, the reply to an off-link source has nowhere to go."""
    netns.ip(["addr", "add", "192.0.2.200/32", "dev", "lo"])
    netns.cmd(["sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0"])
    h = make_host(addrs=[f"{STACK_V4}/25", f"{STACK_V6}/64"])
    p = h.ping(STACK_V4, extra=["-I", "192.0.2.200"], check=False, timeout=1)
    assert p.returncode != 0
    stats = h.stop()
    assert stats["counters"]["drop_ip_no_route"] >= 1, stats["counters"]


def test_tap_created_when_missing(netns, tmp_path):
    """moteip-host creates (and brings up) the TAP when it does not exist."""
    h = MoteipHost(netns, tmp_path, tap="mtap7", create_tap=False)
    try:
        link = json.loads(netns.ip(["-j", "link", "show", "dev", "mtap7"]).stdout)[0]
        assert "UP" in link["flags"]
        assert h.ready_line.startswith("moteip-host: mtap7 up,")
        netns.ip(["addr", "add", f"{LINUX_V4}/24", "dev", "mtap7"])
        h.ping(STACK_V4, count=1, timeout=3)
        h.stop()
    finally:
        h.kill()


def test_tap_busy_is_runtime_error(host, tmp_path):
    """A second instance on the same TAP fails with exit 1 and says why."""
    p = host.ns.cmd([str(HOST_BIN), "--tap", TAP, "--addr", "192.0.2.3/24"],
                    check=False, timeout=10)
    assert p.returncode == 1, p
    assert p.stderr.startswith("moteip-host: --tap:"), p.stderr
    host.assert_alive()
