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
