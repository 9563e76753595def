"""Registered experiments: `moteip reproduce NAME`.

An experiment is a scenario in `examples/` with a sweep, a report that sets
the simulator's numbers beside the published (or analytic) ones, and plots.
Everything goes to `out/NAME/`: the sweep directory (runs, results,
summary.csv/json), `report.txt` (the printed table) and the PNGs.

Modules register their experiments at import (`register`); this package
imports them all below.
"""
from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import MissingExtra, UsageError
from ..jsontypes import JsonObj
from ..plot import plot
from ..scenario import load
from ..sweep import sweep, write_json_atomic, write_summary_csv
from ..table import render

#: The scenarios: package data (python/moteip/examples, a link to the
#: repository's examples/ that a wheel holds as files), or $MOTEIP_EXAMPLES.
EXAMPLES = pathlib.Path(os.environ.get("MOTEIP_EXAMPLES",
                                       pathlib.Path(__file__).resolve().parents[1] / "examples"))


#: the configurations an experiment compares: (label, {key: value} it sets)
Arms = list[tuple[str, JsonObj]]


@dataclass
class Report:
    """What `moteip reproduce` prints: a title line, a table, and notes."""

    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)


@dataclass
class PlotSpec:
    file: str
    x: str
    y: str
    hue: str | None = None
    logx: bool = False
    logy: bool = False
    ylabel: str | None = None
    xlabel: str | None = None
    #: summary -> {x value: published y} for a dashed reference line
    reference: Callable[[JsonObj], dict[Any, float]] | None = None
    reference_label: str = "published / analytic"
    #: fixes keys the summary varies beside x and hue ({key: value})
    where: JsonObj | None = None


@dataclass
class Experiment:
    name: str
    title: str
    source: str
    scenario: str  # a file in examples/
    runs: int
    report: Callable[[JsonObj], Report]
    vary: dict[str, list[Any]] | None = None  # None: the scenario's [sweep].vary
    metrics_fn: Callable[[JsonObj, JsonObj], JsonObj] | None = None
    plots: list[PlotSpec] = field(default_factory=list)
    #: configurations compared, each a label and the keys it sets: one sweep
    #: per arm (out/NAME/LABEL/), merged into one summary with an "arm" key
    arms: Arms | None = None
    #: (summary, out dir) -> paths of plots the PlotSpecs cannot draw (time
    #: series, distributions), made from the raw results in the out dir
    figures: Callable[[JsonObj, pathlib.Path], list[str]] | None = None


_REGISTRY: dict[str, Experiment] = {}


def register(e: Experiment) -> Experiment:
    if e.name in _REGISTRY:
        raise ValueError(f"experiment {e.name} registered twice")
    _REGISTRY[e.name] = e
    return e


def all_experiments() -> list[Experiment]:
    return sorted(_REGISTRY.values(), key=lambda e: e.name)


def get(name: str) -> Experiment:
    if name not in _REGISTRY:
        raise UsageError(f"reproduce {name!r}: no such experiment; registered: "
                         f"{', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def reproduce(name: str, runs: int | None = None, dask: str | None = None, jobs: int | None = None,
              out: str | os.PathLike[str] | None = None, progress: bool | None = None,
              log: Callable[[str], None] | None = None, seed: int | None = None) -> JsonObj:
    """Runs an experiment; returns {"summary", "report", "text", "plots", "out"}.
    `seed`: the first seed of every sweep (default the scenario's): another
    base seed shows whether a conclusion holds on other runs."""
    e = get(name)
    outdir = pathlib.Path(out) if out else pathlib.Path("out") / e.name
    path = EXAMPLES / e.scenario
    rel = os.path.relpath(path)
    sc = load(rel if not rel.startswith("..") else path)
    if e.arms is None:
        summary = sweep(sc, vary=e.vary, runs=runs or e.runs, out=outdir, dask=dask, jobs=jobs,
                        metrics_fn=e.metrics_fn, progress=progress, log=log, seed=seed)["summary"]
    else:
        base = dict(e.vary if e.vary is not None else sc.sweep.vary)
        arms = {}
        for label, fixed in e.arms:
            arms[label] = sweep(sc, vary={**base, **{k: [v] for k, v in fixed.items()}},
                                runs=runs or e.runs, out=outdir / label, dask=dask, jobs=jobs,
                                metrics_fn=e.metrics_fn, progress=progress, log=log,
                                seed=seed)["summary"]
        summary = merge_arms(arms, base)
        write_json_atomic(outdir / "summary.json", summary)
        write_summary_csv(outdir / "summary.csv", summary)
    # the report and the figures also see the scenario (analytic values come
    # from its parameters) and where the raw results are
    context = {**summary, "scenario_data": sc.data, "out": str(outdir)}
    rep = e.report(context)
    nruns = runs or e.runs
    seeds = f", base seed {seed}" if seed is not None else ""
    text = (f"{e.title}\nsource: {e.source}; scenario: examples/{e.scenario}; {nruns} runs per "
            f"point{seeds}; mean ± 95 % CI\n\n" + render(rep.headers, rep.rows))
    if rep.notes:
        text += "\n\n" + "\n".join(rep.notes)
    plots, no_plots = [], None
    for ps in e.plots:
        try:
            plots.append(str(plot(summary, ps.x, ps.y, hue=ps.hue, where=ps.where,
                                  out=outdir / ps.file, logx=ps.logx,
                                  logy=ps.logy, ylabel=ps.ylabel, xlabel=ps.xlabel,
                                  reference=ps.reference(summary) if ps.reference else None,
                                  reference_label=ps.reference_label,
                                  title=f"{e.name}: {ps.ylabel or ps.y}")))
        except MissingExtra as err:   # the numbers do not need matplotlib
            no_plots = f"plots: none ({err})"
            break
    if e.figures is not None and no_plots is None:
        try:
            plots += [str(p) for p in e.figures(context, outdir)]
        except MissingExtra as err:
            no_plots = f"plots: none ({err})"
    text += "\n\nplots: " + ", ".join(plots) if plots else ""
    text += "\n\n" + no_plots if no_plots else ""
    text += (f"\nsweep: {outdir} (summary.csv, summary.json, runs.csv)" if e.arms is None else
             f"\nsweeps: {outdir}/<arm>/ (runs.csv each); merged summary: {outdir}/summary.csv, .json")
    (outdir / "report.txt").write_text(text + "\n")
    return {"summary": summary, "report": rep, "text": text, "plots": plots, "out": str(outdir)}


