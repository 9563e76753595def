"""The simulator's border router: Linux reaches simulated nodes in real time.

moteip-sim --realtime runs a chain of 802.15.4 nodes whose node 0 is a
6LoWPAN border router with its other interface on a TUN (or TAP) device in
a namespace this test creates (docs/SIMULATOR.md, "Real time and the border
router"). Linux's own ping, curl and nc then talk to the real stack of a
node five radio hops away, over a lossy channel (BER 1e-4: a full frame is
lost about one time in ten): the HTTP body is checked by SHA-256.

NETWORK SAFETY: everything happens in a fresh namespace (the `netns`
fixture), to fd00::/8 addresses only; every command has a timeout and the
simulated run a bounded duration.
"""
from __future__ import annotations

import hashlib
import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from moteip_netns import BUILD_DIR, Netns, assert_safe_addr, read_ready_line

SIM = BUILD_DIR / "moteip-sim"
NODE5 = "fd00::ff:fe00:5"          # node 5's address under the default link.prefix
BODY = 16384


def body_sha256(n: int) -> str:
    """SHA-256 of /bytes/N (apps/http_server.h's pattern)."""
    return hashlib.sha256(bytes((7 * i + (i >> 8) + (i >> 16)) & 0xFF for i in range(n))).hexdigest()


def scenario(device: str, kind: str, address: str, nodes: int, ber: float) -> dict:
    return {
        "name": "border", "seed": 1, "duration_s": 240,
        "topology": {"type": "chain", "nodes": nodes, "spacing_m": 40},
        "medium": {"ber": ber},
        "services": [{"type": "http", "node": "last"}, {"type": "tcp_echo", "node": "last"},
                     {"type": "udp_echo", "node": "last"}],
        "border": {"node": 0, "device": device, "type": kind, "address": address},
    }


