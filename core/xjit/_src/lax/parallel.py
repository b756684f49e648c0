"""Named-axis collectives (``psum``, ``all_gather``, ``ppermute``, ...).

With one device the only axes that can carry a name are those of ``vmap``,
so every collective is realised by its batching rule: reducing over a named
axis becomes a reduction over the batch axis. ``psum_p``/``pmax_p``/
``pmin_p`` accept positional (int) axes next to names for that reason; once
only int axes remain they lower to ordinary reductions. ``vmap`` records the
names it binds (``batching.axis_size``); a name none binds is a ``NameError``,
raised at abstract evaluation.
"""
from __future__ import annotations

import math

import numpy as np

from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src import core, dtypes, tree_util
from xjit._src.interpreters.batching import moveaxis as _moveaxis
from xjit._src.interpreters.ad import instantiate_zeros
from .reductions import _reduce_sum_transpose
from ..core import ShapedArray, Tracer
from xjit._src.lax import lax
from .slicing import lower_fun


def _names(axis_name):
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _check_axis_names(axes, api_name):
    for name in axes:
        if not isinstance(name, int) and not batching.axis_exists(name):
            raise NameError(f"Found an unbound axis name: {name}. To fix this, please call "
                            f"{api_name} under `jax.shard_map`.")


def _unbound(api_name, spmd_rule=None):
    """Lowering of a collective whose names survived to compile time: inside
    ``shard_map``'s manual computation over a mesh (``spmd_rule``), XLA's
    collective; elsewhere nothing binds them (a vmap would have batched them
    away)."""
    def rule(ctx, ai, ao, *args, **params):
        manual = getattr(ctx.module_ctx, "manual", None)
        if spmd_rule is not None and manual is not None:
            return spmd_rule(ctx, manual, ai, ao, *args, **params)
        names = _names(params.get("axes", params.get("axis_name")))
        name = next(n for n in names if not isinstance(n, int))
        raise NameError(f"Found an unbound axis name: {name}. To fix this, please call "
                        f"{api_name} under `jax.shard_map`.")
    return rule


def _const(example, value):
    """``value`` as a constant of ``example``'s type (Python scalars stay Python)."""
    if type(example) in (int, float, complex, bool):
        return type(example)(value)
    return np.array(value, dtypes.dtype(example))


