"""bench/footprint: the stack cross-compiles for both mote targets in both
profiles, and no module has writable static storage (data/bss)."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOOTPRINT = ROOT / "bench" / "footprint"
TARGETS = ["cortex-m0plus", "avr-atmega128"]
PROFILES = ["tiny", "full"]


def _run(*args):
    return subprocess.run([sys.executable, str(FOOTPRINT), *args], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def footprint_run():
    p = _run("--json", "-v")     # -v: the compilers' warnings on stderr
    assert p.returncode == 0, f"bench/footprint --json failed:\n{p.stderr}{p.stdout}"
    return p


@pytest.fixture(scope="module")
def footprint_json(footprint_run):
    return json.loads(footprint_run.stdout)


def test_no_compiler_warnings(footprint_run):
    """Every module compiles for both targets without a warning. avr-gcc's
    int is 16 bits, so a constant such as `2u << 16` is 0 there: until
    2026-11-25 the SYN cookies' lifetime (TCP_COOKIE_LIFE_MS) was, and a
    full-profile AVR build never accepted a cookie it had sent."""
    warnings = sorted({line for line in footprint_run.stderr.splitlines() if "warning:" in line})
    assert not warnings, "compiler warnings in the stack:\n  " + "\n  ".join(warnings)


def test_all_targets_and_profiles(footprint_json):
    for t in TARGETS:
        assert t in footprint_json, f"target {t} missing"
        for pr in PROFILES:
            assert pr in footprint_json[t], f"profile {pr} missing for {t}"
            table = footprint_json[t][pr]
            assert "total" in table, f"{t}/{pr}: no total"
            assert table["total"]["text"] > 0, f"{t}/{pr}: total text is 0"
            modules = [m for m in table if m != "total"]
            assert modules, f"{t}/{pr}: no modules"
            for key in ("text", "data", "bss"):
                assert table["total"][key] == sum(table[m][key] for m in modules)


def test_no_writable_static_storage(footprint_json):
    bad = [f"{t}/{pr}: {m}: data={s['data']} bss={s['bss']}"
           for t, byprof in footprint_json.items()
           for pr, table in byprof.items()
           for m, s in table.items()
           if s["data"] != 0 or s["bss"] != 0]
    assert not bad, "writable static storage (keep state in struct mip_stack):\n  " + \
        "\n  ".join(bad)


def test_table_mentions_both_targets():
    p = _run()
    assert p.returncode == 0, f"bench/footprint failed:\n{p.stderr}{p.stdout}"
    print(p.stdout)
    for t in TARGETS:
        assert t in p.stdout, f"table does not mention {t}"
    for pr in PROFILES:
        assert pr in p.stdout


# docs/TCP.md, "Figures": an active connection's state (struct mip_tcp_conn,
# its ring descriptors included, not the rings) under 200 bytes and a
# listening socket under 16 bytes on Cortex-M0+, in both profiles. Measured
# as docs/TCP.md does: sizeof arrays in an object, sizes from nm -S.
TCP_SIZE_PROBE = """#include "moteip/tcp.h"
char probe_conn[sizeof(struct mip_tcp_conn)];
char probe_listener[sizeof(struct mip_tcp_listener)];
"""
TCP_SIZE_LIMITS = {"probe_conn": 200, "probe_listener": 16}


@pytest.mark.parametrize("profile", PROFILES)
def test_tcp_state_sizes_m0plus(tmp_path, profile):
    src, obj = tmp_path / "probe.c", tmp_path / "probe.o"
    src.write_text(TCP_SIZE_PROBE)
    flag = "-DMOTEIP_PROFILE_FULL=1" if profile == "full" else "-DMOTEIP_PROFILE_TINY=1"
    p = subprocess.run(["arm-none-eabi-gcc", "-Os", "-mcpu=cortex-m0plus", "-mthumb",
                        "-std=c11", "-Iinclude", flag, "-fno-common", "-c", str(src),
                        "-o", str(obj)], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    p = subprocess.run(["arm-none-eabi-nm", "-S", str(obj)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    sizes = {f[3]: int(f[1], 16) for f in (line.split() for line in p.stdout.splitlines())
             if len(f) == 4}
    for name, limit in TCP_SIZE_LIMITS.items():
        assert name in sizes, f"{name} missing from nm output:\n{p.stdout}"
        assert sizes[name] < limit, \
            f"{profile}: sizeof {name[6:]} is {sizes[name]} B on Cortex-M0+, target < {limit} B"


# config.h MIP_CONF_RELAY_MODES: a build with one relay mechanism compiles
# cleanly (warnings are errors, as in CMakeLists.txt) and links none of the
# others' code: their objects are empty, and the core refers to no symbol
# of theirs.
RELAY_MECHANISMS = {2: "tss", 4: "dtc", 8: "cctrl"}


@pytest.mark.parametrize("modes", [2, 4, 8])
def test_relay_with_one_mechanism_m0plus(tmp_path, modes):
    def compile_(name):
        obj = tmp_path / f"{name}.o"
        p = subprocess.run(["arm-none-eabi-gcc", "-Os", "-mcpu=cortex-m0plus", "-mthumb",
                            "-std=c11", "-Iinclude", "-DMOTEIP_PROFILE_FULL=1",
                            f"-DMIP_CONF_RELAY_MODES={modes}", "-Wall", "-Wextra", "-Werror",
                            "-Wmissing-prototypes", "-c", f"src/relay/{name}.c", "-o", str(obj)],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert p.returncode == 0, p.stdout
        nm = subprocess.run(["arm-none-eabi-nm", str(obj)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
        return nm.stdout
    core = compile_("relay")
    for bit, name in RELAY_MECHANISMS.items():
        syms = compile_(name)
        if bit == modes:
            assert f"{name}_forward" in syms and f"{name}_poll" in syms, syms
        else:
            assert syms.strip() == "", f"{name} compiled in with modes {modes}:\n{syms}"
            assert f"U {name}_" not in core, f"the core calls {name} with modes {modes}"


def test_footprint_doc_is_current(footprint_json):
    """docs/FOOTPRINT.md's summary (written by `bench/footprint --doc
    docs/FOOTPRINT.md`) is within 3 % of the code: it once showed 20 KB for a
    full profile of 57 KB."""
    import re

    doc = (ROOT / "docs" / "FOOTPRINT.md").read_text()
    rows = dict(re.findall(r"^\| (\S+ / \S+) \| (\d+) \|", doc, re.M))
    stale = []
    for t, byprof in footprint_json.items():
        for pr, table in byprof.items():
            if "total" not in table:
                continue          # the micro profiles: a linked image, not a sum of modules
            have, doc_text = table["total"]["text"], int(rows.get(f"{t} / {pr}", 0))
            if abs(doc_text - have) > 0.03 * have:
                stale.append(f"{t} / {pr}: docs say {doc_text}, the code is {have}")
    assert stale == [], ("docs/FOOTPRINT.md is stale (run bench/footprint --doc docs/FOOTPRINT.md): "
                         + "; ".join(stale))


# config.h MIP_CONF_RDC: a build with NullRDC alone compiles none of the
# duty-cycling RDCs and no duty-cycling glue in the MAC engine; one that
# selects a single RDC compiles that one and only that one. Warnings are
# errors, as in CMakeLists.txt.
RDC_FILES = {2: "contikimac", 4: "xmac", 8: "lpp", 16: "leaf", 32: "parent"}


@pytest.mark.parametrize("rdc", [0, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("profile", ["TINY", "FULL"])
def test_mac_with_one_rdc_m0plus(tmp_path, rdc, profile):
    def syms(name):
        obj = tmp_path / f"{name}.o"
        p = subprocess.run(["arm-none-eabi-gcc", "-Os", "-mcpu=cortex-m0plus", "-mthumb",
                            "-std=c11", "-Iinclude", f"-DMOTEIP_PROFILE_{profile}=1",
                            f"-DMIP_CONF_RDC={rdc}", "-Wall", "-Wextra", "-Werror",
                            "-Wmissing-prototypes", "-c", f"src/mac/{name}.c", "-o", str(obj)],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert p.returncode == 0, p.stdout
        return subprocess.run(["arm-none-eabi-nm", str(obj)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True).stdout
    engine, null = syms("mac"), syms("nullrdc")
    assert "T mip_rdc_nullrdc" in null
    for bit, name in RDC_FILES.items():
        own = syms(name)
        if rdc & bit:
            assert f"T mip_rdc_{name}" in own
            assert f"U mip_rdc_{name}" in engine
        else:
            assert own.strip() == "", f"{name} compiled in with MIP_CONF_RDC={rdc}:\n{own}"
            assert f"mip_rdc_{name}" not in engine
    if rdc:
        assert "T mip_mac_radio_needed" in engine
    else:
        assert "mip_mac_radio_needed" not in engine and "mip_mac_rdc_timer" not in engine
    # control frames and queue surgery only for the RDCs that use them
    assert ("T mip_mac_ctl" in engine) == bool(rdc & (4 | 8))
    assert ("T mip_mac_push_front" in engine) == bool(rdc & (16 | 32))


# Issue 18: the micro profile's linked image (bench/footprint, profiles
# micro and micro6) within uIP 1.0's size as measured here with the same
# compilers (3,596 B Cortex-M0+, 3,798 B AVR), and its RAM: <= 40 B per
# connection, the packet buffer, <= 100 B besides (IPv4).
MICRO_TEXT_BUDGET = {"cortex-m0plus": 3600, "avr-atmega128": 3800}
# Met on AVR since 2026-11-25 (docs/MICRO.md, "Size": 3,784 B, from 5,026;
# 3,788 B since a new SYN may take a half-open slot) with 12 B to spare; avr-gcc 5.4 moves by tens of bytes on small edits, so
# this ceiling says when a change spends the margin (raise it knowingly).
MICRO_AVR_CEILING = 3790


@pytest.fixture(scope="module")
def micro_json():
    p = _run("--json", "--profile", "micro", "--profile", "micro6", "--profile", "micro-reass")
    assert p.returncode == 0, f"bench/footprint --profile micro failed:\n{p.stderr}{p.stdout}"
    return json.loads(p.stdout)


def test_micro_ipv4_text_m0plus(micro_json):
    r = micro_json["cortex-m0plus"]["micro"]["linked"]
    assert r["text"] <= MICRO_TEXT_BUDGET["cortex-m0plus"], r


def test_micro_ipv4_text_avr(micro_json):
    r = micro_json["avr-atmega128"]["micro"]["linked"]
    assert r["text"] <= MICRO_TEXT_BUDGET["avr-atmega128"], r


def test_micro_avr_does_not_grow(micro_json):
    assert micro_json["avr-atmega128"]["micro"]["linked"]["text"] <= MICRO_AVR_CEILING


@pytest.mark.parametrize("target", TARGETS)
def test_micro_ram(micro_json, target):
    r = micro_json[target]["micro"]["linked"]
    assert r["ram_conn"] <= 40, r
    assert r["ram_other"] <= 100, r
    assert r["ram_total"] == r["conns"] * r["ram_conn"] + r["ram_buf"] + r["ram_other"]
    for pr in ("micro", "micro6", "micro-reass"):
        s = micro_json[target][pr]["linked"]
        assert s["data"] == 0 and s["bss"] == 0, (pr, s)


@pytest.mark.parametrize("target", TARGETS)
def test_micro_reassembly_is_off_by_default(micro_json, target):
    """Issue 18 item 1: IPv4 reassembly is a switch, off by default; the
    budgets above are for the image without it (docs/MICRO.md)."""
    off, on = (micro_json[target][pr]["linked"] for pr in ("micro", "micro-reass"))
    assert off["ram_reass"] == 0 and on["ram_reass"] >= 576 - 20, (off, on)
    assert on["text"] > off["text"], (off, on)


# Issue 18 item 4: bench/tcp-image measures the TCP linked with --gc-sections
# beside its per-object sum (docs/TCP.md "What blocks 10,000 B").
def _tcp_image(*args):
    """bench/tcp-image's per-object sum and linked image (B), and its output."""
    p = subprocess.run([str(ROOT / "bench" / "tcp-image"), *args], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert p.returncode == 0, p.stdout
    words = p.stdout.split()
    return int(words[words.index("per-object") + 1]), int(words[words.index("linked") + 1]), p.stdout


@pytest.mark.parametrize("profile", ["tiny", "full"])
def test_tcp_image_agrees_with_footprint(footprint_json, profile):
    per, linked, out = _tcp_image(profile)
    row = sum(s["text"] for m, s in footprint_json["cortex-m0plus"][profile].items()
              if m.startswith("tcp/"))
    assert per == row, f"bench/tcp-image per-object {per} B, bench/footprint's tcp row {row} B"
    # Everything compiled is reachable; the image only adds alignment. In
    # tiny (MIP_TCP_SACK 0) the linked image was 784 B smaller until
    # 2026-11-25: the scoreboard and the SACK blocks were compiled, never
    # called.
    assert abs(linked - per) <= 64, out


def test_tcp_without_sack_compiles_no_sack_code():
    """Issue 18 item 4: with MIP_TCP_SACK 0 in the full profile too, no
    SACK code is compiled (the per-object sum is the linked image), and
    what goes is at least the scoreboard (tcp_sackb_*, ~560 B) and the
    receive ring's SACK-block builder."""
    per_on, _, _ = _tcp_image("full")
    per_off, linked_off, out = _tcp_image("full", "-DMIP_TCP_SACK=0")
    assert abs(linked_off - per_off) <= 64, out
    assert per_on - per_off > 700, (per_on, per_off)


# Issue 24: link-layer security (MIP_CONF_LLSEC) with the software AES, all
# it adds to the tiny profile on Cortex-M0+: llsec, AES-128, CCM*, the aux
# header codec and the engine's hooks (bench/footprint --profile
# tiny-llsec, its difference to tiny). The issue asks <= 2,000 B; measured
# 3,182 B after session 7's merges (docs/MAC.md, "Footprint of link-layer
# security"), so this is a guard against growth, not the target.
LLSEC_BUDGET_M0 = 3250


def test_llsec_cost_on_cortex_m0plus(footprint_json):
    p = _run("--json", "--target", "cortex-m0plus", "--profile", "tiny-llsec")
    assert p.returncode == 0, p.stderr
    with_llsec = json.loads(p.stdout)["cortex-m0plus"]["tiny-llsec"]["total"]["text"]
    cost = with_llsec - footprint_json["cortex-m0plus"]["tiny"]["total"]["text"]
    print(f"llsec on Cortex-M0+: {cost} B")
    assert 1000 < cost <= LLSEC_BUDGET_M0


# Issue 26: header compression (MIP_CONF_LOWPAN_HC: the UDP checksum elided
# under a link MIC, the shared port form, the TCP NHC and its contexts),
# all it adds to the tiny profile on Cortex-M0+ (bench/footprint --profile
# tiny-hc, its difference to tiny): 3,687 B measured (config.h,
# docs/LOWPAN.md); a guard against growth.
LOWPAN_HC_BUDGET_M0 = 3800


def test_lowpan_hc_cost_on_cortex_m0plus(footprint_json):
    p = _run("--json", "--target", "cortex-m0plus", "--profile", "tiny-hc")
    assert p.returncode == 0, p.stderr
    with_hc = json.loads(p.stdout)["cortex-m0plus"]["tiny-hc"]["total"]["text"]
    cost = with_hc - footprint_json["cortex-m0plus"]["tiny"]["total"]["text"]
    print(f"lowpan hc on Cortex-M0+: {cost} B")
    assert 1000 < cost <= LOWPAN_HC_BUDGET_M0


# Issue 23: RPL node + root with one mode of operation each, as the anchors
# carry (MIP_CONF_RPL_STORING / MIP_CONF_RPL_NON_STORING), Cortex-M0+ text
# of the RPL modules summed, without the counter names (bench/footprint
# --rpl; docs/RPL.md, "Sizes"): non-storing 11,794 B, storing 10,226 B,
# both 12,680 B measured. A guard against growth, and that each mode left
# out is really out.
RPL_BUDGET_M0 = {"node + root, non-storing": 11900, "node + root, storing": 10350,
                 "node + root, both (full)": 12800}


def test_rpl_one_mode_builds_on_cortex_m0plus():
    p = _run("--rpl", "--rpl-quick", "--json", "--target", "cortex-m0plus")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)["cortex-m0plus"]
    both = r["node + root, both (full)"]["sum_no_names"]
    for name, budget in RPL_BUDGET_M0.items():
        print(f"RPL {name}: {r[name]['sum_no_names']} B (linked {r[name]['linked_no_names']} B)")
        assert r[name]["linked_no_names"] <= r[name]["sum_no_names"] <= budget
    assert r["node + root, non-storing"]["sum_no_names"] < both - 500
    assert r["node + root, storing"]["sum_no_names"] < both - 2000
    # the RAM docs/RPL.md states: 24 B a neighbour (candidate parent), 40 B
    # a downward route (the non-storing root's table or a storing router's)
    for name in RPL_BUDGET_M0:
        assert (r[name]["ram_neigh"], r[name]["ram_route"]) == (24, 40), (name, r[name])


def test_cksum_thumb_loop_on_the_emulated_boards():
    """MIP_CONF_CKSUM_WIDE 2's Thumb loop (inline asm the host cannot run):
    bench/cksum-arm checks every length 0..300 at every alignment on the
    emulated Cortex-M0 and M3 (an unaligned ldmia faults there) and exits
    non-zero on a wrong sum or a fault; form 2 must also beat form 0 by half
    as much again."""
    p = subprocess.run([str(ROOT / "bench" / "cksum-arm")], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 0, p.stderr + p.stdout
    per_kb = {}
    for line in p.stdout.splitlines():
        if "WIDE=" in line:
            board = line.split()[0]
            per_kb[(board, line.split("WIDE=")[1][0])] = int(line.split()[-1])
    # Form 0 became lwIP's algorithm 2 unrolled (issue 29: 5,545 -> 1,426 on
    # the Cortex-M0, 3,236 -> 1,283 on the M3); form 2 still takes half.
    assert per_kb[("microbit", "2")] * 3 < per_kb[("microbit", "0")] * 2, p.stdout
    assert per_kb[("mps2-an385", "2")] * 3 < per_kb[("mps2-an385", "0")] * 2, p.stdout


def test_cpu_event_costs_of_the_nrf52840_are_the_cortex_m4s():
    """sim/cpu_energy.c charges the nrf52840 profile the Cortex-M4
    instructions bench/events-arm measures (bench/avr_events.c on QEMU's
    MPS2 AN386, -icount shift=0): the build for Cortex-M still runs every
    event, and the table still holds what it measures, within 10 % (the
    stack moves; a rerun of the bench updates the table and docs/BENCHMARKS.md)."""
    p = subprocess.run([str(ROOT / "bench" / "events-arm"), "--m4", "--json"], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 0, p.stderr + p.stdout
    measured = json.loads(p.stdout)["cpus"]["cortex-m4"]
    src = (ROOT / "sim" / "cpu_energy.c").read_text()
    table = src[src.index("m4_insns[SIM_CPU_EVENTS]"):]
    table = table[:table.index("};")]
    names = {"CHANNEL_CHECK": "channel_check", "FRAME_TX": "frame_tx", "FRAME_RX": "frame_rx",
             "TCP_SEG_IN": "tcp_seg_in", "TCP_SEG_OUT": "tcp_seg_out"}
    held = {names[m[0]]: int(m[1]) for m in re.findall(r"\[SIM_CPU_(\w+)\]\s*=\s*(\d+)", table)}
    assert set(held) == set(names.values()), held
    for event, n in held.items():
        got = measured[event]["per_event"]
        assert abs(got - n) <= 0.1 * n, (event, n, got)
