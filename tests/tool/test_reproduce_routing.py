"""`moteip reproduce rpl-repair`: a node on a running TCP flow's path dies;
the ideal routing arm at several repair delays and no repair at all."""
from __future__ import annotations

import json


def test_rpl_repair_stall_grows_with_the_repair_delay(cli, tmp_path):
    r = cli("reproduce", "rpl-repair", "--runs", "1", "--out", "rep", timeout=300)
    assert r.rc == 0, r
    s = json.loads((tmp_path / "rep" / "summary.json").read_text())
    by = {p["params"]["arm"]: p["metrics"] for p in s["points"]}
    w = "scenario_events[0].flows[0]."
    for arm in ("ideal-0s", "ideal-1s", "ideal-5s", "ideal-30s"):
        assert by[arm]["flows[0].complete"]["mean"] == 1, arm
        assert by[arm]["flows[0].bytes_delivered"]["mean"] == 60000, arm
    # the stall covers the repair delay, and the sender's RTOs grow with it
    stall = [by[a][w + "stall_s"]["mean"] for a in ("ideal-1s", "ideal-5s", "ideal-30s")]
    assert stall[0] > 1 and stall[1] > 5 and stall[2] > 30
    rtos = [by[a][w + "rto_timeouts"]["mean"] for a in ("ideal-1s", "ideal-5s", "ideal-30s")]
    assert rtos == sorted(rtos) and rtos[0] >= 1
    # without a repair TCP gives up: incomplete, never resumed
    assert by["no-repair"]["flows[0].complete"]["mean"] == 0
    assert w + "resumed_after_s" not in by["no-repair"]
    assert by["no-repair"][w + "stall_s"]["mean"] > 100
    assert "no-repair" in r.stdout and "never (0/1)" in r.stdout