def _splitaxis(x, axis, factor):
    shape = list(x.shape)
    shape[axis:axis + 1] = [factor, shape[axis] // factor]
    return x.reshape(shape)


def _foldaxis(x, axis):
    shape = list(x.shape)
    shape[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
    return x.reshape(shape)


def _no_eager(exc):
    """Eager evaluation of a collective over names (outside every vmap): each
    fails as JAX's does, since only a vmap gives the names meaning."""
    def impl(*args, **params):
        raise exc
    return impl


# --------------------------------------------------------------------------
# Collectives inside shard_map's manual computation (``ctx.module_ctx.manual``
# is its ``(mesh, manual axes)``): XLA's collectives between the devices that
# differ only along the named axes. Devices are numbered by their position in
# the mesh, as the program's partitions are.


def _groups(mesh, names):
    """The device groups of a collective over ``names``: one per position on
    the other axes, each listing the devices along ``names`` (major to minor)."""
    axes = list(mesh.axis_names)
    inner = [axes.index(n) for n in names]
    outer = [i for i in range(len(axes)) if i not in inner]
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes).transpose(outer + inner)
    return ids.reshape(-1, math.prod(mesh.axis_sizes[i] for i in inner))


def _dense_i64(a):
    rows = ", ".join("[" + ", ".join(map(str, r)) + "]" for r in a.tolist())
    return f"dense<[{rows}]> : tensor<{a.shape[0]}x{a.shape[1]}xi64>"


def _channel(ctx):
    module_ctx = ctx.module_ctx
    n = getattr(module_ctx, "channels", 0) + 1
    module_ctx.channels = n
    return f"channel_handle = #stablehlo.channel_handle<handle = {n}, type = 1>"


def _collective_attrs(ctx, mesh, names, groups):
    if groups is not None:
        raise NotImplementedError("axis_index_groups inside shard_map over a mesh")
    return (f"{_channel(ctx)}, replica_groups = {_dense_i64(_groups(mesh, names))}, "
            "use_global_device_ids")


_REDUCER_OPS = {"psum": "stablehlo.add", "pmax": "stablehlo.maximum",
                "pmin": "stablehlo.minimum"}


def _reducer_region(ctx, name, dtype):
    op = _REDUCER_OPS[name]
    if dtype == np.bool_:
        op = "stablehlo.and" if name == "pmin" else "stablehlo.or"
    scalar = ShapedArray((), dtype)
    t = lowering.ttype(scalar)
    return ctx.region([scalar, scalar], lambda a, b: [(ctx.op(op, [a, b], [t, t], t), scalar)])


def _spmd_allreduce(name):
    def rule(ctx, manual, ai, ao, x, *, axes, axis_index_groups):
        mesh, _ = manual
        t = lowering.ttype(ai[0])
        return ctx.op("stablehlo.all_reduce", [x], [t], t,
                      attrs=_collective_attrs(ctx, mesh, axes, axis_index_groups),
                      regions=[_reducer_region(ctx, name, ai[0].dtype)])
    return rule


def _spmd_axis_index(ctx, manual, ai, ao, *, axis_name):
    mesh, _ = manual
    (name,) = _names(axis_name)
    k = list(mesh.axis_names).index(name)
    stride = math.prod(mesh.axis_sizes[k + 1:])
    u = "tensor<ui32>"
    pid = ctx.op("stablehlo.partition_id", [], [], u)
    q = ctx.op("stablehlo.divide", [pid, ctx.constant(np.uint32(stride))], [u, u], u)
    r = ctx.op("stablehlo.remainder", [q, ctx.constant(np.uint32(mesh.axis_sizes[k]))],
               [u, u], u)
    return ctx.op("stablehlo.convert", [r], [u], "tensor<i32>")


def _spmd_ppermute(ctx, manual, ai, ao, x, *, axis_name, perm):
    mesh, _ = manual
    groups = _groups(mesh, _names(axis_name))
    pairs = np.array([[g[s], g[d]] for g in groups for s, d in perm], dtype=np.int64)
    t = lowering.ttype(ai[0])
    attrs = f"{_channel(ctx)}, source_target_pairs = {_dense_i64(pairs.reshape(-1, 2))}"
    return ctx.op("stablehlo.collective_permute", [x], [t], t, attrs=attrs)


def _reshape(ctx, x, a_in, a_out):
    return ctx.op("stablehlo.reshape", [x], [lowering.ttype(a_in)], lowering.ttype(a_out))


def _spmd_all_gather(ctx, manual, ai, ao, x, *, all_gather_dimension, axis_name,
                     axis_index_groups, axis_size, tiled):
    mesh, _ = manual
    a = ai[0]
    if not tiled:  # gather along a new unit dimension
        shape = list(a.shape)
        shape.insert(all_gather_dimension, 1)
        b = ShapedArray(tuple(shape), a.dtype)
        x, a = _reshape(ctx, x, a, b), b
    attrs = (f"all_gather_dim = {all_gather_dimension} : i64, "
             f"{_collective_attrs(ctx, mesh, _names(axis_name), axis_index_groups)}")
    return ctx.op("stablehlo.all_gather", [x], [lowering.ttype(a)], lowering.ttype(ao[0]),
                  attrs=attrs)


def _spmd_reduce_scatter(ctx, manual, ai, ao, x, *, axis_name, scatter_dimension,
                         axis_index_groups, axis_size, tiled):
    mesh, _ = manual
    shape = list(ai[0].shape)
    shape[scatter_dimension] //= axis_size
    mid = ShapedArray(tuple(shape), ai[0].dtype)
    attrs = (f"scatter_dimension = {scatter_dimension} : i64, "
             f"{_collective_attrs(ctx, mesh, _names(axis_name), axis_index_groups)}")
    out = ctx.op("stablehlo.reduce_scatter", [x], [lowering.ttype(ai[0])], lowering.ttype(mid),
                 attrs=attrs, regions=[_reducer_region(ctx, "psum", ai[0].dtype)])
    return out if tiled else _reshape(ctx, out, mid, ao[0])


def _spmd_all_to_all(ctx, manual, ai, ao, x, *, axis_name, split_axis, concat_axis,
                     axis_index_groups, tiled):
    mesh, _ = manual
    names = _names(axis_name)
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups inside shard_map over a mesh")
    groups = _groups(mesh, names)
    attrs = (f"{_channel(ctx)}, concat_dimension = {concat_axis} : i64, "
             f"replica_groups = {_dense_i64(groups)}, split_count = {groups.shape[1]} : i64, "
             f"split_dimension = {split_axis} : i64")
    return ctx.op("stablehlo.all_to_all", [x], [lowering.ttype(ai[0])], lowering.ttype(ao[0]),
                  attrs=attrs)


_SPMD_RULES = {"axis_index": _spmd_axis_index, "ppermute": _spmd_ppermute,
               "all_gather": _spmd_all_gather, "reduce_scatter": _spmd_reduce_scatter,
               "all_to_all": _spmd_all_to_all}


# --------------------------------------------------------------------------
# All-reduce: psum, pmax, pmin


_POS_REDUCERS = {"psum": lax.reduce_sum, "pmax": lax.reduce_max, "pmin": lax.reduce_min}


def _allreduce_eval(aval, axes, axis_index_groups):
    _check_axis_names(axes, "psum")
    pos = [a for a in axes if isinstance(a, int)]
    if axis_index_groups is not None and pos:
        raise ValueError(f"axis_index_groups can only be used with reductions over named axes, "
                         f"but got: {axes}")
    shape = tuple(d for i, d in enumerate(aval.shape) if i not in pos)
    return ShapedArray(shape, aval.dtype)


def _allreduce_lower(name):
    reduce = lower_fun(_POS_REDUCERS[name])

    def rule(ctx, ai, ao, x, axes, axis_index_groups):
        named = [a for a in axes if not isinstance(a, int)]
        pos = tuple(a for a in axes if isinstance(a, int))
        if named and pos:  # positional axes first, as an ordinary reduction
            mid = ShapedArray(ao[0].shape, ai[0].dtype)
            x, ai = reduce(ctx, ai, [mid], x, axes=pos), [mid]
        if named:
            return _unbound("psum", _spmd_allreduce(name))(
                ctx, ai, ao, x, axes=tuple(named), axis_index_groups=axis_index_groups)
        return reduce(ctx, ai, ao, x, axes=tuple(axes))
    return rule


def _allreduce_prim(name):
    p = lowering.define_primitive(name, _allreduce_eval, _allreduce_lower(name))
    batching.collective_axes[p] = lambda params: params["axes"]
    return p


psum_p = _allreduce_prim("psum")
pmax_p = _allreduce_prim("pmax")
pmin_p = _allreduce_prim("pmin")


def _allreduce_batch(prim, axis_data, vals, dims, *, axes, axis_index_groups):
    (x,), (d,) = vals, dims
    name = axis_data.name
    if d is None:  # the name is the vmapped axis (else the rule is not asked)
        if axis_index_groups:
            raise NotImplementedError
        rest = tuple(a for a in axes if a != name)
        if rest:
            x = prim.bind(x, axes=rest, axis_index_groups=axis_index_groups)
        return (lax.mul(_const(x, axis_data.size), x) if prim is psum_p else x), None
    if name not in axes and not any(isinstance(a, int) for a in axes):
        return prim.bind(x, axes=axes, axis_index_groups=axis_index_groups), d
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap collectives. "
                                  "Please open a feature request!")
    x = _moveaxis(x, d, 0)
    new_axes = tuple(a + 1 if isinstance(a, int) else (0 if a == name else a) for a in axes)
    out = prim.bind(x, axes=new_axes, axis_index_groups=None)
    return out, (0 if name not in axes else None)


