"""From a loaded scenario to the runs to make, in one pass.

Every command that runs something goes the same way, once per scenario:

    scenario.load(path)        TOML or JSON syntax, the front end's own keys
                               (description, [sweep]), values JSON cannot carry
        |
    expand(sc, vary, fixed)    -> Plan: --set applied once; then one Point per
                               combination of the varied values, its scenario
                               JSON built here and never again; its id a hash
                               of that JSON, the parameters and the simulator
        |
    check(plan, sim)           --set checked by `moteip-sim --check` (so its
                               errors name --set), then every distinct point
                               once, before anything runs; the warnings come
                               back with the point that gave them
        |
    run                        `moteip run` hands its one point's JSON to the
                               simulator (moteip.run); `moteip sweep` and
                               `moteip reproduce` pair every point with every
                               seed (a Task) and run those (sweep.sweep);
                               `moteip check` stops before this step

Nothing goes back: the JSON a point was checked with is the JSON it runs
with and the JSON written to the sweep's scenarios/ directory.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import dataclass
from typing import Any

from .jsontypes import JsonObj
from .scenario import Scenario, apply, validate


@dataclass(frozen=True)
class Point:
    """One scenario of a sweep: the varied `params` ({canonical key: value})
    set on the scenario (with --set applied), as the JSON the simulator
    gets. `id` names its files in a sweep directory."""

    id: str
    params: dict[str, Any]
    scenario_json: str


@dataclass(frozen=True)
class Task:
    """A run plan: one point with one seed."""

    point: Point
    seed: int

    @property
    def run_id(self) -> str:
        return f"{self.point.id}-s{self.seed}"


def _point(data: JsonObj, params: dict[str, Any], sim_id: str) -> Point:
    text = json.dumps(data, sort_keys=True)
    h = hashlib.sha256((text + "\n" + json.dumps(params, sort_keys=True) + "\n" + sim_id).encode())
    return Point(h.hexdigest()[:12], params, text)


@dataclass(frozen=True)
class Plan:
    """What a scenario expands to: its points, and the scenario with
    `fixed` (--set) applied as JSON when anything was fixed (checked on its
    own, so an error there names --set)."""

    scenario: Scenario
    fixed: dict[str, Any]
    vary: dict[str, list[Any]]
    points: list[Point]
    fixed_json: str | None = None

    def tasks(self, seeds: list[int]) -> list[Task]:
        """Every point with every seed (common random numbers), point by point."""
        return [Task(p, s) for p in self.points for s in seeds]


def expand(sc: Scenario, vary: dict[str, list[Any]] | None = None,
           fixed: dict[str, Any] | None = None, sim_id: str = "") -> Plan:
    """One point per combination of the varied values, in the order given
    (the last key varies fastest), on top of the scenario with `fixed` set
    (a varied key overrides a fixed one). Keys are canonical. A value
    listed twice is one point, not two sharing (and counting twice) the
    same runs. Raises UsageError naming --set or --vary for a key the
    scenario cannot take (an index past the end of an array)."""
    fixed = fixed or {}
    vary = vary or {}
    base = apply(sc.data, fixed, "--set") if fixed else sc.data
    keys = list(vary)
    points: list[Point] = []
    seen: set[str] = set()
    # an error names where the key was varied: the scenario's [sweep].vary or --vary
    origin = {k: f"{sc.name}: sweep.vary" if sc.sweep.vary.get(k) == vary[k] else "--vary"
              for k in keys}
    for combo in itertools.product(*(vary[k] for k in keys)):
        params = dict(zip(keys, combo, strict=True))
        data = base
        for k, v in params.items():
            data = apply(data, {k: v}, origin[k])
        p = _point(data, params, sim_id)
        if p.id not in seen:
            seen.add(p.id)
            points.append(p)
    return Plan(sc, fixed, vary, points, json.dumps(base, sort_keys=True) if fixed else None)


def check(plan: Plan, sim: str | os.PathLike[str],
          strict: bool = False) -> list[tuple[Point, str]]:
    """Checks a plan before anything runs, each distinct scenario JSON once
    with the simulator's loader: the scenario with --set applied first,
    then each point. Raises ScenarioError naming the file, the key and the
    parameters that were set. Returns (point, warning) for every warning of
    every point, in point order."""
    sc = plan.scenario
    done: dict[str, list[str]] = {}
    if plan.fixed_json is not None:
        done[plan.fixed_json] = validate(sc, sim, plan.fixed, "--set", strict, plan.fixed_json)
    found: list[tuple[Point, str]] = []
    for p in plan.points:
        if p.scenario_json not in done:
            done[p.scenario_json] = validate(sc, sim, p.params, "--vary", strict, p.scenario_json)
        found += [(p, w) for w in done[p.scenario_json]]
    return found


def warning_line(name: str, warning: str, params: dict[str, Any] | None = None) -> str:
    """'warning: KEY: text' as logged: 'warning: FILE: KEY: text', and the
    point's parameters when there are any."""
    kind, _, text = warning.partition(": ")
    return f"{kind}: {name}: {text}" + (f" (with {params_text(params)})" if params else "")


def params_text(params: dict[str, Any], limit: int = 0) -> str:
    """k=v pairs of a point; with a limit, longer values are cut to it (a
    progress line need not carry a whole flows list)."""
    def value(v: Any) -> str:
        t = json.dumps(v)
        return t if not limit or len(t) <= limit else t[:limit - 3] + "..."
    return " ".join(f"{k}={value(v)}" for k, v in params.items()) or "(base)"
