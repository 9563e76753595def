"""Simulator tests: moteip-sim as a black box (scenario in, JSON out)."""
from __future__ import annotations

import sys
import pathlib

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from simrun import sim_binary  # noqa: E402


@pytest.fixture(autouse=True)
def _need_binary():
    if not sim_binary().exists():
        pytest.fail(f"{sim_binary()} is missing: build the full profile first")
