"""Gather and scatter, the primitives behind advanced indexing and ``.at[]``:
their dimension numbers, out-of-bounds modes and rules.

The dimension numbers follow XLA's definitions (operand and index batching
dimensions included). Out-of-bounds behaviour is a primitive parameter
(``GatherScatterMode``): XLA's own gather clamps start indices and its scatter
drops out-of-bounds windows, so only ``FILL_OR_DROP`` gathers and ``CLIP``
scatters need extra work in the lowering, which is written as lax code and
inlined (``slicing.lower_fun``).
"""
from __future__ import annotations

import enum
import functools
from typing import NamedTuple

import numpy as np

from xjit._src import core, dtypes, sharding_in_types as sit
from xjit._src.interpreters import ad, batching, mlir as lowering, partial_eval as tracing
from xjit._src.ad_util import zeros_like_aval
from xjit._src.interpreters.ad import Zero, is_undefined_primal
from xjit._src.interpreters.batching import bdim_at_front, moveaxis, not_mapped
from ..core import Primitive, ShapedArray
from xjit._src.interpreters.mlir import i64_array, ttype


class GatherDimensionNumbers(NamedTuple):
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """What happens to out-of-bounds indices: clamped (CLIP), gathered as
    ``fill_value`` / dropped by scatters (FILL_OR_DROP), or undefined
    (PROMISE_IN_BOUNDS, which XLA implements by clamping gathers and dropping
    scattered windows)."""
    CLIP = 1
    FILL_OR_DROP = 2
    PROMISE_IN_BOUNDS = 3
    ONE_HOT = 4

    @staticmethod
    def from_any(s):
        if isinstance(s, GatherScatterMode):
            return s
        mode = _MODES.get(s) if s is None or isinstance(s, str) else None
        if mode is None:
            raise ValueError(f'Unknown gather mode "{s}"')
        return GatherScatterMode[mode]


_MODES = {"clip": "CLIP", None: "FILL_OR_DROP", "fill": "FILL_OR_DROP", "drop": "FILL_OR_DROP",
          "promise_in_bounds": "PROMISE_IN_BOUNDS", "one_hot": "ONE_HOT"}


def _tuple_dn(cls, dn):
    return cls(*(tuple(int(d) for d in f) for f in dn))


def _attr_list(name, xs):
    return f"{name} = [{', '.join(str(int(x)) for x in xs)}]" if xs else None


# --------------------------------------------------------------------------
# gather


def _gather_batch_shape(indices):
    return indices.shape[:-1]


