"""IEEE 802.15.4 link-layer security in the simulator (scenario key "security";
docs/MAC.md "Link-layer security").

1. a secured 3-hop TCP transfer completes; every data frame on the air carries the
   auxiliary security header and a MIC, ACKs do not, and the radio's time on air is
   that of the secured frames;
2. tshark decrypts the capture with the network key (the ieee802154_keys table, the
   short addresses mapped to the nodes' EUI-64s in 802154_addresses): every data frame
   is shown as 6LoWPAN, none malformed; with another key none is (the MIC is checked);
3. a node without the key (another key, or no security at all) is rejected and
   counted by its neighbours, and delivers nothing;
4. the key's errors name the key.
"""
from __future__ import annotations

import os
import shutil
import struct
import subprocess

import pytest

from simrun import run_ok, run_sim

KEY = "C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF"
OTHER_KEY = "00112233445566778899AABBCCDDEEFF"
PAN = 0xABCD
SCENARIO = {
    "name": "llsec-3hop", "seed": 7, "duration_s": 60,
    "topology": {"type": "chain", "nodes": 4, "spacing_m": 40},
    "mac": {"type": "csma_ca"},
    "link": {"mode": "iphc"},
    "security": {"level": 5, "key": KEY, "key_index": 1},
    "flows": [{"type": "tcp", "src": 0, "dst": 3, "bytes": 5000}],
}
AUX_LEN, MIC_LEN = 6, 4          # level 5 (ENC-MIC-32), key id mode 1


def read_pcap(path):
    raw = path.read_bytes()
    recs, off = [], 24
    while off < len(raw):
        _, _, incl, _ = struct.unpack_from("<IIII", raw, off)
        recs.append(raw[off + 16:off + 16 + incl])
        off += 16 + incl
    return recs


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    d = tmp_path_factory.mktemp("llsec")
    pcap = d / "run.pcap"
    r = run_sim(SCENARIO, d, "--pcap", str(pcap))
    assert r.rc == 0, r.stderr
    return {"dir": d, "pcap": pcap, "result": r.result, "frames": read_pcap(pcap)[1:]}


def test_secured_transfer_completes_with_every_data_frame_secured(capture):
    res = capture["result"]
    f = res["flows"][0]
    assert f["complete"] and f["integrity_ok"], f
    data = [m for m in capture["frames"] if m[0] & 0x07 == 1]
    acks = [m for m in capture["frames"] if m[0] & 0x07 == 2]
    assert data and acks
    assert all(m[0] & 0x08 and (m[1] >> 4) & 3 == 1 for m in data)   # secured, 2006 version
    assert not any(m[0] & 0x08 for m in acks)                        # Imm-Acks are not
    # the aux header: level 5, key id mode 1, key index 1 (MHR: 9 bytes, short addresses)
    assert {(m[9], m[14]) for m in data} == {(0x0D, 1)}
    # the medium still knows TCP data from ACKs (it reads the sender's plaintext)
    assert res["totals"]["tcp_data_frames_tx"] > 0 and res["totals"]["tcp_ack_frames_tx"] > 0
    for n in res["node_stats"]:
        assert not any(k.startswith("rx_sec") for k in n["mac"]), n["mac"]


def test_time_on_air_is_that_of_the_secured_frames(capture):
    """250 kb/s, 6-byte PHY header: 32 µs a byte of every frame as captured (aux header
    and MIC included), summed over all frames, is the nodes' transmit time."""
    res = capture["result"]
    on_air = sum((6 + len(m)) * 32e-6 for m in capture["frames"])
    assert sum(n["tx_s"] for n in res["node_stats"]) == pytest.approx(on_air, abs=1e-6)


def tshark_fields(capture, key, *fields):
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: run scripts/setup.sh (it installs tshark)")
    cfg = capture["dir"] / "wireshark-config"      # no user preferences leak in
    cfg.mkdir(exist_ok=True)
    opts = ["-o", f'uat:ieee802154_keys:"{key}","1","No hash"']
    for i in range(len(capture["result"]["node_stats"])):
        # the nonce needs the sender's EUI-64: the simulator's 02:00:..:id for short id
        opts += ["-o", f'uat:802154_addresses:"0x{i:04x}","0x{PAN:04x}",02000000000000{i:02x}']
    args = ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"]
    for f in fields:
        args += ["-e", f]
    p = subprocess.run([exe, "-r", str(capture["pcap"]), *opts, *args], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, WIRESHARK_CONFIG_DIR=str(cfg)))
    assert p.returncode == 0, p.stderr
    return [dict(zip(fields, line.split("\t"))) for line in p.stdout.splitlines()]


