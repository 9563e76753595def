"""Where the simulator comes from: $MOTEIP_SIM, else the checkout's build
directory brought up to date with cmake --build, else the PATH.

The rest of the suite runs with MOTEIP_SIM set (conftest.py); here it is
unset, and find_simulator(build=True) runs `cmake --build` on the real
$MOTEIP_BUILD_DIR (a no-op when the build is current)."""
from __future__ import annotations

import os
import pathlib

import pytest

from moteip import RunError, find_simulator
from moteip.simulator import REPO_ROOT


def test_build_path_returns_the_build_dirs_simulator(monkeypatch, build_dir, repo_root):
    assert REPO_ROOT == repo_root  # an editable install from this checkout
    monkeypatch.delenv("MOTEIP_SIM", raising=False)
    monkeypatch.setenv("MOTEIP_BUILD_DIR", str(build_dir))
    lines = []
    sim = find_simulator(build=True, log=lines.append)
    assert sim == build_dir / "moteip-sim"
    assert sim.is_file() and os.access(sim, os.X_OK)
    # a log line only when something was (re)built
    assert all(line.startswith(f"built moteip-sim in {build_dir} (") for line in lines), lines


def test_no_build_returns_the_build_dirs_simulator(monkeypatch, build_dir):
    monkeypatch.delenv("MOTEIP_SIM", raising=False)
    monkeypatch.setenv("MOTEIP_BUILD_DIR", str(build_dir))
    assert find_simulator(build=False) == build_dir / "moteip-sim"


def test_no_build_in_an_empty_build_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("MOTEIP_SIM", raising=False)
    monkeypatch.setenv("MOTEIP_BUILD_DIR", str(tmp_path))
    with pytest.raises(RunError) as ei:
        find_simulator(build=False)
    assert str(ei.value).startswith(f"{tmp_path / 'moteip-sim'} is missing: build it with `cmake -S ")
    assert str(ei.value).endswith("--target moteip-sim`, or set MOTEIP_SIM")


def test_moteip_sim_wins(monkeypatch, sim_path, tmp_path):
    monkeypatch.setenv("MOTEIP_SIM", str(sim_path))
    monkeypatch.setenv("MOTEIP_BUILD_DIR", str(tmp_path))  # never looked at
    assert find_simulator(build=True) == pathlib.Path(sim_path)
    assert list(tmp_path.iterdir()) == []


def test_moteip_sim_not_executable(monkeypatch, tmp_path):
    monkeypatch.setenv("MOTEIP_SIM", str(tmp_path))  # a directory
    with pytest.raises(RunError, match=rf"^MOTEIP_SIM={tmp_path}: not an executable file$"):
        find_simulator()


def test_build_dir_of_another_generator(monkeypatch, tmp_path):
    monkeypatch.delenv("MOTEIP_SIM", raising=False)
    monkeypatch.setenv("MOTEIP_BUILD_DIR", str(tmp_path))
    (tmp_path / "CMakeCache.txt").write_text("CMAKE_GENERATOR:INTERNAL=Unix Makefiles\n")
    with pytest.raises(RunError) as ei:
        find_simulator(build=True)
    assert str(ei.value) == (f"{tmp_path} was configured with another generator than Ninja; remove it or "
                             f"point MOTEIP_BUILD_DIR elsewhere")