def _gather_shape_rule(operand, indices, dimension_numbers, slice_sizes):
    dn = dimension_numbers
    if indices.dtype.kind not in "iu":
        raise TypeError(f"index array must have an integer type, got {indices.dtype.name}")
    if len(slice_sizes) != operand.ndim:
        raise TypeError(f"Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
    if not indices.ndim or indices.shape[-1] != len(dn.start_index_map):
        raise TypeError(f"Gather op has {len(dn.start_index_map)} elements in start_index_map "
                        f"and the bound of dimension index_vector_dim={indices.ndim - 1} of "
                        f"indices is {indices.shape[-1] if indices.ndim else 1}. These two "
                        f"numbers must be equal.")
    for d, (s, size) in enumerate(zip(slice_sizes, operand.shape)):
        if not 0 <= s <= size:
            raise TypeError(f"Slice size at index {d} in gather op is out of range, must be "
                            f"within [0, {size} + 1), got {s}.")
    for d in dn.collapsed_slice_dims + dn.operand_batching_dims:
        if slice_sizes[d] > 1:
            raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                            f"{slice_sizes[d]} for index {d} at position "
                            f"{list(dn.collapsed_slice_dims + dn.operand_batching_dims).index(d)}.")
    offset_sizes = [s for d, s in enumerate(slice_sizes)
                    if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    if len(offset_sizes) != len(dn.offset_dims):
        raise TypeError(f"All components of the offset index in a gather op must either be a "
                        f"offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                        f"{tuple(offset_sizes)}, collapsed_slice_dims={dn.collapsed_slice_dims}, "
                        f"operand_batching_dims={dn.operand_batching_dims}.")
    batch = list(_gather_batch_shape(indices))
    rank = len(batch) + len(offset_sizes)
    out, offsets = [], iter(offset_sizes)
    for i in range(rank):
        out.append(next(offsets) if i in dn.offset_dims else batch.pop(0))
    return tuple(out)


def _gather_eval(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted,
                 unique_indices, mode, fill_value):
    shape = _gather_shape_rule(operand, indices, dimension_numbers, slice_sizes)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_dn_attr(dn, index_vector_dim):
    fields = [_attr_list("offset_dims", dn.offset_dims),
              _attr_list("collapsed_slice_dims", dn.collapsed_slice_dims),
              _attr_list("operand_batching_dims", dn.operand_batching_dims),
              _attr_list("start_indices_batching_dims", dn.start_indices_batching_dims),
              _attr_list("start_index_map", dn.start_index_map),
              f"index_vector_dim = {index_vector_dim}"]
    return f"#stablehlo.gather<{', '.join(f for f in fields if f)}>"


def _plain_gather_lower(ctx, ai, ao, operand, indices, *, dimension_numbers, slice_sizes,
                        indices_are_sorted, **_):
    if getattr(ai[0].dtype, "extended", False):  # key arrays: each key's data is a whole window
        data = ai[0].dtype.physical_aval(ai[0]).shape[ai[0].ndim:]
        dimension_numbers = dimension_numbers._replace(offset_dims=tuple(
            dimension_numbers.offset_dims) + tuple(range(ao[0].ndim, ao[0].ndim + len(data))))
        slice_sizes = tuple(slice_sizes) + tuple(data)
    attrs = (f"dimension_numbers = {_gather_dn_attr(dimension_numbers, ai[1].ndim - 1)}, "
             f"indices_are_sorted = {'true' if indices_are_sorted else 'false'}, "
             f"slice_sizes = {i64_array(slice_sizes)}")
    return ctx.op("stablehlo.gather", [operand, indices], [ttype(a) for a in ai], ttype(ao[0]),
                  attrs=attrs)


def default_fill_value(dtype):
    """What a FILL_OR_DROP gather returns out of bounds when no fill is given."""
    dtype = np.dtype(dtype)
    if dtypes.issubdtype(dtype, np.inexact):
        return np.nan
    if dtype.kind == "i":
        return int(np.iinfo(dtype).min)
    if dtype.kind == "u":
        return int(np.iinfo(dtype).max)
    return True


def _in_bounds_mask(lax, operand_shape, indices, index_map, window_sizes):
    """Per index vector: whether every start index keeps its window in bounds."""
    dt = indices.dtype
    upper = np.array([operand_shape[d] - window_sizes[d] for d in index_map], dt)
    nd = indices.ndim
    upper = lax.broadcast_in_dim(upper, indices.shape, (nd - 1,))
    ok = lax.bitwise_and(lax.ge(indices, lax._convert(0, dt)), lax.le(indices, upper))
    return lax.reduce_and(ok, (nd - 1,))


def _gather_fill(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted,
                 unique_indices, mode, fill_value):
    dn = dimension_numbers
    mask = _in_bounds_mask(lax, operand.shape, indices, dn.start_index_map, slice_sizes)
    out = gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                        mode=GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None)
    batch_dims = tuple(d for d in range(out.ndim) if d not in dn.offset_dims)
    layout = out.aval._sharding  # the mask and the fill are laid out as the gather's result
    mask = lax.broadcast_in_dim(mask, out.shape, batch_dims, out_sharding=layout)
    fill = default_fill_value(out.dtype) if fill_value is None else fill_value
    fill = lax.broadcast_in_dim(np.array(fill, out.dtype), out.shape, (), out_sharding=layout)
    return lax.select(mask, out, fill)


