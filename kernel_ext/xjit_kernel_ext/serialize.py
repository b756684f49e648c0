"""Turn ``xjit.inspect`` objects into ``xjit/2`` protocol dictionaries.

Strings are passed through untouched: escaping is the renderer's job, and the
panel only ever assigns them as text (never as HTML). Everything else is made
plain JSON (see ``protocol.jsonable``) so a numpy scalar or a NaN duration in
an event can never break the comm.
"""
from __future__ import annotations

from .cells import CellMap
from .protocol import jsonable

MAX_TEXT = 200_000  # the schema's cap on message text


def _seconds(x):
    x = jsonable(x)
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 else None


def _clip(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    note = "\n... (truncated)"
    return text[: MAX_TEXT - len(note)] + note


def event(ev, cells: CellMap) -> dict:
    """A non-execute engine event. NaN events carry the offending equation's
    position (from ``details``) as their location, since they belong to no
    single jitted function."""
    details = jsonable(dict(ev.details or {}))
    if ev.kind == "nan":
        loc = cells.location(details.get("filename"), details.get("lineno"))
        for key in ("primitive", "message", "eqn"):
            details[key] = _clip(str(details.get(key) or ""))
    else:
        loc = cells.location(ev.filename, ev.lineno)
    return {
        "kind": ev.kind,
        "time": float(ev.time),
        "fun_name": str(ev.fun_name),
        "fun_id": max(int(ev.fun_id or 0), 0),
        "location": loc,
        "duration_s": _seconds(ev.duration_s),
        "reasons": [str(r) for r in (ev.reasons or [])],
        "details": details,
    }


MAX_LOCALS = 500  # the schema's cap on a breakpoint's locals


def breakpoint(ev, cells: CellMap) -> dict:
    """A ``breakpoint`` / ``breakpoint_continue`` engine event as the
    ``breakpoint`` message's fields: the stopped frame and its locals' reprs."""
    details = dict(ev.details or {})
    local_reprs = details.get("locals") or {}
    return {
        "status": "stopped" if ev.kind == "breakpoint" else "continued",
        "function": _clip(str(details.get("function") or ev.fun_name or "")),
        "location": cells.location(ev.filename, ev.lineno),
        "locals": [{"name": _clip(str(k)), "repr": _clip(str(v))}
                   for k, v in list(local_reprs.items())[:MAX_LOCALS]],
    }


def function(info, cells: CellMap) -> dict:
    return {
        "fun_id": int(info.fun_id),
        "name": str(info.name),
        "location": cells.location(info.filename, info.lineno),
        "calls": max(int(info.calls), 0),
        "cache_hits": max(int(info.cache_hits), 0),
        "cache_misses": max(int(info.cache_misses), 0),
        "trace_s": _seconds(info.trace_s),
        "lower_s": _seconds(info.lower_s),
        "compile_s": _seconds(info.compile_s),
        "run_s": _seconds(info.run_s),
        "recompile_reasons": [str(r) for r in (info.recompile_reasons or [])],
        "budget_warning": str(info.budget_warning) if info.budget_warning else None,
        "temp_bytes": _bytes(info.temp_bytes),
        "peak_bytes": _bytes(info.peak_bytes),
    }


def _bytes(n):
    return int(n) if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None


def finding(f, fun_name: str, cells: CellMap) -> dict:
    count = getattr(f, "count", None)
    return {
        "kind": str(f.kind),
        "message": _clip(str(f.message)),
        "suggestion": str(f.suggestion or ""),
        "location": cells.location(f.filename, f.lineno),
        "fun_name": str(fun_name),
        "count": int(count) if isinstance(count, int) and count >= 0 else None,
    }


def listing(fun_id: int, name: str, lst, cells: CellMap) -> dict:
    """The ``function`` reply's fields for an ``xjit.inspect.JaxprListing``
    (or None when no jaxpr is recorded): every top-level equation with its
    printed text, primitive and source line. Source lines repeat across an
    unrolled loop's equations, so each distinct one is sent once in
    ``sources`` and equations refer to it by index."""
    if lst is None:
        return {"fun_id": int(fun_id), "name": str(name), "header": None, "footer": None,
                "sources": [], "equations": []}
    index: dict = {}
    sources: list = []
    eqns = []
    for rec in lst.eqns:
        src = None
        if rec.filename is not None or rec.lineno is not None:
            key = (rec.filename, rec.lineno)
            src = index.get(key)
            if src is None:
                src = index[key] = len(sources)
                sources.append(cells.location(rec.filename, rec.lineno))
        eqns.append({"index": int(rec.index), "text": str(rec.text),
                     "primitive": str(rec.primitive)[:200], "nested": bool(rec.nested),
                     "source": src})
    return {"fun_id": int(fun_id), "name": str(name), "header": str(lst.header),
            "footer": str(lst.footer), "sources": sources, "equations": eqns}


def _value_sharding(v) -> dict:
    return {"path": str(v.path), "type": str(v.type), "spec": str(v.spec),
            "axes": [[str(a) for a in axes] for axes in v.axes],
            "replicated": bool(v.replicated),
            "shard_type": f"{v.dtype}[{','.join(str(int(d)) for d in v.shard_shape)}]",
            "shards": [{"device": int(s.device), "index": [[int(a), int(b)] for a, b in s.index],
                        "shape": [int(d) for d in s.shape]} for s in v.shards]}


def sharding(info, cells: CellMap):
    """The ``function`` reply's ``sharding`` for an
    ``xjit.inspect.ShardingInfo`` (None: the function ran on one device)."""
    if info is None:
        return None
    return {
        "mesh": [{"name": str(n), "size": int(s)} for n, s in info.mesh],
        "devices": [int(d) for d in info.devices],
        "platform": str(info.platform),
        "args": [_value_sharding(v) for v in info.args],
        "outs": [_value_sharding(v) for v in info.outs],
        "collectives": [{"kind": c.kind, "name": str(c.name), "shape": str(c.shape),
                         "bytes": int(c.bytes), "operand_bytes": int(c.operand_bytes),
                         "axes": [str(a) for a in c.axes], "groups": _clip(str(c.groups)),
                         "primitive": c.primitive, "location": cells.location(c.filename,
                                                                              c.lineno)}
                        for c in info.collectives],
    }
