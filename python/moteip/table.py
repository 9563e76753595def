"""Plain-text tables for the terminal (no dependencies)."""
from __future__ import annotations

import math

from .jsontypes import JsonObj


def num(v: object, digits: int = 4) -> str:
    """A number in at most `digits` significant digits; ints stay exact."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        if 10 ** digits <= abs(v) < 1e15:
            return f"{v:.0f}"
        return f"{v:.{digits}g}"
    return str(v)


def mean_ci(s: JsonObj | None) -> str:
    """'mean ± ci95' of a summary cell, the interval in two significant digits
    and the mean to the same decimal place; the mean alone for one run."""
    if not s or s.get("mean") is None:
        return "-"
    m, ci = s["mean"], s.get("ci95")
    if ci is None:
        return num(m)
    if ci == 0 or not math.isfinite(ci):
        return f"{num(m)} ± {num(ci)}"
    decimals = 1 - math.floor(math.log10(abs(ci)))
    if decimals <= 0:
        r = round(ci, decimals)
        return f"{round(m):.0f} ± {r:.0f}"
    return f"{m:.{decimals}f} ± {ci:.{decimals}f}"


def render(headers: list[str], rows: list[list[str]], right: set[int] | None = None) -> str:
    """Columns padded to their widest cell; columns in `right` (default: all
    but the first) are right-aligned."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    right = set(range(1, len(headers))) if right is None else right

    def line(r: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()

    out = [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)
