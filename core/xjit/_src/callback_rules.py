"""How host callbacks behave under ``grad`` and ``vmap``, as in JAX.

Debug callbacks see primal values under differentiation and run once per
example under ``vmap``. ``pure_callback``/``io_callback`` refuse JVPs (wrap
them in ``custom_jvp``), and batch according to ``vmap_method``.
"""
from __future__ import annotations

import numpy as np

from xjit._src.interpreters import ad, batching
from xjit._src import core
from xjit._src.callback import io_callback_p, pure_callback_p
from .checkify import check_p
from .debugging import debug_callback_p, debug_print_p
from xjit._src.lax import lax


def _primal_only(prim):
    def rule(primals, tangents, **params):
        return prim.bind(*primals, **params), []
    return rule


def _axis_size(args, dims):
    return next(core.aval_of(x).shape[d] for x, d in zip(args, dims) if d is not None)


def _index(x, d, i):
    """Example ``i`` of a batched value (slice then squeeze, as JAX prints it)."""
    if d is None:
        return x
    shape = core.aval_of(x).shape
    start = [0] * len(shape)
    limit = list(shape)
    start[d], limit[d] = i, i + 1
    return lax.squeeze(lax.slice(x, start, limit, (1,) * len(shape)), (d,))


def _per_example(prim):
    def rule(args, dims, **params):
        for i in range(_axis_size(args, dims)):
            prim.bind(*[_index(x, d, i) for x, d in zip(args, dims)], **params)
        return [], []
    return rule


for _p in (debug_print_p, debug_callback_p, check_p):
    ad.jvp_rules[_p] = _primal_only(_p)
    batching.batch_rules[_p] = _per_example(_p)


def _no_jvp(message):
    def rule(primals, tangents, **params):
        raise ValueError(message)
    return rule


ad.jvp_rules[pure_callback_p] = _no_jvp(
    "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while "
    "taking gradients.")
ad.jvp_rules[io_callback_p] = _no_jvp(
    "IO callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while "
    "taking gradients.")

_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized")


def _sequential(callback, dims, size):
    """A callback that loops over the examples on the host and stacks."""
    def batched(*args):
        outs = [callback(*[a if d is None else np.take(a, i, axis=d)
                           for a, d in zip(args, dims)]) for i in range(size)]
        flat = [o if isinstance(o, (tuple, list)) else (o,) for o in outs]
        return tuple(np.stack([np.asarray(f[k]) for f in flat]) for k in range(len(flat[0])))
    return batched


def _vectorized(callback, dims, size, broadcast_all):
    def batched(*args):
        moved = []
        for a, d in zip(args, dims):
            a = np.asarray(a)
            if d is None:
                a = np.broadcast_to(a, (size,) + a.shape) if broadcast_all else a[None]
            else:
                a = np.moveaxis(a, d, 0)
            moved.append(a)
        return callback(*moved)
    return batched


def _pure_callback_batch(args, dims, *, callback, result_avals, vmap_method=None, **params):
    if vmap_method not in _VMAP_METHODS:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={vmap_method}.")
    size = _axis_size(args, dims)
    if vmap_method.startswith("sequential"):
        cb = _sequential(callback, dims, size)
    else:
        cb = _vectorized(callback, dims, size, vmap_method == "broadcast_all")
    avals = tuple(a.update(shape=(size,) + a.shape) for a in result_avals)
    outs = pure_callback_p.bind(*args, callback=cb, result_avals=avals, vmap_method=vmap_method,
                                **params)
    return outs, [0] * len(outs)


def _io_callback_batch(args, dims, *, callback, result_avals, ordered=False, **params):
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    size = _axis_size(args, dims)
    avals = tuple(a.update(shape=(size,) + a.shape) for a in result_avals)
    outs = io_callback_p.bind(*args, callback=_sequential(callback, dims, size),
                              result_avals=avals, ordered=ordered, **params)
    return outs, [0] * len(outs)


batching.batch_rules[pure_callback_p] = _pure_callback_batch
batching.batch_rules[io_callback_p] = _io_callback_batch
