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
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if d is None or not any(r is d for r in refs):
            continue
        for k, v in d.items():
            if v is obj:
                return f"{mod.__name__}.{k}"
    return None


def _where(holder, obj):
    if isinstance(holder, (list, tuple)):
        return next((f"[{i}]" for i, v in enumerate(holder) if v is obj), "")
    if isinstance(holder, dict):
        return next((f"[{k!r}]" for k, v in holder.items() if v is obj), "")
    return ""
