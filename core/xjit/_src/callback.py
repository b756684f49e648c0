"""Calling Python from compiled code: ``pure_callback``, ``io_callback`` and
the debug callbacks build on one mechanism.

A callback primitive lowers to a ``stablehlo.custom_call`` of jaxlib's
``xla_ffi_python_{cpu,gpu}_callback`` target, whose ``index`` attribute picks
the Python callable from the module's host-callback list (handed to PJRT at
compile time). Eagerly, the callable simply runs on host copies.
"""
from __future__ import annotations

import numpy as np

from xjit._src import xla_bridge as backend, core, dtypes, tree_util
from xjit._src.interpreters import mlir as lowering
from xjit._src.array import ArrayImpl
from xjit._src.interpreters.mlir import ttype


class FlatCallback:
    """A user callback taking flat host arrays, unflattened to its pytree."""

    __slots__ = ("callback_func", "in_tree")

    def __init__(self, callback_func, in_tree):
        self.callback_func, self.in_tree = callback_func, in_tree

    def __call__(self, *flat):
        args, kwargs = tree_util.tree_unflatten(self.in_tree, list(flat))
        return self.callback_func(*args, **kwargs)

    def __repr__(self):
        return f"_FlatCallback(callback_func={self.callback_func!r}, in_tree={self.in_tree})"


def _host(x):
    return np.asarray(x)


def _check_results(name, results, result_avals):
    """The callback's results, as host arrays of the promised shapes/dtypes."""
    flat, _ = tree_util.tree_flatten(results)
    if len(flat) != len(result_avals):
        raise RuntimeError(f"{name} callback returned {len(flat)} values but "
                           f"result_shape_dtypes specifies {len(result_avals)}")
    out = []
    for r, a in zip(flat, result_avals):
        r = np.asarray(r)
        if r.shape != a.shape:
            raise RuntimeError(f"{name} callback returned a value of shape {r.shape}, expected "
                               f"{a.shape} as given by result_shape_dtypes")
        if r.dtype != a.dtype:
            raise RuntimeError(f"{name} callback returned a value of dtype {r.dtype}, expected "
                               f"{a.dtype.name} as given by result_shape_dtypes")
        out.append(np.asarray(r, order="C"))  # (ascontiguousarray would make 0-d 1-d)
    return out


def _make_callback_prim(name, has_side_effect):
    p = core.Primitive(name)
    p.multiple_results = True

    def abstract_eval(*avals, callback, result_avals, **_):
        return list(result_avals)

    def impl(*args, callback, result_avals, **_):
        outs = _check_results(name, callback(*map(_host, args)), result_avals)
        from xjit._src.dispatch import device_put
        return [device_put(o) for o in outs]

    def lower(ctx, avals_in, avals_out, *args, callback, result_avals, **_):
        def host_fn(*flat):
            return tuple(_check_results(name, callback(*flat), result_avals))
        idx = ctx.module_ctx.add_host_callback(host_fn)
        return emit_callback(ctx, idx, args, avals_in, avals_out, has_side_effect)

    core.abstract_eval_rules[p] = abstract_eval
    core.impl_rules[p] = impl
    lowering.rules[p] = lower
    return p


def emit_callback(ctx, idx, args, avals_in, avals_out, has_side_effect):
    device = "gpu" if backend.default_backend() == "gpu" else "cpu"
    attrs = (f'call_target_name = "xla_ffi_python_{device}_callback", api_version = 4 : i32, '
             f'backend_config = {{index = {idx} : ui64}}')
    if has_side_effect:
        attrs += ", has_side_effect = true"
    return ctx.op("stablehlo.custom_call", list(args), [ttype(a) for a in avals_in],
                  [ttype(a) for a in avals_out], attrs=attrs)


pure_callback_p = _make_callback_prim("pure_callback", has_side_effect=False)
io_callback_p = _make_callback_prim("io_callback", has_side_effect=True)


def _result_avals(result_shape_dtypes):
    leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if not hasattr(leaf, "shape") or not hasattr(leaf, "dtype"):
            raise ValueError("result_shape_dtypes must be a pytree of objects with shape and dtype "
                             f"attributes (like xjit.ShapeDtypeStruct), got {leaf!r}")
        avals.append(core.ShapedArray(leaf.shape, dtypes.canonicalize_dtype(leaf.dtype)))
    return tuple(avals), tree


def _bind_callback(prim, callback, result_shape_dtypes, args, kwargs, **params):
    result_avals, out_tree = _result_avals(result_shape_dtypes)
    flat, in_tree = tree_util.tree_flatten((args, kwargs))
    flat = [x if isinstance(x, (core.Tracer, ArrayImpl)) else np.asarray(x) for x in flat]
    outs = prim.bind(*flat, callback=FlatCallback(callback, in_tree), result_avals=result_avals,
                     **params)
    return tree_util.tree_unflatten(out_tree, outs)


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """Call a side-effect-free Python function from traced code; XLA may
    drop or duplicate the call."""
    return _bind_callback(pure_callback_p, callback, result_shape_dtypes, args, kwargs,
                          sharding=sharding, vmap_method=vmap_method)


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False, **kwargs):
    """Call a Python function with side effects from traced code; it is never
    removed by the compiler."""
    return _bind_callback(io_callback_p, callback, result_shape_dtypes, args, kwargs,
                          sharding=sharding, ordered=ordered)
