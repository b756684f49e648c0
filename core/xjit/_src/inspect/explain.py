"""Why did a jitted function compile again? Each cache miss is compared with
the nearest previous signature of the same function (fewest differences,
latest on a tie) and every difference is named: which argument (by name and
pytree path) changed shape, dtype or weak type, which static argument changed
value, how the pytree structure changed, or which config flag changed, old →
new. ``jax_explain_cache_misses`` logs the same in JAX's layout."""
from __future__ import annotations

import dataclasses
import enum
import logging

from xjit._src.config import config

logger = logging.getLogger("xjit.cache_miss")


@dataclasses.dataclass(frozen=True)
class Change:
    """One difference between a new signature and the previous one."""
    what: str    # 'shape' | 'dtype' | 'weak type' | 'static' | 'tree' | 'config' | 'axis env'
    where: str   # argument name/path, static argument, or config flag name
    old: str
    new: str

    def __str__(self):
        if self.what == "config":
            return f"config flag {self.where}: {self.old} → {self.new}"
        if self.what == "static":
            at = f" {self.where}" if self.where else "s"
            return f"different value of static argument{at}: now {self.new} and before {self.old}"
        if self.what == "tree":
            return f"different input pytree: now {self.new} and before {self.old}"
        if self.what == "axis env":
            return f"different vmap axes in scope: now {self.new} and before {self.old}"
        return f"different input {self.what} at {self.where}: now {self.new} and before {self.old}"


def _aval_str(a):
    return a.str_short() + ("{weak_type=True}" if a.weak_type else "")


def _flag_str(v):
    return v.value if isinstance(v, enum.Enum) else str(v)


def _split_context(ctx):
    """(config values, vmap axes) of a key's context part."""
    if len(ctx) == 2 and isinstance(ctx[0], tuple) and isinstance(ctx[1], tuple) and \
            len(ctx[0]) == len(config.trace_key_names):
        return ctx
    return ctx, ()


def diff(new, old, arg_names, static_names=()) -> list[Change]:
    """The changes from key ``old`` to key ``new`` (keys laid out as jit's:
    treedef, static key, context, *avals)."""
    changes = []
    (cfg_new, axes_new), (cfg_old, axes_old) = _split_context(new[2]), _split_context(old[2])
    if cfg_new != cfg_old:
        for name, a, b in zip(config.trace_key_names, cfg_new, cfg_old):
            if a != b:
                changes.append(Change("config", name, _flag_str(b), _flag_str(a)))
    if axes_new != axes_old:
        changes.append(Change("axis env", "", str(axes_old), str(axes_new)))
    if new[1] != old[1]:
        changes.extend(_static_changes(new[1], old[1], static_names))
    if new[0] != old[0]:
        changes.append(Change("tree", "", str(old[0]), str(new[0])))
        return changes
    for i, (a, b) in enumerate(zip(new[3:], old[3:])):
        if a != b:
            name = arg_names[i] if arg_names and i < len(arg_names) else f"args[{i}]"
            what = ("weak type" if (a.shape, a.dtype) == (b.shape, b.dtype)
                    else "dtype" if a.shape == b.shape else "shape")
            changes.append(Change(what, name, _aval_str(b), _aval_str(a)))
    return changes


def _static_changes(new, old, static_names):
    """One change per static argument whose value differs."""
    if not new or not old or len(new[0]) != len(old[0]) or \
            [k for k, _ in new[1]] != [k for k, _ in old[1]]:
        return [Change("static", "", _statics(old), _statics(new))]
    out = []
    for i, (a, b) in enumerate(zip(new[0], old[0])):
        if a != b:
            name = static_names[i] if static_names and i < len(static_names) else f"static[{i}]"
            out.append(Change("static", name, repr(b), repr(a)))
    for (k, a), (_, b) in zip(new[1], old[1]):
        if a != b:
            out.append(Change("static", k, repr(b), repr(a)))
    return out


def _statics(key):
    if not key:
        return "()"
    pos, kw = key
    parts = [repr(v) for v in pos] + [f"{k}={v!r}" for k, v in kw]
    return "(" + ", ".join(parts) + ")"


def nearest(new_key, old_keys, arg_names, static_names=()):
    """(nearest previous key, its changes): fewest changes, latest on a tie."""
    best, best_changes = None, None
    for k in old_keys:
        changes = diff(new_key, k, arg_names, static_names)
        if best_changes is None or len(changes) <= len(best_changes):
            best, best_changes = k, changes
    return best, best_changes or []


_first_miss_callsites: set = set()  # call sites that traced a new function (strings only)


def log_miss(fun_name, fun_id, location, callsite, changes, first):
    """Log a cache miss as JAX's ``jax_explain_cache_misses`` does."""
    defined = f" defined at {location}" if location else ""
    lines = [f"TRACING CACHE MISS at {callsite}:"]
    if first:
        lines += ["  never seen function:", f"    {fun_name} id={fun_id}{defined}"]
        if callsite in _first_miss_callsites:
            lines += ["  but seen another function defined on the same line; maybe the function is",
                      "  being re-defined repeatedly, preventing caching?"]
        else:
            _first_miss_callsites.add(callsite)
    else:
        lines += [f"  for {fun_name}{defined}",
                  "  all previously seen cache keys differ. For the closest previous key:"]
        lines += [f"  * {c}" for c in changes] or ["  cache miss explanation unavailable"]
    logger.warning("\n".join(lines))
