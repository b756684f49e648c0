"""The event stream and the per-function registry behind ``xjit.inspect``.

jit reports to this module through ``monitoring``'s jit hook (see
``JitObserver`` there): rare events (cache miss, trace, compile) always
update the registry; per-call work (execute timings, call counts) is only
done while someone subscribes, so an unobserved program pays one attribute
read per call.

Nothing here keeps a jitted function alive: the registry holds weak
references, and a function's records go when it does (or, while someone
subscribes and may still ask about it, when the last subscriber leaves and
the next function is registered).
"""
from __future__ import annotations

import dataclasses
import itertools
import logging
import time
import warnings
import weakref
from typing import Callable

from xjit._src import core, monitoring, traceback_util, tree_util
from xjit._src.config import config
from xjit._src.inspect import explain, observe


@dataclasses.dataclass
class Event:
    kind: str  # 'trace' | 'lower' | 'compile' | 'execute' | 'cache_miss' | 'nan'
    time: float
    fun_name: str
    fun_id: int
    filename: str | None = None
    lineno: int | None = None
    duration_s: float | None = None
    jaxpr: str | None = None
    reasons: list = dataclasses.field(default_factory=list)
    details: dict = dataclasses.field(default_factory=dict)
    eqn_lines: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class CompileRecord:
    """One compile of a function: its signature, and what changed from the
    nearest previous signature (empty for the first compile)."""
    index: int
    time: float
    signature: str
    changes: list  # [explain.Change]

    @property
    def reason(self) -> str:
        return "; ".join(map(str, self.changes)) if self.changes else "first compile"


@dataclasses.dataclass
class FunctionInfo:
    """What xjit knows about one jitted function. ``recompile_reasons`` has one
    entry per recompile (all of them, oldest first); ``compiles`` has every
    compile with its changes as data."""
    name: str
    fun_id: int
    filename: str | None
    lineno: int | None
    calls: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    trace_s: float | None = None
    lower_s: float | None = None
    compile_s: float | None = None
    run_s: float | None = None
    recompile_reasons: list = dataclasses.field(default_factory=list)
    jaxpr: str | None = None
    eqn_lines: list = dataclasses.field(default_factory=list)
    compiles: list = dataclasses.field(default_factory=list)
    budget_warning: str | None = None
    temp_bytes: int | None = None  # the latest executable's scratch memory (memory_analysis)
    peak_bytes: int | None = None  # and its peak of live buffers during a run


class RecompileBudgetError(RuntimeError):
    """A jitted function recompiled more often than ``xjit_recompile_budget``
    allows (raised with ``xjit_recompile_budget_error`` on)."""


class _State:
    """``capture_args`` keeps each function's latest call arguments (to re-run
    it for steady-state timings) while a notebook cell is observed."""
    active = False
    wants_execute = False
    capture_args = False
    subscribers: list = []


state = _State()
_ids = itertools.count(1)
_registry: dict = {}   # fid -> weakref to the jitted function (its callback forgets the fid)
_counters: dict = {}   # fid -> [calls observed] (jit increments it while someone subscribes)
_infos: dict[int, FunctionInfo] = {}
last_jaxpr: dict = {}  # fid -> ClosedJaxpr of the latest trace (text made on demand)
last_key: dict = {}    # fid -> cache key of the latest trace (to re-trace it abstractly)
last_args: dict = {}   # fid -> (args, kwargs) of the latest call, while capture_args
_keys: dict = {}       # fid -> cache keys compiled so far, oldest first
_observations: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # ClosedJaxpr -> obs
_timings: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # ClosedJaxpr -> {phase: s}
_dead: dict = {}       # fid -> None: gone, kept while subscribers may still ask
_purge_pending = False
_DEAD_KEPT = 16  # dead functions kept for subscribers (the latest cell's, say)


class Subscription:
    def __init__(self, callback, kinds=None):
        self.callback = callback
        self.kinds = None if kinds is None else frozenset(kinds)

    def unsubscribe(self):
        if self in state.subscribers:
            state.subscribers.remove(self)
        _refresh()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.unsubscribe()


def subscribe(callback: Callable[[Event], None], kinds=None) -> Subscription:
    """Deliver subsequent events to ``callback`` until unsubscribed; ``kinds``
    restricts them (e.g. ``{"trace", "compile"}``). Per-call ``execute``
    events cost a little on every jitted call, so ask for them only if
    needed: call counts and run times are kept in ``functions()`` anyway
    while anyone subscribes."""
    sub = Subscription(callback, kinds)
    state.subscribers.append(sub)
    _refresh()
    return sub


def _refresh():
    global _purge_pending
    state.active = bool(state.subscribers)
    state.wants_execute = any(s.kinds is None or "execute" in s.kinds for s in state.subscribers)
    monitoring.observing.per_call = state.active
    monitoring.observing.timed = state.wants_execute or state.capture_args
    if not state.active and _dead:
        _purge_pending = True


