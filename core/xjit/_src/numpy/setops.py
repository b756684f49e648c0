"""Set operations of ``xjit.numpy``: membership (``isin``), the 1-D set
algebra (``union1d``, ``intersect1d``, ``setdiff1d``, ``setxor1d``), the
array-API ``unique_*`` family and ``unique`` along an axis.

Their output length depends on the values, so under ``jit`` each needs a
static ``size=``: results are then padded (with ``fill_value``, or JAX's
default: the smallest result for the unique family and intersections, 0
for set differences). Without ``size`` a traced input raises JAX's
ConcretizationTypeError. Each sized computation also returns how many
entries are real, which the unsized path uses to cut the result.
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import core, dtypes, errors
from ..core import Tracer
from xjit._src.lax import lax
from . import util
from .lax_numpy import arange, asarray, isnan, where
from .shape_ops import concatenate, moveaxis, ravel, reshape
from xjit._src.pjit import jit_named

_UNIQUE_HINT = ("The error arose for the first argument of jnp.unique(). To make jnp.unique() "
                "compatible with JIT and other transforms, you can specify a concrete value for "
                "the size argument, which will determine the output size.")


class _UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class _UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class _UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


def _int_dtype():
    return dtypes.canonicalize_dtype(np.int64)


def _static_size(size, where_):
    return None if size is None else core.concrete_or_error(operator.index, size,
                                                            f"The error arose in {where_}")


def _compact(values, keep, size, fill):
    """The first ``size`` entries of ``values`` where ``keep`` holds, padded
    with ``fill`` (a scalar, or None for the smallest kept value, 0 when
    nothing is kept); also how many were kept."""
    from . import advanced_indexing as adv
    n = lax.reduce_sum(lax._convert(keep, np.int32, False), (0,))
    if values.shape[0] == 0:
        return lax.full((size,) + values.shape[1:], 0 if fill is None else fill,
                        values.dtype), n
    ind = adv.nonzero_sized(keep, size)[0]
    out = adv.rewriting_take(values, ind)
    valid = lax.lt(arange(size, dtype=np.int32), n)
    if out.ndim > 1:
        valid = lax.broadcast_in_dim(valid, out.shape, (0,))
    if fill is None:
        from .reductions import max as _max
        from .reductions import min as _min
        out = where(valid, out, _max(out))
        fill = where(lax.gt(n, np.int32(0)), _min(out), lax._convert(0, out.dtype, False))
    return where(valid, out, lax._convert(asarray(fill), out.dtype, False)), n


# -- membership


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element occurs in ``test_elements`` (by comparing all
    pairs, whatever ``method`` names)."""
    util.check_arraylike("isin", element, test_elements)
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ValueError(f"method={method!r} is not implemented; options are 'compare_all', "
                         "'binary_search', 'sort', and 'auto'")
    element = asarray(element)
    result = _in1d(element, test_elements, invert=bool(invert), method=method,
                   assume_unique=bool(assume_unique))
    return reshape(result, element.shape)


@jit_named("_in1d", static_argnames=("invert", "method", "assume_unique"))
def _in1d(ar1, ar2, invert, method, assume_unique):
    from .reductions import all as _all
    from .reductions import any as _any
    a, b = util.promote_dtypes(ravel(ar1), ravel(ar2))
    if a.shape[0] == 0 or b.shape[0] == 0:
        return lax.full(a.shape, bool(invert), np.bool_)
    a2, b2 = lax.broadcast_in_dim(a, (a.shape[0], 1), (0,)), \
        lax.broadcast_in_dim(b, (1, b.shape[0]), (1,))
    if invert:
        return _all(lax.ne(a2, b2), -1)
    return _any(lax.eq(a2, b2), -1)


# -- unique, along an axis or flat


def _unique_sorted_rows(rows, equal_nan):
    """Rows of a non-empty 2-D array sorted lexicographically, a mask of the first of
    each run of equal rows, and the sort permutation."""
    from . import advanced_indexing as adv
    from .reductions import any as _any
    from .sorting import lexsort
    n, m = rows.shape
    if m == 0:
        perm = lax.full((n,), 0, _int_dtype())
        new = lax.full((n - 1,), False, np.bool_)
    else:
        if rows.dtype.kind == "c":
            rows = where(isnan(rows), lax._convert(np.nan, rows.dtype, False), rows)
        perm = lexsort([rows[:, j] for j in range(m - 1, -1, -1)])
        rows = adv.rewriting_take(rows, perm)
        later, earlier = rows[1:], rows[:-1]
        ne = lax.ne(later, earlier)
        if equal_nan and rows.dtype.kind in "fc":
            ne = lax.bitwise_and(ne, lax.bitwise_not(lax.bitwise_and(isnan(later),
                                                                     isnan(earlier))))
        new = _any(ne, 1)
    return rows, lax.concatenate([lax.full((1,), True, np.bool_), new], 0), perm