def _gather_lower(ctx, ai, ao, operand, indices, *, mode, **params):
    if mode == GatherScatterMode.FILL_OR_DROP:
        return _gather_fill_lower(ctx, ai, ao, operand, indices, mode=mode, **params)
    if mode == GatherScatterMode.ONE_HOT:
        raise NotImplementedError("gather with mode=GatherScatterMode.ONE_HOT is not supported")
    return _plain_gather_lower(ctx, ai, ao, operand, indices, mode=mode, **params)


gather_p = Primitive("gather")
core.abstract_eval_rules[gather_p] = _gather_eval
lowering.rules[gather_p] = _gather_lower


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """XLA's gather; ``mode=None`` clamps (XLA's semantics, PROMISE_IN_BOUNDS)."""
    parsed = GatherScatterMode.from_any(mode) if mode is not None \
        else GatherScatterMode.PROMISE_IN_BOUNDS
    if parsed == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = default_fill_value(core.aval_of(operand).dtype)
    else:
        fill_value = None
    return gather_p.bind(operand, lax._index_operand(start_indices),
                         dimension_numbers=_tuple_dn(GatherDimensionNumbers, dimension_numbers),
                         slice_sizes=tuple(int(s) for s in slice_sizes),
                         indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=parsed,
                         fill_value=fill_value)


# --------------------------------------------------------------------------
# scatter family


def _scatter_window_sizes(operand, updates, dn):
    """The operand-dimension sizes of one scattered window."""
    window = iter(updates.shape[d] for d in dn.update_window_dims)
    return [1 if d in dn.inserted_window_dims or d in dn.operand_batching_dims else next(window)
            for d in range(operand.ndim)]