def merge_arms(arms: dict[str, JsonObj], vary: JsonObj) -> JsonObj:
    """One summary from one per arm: each point gets an "arm" parameter and
    keeps only the commonly varied keys (an arm's fixed keys live in its name)."""
    first = next(iter(arms.values()))
    points = []
    for label, s in arms.items():
        for p in s["points"]:
            points.append({**p, "params": {"arm": label, **{k: p["params"][k] for k in vary}}})
    return {"scenario": first["scenario"], "name": first.get("name", ""),
            "description": first.get("description", ""), "vary": {"arm": list(arms), **vary},
            "seeds": first["seeds"], "table": first.get("table", []), "points": points}


def point(summary: JsonObj, **params: Any) -> JsonObj | None:
    """The point whose parameters include all of `params` (keys with dots
    spelled with __: medium__ber)."""
    want = {k.replace("__", "."): v for k, v in params.items()}
    points: list[JsonObj] = summary["points"]
    for p in points:
        if all(p["params"].get(k) == v for k, v in want.items()):
            return p
    return None


# --- helpers for reports ----------------------------------------------------------------

def raw_results(out: str | os.PathLike[str], arm: str | None = None,
                **params: Any) -> list[tuple[int, JsonObj]]:
    """(seed, raw result) of every run on disk under `out` (an arm's sweep
    directory when `arm` is given) whose parameters include `params` (dots
    spelled __), in seed order: what figures are drawn from."""
    d = pathlib.Path(out) / arm if arm else pathlib.Path(out)
    want = {k.replace("__", "."): v for k, v in params.items()}
    found = []
    for r in sorted((d / "runs").glob("*.json")):
        rec = json.loads(r.read_text())
        if all(rec["params"].get(k) == v for k, v in want.items()):
            res = d / "results" / r.name
            if res.is_file():
                found.append((rec["seed"], json.loads(res.read_text())))
    return sorted(found, key=lambda t: t[0])


def metric(point: JsonObj | None, name: str) -> JsonObj | None:
    """A metric's summary cell at a point; None when the point or the
    metric is missing (a report shows "-")."""
    if point is None:
        return None
    cell: JsonObj | None = point["metrics"].get(name)
    return cell


def mean(point: JsonObj | None, name: str) -> float | None:
    """The mean of a metric at a point; None when either is missing."""
    cell = metric(point, name)
    if cell is None:
        return None
    m: float | None = cell["mean"]
    return m


def points_by(summary: JsonObj, key: str) -> dict[Any, JsonObj]:
    """{value of key: point} for a sweep varying only `key`."""
    return {p["params"][key]: p for p in summary["points"]}


from . import (  # noqa: E402,F401
    cctrl_figures,
    coap,
    demo,
    dos,
    dtc_figures,
    energy,
    hc,
    overlay,
    physics,
    relay,
    routing,
    spatial,
    tcplp,  # (registration)
    tss,
    uip,
)
