"""Statistics and finite differences of ``xjit.numpy``: ``cov`` and
``corrcoef``, ``gradient`` (second-order central differences, one-sided at
the edges, uneven spacing allowed), ``unwrap`` (phase unwrapping) and the
histograms (``histogram``, ``histogramdd``, ``histogram2d``), differences
(``diff``, ``ediff1d``), ``trapezoid`` integration and linear interpolation
(``interp``)."""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from . import (diagonals, index_tricks, lax_numpy, manipulation, reductions, shape_ops, sorting,
               tensor_contractions, util)
from .lax_numpy import asarray, multiply, true_divide, util_dtype, where
from .reductions import max as _max, min as _min, sum as _sum
from .shape_ops import concatenate, moveaxis, ravel
from xjit._src.pjit import jit_named

# -- covariance and correlation


@jit_named("cov", static_argnames=("rowvar", "bias", "ddof", "dtype"))
def _cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype):
    if y is not None:
        m, y = (asarray(a) for a in util.promote_dtypes_inexact(asarray(m), asarray(y)))
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        (m,) = util.promote_dtypes_inexact(asarray(m))
        m = asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    X = shape_ops.atleast_2d(m)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return lax_numpy.array([]).reshape(0, 0)
    if y is not None:
        y2 = shape_ops.atleast_2d(y)
        if not rowvar and y2.shape[0] != 1:
            y2 = y2.T
        X = shape_ops.concatenate((X, y2), axis=0)
    if X.shape[1] == 0:
        return lax_numpy.full(() if X.shape[0] == 1 else (X.shape[0],) * 2, np.nan, dtype=X.dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        fweights = asarray(fweights)
        if fweights.ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if fweights.shape[0] != X.shape[1]:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if util_dtype(fweights).kind not in "iu":
            raise TypeError("fweights must be integer.")
        w = lax_numpy.abs(fweights)
    if aweights is not None:
        aweights = asarray(aweights)
        if aweights.ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aweights.shape[0] != X.shape[1]:
            raise RuntimeError("incompatible numbers of samples and aweights")
        aweights = lax_numpy.abs(aweights)
        w = aweights if w is None else w * aweights
    if dtype is not None:
        X = X.astype(dtype)
        w = w.astype(dtype) if w is not None else w
    avg, w_sum = reductions.average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        f = X.shape[1] - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = w_sum - ddof
    else:
        f = w_sum - ddof * reductions.sum(w * aweights) / w_sum
    X = X - avg[:, None]
    X_T = X.T if w is None else (X * w[None, :]).T
    return lax_numpy.true_divide(tensor_contractions.dot(X, X_T.conj()), f).squeeze()


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """Covariance matrix of the variables in the rows (``rowvar``) or columns
    of ``m`` (and ``y``), with frequency and/or analytic weights."""
    util.check_arraylike("cov", m, *([] if y is None else [y]))
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got dtype={dtype!r}")
    return _cov(m, y, rowvar=bool(rowvar), bias=bool(bias),
                ddof=None if ddof is None else int(ddof), fweights=fweights, aweights=aweights,
                dtype=dtype)


@jit_named("corrcoef", static_argnames=("rowvar", "dtype"))
def _corrcoef(x, y, rowvar, dtype):
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return lax_numpy.divide(c, c)  # NaN for 0/0 or inf/inf, else 1
    d = diagonals.diag(c)
    std = lax_numpy.sqrt(lax_numpy.real(d)).astype(c.dtype)
    c = c / std[:, None] / std[None, :]
    re = lax_numpy.clip(lax_numpy.real(c), -1, 1)
    if util_dtype(c).kind == "c":
        return lax.complex(re, lax_numpy.clip(lax_numpy.imag(c), -1, 1))
    return re


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients, clipped to [-1, 1]."""
    util.check_arraylike("corrcoef", x)
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got "
                         f"dtype={dtype!r}")
    return _corrcoef(x, y, rowvar=bool(rowvar), dtype=dtype)

# -- finite differences


def _slice_in_dim(x, lo, hi, axis):
    """``lax.slice_in_dim`` with its unit strides spelled out, as JAX prints."""
    start, limit = [0] * x.ndim, list(x.shape)
    start[axis], limit[axis] = lo, hi
    return lax.slice(x, start, limit, [1] * x.ndim)


def _gradient_along(a, h, axis):
    cut = lambda x, lo, hi: _slice_in_dim(x, lo, hi, axis)  # noqa: E731
    n = a.shape[axis]
    upper = cut(a, 1, 2) - cut(a, 0, 1)
    lower = cut(a, n - 1, n) - cut(a, n - 2, n - 1)
    if np.ndim(h) == 0:
        inner = (cut(a, 2, n) - cut(a, 0, n - 2)) * 0.5 / h
        lower = lower / h
        return shape_ops.concatenate((upper / h, inner, lower), axis=axis)
    if np.ndim(h) != 1:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    if h.shape[0] != n:
        raise ValueError("Spacing arrays must have the same length as the dimension along "
                         "which the gradient is calculated.")
    h = lax.reshape(h, tuple(n if i == axis else 1 for i in range(a.ndim)))
    upper = upper / (cut(h, 1, 2) - cut(h, 0, 1))
    lower = lower / (cut(h, n - 1, n) - cut(h, n - 2, n - 1))
    dx1 = cut(h, 1, n - 1) - cut(h, 0, n - 2)
    dx2 = cut(h, 2, n) - cut(h, 1, n - 1)
    # second-order weights for the uneven three-point stencil
    wa = -dx2 / (dx1 * (dx1 + dx2))
    wb = (dx2 - dx1) / (dx1 * dx2)
    wc = dx1 / (dx2 * (dx1 + dx2))
    inner = wa * cut(a, 0, n - 2) + wb * cut(a, 1, n - 1) + wc * cut(a, 2, n)
    return shape_ops.concatenate((upper, inner, lower), axis=axis)


@jit_named("gradient", static_argnames=("axis", "edge_order"))
def _gradient(f, *varargs, axis, edge_order):
    a, *spacing = (asarray(x) for x in util.promote_dtypes_inexact(asarray(f), *varargs))
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = tuple(util.canonicalize_axis(i, a.ndim) for i in ((axis,) if isinstance(axis, int) else axis))
    if not axes:
        return []
    if builtins.min(a.shape[i] for i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "2 elements are required.")
    if len(spacing) == 0:
        dx = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = spacing * len(axes)
    elif len(spacing) == len(axes):
        dx = spacing
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
    grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


def gradient(f, *varargs, axis=None, edge_order=None):
    """Gradient of sampled ``f`` along each axis (a list for several axes);
    ``varargs`` give scalar spacings or coordinate arrays."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    util.check_arraylike("gradient", f, *varargs)
    if isinstance(axis, list):
        axis = tuple(axis)
    return _gradient(f, *varargs, axis=axis, edge_order=edge_order)


@jit_named("unwrap", static_argnames=("axis",))
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """Add multiples of ``period`` so consecutive steps along ``axis`` never
    jump by more than ``discont`` (default ``period / 2``)."""
    util.check_arraylike("unwrap", p)
    p, period = (asarray(x) for x in util.promote_dtypes(asarray(p), period))
    if util_dtype(p).kind == "c":
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if p.shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if util_dtype(p).kind in "iu" else period / 2
    dd = diff(p, axis=axis)
    ddmod = lax_numpy.mod(dd + interval, period) - interval
    ddmod = lax_numpy.where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correction = lax_numpy.where(lax_numpy.abs(dd) < discont, 0, ddmod - dd)
    n = p.shape[axis]
    ax = util.canonicalize_axis(axis, p.ndim)
    return shape_ops.concatenate((_slice_in_dim(p, 0, 1, ax),
                            _slice_in_dim(p, 1, n, ax) + sorting.cumsum(correction, axis=ax)),
                           axis=ax)


# -- histograms


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """Counts of the ``(N, D)`` samples in a D-dimensional grid of bins, and
    the list of per-dimension bin edges."""
    if weights is None:
        util.check_arraylike("histogramdd", sample)
        (sample,) = util.promote_dtypes_inexact(asarray(sample))
    else:
        util.check_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = util.promote_dtypes_inexact(asarray(sample), asarray(weights))
    sample = asarray(sample)
    N, D = sample.shape
    if range is not None and (len(range) != D or any(r is not None and np.shape(r)[0] != 2
                                                     for r in range)):
        raise ValueError(f"For sample.shape={(N, D)}, range must be a sequence of {D} pairs or "
                         f"Nones; got range={range}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = D * [bins]
    else:
        if len(per_dim) != D:
            raise ValueError("should be a bin for each dimension.")
    idx, edges = [], []
    for i in builtins.range(D):
        col = sample[:, i]
        e = histogram_bin_edges(col, per_dim[i], None if range is None else range[i],
                                    weights)
        b = sorting.searchsorted(e, col, side="right")
        idx.append(lax_numpy.where(col == e[-1], b - 1, b))
        edges.append(e)
    nbins = tuple(e.shape[0] + 1 for e in edges)
    flat = index_tricks.ravel_multi_index(tuple(idx), nbins, mode="clip")
    hist = manipulation.bincount(flat, weights, length=math.prod(nbins)).reshape(nbins)
    hist = hist[D * (slice(1, -1),)]
    if density:
        hist = hist.astype(sample.dtype)
        hist = hist / hist.sum()
        for width in index_tricks.ix_(*[diff(e) for e in edges]):
            hist = hist / width
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """``histogramdd`` of the points ``(x[i], y[i])``: counts, x edges, y edges."""
    util.check_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [asarray(bins), asarray(bins)]
    hist, edges = histogramdd(shape_ops.transpose(lax_numpy.asarray([x, y])), bins, range, weights, density)
    return hist, edges[0], edges[1]

# -- periodic interpolation (the ``period=`` path of ``interp``)


@jit_named("_interp", static_argnames=("left", "right"))
def _interp_periodic(x, xp, fp, left, right, period):
    from ..lax.sorting import sort_key_val
    x, xp, fp = asarray(x), asarray(xp), asarray(fp)
    if xp.shape != fp.shape or xp.ndim != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = (asarray(v) for v in util.promote_dtypes_inexact(x, xp))
    if util_dtype(x).kind == "c":
        raise ValueError("jnp.interp: complex x values not supported.")
    if np.ndim(period) != 0:
        raise ValueError(f"period must be a scalar; got {period}")
    period = lax_numpy.abs(period)
    x, xp = x % period, xp % period
    xp, fp = sort_key_val(xp, fp)
    # one wrapped sample on each side makes every x fall between two samples
    xp = shape_ops.concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = shape_ops.concatenate([fp[-1:], fp, fp[:1]])
    return _interp(x, xp, fp, None, None)


def interp_periodic(x, xp, fp, left, right, period):
    """``jnp.interp(x, xp, fp, period=period)``: ``x`` and ``xp`` taken
    modulo ``period`` (``left``/``right`` are ignored, as in NumPy)."""
    util.check_arraylike("interp", x, xp, fp)
    return _interp_periodic(x, xp, fp, left=None, right=None, period=period)


def _diff_once(a, axis, op):
    n = a.shape[axis]  # a[1:] and a[:-1], as Python slices clamp (empty stays empty)
    return op(lax.slice_along(a, min(1, n), n, axis=axis),
              lax.slice_along(a, 0, max(n - 1, 0), axis=axis))


@jit_named("diff", static_argnames=("n", "axis"))
def _diff(a, n, axis, prepend, append):
    a = asarray(a)
    axis = util.canonicalize_axis(axis, a.ndim)

    def edge(extra):
        e = asarray(extra)
        if e.ndim:
            return e
        shape = list(a.shape)
        shape[axis] = 1
        return util.broadcast_to(e, shape)

    parts = ([] if prepend is None else [edge(prepend)]) + [a] + \
        ([] if append is None else [edge(append)])
    a = concatenate(parts, axis=axis) if len(parts) > 1 else parts[0]
    op = lax.ne if util_dtype(a) == np.bool_ else lax.sub
    for _ in range(n):
        a = _diff_once(a, axis, op)
    return a


def diff(a, n=1, axis=-1, prepend=None, append=None):
    util.check_arraylike("diff", a)
    n = operator.index(util.concrete_arg(n, "jnp.diff n"))
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if util.ndim_of(a) == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    return _diff(a, n=n, axis=axis, prepend=prepend, append=append)


@jit_named("ediff1d")
def _ediff1d(ary, to_end, to_begin):
    flat = ravel(ary)
    out = _diff_once(flat, 0, lax.sub) if flat.shape[0] else flat
    parts = [ravel(lax._convert(asarray(to_begin), util_dtype(flat), False))] if to_begin is not None else []
    parts.append(out)
    if to_end is not None:
        parts.append(ravel(lax._convert(asarray(to_end), util_dtype(flat), False)))
    return lax.concatenate(parts, 0) if len(parts) > 1 else out


def ediff1d(ary, to_end=None, to_begin=None):
    util.check_arraylike("ediff1d", ary)
    return _ediff1d(ary, to_end, to_begin)


@jit_named("trapezoid", static_argnames=("axis",))
def _trapezoid(y, x, dx, axis):
    if x is None:
        (y,) = util.promote_dtypes_inexact(y)
        y = moveaxis(asarray(y), axis, -1)
        d = dx
    else:
        y, x = util.promote_dtypes_inexact(y, x)
        y, x = moveaxis(asarray(y), axis, -1), asarray(x)
        x = x if x.ndim == 1 else moveaxis(x, axis, -1)
        d = _diff_once(x, x.ndim - 1, lax.sub)
    n = y.shape[-1]
    mid = lax.add(lax.slice_along(y, 1, n, axis=y.ndim - 1), lax.slice_along(y, 0, n - 1, axis=y.ndim - 1))
    return multiply(0.5, _sum(multiply(d, mid), axis=-1))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    util.check_arraylike("trapezoid", y)
    return _trapezoid(y, x, dx, axis=axis)


def _onehot_take(table, idx):
    """``table[idx]`` for a 1-D table, as a masked sum (no gather needed)."""
    n = table.shape[0]
    hit = lax.eq(lax.expand_dims(idx, (idx.ndim,)),
                 lax.broadcast_in_dim(lax.iota(util_dtype(idx), n), idx.shape + (n,), (idx.ndim,)))
    full = lax.broadcast_in_dim(table, idx.shape + (n,), (idx.ndim,))
    return _sum(where(hit, full, lax.full_like(full, 0)), axis=-1)


@jit_named("_interp")
def _interp(x, xp, fp, left, right):
    x, xp, fp = (asarray(v) for v in util.promote_dtypes_inexact(x, xp, fp))
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("xp and fp must be one-dimensional")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("xp and fp must have the same length")
    n = xp.shape[0]
    count = _sum(lax.le(lax.broadcast_in_dim(xp, x.shape + (n,), (x.ndim,)),
                        lax.expand_dims(x, (x.ndim,))), axis=-1, dtype=np.int32)
    i = lax.clamp(np.int32(1), count, np.int32(builtins.max(n - 1, 1)))
    xp0, xp1 = _onehot_take(xp, lax.sub(i, np.int32(1))), _onehot_take(xp, i)
    fp0, fp1 = _onehot_take(fp, lax.sub(i, np.int32(1))), _onehot_take(fp, i)
    dx = lax.sub(xp1, xp0)
    tiny = lax.le(lax.abs(dx), util.const_like(dx, float(dtypes.finfo(util_dtype(dx)).eps)))
    f = where(tiny, fp0, lax.add(fp0, lax.mul(lax.div(lax.sub(x, xp0), where(tiny, util.const_like(dx, 1), dx)),
                                           lax.sub(fp1, fp0))))
    left = fp[0] if left is None else left
    right = fp[-1] if right is None else right
    f = where(lax.lt(x, xp[0]), left, f)
    return where(lax.gt(x, xp[-1]), right, f)


def interp(x, xp, fp, left=None, right=None, period=None):
    util.check_arraylike("interp", x, xp, fp)
    if period is not None:
        from .statistics import interp_periodic
        return interp_periodic(x, xp, fp, left, right, period)
    if isinstance(left, str) or isinstance(right, str):
        raise ValueError("left and right must be numbers or None")
    return _interp(x, xp, fp, left, right)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    a = ravel(asarray(a))
    (a,) = util.promote_dtypes_inexact(a)
    if np.ndim(bins) == 1:
        return asarray(bins, dtype=util_dtype(a))
    bins = operator.index(util.concrete_arg(bins, "jnp.histogram bins"))
    lo, hi = (_min(a), _max(a)) if range is None else (asarray(range[0], util_dtype(a)),
                                                         asarray(range[1], util_dtype(a)))
    same = lax.eq(lo, hi)
    lo = where(same, lax.sub(lo, util.const_like(lo, 0.5)), lo)
    hi = where(same, lax.add(hi, util.const_like(hi, 0.5)), hi)
    from .lax_numpy import linspace
    return linspace(lo, hi, bins + 1, dtype=util_dtype(a))


def histogram(a, bins=10, range=None, weights=None, density=None):
    util.check_arraylike("histogram", a)
    edges = histogram_bin_edges(a, bins, range, weights)
    a = ravel(asarray(a))
    (a,) = util.promote_dtypes_inexact(a)
    a = asarray(a)
    nb = edges.shape[0] - 1
    w = lax.full_like(a, 1) if weights is None else ravel(asarray(weights, util_dtype(a)))
    # bin i holds edges[i] <= a < edges[i+1]; the last bin also holds its right edge
    above = _sum(lax.le(lax.broadcast_in_dim(edges, a.shape + (nb + 1,), (1,)),
                        lax.expand_dims(a, (1,))), axis=-1, dtype=np.int32)
    idx = lax.sub(above, np.int32(1))
    idx = where(lax.eq(a, edges[-1]), np.int32(nb - 1), idx)
    hit = lax.eq(lax.expand_dims(idx, (1,)),
                 lax.broadcast_in_dim(lax.iota(np.int32, nb), (a.shape[0], nb), (1,)))
    wide = lax.broadcast_in_dim(w, (a.shape[0], nb), (0,))
    counts = _sum(where(hit, wide, lax.full_like(wide, 0)), axis=0)
    if density:
        widths = _diff_once(edges, 0, lax.sub)
        counts = true_divide(true_divide(counts, widths), _sum(counts))
    return counts, edges
