"""moteip's TCP against the Linux kernel: the TCP apps of moteip-host (HTTP,
discard, echo, chargen) with curl, nc and Python sockets as peers, and
moteip as a TCP client of a Python server. Each test runs in its own
network namespace (192.0.2.0/24, fd00::/64) and finishes well within a
minute (but the send-timeout test: about 65 s); every command has a timeout."""
from __future__ import annotations

import socket
import subprocess
import threading
import time

import pytest

from moteip_netns import LINUX_V4, LINUX_V6, STACK_V4, STACK_V6, TAP, MoteipHost
from tcp_util import (CHARGEN, DISCARD, ECHO, FAMILIES, HTTP, SERVICE_ARGS,
                      body_pattern, body_sha256, chargen_pattern,
                      connect, crc32, curl_args, dump, file_sha256, recv_all, send_in_thread)

MB = 1 << 20


@pytest.fixture
def tcp_host(make_host) -> MoteipHost:
    """moteip-host with echo 7, discard 9, chargen 19 and HTTP 80."""
    return make_host(SERVICE_ARGS)


# --- HTTP --------------------------------------------------------------------

@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_curl_download_10mb(tcp_host, tmp_path, fam):
    _, addr, _ = FAMILIES[fam]
    n = 10 * MB
    out = tmp_path / "body"
    p = tcp_host.ns.cmd(curl_args(addr, f"/bytes/{n}", str(out), 40), check=False, timeout=50)
    assert p.returncode == 0 and p.stdout == f"200 {n}", \
        f"curl rc {p.returncode}: {p.stdout} {p.stderr}\n{dump(tcp_host.stop())}"
    assert out.stat().st_size == n
    assert file_sha256(out) == body_sha256(n)
    stats = tcp_host.stop()
    http = stats["apps"]["http"]
    assert http["requests"] == 1 and http["status_2xx"] == 1 and http["body_bytes"] == n
    assert stats["tcp"]["conns_accepted"] == 1