def _scatter_eval(operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                  unique_indices, mode, update_jaxpr, update_consts):
    dn = dimension_numbers
    if indices.dtype.kind not in "iu":
        raise TypeError(f"index array must have an integer type, got {indices.dtype.name}")
    if operand.dtype != updates.dtype:
        raise TypeError(f"scatter requires operand and updates to have the same dtype, got "
                        f"{operand.dtype.name} and {updates.dtype.name}.")
    expected = len(dn.update_window_dims) + indices.ndim - 1
    if updates.ndim != expected:
        raise TypeError(f"Updates tensor must be of rank {expected}; got {updates.ndim}.")
    if len(dn.scatter_dims_to_operand_dims) != (indices.shape[-1] if indices.ndim else 1):
        raise TypeError(f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
                        f"scatter_dims_to_operand_dims and the bound of dimension "
                        f"index_vector_dim={indices.ndim - 1} of indices is "
                        f"{indices.shape[-1] if indices.ndim else 1}. These two numbers must "
                        f"be equal.")
    if len(dn.update_window_dims) + len(dn.inserted_window_dims) + \
            len(dn.operand_batching_dims) != operand.ndim:
        raise TypeError(f"Scatter op has window of size {len(dn.update_window_dims)}; doesn't "
                        f"match operand of rank {operand.ndim}.")
    # as JAX: only the window's own dimensions are bounded by the operand's (an
    # inserted or batching dimension of size 0 takes no update: vmap of size 0)
    bounds = [n for d, n in enumerate(operand.shape)
              if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    for d, bound in zip(dn.update_window_dims, bounds):
        if updates.shape[d] > bound:
            raise TypeError(f"Bounds of the window dimensions of updates must not exceed the "
                            f"bounds of the corresponding dimensions of operand. For dimension "
                            f"{d}, updates bound is {updates.shape[d]}, operand bound is "
                            f"{bound}.")
    return operand


def _scatter_dn_attr(dn, index_vector_dim):
    fields = [_attr_list("update_window_dims", dn.update_window_dims),
              _attr_list("inserted_window_dims", dn.inserted_window_dims),
              _attr_list("input_batching_dims", dn.operand_batching_dims),
              _attr_list("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
              _attr_list("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims),
              f"index_vector_dim = {index_vector_dim}"]
    return f"#stablehlo.scatter<{', '.join(f for f in fields if f)}>"


def _scatter_region(ctx, dtype, update_jaxpr, update_consts):
    sa = ShapedArray((), dtype)
    if update_jaxpr is None:  # plain scatter: the update replaces the operand
        return ctx.region([sa, sa], lambda a, b: [(b, sa)])

    def body(a, b):
        outs = lowering.lower_jaxpr(ctx, update_jaxpr, update_consts, [a, b])
        return [(outs[0], sa)]
    return ctx.region([sa, sa], body)


def _plain_scatter_lower(ctx, ai, ao, operand, indices, updates, *, dimension_numbers,
                         indices_are_sorted, unique_indices, update_jaxpr, update_consts, **_):
    region = _scatter_region(ctx, ai[0].dtype, update_jaxpr, update_consts)
    attrs = (f"indices_are_sorted = {'true' if indices_are_sorted else 'false'}, "
             f"scatter_dimension_numbers = "
             f"{_scatter_dn_attr(dimension_numbers, ai[1].ndim - 1)}, "
             f"unique_indices = {'true' if unique_indices else 'false'}")
    return ctx.op("stablehlo.scatter", [operand, indices, updates], [ttype(a) for a in ai],
                  ttype(ao[0]), attrs=attrs, regions=[region])


def _clamp_indices(operand, indices, updates, dn):
    sizes = _scatter_window_sizes(operand, updates, dn)
    dt = indices.dtype
    upper = np.array([operand.shape[d] - sizes[d] for d in dn.scatter_dims_to_operand_dims], dt)
    upper = lax.broadcast_in_dim(upper, indices.shape, (indices.ndim - 1,))
    zero = lax.broadcast_in_dim(np.zeros((), dt), indices.shape, ())
    return lax.clamp(zero, indices, upper)


def _scatter_lower(ctx, ai, ao, operand, indices, updates, *, mode, **params):
    if mode == GatherScatterMode.CLIP:
        clamp = lower_fun(lambda o, i, u: _clamp_indices(o, i, u, params["dimension_numbers"]))
        indices = clamp(ctx, ai, [ai[1]], operand, indices, updates)
    elif mode == GatherScatterMode.ONE_HOT:
        raise NotImplementedError("scatter with mode=GatherScatterMode.ONE_HOT is not supported")
    return _plain_scatter_lower(ctx, ai, ao, operand, indices, updates, **params)


def _scatter_prim(name):
    p = Primitive(name)
    core.abstract_eval_rules[p] = _scatter_eval
    lowering.rules[p] = _scatter_lower
    return p


scatter_p = _scatter_prim("scatter")
scatter_add_p = _scatter_prim("scatter-add")
scatter_sub_p = _scatter_prim("scatter-sub")
scatter_mul_p = _scatter_prim("scatter-mul")
scatter_min_p = _scatter_prim("scatter-min")
scatter_max_p = _scatter_prim("scatter-max")


@functools.lru_cache(maxsize=None)
def _combiner_jaxpr(name, dtype):
    """``{ lambda ; a b. let c = op a b in (c,) }``: shared per (op, dtype) so a
    jaxpr with several scatters prints it once (as JAX does)."""
    fn = {"add": lax.add, "sub": lax.sub, "mul": lax.mul, "min": lax.min, "max": lax.max}[name]
    aval = ShapedArray((), dtype)
    jaxpr, _ = tracing.trace_to_jaxpr(lambda a, b: [fn(a, b)], [aval, aval])
    return jaxpr


def _scatter_bind(prim, combiner, operand, scatter_indices, updates, dimension_numbers,
                  indices_are_sorted, unique_indices, mode):
    jaxpr = None if combiner is None else _combiner_jaxpr(combiner, core.aval_of(operand).dtype)
    return prim.bind(operand, lax._index_operand(scatter_indices), updates,
                     dimension_numbers=_tuple_dn(ScatterDimensionNumbers, dimension_numbers),
                     indices_are_sorted=bool(indices_are_sorted),
                     unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode),
                     update_jaxpr=jaxpr, update_consts=())


def _scatter_fn(prim, combiner, doc):
    def fn(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
           unique_indices=False, mode=None):
        return _scatter_bind(prim, combiner, operand, scatter_indices, updates,
                             dimension_numbers, indices_are_sorted, unique_indices, mode)
    fn.__name__ = prim.name.replace("-", "_")
    fn.__doc__ = doc
    return fn


scatter = _scatter_fn(scatter_p, None, "Scatter ``updates`` into ``operand`` (replacing).")
scatter_add = _scatter_fn(scatter_add_p, "add", "Scatter-add ``updates`` into ``operand``.")
scatter_sub = _scatter_fn(scatter_sub_p, "sub", "Scatter-subtract ``updates``.")
scatter_mul = _scatter_fn(scatter_mul_p, "mul", "Scatter-multiply ``updates``.")
scatter_min = _scatter_fn(scatter_min_p, "min", "Scatter-minimum of ``updates``.")
scatter_max = _scatter_fn(scatter_max_p, "max", "Scatter-maximum of ``updates``.")


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """Apply ``func`` to each indexed element: a ``scatter`` whose combiner
    ignores the (zero) updates."""
    aval = core.aval_of(operand)
    updates = lax.full(update_shape, 0, aval.dtype)
    sa = ShapedArray((), aval.dtype)
    jaxpr, consts = tracing.trace_to_jaxpr(lambda a, b: [func(a)], [sa, sa])
    return scatter_p.bind(operand, lax._index_operand(scatter_indices), updates,
                          dimension_numbers=_tuple_dn(ScatterDimensionNumbers, dimension_numbers),
                          indices_are_sorted=bool(indices_are_sorted),
                          unique_indices=bool(unique_indices),
                          mode=GatherScatterMode.from_any(mode),
                          update_jaxpr=jaxpr, update_consts=tuple(consts))


from . import sharding_rules as _sr  # noqa: E402  (JAX 0.10.2's sharding rules)
sit.sharding_rules[gather_p] = _sr.gather
sit.register([scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
              scatter_max_p], _sr.scatter)


# --------------------------------------------------------------------------
# JVP, transpose and batching rules, and the FILL_OR_DROP gather's lowering
# (they call the lax API, which imports this module, as slicing, lower_fun's
# home, does). Gather is linear in its operand; its transpose scatter-adds the
# cotangent back. Batching moves the batch axis to the front and makes it an
# operand/indices batching dimension (or an offset/window dimension when only
# one side is batched).

from xjit._src.lax import lax  # noqa: E402
from .slicing import lower_fun  # noqa: E402

_gather_fill_lower = lower_fun(_gather_fill)

GDN, SDN = GatherDimensionNumbers, ScatterDimensionNumbers


def _plus1(ds):
    return tuple(d + 1 for d in ds)


# --------------------------------------------------------------------------
# gather


def _gather_jvp(primals, tangents, **params):
    x, idx = primals
    out = gather_p.bind(x, idx, **params)
    t = tangents[0]
    if type(t) is Zero:
        return out, Zero.from_primal_value(out)
    fill = 0 if params["mode"] == GatherScatterMode.FILL_OR_DROP else None
    return out, gather_p.bind(t, idx, **dict(params, fill_value=fill))


def _scatter_dn_of(dn):
    return SDN(update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
               scatter_dims_to_operand_dims=dn.start_index_map,
               operand_batching_dims=dn.operand_batching_dims,
               scatter_indices_batching_dims=dn.start_indices_batching_dims)


def _gather_transpose(ct, x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted,
                      unique_indices, mode, fill_value):
    a = x.aval
    if type(ct) is Zero:
        return [Zero(a), None]
    zeros = lax.full(a.shape, 0, a.dtype)
    if 0 in a.shape:  # nothing to scatter into (and no scatter of this shape to check)
        return [zeros, None]
    return [scatter_add(zeros, idx, ct, _scatter_dn_of(dimension_numbers),
                           indices_are_sorted=indices_are_sorted,
                           unique_indices=unique_indices, mode=mode), None]


def _gather_batch(args, dims, *, dimension_numbers, slice_sizes, **params):
    x, idx = args
    xd, idd = dims
    dn = dimension_numbers
    if idd is not_mapped:
        x = moveaxis(x, xd, 0)
        new = GDN(offset_dims=(0,) + _plus1(dn.offset_dims),
                  collapsed_slice_dims=_plus1(dn.collapsed_slice_dims),
                  start_index_map=_plus1(dn.start_index_map),
                  operand_batching_dims=_plus1(dn.operand_batching_dims),
                  start_indices_batching_dims=dn.start_indices_batching_dims)
        sizes = (core.aval_of(x).shape[0],) + tuple(slice_sizes)
        return gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=sizes, **params), 0
    idx = moveaxis(idx, idd, 0)
    if xd is not_mapped:
        new = dn._replace(offset_dims=_plus1(dn.offset_dims),
                          start_indices_batching_dims=_plus1(dn.start_indices_batching_dims))
        return gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=slice_sizes,
                                **params), 0
    x = moveaxis(x, xd, 0)
    new = GDN(offset_dims=_plus1(dn.offset_dims),
              collapsed_slice_dims=_plus1(dn.collapsed_slice_dims),
              start_index_map=_plus1(dn.start_index_map),
              operand_batching_dims=(0,) + _plus1(dn.operand_batching_dims),
              start_indices_batching_dims=(0,) + _plus1(dn.start_indices_batching_dims))
    lead = 0 if core.aval_of(x).shape[0] == 0 else 1  # a batch of none: slices of none
    return gather_p.bind(x, idx, dimension_numbers=new,
                         slice_sizes=(lead,) + tuple(slice_sizes), **params), 0


