"""bench/footprint: the stack cross-compiles for both mote targets in both
profiles, and no module has writable static storage (data/bss)."""
import json
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
def footprint_json():
    p = _run("--json")
    assert p.returncode == 0, f"bench/footprint --json failed:\n{p.stderr}{p.stdout}"
    return json.loads(p.stdout)


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
# Not met yet on AVR (docs/MICRO.md, "Size": 4,130 B on 2026-11-25, from
# 5,026): this ceiling keeps it from growing while the budget test below is
# an expected failure.
MICRO_AVR_CEILING = 4230


@pytest.fixture(scope="module")
def micro_json():
    p = _run("--json", "--profile", "micro", "--profile", "micro6")
    assert p.returncode == 0, f"bench/footprint --profile micro failed:\n{p.stderr}{p.stdout}"
    return json.loads(p.stdout)


def test_micro_ipv4_text_m0plus(micro_json):
    r = micro_json["cortex-m0plus"]["micro"]["linked"]
    assert r["text"] <= MICRO_TEXT_BUDGET["cortex-m0plus"], r


@pytest.mark.xfail(strict=True, reason="micro IPv4 on AVR is ~4.1 KB, budget 3,800 B "
                                       "(docs/MICRO.md, Size)")
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
    for pr in ("micro", "micro6"):
        s = micro_json[target][pr]["linked"]
        assert s["data"] == 0 and s["bss"] == 0, (pr, s)
