"""Every program the tests call is installed by scripts/setup.sh.

The interop tests called curl, which setup.sh did not install: on a minimal
Debian 12 nine of them failed. This test finds the programs the tests and
benchmarks run (a string literal naming one, as a command or its path) and
requires the Debian package of each in setup.sh's PACKAGES list, and the
program on the PATH (setup.sh has run before the tests).
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: program -> the Debian package that brings it (Debian 12)
TOOLS = {
    "curl": "curl", "nc": "netcat-openbsd", "ping": "iputils-ping", "ip": "iproute2",
    "tshark": "tshark", "tcpdump": "tcpdump", "jq": "jq", "valgrind": "valgrind",
    "chromium": "chromium", "chromedriver": "chromium-driver", "cmake": "cmake",
    "ninja": "ninja-build", "nm": "binutils", "clang": "clang", "arm-none-eabi-gcc": "gcc-arm-none-eabi",
    "avr-gcc": "gcc-avr", "avr-nm": "binutils-avr", "avr-size": "binutils-avr",
    "qemu-system-arm": "qemu-system-arm", "node": "nodejs", "npm": None,   # npm: nodejs or Debian's npm, setup.sh checks
    "setpriv": "util-linux",
}

#: where tests and the scripts they run live
SOURCES = [*ROOT.glob("tests/**/*.py"), *ROOT.glob("bench/*"), ROOT / "fuzz" / "run.sh",
           ROOT / "scripts" / "test.sh", ROOT / "scripts" / "vendor-js.sh"]


def called(tool: str, text: str) -> bool:
    q = re.escape(tool)
    # "tool" as a string (not a dict key such as e["node"]), or its /usr/bin path;
    # shell scripts: the word at the start of a command
    return bool(re.search(rf'(?<![\w\]\)]\[)(?<!get\()"{q}"|"/usr/bin/{q}"|(^\s*|[;&|(]\s*){q}\s', text, re.M))


def setup_packages() -> set[str]:
    text = (ROOT / "scripts" / "setup.sh").read_text()
    body = re.search(r"^PACKAGES=\((.*?)^\)", text, re.S | re.M).group(1)
    return {w for line in body.splitlines() for w in line.split("#")[0].split()}


def used_tools() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in SOURCES:
        if not f.is_file() or f.name == Path(__file__).name:
            continue
        text = f.read_text(errors="replace")
        for tool in TOOLS:
            if called(tool, text):
                out.setdefault(tool, []).append(str(f.relative_to(ROOT)))
    return out


@pytest.mark.parametrize("text, tool, expected", [
    ('cmd = ["curl", "-sS", url]', "curl", True),
    ('subprocess.run(["ip", "netns", "exec", ns, "nc", "-N"])', "nc", True),
    ('for exe in ("/usr/bin/chromium", "/usr/bin/chromedriver"):', "chromedriver", True),
    ('nodes = [e["node"] for e in events]', "node", False),
    ('d.get("node")', "node", False),
    ('  npm ci --no-audit', "npm", True),
    ("echo nothing here", "curl", False),
])
def test_the_finder_finds_commands_not_keys(text, tool, expected):
    assert called(tool, text) is expected


def test_every_tool_the_tests_call_is_installed_by_setup():
    pkgs = setup_packages()
    used = used_tools()
    assert "curl" in used and "tshark" in used and "chromium" in used   # the finder works here
    missing = {t: (TOOLS[t], files[:3]) for t, files in used.items()
               if TOOLS[t] is not None and TOOLS[t] not in pkgs}
    assert missing == {}, f"called by the tests but not installed by scripts/setup.sh: {missing}"


def test_every_tool_the_tests_call_is_on_the_path():
    absent = [t for t in used_tools() if shutil.which(t) is None]
    assert absent == [], f"not on the PATH (run scripts/setup.sh): {absent}"


# --- Python tools: the test command runs them from the venv, which setup.sh fills from
# requirements-dev.txt -----------------------------------------------------------------------

def venv_modules(text: str) -> set[str]:
    """Modules a script runs with the venv's interpreter ("$VENV_PY" -m NAME)."""
    return set(re.findall(r'"\$VENV_PY"\s+-m\s+([\w.]+)', text))


def requirements() -> set[str]:
    """Distributions requirements-dev.txt names, normalised (pytest-timeout: pytest_timeout)."""
    names = set()
    for line in (ROOT / "requirements-dev.txt").read_text().splitlines():
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9_.-]*)", line.split("#")[0])
        if m and not line.lstrip().startswith("-"):
            names.add(re.sub(r"[-.]+", "_", m.group(1)).lower())
    return names


def test_the_module_finder_reads_test_sh_calls():
    text = '"${prefix[@]}" "$VENV_PY" -m pytest -q\nrun_check ruff "$VENV_PY" -m ruff check x\n'
    assert venv_modules(text) == {"pytest", "ruff"}


def test_every_python_tool_the_test_command_runs_is_in_requirements_dev():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert "pip install" in setup and "requirements-dev.txt" in setup
    mods = venv_modules((ROOT / "scripts" / "test.sh").read_text())
    assert {"pytest", "ruff", "mypy"} <= mods   # the finder works here
    missing = sorted(mods - requirements())
    assert missing == [], f"run by scripts/test.sh but not in requirements-dev.txt: {missing}"
