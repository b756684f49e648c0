"""The event stream and the per-function registry behind ``xjit.inspect``.

jit reports what it does (trace, lower, compile, execute, cache miss) here.
Rare events (trace/compile) always update the registry; per-call work
(execute timings, call counts) is only done while someone subscribes, so an
unobserved program pays one attribute read per call.
"""
from __future__ import annotations

import dataclasses
import itertools
import time
import weakref
from typing import Any, Callable


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
class FunctionInfo:
    """What xjit knows about one jitted function."""
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


class _State:
    """``active`` is the flag read on the hot path. ``capture_args`` keeps
    each function's latest call arguments (for re-running it to time the
    steady state) while a notebook cell is being observed."""
    active = False
    wants_execute = False
    capture_args = False
    subscribers: list = []


state = _State()
_ids = itertools.count(1)
_registry: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()
_infos: dict[int, FunctionInfo] = {}


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
    state.active = bool(state.subscribers)
    state.wants_execute = any(s.kinds is None or "execute" in s.kinds for s in state.subscribers)


def emit(event: Event):
    if event.fun_id in internal_fids:
        return
    for sub in list(state.subscribers):
        if sub.kinds is not None and event.kind not in sub.kinds:
            continue
        try:
            sub.callback(event)
        except Exception:  # a broken observer must never break the user's program
            import logging
            logging.getLogger("xjit.inspect").exception("inspect subscriber failed")


internal_fids: set = set()  # jitted helpers of xjit itself (jnp.where, ...): not reported


def register(fun_obj, name, filename, lineno) -> int:
    fid = next(_ids)
    _registry[fid] = fun_obj
    _infos[fid] = FunctionInfo(name, fid, filename, lineno)
    from ..core import _is_internal
    if filename and _is_internal(filename):
        internal_fids.add(fid)
    return fid


def info(fid) -> FunctionInfo:
    return _infos[fid]


def functions() -> list[FunctionInfo]:
    """Every jitted function that has been traced, oldest first."""
    out = []
    for fid, i in _infos.items():
        if not (i.cache_misses or i.calls) or fid in internal_fids:
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


def now():
    return time.time()


last_jaxpr: dict = {}  # fid -> ClosedJaxpr of the latest trace (text made on demand)
last_key: dict = {}    # fid -> cache key of the latest trace (to re-trace it abstractly)


def function(fid):
    """The jitted function object registered under ``fid`` (or None)."""
    return _registry.get(fid)


def abstract_args(fid):
    """(args, kwargs) of the latest traced call of ``fid`` with every array
    replaced by a ShapeDtypeStruct (static arguments kept)."""
    from .. import tree_util
    from ..api import ShapeDtypeStruct
    jf, key = _registry.get(fid), last_key.get(fid)
    if jf is None or key is None:
        raise KeyError(f"no traced call recorded for function id {fid}")
    treedef, static_key, _, *avals = key
    leaves = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in avals]
    dyn, dkw = tree_util.tree_unflatten(treedef, leaves)
    return jf._merge(dyn, dkw, static_key)


def jaxpr_text_and_lines(closed):
    """The printed jaxpr and, for each top-level equation, its source line."""
    lines = [(i, e.source_info.filename, e.source_info.lineno)
             for i, e in enumerate(closed.jaxpr.eqns) if e.source_info is not None]
    return str(closed), lines


def record_compile(entry):
    fid = entry.fid
    if not fid:
        return
    i = _infos[fid]
    i.lower_s, i.compile_s = entry.lower_s, entry.compile_s
    if state.active:
        emit(Event("lower", now(), i.name, fid, i.filename, i.lineno, duration_s=entry.lower_s))
        details = {}
        try:
            cost = entry.executable.exe.cost_analysis() or {}
            details = {"flops": cost.get("flops"), "bytes_accessed": cost.get("bytes accessed")}
        except Exception:  # not every backend reports costs
            pass
        emit(Event("compile", now(), i.name, fid, i.filename, i.lineno,
                   duration_s=entry.compile_s, details=details))


last_args: dict = {}  # fid -> (args, kwargs) of the latest call, while capture_args


def record_execute(fid, name, seconds, args=None, kwargs=None):
    i = _infos[fid]
    i.calls += 1
    i.run_s = seconds
    if state.capture_args:
        last_args[fid] = (args, kwargs or {})
    if state.wants_execute:
        emit(Event("execute", now(), name, fid, i.filename, i.lineno, duration_s=seconds))
