"""Sorting, searching, uniques and cumulative reductions of ``xjit.numpy``.

As in JAX, the public functions wrap a jitted body (``jit[name=sort ...]`` in
a jaxpr). Sorts are stable; NaNs sort last; ``descending`` reverses before
and after a stable ascending sort so ties keep their order.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes, errors
from ..core import Tracer
from xjit._src.pjit import jit
from xjit._src.lax import lax
from ..lax import gather_scatter as gs
from ..lax import sorting as lax_sorting
from . import util
from xjit._src.pjit import jit_named


def _check_sort_args(kind, order):
    if kind is not None:
        raise TypeError("'kind' argument to sort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError("'order' argument to sort is not supported.")


def _prepare(a, axis):
    """The array and axis to sort along (flattened for ``axis=None``)."""
    if axis is None:
        return lax.reshape(a, (a.size,)), 0
    return a, util.canonicalize_axis(axis, a.ndim)


# -- sort / argsort / lexsort


def _sort_impl(a, axis, stable, descending):
    a, axis = _prepare(a, axis)
    out = lax_sorting.sort(a, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


_sort = jit_named("sort", static_argnums=(1, 2, 3))(_sort_impl)


def _sort_call(name, jitted, a, axis, kind, order, stable, descending):
    """Validate sort/argsort arguments, then call their jitted body."""
    from .lax_numpy import asarray
    util.check_arraylike(name, a)
    _check_sort_args(kind, order)
    a = asarray(a)
    if axis is not None:
        util.canonicalize_axis(axis, a.ndim)
    return jitted(a, None if axis is None else operator.index(axis), bool(stable),
                  bool(descending))


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    return _sort_call("sort", _sort, a, axis, kind, order, stable, descending)


def _argsort_impl(a, axis, stable, descending):
    a, axis = _prepare(a, axis)
    idx = lax.broadcasted_iota(dtypes.canonicalize_dtype(np.int64), a.shape, axis)
    if descending:
        a, idx = lax.rev(a, (axis,)), lax.rev(idx, (axis,))
    _, perm = lax_sorting.sort((a, idx), dimension=axis, is_stable=stable, num_keys=1)
    return lax.rev(perm, (axis,)) if descending else perm


_argsort = jit_named("argsort", static_argnums=(1, 2, 3))(_argsort_impl)


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    return _sort_call("argsort", _argsort, a, axis, kind, order, stable, descending)


def _lexsort_impl(keys, axis):
    shape = keys[0].shape
    idx = lax.broadcasted_iota(dtypes.canonicalize_dtype(np.int64), shape, axis)
    outs = lax_sorting.sort((*keys[::-1], idx), dimension=axis, num_keys=len(keys))
    return outs[-1]


_lexsort = jit_named("lexsort", static_argnums=(1,))(_lexsort_impl)


def lexsort(keys, axis=-1):
    """Indices sorting by the last key first, then the previous ones."""
    from .lax_numpy import asarray
    keys = tuple(keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    util.check_arraylike("lexsort", *keys)
    keys = [asarray(k) for k in keys]
    if len({k.shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    if keys[0].ndim == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    axis = util.canonicalize_axis(axis, keys[0].ndim)
    return _lexsort(tuple(keys), axis)


# -- searchsorted


def _total_lt(a, b):
    """a < b with NaNs ordered after every number (NumPy's sort order);
    complex numbers by real part, then imaginary part."""
    if dtypes.issubdtype(a.dtype, np.complexfloating):
        ra, rb = lax.real(a), lax.real(b)
        same_re = lax.bitwise_or(lax.eq(ra, rb), lax.bitwise_and(lax.ne(ra, ra), lax.ne(rb, rb)))
        return lax.bitwise_or(_total_lt(ra, rb),
                              lax.bitwise_and(same_re, _total_lt(lax.imag(a), lax.imag(b))))
    lt = lax.lt(a, b)
    if not dtypes.issubdtype(a.dtype, np.inexact):
        return lt
    return lax.bitwise_or(lt, lax.bitwise_and(lax.ne(b, b), lax.eq(a, a)))


def _bisect(a, v, side):
    """JAX's default (``scan``) search: ceil(log2(n + 1)) halvings of [0, n),
    going left where ``v`` <= (``side='right'``: <) the middle entry in the
    total order. The same positions as counting for a sorted ``a``; for an
    unsorted one, the positions JAX's bisection reaches."""
    from . import advanced_indexing as adv
    n = a.shape[0]
    low, high = lax.full(v.shape, 0, np.int32), lax.full(v.shape, n, np.int32)
    for _ in range(int(np.ceil(np.log2(n + 1)))):
        mid = lax.add(low, lax.div(lax.sub(high, low), np.int32(2)))
        at_mid = adv.rewriting_take(a, mid)
        go_left = (lax.bitwise_not(_total_lt(at_mid, v)) if side == "left"
                   else _total_lt(v, at_mid))
        low, high = lax.select(go_left, low, mid), lax.select(go_left, mid, high)
    return high


def _searchsorted_impl(a, v, side, method):
    """For each v, how many entries of sorted ``a`` precede it."""
    if method in ("scan", "scan_unrolled"):
        return _bisect(a, v, side)
    vv = lax.expand_dims(v, (v.ndim,))
    aa = lax.broadcast_in_dim(a, v.shape + a.shape, (v.ndim,))
    vv = lax.broadcast_in_dim(vv, v.shape + a.shape, tuple(range(v.ndim + 1)))
    before = _total_lt(aa, vv) if side == "left" else lax.bitwise_not(_total_lt(vv, aa))
    count = lax.reduce_sum(lax._convert(before, np.int32), (v.ndim,))
    return count


_searchsorted = jit_named("searchsorted", static_argnums=(2, 3))(_searchsorted_impl)


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    from .lax_numpy import asarray
    util.check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument {side=}, expected 'left' or 'right'")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"{method!r} is an invalid value for keyword 'method'. Expected one "
                         "of ['sort', 'scan', 'scan_unrolled', 'compare_all'].")
    a, v = asarray(a), asarray(v)
    if a.ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        a = a[asarray(sorter)]
    a, v = util.promote_dtypes(a, v)
    return _searchsorted(a, v, side, method)


