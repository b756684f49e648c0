"""Human-readable durations, byte counts and %timeit-style summaries.

Durations use the unit that keeps three significant digits readable
(ns, µs, ms, s), byte counts binary prefixes (B, KiB, MiB, GiB), as
IPython's ``%timeit`` and ``du -h`` do.
"""
from __future__ import annotations

import math

_TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def seconds(s, digits: int = 3) -> str:
    """``0.00123`` -> ``'1.23 ms'``; None or a non-finite value -> ``'–'``."""
    if s is None or isinstance(s, bool) or not math.isfinite(float(s)):
        return "–"
    s = float(s)
    if s == 0:
        return "0 s"
    for scale, unit in _TIME_UNITS:
        if abs(s) >= scale:
            break
    return f"{s / scale:.{digits}g} {unit}"


def nbytes(n) -> str:
    """``1536`` -> ``'1.5 KiB'``; exact below 1 KiB (``'12 B'``)."""
    if n is None or isinstance(n, bool):
        return "–"
    n = int(n)
    value, unit = float(n), 0
    while abs(value) >= 1024 and unit < len(_BYTE_UNITS) - 1:
        value /= 1024
        unit += 1
    if unit == 0:
        return f"{n} B"
    return f"{value:.3g} {_BYTE_UNITS[unit]}"


def mean_std(times_per_loop, loops: int) -> str:
    """The line ``%timeit`` prints for ``len(times_per_loop)`` runs of
    ``loops`` loops each, times in seconds per loop."""
    runs = len(times_per_loop)
    mean = sum(times_per_loop) / runs
    std = math.sqrt(sum((t - mean) ** 2 for t in times_per_loop) / runs)
    run_word = "run" if runs == 1 else "runs"
    loop_word = "loop" if loops == 1 else "loops"
    return (f"{seconds(mean)} ± {seconds(std)} per loop (mean ± std. dev. of {runs} "
            f"{run_word}, {loops:,} {loop_word} each)")
