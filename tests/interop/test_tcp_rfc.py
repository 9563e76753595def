"""moteip's TCP against Linux on two RFC rules that only a real peer shows
(issue 12):

- window scaling (RFC 7323 2): moteip-host as a client with a 256 KB
  receive ring (--client-rx-ring) offers window scale 3, and Linux, with a
  40 ms round trip (--impair delay=20 in each direction), keeps more than
  64 KB in flight. Before the fix the scale was always 0, so Linux never
  had more than 65,535 bytes in flight. The 4 MB are checked byte by byte
  by the client (--client-expect).
- data after close (RFC 1122 4.2.2.13): the HTTP service answers a
  "Connection: close" request and closes; data Linux sends after that is
  answered with RST, which Linux reports (EPIPE / ECONNRESET) on its next
  send. Before the fix moteip acknowledged it and threw it away.
- acceptable sequence numbers (RFC 9293 3.10.7.4, RFC 5961 3.2): both sides
  send 256 KB at once and Linux reads only after its own send is done, so
  its small window closes and moteip probes it with one byte past the
  window. moteip's ACKs of Linux's data must then be numbered at the
  window's edge: numbered after the probe byte, Linux dropped them as
  outside its window, its send never finished, and neither side moved
  (before 2026-11-29).

All traffic stays inside the test's namespace (192.0.2.0/24, fd00::/64)."""
from __future__ import annotations

import errno
import socket
import struct
import threading
import time

import pytest

from moteip_netns import STACK_V4, STACK_V6
from tcp_util import FAMILIES, HTTP, body_pattern, connect, dump, recv_all
from test_tcp_failures import _finish, _linux_side, _start_client, _target

# struct tcp_info (linux/tcp.h) up to tcpi_snd_wnd, native alignment
TCP_INFO = struct.Struct("@8B4I5I4I8I2II4Q2I4IQ3Q2I2Q3II")
TI_SND_MSS, TI_UNACKED = 8 + 2, 8 + 4          # field indexes (8 bytes, then rto, ato, ...)


def _tcp_info(s: socket.socket) -> dict:
    raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO.size)
    raw = raw + bytes(TCP_INFO.size - len(raw))      # an older kernel: the tail stays 0
    v = TCP_INFO.unpack(raw)
    return {"snd_wscale": v[6] & 0x0F, "snd_mss": v[TI_SND_MSS],
            "unacked": v[TI_UNACKED], "snd_wnd": v[-1]}


def _listen(ns, family: int, addr: str, port: int, timeout: float,
            rcvbuf: int = 0) -> socket.socket:
    """A listening socket in the namespace (rcvbuf: its SO_RCVBUF, which
    accepted connections inherit; 0 leaves Linux's)."""
    ls = ns.socket(family, socket.SOCK_STREAM, timeout=timeout)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    ls.bind((addr, port))
    ls.listen(1)
    return ls


class _Sender:
    """Accepts one connection, then sends `n` pattern bytes while sampling
    TCP_INFO every millisecond: the most bytes in flight (unacked segments
    times the MSS) and the largest send window seen; then closes."""

    def __init__(self, ns, family: int, addr: str, port: int, n: int) -> None:
        self.n = n
        self.error: BaseException | None = None
        self.max_inflight = 0
        self.max_snd_wnd = 0
        self.snd_wscale = -1
        self._ls = _listen(ns, family, addr, port, 30)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            c, _ = self._ls.accept()
            c.settimeout(30)
            with c:
                done = threading.Event()

                def send() -> None:
                    try:
                        c.sendall(body_pattern(self.n))
                    except BaseException as e:   # noqa: BLE001 - reported by the test
                        self.error = e
                    done.set()
                th = threading.Thread(target=send, daemon=True)
                th.start()
                while not done.is_set():
                    ti = _tcp_info(c)
                    self.snd_wscale = ti["snd_wscale"]
                    self.max_inflight = max(self.max_inflight, ti["unacked"] * ti["snd_mss"])
                    self.max_snd_wnd = max(self.max_snd_wnd, ti["snd_wnd"])
                    time.sleep(0.001)
                th.join(30)
                c.shutdown(socket.SHUT_WR)
                recv_all(c)          # the client's FIN
        except BaseException as e:   # noqa: BLE001 - reported by the test
            self.error = e
        finally:
            self._ls.close()