def unique_along(ar, axis, return_index, return_inverse, return_counts, equal_nan, size,
                 fill_value):
    """``jnp.unique`` with an ``axis``: unique slices, sorted."""
    from .sorting import cumsum
    ar = asarray(ar)
    axis = util.canonicalize_axis(axis, ar.ndim)
    if size is None and isinstance(ar, Tracer):
        raise errors.ConcretizationTypeError(ar, _UNIQUE_HINT)
    if ar.shape[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    moved = moveaxis(ar, axis, 0)
    n, rest = moved.shape[0], moved.shape[1:]
    rows = reshape(moved, (n, int(np.prod(rest))))
    if n:
        aux, mask, perm = _unique_sorted_rows(rows, equal_nan)
    else:
        aux, mask, perm = rows, lax.full((0,), True, np.bool_), lax.full((0,), 0, _int_dtype())
    k = size if size is not None else max(n, 1)
    from . import advanced_indexing as adv
    ind = adv.nonzero_sized(mask, k)[0] if n else lax.full((k,), 0, _int_dtype())
    n_unique = lax.reduce_sum(lax._convert(mask, np.int32, False), (0,))
    if n:
        values = adv.rewriting_take(aux, ind)
    else:
        values = lax.full((k, rows.shape[1]), 0, ar.dtype)
    if fill_value is not None:
        valid = lax.broadcast_in_dim(lax.lt(arange(k, dtype=np.int32), n_unique), values.shape,
                                     (0,))
        values = where(valid, values, lax._convert(asarray(fill_value), values.dtype, False))
    index = adv.rewriting_take(perm, ind) if n else lax.full((k,), 0, _int_dtype())
    if n:
        inv_sorted = lax.sub(cumsum(mask), np.int32(1))
        inverse = lax.full((n,), 0, _int_dtype()).at[perm].set(inv_sorted)
        starts = adv.nonzero_sized(mask, k + 1, fill_value=n)[0]
        counts = lax.sub(starts[1:], starts[:-1])
    else:
        inverse = lax.full((0,), 0, _int_dtype())
        counts = lax.full((k,), 0, _int_dtype())
    if size is None:
        u = int(n_unique) if n else 0
        values, index, counts = values[:u], index[:u], counts[:u]
    values = moveaxis(reshape(values, (values.shape[0],) + rest), 0, axis)
    extra = [x for flag, x in ((return_index, index), (return_inverse, inverse),
                               (return_counts, counts)) if flag]
    return (values, *extra) if extra else values


def unique_all(x, /, *, size=None, fill_value=None):
    from .sorting import unique
    util.check_arraylike("unique_all", x)
    return _UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                    return_counts=True, equal_nan=False, size=size,
                                    fill_value=fill_value))


def unique_counts(x, /, *, size=None, fill_value=None):
    from .sorting import unique
    util.check_arraylike("unique_counts", x)
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    from .sorting import unique
    util.check_arraylike("unique_inverse", x)
    return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                        fill_value=fill_value))


def unique_values(x, /, *, size=None, fill_value=None):
    from .sorting import unique
    util.check_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# -- 1-D set algebra


def _flat_promoted(name, ar1, ar2):
    util.check_arraylike(name, ar1, ar2)
    return util.promote_dtypes(ravel(asarray(ar1)), ravel(asarray(ar2)))


def _sized_unique(a):
    """Sorted unique values of 1-D ``a`` (padded to its length), their first
    indices, and a mask of the real entries."""
    from .sorting import unique
    n = a.shape[0]
    if n == 0:
        return a, lax.full((0,), 0, _int_dtype()), lax.full((0,), True, np.bool_)
    vals, idx, count = _unique_with_count(a, unique)
    return vals, idx, lax.lt(arange(n, dtype=np.int32), count)


def _unique_with_count(a, unique):
    vals, idx, counts = unique(a, return_index=True, return_counts=True, size=a.shape[0])
    count = lax.reduce_sum(lax._convert(lax.gt(counts, np.int32(0)), np.int32, False), (0,))
    return vals, idx, count