def emit(event: Event):
    for sub in list(state.subscribers):
        if sub.kinds is not None and event.kind not in sub.kinds:
            continue
        try:
            sub.callback(event)
        except Exception:  # a broken observer must never break the user's program
            logging.getLogger("xjit.inspect").exception("inspect subscriber failed")


def now():
    return time.time()


# --------------------------------------------------------------------------
# Lifetime


def _forget(fid):
    for d in (_infos, last_jaxpr, last_key, last_args, _keys, _dead, _registry, _counters):
        d.pop(fid, None)


def _on_death(fid):
    if fid not in _infos:
        return
    if state.active:  # a subscriber may still ask about it: keep its records a while
        last_args.pop(fid, None)
        _dead[fid] = None
        if len(_dead) > _DEAD_KEPT:
            _forget(next(iter(_dead)))
    else:
        _forget(fid)


def _purge_dead():
    global _purge_pending
    _purge_pending = False
    for fid in list(_dead):
        _forget(fid)


# --------------------------------------------------------------------------
# What jit reports (monitoring.JitObserver)


class _Observer:
    def register(self, jit_fun, name, code) -> int:
        filename = code.co_filename if code is not None else None
        if filename and not traceback_util.include_filename(filename):
            return 0, None  # xjit's own jitted helpers are not reported
        if _purge_pending and not state.active:
            _purge_dead()
        fid = next(_ids)
        _registry[fid] = weakref.ref(jit_fun, lambda _, fid=fid: _on_death(fid))
        _infos[fid] = FunctionInfo(name, fid, filename, code and code.co_firstlineno)
        counter = _counters[fid] = [0]
        return fid, counter

    def cache_miss(self, fid, key, arg_names, static_names):
        info = _infos.get(fid)
        if info is None:
            return
        previous = _keys.get(fid, ())
        changes = explain.nearest(key, previous, arg_names, static_names)[1] if previous else []
        info.cache_misses += 1
        info.compiles.append(CompileRecord(len(info.compiles), now(), _signature(key, arg_names),
                                           changes))
        if previous:
            info.recompile_reasons.append("; ".join(map(str, changes)) or
                                          "key differs in an unhashable detail")
        if config.jax_explain_cache_misses:
            loc = f"{info.filename}:{info.lineno}" if info.filename else None
            explain.log_miss(info.name, id(function(fid)), loc, _callsite(), changes,
                             not previous)
        if state.active:
            emit(Event("cache_miss", now(), info.name, fid, info.filename, info.lineno,
                       reasons=[str(c) for c in changes]))
        if previous:
            _check_budget(info)

    def tracing(self, fid, fun):
        return observe.Recorder(fun)

    def traced(self, fid, key, entry, recorder, cached=True):
        info = _infos.get(fid)
        if info is None:
            return
        _observations[entry.closed] = recorder.finish(entry.closed.jaxpr)
        _timings[entry.closed] = {"trace_s": entry.trace_s}
        info.trace_s = entry.trace_s
        info.jaxpr = None
        last_jaxpr[fid] = entry.closed
        last_key[fid] = key
        if cached:
            _keys.setdefault(fid, []).append(key)
        if state.active:
            text, lines = jaxpr_text_and_lines(entry.closed)
            emit(Event("trace", now(), info.name, fid, info.filename, info.lineno,
                       duration_s=entry.trace_s, jaxpr=text, eqn_lines=lines))

    def compiled(self, fid, entry):
        info = _infos.get(fid)
        if info is None:
            return
        info.lower_s, info.compile_s = entry.lower_s, entry.compile_s
        _timings.setdefault(entry.closed, {}).update(lower_s=entry.lower_s,
                                                     compile_s=entry.compile_s)
        if state.active:
            emit(Event("lower", now(), info.name, fid, info.filename, info.lineno,
                       duration_s=entry.lower_s))
            details = {}
            try:
                cost = entry.executable.exe.cost_analysis() or {}
                details = {"flops": cost.get("flops"), "bytes_accessed": cost.get("bytes accessed")}
            except Exception:  # not every backend reports costs
                pass
            try:
                mem = entry.executable.exe.get_compiled_memory_stats()
                info.temp_bytes, info.peak_bytes = mem.temp_size_in_bytes, mem.peak_memory_in_bytes
                details.update(temp_bytes=info.temp_bytes, peak_bytes=info.peak_bytes)
            except Exception:  # nor memory statistics
                pass
            emit(Event("compile", now(), info.name, fid, info.filename, info.lineno,
                       duration_s=entry.compile_s, details=details))

    def executed(self, fid, name, seconds, args=None, kwargs=None):
        info = _infos.get(fid)
        if info is None:
            return
        _counters[fid][0] += 1
        info.run_s = seconds
        if state.capture_args:
            last_args[fid] = (args, kwargs or {})
        if state.wants_execute:
            emit(Event("execute", now(), name, fid, info.filename, info.lineno,
                       duration_s=seconds))


