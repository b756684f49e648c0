"""What happened while jit traced a function, recorded as it happened, for
``lint``: prints and logging calls, the global and closed-over values read
(through containers ``G["y"]`` and attributes ``cfg.lr`` too) with the value
each had, and tracers that escaped into outer state (where they were created
and the line that stored them).

Only descriptions are kept (file, line, a short rendering of the value),
never the values or tracers themselves. Reads are found from the bytecode of
the traced function and the user functions it references (cached per code
object); their values are read when tracing starts.
"""
from __future__ import annotations

import builtins
import dataclasses
import dis
import inspect as pyinspect
import logging
import sys
import threading
import types
import weakref

import numpy as np

from xjit._src import core, traceback_util

_MUTATORS = frozenset(("append", "extend", "insert", "add", "update", "setdefault",
                       "__setitem__", "appendleft", "put"))
_HELPER_DEPTH = 2


@dataclasses.dataclass(frozen=True)
class Read:
    """A global or closed-over value read at trace time."""
    scope: str        # 'global' | 'closed-over'
    path: str         # 'lr', 'G["y"]', 'cfg.lr'
    value: str        # the value the trace saw, rendered
    filename: str
    lineno: int


@dataclasses.dataclass(frozen=True)
class Escape:
    """A tracer stored into state that outlives the trace."""
    holder: str       # "global `leaked`"
    tracer: str       # repr of the tracer
    filename: str | None
    lineno: int | None          # where it was stored
    created_filename: str | None
    created_lineno: int | None  # where it was created (or None for an argument)
    created_what: str           # 'equation' | 'argument <name>'


@dataclasses.dataclass
class Observations:
    prints: list = dataclasses.field(default_factory=list)   # [(kind, filename, lineno)]
    reads: list = dataclasses.field(default_factory=list)    # [Read]
    escapes: list = dataclasses.field(default_factory=list)  # [Escape]


# --------------------------------------------------------------------------
# Bytecode analysis (cached per code object)


@dataclasses.dataclass
class _CodeFacts:
    loads: list        # [(scope, root name, path steps, lineno)]; steps: ('attr', a)|('item', k)
    stores: dict       # root name -> [lineno] where outer state named so is written
    names: set         # every global/free name loaded (helpers are looked up here)


_facts_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _facts(code) -> _CodeFacts:
    facts = _facts_cache.get(code)
    if facts is None:
        facts = _facts_cache[code] = _analyse(code, frozenset(code.co_cellvars))
    return facts


def _analyse(code, local_cells) -> _CodeFacts:
    loads, stores, names = [], {}, set()
    ins = list(dis.get_instructions(code))
    for i, x in enumerate(ins):
        line = x.positions.lineno if x.positions and x.positions.lineno else code.co_firstlineno
        if x.opname in ("STORE_GLOBAL", "STORE_DEREF") and x.argval not in local_cells:
            stores.setdefault(x.argval, []).append(line)
            continue
        if x.opname not in ("LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLASSDEREF"):
            continue
        if x.argval in local_cells:
            continue
        scope = "global" if x.opname == "LOAD_GLOBAL" else "closed-over"
        names.add(x.argval)
        steps, j = [], i + 1
        while j < len(ins):
            y = ins[j]
            if y.opname == "LOAD_ATTR":
                steps.append(("attr", y.argval))
                j += 1
            elif y.opname == "LOAD_CONST" and j + 1 < len(ins) and \
                    ins[j + 1].opname == "BINARY_SUBSCR" and \
                    isinstance(y.argval, (str, int)):
                steps.append(("item", y.argval))
                j += 2
            else:
                break
        nxt = ins[j] if j < len(ins) else None
        if nxt is not None and (nxt.opname in ("STORE_ATTR", "STORE_SUBSCR") or
                                nxt.opname == "LOAD_METHOD" and nxt.argval in _MUTATORS):
            stores.setdefault(x.argval, []).append(line)
        if nxt is not None and nxt.opname == "LOAD_METHOD":
            continue  # a method call, not a read of data
        if nxt is not None and nxt.opname == "LOAD_CONST" and j + 1 < len(ins) and \
                ins[j + 1].opname == "STORE_SUBSCR":
            stores.setdefault(x.argval, []).append(line)
        loads.append((scope, x.argval, tuple(steps), line))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            inner = _analyse(const, local_cells | frozenset(const.co_cellvars))
            loads.extend(inner.loads)
            names |= inner.names
            for k, v in inner.stores.items():
                stores.setdefault(k, []).extend(v)
    return _CodeFacts(loads, stores, names)


