"""Sweeps: the cross product of parameter values x seeds, run on a local pool
of simulator processes or on a Dask cluster, kept on disk run by run so an
interrupted sweep resumes, and summarised with 95 % confidence intervals.

A sweep directory holds:

    sweep.json            what was asked: scenario, vary, seeds, points
    scenarios/<id>.json   the simulator's scenario of each point
    results/<id>-s<seed>.json   the simulator's raw result of each run
    runs/<id>-s<seed>.json      {params, seed, metrics, wall_s}: written last,
                                atomically; its presence means "run done"
    runs.csv              one row per run, one column per metric
    summary.json          per point: {metric: {n, mean, std, ci95, min, max}}
    summary.csv           the same, one row per point and metric

A point's id is a hash of its scenario JSON, its parameters and the
simulator binary, so runs on disk are reused exactly when they would be
recomputed identically: a resumed sweep, a sweep with more seeds, or one
adding values -- never after the stack or the simulator was rebuilt
differently. Every seed is used at
every point (common random numbers), seeds are `seed`, `seed`+1, ...

The points come from moteip.plan in one pass (expand, then check every
point before anything runs); this module runs their tasks and keeps and
summarises what they return.
"""
from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import pathlib
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any, Protocol

from . import metrics as metrics_mod
from . import plan
from . import scenario as scenario_mod
from .errors import MissingExtra, RunError, UsageError
from .jsontypes import JsonObj
from .plan import Task
from .plan import params_text as _params_text
from .progress import Progress
from .simulator import find_simulator, run_json, stop_children
from .stats import summarize

_DASK_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Interrupted(Exception):
    """The sweep was interrupted (Ctrl-C); what finished is on disk."""

    def __init__(self, done: int, total: int, out: pathlib.Path):
        super().__init__(f"interrupted: {done} of {total} runs are on disk in {out}; "
                         f"run the same command again to resume")
        self.done, self.total, self.out = done, total, out


def simulator_id(sim: pathlib.Path) -> str:
    """A digest of the simulator binary: runs of another build are not reused."""
    h = hashlib.sha256()
    with open(sim, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def write_json_atomic(path: pathlib.Path, obj: Any, compact: bool = False) -> None:
    """compact: one line without spaces (the C encoder; a raw result per
    run, read by programs, costs a tenth of the indented form)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        # insertion order, not sorted: the varied keys keep the order they were given in
        text = json.dumps(obj, separators=(",", ":")) if compact else json.dumps(obj, indent=1)
        tmp.write_text(text + "\n")
        os.replace(tmp, path)
    except BaseException:  # e.g. Ctrl-C in between: leave no partial file behind
        tmp.unlink(missing_ok=True)
        raise


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- engines -----------------------------------------------------------------------------
#
# An engine runs tasks and calls done(task, result, wall_s) or failed(task, exc) in the
# calling thread as each finishes; KeyboardInterrupt propagates after the engine has
# stopped.

#: done(task, result, wall seconds) and failed(task, error), called as runs finish
Done = Callable[[Task, JsonObj, float], None]
Failed = Callable[[Task, Exception], None]


def _timed_run(text: str, seed: int, sim: str, name: str) -> tuple[JsonObj, float]:
    """One run and its wall time; also the task a Dask worker runs (module
    level, so it pickles by name)."""
    t0 = time.monotonic()
    r = run_json(text, seed, sim, name=name)
    return r, time.monotonic() - t0


class _Outcome(Protocol):
    """A finished future, of concurrent.futures or of Dask."""

    def result(self) -> tuple[JsonObj, float]: ...


def _report(f: _Outcome, t: Task, done: Done, failed: Failed) -> None:
    """Hands a finished future's outcome to done() or failed()."""
    try:
        r, w = f.result()
    except Exception as e:  # a failed run is reported, the others go on
        failed(t, e)
    else:
        done(t, r, w)


def _run_local(tasks: list[Task], sim: pathlib.Path, name: str, jobs: int, done: Done,
               failed: Failed) -> None:
    ex = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="moteip-run")
    try:
        pending = {ex.submit(_timed_run, t.point.scenario_json, t.seed, str(sim), name): t
                   for t in tasks}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                _report(f, pending.pop(f), done, failed)
    except KeyboardInterrupt:
        stop_children()         # the runs in the workers end now, not when they are done
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _run_dask(tasks: list[Task], sim: pathlib.Path, name: str, address: str, jobs: int,
              done: Done, failed: Failed, log: Callable[[str], None]) -> None:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise MissingExtra("dask", "dask.distributed", "--dask") from None
    cluster = None
    try:
        if address == "local":
            cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None,
                                   silence_logs=logging.ERROR)
            client = Client(cluster)
            log(f"dask: LocalCluster with {_plural(jobs, 'worker')} at {cluster.scheduler_address}")
        else:
            try:
                client = Client(address, timeout="10s")
            except (OSError, TimeoutError) as e:
                raise RunError(f"--dask {address}: cannot reach the scheduler ({e})") from None
            log(f"dask: connected to {address} "
                f"({_plural(len(client.scheduler_info().get('workers', {})), 'worker')})")
    except BaseException:
        if cluster is not None:
            cluster.close()
        raise
    futures = {}
    try:
        for t in tasks:
            f = client.submit(_timed_run, t.point.scenario_json, t.seed, str(sim), name, pure=False)
            futures[f] = t
        for f in as_completed(list(futures)):
            _report(f, futures[f], done, failed)
    finally:
        try:
            client.cancel(list(futures))
        except Exception:
            pass
        client.close()
        if cluster is not None:
            cluster.close()


