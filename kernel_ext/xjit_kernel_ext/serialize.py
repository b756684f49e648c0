"""Turn ``xjit.inspect`` objects into ``xjit/1`` protocol dictionaries.

Strings are passed through untouched: escaping is the renderer's job, and the
panel only ever assigns them as text (never as HTML). Everything else is made
plain JSON (see ``protocol.jsonable``) so a numpy scalar or a NaN duration in
an event can never break the comm.
"""
from __future__ import annotations

import re

from .cells import CellMap
from .protocol import jsonable

MAX_TEXT = 200_000  # the schema's cap on jaxpr / message text


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
    }


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


_EQN_START = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*:[^\s=]+ )+= ")


def unflatten_jaxpr(jaxpr: str) -> str:
    """The multi-line form of a jaxpr the printer put on one line.

    Short jaxprs print flat (``{ lambda ; a:f32[3]. let b:f32[3] = sin a in
    (b,) }``), which leaves nothing per equation to click. Split at the
    top-level ``let``, at each top-level equation start (typed out-variables
    then ``=``; invars print untyped and literals start with a digit, so they
    never match) and at the top-level ``in``; brackets of nested jaxprs and
    parameters are skipped. Anything unexpected returns the text unchanged.
    """
    if "\n" in jaxpr or not jaxpr.startswith("{ lambda") or not jaxpr.endswith("}"):
        return jaxpr
    depth, cuts, let_at, in_at, skip = 0, [], None, None, 0
    for i, ch in enumerate(jaxpr):
        if i < skip:
            continue
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif depth == 1 and ch == " ":
            rest = jaxpr[i + 1:]
            if let_at is None:
                if rest.startswith("let "):
                    let_at = i + 4
            elif rest.startswith("in ") or rest.startswith("in("):
                in_at = i
                break
            elif (m := _EQN_START.match(rest)) and i > let_at:
                cuts.append(i)
                skip = i + 1 + m.end()  # the rest of this equation's outvars
    if let_at is None or in_at is None:
        return jaxpr
    body_start = let_at + 1
    starts = [body_start] + [c + 1 for c in cuts if c + 1 > body_start]
    ends = starts[1:] + [in_at]
    # the flat form separates equations with "; "
    eqns = [jaxpr[a:b].strip().removesuffix(";").rstrip() for a, b in zip(starts, ends)]
    lines = [jaxpr[:let_at].rstrip()] + ["    " + e for e in eqns if e]
    lines.append("  " + jaxpr[in_at + 1:].strip())
    return "\n".join(lines)


def equation_text_lines(jaxpr: str) -> list[int]:
    """Line numbers (0-based) of the printed jaxpr where each top-level
    equation starts, in equation order.

    The printer puts ``let`` at the end of the header line, one top-level
    equation per line at a fixed indent (continuation lines of an equation
    with a nested jaxpr are indented deeper), and closes with ``in (...)``
    at a shallower indent.
    """
    lines = jaxpr.split("\n")
    if len(lines) < 2 or not lines[0].rstrip().endswith("let"):
        return []
    starts, indent = [], None
    for i, line in enumerate(lines[1:], start=1):
        stripped = line.lstrip(" ")
        depth = len(line) - len(stripped)
        if indent is None:
            if stripped.startswith("in "):
                break
            indent = depth
        if depth < indent:
            break
        if depth == indent and stripped and not stripped.startswith("]"):
            starts.append(i)
    return starts


def equations(jaxpr: str | None, eqn_lines, cells: CellMap) -> list[dict]:
    """Per-equation source positions, each with the printed line (0-based) of
    ``jaxpr`` where the equation starts (pass the text the panel shows)."""
    starts = equation_text_lines(jaxpr) if jaxpr else []
    out = []
    for item in eqn_lines or []:
        try:
            index, filename, lineno = item
            index = int(index)
        except (TypeError, ValueError):
            continue
        if index < 0:
            continue
        out.append({
            "index": index,
            "text_line": starts[index] if index < len(starts) else None,
            "location": cells.location(filename, lineno),
        })
    return out