# --------------------------------------------------------------------------
# Values


def _is_data(v):
    from xjit._src.array import ArrayImpl
    return isinstance(v, (np.ndarray, np.generic, ArrayImpl, int, float, complex)) and \
        not isinstance(v, bool)


def _static_get(obj, step):
    """One access step without running user code (no properties, no __getitem__
    overrides): dict/list/tuple items and plain attributes only."""
    kind, key = step
    if kind == "item":
        if type(obj) in (dict, list, tuple):
            return obj[key]
        raise LookupError
    if isinstance(obj, types.ModuleType):
        return obj.__dict__[key]
    d = getattr(obj, "__dict__", None)
    if isinstance(d, dict) and key in d:
        return d[key]
    raise LookupError


def render_value(v) -> str:
    if isinstance(v, (int, float, complex, np.generic)) or (hasattr(v, "shape") and not v.shape):
        try:
            return repr(v.item() if hasattr(v, "item") else v)
        except Exception:  # a rendering must never fail a trace
            return "?"
    aval = core.aval_of(v)
    return aval.str_short(False) + " array"


def _path_str(root, steps):
    out = root
    for kind, key in steps:
        out += f".{key}" if kind == "attr" else f"[{key!r}]"
    return out


def _user_module(m):
    f = getattr(m, "__file__", None)
    return bool(f) and traceback_util.include_filename(f) and not f.startswith(_LIBRARY_PREFIXES)


_LIBRARY_PREFIXES = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix})


def _user_function(v):
    return isinstance(v, types.FunctionType) and traceback_util.include_filename(v.__code__.co_filename)


def _namespaces(fun):
    """(globals, {free name: cell value}) of ``fun``."""
    g = getattr(fun, "__globals__", {})
    cells = {}
    code = fun.__code__
    for name, cell in zip(code.co_freevars, fun.__closure__ or ()):
        try:
            cells[name] = cell.cell_contents
        except ValueError:
            continue
    return g, cells


def _functions(fun):
    """``fun`` and the user functions it references, to ``_HELPER_DEPTH`` levels."""
    seen, frontier = [fun], [fun]
    for _ in range(_HELPER_DEPTH):
        nxt = []
        for f in frontier:
            g, cells = _namespaces(f)
            for name in _facts(f.__code__).names:
                v = cells.get(name, g.get(name))
                if _user_function(v) and all(v is not s for s in seen):
                    seen.append(v)
                    nxt.append(v)
        frontier = nxt
    return seen


def reads_of(fun) -> list[Read]:
    """The data values ``fun`` (and its helpers) read from outer state, now."""
    out, seen = [], set()
    for f in _functions(fun):
        g, cells = _namespaces(f)
        filename = f.__code__.co_filename
        for scope, root, steps, line in _facts(f.__code__).loads:
            ns = cells if scope == "closed-over" else g
            if root not in ns:
                continue
            try:
                v = ns[root]
                if isinstance(v, types.ModuleType) and not _user_module(v):
                    continue  # np.pi, math.e: library constants, not state
                for step in steps:
                    v = _static_get(v, step)
            except (LookupError, TypeError, IndexError):
                continue
            path = _path_str(root, steps)
            if not _is_data(v) or (root.isupper() and not steps) or (filename, path) in seen:
                continue
            seen.add((filename, path))
            out.append(Read(scope, path, render_value(v), filename, line))
    return out


