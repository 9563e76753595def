"""moteip's TCP when the peer goes silent: moteip-host as a TCP client
(--tcp-client) gives up on a handshake nobody answers after its SYN retry
limit, and its keepalive (--client-keepalive) ends an idle connection whose
peer vanished, while an idle connection to a live peer survives.

A silent peer without netfilter (this kernel may have neither nftables nor
sch_netem): Linux gets a blackhole route for the stack's address
(`ip route add blackhole 192.0.2.2/32`, `fd00::2/128`). Every segment from
moteip still reaches Linux, but nothing Linux sends back to the stack leaves
the namespace: no SYN-ACK, no RST, no ACK. ARP and Neighbor Discovery are
not routed, so the stack still resolves Linux's MAC. An AF_PACKET socket on
the TAP records what goes over the link, so the tests check the segments
(SYN retransmissions and their backoff, keepalive probes, the final RST),
not only the counters.

Timings come from the compile-time constants of src/tcp: initial RTO 1 s
doubling, MIP_TCP_SYN_RETRIES 5 (the handshake gives up 1+2+4+8+16+32 = 63 s
after the first SYN); 4 keepalive probes, MIP_TCP_KEEPALIVE_PROBES, spaced
keepalive/4 but at least 500 ms. All traffic stays inside the test's
namespace (192.0.2.0/24, fd00::/64).

The retry limit of an established connection is run-time (struct mip_tcp
max_retries, --tcp-max-retries): with the default 8 and the 300 ms RTO
minimum on this link giving up takes 0.3 s * (2^9 - 1) = 153 s, so the test
sets 3 (0.3 * (2^4 - 1) = 4.5 s)."""
from __future__ import annotations

import json
import math
import socket
import struct
import threading
import time

import pytest

from moteip_netns import (HOST_BIN, LINUX_V4, LINUX_V6, STACK_V4, STACK_V6, TAP, MoteipHost,
                          Netns)
from tcp_util import FAMILIES, body_pattern, dump

SYN_RETRIES = 5            # MIP_TCP_SYN_RETRIES
RTO_INITIAL = 1.0          # MIP_TCP_RTO_INITIAL_MS, seconds
KEEPALIVE_PROBES = 4       # MIP_TCP_KEEPALIVE_PROBES
KEEPALIVE_MIN_GAP = 0.5    # probes are at least 500 ms apart

TCP_SYN, TCP_RST, TCP_ACK = 0x02, 0x04, 0x10
PACKET_OUTGOING = 4        # sll_pkttype of frames Linux sends


# --- the namespace: Linux side, a silent Linux, a capture -------------------------

def _linux_side(ns: Netns) -> None:
    """The TAP with Linux's addresses, before moteip-host starts (the client
    connects at once, so servers must be listening first)."""
    ns.ip(["tuntap", "add", "dev", TAP, "mode", "tap"])
    ns.ip(["addr", "add", f"{LINUX_V4}/24", "dev", TAP])
    ns.ip(["addr", "add", f"{LINUX_V6}/64", "dev", TAP, "nodad"])
    ns.ip(["link", "set", TAP, "up"])


def _silence_linux(ns: Netns) -> None:
    """Linux keeps receiving but sends nothing more to the stack (neither
    family); ARP and ND answers are not routed and still go out."""
    ns.ip(["route", "add", "blackhole", f"{STACK_V4}/32"])
    ns.ip(["-6", "route", "add", "blackhole", f"{STACK_V6}/128"])


