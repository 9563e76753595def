"""The `moteip` command.

    moteip run SCENARIO [--seed N] [--set KEY=VALUE]... [--pcap F [--pcap-node N]
                        [--pcap-view radio|ip]] [--trace F [--trace-radio]] [--out F]
                        [--strict] [--realtime [--speed X] [--view [--port N] [--no-browser]]]
    moteip check SCENARIO [--vary KEY=V1,V2,...]... [--strict]
    moteip sweep SCENARIO [--vary KEY=V1,V2,...]... [--set KEY=VALUE]... [--runs N] [--seed N]
                          [--out DIR] [--jobs N] [--dask ADDR|local] [--metric M]...
                          [--progress|--no-progress] [--strict]
    moteip metrics RESULTS
    moteip plot RESULTS --x KEY --y METRIC [--hue KEY] [--where KEY=V]... [--out F] [--logx] [--logy]
                        [--xlabel T] [--ylabel T] [--title T]
    moteip reproduce NAME [--runs N] [--seed N] [--jobs N] [--dask ADDR|local] [--out DIR]
                          [--check] [--markdown]
    moteip reproduce --all|--quick [--check] [--jobs N] [--dask ADDR|local] [--out DIR]
    moteip reproduce --list
    moteip view RUN_OR_SWEEP [--run ID] [--out FILE.html] [--port N] [--no-browser]
    moteip cwnd TRACE [--flow N] [--out F.png] [--csv F.csv] [--from S] [--to S] [--mss B]

Exit status: 0 success; 1 a run or the build failed; 2 bad input (scenario,
option, key, results path: the message names it); 130 interrupted (a sweep
resumes when the same command is run again).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import signal
import sys
import threading
from typing import Any

from . import __version__, experiments, run_plan
from .errors import MoteipError, UsageError
from .plan import check, expand, warning_line
from .plot import default_name, plot
from .report import run_table, sweep_table
from .scenario import SEED_MAX, canonical_key, load, parse_value, parse_vary
from .simulator import find_simulator
from .sweep import Interrupted, load_summary, sweep


def _err(msg: str) -> None:
    print(f"moteip: {msg}", file=sys.stderr, flush=True)


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _assignment(text: str, opt: str) -> tuple[str, object]:
    if "=" not in text:
        raise UsageError(f"{opt} {text!r}: expected KEY=VALUE")
    k, _, v = text.partition("=")
    try:
        return canonical_key(k.strip()), parse_value(v)
    except UsageError as e:
        raise UsageError(f"{opt} {text!r}: {e}") from None


def _varies(specs: list[str]) -> dict[str, list[Any]]:
    out = {}
    for s in specs:
        k, vals = parse_vary(s)
        out[k] = vals
    return out


def _writable(path: str | None, opt: str) -> None:
    """Creates the directory of an output file and checks the file can be
    written, so a bad path is a usage error naming the option, before the run."""
    if path is None:
        return
    p = pathlib.Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"{opt} {path}: cannot write: a part of {p.parent} is not a directory") from None
    except OSError as e:
        raise UsageError(f"{opt} {path}: cannot write: {e.strerror or e}") from None
    try:
        with open(p, "ab"):
            pass
    except OSError as e:
        raise UsageError(f"{opt} {path}: cannot write: {e.strerror or e}") from None


def _warn(msg: str) -> None:
    _err(msg)


def cmd_run(a: argparse.Namespace) -> int:
    sc = load(a.scenario)
    params = dict(_assignment(s, "--set") for s in a.set)
    if a.pcap is None and (a.pcap_node is not None or a.pcap_view is not None):
        raise UsageError("--pcap-node and --pcap-view need --pcap FILE")
    _writable(a.pcap, "--pcap")
    _writable(a.trace, "--trace")
    if a.speed is not None and not a.realtime:
        raise UsageError("--speed needs --realtime")
    if a.trace_radio and a.trace is None and not a.view:
        raise UsageError("--trace-radio needs --trace FILE")
    if a.view and not a.realtime:
        raise UsageError("--view needs --realtime (a run that is not paced is over before a page "
                         "could follow it: `moteip view` shows it afterwards)")
    the_plan = expand(sc, fixed=params)
    seed = a.seed if a.seed is not None else sc.base_seed
    out = pathlib.Path(a.out) if a.out else pathlib.Path("out") / sc.stem / f"run-seed{seed}.json"
    live = None
    trace = a.trace
    if a.view:          # the page follows the trace as the run writes it
        from . import viewer

        trace = trace or str(out.with_suffix(".jsonl"))
        _writable(trace, "--trace")
        pathlib.Path(trace).unlink(missing_ok=True)
        live = viewer.LiveServer(f"{sc.name} seed {seed} (live)", pathlib.Path(trace), port=a.port)
        print(f"moteip view: {live.url} (live)", flush=True)
        if not a.no_browser:
            import webbrowser

            webbrowser.open(live.url)
    try:
        result = run_plan(the_plan, seed=a.seed, pcap=a.pcap, trace=trace,
                          sim=find_simulator(build=True, log=_log), strict=a.strict,
                          pcap_node=a.pcap_node, pcap_view=a.pcap_view, log=_warn,
                          realtime=(a.speed or 1.0) if a.realtime else None,
                          trace_radio=a.trace_radio or a.view)   # the page draws the states
    except BaseException:
        if live is not None:
            live.close()
        raise
    # the seed the run used: --seed, else the scenario's (also when set with --set seed=N)
    if not a.out:
        out = pathlib.Path("out") / sc.stem / \
            f"run-seed{result.get('seed', a.seed if a.seed is not None else sc.base_seed)}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    # what was run, beside the result: `moteip view` runs it again for a trace
    out.with_name(out.stem + ".scenario.json").write_text(the_plan.points[0].scenario_json + "\n")
    print(f"{sc.name}: seed {result.get('seed')}")
    print(run_table(result))
    print(f"\nresult: {out}" + (f"\npcap: {a.pcap}" if a.pcap else "")
          + (f"\ntrace: {trace}" if trace else ""), flush=True)
    if live is not None:
        live.finish(result, pathlib.Path(a.pcap) if a.pcap else None)
        print(f"moteip view: {live.url} shows the finished run (Ctrl-C stops)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        finally:
            live.close()
    return 0


def cmd_check(a: argparse.Namespace) -> int:
    sc = load(a.scenario)
    sim = find_simulator(build=True, log=_log)
    vary = dict(sc.sweep.vary)
    vary.update(_varies(a.vary))
    the_plan = expand(sc, vary)
    for _, w in check(the_plan, sim, a.strict):
        _warn(warning_line(sc.name, w))
    n = len(the_plan.points)
    print(f"{sc.name}: ok ({n} point{'s' if n != 1 else ''})")
    return 0


def cmd_sweep(a: argparse.Namespace) -> int:
    sc = load(a.scenario)
    params = dict(_assignment(s, "--set") for s in a.set)
    res = sweep(sc, vary=_varies(a.vary), runs=a.runs, seed=a.seed, out=a.out, dask=a.dask,
                jobs=a.jobs, progress=a.progress, log=_log, params=params, strict=a.strict)
    metrics = [canonical_key(m) for m in a.metric] or None
    print(sweep_table(res["summary"], metrics))
    out = pathlib.Path(res["out"])
    print(f"\nsummary: {out / 'summary.csv'}, {out / 'summary.json'}; runs: {out / 'runs.csv'}")
    return 0


def cmd_metrics(a: argparse.Namespace) -> int:
    s = load_summary(a.results)
    names = sorted({n for p in s["points"] for n in p["metrics"]})
    print("varied keys: " + (", ".join(s["vary"]) or "(none)"))
    print("\n".join(names))
    return 0


def cmd_plot(a: argparse.Namespace) -> int:
    s = load_summary(a.results)
    where = dict(_assignment(w, "--where") for w in a.where)
    # beside the sweep unless told otherwise
    res = pathlib.Path(a.results)
    out = a.out or (res if res.is_dir() else res.parent) / default_name(a.x, a.y)
    path = plot(s, a.x, a.y, hue=a.hue, where=where, out=out, logx=a.logx, logy=a.logy,
                xlabel=a.xlabel, ylabel=a.ylabel, title=a.title)
    print(path)
    return 0


def cmd_reproduce(a: argparse.Namespace) -> int:
    from .experiments import check as chk
    if a.list:
        for e in experiments.all_experiments():
            print(f"{e.name:18} {e.title}  [{e.source}]")
        return 0
    chosen = sum(bool(x) for x in (a.name, a.all, a.quick))
    if chosen == 0:
        raise UsageError("reproduce: name an experiment, or --list them")
    if chosen > 1:
        raise UsageError("reproduce: one of NAME, --all and --quick, not several")
    if a.check and (a.runs or a.seed is not None):
        raise UsageError("reproduce --check: results.md holds each experiment's own runs; "
                         "--runs or --seed would change them")
    names = ([e.name for e in experiments.all_experiments()] if a.all else
             list(chk.QUICK) if a.quick else [a.name])
    for n in names:
        experiments.get(n)      # a bad name fails before anything runs
    doc = chk.results_md(a.results_md) if a.check else ""
    drifted = 0
    for n in names:
        out = (pathlib.Path(a.out) / n if a.out else None) if len(names) > 1 else a.out
        res = experiments.reproduce(n, runs=a.runs, dask=a.dask, jobs=a.jobs, out=out,
                                    progress=a.progress, log=_log, seed=a.seed)
        if a.markdown:
            print(chk.markdown(chk.report_tables(res["report"])))
        if not a.check:
            if not a.markdown:
                print(res["text"] + ("\n" if len(names) > 1 else ""))
            continue
        drifts = chk.compare(n, chk.report_tables(res["report"]), doc)
        print(f"{n}: " + ("as in docs/results.md" if not drifts else
                          f"{len(drifts)} difference(s) from docs/results.md"), flush=True)
        for d in drifts:
            print(f"  {d}", flush=True)
        drifted += bool(drifts)
    if a.check and drifted:
        _err(f"reproduce --check: {drifted} of {len(names)} experiment(s) drifted from "
             "docs/results.md")
        return 1
    return 0


def cmd_cwnd(a: argparse.Namespace) -> int:
    from . import series as ser

    data = ser.cc_series(a.trace, a.flow)
    if not data:
        raise UsageError(f"{a.trace}: no tcp_cc events (a TCP flow's sender writes them)")
    for f, rows in sorted(data.items()):
        at = ser.time_at_window(rows, a.t_from, a.t_to)
        print(f"flow {f}: {len(rows)} changes, {rows[0]['t_s']:.3f}..{rows[-1]['t_s']:.3f} s, "
              f"cwnd at the peer's window {100 * at:.1f} % of the time" if at is not None else
              f"flow {f}: {len(rows)} changes")
    if a.csv:
        _writable(a.csv, "--csv")
        print(ser.write_cc_csv(data, a.csv))
    if a.out:
        _writable(a.out, "--out")
        flow = a.flow if a.flow is not None else min(data)
        print(ser.plot_cc(data[flow], a.out, title=f"{a.trace}: flow {flow}", t0=a.t_from,
                          t1=a.t_to, mss=a.mss))
    return 0


def cmd_view(a: argparse.Namespace) -> int:
    from . import viewer

    files = viewer.locate(a.path, run=a.run, log=_log)
    data = viewer.build(files)
    for n in data["notes"]:
        _log(f"view: {n}")
    if a.out:
        print(viewer.write(data, a.out))
        return 0

    def ready(url: str) -> None:
        print(f"moteip view: {url} (Ctrl-C stops)", flush=True)
        if not a.no_browser:
            import webbrowser

            webbrowser.open(url)
    viewer.serve(data, files.pcap, port=a.port, ready=ready)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="moteip", description="Run moteip-sim scenarios, sweeps, "
                                "plots and registered experiments.")
    p.add_argument("--version", action="version", version=f"moteip {__version__}")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", required=True)

    r = sub.add_parser("run", help="run one scenario and print a summary")
    r.add_argument("scenario", metavar="SCENARIO", help="a .toml (or .json) scenario file")
    r.add_argument("--seed", type=_seed, help="run seed (default: the scenario's)")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="set a scenario key, e.g. medium.ber=1e-4 (repeatable)")
    r.add_argument("--pcap", metavar="FILE", help="write every frame to a pcap file")
    r.add_argument("--pcap-node", type=_nonneg, metavar="N",
                   help="capture node N's own interface instead of the whole medium")
    r.add_argument("--pcap-view", choices=["radio", "ip"],
                   help="802.15.4 frames, or IP datagrams (link mode raw; its default)")
    r.add_argument("--trace", metavar="FILE", help="write a JSON-lines event trace")
    r.add_argument("--trace-radio", action="store_true",
                   help="with --trace: every radio state change (off, listen, rx, tx)")
    r.add_argument("--out", metavar="FILE", help="result JSON (default out/STEM/run-seedN.json)")
    r.add_argument("--strict", action="store_true",
                   help="warnings (a static route out of radio range) are errors: exit 2")
    r.add_argument("--realtime", action="store_true",
                   help="pace the run to the wall clock and attach the scenario's border router "
                        "to its host device (Ctrl-C ends the run with its result)")
    r.add_argument("--speed", type=_speed, metavar="X",
                   help="with --realtime: simulated seconds per wall second (default 1)")
    r.add_argument("--view", action="store_true",
                   help="with --realtime: a page on 127.0.0.1 follows the run live (radio states, "
                        "packets, energy), then shows the finished run until Ctrl-C")
    r.add_argument("--port", type=_nonneg, default=0, help="--view's port (default: a free one)")
    r.add_argument("--no-browser", action="store_true", help="--view: print the URL, open nothing")
    r.set_defaults(fn=cmd_run)

    c = sub.add_parser("check", help="validate a scenario (and every point of its sweep)")
    c.add_argument("scenario", metavar="SCENARIO")
    c.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...")
    c.add_argument("--strict", action="store_true", help="warnings are errors: exit 2")
    c.set_defaults(fn=cmd_check)

    def progress_opts(q: argparse.ArgumentParser) -> None:
        g = q.add_mutually_exclusive_group()
        g.add_argument("--progress", dest="progress", action="store_true", default=None,
                       help="a progress bar even when stderr is not a terminal")
        g.add_argument("--no-progress", dest="progress", action="store_false",
                       help="plain progress lines even on a terminal")

    s = sub.add_parser("sweep", help="run the cross product of parameter values x seeds")
    s.add_argument("scenario", metavar="SCENARIO")
    s.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="values of a key (repeatable; A..B is an integer range); "
                        "added to the scenario's [sweep].vary")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="set a scenario key for every point, e.g. medium.ber=1e-4 (repeatable)")
    s.add_argument("--runs", type=_positive, help="seeds per point (default [sweep].runs, else 10)")
    s.add_argument("--seed", type=_seed, help="first seed (default: the scenario's, else 1)")
    s.add_argument("--out", metavar="DIR", help="sweep directory (default out/STEM)")
    s.add_argument("--jobs", type=_positive, help="parallel runs (default: CPUs)")
    s.add_argument("--dask", metavar="ADDR", help="run on a Dask cluster: tcp://host:8786, or "
                   "'local' for a LocalCluster")
    s.add_argument("--metric", action="append", default=[], metavar="M",
                   help="a column of the printed table (repeatable; default: main flow metrics)")
    s.add_argument("--strict", action="store_true",
                   help="warnings (a static route out of radio range) are errors: exit 2")
    progress_opts(s)
    s.set_defaults(fn=cmd_sweep)

    m = sub.add_parser("metrics", help="list the metrics and varied keys of a sweep")
    m.add_argument("results", metavar="RESULTS", help="a sweep directory or its summary.json")
    m.set_defaults(fn=cmd_metrics)

    pl = sub.add_parser("plot", help="plot a metric of a sweep against a varied key (PNG)")
    pl.add_argument("results", metavar="RESULTS", help="a sweep directory or its summary.json")
    pl.add_argument("--x", required=True, metavar="KEY")
    pl.add_argument("--y", required=True, metavar="METRIC")
    pl.add_argument("--hue", metavar="KEY", help="one line per value of this varied key")
    pl.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="keep only the points with this value (repeatable)")
    pl.add_argument("--out", metavar="FILE",
                    help="PNG path (default METRIC-vs-KEY.png in the sweep's directory)")
    pl.add_argument("--logx", action="store_true")
    pl.add_argument("--logy", action="store_true")
    pl.add_argument("--xlabel", metavar="TEXT", help="x axis label (default: the key's words and unit)")
    pl.add_argument("--ylabel", metavar="TEXT", help="y axis label (default: the metric's words and unit)")
    pl.add_argument("--title", metavar="TEXT", help="plot title")
    pl.set_defaults(fn=cmd_plot)

    rp = sub.add_parser("reproduce", help="run a registered experiment beside its published numbers")
    rp.add_argument("name", nargs="?", metavar="NAME")
    rp.add_argument("--list", action="store_true", help="list the registered experiments")
    rp.add_argument("--runs", type=_positive, help="seeds per point (default: the experiment's)")
    rp.add_argument("--jobs", type=_positive)
    rp.add_argument("--dask", metavar="ADDR")
    rp.add_argument("--out", metavar="DIR", help="default out/NAME (with --all/--quick: DIR/NAME)")
    rp.add_argument("--seed", type=int, metavar="N",
                    help="first seed of the runs (default the scenario's): a second base seed")
    rp.add_argument("--all", action="store_true", help="every registered experiment")
    rp.add_argument("--quick", action="store_true",
                    help="the short subset the test command checks (docs/results.md)")
    rp.add_argument("--check", action="store_true",
                    help="compare the rerun's tables with docs/results.md; exit 1 on any drift")
    rp.add_argument("--results-md", metavar="FILE", help="default: the repository's docs/results.md")
    rp.add_argument("--markdown", action="store_true",
                    help="print the report's tables as Markdown (for docs/results.md)")
    progress_opts(rp)
    rp.set_defaults(fn=cmd_reproduce)

    v = sub.add_parser("view", help="see a run in the browser: network, frames per node, "
                       "decoded headers, counters and energy")
    v.add_argument("path", metavar="RUN_OR_SWEEP",
                   help="a run's result JSON (or its directory), a sweep directory, or a trace (.jsonl)")
    v.add_argument("--run", metavar="ID-sSEED", help="which run of a sweep (default: the first)")
    v.add_argument("--out", metavar="FILE.html", help="write one self-contained HTML file instead of serving")
    v.add_argument("--port", type=_nonneg, default=0, help="port on 127.0.0.1 (default: a free one)")
    v.add_argument("--no-browser", action="store_true", help="print the address, do not open a browser")
    v.set_defaults(fn=cmd_view)

    cw = sub.add_parser("cwnd", help="a traced run's congestion window, ssthresh and RTO over "
                        "time (CSV, PNG)")
    cw.add_argument("trace", metavar="TRACE", help="a trace of moteip run --trace (.jsonl)")
    cw.add_argument("--flow", type=_nonneg, help="one flow (default: all; the plot: the first)")
    cw.add_argument("--out", metavar="F.png", help="plot cwnd, ssthresh, window and RTO")
    cw.add_argument("--csv", metavar="F.csv", help="write the series: flow,t_s,cwnd,ssthresh,...")
    cw.add_argument("--from", dest="t_from", type=float, metavar="S", help="start [s]")
    cw.add_argument("--to", dest="t_to", type=float, metavar="S", help="end [s]")
    cw.add_argument("--mss", type=_positive, metavar="B", help="plot windows in segments of B bytes")
    cw.set_defaults(fn=cmd_cwnd)
    return p


def _int(text: str, lo: int, what: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if v < lo:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return v


def _speed(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 1e-3 <= v <= 1e6:
        raise argparse.ArgumentTypeError(f"expected simulated seconds per wall second in "
                                         f"[0.001, 1e6], got {text!r}")
    return v


def _positive(text: str) -> int:
    return _int(text, 1, "an integer >= 1")


def _seed(text: str) -> int:
    """--seed: the range of the scenario's `seed` key, which the simulator checks."""
    v = _int(text, 0, f"an integer in [0, {SEED_MAX}]")
    if v > SEED_MAX:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, {SEED_MAX}], got {text!r}")
    return v


def _nonneg(text: str) -> int:
    return _int(text, 0, "a non-negative integer")


def _stop_signals_interrupt() -> None:
    """SIGTERM and SIGHUP end a command as Ctrl-C does. `kill PID` (or a closed terminal)
    reaches this process alone, not its process group: the KeyboardInterrupt paths are the
    ones that stop the simulator and the sweep's runs and free the TUN, so every stop signal
    takes them (a default SIGTERM would end Python and leave moteip-sim running)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, signal.default_int_handler)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        _stop_signals_interrupt()
    try:
        return int(args.fn(args))
    except Interrupted as e:
        _err(str(e))
        return 130
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except MoteipError as e:
        _err(str(e))
        return e.exit_status
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
