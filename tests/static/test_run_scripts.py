"""The board scripts print the commands that reach the firmware they boot: IPv6 for the
tiny firmware, IPv4 for the micro profile's (a new user got IPv4 commands for the default
IPv6 firmware, because "moteip-microbit.elf" matched the pattern *micro*)."""
from __future__ import annotations

import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("elf", "family"), [
    ("build-microbit/port/microbit/moteip-microbit.elf", "-6"),
    ("build-microbit/port/microbit/moteip-microbit-micro.elf", "-4"),
    ("/somewhere/else/moteip-microbit.elf", "-6"),
])
def test_microbit_run_sh_prints_commands_for_the_firmware_it_boots(elf, family):
    p = subprocess.run(["bash", str(ROOT / "port/microbit/run.sh"), "--hints", elf],
                       capture_output=True, text=True, timeout=10, check=False)
    assert p.returncode == 0, p.stderr
    pings = [line for line in p.stdout.splitlines() if " ping " in line]
    assert len(pings) == 1 and f"ping {family} " in pings[0], p.stdout
    other = "-4" if family == "-6" else "-6"
    assert f" {other} " not in p.stdout, p.stdout