class TcpCapture:
    """Records every TCP segment on the TAP (both directions) in a thread:
    dicts with t (monotonic), out (sent by Linux), src, dst, sport, dport,
    seq, ack, flags, len (payload bytes)."""

    def __init__(self, ns: Netns) -> None:
        self.segs: list[dict] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._sock = ns.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003),
                               timeout=0.2)
        self._sock.bind((TAP, 0))
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame, addr = self._sock.recvfrom(65600)
            except socket.timeout:
                continue
            except OSError:
                return
            seg = self._parse(frame)
            if seg is not None:
                seg["t"] = time.monotonic()
                seg["out"] = addr[2] == PACKET_OUTGOING
                with self._lock:
                    self.segs.append(seg)

    @staticmethod
    def _parse(frame: bytes) -> dict | None:
        if len(frame) < 14:
            return None
        etype = struct.unpack_from("!H", frame, 12)[0]
        ip = frame[14:]
        if etype == 0x0800 and len(ip) >= 20 and ip[9] == 6:
            ihl = (ip[0] & 0x0F) * 4
            total = struct.unpack_from("!H", ip, 2)[0]
            src = socket.inet_ntop(socket.AF_INET, ip[12:16])
            dst = socket.inet_ntop(socket.AF_INET, ip[16:20])
            tcp, tcp_len = ip[ihl:total], total - ihl
        elif etype == 0x86DD and len(ip) >= 40 and ip[6] == 6:
            plen = struct.unpack_from("!H", ip, 4)[0]
            src = socket.inet_ntop(socket.AF_INET6, ip[8:24])
            dst = socket.inet_ntop(socket.AF_INET6, ip[24:40])
            tcp, tcp_len = ip[40:40 + plen], plen
        else:
            return None
        if len(tcp) < 20:
            return None
        sport, dport, seq, ack, off, flags = struct.unpack_from("!HHIIBB", tcp, 0)
        return {"src": src, "dst": dst, "sport": sport, "dport": dport, "seq": seq,
                "ack": ack, "flags": flags, "len": tcp_len - (off >> 4) * 4}

    def stop(self) -> list[dict]:
        self._stop.set()
        self._thread.join(5)
        self._sock.close()
        with self._lock:
            return list(self.segs)


@pytest.fixture
def capture(netns):
    caps: list[TcpCapture] = []

    def start() -> TcpCapture:
        caps.append(TcpCapture(netns))
        return caps[-1]
    try:
        yield start
    finally:
        for c in caps:
            c.stop()


def _target(addr: str, port: int) -> str:
    return f"[{addr}]:{port}" if ":" in addr else f"{addr}:{port}"


def _start_client(make_host, args: list[str]) -> tuple[MoteipHost, float]:
    """moteip-host --tcp-client ... on the TAP _linux_side made; returns the
    host and the time it was started."""
    t0 = time.monotonic()
    h = make_host(args, wait=False, create_tap=False)
    return h, t0


def _finish(h: MoteipHost, timeout: float) -> tuple[int, str, str, dict, float]:
    """Waits for the client to exit: (rc, stdout, stderr, stats JSON, time)."""
    try:
        out, err = h.proc.communicate(timeout=timeout)
    except Exception:
        h.kill()
        raise
    t = time.monotonic()
    stats = json.loads(h.stats_path.read_text())
    return h.proc.returncode, out.decode(), err.decode(), stats, t


class _Server:
    """A one-connection server in the namespace: after accepting (sets
    `accepted`, `t_accept`) it reads until EOF while sending `send_n`
    pattern bytes, then closes. `data`, `error` (an exception, e.g. the
    stack's RST as ConnectionResetError) when done."""

    def __init__(self, ns: Netns, family: int, addr: str, port: int, send_n: int = 0,
                 timeout: float = 60) -> None:
        self.accepted = threading.Event()
        self.t_accept = 0.0
        self.data = b""
        self.error: BaseException | None = None
        self._ls = ns.socket(family, socket.SOCK_STREAM, timeout=timeout)
        self._ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._ls.bind((addr, port))
        self._ls.listen(1)
        self._send_n = send_n
        self._timeout = timeout
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            c, _ = self._ls.accept()
            self.t_accept = time.monotonic()
            self.accepted.set()
            c.settimeout(self._timeout)
            with c:
                if self._send_n:
                    c.sendall(body_pattern(self._send_n))
                buf = bytearray()
                while True:
                    chunk = c.recv(65536)
                    if not chunk:
                        break
                    buf += chunk
                self.data = bytes(buf)
        except BaseException as e:   # noqa: BLE001 - reported by the test
            self.error = e
        finally:
            self._ls.close()


def _from_stack(segs: list[dict], stack: str) -> list[dict]:
    return [s for s in segs if s["src"] == stack and not s["out"]]