def _psum_transpose(ct, x, *, axes, axis_index_groups):
    """psum_p is bound where values carry no varying axes (vmap, pmap, a
    check_vma=False body): it is a sum and a broadcast, so it transposes to
    itself. A check_vma body binds ``psum_invariant`` instead (parallel_vma)."""
    named = tuple(a for a in axes if not isinstance(a, int))
    pos = tuple(a for a in axes if isinstance(a, int))
    if pos:
        ct = _reduce_sum_transpose(ct, x, axes=pos)[0]
    return [psum_p.bind(ct, axes=named, axis_index_groups=axis_index_groups)]


def _linear_jvp(prim):
    def rule(primals, tangents, **params):
        return prim.bind(*primals, **params), prim.bind(*map(instantiate_zeros, tangents),
                                                        **params)
    return rule


def _named_collective(name, abstract_eval, *, unbound_name=None, linear=False):
    """A collective over the names in its ``axis_name`` parameter: a vmap
    binding those names applies it by batching, shard_map's manual
    computation by XLA's collective (``_SPMD_RULES[name]``)."""
    p = lowering.define_primitive(name, abstract_eval,
                                  _unbound(unbound_name or name, _SPMD_RULES.get(name)))
    batching.collective_axes[p] = lambda params: _names(params["axis_name"])
    if linear:
        ad.jvp_rules[p] = _linear_jvp(p)
    return p


