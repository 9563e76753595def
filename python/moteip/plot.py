"""PNG plots of sweep summaries: a metric against a varied key, one line per
value of a second key, error bars from the 95 % confidence intervals. Axis
labels say what a metric or key is and its unit (metrics.label)."""
from __future__ import annotations

import json
import os
import pathlib
from types import ModuleType
from typing import Any

from .errors import MissingExtra, UsageError
from .jsontypes import JsonObj
from .metrics import label as metric_label
from .scenario import canonical_key


def _select(summary: JsonObj, x: str, hue: str | None, where: JsonObj | None) -> list[JsonObj]:
    vary = summary["vary"]
    for role, k in (("--x", x), ("--hue", hue)):
        if k is not None and k not in vary:
            raise UsageError(f"{role} {k}: not a varied key of this sweep; varied keys: "
                             f"{', '.join(vary) or '(none)'}")
    points: list[JsonObj] = summary["points"]
    for k, v in ((canonical_key(k), v) for k, v in (where or {}).items()):
        if k not in vary:
            raise UsageError(f"--where {k}: not a varied key of this sweep; varied keys: {', '.join(vary)}")
        points = [p for p in points if p["params"][k] == v]
        if not points:
            raise UsageError(f"--where {k}={json.dumps(v)}: no point has that value; values: "
                             f"{', '.join(json.dumps(x) for x in vary[k])}")
    free = [k for k in vary if k not in (x, hue) and len({json.dumps(p["params"][k]) for p in points}) > 1]
    if free:
        raise UsageError(f"the sweep also varies {', '.join(free)}: put one on --hue or fix it "
                         f"with --where KEY=VALUE")
    return points


def default_name(x: str, y: str) -> str:
    """METRIC-vs-KEY.png, without the brackets shells glob."""
    y, x = canonical_key(y), canonical_key(x)
    return f"{y.replace('[', '').replace(']', '')}-vs-{x.replace('[', '').replace(']', '')}.png"


def pyplot() -> ModuleType:
    """matplotlib.pyplot on the Agg backend, or MissingExtra: for experiments'
    own figures (experiments/tss.py and others)."""
    try:
        import matplotlib
    except ImportError:
        raise MissingExtra("plot", "matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _overlapping(labels: list[Any], renderer: Any) -> bool:
    boxes = sorted((t.get_window_extent(renderer) for t in labels
                    if t.get_visible() and t.get_text()), key=lambda b: b.x0)
    return any(a.x1 > b.x0 + 0.5 for a, b in zip(boxes, boxes[1:], strict=False))


def fit_tick_labels(fig: Any, ax: Any) -> None:
    """No two x tick labels overlap: long category names or dense values are first
    turned upright (then a label's box is as wide as the text is high, so boxes that
    do not overlap are labels that do not), then thinned to every k-th label (a user
    saw them run into each other)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = ax.get_xticklabels()
    if not _overlapping(labels, renderer):
        return
    for t in labels:
        t.set_rotation(90)
        t.set_horizontalalignment("center")
    fig.tight_layout()
    fig.canvas.draw()
    step = 2
    while _overlapping(labels, renderer) and step < len(labels):
        for i, t in enumerate(labels):
            t.set_visible(i % step == 0)
        fig.canvas.draw()
        step += 1


def plot(summary: JsonObj, x: str, y: str, hue: str | None = None, where: JsonObj | None = None,
         out: str | os.PathLike[str] | None = None, logx: bool = False, logy: bool = False,
         title: str | None = None, reference: dict[Any, float] | None = None,
         ylabel: str | None = None, xlabel: str | None = None,
         reference_label: str = "published / analytic") -> pathlib.Path:
    """Writes a PNG and returns its path (default: METRIC-vs-KEY.png in the
    current directory; the command line puts it in the sweep's directory).
    `reference` ({x value: y}) adds a dashed line of published or analytic
    values. Labels default to the metric's and key's words and units."""
    try:
        import matplotlib
    except ImportError:
        raise MissingExtra("plot", "matplotlib") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = canonical_key(x)
    y = canonical_key(y)
    hue = canonical_key(hue) if hue else None
    points = _select(summary, x, hue, where)
    if not any(y in p["metrics"] for p in points):
        names = sorted({n for p in summary["points"] for n in p["metrics"]})
        near = [n for n in names if y.split(".")[-1] in n][:8]
        raise UsageError(f"--y {y}: no such metric in this sweep"
                         + (f"; similar: {', '.join(near)}" if near else
                            f"; e.g. {', '.join(names[:8])}"))
    groups: dict[str, list[JsonObj]] = {}
    for p in points:
        groups.setdefault(json.dumps(p["params"][hue]) if hue else "", []).append(p)
    xs_all = [p["params"][x] for p in points]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs_all)
    cats = list(dict.fromkeys(json.dumps(v) for v in xs_all))
    if logx and numeric and not any(v > 0 for v in xs_all):
        raise UsageError(f"--logx: {x} has no positive value to put on a log scale; values: "
                         f"{', '.join(cats)}")

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for label, ps in groups.items():
        ps = sorted(ps, key=lambda p: p["params"][x] if numeric else cats.index(json.dumps(p["params"][x])))
        xs, ys, es = [], [], []
        for p in ps:
            s = p["metrics"].get(y)
            if not s or s["mean"] is None:
                continue
            xs.append(p["params"][x] if numeric else cats.index(json.dumps(p["params"][x])))
            ys.append(s["mean"])
            es.append(s["ci95"] or 0.0)
        ax.errorbar(xs, ys, yerr=es, marker="o", capsize=3, label=f"{hue} = {label}" if hue else "moteip-sim")
    if reference:
        rx = sorted(reference, key=float) if numeric else list(reference)
        ax.plot([float(v) if numeric else cats.index(json.dumps(v)) for v in rx],
                [reference[v] for v in rx], "k--", marker="x", label=reference_label)
    if not numeric:
        ax.set_xticks(range(len(cats)), [c.strip('"') for c in cats])
    elif all(isinstance(v, int) for v in xs_all):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if logx:
        ax.set_xscale("symlog" if numeric and min(xs_all) <= 0 else "log",
                      **({"linthresh": min(v for v in xs_all if v > 0)}
                         if numeric and min(xs_all) <= 0 else {}))
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel or metric_label(x))
    ax.set_ylabel(ylabel or metric_label(y))
    n = {p["runs"] for p in points}
    ax.set_title(title or f"{summary.get('name') or summary.get('scenario', '')}: {metric_label(y)} "
                 f"({'/'.join(str(v) for v in sorted(n))} runs, 95 % CI)", fontsize=10)
    ax.grid(True, alpha=0.3)
    if hue or reference:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fit_tick_labels(fig, ax)
    path = pathlib.Path(out) if out else pathlib.Path(default_name(x, y))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
