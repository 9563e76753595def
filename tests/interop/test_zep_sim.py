"""A moteip-host inside a simulated network (docs/ZEP.md, "External nodes in
a simulation"): moteip-sim --realtime runs a chain whose node 0 is the
border router on a TUN and whose node 2 is not simulated but a moteip-host
on a ZEP radio, at node 2's place in the medium. Linux pings it and fetches
a page from its HTTP server through the border router and simulated node 1;
tshark captures the ZEP datagrams between the simulator and the host and
decodes every one (ZEP, 802.15.4 with its FCS, 6LoWPAN) with zero malformed.

Routing (what works on main today): the border router's routes come from
its shortest-path tree, which includes the external node's position, so
node 0 and node 1 route to node 2 as to any node; the host is given its
default route via node 1 on the command line.

NETWORK SAFETY: one namespace the test makes (the `netns` fixture), its
loopback for ZEP, fd00::/8 and fd01::/64 addresses only; bounded runs.
"""
from __future__ import annotations

import json
import re
import signal
import subprocess
import time

from moteip_netns import HOST_BIN, read_ready_line
from test_sim_border import SimBorder, body_sha256, curl_sha256, ping, tun_link

SIM_PORT, HOST_PORT = 17770, 17771
NODE1, NODE2 = "fd00::ff:fe00:1", "fd00::ff:fe00:2"
BODY = 4096


def scenario() -> dict:
    return {
        "name": "zep-external", "seed": 1, "duration_s": 300,
        "topology": {"type": "chain", "nodes": 3, "spacing_m": 40},
        # a link ACK from the host crosses loopback and its scheduler, and the
        # host's ZEP radio hands a frame to its MAC one airtime after the
        # datagram: moteip-host's own ZEP ACK wait (20 ms), not 864 us
        "phy": {"ack_wait_us": 20000},
        "border": {"node": 0, "device": "mtun0", "type": "tun", "address": "fd01::2/64"},
        "external": [{"node": 2, "local": f"127.0.0.1:{SIM_PORT}",
                      "remote": f"127.0.0.1:{HOST_PORT}"}],
    }


def start_capture(ns, pcap) -> subprocess.Popen:
    cap = subprocess.Popen(["ip", "netns", "exec", ns.name, "tshark", "-n", "-i", "lo", "-f",
                            f"udp portrange {SIM_PORT}-{HOST_PORT}", "-F", "pcap", "-w",
                            str(pcap)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    buf = b""
    deadline = time.monotonic() + 20
    while b"Capturing on" not in buf and time.monotonic() < deadline:
        buf += cap.stderr.read1(4096)
    assert b"Capturing on" in buf, buf
    return cap


def test_linux_reaches_a_moteip_host_inside_a_simulated_network(netns, tmp_path):
    tun_link(netns)
    pcap = tmp_path / "zep.pcap"
    cap = start_capture(netns, pcap)
    sim = SimBorder(netns, tmp_path, scenario())
    host = None
    try:
        ready = sim.wait_ready()
        assert f"external node 2 on zep 127.0.0.1:{SIM_PORT},127.0.0.1:{HOST_PORT}" in ready
        host = subprocess.Popen(["ip", "netns", "exec", netns.name, str(HOST_BIN), "--zep",
                                 f"127.0.0.1:{HOST_PORT},127.0.0.1:{SIM_PORT}", "--short", "2",
                                 "--addr", f"{NODE2}/64", "--route", "::/0", "via", NODE1,
                                 "--http", "80", "--stats-json", str(tmp_path / "host.json")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        read_ready_line(host, 10, "moteip-host")
        p = ping(netns, NODE2, 5)
        got = int(re.search(r"(\d+) received", p.stdout).group(1))
        assert got >= 4, p.stdout + p.stderr
        assert curl_sha256(netns, tmp_path, NODE2, BODY) == body_sha256(BODY)
    except AssertionError as e:
        raise AssertionError(f"{e}\n{sim.explain()}") from None
    finally:
        if host is not None and host.poll() is None:
            host.send_signal(signal.SIGTERM)
            host.communicate(timeout=10)
        time.sleep(0.3)
        cap.send_signal(signal.SIGINT)
        cap.communicate(timeout=20)
    r = sim.stop()
    (ext,) = r["external"]
    assert ext["node"] == 2 and ext["frames_in"] > 10 and ext["frames_out"] > 10, ext
    assert ext["drop_malformed"] == ext["drop_fcs"] == ext["drop_channel"] == 0, ext
    assert r["border"]["frames_from_host"] > 0 and r["border"]["frames_to_host"] > 0
    st = json.loads((tmp_path / "host.json").read_text())
    assert st["zep"]["drop_malformed"] == 0 and st["zep"]["drop_fcs"] == 0, st["zep"]

    prefs = ["-d", f"udp.port=={SIM_PORT},zep", "-d", f"udp.port=={HOST_PORT},zep",
             "-o", "6lowpan.context0:fd00::/64"]
    fields = subprocess.run(["tshark", "-n", "-r", str(pcap), *prefs, "-T", "fields",
                             "-e", "frame.protocols", "-e", "wpan.fcs_ok", "-e", "zep.device_id",
                             "-e", "_ws.malformed"], capture_output=True, text=True, timeout=60)
    assert fields.returncode == 0, fields.stderr
    rows = [line.split("\t") for line in fields.stdout.splitlines()]
    assert len(rows) >= 20, fields.stdout
    assert all("zep:wpan" in r[0] for r in rows), fields.stdout
    assert all(r[1] == "1" for r in rows), "an FCS Wireshark did not verify"
    assert not any(r[3] for r in rows), "malformed frames"
    # the simulator names the sending node in the device id: node 1 sends to
    # the host (frames the medium delivered), the host says it is node 2
    assert {r[2] for r in rows} == {"1", "2"}, {r[2] for r in rows}
    protos = " ".join(r[0] for r in rows)
    assert "6lowpan:ipv6:icmpv6" in protos and "6lowpan:ipv6:tcp" in protos, protos
    bad = subprocess.run(["tshark", "-n", "-r", str(pcap), *prefs, "-Y",
                          "_ws.malformed || _ws.expert.severity >= error"],
                         capture_output=True, text=True, timeout=60)
    assert bad.stdout.strip() == "", bad.stdout
