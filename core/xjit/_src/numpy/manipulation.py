"""Array manipulation of ``xjit.numpy`` beyond shape_ops: nonzero
positions (``argwhere``, ``flatnonzero``), counting (``bincount``,
``digitize``), partial sorts, selection (``choose``, ``compress``,
``extract``, ``select``, ``piecewise``), out-of-place updates (``put``, ``place``, ``put_along_axis``,
``fill_diagonal``), reshaping helpers (``block``, ``resize``, ``rollaxis``,
``unstack``, ``trim_zeros``), cumulative reductions of the array API and bit
packing.

Functions whose output size depends on values need it static: they take
``size=``/``fill_value=`` under ``jit`` and raise JAX's
ConcretizationTypeError otherwise. JAX arrays are immutable, so the
"in-place" updates must be called with ``inplace=False``.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import core, dtypes
from ..core import Tracer
from xjit._src.lax import lax
from ..lax import sorting as lax_sorting
from ..lax.structural import unstack_p
from . import util
from .lax_numpy import arange, asarray, greater_equal, util_dtype, where
from .shape_ops import concatenate, moveaxis, ravel, reshape, transpose
from xjit._src.pjit import jit_named


def _int_dtype():
    return dtypes.canonicalize_dtype(np.int64)


# -- nonzero positions


def argwhere(a, *, size=None, fill_value=None):
    """Indices of nonzero elements as an ``(N, a.ndim)`` array."""
    from .indexing import nonzero, require_nonzero_size
    from .shape_ops import atleast_1d, vstack
    util.check_arraylike("argwhere", a)
    a = asarray(a)
    require_nonzero_size(a, size)
    if a.ndim == 0:
        n = size if size is not None else int(bool(a))
        return lax.full((n, 0), 0, _int_dtype())
    return transpose(vstack(nonzero(atleast_1d(a), size=size, fill_value=fill_value)))


def flatnonzero(a, *, size=None, fill_value=None):
    from .indexing import nonzero
    util.check_arraylike("flatnonzero", a)
    a = asarray(a)
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


# -- counting


def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
    """Occurrences of each non-negative int (negatives count in bin 0)."""
    from .lax_numpy import clip
    util.check_arraylike("bincount", x)
    x = asarray(x)
    if x.dtype.kind not in "iub":
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype.name}")
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = core.concrete_or_error(operator.index, minlength,
                                       "The error occurred because of argument 'minlength' of "
                                       "jnp.bincount.")
    if length is None:
        x_max = core.concrete_or_error(asarray, x,
                                       "The error occurred because of argument 'x' of "
                                       "jnp.bincount. To avoid this error, pass a static "
                                       "`length` argument.")
        length = builtins.max(minlength, int(np.max(np.asarray(x_max))) + 1 if x.size else 0)
    else:
        length = core.concrete_or_error(operator.index, length,
                                        "The error occurred because of argument 'length' of "
                                        "jnp.bincount.")
    if weights is None:
        weights = np.array(1, _int_dtype())
    else:
        util.check_arraylike("bincount", weights)
        weights = asarray(weights)
        if weights.shape != x.shape:
            raise ValueError(f"type of weights must match type of x. Got typeof(x)="
                             f"{x.aval.str_short(True)}({{}}) and typeof(weights)="
                             f"{weights.aval.str_short(True)}({{}})")
    zeros = lax.full((length,), 0, weights.dtype)
    if x.size == 0:
        return zeros
    return zeros.at[clip(x, 0)].add(weights, mode="drop")


def digitize(x, bins, right=False, *, method=None):
    """Which bin each ``x`` falls in, for increasing or decreasing ``bins``."""
    util.check_arraylike("digitize", x, bins)
    return _digitize(x, bins, side="left" if right else "right",
                     method="scan" if method is None else method)


@jit_named("digitize", static_argnames=("side", "method"))
def _digitize(x, bins, side, method):
    from .sorting import searchsorted
    if bins.ndim != 1:  # checked while tracing: JAX's message shows the tracer
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if bins.shape[0] == 0:
        return lax.full(x.shape, 0, np.int32)
    increasing = greater_equal(bins[-1], bins[0])  # complex bins: lexicographic
    n = np.int32(bins.shape[0])
    up = searchsorted(bins, x, side=side, method=method)
    down = lax.sub(n, searchsorted(lax.rev(bins, (0,)), x, side=side, method=method))
    return where(increasing, up, down)


# -- partial sorts


def _check_kth(a, kth, axis):
    kth = core.concrete_or_error(operator.index, kth, "kth argument of partition")
    axis = util.canonicalize_axis(axis, a.ndim)
    return util.canonicalize_axis(kth, a.shape[axis]), axis


def partition(a, kth, axis=-1):
    """Element ``kth`` in its sorted place, smaller ones before, larger after
    (each side sorted by top_k; the order within a side is unspecified)."""
    util.check_arraylike("partition", a)
    a = asarray(a)
    kth, axis = _check_kth(a, kth, axis)
    return _partition(a, kth=kth, axis=axis)


@jit_named("partition", static_argnames=("kth", "axis"))
def _partition(a, kth, axis):
    a = moveaxis(a, axis, -1) if axis != a.ndim - 1 else a
    bottom = _flip_order(lax_sorting.top_k(_flip_order(a), kth + 1)[0])
    top = lax_sorting.top_k(a, a.shape[-1] - kth - 1)[0]
    out = lax.concatenate([bottom, top], a.ndim - 1)
    return moveaxis(out, -1, axis) if axis != a.ndim - 1 else out


def _flip_order(x):
    """An order-reversing bijection (negation; bit inversion for unsigned)."""
    return lax.bitwise_not(x) if x.dtype.kind == "u" else lax.neg(x)


def argpartition(a, kth, axis=-1):
    util.check_arraylike("argpartition", a)
    a = asarray(a)
    kth, axis = _check_kth(a, kth, axis)
    return _argpartition(a, kth=kth, axis=axis)


def _argpartition_1d(a, kth):
    """Indices of the kth+1 smallest, then of the rest (top_k of a mask that
    is zero at the chosen ones, so ties keep index order)."""
    bottom = lax_sorting.top_k(_flip_order(a), kth + 1)[1]
    rest = lax.full(a.shape, 1.0, dtypes.canonicalize_dtype(np.float64))
    rest = rest.at[bottom].set(0.0)
    top = lax_sorting.top_k(rest, a.shape[0] - kth - 1)[1]
    return lax.concatenate([bottom, top], 0)


@jit_named("argpartition", static_argnames=("kth", "axis"))
def _argpartition(a, kth, axis):
    from xjit._src.interpreters.batching import vmap
    a = moveaxis(a, axis, -1) if axis != a.ndim - 1 else a
    fn = lambda v: _argpartition_1d(v, kth)  # noqa: E731
    for _ in range(a.ndim - 1):
        fn = vmap(fn)
    out = fn(a)
    return moveaxis(out, -1, axis) if axis != a.ndim - 1 else out


# -- selection


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for each position of the broadcast arrays."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    util.check_arraylike("choose", a, *choices)
    if not isinstance(a, Tracer) and not dtypes.issubdtype(asarray(a).dtype, np.integer):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        arr = core.concrete_or_error(asarray, a, "The error occurred because jnp.choose was "
                                     "jit-compiled with mode='raise'. Use mode='wrap' or "
                                     "mode='clip' instead.")
        host = np.asarray(arr)
        if host.size and (host.min() < 0 or host.max() >= n):
            raise ValueError("invalid entry in choice array")
        a = arr
    elif mode == "wrap":
        from .lax_numpy import remainder
        a = remainder(asarray(a), n)
    elif mode == "clip":
        from .lax_numpy import clip
        a = clip(asarray(a), 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    from .index_tricks import indices
    from .lax_numpy import array
    from .shape_ops import broadcast_arrays
    a, *choices = broadcast_arrays(a, *choices)
    return array(choices)[(a, *indices(a.shape, sparse=True))]


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` where ``condition`` is true."""
    from .indexing import nonzero
    from .reductions import any as _any
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    util.check_arraylike("compress", condition, a)
    condition = lax._convert(asarray(condition), np.bool_, False)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1D array")
    a = asarray(a)
    if axis is None:
        axis, a = 0, ravel(a)
    else:
        a = moveaxis(a, axis, 0)
    n = a.shape[0]
    condition, extra = condition[:n], condition[n:]
    if condition.shape[0] < n:
        a = a[:condition.shape[0]]
    if size is None:
        # a traced condition fails here (TracerBoolConversionError), as in JAX
        if _any(extra):
            raise ValueError("condition contains entries that are out of bounds")
        taken = a[condition]
    elif not 0 <= size <= a.shape[0]:
        raise ValueError("size must be positive and not greater than the size of the array "
                         f"axis; got size={size} for a.shape[axis]={a.shape[0]}")
    else:
        idx = nonzero(condition, size=size, fill_value=condition.shape[0])[0]
        taken = a.at[idx].get(mode="fill", fill_value=fill_value)
    return moveaxis(taken, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    util.check_arraylike("extract", condition, arr)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


# -- out-of-place updates


def _no_inplace(name, inplace, sep=" "):
    if inplace:
        raise ValueError(f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays{sep}"
                         "are immutable. Pass inplace=False to instead return an updated array.")


def place(arr, mask, vals, *, inplace=True):
    """``arr`` with the masked positions set to ``vals`` (cycled in order)."""
    from .indexing import nonzero
    _no_inplace("place", inplace)
    util.check_arraylike("place", arr, mask, vals)
    data, mask, vals = ravel(arr), ravel(mask), ravel(vals)
    mask = lax._convert(mask, np.bool_, False) if mask.dtype != np.bool_ else mask
    idx = nonzero(mask, size=mask.size, fill_value=mask.size)[0]
    if vals.size == 0:
        raise ValueError("Cannot place values from an empty array")
    picks = vals[lax.rem(arange(idx.shape[0]), np.int32(vals.size))] if idx.size else vals[:0]
    return reshape(data.at[idx].set(picks, mode="drop"), asarray(arr).shape)


def put(a, ind, v, mode=None, *, inplace=True):
    """``a`` with the flat positions ``ind`` set to ``v`` (cycled). Out of
    range positions are clipped, as ``unravel_index`` clips them."""
    from .index_tricks import unravel_index
    from .lax_numpy import clip, remainder
    _no_inplace("put", inplace)
    util.check_arraylike("put", a, ind, v)
    a = asarray(a)
    ind, v = ravel(ind), ravel(v)
    n = a.size
    if not n or not v.size or not ind.size:
        return a
    v = _tile_to_size(v, ind.size)
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind, scatter_mode = clip(ind, 0, n - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind, scatter_mode = remainder(ind, n), "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return a.at[unravel_index(ind, a.shape)].set(v, mode=scatter_mode)


def _tile_to_size(v, n):
    """1-D ``v`` repeated end to end and cut to length ``n``."""
    from ..lax import tile as lax_tile
    reps = -(-n // v.size)
    if reps > 1:
        v = lax_tile.tile(v, (reps,))
    return lax.slice(v, (0,), (n,)) if v.size != n else v


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """``arr`` with ``values`` written where take_along_axis would read."""
    _no_inplace("put_along_axis", inplace, sep="")  # (sic: JAX's message lacks the space)
    util.check_arraylike("put_along_axis", arr, indices, values)
    arr, indices, values = asarray(arr), asarray(indices), asarray(values)
    target = ravel(arr) if axis is None else arr
    if indices.ndim != target.ndim:
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
                         f"arr.ndim={target.ndim} and indices.ndim={indices.ndim}.")
    if axis is None:
        return reshape(put_along_axis(target, indices, values, 0, inplace=False, mode=mode),
                       arr.shape)
    axis = util.canonicalize_axis(axis, arr.ndim)
    return _put_along_axis(arr, indices, values, axis=axis, mode=mode)


@jit_named("put_along_axis", static_argnames=("axis", "mode"))
def _put_along_axis(arr, indices, values, axis, mode):
    values = util.broadcast_to(values, indices.shape)
    grid = [lax.broadcast_in_dim(lax.iota(np.int32, n), tuple(n if k == d else 1 for k in
                                                              range(arr.ndim)), (d,))
            for d, n in enumerate(arr.shape)]
    grid[axis] = indices  # (JAX builds every axis's range, this one unused)
    return arr.at[tuple(grid)].set(values, mode=mode)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """``a`` with its main diagonal set to ``val`` (cycled)."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    util.check_arraylike("fill_diagonal", a, val)
    a, val = asarray(a), asarray(val)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and not all(n == a.shape[0] for n in a.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = builtins.min(a.shape)
    idx = lax.iota(np.int32, n)
    if not isinstance(val, Tracer):  # a constant is converted on the host, as in JAX
        val = asarray(np.asarray(val).astype(a.dtype))
    if val.ndim and val.size:
        val = _tile_to_size(ravel(val), n)
    return a.at[(idx,) * a.ndim].set(val)


# -- reshaping helpers


def _block_depth(arrays, depth=0):
    if isinstance(arrays, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {arrays}")
    if isinstance(arrays, list):
        if not arrays:
            raise ValueError("jax.numpy.block does not allow empty list arguments")
        depths = {_block_depth(x, depth + 1) for x in arrays}
        if len(depths) != 1:
            raise ValueError("Mismatched list depths in jax.numpy.block")
        return depths.pop()
    return depth


def _block_layout(arrays, leaves):
    """Nested tuples of leaf positions mirroring the nested lists (static
    for jit), collecting the leaves."""
    if not isinstance(arrays, list):
        leaves.append(arrays)
        return len(leaves) - 1
    return tuple(_block_layout(x, leaves) for x in arrays)


@jit_named("block", static_argnames=("layout", "total_depth"))
def _block_jit(leaves, layout, total_depth):
    return _block(leaves, layout, 0, total_depth)


def _block(leaves, layout, depth, total_depth):
    if not isinstance(layout, tuple):
        return asarray(leaves[layout])
    parts = [_block(leaves, x, depth + 1, total_depth) for x in layout]
    nd = builtins.max(total_depth, *(p.ndim for p in parts))
    parts = [lax.expand_dims(p, tuple(range(nd - p.ndim))) if p.ndim < nd else p for p in parts]
    return concatenate(parts, axis=depth - total_depth)


def block(arrays):
    """Assemble an array from nested lists of blocks (innermost lists join
    along the last axis)."""
    depth = _block_depth(arrays)
    if depth == 0:
        return asarray(arrays)
    leaves = []
    layout = _block_layout(arrays, leaves)
    return _block_jit([asarray(x) for x in leaves], layout=layout, total_depth=depth)


def resize(a, new_shape):
    """``a`` flattened, repeated and cut to fill ``new_shape``."""
    util.check_arraylike("resize", a)
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else \
        tuple(operator.index(s) for s in new_shape)
    if any(s < 0 for s in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    return _resize(asarray(a), new_shape=new_shape)


@jit_named("resize", static_argnames=("new_shape",))
def _resize(a, new_shape):
    from ..lax import tile as lax_tile
    flat = ravel(a)
    size = int(np.prod(new_shape))
    if flat.size == 0 or size == 0:
        return lax.full(new_shape, 0, a.dtype)
    reps = -(-size // flat.size)
    if reps > 1:
        flat = lax_tile.tile(flat, (reps,))
    if flat.size != size:
        flat = lax.slice(flat, (0,), (size,))
    return reshape(flat, new_shape)


def rollaxis(a, axis, start=0):
    """``moveaxis`` with NumPy's legacy meaning of ``start``."""
    util.check_arraylike("rollaxis", a)
    a = asarray(a)
    nd = a.ndim
    axis = util.canonicalize_axis(axis, nd)
    start = operator.index(start)
    if not -nd <= start <= nd:
        raise ValueError(f"start={start} must satisfy {-nd}<=start<={nd}")
    if start < 0:
        start += nd
    if start > axis:
        start -= 1
    return _rollaxis(a, axis=axis, start=start)


@jit_named("rollaxis", static_argnames=("axis", "start"))
def _rollaxis(a, axis, start):
    return moveaxis(a, axis, start)


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading ('f') and/or trailing ('b') zeros."""
    util.check_arraylike("trim_zeros", filt)
    host = np.asarray(core.concrete_or_error(asarray, filt,
                                             "Error arose in the `filt` argument of "
                                             "trim_zeros()"))
    arr = asarray(filt)
    if arr.ndim == 0:
        return arr
    nz = host != 0
    axes = range(arr.ndim) if axis is None else \
        [util.canonicalize_axis(x, arr.ndim) for x in np.atleast_1d(axis)]
    trim = trim.lower()
    out = arr
    for ax in axes:
        along = nz.any(axis=tuple(d for d in range(arr.ndim) if d != ax))
        hits = np.flatnonzero(along)
        n = arr.shape[ax]
        if not hits.size:
            start = stop = 0
        else:
            start = int(hits[0]) if "f" in trim else 0
            stop = int(hits[-1]) + 1 if "b" in trim else n
        if (start, stop) != (0, n):
            out = lax.slice_along(out, start, stop, axis=ax)
    return out


# -- unstack: the lax primitive


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    util.check_arraylike("unstack", x)
    x = asarray(x)
    return tuple(unstack_p.bind(x, axis=util.canonicalize_axis(axis, x.ndim)))


def concat(arrays, /, *, axis=0):
    """The array API's name for ``concatenate``."""
    util.check_arraylike("concat", *arrays)
    return concatenate(arrays, axis=axis)


# -- array-API cumulative reductions


def _cumulative(name, cum_fn, initial, what):
    def fn(x, /, *, axis=None, dtype=None, include_initial=False):
        util.check_arraylike(name, x)
        x = asarray(x)
        if x.ndim == 0:
            raise ValueError(f"The input must be non-scalar to take a cumulative {what}, "
                             "however a scalar value or scalar array was given.")
        if axis is None:
            if x.ndim > 1:
                raise ValueError(f"The input array has rank {x.ndim}, however axis was not set "
                                 "to an explicit value. The axis argument is only optional for "
                                 "one-dimensional arrays.")
            axis = 0
        axis = util.canonicalize_axis(axis, x.ndim)
        out = cum_fn(x, axis=axis, dtype=dtype)
        if include_initial:
            shape = list(out.shape)
            shape[axis] = 1
            out = lax.concatenate([lax.full(shape, initial, out.dtype), out], axis)
        return out
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Array-API ``{name}``, optionally with the identity prepended."
    return fn


def _cum_with_promotion(name, prim_fn, wrap):
    def impl(x, axis, dtype):
        if dtype is None:
            dtype = _int_dtype() if x.dtype == np.bool_ else x.dtype
            if dtypes.issubdtype(dtype, np.integer) and dtype.itemsize < 4:
                dtype = np.dtype(np.uint32 if dtype.kind == "u" else np.int32)
            dtype = dtypes.canonicalize_dtype(dtype)
        else:
            dtype = dtypes.canonicalize_dtype(dtype)
        if x.dtype != dtype or x.weak_type:
            x = lax._convert(x, dtype, False)
        return prim_fn(x, axis=axis)
    if wrap:  # JAX compiles the sum as a unit (a jit in jaxprs), not the product
        impl = jit_named(f"_{name}_with_promotion", static_argnames=("axis", "dtype"))(impl)
    return lambda x, axis, dtype: impl(x, axis=axis, dtype=None if dtype is None
                                       else np.dtype(dtype))


cumulative_sum = _cumulative("cumulative_sum",
                             _cum_with_promotion("cumsum", lax_sorting.cumsum, True), 0, "sum")
cumulative_prod = _cumulative("cumulative_prod",
                              _cum_with_promotion("cumprod", lax_sorting.cumprod, False), 1,
                              "product")


# -- bit packing


def packbits(a, axis=None, bitorder="big"):
    """Booleans of ``a`` (nonzero) packed eight to a uint8 along ``axis``."""
    util.check_arraylike("packbits", a)
    a = asarray(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = lax._convert(lax.gt(a, lax._convert(0, a.dtype, False)), np.uint8, False)
    if axis is None:
        bits, axis = ravel(bits), 0
    bits = moveaxis(bits, axis, -1)
    n = bits.shape[-1]
    pad = -n % 8
    if pad:
        bits = lax.pad(bits, np.uint8(0), [(0, 0, 0)] * (bits.ndim - 1) + [(0, pad, 0)])
    bits = reshape(bits, bits.shape[:-1] + (bits.shape[-1] // 8, 8))
    shifts = np.arange(8, dtype=np.uint8)
    if bitorder == "big":
        shifts = shifts[::-1]
    packed = lax.reduce_sum(lax.shift_left(bits, lax.broadcast_in_dim(
        lax.asarray_device(shifts), bits.shape, (bits.ndim - 1,))), (bits.ndim - 1,))
    return moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Each uint8 of ``a`` split into eight 0/1 uint8s along ``axis``."""
    util.check_arraylike("unpackbits", a)
    a = asarray(a)
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    shifts = np.arange(8, dtype=np.uint8)
    if bitorder == "big":
        shifts = shifts[::-1]
    if axis is None:
        a, axis = ravel(a), 0
    axis = util.canonicalize_axis(axis, a.ndim)
    x = lax.expand_dims(a, (a.ndim,))
    sh = lax.broadcast_in_dim(lax.asarray_device(shifts), x.shape[:-1] + (8,), (a.ndim,))
    bits = lax.bitwise_and(lax.shift_right_logical(lax.broadcast_in_dim(
        x, sh.shape, tuple(range(x.ndim))), sh), lax.full(sh.shape, 1, np.uint8))
    bits = moveaxis(bits, -1, axis + 1)
    bits = reshape(bits, bits.shape[:axis] + (bits.shape[axis] * 8,) + bits.shape[axis + 2:])
    if count is not None:
        count = operator.index(count)
        n = bits.shape[axis]
        stop = count if count >= 0 else builtins.max(n + count, 0)
        if stop <= n:
            bits = lax.slice_along(bits, 0, stop, axis=axis)
        else:
            cfg = [(0, 0, 0)] * bits.ndim
            cfg[axis] = (0, stop - n, 0)
            bits = lax.pad(bits, np.uint8(0), cfg)
    return bits


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist ({} vs {})".format(
            len(condlist), len(choicelist)))
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        if util_dtype(cond) != np.bool_:
            raise TypeError(f"condlist must be a list of boolean arrays; got {util_dtype(cond)}")
        out = where(cond, choice, out)
    return asarray(out)


def piecewise(x, condlist, funclist, *args, **kw):
    util.check_arraylike("piecewise", x)
    x = asarray(x)
    nc, nf = len(condlist), len(funclist)  # as JAX: condlist is never wrapped (NumPy's is)
    if nf == nc + 1:
        otherwise, funclist = funclist[-1], funclist[:-1]
    elif nf == nc:
        otherwise = 0
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; "
                         f"got {nf}")

    def apply(f):
        val = f(x, *args, **kw) if callable(f) else f
        return util.broadcast_to(lax._convert(asarray(val), util_dtype(x), False), x.shape)

    conds = asarray(condlist, dtype=bool)  # (conditions, *x.shape), or scalar conditions
    out = apply(otherwise)
    for i, f in enumerate(funclist):  # the last true condition wins, as in JAX and NumPy
        out = where(conds[i], apply(f), out)
    return out