def _from_linux(segs: list[dict], stack: str) -> list[dict]:
    return [s for s in segs if s["dst"] == stack and s["out"]]


def _fmt(segs: list[dict]) -> str:
    t0 = segs[0]["t"] if segs else 0.0
    return "\n".join(f"{s['t'] - t0:8.3f} {'linux' if s['out'] else 'stack'} "
                     f"{s['sport']}>{s['dport']} flags {s['flags']:#04x} seq {s['seq']} "
                     f"len {s['len']}" for s in segs)


# --- retry limit -------------------------------------------------------------------

@pytest.mark.timeout(100)
def test_syn_retry_limit_aborts_connect_to_black_hole(make_host, netns, capture):
    """Nobody answers the SYN: moteip retransmits it SYN_RETRIES times with
    the RTO doubling from 1 s, gives up 63 s after the first SYN and reports
    a timeout (result line, exit status 1, conns_timed_out)."""
    _linux_side(netns)
    _silence_linux(netns)
    cap = capture()
    h, t0 = _start_client(make_host, ["--tcp-client", _target(LINUX_V4, 5999),
                                      "--client-timeout", "85"])
    rc, out, err, stats, t_end = _finish(h, timeout=95)
    segs = cap.stop()
    took = t_end - t0
    tcp = stats["tcp"]
    assert rc == 1, f"rc {rc}\n{out}\n{err}"
    assert "tcp-client: FAILED: connection failed: timeout" in out, out
    assert tcp["conns_opened"] == 1 and tcp["conns_timed_out"] == 1, dump(stats)
    assert tcp["timeouts"] == SYN_RETRIES, dump(stats)
    assert tcp["segs_rx"] == 0, dump(stats)

    syns = [s for s in _from_stack(segs, STACK_V4) if s["dport"] == 5999]
    assert all(s["flags"] == TCP_SYN for s in syns), _fmt(segs)
    assert len({(s["sport"], s["seq"]) for s in syns}) == 1, "retransmitted SYNs differ"
    assert not _from_linux(segs, STACK_V4), "the black hole let a segment through"
    # Exponential backoff: SYNs at 0, 1, 3, 7, 15, 31 s after the start.
    # The first may be missing on the wire: Linux can lose its answer to the
    # stack's first ARP request (its TAP qdisc is activated asynchronously
    # after moteip-host attaches), and the queued SYN is then replaced by
    # the first retransmission.
    schedule = [RTO_INITIAL * (2 ** k - 1) for k in range(SYN_RETRIES + 1)]
    offsets = [s["t"] - t0 for s in syns]
    assert len(syns) in (SYN_RETRIES, SYN_RETRIES + 1), f"{offsets}\n{_fmt(segs)}"
    for want, got in zip(schedule[-len(syns):], offsets):
        assert want * 0.9 - 0.05 <= got <= want * 1.1 + 0.3, \
            f"SYNs at {[round(x, 2) for x in offsets]} s, want {schedule}\n{_fmt(segs)}"
    # The last RTO (32 s) runs out, then the connection is given up (no RST
    # from SYN_SENT) and the host reports it at once.
    total = RTO_INITIAL * (2 ** (SYN_RETRIES + 1) - 1)
    assert total * 0.9 <= took <= total * 1.1 + 0.5, \
        f"the host gave up {took:.1f}s after it started, want ~{total:.0f}s"


RTO_MIN = 0.3              # MIP_TCP_RTO_MIN_MS, seconds


