"""moteip: run the moteip stack's simulator from Python.

    import moteip
    result = moteip.run("examples/chain10-ber.toml", seed=3)
    result["flows"][0]["goodput_bps"]

    s = moteip.sweep("examples/chain10-ber.toml", vary={"medium.ber": [0, 1e-4]}, runs=5)
    for point in s["summary"]["points"]:
        print(point["params"], point["metrics"]["flows[0].goodput_bps"]["mean"])

    moteip.to_dataframe(s["summary"])   # long format, needs pandas

Everything returned is plain data (dicts, lists, numbers) as also written to
disk; the command line (`moteip --help`) is a thin layer over these calls.
"""
from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import plan as _plan
from . import scenario as _scenario
from .errors import MoteipError, RunError, ScenarioError, UsageError
from .jsontypes import JsonObj
from .metrics import from_result as result_metrics
from .plot import plot
from .scenario import Scenario
from .scenario import load as load_scenario
from .simulator import find_simulator, run_json
from .sweep import Interrupted, aggregate, load_summary, sweep

if TYPE_CHECKING:
    import pandas

__all__ = ["run", "sweep", "plot", "result_metrics", "load_scenario", "load_summary", "aggregate",
           "to_dataframe", "find_simulator", "Scenario", "MoteipError", "UsageError",
           "ScenarioError", "RunError", "Interrupted"]
__version__ = "0.2.0"


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(scenario: str | os.PathLike[str] | JsonObj | Scenario, seed: int | None = None,
        params: dict[str, Any] | None = None, pcap: str | os.PathLike[str] | None = None,
        trace: str | os.PathLike[str] | None = None, sim: str | os.PathLike[str] | None = None,
        strict: bool = False, pcap_node: int | None = None, pcap_view: str | None = None,
        log: Callable[[str], None] | None = _stderr, realtime: float | None = None,
        trace_radio: bool = False) -> JsonObj:
    """Runs one scenario (a .toml/.json path, a dict or a Scenario), with
    `params` ({key path: value}) set on top, and returns the simulator's
    result dict (schema: docs/SIMULATOR.md). Raises ScenarioError for a bad
    scenario, RunError when the simulator fails. The simulator's warnings
    (a static route out of radio range) go to `log`; `strict` makes them a
    ScenarioError. `pcap_node` captures one node's view, `pcap_view` is
    "radio" or "ip" (docs/SIMULATOR.md, Captures); `trace_radio` adds the
    radio state changes to the trace. `realtime` paces the run
    to the wall clock at that speed (1.0: real time; a scenario with a
    border router needs it), passing the simulator's stderr through."""
    return run_plan(_plan.expand(_scenario.coerce(scenario), fixed=params), seed=seed, pcap=pcap,
                    trace=trace, sim=sim, strict=strict, pcap_node=pcap_node,
                    pcap_view=pcap_view, log=log, realtime=realtime, trace_radio=trace_radio)


def run_plan(plan: _plan.Plan, seed: int | None = None, pcap: str | os.PathLike[str] | None = None,
             trace: str | os.PathLike[str] | None = None,
             sim: str | os.PathLike[str] | None = None, strict: bool = False,
             pcap_node: int | None = None, pcap_view: str | None = None,
             log: Callable[[str], None] | None = _stderr,
             realtime: float | None = None, trace_radio: bool = False) -> dict[str, Any]:
    """`run` once the scenario is loaded and expanded (moteip.plan; no
    sweep: one point, its --set keys in `plan.fixed`): checks the point,
    then runs its JSON."""
    (point,) = plan.points
    simp = pathlib.Path(sim) if sim is not None else find_simulator(build=True)
    for _, w in _plan.check(plan, simp, strict):
        if log is not None:
            log(_plan.warning_line(plan.scenario.name, w))
    return run_json(point.scenario_json, seed, simp, pcap=pcap, trace=trace,
                    name=plan.scenario.name, pcap_node=pcap_node, pcap_view=pcap_view,
                    realtime=realtime, trace_radio=trace_radio)


def to_dataframe(summary: JsonObj) -> pandas.DataFrame:
    """A summary as a pandas DataFrame: one row per point and metric, with
    the varied keys, metric, n, mean, std, ci95, min, max."""
    import pandas as pd

    rows = []
    for p in summary["points"]:
        for name, s in p["metrics"].items():
            rows.append({**p["params"], "metric": name, **s})
    return pd.DataFrame(rows)
