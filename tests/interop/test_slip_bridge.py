"""moteip-slip, the SLIP <-> TUN bridge: its command-line contract, and
Linux talking IP through it to a board played by Python at the other end
of the serial stream (a TCP socket, a Unix socket or a pty), with bad
frames, a vanishing peer and reconnection. The real stack behind the
bridge is tested in test_microbit.py.

Everything runs in a fresh namespace: the TUN, the loopback socket and the
traffic (192.0.2.0/24, fd00::/64).
"""
from __future__ import annotations

import ipaddress
import os
import signal
import socket
import struct
import termios
import threading
import time
import tty

import pytest

import netpkt
from moteip_netns import Netns
from slip_util import (BOARD_V4, BOARD_V6, LINUX_V6, SLIP_BIN, TUN, SlipBridge,
                       SlipDecoder, slip_encode)

# (argv after the program name, the option the one error line must name)
BAD_ARGS = [
    ([], "--serial"),
    (["--serial"], "--serial"),
    (["--serial", "bogus"], "--serial"),
    (["--serial", "tcp:127.0.0.1"], "--serial"),
    (["--serial", "tcp:127.0.0.1:http"], "--serial"),
    (["--serial", "tcp-listen:"], "--serial"),
    (["--serial", "unix:/" + "x" * 120], "--serial"),
    (["--serial", "fd:987"], "--serial"),
    (["--serial", "fd:-1"], "--serial"),
    (["--serial", "pty", "--serial", "pty"], "--serial"),
    (["-s", "pty", "--mtu", "67"], "--mtu"),
    (["-s", "pty", "--mtu", "65536"], "--mtu"),
    (["-s", "pty", "--mtu", "1e3"], "--mtu"),
    (["-s", "pty", "--mtu="], "--mtu"),
    (["-s", "pty", "--baud", "12345"], "--baud"),
    (["-s", "pty", "--retry-ms", "0"], "--retry-ms"),
    (["-s", "pty", "--tun", "x" * 16], "--tun"),
    (["-s", "pty", "--once=yes"], "--once"),
    (["-s", "pty", "--stats-json", "/nonexistent-dir/s.json"], "--stats-json"),
    (["-s", "pty", "--bogus"], "--bogus"),
    (["-s", "pty", "stray"], "stray"),
]


def _ns_or_skip():
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, TUN devices)")
    if not SLIP_BIN.is_file():
        pytest.fail(f"{SLIP_BIN} not built (cmake --build build)")


@pytest.fixture
def ns():
    _ns_or_skip()
    n = Netns()
    try:
        yield n
    finally:
        n.delete()


@pytest.fixture
def make_bridge(ns, tmp_path):
    """Factory: make_bridge(serial, extra=[...]) starts moteip-slip in the
    test's namespace; whatever happens, it is killed after the test."""
    made: list[SlipBridge] = []

    def make(serial: str, extra: list[str] | None = None) -> SlipBridge:
        b = SlipBridge(ns, tmp_path, serial, extra=extra)
        made.append(b)
        return b

    try:
        yield make
    finally:
        for b in made:
            b.kill()


@pytest.mark.parametrize("args,option", BAD_ARGS,
                         ids=[" ".join(a) or "no-args" for a, _ in BAD_ARGS])
def test_bad_arguments(ns, args, option):
    p = ns.cmd([str(SLIP_BIN), *args], check=False, timeout=10)
    assert p.returncode == 2, f"exit {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1, f"want one stderr line, got: {p.stderr!r}"
    assert lines[0].startswith("moteip-slip: ") and option in lines[0], lines[0]
    assert p.stdout == ""
    assert "slip0" not in ns.ip(["link", "show"]).stdout     # nothing was created


def test_help(ns):
    p = ns.cmd([str(SLIP_BIN), "--help"], timeout=10)
    for opt in ("--serial", "--tun", "--mtu", "--baud", "--retry-ms", "--once",
                "--stats-json", "--quiet"):
        assert opt in p.stdout
    assert "default 1280" in p.stdout and "68..65535" in p.stdout


# --- a board played by Python ----------------------------------------------------

