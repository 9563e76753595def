"""Summary statistics over runs: mean, sample standard deviation and the
95 % confidence interval of the mean from Student's t distribution.

No SciPy: the t quantile is found by bisection on the t CDF, which is the
regularized incomplete beta function evaluated by its continued fraction
(Lentz's method). Accurate to ~1e-10 for the degrees of freedom a sweep has.
"""
from __future__ import annotations

import functools
import math

from .jsontypes import JsonObj


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """The t value with P(T <= t) = p (0.5 < p < 1). Cached: a summary asks
    for the same few (p, df) once per point and metric."""
    if not 0.5 < p < 1.0 or df <= 0:
        raise ValueError("t_quantile needs 0.5 < p < 1 and df > 0")
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def summarize(values: list[float]) -> JsonObj:
    """{n, mean, std, ci95, min, max}: `std` is the sample standard deviation
    (n - 1), `ci95` the half width of the 95 % interval of the mean
    (t(0.975, n-1) * std / sqrt(n)); both are None for a single value."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "ci95": None, "min": None, "max": None}
    mean = math.fsum(values) / n
    std: float | None = None
    ci: float | None = None
    if n > 1:
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
        ci = t_quantile(0.975, n - 1) * std / math.sqrt(n)
    return {"n": n, "mean": mean, "std": std, "ci95": ci, "min": min(values), "max": max(values)}