for _p in (psum_p, pmax_p, pmin_p):
    batching.axis_batch_rules[_p] = (lambda p: lambda *a, **k: _allreduce_batch(p, *a, **k))(_p)
ad.jvp_rules[psum_p] = _linear_jvp(psum_p)
ad.transpose_rules[psum_p] = _psum_transpose


def _vma():
    """The varying-manual-axes rules (``parallel_vma``, built on this module)."""
    from xjit._src.lax import parallel_vma
    return parallel_vma


def _check_groups(axis_index_groups):
    if axis_index_groups is None:
        return None
    space = range(sum(len(g) for g in axis_index_groups))
    if {i for g in axis_index_groups for i in g} != set(space):
        raise ValueError("axis_index_groups must cover all indices exactly once")
    return tuple(map(tuple, axis_index_groups))


def psum(x, axis_name, *, axis_index_groups=None):
    """All-reduce sum of ``x`` (a pytree) over the named axis or axes."""
    axes = _names(axis_name)
    if not axes:
        return x
    if any(isinstance(a, int) for a in axes) and axis_index_groups is not None:
        raise ValueError("axis_index_groups only supported for sums over just named axes")
    groups = _check_groups(axis_index_groups)
    named = [a for a in axes if not isinstance(a, int)]
    pos = [a for a in axes if isinstance(a, int)]

    vma = not pos and _vma().check_vma(named)
    if vma and groups is not None:
        raise NotImplementedError("axis_index_groups inside shard_map with check_vma=True")

    def one(v):
        if dtypes.dtype(v) == np.bool_:
            v = lax.convert_element_type(v, np.int32)
        if isinstance(v, Tracer):
            if vma:
                return _vma().bind_psum_invariant(v, axes)
            return psum_p.bind(v, axes=axes, axis_index_groups=groups)
        # Nothing varies along the axes: the sum is the value times their size.
        size = len(groups[0]) if groups is not None else \
            math.prod(batching.axis_size(n) for n in named)
        if pos:
            v = lax.reduce_sum(v, [batching.canonicalize_axis(a, np.ndim(v)) for a in pos])
        return _const(v, size) * v
    return tree_util.tree_map(one, x)


def _reducer(prim):
    def fn(x, axis_name, *, axis_index_groups=None):
        axes = _names(axis_name)
        if any(isinstance(a, int) for a in axes) and axis_index_groups is not None:
            raise ValueError("axis_index_groups only supported for sums over just named axes")
        groups = _check_groups(axis_index_groups)
        return tree_util.tree_map(lambda v: prim.bind(
            _vma().insert_collective_pvary(axes, v), axes=axes, axis_index_groups=groups), x)
    return fn


pmax = _reducer(pmax_p)
pmax.__name__ = pmax.__qualname__ = "pmax"
pmax.__doc__ = "All-reduce maximum of ``x`` (a pytree) over the named axis or axes."
pmin = _reducer(pmin_p)
pmin.__name__ = pmin.__qualname__ = "pmin"
pmin.__doc__ = "All-reduce minimum of ``x`` (a pytree) over the named axis or axes."