def test_tshark_decrypts_with_the_key_and_not_without(capture):
    rows = tshark_fields(capture, KEY, "frame.number", "frame.protocols", "wpan.frame_type",
                         "wpan.key_number", "_ws.malformed", "_ws.expert.message")
    data = [r for r in rows[1:] if r["wpan.frame_type"] == "0x0001"]
    assert len(data) == sum(1 for m in capture["frames"] if m[0] & 0x07 == 1)
    not_decrypted = [r["frame.number"] for r in data
                     if not r["frame.protocols"].startswith("wpan:6lowpan")]
    assert not_decrypted == [], not_decrypted[:20]
    assert {r["wpan.key_number"] for r in data} == {"0"}       # the MIC verified with key 0
    assert any(":ipv6:tcp" in r["frame.protocols"] for r in data)
    malformed = [r["frame.number"] for r in rows if r["_ws.malformed"]]
    assert malformed == []
    wrong = tshark_fields(capture, OTHER_KEY, "frame.protocols", "wpan.frame_type")
    decoded = [r for r in wrong[1:] if r["wpan.frame_type"] == "0x0001"
               and r["frame.protocols"] != "wpan:data"]
    assert decoded == []


def outsider_scenario(outsider: dict) -> dict:
    """A chain 0-1-2; node 2 sends UDP to node 0 through 1, as an outsider."""
    return {"name": "outsider", "seed": 3, "duration_s": 20,
            "topology": {"type": "chain", "nodes": 3, "spacing_m": 40},
            "security": {"level": 6, "key": KEY, "nodes": [{"ids": [2], **outsider}]},
            "flows": [{"type": "udp", "src": 2, "dst": 0, "interval_s": 1, "count": 10,
                       "payload_bytes": 20},
                      {"type": "udp", "src": 0, "dst": 1, "interval_s": 1, "count": 10,
                       "payload_bytes": 20}]}


@pytest.mark.parametrize("outsider,counter", [
    ({"key": OTHER_KEY}, "rx_sec_mic"),     # right level, wrong key: forged MICs
    ({"level": 0}, "rx_sec_none"),           # no security at all
    ({"level": 7}, "rx_sec_policy"),         # another level (a key it may even have)
])
def test_outsiders_are_rejected_and_counted(tmp_path, outsider, counter):
    r = run_ok(outsider_scenario(outsider), tmp_path)
    relay = r["node_stats"][1]["mac"]
    # the frames node 2 sent node 1 (first copies and retries alike; a few lost to
    # collisions with node 0's) dropped and counted, none acknowledged or passed up
    sent = r["node_stats"][2]["mac"]["tx_attempts"]
    assert sent > 0 and 0.8 * sent <= relay.get(counter, 0) <= sent, (relay, sent)
    assert sum(v for k, v in relay.items() if k.startswith("rx_sec")) == relay[counter]
    assert r["node_stats"][2]["mac"].get("acks_rx", 0) == 0
    assert r["flows"][0]["received"] == 0
    # the members talk on (node 2's retries collide with some of node 0's frames)
    assert r["flows"][1]["received"] >= 8


@pytest.mark.parametrize("security,key,expect", [
    ({"level": 4, "key": KEY}, "security.level", "0-3 or 5-7"),
    ({"level": 8, "key": KEY}, "security.level", "[0, 7]"),
    ({"level": 5}, "security.key", "missing; expected 32 hex digits"),
    ({"level": 5, "key": KEY[:-1]}, "security.key", "32 hex digits"),
    ({"level": 5, "key": "G" + KEY[1:]}, "security.key", "32 hex digits"),
    ({"level": 5, "key": KEY, "key_index": 0}, "security.key_index", "[1, 255]"),
    ({"level": 5, "key": KEY, "nodes": [{"ids": [9]}]}, "security.nodes[0].ids[0]", "node id"),
    ({"level": 5, "key": KEY, "nodes": [{"ids": [1], "level": 4}]}, "security.nodes[0].level",
     "0-3 or 5-7"),
    ({"levl": 5}, "security.levl", "unknown key"),
])
def test_security_key_errors_name_the_key(tmp_path, security, key, expect):
    sc = outsider_scenario({})
    sc["security"] = security
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and r.stdout == "", r.stderr
    assert f"{key}: " in r.stderr and expect in r.stderr, r.stderr


RDCS = {
    "contikimac": {"rdc": {"type": "contikimac"}},
    # a secured strobe is 14 bytes longer at level 6 (448 µs): the wake-up grows to hear
    # one whole after strobe_wait_us (the loader refuses the default 6,250 µs, below)
    "xmac": {"rdc": {"type": "xmac", "on_us": 7000}},
    "lpp": {"rdc": {"type": "lpp"}},
    "leaf": {"rdc": {"type": "nullrdc"},
             "nodes": [{"ids": [1], "rdc": {"type": "parent"}},
                       {"ids": [2], "rdc": {"type": "leaf", "parent": 1, "poll_ms": 1000}}]},
}