# --- the sweep -----------------------------------------------------------------------------

def sweep(scenario: str | os.PathLike[str] | JsonObj | scenario_mod.Scenario,
          vary: dict[str, list[Any]] | None = None, runs: int | None = None,
          seed: int | None = None, out: str | os.PathLike[str] | None = None,
          dask: str | None = None, jobs: int | None = None,
          metrics_fn: Callable[[JsonObj, JsonObj], JsonObj] | None = None,
          progress: bool | None = None, log: Callable[[str], None] | None = _stderr,
          sim: str | os.PathLike[str] | None = None, params: dict[str, Any] | None = None,
          strict: bool = False) -> JsonObj:
    """Runs a sweep and returns {"out": dir, "summary": ..., "runs": [records]}.

    scenario   a path (.toml/.json), a dict or a Scenario
    vary       {key: [values]}; merged over the scenario's [sweep].vary
    runs       seeds per point (default: [sweep].runs, else 10)
    seed       the first seed (default: the scenario's seed, else 1)
    out        the sweep directory (default out/<scenario stem>)
    dask       None (local pool), 'local' (a LocalCluster) or a scheduler address
    jobs       parallel runs (default: the number of CPUs)
    metrics_fn (result, params) -> extra metrics of a run
    progress   a progress bar (None: only when stderr is a terminal)
    params     {key: value} set on the scenario for every point (`--set`);
               a varied key overrides it
    strict     the simulator's warnings (a static route out of radio range)
               are errors; otherwise each distinct one is logged once
    """
    log = log or (lambda m: None)
    sc = scenario_mod.coerce(scenario)
    merged = dict(sc.sweep.vary)
    for k, v in (vary or {}).items():
        ck = scenario_mod.canonical_key(k)
        if not isinstance(v, (list, tuple)) or len(v) == 0:
            raise UsageError(f"vary {k}: expected a non-empty list of values")
        merged[ck] = list(v)
    nruns = runs if runs is not None else (sc.sweep.runs or 10)
    if not isinstance(nruns, int) or nruns < 1:
        raise UsageError(f"runs: expected an integer >= 1, got {nruns!r}")
    first = seed if seed is not None else sc.base_seed
    if not isinstance(first, int) or not 0 <= first <= scenario_mod.SEED_MAX:
        raise UsageError(f"seed: expected an integer in [0, {scenario_mod.SEED_MAX}], got {first!r}")
    if first + nruns - 1 > scenario_mod.SEED_MAX:     # the runs' seeds are first, first + 1, ...
        raise UsageError(f"seed {first} with {nruns} runs: the last run's seed {first + nruns - 1} "
                         f"is above the largest seed, {scenario_mod.SEED_MAX}")
    jobs = jobs or os.cpu_count() or 2
    if dask is not None and dask != "local" and not dask.startswith(_DASK_SCHEMES):
        raise UsageError(f"--dask {dask!r}: expected a scheduler address such as "
                         f"tcp://host:8786, or 'local'")
    outdir = pathlib.Path(out) if out is not None else pathlib.Path("out") / sc.stem
    simp = pathlib.Path(sim) if sim is not None else find_simulator(build=True, log=log)

    fixed = {scenario_mod.canonical_key(k): v for k, v in (params or {}).items()}
    sim_id = simulator_id(simp)
    the_plan = plan.expand(sc, merged, fixed, sim_id)
    points = the_plan.points
    warned: set[str] = set()
    for p, w in plan.check(the_plan, simp, strict):  # every point, before anything runs
        if w not in warned:  # each distinct warning once, with the first point that gave it
            warned.add(w)
            log(plan.warning_line(sc.name, w, p.params))
    seeds = list(range(first, first + nruns))

    for sub in ("runs", "results", "scenarios"):
        (outdir / sub).mkdir(parents=True, exist_ok=True)
    manifest = {"scenario": sc.name, "description": sc.description, "name": sc.data.get("name", ""),
                "simulator": {"path": str(simp), "sha256_16": sim_id}, "set": fixed,
                "vary": merged, "seeds": seeds, "table": sc.sweep.table,
                "points": [{"id": p.id, "params": p.params} for p in points]}
    write_json_atomic(outdir / "sweep.json", manifest)
    for p in points:
        path = outdir / "scenarios" / f"{p.id}.json"
        if not path.exists():
            path.write_text(p.scenario_json + "\n")

    tasks = the_plan.tasks(seeds)
    pending = [t for t in tasks if not (outdir / "runs" / f"{t.run_id}.json").exists()]
    ondisk = len(tasks) - len(pending)
    where = f"dask {dask}" if dask else f"{jobs} local process{'es' if jobs != 1 else ''}"
    log(f"sweep {sc.name}: {_plural(len(points), 'point')} x {_plural(nruns, 'seed')} = "
        f"{_plural(len(tasks), 'run')}"
        + (f" ({ondisk} on disk, {len(pending)} to run)" if ondisk else "")
        + (f" on {where}" if pending else "") + f" -> {outdir}")

    bar = Progress(len(tasks), ondisk, enabled=progress)
    failures: list[tuple[Task, Exception]] = []

    def done(t: Task, result: JsonObj, wall: float) -> None:
        m = metrics_mod.from_result(result)
        if metrics_fn is not None:
            m.update(metrics_fn(result, t.point.params))
        write_json_atomic(outdir / "results" / f"{t.run_id}.json", result, compact=True)
        write_json_atomic(outdir / "runs" / f"{t.run_id}.json",
                          {"point": t.point.id, "params": t.point.params, "seed": t.seed,
                           "metrics": m, "wall_s": round(wall, 4)})
        bar.advance(f"{_params_text(t.point.params, 40)} seed {t.seed}")

    def failed(t: Task, e: Exception) -> None:
        failures.append((t, e))
        bar.advance(f"{_params_text(t.point.params, 40)} seed {t.seed} FAILED")

    try:
        if pending:
            if dask:
                _run_dask(pending, simp, sc.name, dask, jobs, done, failed, log)
            else:
                _run_local(pending, simp, sc.name, jobs, done, failed)
    except KeyboardInterrupt:
        bar.close()
        finished = sum(1 for t in tasks if (outdir / "runs" / f"{t.run_id}.json").exists())
        raise Interrupted(finished, len(tasks), outdir) from None
    bar.close()

    records = load_records(outdir, tasks)
    summary = aggregate(manifest, records)
    write_json_atomic(outdir / "summary.json", summary)
    write_summary_csv(outdir / "summary.csv", summary)
    write_runs_csv(outdir / "runs.csv", merged, records)
    if failures:
        t, e = failures[0]
        raise RunError(f"{len(failures)} of {len(tasks)} runs failed (the rest is summarised in "
                       f"{outdir}); the first: {_params_text(t.point.params)} seed {t.seed}: {e}")
    return {"out": str(outdir), "summary": summary, "runs": records}