def axis_size(axis_name):
    """The size of the named axis (the product, for a tuple of names)."""
    return psum(1, axis_name)


def _group_size(axis_name, axis_index_groups):
    return psum(1, axis_name, axis_index_groups=_check_groups(axis_index_groups))


def pmean(x, axis_name, *, axis_index_groups=None):
    """All-reduce mean of ``x`` (a pytree) over the named axis or axes."""
    total = psum(x, axis_name, axis_index_groups=axis_index_groups)
    n = _group_size(axis_name, axis_index_groups)
    return tree_util.tree_map(lambda v: v / n, total)


# --------------------------------------------------------------------------
# axis_index


def _axis_index_eval(*, axis_name):
    _check_axis_names(_names(axis_name), "axis_index")
    return _vma().axis_index_aval(_names(axis_name))


axis_index_p = _named_collective("axis_index", _axis_index_eval)
ad.defjvp_zero(axis_index_p)


def _axis_index_batch(axis_data, vals, dims, *, axis_name):
    if axis_data.name not in _names(axis_name):
        return axis_index_p.bind(axis_name=axis_name), None
    return lax.iota(np.int32, axis_data.size), 0


batching.axis_batch_rules[axis_index_p] = _axis_index_batch


def axis_index(axis_name):
    """This member's position along the named axis (row-major over a tuple)."""
    if not isinstance(axis_name, (tuple, list)):
        return axis_index_p.bind(axis_name=axis_name)
    index, inner = lax.asarray_device(np.int32(0)), 1
    for name in reversed(axis_name):
        index = index + axis_index(name) * inner
        inner *= axis_size(name)
    return index


# --------------------------------------------------------------------------
# ppermute


def _ppermute_eval(x, *, axis_name, perm):
    _check_axis_names(_names(axis_name), "ppermute")
    return x


ppermute_p = _named_collective("ppermute", _ppermute_eval, linear=True)
ad.transpose_rules[ppermute_p] = lambda ct, x, *, axis_name, perm: [
    ppermute(ct, axis_name, [(d, s) for s, d in perm])]


