"""Scenarios: TOML (or JSON) files in, the simulator's JSON out.

A TOML scenario is the simulator's JSON schema (docs/SIMULATOR.md) written as
TOML -- the same keys, `[[flows]]` for the array of flows -- plus two keys of
the front end's own that never reach the simulator:

    description = "one line shown by `moteip reproduce --list` and in tables"

    [sweep]                       # defaults for `moteip sweep`
    runs = 10                     # seeds per point: seed, seed+1, ...
    vary = { "medium.ber" = [0, 1e-5, 1e-4], "topology.nodes" = [3, 6] }
    table = ["flows[0].goodput_bps", "totals.energy_j"]   # printed columns

The schema itself is defined once, by the simulator's loader: a scenario is
validated by `moteip-sim --check`, whose message names the key
(`chain.toml: flows[0].dst: expected an integer node id 0..10 or "last", got
12`). This module catches what the simulator cannot see: TOML syntax, TOML
values that JSON cannot carry (dates, NaN), the `[sweep]` table and `--vary`
keys.

Keys are paths: `medium.ber`, `flows[0].dst` (`flows.0.dst` is the same key).

Loading is the first step of the one pass every command takes; expanding
the sweep into points, checking them and running them is moteip.plan's.
"""
from __future__ import annotations

import copy
import datetime
import json
import math
import os
import pathlib
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from .errors import ScenarioError, UsageError
from .jsontypes import JsonObj

#: Top-level keys of the front end, removed before the simulator sees a scenario.
TOOL_KEYS = ("description", "sweep")
SWEEP_KEYS = ("runs", "vary", "table")
#: The largest seed: the simulator's range for the scenario's `seed` and for --seed
#: (sim/scenario.c, sim/main.c), so every command takes the same seeds.
SEED_MAX = 2**63 - 1



# --- key paths ---------------------------------------------------------------------

#: A parsed key: names of tables and indexes of arrays, ('flows', 0, 'dst').
KeyPath = tuple[str | int, ...]

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\.[0-9]+|\[[0-9]+\])*\Z")
_KEY_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\.([0-9]+)|\[([0-9]+)\]")


