"""docs/TUTORIAL.md works as written: its TOML file is written, then every
`$ moteip ...` line of its console blocks runs, in order, in one fresh
directory; each must exit 0, print what the tutorial shows under it (when it
shows anything), and leave the files the prose names."""
from __future__ import annotations

import pathlib
import re
import shlex
import subprocess

from conftest import MOTEIP, ROOT, make_env

DOC = ROOT / "docs" / "TUTORIAL.md"


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)


def test_tutorial_commands_run_in_order(tmp_path):
    text = DOC.read_text()
    tomls = [b for lang, b in blocks(text) if lang == "toml"]
    assert len(tomls) == 1
    name = re.match(r"# (\S+\.toml)", tomls[0]).group(1)
    (tmp_path / name).write_text(tomls[0])
    commands = 0
    for lang, body in blocks(text):
        if lang != "console":
            continue
        lines = body.splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("$ "):
                continue
            argv = shlex.split(line[2:])
            assert argv[0] == "moteip", line
            p = subprocess.run([*MOTEIP, *argv[1:]], cwd=tmp_path, capture_output=True, text=True,
                               env=make_env(), timeout=300)
            assert p.returncode == 0, f"{line}\n{p.stdout}\n{p.stderr}"
            shown = []
            for nxt in lines[i + 1:]:
                if nxt.startswith("$ "):
                    break
                shown.append(nxt)
            for s in shown:
                assert s in p.stdout, (line, s, p.stdout)
            commands += 1
    assert commands >= 9
    # the files the prose promises
    for f in ["out/first/run-seed1.json", "first.html", "first.pcap", "out/first/summary.csv",
              "out/first/flows0.goodput_bps-vs-medium.ber.png", "out/first/totals.energy_j-vs-medium.ber.png",
              "out/first-10k/summary.json"]:
        assert (tmp_path / f).is_file(), f
    assert (tmp_path / "out/first/flows0.goodput_bps-vs-medium.ber.png").read_bytes()[:4] == b"\x89PNG"
    runs = list((tmp_path / "out" / "first" / "runs").glob("*.json"))
    assert len(runs) == 4 * 5


def test_tutorial_names_only_existing_files_and_commands():
    text = DOC.read_text()
    for doc in re.findall(r"docs/[A-Z]+\.md", text):
        assert (ROOT / doc).is_file(), doc
    assert (ROOT / "tests" / "tool" / pathlib.Path(__file__).name).is_file()
