"""The apps as processes of the kernel (apps/os_apps.h, docs/OS.md) in
moteip-host --os, against the Linux kernel in a namespace: TCP and UDP echo,
TCP discard with its CRC-32, HTTP with curl, and the sensor's batches
received by a Linux UDP socket (CoAP as a process: test_coap.py). Each test runs in its own namespace (192.0.2.0/24, fd00::/64)."""
from __future__ import annotations

import socket
import struct
import time

import pytest

from moteip_netns import LINUX_V6, STACK_V4, STACK_V6, MoteipHost
from tcp_util import (body_pattern, body_sha256, connect, crc32, curl_args, file_sha256, recv_all,
                      send_in_thread, url)

OS_ARGS = ["--os", "--echo", "7", "--discard", "9"]


@pytest.fixture
def os_host(make_host) -> MoteipHost:
    return make_host(OS_ARGS)


@pytest.mark.parametrize("family,addr", [(socket.AF_INET, STACK_V4), (socket.AF_INET6, STACK_V6)],
                         ids=["v4", "v6"])
def test_echo_process_returns_a_stream_and_a_datagram(os_host, family, addr):
    data = body_pattern(40_000, 777)
    s = connect(os_host, family, addr, 7, timeout=20)
    t = send_in_thread(s, data)
    got = recv_all(s)
    t.join(20)
    s.close()
    assert t.error is None, t.error
    assert got == data
    u = os_host.socket(family, socket.SOCK_DGRAM)
    u.settimeout(3)
    u.sendto(b"through the kernel", (addr, 7))
    back, frm = u.recvfrom(100)
    u.close()
    assert back == b"through the kernel" and frm[1] == 7
    stats = os_host.stop()
    echo = stats["os"]["echo"]
    assert echo["connections"] == 1 and echo["bytes"] == len(data)
    assert echo["datagrams"] == 1 and echo["bind_failed"] == 0
    assert "udp_echo" not in stats["apps"] or stats["apps"]["udp_echo"]["datagrams"] == 0


def test_discard_process_takes_every_byte(os_host):
    data = body_pattern(100_000, 5)
    s = connect(os_host, socket.AF_INET6, STACK_V6, 9, timeout=20)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    assert recv_all(s) == b""           # the process closes after our FIN
    s.close()
    stats = os_host.stop()
    d = stats["os"]["discard"]
    assert d["connections"] == 1 and d["bytes"] == len(data)
    assert d["crc32"] == crc32(data)


def test_sensor_process_sends_consecutive_batches(make_host):
    # the sink is bound before the host starts, so no batch meets a closed port
    h = make_host(OS_ARGS + ["--sensor", f"[{LINUX_V6}]:5000", "--sensor-every", "50",
                             "--sensor-batch", "4"], wait=False)
    sink = h.ns.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sink.bind((LINUX_V6, 5000))
    sink.settimeout(0.5)
    h.wait_answering()
    got: list[bytes] = []
    deadline = time.monotonic() + 8
    while len(got) < 10 and time.monotonic() < deadline:
        try:
            msg, frm = sink.recvfrom(100)
        except TimeoutError:
            continue
        assert frm[0] == STACK_V6
        got.append(msg)
    sink.close()
    assert len(got) >= 10, got
    seqs = []
    for msg in got:
        assert len(msg) == 2 + 4 * 2
        seq, *readings = struct.unpack("!H4H", msg)
        assert readings == [4 * seq + k for k in range(4)]      # reading k is k
        seqs.append(seq)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))   # none lost on one link
    stats = h.stop()
    sensor = stats["os"]["sensor"]
    assert sensor["send_failed"] == 0
    assert sensor["sent"] >= seqs[-1] + 1
    assert sensor["samples"] >= 4 * sensor["sent"]


def test_http_process_serves_curl(make_host, tmp_path):
    host = make_host(OS_ARGS + ["--http", "80"])
    n = 300_000
    out = tmp_path / "body"
    p = host.ns.cmd(curl_args(STACK_V6, f"/bytes/{n}", str(out), 30), check=False, timeout=40)
    assert p.stdout == f"200 {n}", p.stdout + p.stderr
    assert file_sha256(out) == body_sha256(n)
    # two requests on one connection (keep-alive), then a 404 and a HEAD
    p = host.ns.cmd(["curl", "-sS", "-g", "--max-time", "20", "-o", "/dev/null", "-o",
                     "/dev/null", "-w", "%{http_code} %{num_connects}\n",
                     url(STACK_V4, "/bytes/1000"), url(STACK_V4, "/bytes/2000")],
                    check=False, timeout=30)
    assert p.stdout.split("\n")[:2] == ["200 1", "200 0"], p.stdout + p.stderr
    p = host.ns.cmd(["curl", "-sS", "-g", "--max-time", "20", "-o", "/dev/null", "-w",
                     "%{http_code}", url(STACK_V4, "/nope")], check=False, timeout=30)
    assert p.stdout == "404", p.stdout
    p = host.ns.cmd(["curl", "-sS", "-g", "-I", "--max-time", "20", url(STACK_V4, "/bytes/77")],
                    check=False, timeout=30)
    assert "HTTP/1.1 200" in p.stdout and "Content-Length: 77" in p.stdout, p.stdout
    # a malformed request: answered 400, FIN, and the connection ends cleanly
    s = connect(host, socket.AF_INET, STACK_V4, 80, timeout=10)
    s.sendall(b"GARBAGE\r\n\r\n")
    answer = recv_all(s)
    s.close()
    assert answer.startswith(b"HTTP/1.1 400"), answer
    stats = host.stop()
    http = stats["os"]["http"]
    assert http["requests"] == 5 and http["status_2xx"] == 4, http
    assert http["status_4xx"] == 2 and http["body_bytes"] == n + 3000, http