def _ppermute_batch(axis_data, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    names = _names(axis_name)
    if axis_data.name not in names:
        return ppermute_p.bind(x, axis_name=names, perm=perm), d
    rest = tuple(n for n in names if n != axis_data.name)
    if rest:
        return ppermute_p.bind(x, axis_name=rest, perm=perm), d
    if len(perm) != axis_data.size:
        raise AssertionError("Permutation doesn't match the axis size!")
    if d is None:
        return x, None
    src = np.zeros(axis_data.size, dtype=int)
    for s, t in perm:
        src[t] = s
    return x.take(src, axis=d), d  # the array's (jnp's) take, as JAX's batcher


batching.axis_batch_rules[ppermute_p] = _ppermute_batch
core.impl_rules[ppermute_p] = _no_eager(
    NotImplementedError("Evaluation rule for 'ppermute' not implemented"))


def ppermute(x, axis_name, perm):
    """Send each member's ``x`` to another along the named axis: ``perm`` holds
    (source, destination) pairs; destinations no pair names receive zeros."""
    names = _names(axis_name)
    perm = tuple(map(tuple, perm))
    return tree_util.tree_map(lambda v: ppermute_p.bind(
        _vma().insert_collective_pvary(names, v), axis_name=names, perm=perm), x)


def pshuffle(x, axis_name, perm):
    """``ppermute`` where member i receives from member ``perm[i]``."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# -- pbroadcast: every member receives member ``source``'s value


pbroadcast_p = _named_collective("pbroadcast", lambda x, *, axis_name, source: _ppermute_eval(
    x, axis_name=axis_name, perm=None), unbound_name="ppermute", linear=True)


def _pbroadcast_transpose(ct, x, *, axis_name, source):
    is_source = lax.eq(axis_index(axis_name), source)
    total = psum(ct, axis_name)
    return [lax.select(is_source, lax.full_like(ct, total), lax.full_like(ct, 0))]


ad.transpose_rules[pbroadcast_p] = _pbroadcast_transpose


def _pbroadcast_batch(axis_data, vals, dims, *, axis_name, source):
    (x,), (d,) = vals, dims
    names = _names(axis_name)
    if axis_data.name not in names:
        return pbroadcast_p.bind(x, axis_name=names, source=source), d
    if len(names) > 1:
        raise NotImplementedError("pbroadcast batcher only supports a single axis")
    if not 0 <= source < axis_data.size:
        raise AssertionError("collective broadcast doesn't fit in the axis size!")
    if d is None:
        return x, None
    return x.take([source] * axis_data.size, axis=d), d  # jnp's take, as JAX's (a list: TypeError)


batching.axis_batch_rules[pbroadcast_p] = _pbroadcast_batch


def pbroadcast(x, axis_name, source):
    """Every member along the named axis receives member ``source``'s ``x``."""
    return tree_util.tree_map(
        lambda v: pbroadcast_p.bind(_vma().insert_collective_pvary(axis_name, v),
                                    axis_name=axis_name, source=source), x)


# --------------------------------------------------------------------------
# all_gather and psum_scatter (reduce_scatter_p)


def _all_gather_eval(x, *, all_gather_dimension, axis_name, axis_index_groups, axis_size,
                     tiled):
    _check_axis_names(_names(axis_name), "all_gather")
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return ShapedArray(tuple(shape), x.dtype)


all_gather_p = _named_collective("all_gather", _all_gather_eval, linear=True)
ad.transpose_rules[all_gather_p] = lambda ct, x, *, all_gather_dimension, axis_name, \
    axis_index_groups, axis_size, tiled: [
        psum_scatter(ct, axis_name, scatter_dimension=all_gather_dimension,
                     axis_index_groups=axis_index_groups, tiled=tiled)]


def _all_gather_batch(axis_data, vals, dims, *, all_gather_dimension, axis_name,
                      axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    names = _names(axis_name)
    if axis_data.name not in names:
        if d is not None:
            if d <= all_gather_dimension:
                all_gather_dimension += 1
            elif not tiled:
                d += 1
        return all_gather_p.bind(x, all_gather_dimension=all_gather_dimension,
                                 axis_name=axis_name, axis_index_groups=axis_index_groups,
                                 axis_size=axis_size, tiled=tiled), d
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap")
    if axis_size != axis_data.size:  # several names: their product is not this axis's size
        raise AssertionError("axis size doesn't match")
    if len(names) > 1:
        raise NotImplementedError("Please open a feature request!")
    if d is None:
        shape = list(np.shape(x))
        shape.insert(all_gather_dimension, axis_size)
        y = lax.broadcast_in_dim(x, shape, [i for i in range(len(shape))
                                            if i != all_gather_dimension])
    else:
        y = _moveaxis(x, d, all_gather_dimension)
    if tiled:
        y = _foldaxis(y, all_gather_dimension)
    return y, None


batching.axis_batch_rules[all_gather_p] = _all_gather_batch
core.impl_rules[all_gather_p] = _no_eager(AssertionError("Unexpected call to _all_gather_impl"))


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False, to="varying"):
    """Every member's ``x`` stacked (or, ``tiled``, concatenated) along
    ``axis``, the same result on every member (typed varying, or with
    ``to='invarying'`` invariant, inside a check_vma shard_map)."""
    if to not in ("varying", "reduced", "invarying"):
        raise ValueError("Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` "
                         "values are: {'varying', 'reduced', 'invarying'}")
    if to != "varying":
        if axis_index_groups is not None:
            raise NotImplementedError
        if to == "reduced":
            raise NotImplementedError("all_gather(to='reduced'): xjit's types carry no "
                                      "reduced axes yet")
        return _vma().all_gather_invariant(x, axis_name, axis=axis, tiled=tiled)
    names = _names(axis_name)
    if not names:
        return x
    groups = _check_groups(axis_index_groups)
    size = _group_size(names, groups)

    def one(v):
        nd = np.ndim(v)
        return all_gather_p.bind(
            _vma().insert_collective_pvary(names, v), all_gather_dimension=batching.canonicalize_axis(axis, nd if tiled else nd + 1),
            axis_name=names, axis_index_groups=groups, axis_size=size, tiled=tiled)
    return tree_util.tree_map(one, x)


def _reduce_scatter_eval(x, *, axis_name, scatter_dimension, axis_index_groups, axis_size,
                         tiled):
    _check_axis_names(_names(axis_name), "reduce_scatter")
    shape = list(x.shape)
    n = x.shape[scatter_dimension]
    if tiled:
        if n % axis_size != 0:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size {n} must be "
                             f"divisible by shard_count {axis_size}")
        shape[scatter_dimension] = n // axis_size
    else:
        if n != axis_size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {n} must match "
                             f"shard count {axis_size}")
        del shape[scatter_dimension]
    return ShapedArray(tuple(shape), x.dtype)


