"""The micro profile (include/moteip/micro.h) against Linux: moteip-micro
(IPv4) and moteip-micro6 (IPv6) on a TUN device in a fresh network
namespace, the raw-IP link a SLIP line gives. Linux is 192.0.2.1 / fd00::1,
the node 192.0.2.2 / fd00::2.

ping, TCP echo, HTTP GET /bytes/N up to 1 MB with its SHA-256 checked, a
refused port, a 1 MB upload to discard, UDP echo, and the counters after.
IPv4 reassembly (MIP_MICRO_CONF_REASS): moteip-micro-reass answers a
fragmented `ping -s 3000` and a fragmented UDP datagram; moteip-micro,
built without it, drops and counts the fragments.

The binaries come from $MOTEIP_MICRO_BUILD_DIR (default build-micro/,
`cmake -DMOTEIP_PROFILE=micro`). The node keeps one segment in flight, so
Linux's delayed ACKs would hold each one for up to 40 ms (the paper's
section 8.2): the route to the node has `quickack 1`, as a Linux peer of a
uIP-style node should.
"""
from __future__ import annotations

import hashlib
import json
import os
import selectors
import socket
import subprocess
import time
from pathlib import Path

import pytest

from moteip_netns import Netns, REPO, assert_safe_addr
from tcp_util import body_sha256, file_sha256

BUILD = Path(os.environ.get("MOTEIP_MICRO_BUILD_DIR", REPO / "build-micro"))
TUN = "mtun0"
FAMILIES = {
    4: ("moteip-micro", socket.AF_INET, "192.0.2.1", "192.0.2.2", 24),
    6: ("moteip-micro6", socket.AF_INET6, "fd00::1", "fd00::2", 64),
}
ECHO, DISCARD, HTTP, UDP_ECHO, CLOSED_PORT = 7, 9, 80, 7, 81