# -- unique


def _unique_sorted(ar, equal_nan):
    """Sorted values, the flags marking each first occurrence, and the sort
    permutation of flat ``ar``."""
    from . import advanced_indexing as adv
    perm = argsort(ar)
    aux = adv.rewriting_take(ar, perm)
    head = lax.full((1,), True, np.bool_)
    if ar.size == 0:
        return aux, lax.full((0,), True, np.bool_), perm
    later, earlier = lax.slice(aux, (1,), (ar.size,)), lax.slice(aux, (0,), (ar.size - 1,))
    new = lax.ne(later, earlier)
    if equal_nan and dtypes.issubdtype(aux.dtype, np.inexact):
        both_nan = lax.bitwise_and(lax.ne(later, later), lax.ne(earlier, earlier))
        new = lax.bitwise_and(new, lax.bitwise_not(both_nan))
    return aux, lax.concatenate([head, new], 0), perm


def _unique_sized(ar, size, fill_value, equal_nan):
    from . import advanced_indexing as adv
    from .lax_numpy import arange, where
    aux, mask, perm = _unique_sorted(ar, equal_nan)
    ind = adv.nonzero_sized(mask, size)[0]
    values = adv.rewriting_take(aux, ind)
    n_unique = lax.reduce_sum(lax._convert(mask, np.int32), (0,))
    if fill_value is not None:
        values = where(lax.ge(arange(size), n_unique), lax._convert(fill_value, values.dtype),
                       values)
    index = adv.rewriting_take(perm, ind)
    inv_sorted = lax.sub(lax_sorting.cumsum(lax._convert(mask, np.int32)), np.int32(1))
    inverse = lax.full(ar.shape, 0, np.int32)
    inverse = gs.scatter(inverse, lax.expand_dims(lax._convert(perm, np.int32), (1,)),
                         inv_sorted, gs.ScatterDimensionNumbers((), (0,), (0,)),
                         unique_indices=True)
    counts = lax.full((size,), 0, np.int32)
    if size:  # (no scatter into an empty array)
        counts = gs.scatter_add(counts, lax.expand_dims(inv_sorted, (1,)),
                                lax.full(ar.shape, 1, np.int32),
                                gs.ScatterDimensionNumbers((), (0,), (0,)))
    return values, index, inverse, counts, n_unique


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):
    from .lax_numpy import asarray
    util.check_arraylike("unique", ar)
    if axis is not None:
        from .setops import unique_along
        return unique_along(ar, axis, return_index, return_inverse, return_counts, equal_nan,
                            None if size is None else operator.index(size), fill_value)
    ar = asarray(ar)
    if ar.size == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    shape = ar.shape
    ar = lax.reshape(ar, (ar.size,))
    if size is None:
        if isinstance(ar, Tracer):
            raise errors.ConcretizationTypeError(
                ar, "The error arose for the first argument of jnp.unique(). To make "
                    "jnp.unique() compatible with JIT and other transforms, you can specify a "
                    "concrete value for the size argument, which will determine the output "
                    "size.")
        if ar.size:
            values, index, inverse, counts, n = _unique_sized(ar, ar.size, None, equal_nan)
            n = int(n)
            values, index, counts = values[:n], index[:n], counts[:n]
        else:
            values = ar
            index = inverse = counts = lax.full((0,), 0, np.int32)
    elif ar.size == 0:  # only the padding (fill_value was required above)
        values = lax.full((operator.index(size),), fill_value, ar.dtype)
        index = inverse = counts = lax.full((0,), 0, np.int32)
    else:
        size = core.concrete_or_error(operator.index, size,
                                      "The size argument of jnp.unique must be static.")
        values, index, inverse, counts, _ = _unique_sized(ar, size, fill_value, equal_nan)
    if len(shape) > 1:
        inverse = lax.reshape(inverse, shape)
    extra = [x for flag, x in ((return_index, index), (return_inverse, inverse),
                               (return_counts, counts)) if flag]
    return (values, *extra) if extra else values