def test_eight_concurrent_downloads(tcp_host, tmp_path):
    n = 2 * MB
    procs = []
    for k in range(8):
        addr = STACK_V4 if k % 2 == 0 else STACK_V6
        args = curl_args(addr, f"/bytes/{n}", str(tmp_path / f"b{k}"), 50)
        procs.append(subprocess.Popen(["ip", "netns", "exec", tcp_host.ns.name, *args],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    results = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=55)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        results.append((p.returncode, out.decode(), err.decode()))
    want = body_sha256(n)
    for k, (rc, out, err) in enumerate(results):
        assert rc == 0 and out == f"200 {n}", f"download {k}: rc {rc} {out} {err}"
        assert file_sha256(tmp_path / f"b{k}") == want, f"download {k}: wrong body"
    stats = tcp_host.stop()
    assert stats["apps"]["http"]["accepted"] == 8
    assert stats["apps"]["http"]["refused"] == 0


def _http_exchange(s: socket.socket, request: bytes, limit_time: float = 10) -> bytes:
    s.sendall(request)
    s.settimeout(limit_time)
    return recv_all(s)


def _parse_responses(data: bytes, heads: tuple[bool, ...] = ()) -> list[tuple[int, dict, bytes]]:
    """Splits a byte stream into (status, headers, body) by Content-Length;
    heads[k] True: the k-th response answers HEAD (no body)."""
    out = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        assert sep, f"incomplete response head: {data[:200]!r}"
        lines = head.decode().split("\r\n")
        assert lines[0].startswith("HTTP/1.1 "), lines[0]
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
        n = int(headers["content-length"])
        if len(out) < len(heads) and heads[len(out)]:
            n = 0
        assert len(rest) >= n, f"short body: {len(rest)} of {n}"
        out.append((status, headers, rest[:n]))
        data = rest[n:]
    return out


def test_http_keepalive_pipelining_and_close(tcp_host):
    s = connect(tcp_host, socket.AF_INET6, STACK_V6, HTTP)
    req = (b"GET /bytes/1000 HTTP/1.1\r\nHost: x\r\n\r\n"
           b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n"
           b"HEAD /bytes/5000 HTTP/1.1\r\nHost: x\r\n\r\n"
           b"GET /bytes/300?q=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nBODY"
           b"GET /bytes/7 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
           b"GET /bytes/70000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
           b"GET /bytes/9 HTTP/1.1\r\nHost: x\r\n\r\n")       # after close: ignored
    data = _http_exchange(s, req)
    s.close()
    r = _parse_responses(data, (False, False, True))
    assert [x[0] for x in r] == [200, 404, 200, 200, 200, 200], r
    assert r[0][2] == body_pattern(1000)
    assert r[2][1]["content-length"] == "5000" and r[2][2] == b""
    assert r[3][2] == body_pattern(300)
    assert r[4][2] == body_pattern(7) and r[4][1].get("connection") == "keep-alive"
    assert r[5][2] == body_pattern(70000) and r[5][1].get("connection") == "close"
    stats = tcp_host.stop()
    assert stats["apps"]["http"]["requests"] == 6, dump(stats)
    assert stats["apps"]["http"]["accepted"] == 1


@pytest.mark.parametrize("request_bytes,status", [
    (b"GET /bytes/10 HTTP/1.1\r\n\r\n", 400),                          # no Host
    (b"GET  /bytes/10 HTTP/1.1\r\nHost: x\r\n\r\n", 400),              # two spaces
    (b"GET /bytes/10 HTTP/1.1\r\nHost : x\r\n\r\n", 400),              # space before colon
    (b"GET /bytes/10 HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400),   # obs-fold
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),   # TLS hello
    (b"GET /bytes/10 HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    (b"POST /bytes/10 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx", 501),
    (b"GET /bytes/10 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
    (b"GET /bytes/10 HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 2000 + b"\r\n\r\n", 431),
    (b"GET /" + b"a" * 2000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
], ids=["no-host", "double-space", "space-colon", "obs-fold", "tls", "http2", "post",
        "chunked", "header-too-long", "uri-too-long"])
def test_http_bad_requests_answered_and_closed(tcp_host, request_bytes, status):
    s = connect(tcp_host, socket.AF_INET6, STACK_V6, HTTP)
    data = _http_exchange(s, request_bytes)
    s.close()
    r = _parse_responses(data)
    assert len(r) == 1 and r[0][0] == status, data[:300]
    assert r[0][1].get("connection") == "close"


def _get3(s: socket.socket) -> None:
    s.sendall(b"GET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n")
    got = b""
    while not got.endswith(b"\r\n\r\n" + body_pattern(3)):
        chunk = s.recv(4096)
        assert chunk, got
        got += chunk


def test_ninth_connection_resets_the_idlest(tcp_host):
    """The HTTP app has 8 connection slots. With 8 idle connections (each
    answered once, now waiting), a 9th resets the one idle longest and is
    served (issue 24: 8 idle connections used to lock every client out)."""
    socks = [connect(tcp_host, socket.AF_INET, STACK_V4, HTTP) for _ in range(8)]
    try:
        for s in socks:   # each works; socks[0] is then idle longest
            _get3(s)
            time.sleep(0.05)
        extra = connect(tcp_host, socket.AF_INET, STACK_V4, HTTP)
        _get3(extra)
        extra.close()
        socks[0].settimeout(5)
        with pytest.raises((ConnectionResetError, BrokenPipeError)):
            socks[0].sendall(b"GET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n")
            if socks[0].recv(4096) == b"":
                raise AssertionError("orderly close, not RST")
        for s in socks[1:]:
            _get3(s)
    finally:
        for s in socks:
            s.close()
    stats = tcp_host.stop()
    assert stats["apps"]["http"]["evicted"] == 1, stats["apps"]["http"]
    assert stats["apps"]["http"]["refused"] == 0, stats["apps"]["http"]


def _open_stalled_readers(tcp_host, socks: list, n: int) -> None:
    """n clients (appended to socks) that ask for a 100 MB body and never
    read, with 4 KB receive buffers: their windows close at once."""
    for _ in range(n):
        s = tcp_host.socket(socket.AF_INET, socket.SOCK_STREAM, timeout=10)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect((STACK_V4, HTTP))
        s.sendall(b"GET /bytes/100000000 HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(s)


def _assert_refused(tcp_host) -> None:
    """A new client is refused with RST. The handshake completes in moteip's
    SYN cache; only then does the app refuse: it shows in connect() or on
    the first read."""
    extra = tcp_host.socket(socket.AF_INET, socket.SOCK_STREAM, timeout=5)
    try:
        with pytest.raises((ConnectionResetError, BrokenPipeError)):
            extra.connect((STACK_V4, HTTP))
            extra.sendall(b"GET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n")
            if extra.recv(4096) == b"":
                raise AssertionError("orderly close, not RST")
    finally:
        extra.close()


def test_ninth_connection_is_refused_while_all_send(tcp_host):
    """A connection sending a response is never reset for a new one: with 8
    clients that asked for large bodies and do not read, a 9th handshake
    gets RST."""
    socks = []
    try:
        _open_stalled_readers(tcp_host, socks, 8)
        time.sleep(1)     # the windows close; every connection is mid-response
        _assert_refused(tcp_host)
    finally:
        for s in socks:
            s.close()
    stats = tcp_host.stop()
    assert stats["apps"]["http"]["refused"] >= 1
    assert stats["apps"]["http"]["evicted"] == 0, stats["apps"]["http"]
    assert stats["tcp"]["accept_refused"] >= 1


def test_stalled_responses_give_way_after_the_send_timeout(tcp_host):
    """The other side of the test above: a response whose client took no
    byte for MIP_HTTP_SEND_TIMEOUT_MS (60 s) is no longer work in progress.
    8 Linux clients ask for large bodies and never read; Linux answers every
    zero-window probe, so TCP alone would keep them for good. A newcomer is
    refused while they are young, and served once they have stalled for
    60 s (issue 24). Takes about 65 s."""
    socks = []
    try:
        _open_stalled_readers(tcp_host, socks, 8)
        stalled = time.monotonic()
        time.sleep(1)     # the windows close
        _assert_refused(tcp_host)
        # the last byte taken came at most a window's worth after the request
        time.sleep(max(0.0, stalled + 63 - time.monotonic()))
        late = connect(tcp_host, socket.AF_INET, STACK_V4, HTTP)
        _get3(late)
        late.close()
    finally:
        for s in socks:
            s.close()
    stats = tcp_host.stop()
    http = stats["apps"]["http"]
    assert http["refused"] == 1, http
    assert http["timeouts"] == 8, http     # all stalled alike: each reset for the newcomer
    assert http["evicted"] == 0, http


# --- discard, echo, chargen ------------------------------------------------------

def test_nc_upload_10mb_to_discard(tcp_host, tmp_path):
    n = 10 * MB
    src = tmp_path / "upload"
    data = body_pattern(n)
    src.write_bytes(data)
    with open(src, "rb") as f:
        p = subprocess.run(["ip", "netns", "exec", tcp_host.ns.name, "nc", "-N", "-w", "30",
                            STACK_V4, str(DISCARD)], stdin=f, capture_output=True, timeout=45)
    assert p.returncode == 0, p.stderr.decode()
    stats = tcp_host.stop()
    d = stats["apps"]["tcp_discard"]
    assert d["last_bytes"] == n and d["bytes"] == n, dump(stats)
    assert d["last_crc32"] == crc32(data)


@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_echo_round_trip_1mb(tcp_host, fam):
    family, addr, _ = FAMILIES[fam]
    n = MB
    data = body_pattern(n, 12345)
    s = connect(tcp_host, family, addr, ECHO, timeout=30)
    t = send_in_thread(s, data)
    got = recv_all(s)
    t.join(30)
    s.close()
    assert t.error is None, t.error
    assert len(got) == n and got == data
    stats = tcp_host.stop()
    assert stats["apps"]["tcp_echo"]["bytes"] == n


def test_chargen_stream(tcp_host):
    n = 200_000
    s = connect(tcp_host, socket.AF_INET6, STACK_V6, CHARGEN, timeout=10)
    got = recv_all(s, n)
    s.close()
    assert got == chargen_pattern(n)


# --- refused ---------------------------------------------------------------------

@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_connect_to_closed_port_is_refused(tcp_host, fam):
    family, addr, _ = FAMILIES[fam]
    s = tcp_host.socket(family, socket.SOCK_STREAM, timeout=5)
    t0 = time.monotonic()
    with pytest.raises(ConnectionRefusedError):
        s.connect((addr, 4242))
    assert time.monotonic() - t0 < 2, "refused only after retries: no RST?"
    s.close()
    stats = tcp_host.stop()
    assert stats["tcp"]["rst_tx"] >= 1 and stats["tcp"]["drop_no_conn"] >= 1


# --- moteip as a client ------------------------------------------------------------

def _serve_once(ns, family: int, addr: str, port: int, send_n: int, result: dict):
    """A one-connection server in the namespace: receives until EOF while
    sending send_n pattern bytes, then closes."""
    ls = ns.socket(family, socket.SOCK_STREAM, timeout=30)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)

    def run():
        try:
            c, _ = ls.accept()
            c.settimeout(30)
            t = send_in_thread(c, body_pattern(send_n))
            result["data"] = recv_all(c)
            t.join(30)
            result["send_error"] = t.error
            c.close()
        except BaseException as e:   # noqa: BLE001
            result["error"] = e
        finally:
            ls.close()
    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th


@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_stack_as_client(make_host, netns, fam):
    family, _, linux = FAMILIES[fam]
    n_up, n_down = 1 * MB + 17, 2 * MB + 5
    result: dict = {}
    target = f"[{linux}]:5001" if ":" in linux else f"{linux}:5001"
    # The server listens before moteip starts: make the TAP and Linux's
    # addresses here, then start the host on it.
    netns.ip(["tuntap", "add", "dev", TAP, "mode", "tap"])
    netns.ip(["addr", "add", f"{LINUX_V4}/24", "dev", TAP])
    netns.ip(["addr", "add", f"{LINUX_V6}/64", "dev", TAP, "nodad"])
    netns.ip(["link", "set", TAP, "up"])
    th = _serve_once(netns, family, linux, 5001, n_down, result)
    h = make_host(["--tcp-client", target, "--client-send", str(n_up),
                   "--client-expect", str(n_down), "--client-timeout", "15"],
                  wait=False, create_tap=False)
    out, err = h.proc.communicate(timeout=25)
    th.join(10)
    out, err = out.decode(), err.decode()
    assert "error" not in result, result.get("error")
    assert h.proc.returncode == 0, f"rc {h.proc.returncode}\n{out}\n{err}"
    assert f"tcp-client: ok, sent {n_up} bytes, received {n_down} bytes" in out, out
    assert result["data"] == body_pattern(n_up)
    assert result["send_error"] is None