ad.jvp_rules[gather_p] = _gather_jvp
ad.transpose_rules[gather_p] = _gather_transpose
batching.batch_rules[gather_p] = _gather_batch


# --------------------------------------------------------------------------
# scatter family


def _gather_dn_of(dn):
    return GDN(offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
               start_index_map=dn.scatter_dims_to_operand_dims,
               operand_batching_dims=dn.operand_batching_dims,
               start_indices_batching_dims=dn.scatter_indices_batching_dims)


def _gather_updates(ct, idx, upd_aval, operand_aval, params):
    """The slices of ``ct`` the scatter wrote: the cotangent of the updates
    (a gather that promises nothing of its indices, as JAX's transposes)."""
    dn = params["dimension_numbers"]
    sizes = _scatter_window_sizes(operand_aval, upd_aval, dn)
    return gather_p.bind(ct, idx, dimension_numbers=_gather_dn_of(dn), slice_sizes=tuple(sizes),
                            indices_are_sorted=False, unique_indices=False, mode=params["mode"],
                            fill_value=0 if params["mode"] == GatherScatterMode.FILL_OR_DROP
                            else None)


def _linear_scatter_jvp(prim):
    """scatter / scatter-add are linear in (operand, updates) jointly."""
    def rule(primals, tangents, **params):
        x, idx, u = primals
        out = prim.bind(x, idx, u, **params)
        tx, tu = tangents[0], tangents[2]
        if type(tx) is Zero and type(tu) is Zero:
            return out, Zero.from_primal_value(out)
        return out, prim.bind(ad.instantiate_zeros(tx), idx, ad.instantiate_zeros(tu), **params)
    return rule


