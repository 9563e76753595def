"""Time series of a traced run: each TCP sender's congestion control.

`moteip-sim --trace` (docs/SIMULATOR.md, The trace) writes a `tcp_cc` event
whenever a flow's sender changes its congestion window, slow-start
threshold, retransmission timeout or the peer's window:

    {"t_us": 23040, "node": 0, "ev": "tcp_cc", "flow": 0, "cwnd": 1896,
     "ssthresh": 4294967295, "rto_ms": 300, "wnd": 1848, "srtt_ms": 23.0,
     "flight": 1386}

`cc_series` reads them back per flow, `write_cc_csv` writes one CSV,
`plot_cc` draws cwnd, ssthresh and the peer's window over time with the RTO
on a second axis (TCPlp, fig. 7a), and `time_at_window` is the share of the
time cwnd did not limit the flight.
"""
from __future__ import annotations

import json
import os
import pathlib

from .errors import MissingExtra, UsageError
from .jsontypes import JsonObj

FIELDS = ("t_s", "cwnd", "ssthresh", "rto_ms", "wnd", "srtt_ms", "flight")
#: ssthresh before the first loss ("arbitrarily high", RFC 5681)
SSTHRESH_UNSET = 0xFFFFFFFF


def cc_series(trace: str | os.PathLike[str], flow: int | None = None) -> dict[int, list[JsonObj]]:
    """{flow: [{t_s, cwnd, ssthresh, rto_ms, wnd, srtt_ms, flight}, ...]} in
    time order, from a trace file; only `flow` when given. ssthresh is None
    while it is unset."""
    path = pathlib.Path(trace)
    try:
        fh = path.open()
    except OSError as e:
        raise UsageError(f"{trace}: cannot read the trace: {e.strerror or e}") from None
    out: dict[int, list[JsonObj]] = {}
    with fh:
        for n, line in enumerate(fh, 1):
            if '"tcp_cc"' not in line:
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
                raise UsageError(f"{trace}:{n}: not a JSON line") from None
            if ev.get("ev") != "tcp_cc" or (flow is not None and ev.get("flow") != flow):
                continue
            out.setdefault(ev["flow"], []).append({
                "t_s": ev["t_us"] / 1e6, "cwnd": ev["cwnd"],
                "ssthresh": None if ev["ssthresh"] == SSTHRESH_UNSET else ev["ssthresh"],
                "rto_ms": ev["rto_ms"], "wnd": ev["wnd"], "srtt_ms": ev["srtt_ms"],
                "flight": ev["flight"]})
    if flow is not None and flow not in out:
        raise UsageError(f"{trace}: no tcp_cc events of flow {flow} (a TCP flow's sender "
                         f"writes them; was the trace made by this simulator?)")
    return out


def time_at_window(series: list[JsonObj], t0: float | None = None, t1: float | None = None) -> float | None:
    """The share of [t0, t1] (default: the series' span) during which cwnd was
    at least the peer's window: congestion control did not limit the flight."""
    if not series:
        return None
    t0 = series[0]["t_s"] if t0 is None else t0
    t1 = series[-1]["t_s"] if t1 is None else t1
    total = at = 0.0
    for a, b in zip(series, series[1:] + [dict(series[-1], t_s=t1)], strict=True):
        lo, hi = max(a["t_s"], t0), min(b["t_s"], t1)
        if hi <= lo:
            continue
        total += hi - lo
        if a["cwnd"] >= a["wnd"]:
            at += hi - lo
    return at / total if total > 0 else None


def write_cc_csv(series: dict[int, list[JsonObj]], out: str | os.PathLike[str]) -> pathlib.Path:
    path = pathlib.Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fh.write("flow," + ",".join(FIELDS) + "\n")
        for f, rows in sorted(series.items()):
            for r in rows:
                fh.write(f"{f}," + ",".join("" if r[k] is None else str(r[k]) for k in FIELDS) + "\n")
    return path


def plot_cc(rows: list[JsonObj], out: str | os.PathLike[str], title: str = "",
            t0: float | None = None, t1: float | None = None, mss: int | None = None) -> pathlib.Path:
    """cwnd, ssthresh and the peer's window (in segments of `mss` bytes when
    given, else bytes) as steps over time, the RTO on a second axis."""
    try:
        import matplotlib
    except ImportError:
        raise MissingExtra("plot", "matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t0 = rows[0]["t_s"] if t0 is None else t0
    t1 = rows[-1]["t_s"] if t1 is None else t1
    sel = [r for r in rows if t0 <= r["t_s"] <= t1]
    before = [r for r in rows if r["t_s"] < t0]
    if before:
        sel = [dict(before[-1], t_s=t0)] + sel
    sel.append(dict(sel[-1], t_s=t1))
    unit = float(mss) if mss else 1.0
    ts = [r["t_s"] for r in sel]
    fig, ax = plt.subplots(figsize=(7.2, 3.8), dpi=120)
    ax.step(ts, [r["cwnd"] / unit for r in sel], where="post", label="cwnd", lw=1.4)
    ax.step(ts, [(r["ssthresh"] / unit) if r["ssthresh"] is not None else float("nan") for r in sel],
            where="post", label="ssthresh", lw=1.0, ls="--")
    ax.step(ts, [r["wnd"] / unit for r in sel], where="post", label="peer's window", lw=1.0,
            color="0.5", ls=":")
    ax.set_xlabel("time [s]")
    ax.set_ylabel(f"window [segments of {mss} B]" if mss else "window [bytes]")
    ax2 = ax.twinx()
    ax2.step(ts, [r["rto_ms"] for r in sel], where="post", color="tab:red", lw=0.8, alpha=0.6,
             label="RTO")
    ax2.set_ylabel("RTO [ms]", color="tab:red")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=8, loc="lower right")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    path = pathlib.Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