@pytest.mark.timeout(90)
@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_retry_limit_aborts_established_connection(make_host, netns, capture, fam):
    """--tcp-max-retries 3: the connection is established, Linux goes
    silent while it is idle, then the stack sends data. It retransmits the
    segment 3 times with the RTO doubling from the 300 ms minimum, then
    gives up with RST and reports the timeout (result line, exit status 1,
    conns_timed_out), ~4.5 s after the data went out.

    When the handshake needed a SYN retransmission (Linux lost its answer
    to the stack's first ARP / ND request, see the black-hole test above),
    there is no RTT sample (Karn) and the data RTO starts at 3 s (RFC 6298
    5.7): gaps 3, 6, 12 and 24 s until the RST.

    With an RTT sample, a tail loss probe (RFC 8985 7, SACK agreed with
    Linux) resends the lone segment first, 2 SRTT + 200 ms after it went
    (before the 300 ms RTO); it is no timeout, and the RTOs then run from
    the probe: one more copy, the same limit."""
    family, stack, linux = FAMILIES[fam]
    retries, n_up = 3, 1000
    _linux_side(netns)
    cap = capture()
    srv = _Server(netns, family, linux, 5004)
    h, _ = _start_client(make_host, ["--tcp-client", _target(linux, 5004),
                                     "--tcp-max-retries", str(retries),
                                     "--client-idle", "3", "--client-send", str(n_up),
                                     "--client-timeout", "60"])
    assert srv.accepted.wait(15), "the stack did not connect"
    _silence_linux(netns)
    rc, out, err, stats, t_end = _finish(h, timeout=70)
    srv.thread.join(10)
    segs = cap.stop()
    tcp = stats["tcp"]
    assert rc == 1, f"rc {rc}\n{out}\n{err}"
    assert "tcp-client: FAILED: connection failed: timeout" in out, out
    assert tcp["conns_opened"] == 1 and tcp["conns_timed_out"] == 1, dump(stats)
    probes = tcp.get("tlp_probes", 0)
    assert probes in (0, 1), dump(stats)
    assert tcp["rexmits"] == retries + probes, dump(stats)

    mine = _from_stack(segs, stack)
    data = [s for s in mine if s["len"] > 0]
    assert len(data) == 1 + probes + retries, _fmt(segs)
    assert len({(s["seq"], s["len"]) for s in data}) == 1, f"not one segment resent\n{_fmt(segs)}"
    assert data[0]["len"] == n_up
    rst = [s for s in mine if s["flags"] & TCP_RST]
    assert len(rst) == 1 and rst[0]["t"] > data[-1]["t"], _fmt(segs)
    # Gaps RTO, 2 RTO, 4 RTO, then 8 RTO until the RST; the RTO is the
    # minimum on this sub-millisecond link, or RFC 6298 5.7's 3 s after a
    # SYN timeout.
    syn_timeouts = tcp["timeouts"] - retries
    assert syn_timeouts in (0, 1), dump(stats)
    assert not (probes and syn_timeouts), "a probe without an RTT sample\n" + dump(stats)
    rto = RTO_MIN if syn_timeouts == 0 else 3.0
    chain = data + rst[:1]
    gaps = [b["t"] - a["t"] for a, b in zip(chain, chain[1:])]
    if probes:
        # the probe timeout: 2 SRTT (sub-millisecond here) + RFC 8985's 200 ms
        assert 0.18 <= gaps[0] <= 0.2 + 0.3, f"probe after {gaps[0]:.3f} s\n{_fmt(segs)}"
        gaps = gaps[1:]
    for k, g in enumerate(gaps):
        want = rto * 2 ** k
        assert want * 0.9 - 0.02 <= g <= want * 1.1 + 0.3, \
            f"gaps {[round(x, 2) for x in gaps]} s\n{_fmt(segs)}"
    assert t_end - rst[0]["t"] < 1.0, f"host exited {t_end - rst[0]['t']:.1f}s after the RST"
    assert not any(s for s in segs if s["out"] and s["dst"] == stack and
                   s["t"] > data[0]["t"]), "the black hole let a segment through"


# --- keepalive ---------------------------------------------------------------------