def _scatter_addsub_transpose(negate):
    """scatter-add / scatter-sub: the operand's cotangent passes through; the
    updates' is the cotangent at the windows written (negated for sub)."""
    def rule(ct, x, idx, u, **params):
        xa, ua = core.aval_of(x), core.aval_of(u)
        if type(ct) is Zero:
            return [Zero(xa) if is_undefined_primal(x) else None, None,
                    Zero(ua) if is_undefined_primal(u) else None]
        t_x = ct if is_undefined_primal(x) else None
        t_u = None
        if is_undefined_primal(u):
            t_u = _gather_updates(ct, idx, ua, xa, params)
            t_u = lax.neg(t_u) if negate else t_u
        return [t_x, None, t_u]
    return rule


def _scatter_transpose(ct, x, idx, u, **params):
    xa, ua = core.aval_of(x), core.aval_of(u)
    if type(ct) is Zero:
        return [Zero(xa) if is_undefined_primal(x) else None, None,
                Zero(ua) if is_undefined_primal(u) else None]
    t_x = t_u = None
    if is_undefined_primal(x):  # overwritten positions get no cotangent (zeros, as unique)
        t_x = scatter_p.bind(ct, idx, lax.full(ua.shape, 0, ua.dtype),
                             **{**params, "unique_indices": True})
    if is_undefined_primal(u):
        t_u = _gather_updates(ct, idx, ua, xa, params)
    return [t_x, None, t_u]