reduce_scatter_p = _named_collective("reduce_scatter", _reduce_scatter_eval, linear=True)
ad.transpose_rules[reduce_scatter_p] = lambda ct, x, *, axis_name, scatter_dimension, \
    axis_index_groups, axis_size, tiled: [
        all_gather(ct, axis_name, axis_index_groups=axis_index_groups, axis=scatter_dimension,
                   tiled=tiled)]


def _reduce_scatter_batch(axis_data, vals, dims, *, scatter_dimension, axis_name,
                          axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    names = _names(axis_name)
    if axis_data.name not in names:
        if d is not None and d <= scatter_dimension:
            scatter_dimension += 1
        elif d is not None:
            d -= not tiled
        return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension,
                                     axis_name=axis_name, axis_index_groups=axis_index_groups,
                                     axis_size=axis_size, tiled=tiled), d
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap")
    if axis_size != axis_data.size:  # several names: their product is not this axis's size
        raise AssertionError("axis size doesn't match")
    if len(names) > 1:
        raise NotImplementedError("Please open a feature request!")
    # The sum's slice i belongs to member i: the scattered axis becomes the batch axis.
    y = x * axis_size if d is None else lax.reduce_sum(x, (d,))
    if tiled:
        y = _splitaxis(y, scatter_dimension, axis_size)
    return y, scatter_dimension


batching.axis_batch_rules[reduce_scatter_p] = _reduce_scatter_batch
core.impl_rules[reduce_scatter_p] = _no_eager(
    NotImplementedError("Evaluation rule for 'reduce_scatter' not implemented"))


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """The all-reduce sum, with member i keeping only the i-th slice (or tile)
    of it along ``scatter_dimension``."""
    names = _names(axis_name)
    if not names:
        return x
    size = _group_size(names, axis_index_groups)
    groups = _check_groups(axis_index_groups)
    return tree_util.tree_map(
        lambda v: reduce_scatter_p.bind(
            _vma().insert_collective_pvary(names, v), axis_name=names,
            scatter_dimension=scatter_dimension, axis_index_groups=groups, axis_size=size,
            tiled=tiled),
        x)


# --------------------------------------------------------------------------
# all_to_all


def _all_to_all_eval(x, *, axis_name, split_axis, concat_axis, axis_index_groups, tiled):
    names = _names(axis_name)
    _check_axis_names(names, "all_to_all")
    n = len(axis_index_groups[0]) if axis_index_groups else \
        math.prod(batching.axis_size(a) for a in names)
    shape = list(x.shape)
    shape[split_axis] //= n
    shape[concat_axis] *= n
    return ShapedArray(tuple(shape), x.dtype)


all_to_all_p = _named_collective("all_to_all", _all_to_all_eval, linear=True)
ad.transpose_rules[all_to_all_p] = lambda ct, x, *, axis_name, split_axis, concat_axis, \
    axis_index_groups, tiled: [
        all_to_all(ct, axis_name, concat_axis, split_axis, axis_index_groups=axis_index_groups,
                   tiled=tiled)]