def load_records(outdir: pathlib.Path, tasks: list[Task]) -> list[JsonObj]:
    recs = []
    for t in tasks:
        p = outdir / "runs" / f"{t.run_id}.json"
        if p.exists():
            recs.append(json.loads(p.read_text()))
    return recs


def aggregate(manifest: JsonObj, records: list[JsonObj]) -> JsonObj:
    """Per point and metric: n, mean, std, ci95, min, max over the seeds."""
    by_point: dict[str, list[JsonObj]] = {}
    for r in records:
        by_point.setdefault(r["point"], []).append(r)
    names = sorted({k for r in records for k in r["metrics"]})
    points = []
    for p in manifest["points"]:
        recs = by_point.get(p["id"], [])
        ms = {}
        for name in names:
            vals: list[float] = []
            for r in recs:
                v = r["metrics"].get(name, 0 if metrics_mod.missing_is_zero(name) else None)
                if v is not None:
                    vals.append(v)
            if vals:
                ms[name] = summarize(vals)
        points.append({"id": p["id"], "params": p["params"], "runs": len(recs), "metrics": ms})
    return {"scenario": manifest["scenario"], "name": manifest.get("name", ""),
            "description": manifest.get("description", ""), "vary": manifest["vary"],
            "seeds": manifest["seeds"], "table": manifest.get("table", []), "points": points}