_SCATTER_MUL_UNIQUE = "scatter_mul gradients are only implemented if `unique_indices=True`"


def _scatter_mul_jvp(primals, tangents, **params):
    """Linear in the operand (the same scatter-mul of its tangent); in the
    updates, the operand times the scattered tangent, which is their
    derivative only where each position is written once (unique indices)."""
    x, idx, u = primals
    out = scatter_mul_p.bind(x, idx, u, **params)
    tx, tu = tangents[0], tangents[2]
    t_out = Zero.from_primal_value(out)
    if type(tx) is not Zero:
        t_out = ad.add_tangents(t_out, scatter_mul_p.bind(tx, idx, u, **params))
    if type(tu) is not Zero:
        if not params["unique_indices"]:
            raise NotImplementedError(_SCATTER_MUL_UNIQUE)
        zeros = zeros_like_aval(core.aval_of(x))  # a scatter-add of its own combiner
        scattered = scatter_add(zeros, idx, tu, params["dimension_numbers"],
                                indices_are_sorted=params["indices_are_sorted"],
                                unique_indices=True, mode=params["mode"])
        t_out = ad.add_tangents(t_out, lax.mul(x, scattered))
    return out, t_out


def _scatter_mul_transpose(ct, x, idx, u, **params):
    """The operand's cotangent is the cotangent scatter-multiplied by the
    updates; the updates' (with unique indices) the gathered cotangent times
    the operand."""
    xa, ua = core.aval_of(x), core.aval_of(u)
    if type(ct) is Zero:
        return [Zero(xa) if is_undefined_primal(x) else None, None,
                Zero(ua) if is_undefined_primal(u) else None]
    t_x = t_u = None
    if is_undefined_primal(x):
        t_x = scatter_mul_p.bind(ct, idx, u, **params)
    if is_undefined_primal(u):
        if not params["unique_indices"]:
            raise NotImplementedError(_SCATTER_MUL_UNIQUE)
        t_u = _gather_updates(lax.mul(ct, x), idx, ua, xa, params)
    return [t_x, None, t_u]


