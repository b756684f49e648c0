"""Creation and shape breadth of ``xjit.numpy``: ranges, triangles and
diagonals, tiling and repetition, padding, flips and rolls, splitting,
stacking, insertion/deletion, and 1-D convolution.

Functions JAX compiles as a unit are wrapped in ``jit`` under JAX's names, so
their jaxprs nest the same way."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import core, dtypes
from ..core import Tracer
from xjit._src.pjit import jit
from xjit._src.lax import lax
from ..lax import tile as lax_tile
from ..lax.convolution import conv_general_dilated
from ..lax.structural import pad_p
from . import util
from .lax_numpy import _is_array, asarray, linspace, power, util_dtype
from .reductions import sum as _sum
from .shape_ops import atleast_2d, concatenate, ravel, reshape


def jitted(name, static_argnames=()):
    """``jit`` under JAX's name for the function (shown in jaxprs)."""
    def wrap(fn):
        f = jit(fn, static_argnames=static_argnames)
        f._name = name
        return f
    return wrap


def _static(x, what):
    return core.concrete_or_error(None, x, f"The error arose in {what}.")


def _axis(axis, nd):
    return util.canonicalize_axis(axis, nd)

# -- ranges


@jitted("_logspace", ("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, num, endpoint, base, dtype, axis):
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    return lax.convert_element_type(power(base, lin), dtype)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    dtypes.check_user_dtype_supported(dtype, "logspace")
    dt = dtypes.canonicalize_dtype(dtype or dtypes.to_inexact_dtype(dtypes.result_type(start, stop)))
    return _logspace(start, stop, num=operator.index(num), endpoint=builtins.bool(endpoint),
                     base=base, dtype=dt, axis=axis)


@jitted("_geomspace", ("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, num, endpoint, dtype, axis):
    start, stop = asarray(start, dtype), asarray(stop, dtype)
    sign = lax.sign(start)
    res = lax.mul(sign, logspace(_log10(lax.div(start, sign)), _log10(lax.div(stop, sign)),
                                 num, endpoint=endpoint, base=10.0, dtype=dtype))
    return lax.convert_element_type(res, dtype)


def _log10(x):
    return lax.div(lax.log(x), lax._convert(np.log(10), util_dtype(x), False))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    dtypes.check_user_dtype_supported(dtype, "geomspace")
    dt = dtypes.canonicalize_dtype(dtype or dtypes.to_inexact_dtype(dtypes.result_type(start, stop)))
    return _geomspace(start, stop, num=operator.index(num), endpoint=builtins.bool(endpoint),
                      dtype=dt, axis=axis)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    util.check_arraylike("meshgrid", *xi)
    args = [asarray(x) for x in xi]
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(a.ndim != 1 for a in args):
        raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[a.shape for a in args]}")
    if indexing == "xy" and len(args) >= 2:
        args[0], args[1] = args[1], args[0]
    shape = [1 if sparse else a.shape[0] for a in args]
    out = []
    for i, a in enumerate(args):
        s = list(shape)
        s[i] = a.shape[0]
        out.append(lax.broadcast_in_dim(a, s, (i,)))
    if indexing == "xy" and len(args) >= 2:
        out[0], out[1] = out[1], out[0]
    return out

# -- triangles and diagonals


def _tri_mask(n, m, k):
    rows = lax.add(lax.broadcasted_iota(np.int32, (n, m), 0), np.int32(k))
    return lax.ge(rows, lax.broadcasted_iota(np.int32, (n, m), 1))


def tri(N, M=None, k=0, dtype=None):
    dtypes.check_user_dtype_supported(dtype, "tri")
    M = N if M is None else M
    dt = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    return lax._convert(_tri_mask(operator.index(N), operator.index(M), operator.index(k)), dt, False)


def _tril_impl(m, k, lower):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError(f"Argument to jax.numpy.{'tril' if lower else 'triu'} must be at least 2D")
    n, c = m.shape[-2:]
    mask = _tri_mask(n, c, k if lower else k - 1)
    if not lower:
        mask = lax.bitwise_not(mask)
    if m.ndim > 2:
        mask = lax.broadcast_in_dim(mask, m.shape, (m.ndim - 2, m.ndim - 1))
    return lax.select(mask, m, lax.full_like(m, 0))


_tril = jitted("tril", ("k",))(lambda m, k: _tril_impl(m, k, True))
_triu = jitted("triu", ("k",))(lambda m, k: _tril_impl(m, k, False))


def tril(m, k=0):
    return _tril(m, k=operator.index(k))


def triu(m, k=0):
    return _triu(m, k=operator.index(k))


def _diagonal_2d(a, offset):
    """The ``offset`` diagonal of the last two axes, by a strided slice of
    the flattened matrix (no gather needed)."""
    n, m = a.shape[-2:]
    lead = a.shape[:-2]
    if offset >= 0:
        size = builtins.max(0, builtins.min(n, m - offset))
        start = offset
    else:
        size = builtins.max(0, builtins.min(n + offset, m))
        start = -offset * m
    if size == 0:
        return lax.full(lead + (0,), 0, util_dtype(a))
    flat = lax.reshape(a, lead + (n * m,))
    nd = len(lead)
    limit = start + (size - 1) * (m + 1) + 1
    return lax.slice(flat, (0,) * nd + (start,), lead + (limit,), (1,) * nd + (m + 1,))


def diagonal(a, offset=0, axis1=0, axis2=1):
    util.check_arraylike("diagonal", a)
    return _diagonal(a, offset=operator.index(offset), axis1=axis1, axis2=axis2)


@jitted("diagonal", ("offset", "axis1", "axis2"))
def _diagonal(a, offset, axis1, axis2):
    if a.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    i, j = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    perm = [d for d in range(a.ndim) if d not in (i, j)] + [i, j]
    return _diagonal_2d(lax.transpose(a, perm), offset)


@jitted("_diag", ("k",))
def _diag(v, k):
    v = asarray(v)
    if v.ndim == 1:
        n = v.shape[0] + builtins.abs(k)
        vals = lax.pad(v, lax._convert(0, util_dtype(v), False), [(0, builtins.abs(k), 0)])
        mask = lax.eq(lax.add(lax.broadcasted_iota(np.int32, (n, n), 0), np.int32(k)),
                      lax.broadcasted_iota(np.int32, (n, n), 1))
        vals = lax.broadcast_in_dim(vals, (n, n), (0,) if k >= 0 else (1,))
        return lax.select(mask, vals, lax.full_like(vals, 0))
    if v.ndim == 2:
        return _diagonal_2d(v, k)
    raise ValueError("diag input must be 1d or 2d")


def diag(v, k=0):
    util.check_arraylike("diag", v)
    return _diag(v, k=operator.index(k))


def diagflat(v, k=0):
    return diag(ravel(v), k)


@jitted("trace", ("offset", "axis1", "axis2", "dtype"))
def _trace(a, offset, axis1, axis2, dtype):
    return _sum(_diagonal(a, offset=offset, axis1=axis1, axis2=axis2), axis=-1, dtype=dtype)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    util.check_arraylike("trace", a)
    return _trace(a, offset=operator.index(offset), axis1=axis1, axis2=axis2, dtype=dtype)

# -- tiling and repetition


def tile(A, reps):
    util.check_arraylike("tile", A)
    A = asarray(A)
    reps = (operator.index(reps),) if np.ndim(reps) == 0 else tuple(map(operator.index, reps))
    nd = builtins.max(len(reps), A.ndim)
    if A.ndim < nd:
        A = lax.broadcast_in_dim(A, (1,) * (nd - A.ndim) + A.shape, tuple(range(nd - A.ndim, nd)))
    reps = (1,) * (nd - len(reps)) + reps
    return lax_tile.tile(A, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    util.check_arraylike("repeat", a)
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    if total_repeat_length is not None:
        total = operator.index(total_repeat_length)
        if isinstance(repeats, Tracer) or np.ndim(repeats) or \
                total != a.shape[axis] * int(repeats):
            return _repeat_to_length(a, repeats, axis, total)
    reps = np.asarray(core.concrete_or_error(
        None, repeats, "When jit-compiling jnp.repeat, the total number of repeats must be "
                       "static. To fix this, either specify a static value for `repeats`, or "
                       "pass a static value to `total_repeat_length`."))
    if reps.ndim == 0:
        r = int(reps)
        shape = a.shape[:axis + 1] + (r,) + a.shape[axis + 1:]
        b = lax.broadcast_in_dim(a, shape, tuple(d for d in range(a.ndim + 1) if d != axis + 1))
        return lax.reshape(b, a.shape[:axis] + (a.shape[axis] * r,) + a.shape[axis + 1:])
    if reps.shape != (a.shape[axis],):
        raise ValueError(f"repeats shape {reps.shape} does not match the dimension on axis "
                         f"{axis}: {a.shape[axis]}")
    pieces = [repeat(lax.slice_along(a, i, i + 1, axis=axis), int(r), axis)
              for i, r in enumerate(reps) if r]
    if not pieces:
        return lax.full(a.shape[:axis] + (0,) + a.shape[axis + 1:], 0, util_dtype(a))
    return lax.concatenate(pieces, axis)

def _repeat_to_length(a, repeats, axis, total):
    """Repeat with (possibly traced) counts into exactly ``total`` slots:
    mark where each element's run starts, and a running count of the marks
    names the element each slot takes (cut short, or padded with the last
    element)."""
    from .advanced_indexing import take
    from .sorting import cumsum
    n = a.shape[axis]
    reps = util.broadcast_to(asarray(repeats), (n,))
    if reps.dtype.kind not in "iu":
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{reps.dtype.name}")
    if n == 0 or total == 0:
        return lax.full(a.shape[:axis] + (total,) + a.shape[axis + 1:], 0, util_dtype(a))
    starts = cumsum(lax.concatenate([lax.full((1,), 0, reps.dtype),
                                     lax.slice(reps, (0,), (n - 1,))], 0))
    marks = lax.full((total,), 0, starts.dtype).at[starts].add(
        lax._convert(1, starts.dtype, False), mode="drop")
    which = lax.sub(cumsum(marks), lax._convert(1, marks.dtype, False))
    return take(a, which, axis=axis)

# -- padding


def _pad_widths(pad_width, nd):
    pw = np.asarray(_static(pad_width, "jnp.pad pad_width"))
    if pw.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    pw = np.broadcast_to(pw, (nd, 2)) if pw.size in (1, 2) or pw.shape == (nd, 2) else pw
    if pw.shape != (nd, 2):
        raise ValueError(f"jnp.pad: pad_width with nd={nd} has unsupported shape {pw.shape}. Valid "
                         f"shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")
    if (pw < 0).any():
        raise ValueError("index can't contain negative values")
    return tuple((np.int64(lo), np.int64(hi)) for lo, hi in pw)


def _pad_edge_axis(x, axis, lo, hi, mode, odd=False):
    n = x.shape[axis]

    def piece(start, stop):
        return lax.slice_along(x, start, stop, axis=axis)

    if mode == "edge":
        parts = [repeat(piece(0, 1), lo, axis), x, repeat(piece(n - 1, n), hi, axis)]
        return lax.concatenate([p for p in parts if p.shape[axis]], axis)
    if mode == "wrap":
        reps = -(-(lo + hi) // n) + 1 if n else 0
        big = lax.concatenate([x] * (2 * reps + 1), axis)
        return lax.slice_along(big, reps * n - lo, reps * n + n + hi, axis=axis)
    # reflect / symmetric: extend by mirrored copies until long enough
    skip = 1 if mode == "reflect" else 0
    while lo or hi:
        n = x.shape[axis]
        avail = builtins.max(n - skip, 1 if n == 1 else 0)
        take_lo, take_hi = builtins.min(lo, avail), builtins.min(hi, avail)
        parts = []
        if take_lo:
            s = skip if n > 1 else 0
            parts.append(_reflected(lax.rev(piece(s, s + take_lo), (axis,)), piece(0, 1), odd))
        parts.append(x)
        if take_hi:
            e = n - skip if n > 1 else n
            parts.append(_reflected(lax.rev(piece(e - take_hi, e), (axis,)), piece(n - 1, n),
                                    odd))
        x = lax.concatenate(parts, axis) if len(parts) > 1 else x
        lo, hi = lo - take_lo, hi - take_hi
    return x


def _reflected(mirror, edge, odd):
    """Mirrored values; with ``reflect_type='odd'`` reflected through the
    edge value instead (``2 * edge - mirror``)."""
    if not odd:
        return mirror
    two = lax._convert(2, util_dtype(edge), False)
    return lax.sub(lax.mul(two, util.broadcast_to(edge, mirror.shape)), mirror)


def _pad_with_function(array, pad_width, func, kwargs):
    """NumPy's callable mode: zero-pad, then let ``func`` rewrite each 1-D
    vector along each axis in turn (vmapped over the other axes)."""
    from xjit._src.interpreters.batching import vmap
    array = pad_p.bind(array, lax._convert(0, util_dtype(array), False),
                       padding_config=tuple((int(lo), int(hi), 0) for lo, hi in pad_width))
    for axis in range(array.ndim):
        moved = lax.transpose(array, tuple(d for d in range(array.ndim) if d != axis) + (axis,))
        rows = reshape(moved, (-1, moved.shape[-1]))
        width = tuple(int(w) for w in pad_width[axis])
        out = vmap(lambda v, ax=axis, w=width: func(v, w, ax, kwargs))(rows)
        if out.shape != rows.shape:
            raise ValueError("Padding function must return a vector of the same shape as its "
                             "input")
        out = reshape(out, moved.shape)
        inv = list(range(array.ndim - 1))
        inv.insert(axis, array.ndim - 1)
        array = lax.transpose(out, tuple(inv))
    return array


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


@jitted("_pad", ("pad_width", "mode", "odd"))
def _pad(array, pad_width, mode, constant_values, odd=False):
    if mode == "constant":
        cv = np.asarray(constant_values) if not _is_array(constant_values) else constant_values
        if util.ndim_of(cv) == 0:
            val = lax._convert(cv, util_dtype(array), False)
            return pad_p.bind(array, val, padding_config=tuple((lo, hi, 0) for lo, hi in pad_width))
        cv = util.broadcast_to(asarray(cv), (array.ndim, 2))
        for ax, (lo, hi) in enumerate(pad_width):
            for side, width in ((0, lo), (1, hi)):
                cfg = [(0, 0, 0)] * array.ndim
                cfg[ax] = (width, 0, 0) if side == 0 else (0, width, 0)
                val = lax.reshape(lax.slice(cv, (ax, side), (ax + 1, side + 1)), ())
                array = lax.pad(array, lax._convert(val, util_dtype(array), False), cfg)
        return array
    for ax, (lo, hi) in enumerate(pad_width):
        if lo or hi:
            if array.shape[ax] == 0:
                raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' "
                                 "or 'empty'")
            array = _pad_edge_axis(array, ax, lo, hi, mode, odd)
    return array


def pad(array, pad_width, mode="constant", **kwargs):
    util.check_arraylike("pad", array)
    array = asarray(array)
    pw = _pad_widths(pad_width, array.ndim)
    if callable(mode):
        return _pad_with_function(array, pw, mode, kwargs)
    if mode not in _PAD_MODES:
        if mode in ("linear_ramp", "maximum", "mean", "median", "minimum", "empty"):
            raise NotImplementedError(f"jnp.pad mode '{mode}' is not implemented")
        raise ValueError(f"Unimplemented padding mode '{mode}' for np.pad.")
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, set())
    bad = set(kwargs) - allowed
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {bad}")
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise AssertionError(f"reflect_type must be 'even' or 'odd'; got {reflect_type!r}")
    cv = kwargs.get("constant_values", 0)
    if isinstance(cv, (list, tuple)):
        cv = np.asarray(cv)
    return _pad(array, pw, mode, cv, odd=reflect_type == "odd")

# -- flips and rolls


@jitted("_flip", ("axis",))
def _flip(m, axis):
    return lax.rev(m, axis)


def flip(m, axis=None):
    util.check_arraylike("flip", m)
    m = asarray(m)
    if axis is None:
        axes = tuple(range(m.ndim))
    else:
        axes = tuple(_axis(a, m.ndim) for a in ((axis,) if np.ndim(axis) == 0 else axis))
    return _flip(m, axis=axes)


def fliplr(m):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d")
    return _flip(m, axis=(1,))


def flipud(m):
    m = asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d")
    return _flip(m, axis=(0,))


def _unit_slice(a, axis, start, stop):
    """A slice along one axis with explicit unit strides (as JAX's roll)."""
    lo = [0] * a.ndim
    hi = list(a.shape)
    lo[axis], hi[axis] = start, stop
    return lax.slice(a, lo, hi, (1,) * a.ndim)


@jitted("_roll_static", ("shift", "axis"))
def _roll_static(a, shift, axis):
    for s, ax in zip(shift, axis):
        n = a.shape[ax]
        if n == 0:
            continue
        s %= n
        if s:
            a = lax.concatenate([_unit_slice(a, ax, n - s, n), _unit_slice(a, ax, 0, n - s)], ax)
    return a


@jitted("_roll_dynamic", ("axis",))
def _roll_dynamic(a, shift, axis):
    """Roll by traced shifts: slice the array doubled along each axis."""
    from .lax_numpy import remainder
    shifts = util.broadcast_to(shift, (len(axis),))
    for i, ax in enumerate(axis):
        n = a.shape[ax]
        s = lax.squeeze(lax.slice(shifts, (i,), (i + 1,), (1,)), (0,))
        s = remainder(lax._convert(s, np.int32, False), lax.max(np.int32(n), np.int32(1)))
        doubled = lax.concatenate([a, a], ax)
        a = lax.dynamic_slice_in_dim(doubled, lax.sub(np.int32(n), s), n, ax)
    return a


def roll(a, shift, axis=None):
    util.check_arraylike("roll", a)
    a = asarray(a)
    if isinstance(shift, Tracer):
        if axis is None:
            return reshape(_roll_dynamic(ravel(a), shift, axis=(0,)), a.shape)
        axes = tuple(_axis(x, a.ndim) for x in np.atleast_1d(axis))
        return _roll_dynamic(a, shift, axis=axes)
    shifts = tuple(int(s) for s in np.atleast_1d(shift))
    if axis is None:
        shape = a.shape
        return reshape(_roll_static(ravel(a), shift=(builtins.sum(shifts),), axis=(0,)), shape)
    axes = tuple(_axis(x, a.ndim) for x in np.atleast_1d(axis))
    shifts, axes = zip(*np.broadcast(shifts, axes)) if len(shifts) != len(axes) else (shifts, axes)
    return _roll_static(a, shift=tuple(map(int, shifts)), axis=tuple(map(int, axes)))


def rot90(m, k=1, axes=(0, 1)):
    util.check_arraylike("rot90", m)
    return _rot90(m, k=operator.index(k), axes=tuple(axes))


@jitted("rot90", ("k", "axes"))
def _rot90(m, k, axes):
    ax1, ax2 = (_axis(x, m.ndim) for x in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return lax.rev(m, (ax1, ax2))
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = ax2, ax1
    return lax.transpose(lax.rev(m, (ax2,)), perm) if k == 1 else \
        lax.rev(lax.transpose(m, perm), (ax2,))

# -- splitting


def _split(name, ary, indices_or_sections, axis, even):
    util.check_arraylike(name, ary)
    ary = asarray(ary)
    axis = _axis(axis, ary.ndim)
    n = ary.shape[axis]
    if np.ndim(indices_or_sections) == 0:
        k = operator.index(_static(indices_or_sections, f"jnp.{name}"))
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        q, r = divmod(n, k)
        if even and r:
            raise ValueError(f"array split does not result in an equal division: rest is {r}")
        sizes = [np.int64(q + 1)] * r + [np.int64(q)] * (k - r)
    else:
        idx = [builtins.min(builtins.max(int(i) + n if int(i) < 0 else int(i), 0), n)
               for i in np.asarray(indices_or_sections)]
        bounds = [0] + idx + [n]
        sizes = [np.int64(builtins.max(b - a, 0)) for a, b in zip(bounds[:-1], bounds[1:])]
    from ..ad_rules import split_p
    return split_p.bind(ary, sizes=tuple(sizes), axis=axis)


def split(ary, indices_or_sections, axis=0):
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis=0):
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary, indices_or_sections):
    a = asarray(ary)
    return _split("hsplit", a, indices_or_sections, 0 if a.ndim == 1 else 1, True)


def vsplit(ary, indices_or_sections):
    a = asarray(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return _split("vsplit", a, indices_or_sections, 0, True)


def dsplit(ary, indices_or_sections):
    a = asarray(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _split("dsplit", a, indices_or_sections, 2, True)

# -- stacking, insertion, deletion


@jitted("atleast_3d")
def _atleast_3d(x):
    if x.ndim == 0:
        return lax.reshape(x, (1, 1, 1))
    if x.ndim == 1:
        return lax.expand_dims(x, (0, 2))
    if x.ndim == 2:
        return lax.expand_dims(x, (2,))
    return x


def atleast_3d(*arys):
    outs = [_atleast_3d(asarray(a)) for a in arys]
    return outs[0] if len(outs) == 1 else outs


def column_stack(tup):
    arrs = [asarray(a) for a in tup]
    arrs = [lax.transpose(atleast_2d(a), (1, 0)) if a.ndim < 2 else a for a in arrs]
    return concatenate(arrs, axis=1)


def dstack(tup, dtype=None):
    return concatenate([_atleast_3d(asarray(a)) for a in tup], axis=2, dtype=dtype)


def append(arr, values, axis=None):
    util.check_arraylike("append", arr, values)
    return _append(arr, values, axis=axis)


@jitted("append", ("axis",))
def _append(arr, values, axis):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    util.check_arraylike("delete", arr)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(obj, builtins.slice):
        drop = set(range(n)[obj])
    else:
        idx = np.atleast_1d(np.asarray(core.concrete_or_error(
            None, obj, "'obj' array argument of jnp.delete()")))
        if idx.dtype == np.bool_:
            if idx.shape != (n,):
                raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                                 "one-dimensional with length matching specified axis.")
            idx = np.flatnonzero(idx)
        for i in idx:
            if not -n <= i < n:
                raise IndexError(f"index {int(i)} is out of bounds for axis {axis} with size {n}")
        drop = {int(i) % n for i in idx}
    keep = [i for i in range(n) if i not in drop]
    runs, start = [], None
    for j, i in enumerate(keep):
        if start is None:
            start = i
        if j + 1 == len(keep) or keep[j + 1] != i + 1:
            runs.append(lax.slice_along(a, start, i + 1, axis=axis))
            start = None
    if not runs:
        return lax.slice_along(a, 0, 0, axis=axis)
    return lax.concatenate(runs, axis) if len(runs) > 1 else runs[0]


def insert(arr, obj, values, axis=None):
    """Static indices only: each value goes before position ``obj[i]`` of
    the original array, as in NumPy."""
    util.check_arraylike("insert", arr, values)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    idx = np.asarray(_static(obj, "jnp.insert") if not isinstance(obj, builtins.slice)
                     else np.arange(n)[obj])
    scalar_idx = idx.ndim == 0
    idx = np.where(np.atleast_1d(idx) < 0, np.atleast_1d(idx) + n, np.atleast_1d(idx))
    if ((idx < 0) | (idx > n)).any():
        raise IndexError(f"index {int(idx[(idx < 0) | (idx > n)][0])} is out of bounds for axis "
                         f"{axis} with size {n}")
    vals = lax._convert(asarray(values), util_dtype(a), False)
    vshape = list(a.shape)
    vshape[axis] = 1 if scalar_idx else len(idx)
    if scalar_idx:
        v = asarray(vals)
        v = lax.expand_dims(v, (axis,)) if v.ndim == a.ndim - 1 else v
        if v.ndim == a.ndim:
            vshape[axis] = v.shape[axis]
        vals = util.broadcast_to(v, vshape)
        idx = np.full(vshape[axis], idx[0])
    else:
        vals = util.broadcast_to(vals, vshape)
    order = np.argsort(idx, kind="stable")
    parts, prev = [], 0
    for j in order:
        i = int(idx[j])
        if i > prev:
            parts.append(lax.slice_along(a, prev, i, axis=axis))
        parts.append(lax.slice_along(vals, int(j), int(j) + 1, axis=axis))
        prev = builtins.max(prev, i)
    if prev < n:
        parts.append(lax.slice_along(a, prev, n, axis=axis))
    return lax.concatenate(parts, axis) if len(parts) > 1 else parts[0]


def copy(a, order=None):
    util.check_arraylike("copy", a)
    from ..lax.structural import copy_p
    return copy_p.bind(asarray(a))

# -- 1-D convolution, through conv_general_dilated as JAX does


@jitted("_conv", ("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type):
    if util.ndim_of(x) != 1 or util.ndim_of(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = util.promote_dtypes_inexact(x, y)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    if op == "correlate" and util_dtype(y).kind == "c":
        y = lax.conj(y)
    swapped = x.shape[0] < y.shape[0]
    if swapped:
        x, y = y, x
    if op == "convolve":
        y = _flip(y, axis=(0,))
    ny = y.shape[0]
    padding = {"valid": [(0, 0)], "same": [(ny // 2, ny - ny // 2 - 1)],
               "full": [(ny - 1, ny - 1)]}[mode]
    out = conv_general_dilated(lax.broadcast_in_dim(x, (1, 1) + x.shape, (2,)),
                               lax.broadcast_in_dim(y, (1, 1) + y.shape, (2,)), (1,), padding,
                               precision=precision, preferred_element_type=preferred_element_type)
    if swapped and op == "correlate":
        out = lax.rev(out, (2,))
    return lax.squeeze(out, (0, 1))


def _conv_entry(op):
    def fn(a, v, mode, precision, preferred_element_type):
        util.check_arraylike(op, a, v)
        return _conv(a, v, mode=mode, op=op, precision=precision,
                     preferred_element_type=preferred_element_type)
    return jitted(op, ("mode", "precision", "preferred_element_type"))(fn)


_convolve, _correlate = _conv_entry("convolve"), _conv_entry("correlate")


def _check_mode(mode):
    if mode not in ("full", "same", "valid"):
        raise ValueError("mode must be one of ['full', 'same', 'valid']")


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    _check_mode(mode)
    return _convolve(a, v, mode=mode, precision=precision,
                     preferred_element_type=preferred_element_type)


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    _check_mode(mode)
    return _correlate(a, v, mode=mode, precision=precision,
                      preferred_element_type=preferred_element_type)