class PyBoard:
    """Answers ICMP echo requests for 192.0.2.2 and fd00::2 that arrive as
    SLIP on `conn` (a socket or a file descriptor); records every frame."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.dec = SlipDecoder()
        self.frames: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _recv(self) -> bytes:
        if isinstance(self.conn, socket.socket):
            try:
                return self.conn.recv(4096)
            except (socket.timeout, BlockingIOError):
                return b"?"
            except OSError:
                return b""
        try:
            return os.read(self.conn, 4096)
        except BlockingIOError:
            return b"?"
        except OSError:
            return b""

    def send(self, data: bytes) -> None:
        if isinstance(self.conn, socket.socket):
            self.conn.sendall(data)
        else:
            os.write(self.conn, data)

    def _run(self) -> None:
        while not self.stop.is_set():
            data = self._recv()
            if data == b"?":
                time.sleep(0.01)
                continue
            if not data:
                return
            for f in self.dec.feed(data):
                self.frames.append(f)
                reply = echo_reply(f)
                if reply is not None:
                    self.send(slip_encode(reply))

    def close(self) -> None:
        self.stop.set()
        if isinstance(self.conn, socket.socket):
            self.conn.close()
        else:
            os.close(self.conn)
        self.thread.join(timeout=5)


def echo_reply(f: bytes) -> bytes | None:
    if f[0] >> 4 == 6 and len(f) >= 48 and f[6] == 58 and f[40] == 128 and \
            f[24:40] == netpkt.ip6(BOARD_V6):
        src = str(ipaddress.IPv6Address(f[8:24]))
        ident, seq = struct.unpack("!HH", f[44:48])
        return netpkt.ipv6(BOARD_V6, src, 58,
                           netpkt.icmp6_echo(BOARD_V6, src, ident, seq, f[48:], type_=129))
    if f[0] >> 4 == 4 and len(f) >= 28 and f[9] == 1 and f[20] == 8 and \
            f[16:20] == netpkt.ip4(BOARD_V4):
        src = ".".join(str(b) for b in f[12:16])
        ident, seq = struct.unpack("!HH", f[24:28])
        return netpkt.ipv4(BOARD_V4, src, 1, netpkt.icmp4_echo(ident, seq, f[28:], type_=0))
    return None


def ping(ns: Netns, addr: str, count: int = 2, size: int = 56, check: bool = True):
    p = ns.cmd(["ping", "-6" if ":" in addr else "-4", "-n", "-c", str(count), "-s",
                str(size), "-i", "0.2", "-W", "2", addr], check=False, timeout=30)
    if check:
        assert p.returncode == 0 and f"{count} received" in p.stdout, p.stdout + p.stderr
    return p


def free_port(ns: Netns) -> int:
    s = ns.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def connect_board(ns: Netns, addr, family: int = socket.AF_INET) -> PyBoard:
    """A board connecting to a listening bridge at addr ((host, port), or a
    Unix socket path), retrying while the bridge starts."""
    deadline = time.monotonic() + 5
    while True:
        s = ns.socket(family, socket.SOCK_STREAM, timeout=0.2)
        try:
            s.connect(addr)
            return PyBoard(s)
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def wait_for(pred, timeout: float = 5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def test_ping_both_families_both_ways(ns, tmp_path, make_bridge):
    port = free_port(ns)
    br = make_bridge(f"tcp-listen:127.0.0.1:{port}")
    board = connect_board(ns, ("127.0.0.1", port))
    try:
        ping(ns, BOARD_V6, count=3, size=1000)
        ping(ns, BOARD_V4, count=3, size=1000)
        # the board asks Linux: an echo request whose body needs escaping
        body = bytes([0xC0, 0xDB, 0xDC, 0xDD]) * 50
        req = netpkt.ipv6(BOARD_V6, LINUX_V6, 58,
                          netpkt.icmp6_echo(BOARD_V6, LINUX_V6, 0x4242, 1, body))
        board.send(slip_encode(req))
        assert wait_for(lambda: any(f[0] >> 4 == 6 and f[40] == 129 and f[48:] == body
                                    for f in board.frames)), "no echo reply from Linux"
    finally:
        board.close()
    st = br.stop()
    assert st["frames_to_tun"] >= 7 and st["frames_from_tun"] >= 7, st
    assert st["drop_too_big"] == st["drop_bad_escape"] == st["drop_not_ip"] == 0, st


def test_bad_frames_dropped_and_counted(ns, tmp_path, make_bridge):
    port = free_port(ns)
    br = make_bridge(f"tcp-listen:127.0.0.1:{port}")   # MTU 1280
    board = connect_board(ns, ("127.0.0.1", port))
    try:
        board.send(slip_encode(b"\x60" * 1281))                 # over the MTU
        board.send(b"\xc0\x45\x00\xdb\x01\x02\xc0")              # bad escape
        board.send(b"\xc0\x45\xdb\xc0")                          # ESC END
        board.send(slip_encode(b"\x12\x34\x56"))                 # not IP
        # shorter than their IP headers (issue 24: the 10-byte "IPv4" went
        # to the TUN and was counted written)
        board.send(slip_encode(b"\x45" + bytes(9)))               # IPv4, 10 bytes
        board.send(slip_encode(b"\x46" + bytes(19)))              # IPv4, IHL 6 in 20
        board.send(slip_encode(b"\x44" + bytes(27)))              # IPv4, IHL 4
        board.send(slip_encode(b"\x60" + bytes(38)))              # IPv6, 39 bytes
        board.send(slip_encode(b"\x60" * 1280)[:-1])             # exactly the MTU, no END yet
        board.send(b"\xc0")
        ping(ns, BOARD_V6, count=2, size=200)
        ping(ns, BOARD_V4, count=2, size=200)
        st = br.stats()
        assert st["drop_too_big"] == 1 and st["drop_bad_escape"] == 2, st
        assert st["drop_not_ip"] == 1, st
        assert st["drop_ip_runt"] == 4, st
        # 1 MTU-sized frame (IPv6 version nibble, garbage: the kernel drops it)
        # + 4 echo replies
        assert st["frames_to_tun"] == 5, st
        assert br.running()
    finally:
        board.close()
    br.stop()


@pytest.mark.parametrize("kind", ["tcp-listen", "unix", "unix-listen"])
def test_survives_a_peer_that_vanishes(ns, tmp_path, make_bridge, kind):
    """The peer goes away mid-frame; the bridge counts what it lost, waits,
    and works with the next peer."""
    path = str(tmp_path / "serial.sock")
    port = free_port(ns)
    listener = None

    def new_board() -> PyBoard:
        if kind == "tcp-listen":
            return connect_board(ns, ("127.0.0.1", port))
        if kind == "unix-listen":
            return connect_board(ns, path, socket.AF_UNIX)
        conn, _ = listener.accept()       # the bridge connects to us
        conn.settimeout(0.2)
        return PyBoard(conn)

    if kind == "unix":
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(1)
        listener.settimeout(10)
        spec = f"unix:{path}"
    else:
        spec = f"tcp-listen:127.0.0.1:{port}" if kind == "tcp-listen" else f"unix-listen:{path}"
    br = make_bridge(spec, extra=["--retry-ms", "50"])
    try:
        board = new_board()
        ping(ns, BOARD_V6, count=1)
        board.send(b"\xc0\x60\x00\x00")          # half a frame, then gone
        time.sleep(0.2)
        board.close()
        if listener is not None:
            listener.close()                      # nobody to reconnect to, for a while
        time.sleep(0.3)
        p = ping(ns, BOARD_V6, count=1, check=False)
        assert p.returncode != 0
        assert br.running()
        if kind == "unix":
            os.unlink(path)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(path)
            listener.listen(1)
            listener.settimeout(10)
        board = new_board()
        ping(ns, BOARD_V6, count=2)
        ping(ns, BOARD_V4, count=2)
        board.close()
    finally:
        if listener is not None:
            listener.close()
    st = br.stop()
    assert st["peer_connects"] == 2 and st["peer_losses"] >= 1, st
    assert st["drop_cut_short"] == 1, st
    assert st["drop_no_peer"] >= 1, st


def test_pty(ns, tmp_path, make_bridge):
    """pty:LINK: the board opens the slave by its link, closes it and opens it
    again (as QEMU restarting would); the bridge holds the pty meanwhile."""
    link = tmp_path / "board-tty"
    br = make_bridge(f"pty:{link}")
    assert " pty=/dev/pts/" in br.ready
    for _ in range(2):
        fd = os.open(link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(fd, termios.TCSANOW)
        board = PyBoard(fd)
        ping(ns, BOARD_V6, count=2, size=600)
        ping(ns, BOARD_V4, count=1)
        board.close()
    st = br.stop()
    assert st["frames_to_tun"] >= 6, st
    assert not link.exists(), "the pty link was not removed at exit"


def test_once_exits_when_the_peer_goes(ns, tmp_path, make_bridge):
    port = free_port(ns)
    br = make_bridge(f"tcp-listen:127.0.0.1:{port}", extra=["--once"])
    board = connect_board(ns, ("127.0.0.1", port))
    ping(ns, BOARD_V4, count=1)
    board.close()
    assert wait_for(lambda: not br.running(), 5), "--once: still running after the peer left"
    assert br.proc.returncode == 0
    assert TUN not in ns.ip(["link", "show"]).stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP], ids=["SIGINT", "SIGHUP"])
def test_every_stop_signal_ends_the_bridge_and_frees_its_tun(ns, tmp_path, make_bridge, sig):
    """SIGINT and SIGHUP (a closed terminal) end the bridge as SIGTERM does: exit 0,
    the counters written, and the TUN gone from the namespace."""
    port = free_port(ns)
    br = make_bridge(f"tcp-listen:127.0.0.1:{port}")
    assert ns.ip(["link", "show"]).stdout.count(": msl") == 1
    st = br.stop(sig=sig)
    assert "frames_to_tun" in st
    assert ": msl" not in ns.ip(["link", "show"]).stdout
