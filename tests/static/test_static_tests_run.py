"""Every file of tests/static is run by some part of scripts/test.sh: the other
test folders are collected whole, but tests/static is named file by file, and
test_run_scripts.py was written (issue 28) and then never run by CI."""
from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_static_test_is_named_in_test_sh():
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    missing = [p.name for p in sorted((ROOT / "tests" / "static").glob("test_*.py"))
               if f"tests/static/{p.name}" not in script]
    assert not missing, f"not run by scripts/test.sh: {missing}"