class MicroNode:
    def __init__(self, ns: Netns, tmp: Path, ver: int, binary: str | None = None) -> None:
        default, self.family, self.linux, self.addr, plen = FAMILIES[ver]
        exe = BUILD / (binary or default)
        if not exe.is_file():
            pytest.fail(f"{exe} not built: cmake -S . -B build-micro -DMOTEIP_PROFILE=micro "
                        f"&& cmake --build build-micro")
        self.ns, self.ver = ns, ver
        self.stats_path = tmp / f"micro-stats-{ns.name}.json"
        ns.ip(["tuntap", "add", "dev", TUN, "mode", "tun"])
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns.name, str(exe), "--tun", TUN, "--addr", self.addr,
             "--echo", str(ECHO), "--discard", str(DISCARD), "--http", str(HTTP),
             "--udp-echo", str(UDP_ECHO), "--stats-json", str(self.stats_path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._wait_ready()
        ns.ip(["addr", "add", f"{self.linux}/{plen}", "dev", TUN] + (["nodad"] if ver == 6 else []))
        ns.ip(["link", "set", TUN, "up"])
        net = f"192.0.2.0/24" if ver == 4 else "fd00::/64"
        ns.ip(["-6" if ver == 6 else "-4", "route", "replace", net, "dev", TUN, "quickack", "1"])
        deadline = time.monotonic() + 10
        while self.ping(check=False).returncode != 0:
            assert time.monotonic() < deadline, "the micro node does not answer ping"
            self.assert_running()

    def _wait_ready(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        ok = sel.select(timeout=10)
        sel.close()
        line = self.proc.stdout.readline().decode() if ok else ""
        if "ready" not in line:
            self.proc.kill()
            err = self.proc.stderr.read().decode(errors="replace")
            raise AssertionError(f"micro node not ready: {line!r} {err}")

    def assert_running(self) -> None:
        rc = self.proc.poll()
        if rc is not None:
            raise AssertionError(f"micro node exited {rc}: "
                                 f"{self.proc.stderr.read().decode(errors='replace')}")

    def ping(self, size: int = 56, count: int = 1, check: bool = True):
        assert_safe_addr(self.addr)
        p = self.ns.cmd(["ping", f"-{self.ver}", "-n", "-c", count, "-s", size, "-i", "0.2",
                         "-W", "2", self.addr], check=False, timeout=count * 3 + 10)
        if check:
            assert p.returncode == 0 and f"{count} received" in p.stdout, p.stdout + p.stderr
        return p

    def tcp(self, port: int, timeout: float = 10.0) -> socket.socket:
        s = self.ns.socket(self.family, socket.SOCK_STREAM, timeout=timeout)
        s.connect((self.addr, port))
        return s

    def stop(self) -> dict:
        self.proc.terminate()
        out, err = self.proc.communicate(timeout=10)
        assert self.proc.returncode == 0, err.decode(errors="replace")
        return json.loads(self.stats_path.read_text())

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=10)


@pytest.fixture(params=[4, 6], ids=["v4", "v6"])
def node(request, tmp_path):
    """The node in a namespace of its own (moteip-host is not needed), both
    removed after the test whatever happened."""
    if os.geteuid() != 0:
        pytest.skip("interop tests need root (network namespaces, TUN devices)")
    ns = Netns()
    n = None
    try:
        n = MicroNode(ns, tmp_path, request.param)
        yield n
    finally:
        if n is not None:
            n.kill()
        ns.delete()


@pytest.fixture(params=["moteip-micro", "moteip-micro-reass"], ids=["reass-off", "reass-on"])
def node4(request, tmp_path):
    """An IPv4 node without reassembly (config.h's default) or with it
    (moteip-micro-reass: MIP_MICRO_CONF_REASS=1, a 4,096-byte buffer)."""
    if os.geteuid() != 0:
        pytest.skip("interop tests need root (network namespaces, TUN devices)")
    ns = Netns()
    n = None
    try:
        n = MicroNode(ns, tmp_path, 4, request.param)
        n.reass = request.param.endswith("reass")
        yield n
    finally:
        if n is not None:
            n.kill()
        ns.delete()


def recv_exactly(s: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(65536, n - len(buf)))
        assert chunk, f"connection closed after {len(buf)} of {n} bytes"
        buf += chunk
    return bytes(buf)


def test_ping(node):
    node.ping(count=3)
    node.ping(size=1000)
    counters = node.stop()["counters"]
    assert counters["tx"] >= 4


def test_tcp_echo(node):
    with node.tcp(ECHO) as s:
        for size in (1, 100, 1400, 5000, 20000):
            data = os.urandom(size)
            s.sendall(data)
            assert recv_exactly(s, size) == data, f"echo of {size} bytes differs"
    counters = node.stop()["counters"]
    assert counters["drop_cksum"] == 0


@pytest.mark.parametrize("size", [0, 1, 1460, 100_000, 1 << 20])
def test_http_bytes(node, tmp_path, size):
    out = tmp_path / "body"
    host = f"[{node.addr}]" if node.ver == 6 else node.addr
    t0 = time.monotonic()
    p = node.ns.cmd(["curl", "-sS", "-g", "--max-time", "60", "-o", out, "-w", "%{http_code}",
                     f"http://{host}:{HTTP}/bytes/{size}"], check=False, timeout=90)
    assert p.returncode == 0 and p.stdout == "200", p.stdout + p.stderr
    assert out.stat().st_size == size
    assert file_sha256(out) == body_sha256(size)
    print(f"GET /bytes/{size} over IPv{node.ver}: {time.monotonic() - t0:.2f} s")


def test_http_not_found(node):
    with node.tcp(HTTP) as s:
        s.sendall(b"GET /nothing HTTP/1.0\r\n\r\n")
        reply = b""
        while chunk := s.recv(4096):
            reply += chunk
    assert reply.startswith(b"HTTP/1.0 404"), reply


def test_refused_port(node):
    s = node.ns.socket(node.family, socket.SOCK_STREAM, timeout=5)
    with pytest.raises(ConnectionRefusedError):
        s.connect((node.addr, CLOSED_PORT))
    s.close()
    counters = node.stop()["counters"]
    assert counters["tcp_rst_tx"] >= 1


def test_upload_1mb_to_discard(node):
    data = os.urandom(1 << 20)
    with node.tcp(DISCARD, timeout=60) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        assert s.recv(1) == b""             # the node's FIN after ours
    stats = node.stop()
    assert stats["discarded"] == len(data)


def test_udp_echo(node):
    s = node.ns.socket(node.family, socket.SOCK_DGRAM, timeout=3)
    try:
        for size in (1, 1000):   # an empty reply cannot be asked for (slen 0 = none)
            data = os.urandom(size)
            s.sendto(data, (node.addr, UDP_ECHO))
            got, _ = s.recvfrom(4096)
            assert got == data
    finally:
        s.close()


def test_several_connections_at_once(node):
    socks = [node.tcp(ECHO) for _ in range(3)]
    try:
        for i, s in enumerate(socks):
            s.sendall(bytes([i]) * 1000)
        for i, s in enumerate(socks):
            assert recv_exactly(s, 1000) == bytes([i]) * 1000
    finally:
        for s in socks:
            s.close()


def test_fragmented_ping(node4):
    """Linux fragments a 3,028-byte echo request for the TUN's 1,500-byte
    MTU into 3 fragments. With reassembly the node answers it whole (its
    3,028-byte reply, which Linux takes unfragmented from the TUN); without,
    no reply, and every fragment is counted in drop_frag (RFC 1122 3.3.2:
    the micro profile's reassembly is a switch, off by default)."""
    p = node4.ping(size=3000, count=2, check=False)
    counters = node4.stop()["counters"]
    if node4.reass:
        assert p.returncode == 0 and "2 received" in p.stdout, p.stdout + p.stderr
        assert counters["reass_done"] == 2, counters
        assert counters["drop_reass_busy"] == 0 and counters["drop_reass_timeout"] == 0
    else:
        assert p.returncode != 0 and "0 received" in p.stdout, p.stdout + p.stderr
        assert counters["drop_frag"] >= 6, counters     # 2 datagrams x 3 fragments
        assert "reass_done" not in counters


def test_fragmented_udp_echo(node4):
    """A 3,000-byte UDP datagram (fragmented by Linux) echoed whole."""
    if not node4.reass:
        pytest.skip("without reassembly a fragmented datagram is dropped (test_fragmented_ping)")
    s = node4.ns.socket(node4.family, socket.SOCK_DGRAM, timeout=3)
    try:
        data = os.urandom(3000)
        s.sendto(data, (node4.addr, UDP_ECHO))
        got, _ = s.recvfrom(4096)
        assert got == data
    finally:
        s.close()
    assert node4.stop()["counters"]["reass_done"] == 1
