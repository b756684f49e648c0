"""Lint findings per function signature, shared by ``%%xjit`` panels and the
sidebar channel: a cell that traces a function lints it once, and a cell
that only calls it again lints nothing."""
from __future__ import annotations

import xjit.inspect as xi

_cache: dict[int, tuple] = {}  # fun_id -> (generation, findings)


def generation(info) -> tuple:
    """Changes whenever the function is traced again."""
    return (info.cache_misses, info.trace_s)


def findings_for(info) -> list:
    """``xjit.inspect.lint_function`` of the function's latest signature,
    computed once per generation. A lint failure becomes a finding."""
    gen = generation(info)
    cached = _cache.get(info.fun_id)
    if cached is not None and cached[0] == gen:
        return cached[1]
    try:
        found = list(xi.lint_function(info.fun_id))
    except Exception as e:  # lint is advisory: report, don't fail the cell
        found = [xi.Finding("lint-error", f"lint failed: {type(e).__name__}: {e}",
                            info.filename, info.lineno)]
    _cache[info.fun_id] = (gen, found)
    return found


def forget(live_ids) -> None:
    """Drop the findings of functions the engine no longer reports."""
    for fid in [f for f in _cache if f not in live_ids]:
        del _cache[fid]
