"""Why did a jitted function retrace? Compare a new cache key with the keys
seen before and name what differs: an argument's shape, dtype or weak type,
a static argument's value, the pytree structure, or a config flag."""
from __future__ import annotations

import logging

from ..config import config

logger = logging.getLogger("xjit.cache_miss")


def _aval_str(a):
    return a.str_short() + ("{weak_type=True}" if a.weak_type else "")


def _diff(new, old, arg_names):
    """Reasons why key ``new`` differs from key ``old`` (same layout as
    ``JitFunction`` keys: treedef, static key, config key, *avals)."""
    reasons = []
    if new[0] != old[0]:
        reasons.append(f"different input pytree: now {new[0]} and before {old[0]}")
    if new[1] != old[1]:
        reasons.append(f"different value of static args: now {_statics(new[1])} and before "
                       f"{_statics(old[1])}")
    if new[2] != old[2]:
        reasons.append("different config flags (jax_enable_x64, debug_nans, ...) "
                       f"now {new[2]} and before {old[2]}")
    if new[0] == old[0]:
        for i, (a, b) in enumerate(zip(new[3:], old[3:])):
            if a != b:
                name = arg_names[i] if arg_names and i < len(arg_names) else f"args[{i}]"
                what = ("weak type" if (a.shape, a.dtype) == (b.shape, b.dtype)
                        else "dtype" if a.shape == b.shape else "shape")
                reasons.append(f"different input {what} at {name}: now {_aval_str(a)} and before "
                               f"{_aval_str(b)}")
    return reasons


def _statics(key):
    if not key:
        return "()"
    pos, kw = key
    parts = [repr(v) for v in pos] + [f"{k}={v!r}" for k, v in kw]
    return "(" + ", ".join(parts) + ")"


def explain(fun_name, location, new_key, old_keys, arg_names) -> list[str]:
    """Reasons for a cache miss, closest previous key first; logs them when
    ``jax_explain_cache_misses`` is on."""
    if not old_keys:
        reasons = ["never seen function"]
    else:
        best = min(old_keys, key=lambda k: len(_diff(new_key, k, arg_names)))
        reasons = _diff(new_key, best, arg_names) or ["key differs in an unhashable detail"]
    if config.jax_explain_cache_misses:
        head = f"TRACING CACHE MISS for {fun_name} defined at {location}"
        logger.warning("%s:\n  %s", head, "\n  ".join(reasons))
    return reasons
