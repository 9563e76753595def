"""bench/sim-speed --scale on small sizes: the generated networks run, their
reports arrive, set-up and run are timed apart with growth exponents, and the
memory per node is the build's sizeof(struct sim_node). The 100,000-node run
itself is a benchmark (docs/BENCHMARKS.md), not a test."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from simrun import sim_binary

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_scale_reports_setup_run_memory_and_exponents():
    env = dict(os.environ, MOTEIP_BUILD_DIR=str(sim_binary().parent))
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "sim-speed"), "--scale", "--node",
                        "full", "--sizes", "300,3000", "--duration", "120", "--json"],
                       capture_output=True, text=True, env=env, timeout=300, check=False)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["nodes"] for r in rows] == [300, 3000]
    for r in rows:
        # every tenth node reports to its nearest sink (sinks, one per km^2, do not)
        assert r["nodes"] / 10 - 4 <= r["flows"] <= r["nodes"] / 10
        assert r["reports_sent"] > 0 and r["reports_received"] >= 0.9 * r["reports_sent"]
        assert r["setup_s"] > 0 and r["run_s"] >= 0 and r["setup_cpu_s"] > 0
    # at 3000 nodes the nodes are most of the memory (the pages of a node's
    # buffers that it never writes, in the arena beside the nodes, are not
    # resident)
    assert 0.6 * rows[1]["node_bytes"] < rows[1]["rss_per_node"] < 1.5 * rows[1]["node_bytes"]
    assert "setup_s_exp" in rows[1] and "run_cpu_s_exp" in rows[1]
    assert "setup_s_exp" not in rows[0]


def test_scale_rejects_bad_sizes():
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "sim-speed"), "--scale", "--sizes",
                        "1000,x"], capture_output=True, text=True, timeout=60, check=False)
    assert p.returncode == 2 and "--sizes: expected comma-separated integers" in p.stderr