class SimBorder:
    """moteip-sim --realtime in the namespace, its result read at stop()."""

    def __init__(self, ns: Netns, tmp: Path, sc: dict, extra: list[str] | None = None):
        if not SIM.is_file():
            pytest.fail(f"{SIM} not built (cmake --build build --target moteip-sim)")
        self.path = tmp / "scenario.json"
        self.out = tmp / "result.json"
        self.path.write_text(json.dumps(sc))
        self.proc = subprocess.Popen(["ip", "netns", "exec", ns.name, *(extra or []), str(SIM),
                                      str(self.path), "--realtime", "--out", str(self.out)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.ready = ""

    def wait_ready(self) -> str:
        self.ready = read_ready_line(self.proc, 10, "moteip-sim", stream=self.proc.stderr)
        return self.ready

    def stop(self) -> dict:
        """SIGTERM ends the run: exit 0 and the result, as at its end."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=15)
        assert self.proc.returncode == 0, err.decode(errors="replace")
        return json.loads(self.out.read_text())

    def explain(self) -> str:
        """What the simulator said and counted, for a failed assertion."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            _, err = self.proc.communicate(timeout=15)
        except (subprocess.TimeoutExpired, ValueError):
            return "(the simulator did not stop)"
        r = json.loads(self.out.read_text()) if self.out.exists() else {}
        keep = {k: r.get(k) for k in ("sim_time_s", "services", "border", "realtime", "totals")}
        return f"moteip-sim exit {self.proc.returncode}: {err.decode(errors='replace')}\n{keep}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=10)


@pytest.fixture
def sims():
    started: list[SimBorder] = []
    yield started
    for s in started:
        s.kill()


def tun_link(ns: Netns, dev: str = "mtun0", **kw) -> None:
    """A TUN with Linux's end fd01::1/64 and the mesh routed into it."""
    ns.ip(["tuntap", "add", "dev", dev, "mode", "tun", *kw.get("extra", [])])
    ns.ip(["link", "set", dev, "mtu", "1280", "up"])
    ns.ip(["addr", "add", "fd01::1/64", "dev", dev, "nodad"])
    ns.ip(["route", "add", "fd00::/64", "dev", dev])


def ping(ns: Netns, addr: str, count: int, wait: float = 5) -> subprocess.CompletedProcess:
    assert_safe_addr(addr)
    return ns.cmd(["ping", "-6", "-n", "-c", count, "-i", "0.5", "-W", wait, addr], check=False,
                  timeout=count * (wait + 0.5) + 10)


def curl_sha256(ns: Netns, tmp: Path, addr: str, n: int) -> str:
    assert_safe_addr(addr)
    out = tmp / "body"
    p = ns.cmd(["curl", "-sS", "-g", "--max-time", "120", "-o", str(out),
                f"http://[{addr}]/bytes/{n}"], check=False, timeout=130)
    assert p.returncode == 0, f"curl: {p.stderr}"
    return hashlib.sha256(out.read_bytes()).hexdigest()


def test_linux_reaches_a_node_five_lossy_hops_away(netns, tmp_path, sims):
    tun_link(netns)
    sim = SimBorder(netns, tmp_path, scenario("mtun0", "tun", "fd01::2/64", 6, 1e-4))
    sims.append(sim)
    assert "border router node 0 on tun 'mtun0' as fd01::2/64" in sim.wait_ready()
    try:
        talk_to_node5(netns, tmp_path, sim)
    except AssertionError as e:
        raise AssertionError(f"{e}\n{sim.explain()}") from None


def talk_to_node5(netns: Netns, tmp_path: Path, sim: SimBorder) -> None:
    """ping, curl and nc from Linux to node 5, then the run's counters."""
    # ping: ten radio transmissions per echo; a ~100-byte frame is 3.2 ms
    # on the air, so an RTT under 27 ms would mean the simulation ran
    # ahead of the wall clock
    p = ping(netns, NODE5, 5)
    got = int(re.search(r"(\d+) received", p.stdout).group(1))
    assert got >= 3, p.stdout + p.stderr
    rtt_min = float(re.search(r"= ([\d.]+)/", p.stdout).group(1))
    assert rtt_min >= 27.0, p.stdout

    # HTTP from the node's own stack (apps/http_server.c), byte-exact
    assert curl_sha256(netns, tmp_path, NODE5, BODY) == body_sha256(BODY)

    # nc: TCP echo, then UDP echo (a datagram may be lost: three tries)
    line = b"moteip over five simulated hops\n"
    p = subprocess.run(["ip", "netns", "exec", netns.name, "nc", "-N", "-w", "20", NODE5, "7"],
                       input=line, capture_output=True, timeout=40)
    assert p.stdout == line, p.stderr
    for _ in range(3):
        p = subprocess.run(["ip", "netns", "exec", netns.name, "nc", "-u", "-w", "4", NODE5, "7"],
                           input=b"udp hello\n", capture_output=True, timeout=20)
        if p.stdout == b"udp hello\n":
            break
    assert p.stdout == b"udp hello\n", p.stderr

    r = sim.stop()
    assert r["realtime"]["stopped_by_signal"] is True
    http, echo, udp = r["services"]
    assert http["status_2xx"] >= 1 and http["body_bytes"] >= BODY
    assert echo["bytes"] >= len(line) and udp["datagrams"] >= 1
    assert r["border"]["frames_from_host"] > 0 and r["border"]["frames_to_host"] > 0
    assert r["totals"]["frames_corrupted"] > 0          # the chain was lossy indeed


def wait_reachable(ns: Netns, addr: str, limit_s: float) -> None:
    """One ping a second until addr answers (the DODAG forming), at most
    limit_s seconds: the nodes join and send their DAOs at simulated time,
    which runs at the wall clock's pace here."""
    assert_safe_addr(addr)
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if ping(ns, addr, 1, wait=1).returncode == 0:
            return
    raise AssertionError(f"{addr} did not answer within {limit_s} s")


@pytest.mark.parametrize("mode", ["non-storing", "storing"])
def test_the_border_router_is_the_rpl_root(netns, tmp_path, sims, mode):
    """routing.type "rpl" and no reach list: the border router is the DODAG
    root, announces link.prefix in its DIOs, and Linux reaches node 5 (five
    lossy hops) once it has joined, by the routes its DAO made (a source
    route from the root in non-storing mode, a table per hop in storing
    mode), not by routes the simulator computed."""
    tun_link(netns)
    sc = scenario("mtun0", "tun", "fd01::2/64", 6, 1e-4)
    sc["routing"] = {"type": "rpl", "mode": mode}
    sim = SimBorder(netns, tmp_path, sc)
    sims.append(sim)
    assert "border router node 0 on tun 'mtun0' as fd01::2/64" in sim.wait_ready()
    try:
        wait_reachable(netns, NODE5, 60)
        p = ping(netns, NODE5, 5)
        got = int(re.search(r"(\d+) received", p.stdout).group(1))
        assert got >= 3, p.stdout + p.stderr
        assert curl_sha256(netns, tmp_path, NODE5, BODY) == body_sha256(BODY)
        r = sim.stop()
    except AssertionError as e:
        raise AssertionError(f"{e}\n{sim.explain()}") from None
    routing = r["routing"]
    assert routing["type"] == "rpl" and routing["joined_at_end"] == 6, routing
    rpl = [n["rpl"] for n in r["node_stats"]]
    assert all(n["joined"] for n in rpl), rpl
    # a chain: each node's parent is the one before it, node 5 at rank 6
    assert [n.get("parent") for n in rpl[1:]] == [0, 1, 2, 3, 4], rpl
    if mode == "non-storing":
        assert routing["root_table"] == 5, routing      # the root heard every DAO
    # the nodes hold no routes but their own: no host routes, no defaults
    assert routing["routes_peak"] <= 3, routing
    assert r["services"][0]["status_2xx"] >= 1
    assert r["border"]["frames_from_host"] > 0 and r["border"]["frames_to_host"] > 0


def test_a_reach_list_with_rpl_is_refused(tmp_path):
    """With RPL the host reaches the nodes that joined: a reach list would
    mean routes the simulator computed, so the scenario names the key."""
    sc = scenario("mtun0", "tun", "fd01::2/64", 3, 0.0)
    sc["routing"] = {"type": "rpl"}
    sc["border"]["reach"] = [2]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(sc))
    p = subprocess.run([str(SIM), str(path), "--check"], capture_output=True, text=True,
                       timeout=20)
    assert p.returncode == 2 and "border.reach: expected no reach list with routing type" in p.stderr, \
        p.stderr
    sc["border"].pop("reach")
    sc["routing"]["root"] = 1
    path.write_text(json.dumps(sc))
    p = subprocess.run([str(SIM), str(path), "--check"], capture_output=True, text=True,
                       timeout=20)
    assert p.returncode == 2 and "routing.root: expected the border router's node" in p.stderr, \
        p.stderr


def test_a_tap_border_router_answers_nd_and_forwards(netns, tmp_path, sims):
    """TAP: the border router is an Ethernet station; Linux finds it by ND
    and routes the mesh through it."""
    netns.ip(["tuntap", "add", "dev", "mtap0", "mode", "tap"])
    netns.ip(["link", "set", "mtap0", "up"])
    netns.ip(["addr", "add", "fd02::1/64", "dev", "mtap0", "nodad"])
    netns.ip(["route", "add", "fd00::/64", "via", "fd02::2", "dev", "mtap0"])
    sim = SimBorder(netns, tmp_path, scenario("mtap0", "tap", "fd02::2/64", 3, 0.0))
    sims.append(sim)
    sim.wait_ready()
    p = ping(netns, "fd00::ff:fe00:2", 3)
    assert "3 received" in p.stdout, p.stdout + p.stderr
    assert curl_sha256(netns, tmp_path, "fd00::ff:fe00:2", 4096) == body_sha256(4096)
    r = sim.stop()
    assert r["node_stats"][0]["stack"].get("nd_na_tx", 0) >= 1


def test_no_permission_on_the_device_exits_2_naming_it(netns, tmp_path, sims):
    """A TUN made for another user, and no CAP_NET_ADMIN: exit 2."""
    tun_link(netns, extra=["user", "4321"])
    sim = SimBorder(netns, tmp_path, scenario("mtun0", "tun", "fd01::2/64", 3, 0.0),
                    extra=["setpriv", "--bounding-set", "-net_admin", "--inh-caps", "-net_admin"])
    sims.append(sim)
    _, err = sim.proc.communicate(timeout=20)
    err = err.decode()
    assert sim.proc.returncode == 2, err
    assert "border.device: cannot attach to 'mtun0': Operation not permitted" in err
    assert "needs CAP_NET_ADMIN" in err


def test_a_device_in_use_exits_2(netns, tmp_path, sims):
    tun_link(netns)
    first = SimBorder(netns, tmp_path, scenario("mtun0", "tun", "fd01::2/64", 3, 0.0))
    sims.append(first)
    first.wait_ready()
    (tmp_path / "second").mkdir()
    second = SimBorder(netns, tmp_path / "second", scenario("mtun0", "tun", "fd01::2/64", 3, 0.0))
    sims.append(second)
    _, err = second.proc.communicate(timeout=20)
    assert second.proc.returncode == 2
    assert "border.device: cannot attach to 'mtun0': busy" in err.decode()
    first.stop()