def write_summary_csv(path: pathlib.Path, summary: JsonObj) -> None:
    keys = list(summary["vary"])
    with open(path.with_name(path.name + ".tmp"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys + ["metric", "n", "mean", "std", "ci95", "ci95_low", "ci95_high", "min", "max"])
        for p in summary["points"]:
            for name, s in p["metrics"].items():
                lo = hi = None
                if s["ci95"] is not None:
                    lo, hi = s["mean"] - s["ci95"], s["mean"] + s["ci95"]
                w.writerow([p["params"][k] for k in keys] + [name, s["n"], s["mean"], s["std"],
                                                             s["ci95"], lo, hi, s["min"], s["max"]])
    os.replace(path.with_name(path.name + ".tmp"), path)


def write_runs_csv(path: pathlib.Path, vary: JsonObj, records: list[JsonObj]) -> None:
    keys = list(vary)
    names = sorted({k for r in records for k in r["metrics"]})
    with open(path.with_name(path.name + ".tmp"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys + ["seed"] + names)
        for r in records:
            row = [r["params"].get(k) for k in keys] + [r["seed"]]
            for n in names:
                v = r["metrics"].get(n)
                row.append(0 if v is None and metrics_mod.missing_is_zero(n) else v)
            w.writerow(row)
    os.replace(path.with_name(path.name + ".tmp"), path)


def load_summary(path: str | os.PathLike[str]) -> JsonObj:
    """A summary from a sweep directory or its summary.json."""
    p = pathlib.Path(path)
    if p.is_dir():
        p = p / "summary.json"
    try:
        s = json.loads(p.read_text())
    except FileNotFoundError:
        raise UsageError(f"{path}: no summary.json here (give a sweep directory or its "
                         f"summary.json)") from None
    except (json.JSONDecodeError, UnicodeDecodeError, IsADirectoryError) as e:
        raise UsageError(f"{p}: not a sweep summary ({e})") from None
    if not isinstance(s, dict) or not isinstance(s.get("points"), list) or "vary" not in s:
        raise UsageError(f"{p}: not a sweep summary (no points/vary)")
    return s
