"""Helpers for the TCP interop tests (test_tcp_*.py): the data patterns of
the moteip TCP apps, netem impairment of the TAP link, and small socket
utilities. All traffic stays inside the test's namespace (192.0.2.0/24,
fd00::/8)."""
from __future__ import annotations

import functools
import hashlib
import json
import socket
import threading
import time
import zlib


from moteip_netns import (LINUX_V4, LINUX_V6, STACK_V4, STACK_V6, TAP, MoteipHost, Netns,
                          assert_safe_addr)

# The ports the TCP tests give the services.
ECHO, DISCARD, CHARGEN, HTTP = 7, 9, 19, 80
SERVICE_ARGS = ["--echo", str(ECHO), "--discard", str(DISCARD), "--chargen", str(CHARGEN),
                "--http", str(HTTP)]

FAMILIES = {"v4": (socket.AF_INET, STACK_V4, LINUX_V4),
            "v6": (socket.AF_INET6, STACK_V6, LINUX_V6)}


@functools.lru_cache(maxsize=1)
def _base_block() -> bytes:
    return bytes((7 * i + (i >> 8)) & 0xFF for i in range(65536))


def body_pattern(n: int, offset: int = 0) -> bytes:
    """Bytes [offset, offset+n) of the HTTP /bytes/N body (apps/http_server.h):
    byte i = (7*i + (i >> 8) + (i >> 16)) & 0xFF. Block k of 64 KB is the
    first block with k added to every byte, which makes this fast."""
    base = _base_block()
    out = bytearray()
    first, last = offset >> 16, (offset + n + 65535) >> 16
    for k in range(first, last):
        out += base.translate(bytes((b + k) & 0xFF for b in range(256)))
    start = offset - (first << 16)
    return bytes(out[start:start + n])


def body_sha256(n: int) -> str:
    h = hashlib.sha256()
    done = 0
    while done < n:
        step = min(1 << 20, n - done)
        h.update(body_pattern(step, done))
        done += step
    return h.hexdigest()


def chargen_pattern(n: int) -> bytes:
    """The first n bytes of the RFC 864 stream (apps/tcp_chargen.h)."""
    lines = []
    for k in range(n // 74 + 1):
        lines.append(bytes(0x20 + (k + 1 + j) % 95 for j in range(72)) + b"\r\n")
    return b"".join(lines)[:n]


def crc32(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def url(addr: str, path: str, port: int = HTTP) -> str:
    assert_safe_addr(addr)
    host = f"[{addr}]" if ":" in addr else addr
    return f"http://{host}:{port}{path}"


def curl_args(addr: str, path: str, out: str, max_time: float) -> list[str]:
    return ["curl", "-sS", "-g", "--max-time", str(max_time), "-o", out,
            "-w", "%{http_code} %{size_download}", url(addr, path)]


def file_sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def netem_available() -> bool:
    """Whether this kernel has what Impairment needs for netem in both
    directions (sch_netem, ifb, cls_matchall, act_mirred); probed once in a
    scratch namespace."""
    ns = Netns()
    try:
        for args in (["ip", "link", "add", "d0", "type", "dummy"],
                     ["ip", "link", "add", "ifb0", "type", "ifb"],
                     ["tc", "qdisc", "add", "dev", "d0", "root", "netem", "loss", "1%"],
                     ["tc", "qdisc", "add", "dev", "d0", "handle", "ffff:", "ingress"],
                     ["tc", "filter", "add", "dev", "d0", "parent", "ffff:", "matchall",
                      "action", "mirred", "egress", "redirect", "dev", "ifb0"]):
            if ns.cmd(args, check=False).returncode != 0:
                return False
        return True
    finally:
        ns.delete()


def netem_args(spec: dict) -> list[str]:
    """{"loss": 5} -> netem's ["loss", "5%"]; also dup, delay (+ reorder)."""
    out: list[str] = []
    if "delay" in spec:
        out += ["delay", f"{spec['delay']}ms"]
        if "reorder" in spec:
            out += ["reorder", f"{spec['reorder']}%", "50%"]
    if "loss" in spec:
        out += ["loss", f"{spec['loss']}%"]
    if "dup" in spec:
        out += ["duplicate", f"{spec['dup']}%"]
    return out


def start_impaired_host(make_host, spec: dict, extra_args: list[str]) -> MoteipHost:
    """moteip-host with `extra_args` on a link impaired in both directions:
    by netem on the Linux side (egress of mtap0, and its ingress through an
    ifb device) where the kernel has it, else by moteip-host's own --impair
    (the same impairments in userspace, for kernels without sch_netem).
    The impairment starts once the host answers ping."""
    if netem_available():
        host = make_host(extra_args)
        ns, args = host.ns, netem_args(spec)
        ns.cmd(["tc", "qdisc", "add", "dev", TAP, "root", "netem", *args])
        ns.ip(["link", "add", "ifb0", "type", "ifb"])
        ns.ip(["link", "set", "ifb0", "up"])
        ns.cmd(["tc", "qdisc", "add", "dev", TAP, "handle", "ffff:", "ingress"])
        ns.cmd(["tc", "filter", "add", "dev", TAP, "parent", "ffff:", "matchall",
                "action", "mirred", "egress", "redirect", "dev", "ifb0"])
        ns.cmd(["tc", "qdisc", "add", "dev", "ifb0", "root", "netem", *args])
        host.impaired_by = "netem"
        return host
    text = ",".join(f"{k}={v}" for k, v in spec.items())
    host = make_host([*extra_args, "--impair", text], wait=False)
    # Ping may lose a packet under the impairment: wait more patiently.
    host.wait_answering(timeout=20)
    host.impaired_by = "moteip-host --impair"
    return host


def connect(host: MoteipHost, family: int, addr: str, port: int,
            timeout: float = 10.0) -> socket.socket:
    assert_safe_addr(addr)
    s = host.socket(family, socket.SOCK_STREAM, timeout=timeout)
    s.connect((addr, port))
    return s


def recv_all(s: socket.socket, limit: int | None = None) -> bytes:
    """Reads until EOF (or `limit` bytes)."""
    buf = bytearray()
    while limit is None or len(buf) < limit:
        chunk = s.recv(1 << 16 if limit is None else min(1 << 16, limit - len(buf)))
        if not chunk:
            break
        buf += chunk
    return bytes(buf)


def send_in_thread(s: socket.socket, data: bytes, shutdown: bool = True) -> threading.Thread:
    """sendall(data) (then SHUT_WR) in a thread; errors land in t.error."""
    def run():
        try:
            s.sendall(data)
            if shutdown:
                s.shutdown(socket.SHUT_WR)
        except BaseException as e:   # noqa: BLE001 - reported by the caller
            t.error = e
    t = threading.Thread(target=run, daemon=True)
    t.error = None
    t.start()
    return t


def host_stats(host: MoteipHost) -> dict:
    return host.stop()


def wait_until(pred, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return pred()


def dump(stats: dict) -> str:
    return json.dumps({"tcp": {k: v for k, v in stats.get("tcp", {}).items() if v},
                       "apps": stats.get("apps")}, indent=1)