# --------------------------------------------------------------------------
# Recording during a trace


class _Hooks:
    """``print`` and ``logging`` hooks, installed while any thread traces:
    each call is recorded by the innermost recorders of the calling thread
    (a print inside a nested trace happened in the outer trace too)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.count = 0
        self.local = threading.local()
        self.print = self.log = None

    def push(self, rec):
        stack = self.local.__dict__.setdefault("stack", [])
        stack.append(rec)
        with self.lock:
            self.count += 1
            if self.count == 1:
                self.print, self.log = builtins.print, logging.Logger._log
                builtins.print, logging.Logger._log = _print_hook, _log_hook

    def pop(self, rec):
        self.local.stack.remove(rec)
        with self.lock:
            self.count -= 1
            if self.count == 0:
                builtins.print, logging.Logger._log = self.print, self.log

    def _record(self, kind):
        stack = getattr(self.local, "stack", None)
        if not stack:  # another thread's output, not a trace's
            return
        f = core.user_frame()
        while f is not None and f.f_code.co_filename in (__file__, logging.__file__):
            f = f.f_back
        if f is not None:
            for rec in stack:
                rec.observations.prints.append((kind, f.f_code.co_filename, f.f_lineno))



def _print_hook(*a, **k):
    _hooks._record("print")
    return _hooks.print(*a, **k)


def _log_hook(logger, *a, **k):  # installed as Logger._log
    _hooks._record("logging")
    return _hooks.log(logger, *a, **k)


_hooks = _Hooks()


class Recorder:
    """Context manager around one jit trace; ``observations`` fills in."""

    def __init__(self, fun):
        self.fun = pyinspect.unwrap(fun)
        self.observations = Observations()

    def __enter__(self):
        if isinstance(self.fun, types.FunctionType):
            try:
                self.observations.reads = reads_of(self.fun)
            except Exception:  # observing must never break the user's trace
                logging.getLogger("xjit.inspect").debug("reads not recorded", exc_info=True)
        _hooks.push(self)
        return self

    def __exit__(self, *exc):
        _hooks.pop(self)
        return False

    def finish(self, jaxpr) -> Observations:
        """The observations, with the escapes of ``jaxpr``'s tracers; the
        function is dropped (observations must not keep it alive)."""
        try:
            self.observations.escapes = find_escapes(self.fun, jaxpr)
        except Exception:  # observing must never break the user's trace
            logging.getLogger("xjit.inspect").debug("escapes not recorded", exc_info=True)
        self.fun = None
        return self.observations


def find_escapes(fun, jaxpr) -> list[Escape]:
    """Tracers of ``jaxpr``'s trace that ``fun`` (or a helper) stored in outer state."""
    fun = pyinspect.unwrap(fun)
    if not isinstance(fun, types.FunctionType):
        return []
    producers = {v: e for e in jaxpr.eqns for v in e.outvars}
    arg_index = {v: i for i, v in enumerate(jaxpr.invars)}
    names = jaxpr.debug_info.arg_names if jaxpr.debug_info is not None else None
    out = []
    for f in _functions(fun):
        g, cells = _namespaces(f)
        facts = _facts(f.__code__)
        for root, lines in facts.stores.items():
            scope, ns = ("closed-over", cells) if root in cells else ("global", g)
            if root not in ns:
                continue
            for t in _tracers_in(ns[root]):
                var = getattr(t, "var", None)
                if var not in producers and var not in arg_index:
                    continue
                if var in producers and producers[var].source_info is not None:
                    src = producers[var].source_info
                    created = (src.filename, src.lineno, "equation")
                else:
                    i = arg_index.get(var)
                    name = names[i] if names and i is not None and i < len(names) else "?"
                    created = (None, None, f"argument {name}")
                out.append(Escape(f"{scope} `{root}`", repr(t), f.__code__.co_filename,
                                  lines[0], *created))
                break
    return out


def _tracers_in(value, depth=3):
    if isinstance(value, core.Tracer):
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
