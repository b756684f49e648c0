"""What is computed once per traced signature of a jitted function, shared
by ``%%xjit`` panels and the sidebar channel: its jaxpr listing, its lint
findings and, when it ran over many devices, its shardings. A function's
*generation* changes when it is traced again; until then a cell that only
calls it recomputes nothing, and the sidebar's second look at a
10,000-equation jaxpr costs no second listing."""
from __future__ import annotations

import xjit.inspect as xi

_findings: dict[int, tuple] = {}  # fun_id -> (generation, findings)
_listings: dict[int, tuple] = {}  # fun_id -> (generation, JaxprListing or None)
_replies: dict[int, tuple] = {}   # fun_id -> (generation, validated sidebar `function` message)
_shardings: dict[int, tuple] = {}  # fun_id -> (generation, ShardingInfo or None)


def generation(info) -> tuple:
    """Changes whenever the function is traced again."""
    return (info.cache_misses, info.trace_s)


def _once(cache, info, compute):
    """``compute()``, kept in ``cache`` until the function is traced again."""
    gen = generation(info)
    cached = cache.get(info.fun_id)
    if cached is not None and cached[0] == gen:
        return cached[1]
    value = compute()
    cache[info.fun_id] = (gen, value)
    return value


def findings_for(info) -> list:
    """``xjit.inspect.lint_function`` of the function's latest signature.
    A lint failure becomes a finding."""
    def lint():
        try:
            return list(xi.lint_function(info.fun_id))
        except Exception as e:  # lint is advisory: report, don't fail the cell
            return [xi.Finding("lint-error", f"lint failed: {type(e).__name__}: {e}",
                               info.filename, info.lineno)]
    return _once(_findings, info, lint)


def listing_for(info):
    """``xjit.inspect.jaxpr_listing`` of the function's latest trace (None
    when no jaxpr is recorded)."""
    return _once(_listings, info, lambda: xi.jaxpr_listing(info.fun_id))


def sharding_for(info):
    """``xjit.inspect.sharding`` of the function's latest signature: its
    shardings and collectives when it ran over many devices, else None."""
    return _once(_shardings, info, lambda: xi.sharding(info.fun_id))


def reply_for(info, build):
    """The sidebar's ``function`` message for the latest signature:
    ``build(listing)``, made and validated once per generation (for a
    10,000-equation jaxpr, listing and validating cost as much as the trace's
    own bookkeeping; a panel that asks again gets the kept message)."""
    return _once(_replies, info, lambda: build(listing_for(info)))


def forget(live_ids) -> None:
    """Drop what is kept for functions the engine no longer reports."""
    for cache in (_findings, _listings, _replies, _shardings):
        for fid in [f for f in cache if f not in live_ids]:
            del cache[fid]