def _signature(key, arg_names):
    avals = key[3:]
    parts = [f"{arg_names[i] if arg_names and i < len(arg_names) else f'args[{i}]'}: "
             f"{explain._aval_str(a)}" for i, a in enumerate(avals)]
    if key[1]:
        parts.append(f"static {explain._statics(key[1])}")
    return ", ".join(parts)


def _callsite():
    f = core.user_frame()
    return f"{f.f_code.co_filename}:{f.f_lineno} ({f.f_code.co_name})" if f else "unknown"


def _check_budget(info):
    budget = config.xjit_recompile_budget
    recompiles = len(info.compiles) - 1
    if not budget or budget <= 0 or recompiles < budget or info.budget_warning is not None:
        return
    counts: dict = {}
    for rec in info.compiles[1:]:
        for c in rec.changes:
            label = f"config flag {c.where}" if c.what == "config" else \
                f"{c.where or 'the static arguments'} ({c.what})"
            counts[label] = counts.get(label, 0) + 1
    changing = sorted(counts, key=counts.get, reverse=True)
    what = ", ".join(f"{k} in {counts[k]} of them" for k in changing[:3]) or "an unhashable detail"
    msg = (f"jit({info.name}) has recompiled {recompiles} times (xjit_recompile_budget="
           f"{budget}); what keeps changing: {what}. Each new value is a new trace and "
           "compile: mark a changing Python value static only if it takes few values, or "
           "pad/bucket changing shapes.")
    info.budget_warning = msg
    if config.xjit_recompile_budget_error:
        raise RecompileBudgetError(msg)
    f = core.user_frame()  # the warning names the user's call
    if f is None:
        warnings.warn(msg, RuntimeWarning)
    else:
        warnings.warn_explicit(msg, RuntimeWarning, f.f_code.co_filename, f.f_lineno,
                               module=f.f_globals.get("__name__"), registry=f.f_globals.setdefault(
                                   "__warningregistry__", {}))


observer = _Observer()
monitoring.set_jit_observer(observer)


# --------------------------------------------------------------------------
# Queries


def info(fid) -> FunctionInfo:
    return _infos[fid]


def functions() -> list[FunctionInfo]:
    """Every jitted function that has been traced, oldest first."""
    out = []
    for fid, i in list(_infos.items()):
        i.calls = _counters[fid][0] if fid in _counters else i.calls
        if not (i.cache_misses or i.calls):
            continue
        i.cache_hits = max(i.calls - i.cache_misses, 0)
        closed = last_jaxpr.get(fid)
        if i.jaxpr is None and closed is not None:
            i.jaxpr, i.eqn_lines = jaxpr_text_and_lines(closed)
        out.append(i)
    return out


def reset():
    """Forget the recorded statistics (not the functions' caches)."""
    for fid, i in list(_infos.items()):
        _infos[fid] = FunctionInfo(i.name, fid, i.filename, i.lineno)
        _keys.pop(fid, None)
        if fid in _counters:
            _counters[fid][0] = 0


def function(fid):
    """The jitted function object registered under ``fid`` (or None)."""
    ref = _registry.get(fid)
    return ref() if ref is not None else None


def observations(closed):
    """What was seen while tracing the jaxpr ``closed`` (or None)."""
    return _observations.get(closed)


def timings(closed) -> dict:
    """{trace_s, lower_s, compile_s} recorded for the jaxpr ``closed`` (what
    those phases cost when they ran)."""
    return dict(_timings.get(closed, {}))


def abstract_args(fid):
    """(args, kwargs) of the latest traced call of ``fid`` with every array
    replaced by a ShapeDtypeStruct (static arguments kept), carrying its
    sharding where that call ran over many devices."""
    jf, key = function(fid), last_key.get(fid)
    if jf is None or key is None:
        raise KeyError(f"no traced call recorded for function id {fid}")
    from xjit._src.inspect.spmd import in_shardings
    from xjit._src.stages import ShapeDtypeStruct
    out = jf.abstract_call(key)
    shardings = in_shardings(jf, key)
    if shardings is None:
        return out
    it = iter(shardings)  # the structs come in the order of the key's leaves
    return tree_util.tree_map(lambda x: x.update(sharding=next(it)) if isinstance(
        x, ShapeDtypeStruct) else x, out, is_leaf=lambda x: isinstance(x, ShapeDtypeStruct))


def jaxpr_text_and_lines(closed):
    """The printed jaxpr and, for each top-level equation, its source line."""
    lines = [(i, e.source_info.filename, e.source_info.lineno)
             for i, e in enumerate(closed.jaxpr.eqns) if e.source_info is not None]
    return str(closed), lines
