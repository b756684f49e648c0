"""Trace-time pitfalls of a jitted function, found by tracing it once.

Kinds: ``unrolled-loop`` (one source line produced many equations: a Python
loop unrolled into the jaxpr), ``print`` (a print or logging call that runs
only while tracing), ``global-read`` (a global or closed-over value baked in
as a constant), ``leaked-tracer`` (a tracer stored where it outlives the
trace), ``large-constant`` (a big host array captured instead of passed).

Names spelled in ALL_CAPS are treated as constants by convention and never
reported as global reads; functions, modules and classes are never data.
"""
from __future__ import annotations

import builtins
import collections
import dataclasses
import dis
import inspect as pyinspect
import logging
import types

import numpy as np

from .. import core

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
    """Trace ``fun`` at these arguments and report what would surprise a user."""
    from xjit._src.pjit import JitFunction
    jf = fun if isinstance(fun, JitFunction) else JitFunction(fun)
    user_fun = pyinspect.unwrap(jf._fun)
    dyn, dkw, static_key = jf._split(args, kwargs)
    from .. import tree_util
    leaves, treedef = tree_util.tree_flatten((dyn, dkw))
    avals = [core.aval_of(x) for x in leaves]
    with _PrintCapture() as prints:
        jaxpr, consts, _, _ = jf._trace(dyn, dkw, static_key, leaves, treedef, avals)
    findings = [Finding("print", f"`{kind}` runs only while tracing: it prints tracers once per "
                        "compilation, not values on every call.", f, ln,
                        "use xjit.debug.print(...) to print runtime values")
                for kind, f, ln in prints]
    findings += _unrolled(jaxpr)
    findings += _global_reads(user_fun)
    findings += _leaked_tracers(user_fun, jaxpr)
    findings += _large_constants(jaxpr, consts)
    return findings


class _PrintCapture:
    """Records print/logging calls made while tracing (they still happen)."""

    def __enter__(self):
        self.found = []
        self._print, self._log = builtins.print, logging.Logger._log
        cap = self

        def print_(*a, **k):
            cap._record("print")
            return cap._print(*a, **k)

        def log_(logger, *a, **k):
            cap._record("logging")
            return cap._log(logger, *a, **k)

        builtins.print = print_
        logging.Logger._log = log_
        return self.found

    def _record(self, kind):
        f = core.user_frame()
        while f is not None and (f.f_code.co_filename == __file__ or
                                 f.f_code.co_filename == logging.__file__):
            f = f.f_back
        if f is not None:
            self.found.append((kind, f.f_code.co_filename, f.f_lineno))

    def __exit__(self, *exc):
        builtins.print, logging.Logger._log = self._print, self._log


def _unrolled(jaxpr) -> list[Finding]:
    per_line = collections.Counter()
    for e in jaxpr.eqns:
        if e.source_info is not None:
            per_line[(e.source_info.filename, e.source_info.lineno)] += 1
    total = max(len(jaxpr.eqns), 1)
    out = []
    for (fname, ln), n in per_line.most_common():
        if n < UNROLL_MIN_EQNS:
            break
        share = n / total
        out.append(Finding(
            "unrolled-loop", f"line {ln} produced {n} equations ({share:.0%} of the jaxpr): a "
            "Python loop is being unrolled at trace time, so tracing and compilation grow with "
            "its length.", fname, ln,
            "express the loop with lax.fori_loop or lax.scan so it compiles once", n, share))
    return out


def _is_data(v):
    from ..array import ArrayImpl
    return isinstance(v, (np.ndarray, np.generic, ArrayImpl, int, float, complex)) and \
        not isinstance(v, bool)


def _load_lines(code, names):
    """First line where each name is loaded as a global or free variable."""
    lines = {}
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_NAME") and \
                ins.argval in names and ins.argval not in lines:
            lines[ins.argval] = ins.positions.lineno if ins.positions else code.co_firstlineno
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            for k, v in _load_lines(const, names).items():
                lines.setdefault(k, v)
    return lines


def _global_reads(fun) -> list[Finding]:
    code = getattr(fun, "__code__", None)
    if code is None:
        return []
    candidates = {}
    g = getattr(fun, "__globals__", {})
    for name in code.co_names:
        if name in g and _is_data(g[name]) and not name.isupper():
            candidates[name] = ("global", g[name])
    for name, cell in zip(code.co_freevars, fun.__closure__ or ()):
        try:
            val = cell.cell_contents
        except ValueError:
            continue
        if _is_data(val) and not name.isupper():
            candidates[name] = ("closed-over", val)
    lines = _load_lines(code, set(candidates))
    out = []
    for name, (where, val) in candidates.items():
        shown = core.aval_of(val).str_short(False) + " array" if np.ndim(val) else repr(val)
        out.append(Finding(
            "global-read", f"{where} `{name}` is read at trace time: its value ({shown}) is baked "
            "into the compiled function as a constant, and later changes to it are ignored until "
            "the function is retraced.", code.co_filename, lines.get(name, code.co_firstlineno),
            f"pass `{name}` as an argument (static_argnums if it must be a Python value)"))
    return out


def _tracers_in(value, depth=2):
    from ..core import Tracer
    if isinstance(value, Tracer):
        yield value
        return
    if depth == 0:
        return
    if isinstance(value, (list, tuple, set)):
        for v in value:
            yield from _tracers_in(v, depth - 1)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tracers_in(v, depth - 1)
    elif hasattr(value, "__dict__") and not isinstance(value, (types.ModuleType, type,
                                                                 types.FunctionType)):
        for v in vars(value).values():
            yield from _tracers_in(v, depth - 1)


def _leaked_tracers(fun, jaxpr) -> list[Finding]:
    places = []
    for name, val in list(getattr(fun, "__globals__", {}).items()):
        places.append((f"global `{name}`", val))
    code = getattr(fun, "__code__", None)
    for name, cell in zip(code.co_freevars if code else (), getattr(fun, "__closure__", None) or ()):
        try:
            places.append((f"closed-over `{name}`", cell.cell_contents))
        except ValueError:
            continue
    producers = {v: e for e in jaxpr.eqns for v in e.outvars}
    ours = set(producers) | set(jaxpr.invars)
    out = []
    for where, val in places:
        for t in _tracers_in(val):
            var = getattr(t, "var", None)
            if var not in ours:  # only tracers of this trace
                continue
            src = producers[var].source_info if var in producers else None
            fname = src.filename if src else (code.co_filename if code else None)
            ln = src.lineno if src else (code.co_firstlineno if code else None)
            out.append(Finding(
                "leaked-tracer", f"a tracer ({t!r}) was stored in {where} and outlived the trace; "
                "using it later raises UnexpectedTracerError.", fname, ln,
                "return values from the function instead of storing them in outer state"))
            break
    return out


def _large_constants(jaxpr, consts) -> list[Finding]:
    out = []
    for v, c in zip(jaxpr.constvars, consts):
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