# -- cumulative reductions


def _cum_impl(prim_fn, nan_to):
    def impl(a, axis, dtype):
        from .lax_numpy import isnan, where
        a, axis = _prepare(a, axis)
        if nan_to is not None and dtypes.issubdtype(a.dtype, np.inexact):
            a = where(isnan(a), lax._convert(nan_to, a.dtype), a)
        if a.dtype != dtype or a.weak_type:
            a = lax._convert(a, dtype)
        return prim_fn(a, axis=axis)
    return impl


def _cum_fn(name, prim_fn, nan_to=None):
    wrapped = jit_named(name, static_argnums=(1, 2))(_cum_impl(prim_fn, nan_to))

    def fn(a, axis=None, dtype=None, out=None):
        from .lax_numpy import asarray
        util.check_arraylike(name, a)
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        a = asarray(a)
        if axis is not None:
            axis = util.canonicalize_axis(axis, a.ndim)
        if dtype is not None:
            dtypes.check_user_dtype_supported(dtype, name)
            dtype = dtypes.canonicalize_dtype(dtype)
        elif a.dtype == np.bool_:
            dtype = dtypes.canonicalize_dtype(np.int64)
        else:
            dtype = a.dtype
        return wrapped(a, axis, dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``numpy.{name}`` along ``axis`` (flattened when None)."
    return fn


cumsum = _cum_fn("cumsum", lax_sorting.cumsum)
cumprod = _cum_fn("cumprod", lax_sorting.cumprod)
nancumsum = _cum_fn("nancumsum", lax_sorting.cumsum, 0)
nancumprod = _cum_fn("nancumprod", lax_sorting.cumprod, 1)