@pytest.mark.parametrize("rdc", sorted(RDCS))
def test_every_rdc_carries_tcp_secured(tmp_path, rdc):
    """0 -> 1 -> 2 over each RDC (node 2 a sleepy leaf of node 1): TCP byte-exact with every
    frame secured and none dropped by security."""
    sc = {"name": f"llsec-{rdc}", "seed": 2, "duration_s": 60,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 40},
          "mac": {"type": "csma_ca", **RDCS[rdc]},
          "security": {"level": 6, "key": KEY},
          "flows": [{"type": "tcp", "src": 0, "dst": 2, "bytes": 3000}]}
    pcap = tmp_path / "run.pcap"
    r = run_ok(sc, tmp_path, "--pcap", str(pcap))
    f = r["flows"][0]
    assert f["complete"] and f["integrity_ok"], f
    for n in r["node_stats"]:
        assert not any(k.startswith("rx_sec") for k in n["mac"]), (n["id"], n["mac"])
    frames = read_pcap(pcap)[1:]
    assert all(m[0] & 0x08 for m in frames if m[0] & 0x07 in (1, 3))   # data, commands


def test_a_keyless_attacker_injects_and_replays_in_vain(tmp_path):
    """Node 1 lacks the network key and misbehaves (the "misbehave" key of
    sim/misbehave.c): forged frames with the pending bit, data requests from invented
    addresses, replays of what it overhears. Its victim 0 drops every one of them
    (unsecured: rx_sec_none; replayed: rx_sec_replay, or a duplicate when it repeats the
    sender's latest frame) and still gets node 2's datagrams once each."""
    sc = {"name": "llsec-attacker", "seed": 1, "duration_s": 10, "stop_when_done": False,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 5},
          "medium": {"range_m": 12},
          "security": {"level": 5, "key": KEY, "nodes": [{"ids": [1], "key": OTHER_KEY}]},
          "flows": [{"type": "udp", "src": 2, "dst": 0, "interval_s": 0.5, "count": 10,
                     "payload_bytes": 16, "start_s": 0.1}],
          "misbehave": [{"node": 1, "target": 0, "pending_every_ms": 50, "poll_every_ms": 50,
                         "replay_every_ms": 100, "start_s": 1}]}
    r = run_sim(sc, tmp_path)
    assert r.rc == 0, r.stderr
    res = r.result
    mb, mac = res["misbehave"][0], res["node_stats"][0]["mac"]
    assert mb["pending"] > 50 and mb["polls"] > 50 and mb["replays"] > 20, mb
    forged = mb["pending"] + mb["polls"]
    assert 0.9 * forged <= mac.get("rx_sec_none", 0) <= forged, (mac, mb)
    replayed = mac.get("rx_sec_replay", 0) + mac.get("rx_duplicates", 0)
    assert 0.9 * mb["replays"] <= replayed <= mb["replays"], (mac, mb)
    assert res["flows"][0]["received"] == 10 and res["flows"][0]["duplicates"] == 0
    assert mac["rx_frames"] == 10


def test_a_level_whose_strobes_do_not_fit_x_macs_wake_up_is_refused(tmp_path):
    """X-MAC's default wake-up (6,250 µs) hears a whole strobe after strobe_wait_us
    (5,468 µs) only without security: a secured strobe is refused by name."""
    sc = outsider_scenario({})
    sc["mac"] = {"rdc": {"type": "xmac"}}
    sc["security"] = {"level": 6, "key": KEY}
    r = run_sim(sc, tmp_path)
    assert r.rc == 2 and r.stdout == "", r.stderr
    assert "security.level: " in r.stderr and "fit node 0's RDC timing" in r.stderr, r.stderr
    sc["mac"]["rdc"]["on_us"] = 7000
    assert run_sim(sc, tmp_path).rc == 0


@pytest.mark.parametrize("mac", ["csma", "nullmac"])
def test_csma_and_nullmac_carry_udp_secured(tmp_path, mac):
    """The MACs without link ACKs secure and verify alike: 20 datagrams over two hops."""
    sc = {"name": f"llsec-{mac}", "seed": 2, "duration_s": 30,
          "topology": {"type": "chain", "nodes": 3, "spacing_m": 40}, "mac": {"type": mac},
          "security": {"level": 5, "key": KEY},
          "flows": [{"type": "udp", "src": 0, "dst": 2, "interval_s": 0.5, "count": 20,
                     "payload_bytes": 30}]}
    r = run_ok(sc, tmp_path)
    assert r["flows"][0]["received"] == 20
    for n in r["node_stats"]:
        assert not any(k.startswith("rx_sec") for k in n["mac"]), (n["id"], n["mac"])
