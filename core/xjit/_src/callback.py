"""Calling Python from compiled code: ``pure_callback``, ``io_callback`` and
the debug callbacks build on one mechanism.

A callback primitive lowers to a ``stablehlo.custom_call`` of jaxlib's
``xla_ffi_python_{cpu,gpu}_callback`` target, whose ``index`` attribute picks
the Python callable from the module's host-callback list (handed to PJRT at
compile time). Eagerly, the callable simply runs on host copies.
"""
from __future__ import annotations

import traceback

import numpy as np

from xjit._src import xla_bridge as backend, core, dtypes, errors, placement, tree_util
from xjit._src.interpreters import ad, batching, mlir as lowering
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
        from xjit._src.dispatch import device_put
        # the results live where the committed arguments do, as a compiled call's
        bufs = [a._buf for a in args if type(a) is ArrayImpl]
        device = placement.committed_device(bufs, lambda: (name, None, [b.aval for b in bufs]))
        try:
            outs = _check_results(name, callback(*map(_host, args)), result_avals)
        except Exception as e:
            # JAX runs an eager callback in a compiled program too, whose runtime
            # reports what the callback raised as this error (jit's path here as well)
            raise errors.JaxRuntimeError("INTERNAL: CpuCallback error calling callback: "
                                         + traceback.format_exc().rstrip()) from e
        return [device_put(o, device) for o in outs]

    def lower(ctx, avals_in, avals_out, *args, callback, result_avals, **_):
        def host_fn(*flat):
            return tuple(_check_results(name, callback(*flat), result_avals))
        idx = ctx.module_ctx.add_host_callback(host_fn)
        return emit_callback(ctx, idx, args, avals_in, avals_out, has_side_effect)

    core.abstract_eval_rules[p] = abstract_eval
    core.impl_rules[p] = impl
    lowering.rules[p] = lower
    return p


def callback_sharding(module_ctx, avals_out) -> str | None:
    """The Shardy sharding of a callback in a program over many devices (XLA's
    partitioner refuses a side effect without one), as JAX gives it: inside a
    shard_map body every device calls back on its own block; elsewhere the
    program has whole-array semantics, so the callback runs once, on the
    program's first device, with whole values. None in a one-device program."""
    if getattr(module_ctx, "spmd", None) is None:
        return None
    if getattr(module_ctx, "manual", None):
        ndims = [a.ndim for a in avals_out] or [0]
        per_value = [f"<mesh<[]>, [{', '.join(['{}'] * n)}]>" for n in ndims]
    else:
        per_value = ["<mesh<[], device_ids=[0]>, []>"] * max(1, len(avals_out))
    return f"#sdy.sharding_per_value<[{', '.join(per_value)}]>"


def _callback_device(module_ctx):
    """The host callback handler's platform: the process's own backend (a
    program lowered for another platform has no Python here to call back)."""
    platform, here = module_ctx.platforms[0], backend.default_backend()
    if platform != here:
        raise ValueError(f"the platform for the specified backend {here} is different from the "
                         f"lowering platform {'cuda' if platform == 'gpu' else platform}")
    return "gpu" if platform == "gpu" else "cpu"


def emit_callback(ctx, idx, args, avals_in, avals_out, has_side_effect):
    device = _callback_device(ctx.module_ctx)
    attrs = (f'call_target_name = "xla_ffi_python_{device}_callback", api_version = 4 : i32, '
             f'backend_config = {{index = {idx} : ui64}}')
    if has_side_effect:
        attrs += ", has_side_effect = true"
    sharding = callback_sharding(ctx.module_ctx, avals_out)
    if sharding is not None:
        attrs += f", sdy.sharding = {sharding}"
    return ctx.op("stablehlo.custom_call", list(args), [ttype(a) for a in avals_in],
                  [ttype(a) for a in avals_out], attrs=attrs)


def emit_python_callback(ctx, callback, token, operands, operand_avals, result_avals, *,
                         has_side_effect, returns_token=True, partitioned=False, sharding=None):
    """JAX's helper for lowering rules built with MLIR bindings (equinox's
    noinline): a custom call into ``callback(*host arrays)``, which returns a
    sequence of arrays. Returns ``(results, token, keepalive)``; effects are
    ordered by ``has_side_effect``, not tokens, so ``token`` comes back as given."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo as hlo

    def host_fn(*flat):
        return tuple(_check_results("python", list(callback(*flat)), result_avals))

    device = _callback_device(ctx.module_context)
    idx = ctx.module_context.add_host_callback(host_fn)
    ui64 = ir.IntegerType.get_unsigned(64)
    op = hlo.CustomCallOp(
        [lowering.aval_to_ir_type(a) for a in result_avals], list(operands),
        call_target_name=ir.StringAttr.get(f"xla_ffi_python_{device}_callback"),
        has_side_effect=ir.BoolAttr.get(has_side_effect),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        backend_config=ir.DictAttr.get({"index": ir.IntegerAttr.get(ui64, idx)}))
    return list(op.results), token, host_fn


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


# --------------------------------------------------------------------------
# Rules under grad and vmap, as in JAX: pure_callback / io_callback refuse
# JVPs (wrap them in ``custom_jvp``) and batch according to ``vmap_method``;
# debug callbacks see primal values and run once per example.

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
    lax = core.lax_ops
    return lax.squeeze(lax.slice(x, start, limit, (1,) * len(shape)), (d,))


def _per_example(prim):
    def rule(args, dims, **params):
        for i in range(_axis_size(args, dims)):
            prim.bind(*[_index(x, d, i) for x, d in zip(args, dims)], **params)
        return [], []
    return rule


def debug_effect_rules(prim):
    """Register a debug primitive's rules (``debug.print``, ``debug.callback``,
    ``checkify.check``): under differentiation it sees primal values only;
    under ``vmap`` it runs once per example."""
    ad.jvp_rules[prim] = _primal_only(prim)
    batching.batch_rules[prim] = _per_example(prim)


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