@pytest.mark.timeout(60)
@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_keepalive_detects_vanished_peer(make_host, netns, capture, fam):
    """An idle connection with keepalive 2 s: the peer vanishes right after
    the handshake. Probes go unanswered; after the 4th the stack aborts with
    RST and reports the keepalive error, about 2 + 4 * 0.5 s after the last
    segment it received."""
    family, stack, linux = FAMILIES[fam]
    ka_ms = 2000
    _linux_side(netns)
    cap = capture()
    srv = _Server(netns, family, linux, 5002)
    h, _ = _start_client(make_host, ["--tcp-client", _target(linux, 5002),
                                     "--client-keepalive", str(ka_ms),
                                     "--client-idle", "40", "--client-timeout", "50"])
    assert srv.accepted.wait(15), "the stack did not connect"
    _silence_linux(netns)
    rc, out, err, stats, t_end = _finish(h, timeout=30)
    srv.thread.join(10)
    segs = cap.stop()
    tcp = stats["tcp"]
    assert rc == 1, f"rc {rc}\n{out}\n{err}"
    assert "tcp-client: FAILED: connection failed: keepalive" in out, out
    assert tcp["keepalives"] == KEEPALIVE_PROBES, dump(stats)
    assert tcp["conns_opened"] == 1 and tcp["conns_closed"] == 1, dump(stats)
    assert tcp["conns_timed_out"] == 0 and tcp["rexmits"] == 0, dump(stats)

    mine = _from_stack(segs, stack)
    syn = next(s for s in mine if s["flags"] & TCP_SYN)
    # A probe: a bare ACK one below snd_una (= the SYN's sequence number here,
    # nothing was sent).
    probes = [s for s in mine if s["flags"] == TCP_ACK and s["len"] == 0 and
              s["seq"] == syn["seq"]]
    assert len(probes) == KEEPALIVE_PROBES, _fmt(segs)
    rst = [s for s in mine if s["flags"] & TCP_RST]
    assert len(rst) == 1 and rst[0]["t"] > probes[-1]["t"], _fmt(segs)
    # Timing from the last segment the stack received: the SYN-ACK (the
    # handshake; Linux was silenced right after).
    synack = next(s for s in segs if s["out"] and s["flags"] & TCP_SYN)
    idle = probes[0]["t"] - synack["t"]
    assert ka_ms / 1000 * 0.9 <= idle <= ka_ms / 1000 + 0.5, f"first probe after {idle:.2f}s"
    gap = max(ka_ms / 1000 / KEEPALIVE_PROBES, KEEPALIVE_MIN_GAP)
    chain = probes + rst[:1]
    for a, b in zip(chain, chain[1:]):
        assert gap * 0.9 <= b["t"] - a["t"] <= gap + 0.3, _fmt(segs)
    # ... and the host reports it at once (not at --client-timeout).
    assert t_end - rst[0]["t"] < 1.0, f"host exited {t_end - rst[0]['t']:.1f}s after the RST"
    # Linux received the RST (incoming traffic was never blocked).
    assert isinstance(srv.error, ConnectionResetError), srv.error


@pytest.mark.timeout(60)
@pytest.mark.parametrize("fam", ["v4", "v6"])
def test_keepalive_keeps_live_connection(make_host, netns, capture, fam):
    """Keepalive 1 s on a connection idle for 6 s to a peer that stays:
    Linux answers every probe, the connection survives and then carries
    data both ways and closes in order."""
    family, stack, linux = FAMILIES[fam]
    n_up, n_down = 1000, 3000
    _linux_side(netns)
    cap = capture()
    srv = _Server(netns, family, linux, 5003, send_n=n_down)
    h, t0 = _start_client(make_host, ["--tcp-client", _target(linux, 5003),
                                      "--client-keepalive", "1000", "--client-idle", "6",
                                      "--client-send", str(n_up),
                                      "--client-expect", str(n_down),
                                      "--client-timeout", "30"])
    rc, out, err, stats, t_end = _finish(h, timeout=40)
    srv.thread.join(10)
    segs = cap.stop()
    tcp = stats["tcp"]
    assert rc == 0, f"rc {rc}\n{out}\n{err}\n{dump(stats)}"
    assert f"tcp-client: ok, sent {n_up} bytes, received {n_down} bytes" in out, out
    assert t_end - t0 >= 6, "the connection was not held idle"
    assert srv.error is None, srv.error
    assert srv.data == body_pattern(n_up)
    # Roughly one probe a second while idle (the server's data arrives at
    # once and restarts the idle timer).
    assert 3 <= tcp["keepalives"] <= 7, dump(stats)
    assert tcp["conns_timed_out"] == 0 and tcp["conns_reset"] == 0, dump(stats)
    # A clean link: nothing may time out after the handshake (e.g. an RTO
    # armed from a stale clock when the data goes out after the idle time).
    # The handshake itself may have needed SYN retransmissions when Linux
    # lost its first ARP answer (see the black-hole test): k timeouts put
    # the SYN-ACK 2^k - 1 seconds after the start.
    synack = next(s for s in segs if s["out"] and s["flags"] & TCP_SYN)
    syn_timeouts = round(math.log2(synack["t"] - t0 + 1))
    assert tcp["timeouts"] == syn_timeouts and tcp["rexmits"] == 0, \
        f"{dump(stats)}\nSYN-ACK after {synack['t'] - t0:.2f}s\n{_fmt(segs)}"

    mine = _from_stack(segs, stack)
    syn = next(s for s in mine if s["flags"] & TCP_SYN)
    probes = [s for s in mine if s["flags"] == TCP_ACK and s["len"] == 0 and
              s["seq"] == syn["seq"]]
    assert len(probes) == tcp["keepalives"], _fmt(segs)
    # Each probe was answered at once by an ACK for snd_una (probe seq + 1).
    answered = [p for p in probes if any(
        o["out"] and o["flags"] & TCP_ACK and o["ack"] == (p["seq"] + 1) & 0xFFFFFFFF
        and 0 <= o["t"] - p["t"] < 0.5 for o in segs)]
    assert len(answered) == len(probes), f"probes answered by Linux: {len(answered)}\n{_fmt(segs)}"
    assert not any(s["flags"] & TCP_RST for s in segs), _fmt(segs)