@pytest.mark.timeout(90)
@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_window_above_64k_lets_linux_keep_more_in_flight(make_host, netns, fam):
    family, _, linux = FAMILIES[fam]
    n, ring = 4 << 20, 256 << 10
    _linux_side(netns)
    srv = _Sender(netns, family, linux, 5010, n)
    h, _ = _start_client(make_host, ["--tcp-client", _target(linux, 5010),
                                     "--client-expect", str(n), "--client-rx-ring", str(ring),
                                     "--impair", "delay=20", "--client-timeout", "60"])
    rc, out, err, stats, _ = _finish(h, timeout=75)
    srv.thread.join(10)
    assert srv.error is None, repr(srv.error)
    assert rc == 0, f"rc {rc}\n{out}\n{err}"
    assert f"tcp-client: ok, sent 0 bytes, received {n} bytes" in out, out
    assert srv.snd_wscale == 3, f"Linux sees window scale {srv.snd_wscale}, want 3 (256 KB)"
    print(f"max in flight {srv.max_inflight}, max snd_wnd {srv.max_snd_wnd}, wscale {srv.snd_wscale}")
    assert srv.max_inflight > 65535, \
        f"at most {srv.max_inflight} bytes in flight: the window never passed 64 KB\n{dump(stats)}"
    if srv.max_snd_wnd:                  # tcpi_snd_wnd (Linux 6.2 on)
        assert srv.max_snd_wnd > 65535, srv.max_snd_wnd


class _SendFirst:
    """Accepts one connection on a socket with a small receive buffer,
    sends `n` pattern bytes without reading, then reads until EOF and
    closes. `t_sent` is when the send finished, `data` what it read."""

    def __init__(self, ns, family: int, addr: str, port: int, n: int) -> None:
        self.n = n
        self.error: BaseException | None = None
        self.t_sent = 0.0
        self.data = b""
        self._ls = _listen(ns, family, addr, port, 40, rcvbuf=4096)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            c, _ = self._ls.accept()
            with c:
                c.sendall(body_pattern(self.n))
                self.t_sent = time.monotonic()
                buf = bytearray()
                while chunk := c.recv(65536):
                    buf += chunk
                self.data = bytes(buf)
        except BaseException as e:   # noqa: BLE001 - reported by the test
            self.error = e
        finally:
            self._ls.close()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_acks_while_probing_a_closed_window_are_acceptable(make_host, netns, fam):
    family, _, linux = FAMILIES[fam]
    n = 256 << 10
    _linux_side(netns)
    srv = _SendFirst(netns, family, linux, 5011, n)
    t0 = time.monotonic()
    # a 40 ms round trip and the client's 8 KB ring: Linux's send takes
    # seconds, long after its window closed and the probes began
    h, _ = _start_client(make_host, ["--tcp-client", _target(linux, 5011),
                                     "--client-send", str(n), "--client-expect", str(n),
                                     "--impair", "delay=20", "--client-timeout", "40"])
    rc, out, err, stats, _ = _finish(h, timeout=50)
    srv.thread.join(10)
    assert srv.error is None, repr(srv.error)
    assert rc == 0, f"rc {rc}\n{out}\n{err}\n{dump(stats)}"
    assert f"tcp-client: ok, sent {n} bytes, received {n} bytes" in out, out
    assert srv.data == body_pattern(n), "Linux did not read the stack's bytes intact"
    # the case arose: the stack probed Linux's closed window while Linux sent
    assert stats["tcp"]["zero_window_probes"] >= 1, dump(stats)
    print(f"Linux's send done after {srv.t_sent - t0:.2f} s; "
          f"{stats['tcp']['zero_window_probes']} probes")
    assert srv.t_sent - t0 < 20, f"Linux's send took {srv.t_sent - t0:.1f} s\n{dump(stats)}"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_data_after_close_draws_rst(make_host, fam):
    family, addr, _ = FAMILIES[fam]
    h = make_host(["--http", str(HTTP)])
    s = connect(h, family, addr, HTTP)
    s.sendall(b"GET /bytes/1000 HTTP/1.1\r\nHost: moteip\r\nConnection: close\r\n\r\n")
    reply = recv_all(s)                 # moteip answered and closed
    assert reply.startswith(b"HTTP/1.1 200"), reply[:80]
    assert reply.endswith(body_pattern(1000)), reply[-80:]
    s.send(b"data nobody will read")    # moteip is in FIN_WAIT_2: RST
    got = None
    deadline = time.monotonic() + 5
    while got is None and time.monotonic() < deadline:
        time.sleep(0.05)
        try:
            s.send(b"x")
        except OSError as e:
            got = e.errno
    s.close()
    stats = h.stop()
    assert got in (errno.EPIPE, errno.ECONNRESET), \
        f"Linux saw no RST (send error {got})\n{dump(stats)}"
    assert stats["tcp"]["rst_tx"] >= 1, dump(stats)
    assert stats["tcp"]["conns_closed"] >= 1, dump(stats)