def _cut(result, n, size):
    """Unsized results: keep the ``n`` real entries (concrete here)."""
    return result if size is not None else result[:int(n)]


def union1d(ar1, ar2, *, size=None, fill_value=None):
    from .sorting import unique
    util.check_arraylike("union1d", ar1, ar2)
    if size is None:
        ar1 = core.concrete_or_error(None, ar1, "The error arose in union1d()")
        ar2 = core.concrete_or_error(None, ar2, "The error arose in union1d()")
    size = _static_size(size, "union1d()")
    return unique(concatenate([ravel(asarray(ar1)), ravel(asarray(ar2))]), size=size,
                  fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """Sorted unique values of ``ar1`` not in ``ar2`` (``ar1`` as given when
    ``assume_unique``)."""
    from .sorting import unique
    util.check_arraylike("setdiff1d", ar1, ar2)
    a, b = ravel(asarray(ar1)), ravel(asarray(ar2))
    if size is None:
        core.concrete_or_error(None, ar1, "The error arose in setdiff1d()")
    size = _static_size(size, "setdiff1d()")
    fill = lax._convert(asarray(0 if fill_value is None else fill_value), a.dtype, False)
    if a.shape[0] == 0:
        return lax.full((size or 0,), fill, a.dtype)
    if assume_unique:
        valid = None
    else:
        a, _, valid = _sized_unique(a) if size is not None else (unique(a), None, None)
    keep = isin(a, b, invert=True)
    if size is None:
        return a[np.asarray(keep)]
    if valid is not None:
        keep = lax.bitwise_and(keep, valid)
    out, _ = _compact(a, keep, size, fill)
    return out


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """Sorted values in exactly one of ``ar1`` and ``ar2``."""
    a, b = _flat_promoted("setxor1d", ar1, ar2)
    if size is None and isinstance(a, Tracer):
        raise errors.ConcretizationTypeError(a, _UNIQUE_HINT)
    size = _static_size(size, "setxor1d()")
    both = concatenate([a, b])
    if both.shape[0] == 0:
        return both if size is None else lax.full((size,), 0 if fill_value is None
                                                  else fill_value, both.dtype)
    u, _, valid = _sized_unique(both)
    keep = lax.bitwise_and(valid, lax.ne(isin(u, a), isin(u, b)))
    out, n = _compact(u, keep, size if size is not None else both.shape[0], fill_value)
    return _cut(out, n, size)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """Sorted values in both arrays; with ``return_indices`` also where each
    first occurs in ``ar1`` and ``ar2``."""
    from . import advanced_indexing as adv
    from .reductions import any as _any
    from .lax_numpy import clip
    from .reductions import argmax
    a, b = _flat_promoted("intersect1d", ar1, ar2)
    if size is None and isinstance(a, Tracer):
        raise errors.ConcretizationTypeError(a, _UNIQUE_HINT)
    size = _static_size(size, "intersect1d()")
    n1, n2 = a.shape[0], b.shape[0]
    k = size if size is not None else max(n1, 1)
    if n1 == 0 or n2 == 0:
        vals = lax.full((k,), 0 if fill_value is None else fill_value, a.dtype)
        i1, i2 = lax.full((k,), n1, _int_dtype()), lax.full((k,), n2, _int_dtype())
        n = 0
    else:
        u1, idx1, valid1 = _sized_unique(a)
        u2, idx2, valid2 = _sized_unique(b)
        eq = lax.bitwise_and(lax.eq(lax.broadcast_in_dim(u1, (n1, n2), (0,)),
                                    lax.broadcast_in_dim(u2, (n1, n2), (1,))),
                             lax.broadcast_in_dim(valid2, (n1, n2), (1,)))
        keep = lax.bitwise_and(valid1, _any(eq, 1))
        vals, n = _compact(u1, keep, k, fill_value)
        pos = adv.nonzero_sized(keep, k, fill_value=n1)[0]
        i1 = idx1.at[pos].get(mode="fill", fill_value=n1)
        j = adv.rewriting_take(argmax(eq, 1), clip(pos, 0, n1 - 1))
        i2 = where(lax.lt(pos, n1), adv.rewriting_take(idx2, j), n2)
    if size is None:
        n = int(n)
        vals, i1, i2 = vals[:n], i1[:n], i2[:n]
    return (vals, i1, i2) if return_indices else vals
