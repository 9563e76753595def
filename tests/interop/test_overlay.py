"""The application overlay on Linux hosts (apps/overlay.h, docs/OVERLAY.md):
the library the simulator runs on every node, unchanged, in three
moteip-host processes on ZEP radios (docs/ZEP.md) inside a namespace the
test makes, on its loopback. A (the sink) hears B only, C hears B only:
B's aggregate carries C's reading and its own, and every round at A counts
both (count 2, min 20, max 30, sum 50, mean 25)."""
from __future__ import annotations

import json
import re
import signal
import subprocess

from moteip_netns import HOST_BIN, read_ready_line

PORT_A, PORT_B, PORT_C = 17764, 17765, 17766


def host(ns, tmp_path, name: str, local: int, remotes: list[int], short: int,
         extra: list[str]) -> subprocess.Popen:
    spec = ",".join(f"127.0.0.1:{p}" for p in [local, *remotes])
    p = subprocess.Popen(["ip", "netns", "exec", ns.name, str(HOST_BIN), "--zep", spec,
                          "--short", str(short), "--overlay", str(short),
                          "--stats-json", str(tmp_path / f"{name}.json"), *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = read_ready_line(p, 10, f"moteip-host {name}")
    assert line.startswith(f"moteip-host: zep {spec}"), line
    return p


def stop(p: subprocess.Popen) -> None:
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=10)


def test_three_hosts_aggregate_readings_up_the_overlay(netns, tmp_path):
    b = host(netns, tmp_path, "b", PORT_B, [PORT_A, PORT_C], 2, ["--overlay-reading", "20"])
    c = host(netns, tmp_path, "c", PORT_C, [PORT_B], 3, ["--overlay-reading", "30"])
    try:
        r = netns.cmd([HOST_BIN, "--zep", f"127.0.0.1:{PORT_A},127.0.0.1:{PORT_B}", "--short",
                       "1", "--overlay", "1", "--overlay-rounds", "5",
                       "--stats-json", str(tmp_path / "a.json")], timeout=30, check=False)
    finally:
        stop(c)
        stop(b)
    assert r.returncode == 0, (r.stdout, r.stderr)
    rounds = [tuple(int(x) for x in m.groups()) for m in re.finditer(
        r"overlay: attr 1 round (\d+) count (\d+) min (-?\d+) max (-?\d+) sum (-?\d+)", r.stdout)]
    assert len(rounds) == 5 and "overlay: 5/5 rounds" in r.stdout, r.stdout
    # the first round may end before C's interest reached it; the rest are whole
    assert all(rd[1:] == (2, 20, 30, 50) for rd in rounds[1:]), r.stdout
    st = {n: json.loads((tmp_path / f"{n}.json").read_text())["apps"]["overlay"] for n in "abc"}
    assert st["b"]["data_rx"] >= 4 and st["b"]["data_tx"] >= 4 and st["c"]["data_tx"] >= 4
    assert st["a"]["interests_tx"] >= 1 and st["c"]["interests_rx"] >= 1
    assert all(st[n]["drop_malformed"] == 0 and st[n]["drop_tx"] == 0 for n in "abc")


def test_overlay_options_need_overlay(netns):
    r = netns.cmd([HOST_BIN, "--zep", f"127.0.0.1:{PORT_A},127.0.0.1:{PORT_B}", "--short", "1",
                   "--overlay-rounds", "2"], timeout=10, check=False)
    assert r.returncode == 2 and "--overlay-rounds: only with --overlay" in r.stderr, r.stderr
