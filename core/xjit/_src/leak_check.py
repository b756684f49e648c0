"""``jax_check_tracer_leaks``: after a trace finishes, any of its tracers that
is still alive was stored somewhere outside the traced function (a global, a
closed-over list, an attribute) and would raise UnexpectedTracerError when used
later. With the flag on, ``trace_to_jaxpr`` calls :func:`check` so the leak is
reported where it happened, naming what holds the tracer, as JAX does.
"""
from __future__ import annotations

import gc
import sys
import types

from . import core

__all__ = ["check"]


def check(trace) -> None:
    """Raise JAX's ``Leaked trace`` Exception if tracers of ``trace`` outlive it."""
    gc.collect()
    leaked = [r for r in gc.get_referrers(trace)
              if isinstance(r, core.Tracer) and r._trace is trace]
    ours = {id(leaked)}
    leaked[:] = [t for t in leaked if _user_reachable(t, ours)]
    if not leaked:
        return
    parts = []
    for t in leaked:
        lines = [repr(t)]
        origin = t._origin()
        if origin:
            lines.append(origin)
        lines.extend(_holders(t, {id(leaked)}))
        parts.append("\n".join(lines))
    raise Exception(f"Leaked trace {trace!r}. Leaked tracer(s):\n\n" + "\n\n".join(parts))


def _user_reachable(tracer, ours, depth=8, budget=2000) -> bool:
    """Whether user state holds ``tracer``: searching back through what refers
    to it reaches a module's globals (outside xjit) or a live user frame.
    Tracers kept only by the engine (a custom_vjp backward closure holding its
    residuals, a cached branch function closing over a value) are not leaks."""
    seen, frontier = {id(tracer)}, [tracer]
    for _ in range(depth):
        nxt = []
        ours.add(id(nxt))
        for obj in frontier:
            refs = gc.get_referrers(obj)
            ours.add(id(refs))
            for r in refs:
                if id(r) in seen or id(r) in ours:
                    continue
                seen.add(id(r))
                if isinstance(r, types.FrameType):
                    if not r.f_code.co_filename.startswith(core._INTERNAL_DIRS):
                        return True
                    continue
                if isinstance(r, dict) and _module_of(r) is not None:
                    if not _module_of(r).startswith("xjit"):
                        return True
                    continue
                nxt.append(r)
        if len(seen) > budget or not nxt:
            return False
        frontier = nxt
    return False


def _module_of(d):
    """The module name of a globals dict (exec namespaces included), else None."""
    if "__builtins__" not in d:
        return None
    name = d.get("__name__")
    return name if isinstance(name, str) else "<globals>"


def _name(obj) -> str:
    return f"<{type(obj).__name__} {id(obj)}>"


def _holders(obj, ours, depth=3):
    """Lines saying which containers (up to ``depth`` levels) hold ``obj``, ending
    at a module global when one is found. ``ours`` holds the ids of this
    module's own lists, which are not holders."""
    lines = []
    for _ in range(depth):
        refs = [r for r in gc.get_referrers(obj)
                if not isinstance(r, types.FrameType) and id(r) not in ours]
        ours.add(id(refs))
        glob = _global_name(obj, refs)
        if glob:
            lines.append(f"{_name(obj)} is referred to by {glob}")
            break
        holder = next((r for r in refs if isinstance(r, (list, tuple, dict, set))
                       or hasattr(r, "__dict__") and not isinstance(r, type)), None)
        if holder is None:
            break
        lines.append(f"{_name(obj)} is referred to by {_name(holder)}{_where(holder, obj)}")
        obj = holder
    return lines


def _global_name(obj, refs):
    for d in refs:
        mod = _module_of(d) if isinstance(d, dict) else None
        if mod is not None:
            for k, v in d.items():
                if v is obj:
                    return f"{mod}.{k}"
    return None


def _where(holder, obj):
    if isinstance(holder, (list, tuple)):
        return next((f"[{i}]" for i, v in enumerate(holder) if v is obj), "")
    if isinstance(holder, dict):
        return next((f"[{k!r}]" for k, v in holder.items() if v is obj), "")
    return ""