def _all_to_all_batch(axis_data, vals, dims, *, axis_name, split_axis, concat_axis,
                      axis_index_groups, tiled):
    if axis_index_groups is not None:
        raise NotImplementedError("Please open a feature request!")
    (x,), (d,) = vals, dims
    names = _names(axis_name)
    size = axis_data.size
    if axis_data.name not in names:
        if d is not None:
            split_axis += d <= split_axis
            concat_axis += d <= concat_axis
        return all_to_all_p.bind(x, axis_name=axis_name, split_axis=split_axis,
                                 concat_axis=concat_axis, axis_index_groups=axis_index_groups,
                                 tiled=tiled), d
    if d is None:
        x, d = lax.broadcast(x, (size,)), 0
    if len(names) > 1:
        k = names.index(axis_data.name)
        return _all_to_all_split_names(x, d, size, names[:k], names[k + 1:], split_axis,
                                       concat_axis, tiled)
    if split_axis == concat_axis:
        axis = split_axis + (d <= split_axis)
        out_d = d
        x = _splitaxis(x, axis, size)
        d += axis <= d
        perm = list(range(x.ndim))
        perm[d], perm[axis] = perm[axis], perm[d]
        return _foldaxis(lax.transpose(x, perm), axis), out_d
    x = _foldaxis(_moveaxis(x, d, concat_axis), concat_axis)
    return _splitaxis(x, split_axis, size), split_axis


def _all_to_all_split_names(x, d, size, major, minor, split_axis, concat_axis, tiled):
    """all_to_all over names (major..., this axis, minor...): chunks are laid
    out along three leading axes [major, this, minor], each exchanged by the
    collective over its own names, then folded into ``concat_axis``."""
    x = lax.expand_dims(_moveaxis(x, d, 0), (0, 2))
    split_axis, concat_axis = split_axis + 3, concat_axis + 3
    if major:
        x = all_to_all_p.bind(x, axis_name=major, split_axis=split_axis, concat_axis=0,
                              axis_index_groups=None, tiled=tiled)
    x = _splitaxis(x, split_axis, size)
    new_d = split_axis
    concat_axis += split_axis <= concat_axis
    split_axis += 1
    if minor:
        x = all_to_all_p.bind(x, axis_name=minor, split_axis=split_axis, concat_axis=2,
                              axis_index_groups=None, tiled=tiled)
    x = _foldaxis(_foldaxis(x, 0), 0)
    concat_axis, new_d = concat_axis - 2, new_d - 2
    x = _foldaxis(_moveaxis(x, 0, concat_axis - 1), concat_axis - 1)
    return x, new_d - 1


batching.axis_batch_rules[all_to_all_p] = _all_to_all_batch
core.impl_rules[all_to_all_p] = _no_eager(RuntimeError(
    "all_to_all must be used within a mapped context like vmap or shard_map."))


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Split ``x`` along ``split_axis`` into one chunk per member, send chunk j
    to member j, and stack (``tiled``: concatenate) what arrives along
    ``concat_axis``."""
    groups = _check_groups(axis_index_groups)

    def one(v, split_axis=split_axis, concat_axis=concat_axis):
        n = _group_size(axis_name, groups)
        if tiled:
            if v.shape[split_axis] % n != 0:
                raise ValueError(f"The size of all_to_all split_axis ({v.shape[split_axis]}) "
                                 f"has to be divisible by the size of the named axis "
                                 f"{axis_name} ({n})")
        else:
            if n != v.shape[split_axis]:
                raise ValueError("all_to_all requires the size of the mapped axis axis_name to "
                                 "equal x.shape[split_axis], but they are "
                                 f"{n} and {v.shape[split_axis]} respectively.")
            if split_axis < concat_axis:
                concat_axis += 1
                v = lax.expand_dims(v, (concat_axis,))
            elif split_axis > concat_axis:
                v = lax.expand_dims(v, (concat_axis,))
                split_axis += 1
        v = _vma().insert_collective_pvary(axis_name, v)
        out = all_to_all_p.bind(v, split_axis=split_axis, concat_axis=concat_axis,
                                axis_name=axis_name, axis_index_groups=groups, tiled=tiled)
        if not tiled and split_axis != concat_axis:
            out = lax.squeeze(out, (split_axis,))
        return out
    return tree_util.tree_map(one, x)


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """``all_to_all`` with the named axis swapped into positional ``axis``."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)