def parse_key(key: str) -> KeyPath:
    """'flows[0].dst' or 'flows.0.dst' -> ('flows', 0, 'dst'). Raises
    UsageError for anything else."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise UsageError(f"key {key!r}: expected a dotted path such as medium.ber or flows[0].dst")
    return tuple(name if name else int(dot or idx) for name, dot, idx in _KEY_PART.findall(key))


def key_str(parts: KeyPath) -> str:
    """('flows', 0, 'dst') -> 'flows[0].dst' (the simulator's spelling)."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + p
    return out


def canonical_key(key: str) -> str:
    return key_str(parse_key(key))


def get_key(data: Any, parts: KeyPath, default: Any = None) -> Any:
    cur = data
    for p in parts:
        if isinstance(p, int):
            if not isinstance(cur, list) or p >= len(cur):
                return default
            cur = cur[p]
        else:
            if not isinstance(cur, dict) or p not in cur:
                return default
            cur = cur[p]
    return cur


def set_key(data: JsonObj, parts: KeyPath, value: Any, origin: str) -> None:
    """Sets a value at a key path, creating missing tables on the way; an
    array index must exist. `origin` names where the key came from, for the
    error message."""
    cur: Any = data
    for i, p in enumerate(parts):
        last = i == len(parts) - 1
        where = key_str(parts[: i + 1])
        if isinstance(p, int):
            if not isinstance(cur, list):
                raise UsageError(f"{origin}: {where}: {key_str(parts[:i])} is not an array")
            if p >= len(cur):
                raise UsageError(f"{origin}: {where}: the scenario's {key_str(parts[:i])} has "
                                 f"{len(cur)} element{'s' if len(cur) != 1 else ''}")
            if last:
                cur[p] = value
            else:
                cur = cur[p]
        else:
            if not isinstance(cur, dict):
                raise UsageError(f"{origin}: {where}: {key_str(parts[:i])} is not a table")
            if last:
                cur[p] = value
            else:
                if p not in cur:
                    cur[p] = [] if isinstance(parts[i + 1], int) else {}
                cur = cur[p]


def apply(data: dict[str, Any], params: dict[str, Any], origin: str) -> dict[str, Any]:
    """A copy of scenario `data` with each key path of `params` set to its
    value (`origin`, --set or --vary, names them in an error)."""
    out = copy.deepcopy(data)
    for k, v in params.items():
        set_key(out, parse_key(k), v, origin)
    return out


# --- values ----------------------------------------------------------------------------

def parse_value(text: str) -> Any:
    """A --vary value: a TOML number, boolean or quoted string, else the bare
    text as a string (so `model=unit_disk` works unquoted)."""
    t = text.strip()
    if t == "":
        raise UsageError("empty value")
    try:
        return tomllib.loads(f"v = {t}")["v"]
    except tomllib.TOMLDecodeError:
        return t


def parse_vary(spec: str) -> tuple[str, list[Any]]:
    """'medium.ber=0,1e-5,1e-4' -> ('medium.ber', [0, 1e-05, 0.0001]);
    'topology.nodes=2..5' -> ('topology.nodes', [2, 3, 4, 5])."""
    if "=" not in spec:
        raise UsageError(f"--vary {spec!r}: expected KEY=V1,V2,... (e.g. medium.ber=0,1e-5)")
    key, _, vals = spec.partition("=")
    key = canonical_key(key.strip())
    m = re.fullmatch(r"\s*(-?\d+)\.\.(-?\d+)\s*", vals)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        if b < a:
            raise UsageError(f"--vary {spec!r}: empty range {a}..{b}")
        return key, list(range(a, b + 1))
    try:
        values = [parse_value(v) for v in vals.split(",")]
    except UsageError:
        raise UsageError(f"--vary {spec!r}: expected KEY=V1,V2,... with no empty value") from None
    return key, values


def _check_json_values(value: Any, path: KeyPath, name: str) -> None:
    """TOML values JSON cannot carry are errors here, not in the simulator."""
    if isinstance(value, dict):
        for k, v in value.items():
            _check_json_values(v, path + (k,), name)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_json_values(v, path + (i,), name)
    elif isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
        raise ScenarioError(f"{name}: {key_str(path)}: expected a number, string, boolean, "
                            f"table or array, got the TOML date/time {value}")
    elif isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{name}: {key_str(path)}: expected a finite number, got {value}")


# --- the scenario ----------------------------------------------------------------------

@dataclass
class SweepDefaults:
    runs: int | None = None
    vary: dict[str, list[Any]] = field(default_factory=dict)
    table: list[str] = field(default_factory=list)


@dataclass
class Scenario:
    """A loaded scenario: `data` is what the simulator gets (before any
    sweep parameters), `name` is the file it came from (for messages)."""

    data: JsonObj
    name: str
    description: str = ""
    sweep: SweepDefaults = field(default_factory=SweepDefaults)

    @property
    def stem(self) -> str:
        return pathlib.Path(self.name).stem if self.name else "scenario"

    @property
    def base_seed(self) -> int:
        s = self.data.get("seed", 1)
        return s if isinstance(s, int) and not isinstance(s, bool) else 1

    def with_params(self, params: dict[str, Any], origin: str = "--vary") -> dict[str, Any]:
        """A copy of `data` with each key path set to its value."""
        return apply(self.data, params, origin)

    def to_json(self, params: dict[str, Any] | None = None, origin: str = "--vary") -> str:
        return json.dumps(self.with_params(params or {}, origin), sort_keys=True)


def _sweep_defaults(raw: Any, name: str) -> SweepDefaults:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{name}: sweep: expected a table, got {type(raw).__name__}")
    for k in raw:
        if k not in SWEEP_KEYS:
            raise ScenarioError(f"{name}: sweep.{k}: unknown key; known keys here: "
                                f"{', '.join(SWEEP_KEYS)}")
    sd = SweepDefaults()
    if "runs" in raw:
        r = raw["runs"]
        if not isinstance(r, int) or isinstance(r, bool) or r < 1:
            raise ScenarioError(f"{name}: sweep.runs: expected an integer >= 1, got {r!r}")
        sd.runs = r
    if "vary" in raw:
        v = raw["vary"]
        if not isinstance(v, dict):
            raise ScenarioError(f"{name}: sweep.vary: expected a table of key = [values], "
                                f"got {type(v).__name__}")
        for k, vals in v.items():
            try:
                ck = canonical_key(k)
            except UsageError as e:
                raise ScenarioError(f"{name}: sweep.vary: {e}") from None
            if not isinstance(vals, list) or not vals:
                raise ScenarioError(f"{name}: sweep.vary.{k}: expected a non-empty array of values, "
                                    f"got {vals!r}")
            sd.vary[ck] = vals
    if "table" in raw:
        t = raw["table"]
        if not isinstance(t, list) or not all(isinstance(x, str) for x in t):
            raise ScenarioError(f"{name}: sweep.table: expected an array of metric names, got {t!r}")
        try:
            sd.table = [canonical_key(x) for x in t]
        except UsageError as e:
            raise ScenarioError(f"{name}: sweep.table: {e}") from None
    return sd


def from_dict(raw: JsonObj, name: str = "scenario") -> Scenario:
    """A scenario from a dict (the parsed TOML or JSON; not validated by the
    simulator yet: see `validate`)."""
    if not isinstance(raw, dict):
        raise ScenarioError(f"{name}: expected a table of scenario keys, got {type(raw).__name__}")
    data = copy.deepcopy(raw)
    _check_json_values(data, (), name)
    desc = data.pop("description", "")
    if not isinstance(desc, str):
        raise ScenarioError(f"{name}: description: expected a string, got {desc!r}")
    sweep = _sweep_defaults(data.pop("sweep"), name) if "sweep" in data else SweepDefaults()
    return Scenario(data=data, name=name, description=desc, sweep=sweep)


def load(path: str | os.PathLike[str]) -> Scenario:
    """Reads a .toml or .json scenario file. Raises ScenarioError naming the
    file (and line, for syntax errors)."""
    p = pathlib.Path(path)
    name = str(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise ScenarioError(f"{name}: no such file") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{name}: cannot read the scenario: {e}") from None
    if p.suffix == ".json":
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as e:
            raise ScenarioError(f"{name}: JSON syntax error: {e.msg} (line {e.lineno}, "
                                f"column {e.colno})") from None
    else:
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"{name}: TOML syntax error: {e}") from None
    return from_dict(raw, name)


def coerce(scenario: Scenario | JsonObj | str | os.PathLike[str]) -> Scenario:
    """A Scenario from whatever the API was given: a Scenario, a dict or a path."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return from_dict(scenario, "scenario")
    return load(scenario)


def validate(sc: Scenario, sim: str | os.PathLike[str], params: dict[str, Any] | None = None,
             origin: str = "--vary", strict: bool = False,
             scenario_json: str | None = None) -> list[str]:
    """Validates the scenario (with sweep parameters applied) with the
    simulator's loader; the error names the sweep parameters that were set.
    `origin` is where the parameters came from: "--vary" (a sweep) or
    "--set" (a single run). `scenario_json` is the scenario with them
    applied when the caller has it already (moteip.plan). Returns the
    simulator's warnings ("warning: ..."), which `strict` turns into a
    ScenarioError."""
    from .simulator import check

    params = params or {}
    text = scenario_json if scenario_json is not None else sc.to_json(params, origin)
    try:
        for k, v in params.items():  # NaN, dates: as for a TOML value, not a JSON syntax error
            _check_json_values(v, parse_key(k), sc.name)
        return check(text, sc.name, sim, strict)
    except ScenarioError as e:
        if params:
            shown = ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items())
            source = "the sweep" if origin == "--vary" else origin
            raise ScenarioError(f"{e} (with {shown} from {source})") from None
        raise