def _scatter_extremal_jvp(prim):
    """scatter-min / scatter-max: where several updates (and possibly the
    operand) tie for a position, its tangent is their average, as for the
    other max/min rules."""
    def rule(primals, tangents, **params):
        x, idx, u = primals
        tx, tu = tangents[0], tangents[2]
        out = prim.bind(x, idx, u, **params)
        if type(tx) is Zero and type(tu) is Zero:
            return out, Zero.from_primal_value(out)
        tx, tu = ad.instantiate_zeros(tx), ad.instantiate_zeros(tu)
        xa, ua = core.aval_of(x), core.aval_of(u)
        dn = params["dimension_numbers"]
        kw = dict(indices_are_sorted=params["indices_are_sorted"],
                  unique_indices=params["unique_indices"], mode=params["mode"])

        def at(v):  # the values at the windows the scatter writes
            return _gather_updates(v, idx, ua, xa, params)

        one, zero, zero_x = lax.full_like(u, 1), lax.full_like(u, 0), lax.full_like(x, 0)
        won, kept = lax.eq(u, at(out)), lax.eq(at(x), at(out))
        n_won = at(scatter_add(zero_x, idx, lax.select(won, one, zero), dn, **kw))
        n_refs = at(scatter_add(zero_x, idx, one, dn, **kw))
        shared = lax.div(one, lax.add(n_won, one))
        u_coef = lax.select(won, lax.select(kept, shared, lax.div(one, n_won)), zero)
        x_coef = lax.div(lax.sub(lax.select(kept, shared, zero), one), n_refs)
        t_upd = lax.add(lax.mul(at(tx), x_coef), lax.mul(tu, u_coef))
        return out, scatter_add(tx, idx, t_upd, dn, **kw)
    return rule


def _scatter_batch(prim):
    def rule(args, dims, *, dimension_numbers, **params):
        x, idx, u = args
        xd, idd, ud = dims
        dn = dimension_numbers
        size = next(core.aval_of(a).shape[d] for a, d in zip(args, dims) if d is not not_mapped)
        x, u = bdim_at_front(x, xd, size), bdim_at_front(u, ud, size)
        if idd is not_mapped:
            new = SDN(update_window_dims=(0,) + _plus1(dn.update_window_dims),
                      inserted_window_dims=_plus1(dn.inserted_window_dims),
                      scatter_dims_to_operand_dims=_plus1(dn.scatter_dims_to_operand_dims),
                      operand_batching_dims=_plus1(dn.operand_batching_dims),
                      scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
        else:
            idx = moveaxis(idx, idd, 0)
            new = SDN(update_window_dims=_plus1(dn.update_window_dims),
                      inserted_window_dims=_plus1(dn.inserted_window_dims),
                      scatter_dims_to_operand_dims=_plus1(dn.scatter_dims_to_operand_dims),
                      operand_batching_dims=(0,) + _plus1(dn.operand_batching_dims),
                      scatter_indices_batching_dims=(0,) + _plus1(
                          dn.scatter_indices_batching_dims))
        return prim.bind(x, idx, u, dimension_numbers=new, **params), 0
    return rule


ad.jvp_rules[scatter_p] = _linear_scatter_jvp(scatter_p)
ad.jvp_rules[scatter_add_p] = _linear_scatter_jvp(scatter_add_p)
ad.jvp_rules[scatter_sub_p] = _linear_scatter_jvp(scatter_sub_p)
ad.jvp_rules[scatter_mul_p] = _scatter_mul_jvp
ad.jvp_rules[scatter_min_p] = _scatter_extremal_jvp(scatter_min_p)
ad.jvp_rules[scatter_max_p] = _scatter_extremal_jvp(scatter_max_p)
ad.transpose_rules[scatter_p] = _scatter_transpose
ad.transpose_rules[scatter_add_p] = _scatter_addsub_transpose(negate=False)
ad.transpose_rules[scatter_sub_p] = _scatter_addsub_transpose(negate=True)
ad.transpose_rules[scatter_mul_p] = _scatter_mul_transpose
for _p in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
           scatter_max_p):
    batching.batch_rules[_p] = _scatter_batch(_p)