# --- the client options these tests use ------------------------------------------------

BAD_CLIENT_ARGS = [
    (["--client-keepalive", "1000"], "--client-keepalive"),        # without --tcp-client
    (["--client-idle", "5"], "--client-idle"),
    (["--tcp-client", "192.0.2.1:80", "--client-keepalive", "0"], "--client-keepalive"),
    (["--tcp-client", "192.0.2.1:80", "--client-keepalive", "86400001"], "--client-keepalive"),
    (["--tcp-client", "192.0.2.1:80", "--client-keepalive", "1s"], "--client-keepalive"),
    (["--tcp-client", "192.0.2.1:80", "--client-keepalive", "5", "--client-keepalive", "5"],
     "--client-keepalive"),
    (["--tcp-client", "192.0.2.1:80", "--client-idle", "-1"], "--client-idle"),
    (["--tcp-client", "192.0.2.1:80", "--client-idle", "86401"], "--client-idle"),
    (["--tcp-client", "192.0.2.1:80", "--client-idle", "1", "--client-idle", "1"],
     "--client-idle"),
    (["--tcp-client", "192.0.2.1:80", "--client-idle", "20", "--client-timeout", "20"],
     "--client-timeout"),
    (["--tcp-max-retries", "0"], "--tcp-max-retries"),
    (["--tcp-max-retries", "256"], "--tcp-max-retries"),
    (["--tcp-max-retries", "x"], "--tcp-max-retries"),
    (["--tcp-max-retries", "3", "--tcp-max-retries", "3"], "--tcp-max-retries"),
]


@pytest.mark.parametrize("args,option", BAD_CLIENT_ARGS,
                         ids=[" ".join(a) for a, _ in BAD_CLIENT_ARGS])
def test_bad_client_keepalive_and_idle_arguments(netns, args, option):
    """The command-line contract: one stderr line naming the option, exit 2,
    nothing started."""
    p = netns.cmd([str(HOST_BIN), "--tap", TAP, *args], check=False, timeout=10)
    assert p.returncode == 2, f"exit {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("moteip-host: "), p.stderr
    assert option in lines[0], f"{option} not named in: {lines[0]}"
    assert p.stdout == ""
    assert TAP not in netns.ip(["link", "show"]).stdout


def test_help_lists_client_keepalive_and_idle(netns):
    p = netns.cmd([str(HOST_BIN), "--help"], timeout=10)
    assert "--client-keepalive MS" in p.stdout and "--client-idle S" in p.stdout
    assert "--tcp-max-retries N" in p.stdout
