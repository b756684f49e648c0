"""Trace-time pitfalls of a jitted function, found from the trace that
happened: its jaxpr, and what was observed while jit traced it (see
``observe``). ``lint`` never re-runs the user's function; on a signature not
traced yet it traces once, exactly as calling the jitted function would.

Kinds: ``unrolled-loop`` (a source line applied many primitives: a Python
loop unrolled into the jaxpr), ``print`` (a print or logging call that runs
only while tracing), ``global-read`` (a global or closed-over value, possibly
read through a container or attribute, baked in as a constant),
``leaked-tracer`` (a tracer stored where it outlives the trace),
``large-constant`` (a big host array captured instead of passed).

Equations made by transformations (the backward pass, vmap) carry the source
info of the forward equation they derive from, so they point at the user's
forward line and do not count again towards a loop. Names spelled in
ALL_CAPS are treated as constants by convention and never reported as global
reads. No finding points into xjit (or a path excluded from tracebacks).
"""
from __future__ import annotations

import collections
import dataclasses

from xjit._src import core, traceback_util

UNROLL_MIN_EQNS = 16
LARGE_CONSTANT_BYTES = 1 << 20


@dataclasses.dataclass
class Finding:
    kind: str
    message: str
    filename: str | None
    lineno: int | None
    suggestion: str = ""
    count: int | None = None
    share: float | None = None


def lint(fun, *args, **kwargs) -> list[Finding]:
    """Findings for ``jit(fun)`` at these arguments, from its recorded trace
    (traced now, once, if this signature was never traced)."""
    from xjit._src.pjit import jit
    from xjit._src.inspect.events import observations
    jf = fun if hasattr(fun, "trace") and hasattr(fun, "lower") else jit(fun)
    closed = jf.trace(*args, **kwargs).jaxpr
    return findings_of(closed, observations(closed))


def findings_of(closed, obs) -> list[Finding]:
    """Findings from a traced jaxpr and the observations of its trace (or None)."""
    jaxpr = closed.jaxpr if isinstance(closed, core.ClosedJaxpr) else closed
    found = []
    if obs is not None:
        found += [Finding("print", f"`{kind}` runs only while tracing: it prints tracers once "
                          "per compilation, not values on every call.", f, ln,
                          "use xjit.debug.print(...) to print runtime values")
                  for kind, f, ln in obs.prints]
    found += _unrolled(jaxpr)
    if obs is not None:
        found += [_global_read(r) for r in obs.reads]
        found += [_leaked(e) for e in obs.escapes]
    found += _large_constants(jaxpr, closed.consts if isinstance(closed, core.ClosedJaxpr) else [])
    return [f for f in found if f.filename is None or traceback_util.include_filename(f.filename)]


def _forward_applications(jaxpr, per_line):
    """Count, per source line, the primitive applications the user's forward
    code made: equations sharing one SourceInfo object come from one
    application (its transpose or batched copy), so each object counts once.
    Bodies of nested jit calls are counted where their lines are."""
    for e in jaxpr.eqns:
        src = e.source_info
        if src is not None:
            per_line[(src.filename, src.lineno)].add(id(src))
        if e.primitive.name in ("jit", "pjit"):
            inner = e.params.get("jaxpr")
            if inner is not None:
                _forward_applications(inner.jaxpr if isinstance(inner, core.ClosedJaxpr) else inner,
                                      per_line)


def _unrolled(jaxpr) -> list[Finding]:
    per_line: dict = collections.defaultdict(set)
    _forward_applications(jaxpr, per_line)
    total = max(sum(len(s) for s in per_line.values()), 1)
    out = []
    for (fname, ln), apps in sorted(per_line.items(), key=lambda kv: -len(kv[1])):
        n = len(apps)
        if n < UNROLL_MIN_EQNS:
            break
        if not traceback_util.include_filename(fname):
            continue
        share = n / total
        out.append(Finding(
            "unrolled-loop", f"line {ln} produced {n} equations ({share:.0%} of the jaxpr): a "
            "Python loop is being unrolled at trace time, so tracing and compilation grow with "
            "its length.", fname, ln,
            "express the loop with lax.fori_loop or lax.scan so it compiles once", n, share))
    return out


def _global_read(r) -> Finding:
    return Finding(
        "global-read", f"{r.scope} `{r.path}` is read at trace time: its value when traced "
        f"({r.value}) is baked into the compiled function as a constant, and later changes to "
        "it are ignored until the function is retraced.", r.filename, r.lineno,
        f"pass `{r.path}` as an argument (static_argnums if it must be a Python value)")


def _leaked(e) -> Finding:
    created = (f"created at {e.created_filename}:{e.created_lineno}" if e.created_lineno
               else f"the traced {e.created_what}")
    return Finding(
        "leaked-tracer", f"a tracer ({e.tracer}, {created}) escaped into {e.holder} at line "
        f"{e.lineno} and outlived the trace; using it later raises UnexpectedTracerError.",
        e.filename, e.lineno,
        "return values from the function instead of storing them in outer state")


def _large_constants(jaxpr, consts) -> list[Finding]:
    out = []
    for v in jaxpr.constvars:
        nbytes = v.aval.size * v.aval.dtype.itemsize
        if nbytes < LARGE_CONSTANT_BYTES:
            continue
        user = next((e for e in jaxpr.eqns if v in e.invars and e.source_info), None)
        src = user.source_info if user else None
        out.append(Finding(
            "large-constant", f"a {v.aval.str_short(False)} array ({nbytes / 2**20:.1f} MiB) is "
            "captured as a constant: it is embedded in the compiled program and copied at every "
            "compilation.", src.filename if src else None, src.lineno if src else None,
            "pass the array as an argument of the jitted function"))
    return out
