"""Polynomials as coefficient arrays, highest power first, as in NumPy:
construction from roots (``poly``), arithmetic (``polyadd``, ``polysub``,
``polymul``, ``polydiv``), calculus (``polyder``, ``polyint``), fitting
(``polyfit``, least squares on a column-scaled Vandermonde matrix) and
``roots`` (eigenvalues of the companion matrix), evaluation (``polyval``)
and the Vandermonde matrix (``vander``)."""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes
from xjit._src.lax import lax
from ..lax.sorting import sort as lax_sort
from . import util
from .lax_numpy import arange, asarray, maximum, power, sqrt, true_divide, util_dtype, where
from xjit._src.pjit import jit_named


def _complex_dtype(dt):
    return np.dtype(np.complex64 if dt in (np.float32, np.complex64, np.float16,
                                           dtypes.bfloat16) else np.complex128)


def _1d(x):
    return lax.reshape(x, (1,)) if x.ndim == 0 else x


def _empty_roots(p):
    return lax.full((0,), 0, _complex_dtype(util_dtype(p)))


@jit_named("_roots_no_zeros")
def _roots_no_zeros(p):
    """Eigenvalues of the companion matrix: ones on the subdiagonal and
    ``-p[1:] / p[0]`` across the first row."""
    from .linalg import eigvals
    n = p.shape[0] - 1
    if n < 1:
        return _empty_roots(p)
    first = lax.neg(lax.div(lax.slice(p, (1,), (n + 1,)),
                            lax.broadcast_in_dim(lax.slice(p, (0,), (1,)), (n,), (0,))))
    rows = lax.broadcasted_iota(np.int32, (n, n), 0)
    cols = lax.broadcasted_iota(np.int32, (n, n), 1)
    sub = lax._convert(lax.eq(rows, lax.add(cols, np.int32(1))), util_dtype(p), False)
    top = lax.broadcast_in_dim(first, (n, n), (1,))
    return eigvals(lax.select(lax.eq(rows, lax.full_like(rows, 0)), top, sub))


@jit_named("_roots_with_zeros")
def _roots_with_zeros(p, num_leading_zeros):
    """Fixed-shape roots: the leading zeros are rotated to the end (becoming
    zero roots), which are then sorted last and replaced by NaN."""
    from .advanced_indexing import take
    n = p.shape[0]
    lead = lax._convert(num_leading_zeros, np.int32, False)
    p = where(lax.eq(lead, np.int32(n)), lax._convert(1.0, util_dtype(p), False), p)
    r = _roots_no_zeros(take(p, lax.rem(lax.add(lax.iota(np.int32, n), lead), np.int32(n))))
    r = lax_sort((lax.eq(r, lax.full_like(r, 0)), r), dimension=0, num_keys=1)[1]
    keep = lax.lt(arange(r.shape[0]), lax.sub(np.int32(r.shape[0]), lead))
    return where(keep, r, complex(np.nan, np.nan))


def roots(p, *, strip_zeros=True):
    """Roots of the polynomial ``p`` (complex). Leading zeros are stripped,
    which needs a concrete ``p``; with ``strip_zeros=False`` they become NaN
    roots at the end instead."""
    from .reductions import all as _all, argmin
    util.check_arraylike("roots", p)
    (p,) = util.promote_dtypes_inexact(asarray(p))
    p = _1d(asarray(p))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p.shape[0] < 2:
        return _empty_roots(p)
    is_zero = lax.eq(p, lax.full_like(p, 0))
    lead = where(_all(is_zero), p.shape[0], argmin(is_zero))
    if strip_zeros:
        lead = core.concrete_or_error(
            int, lead, "The error occurred in the jnp.roots() function. To use this within a "
            "JIT-compiled context, pass strip_zeros=False, but be aware that leading zeros will "
            "result in some returned roots being set to NaN.")
        return _roots_no_zeros(lax.slice(p, (lead,), p.shape))
    return _roots_with_zeros(p, lead)


@jit_named("poly")
def _poly(seq_of_zeros):
    from .linalg import eigvals
    from .convolution import convolve
    (z,) = util.promote_dtypes_inexact(asarray(seq_of_zeros))
    z = _1d(asarray(z))
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        z = eigvals(z)
    if z.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = util_dtype(z)
    if z.shape[0] == 0:
        return lax.full((), 1, dt)
    a = lax.full((1,), 1, dt)
    for k in range(z.shape[0]):
        zk = lax.slice(z, (k,), (k + 1,))
        a = convolve(a, lax.concatenate([lax.full((1,), 1, dt), lax.neg(zk)], 0), mode="full")
    return a


def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots (or the
    characteristic polynomial of a square matrix)."""
    util.check_arraylike("poly", seq_of_zeros)
    return _poly(seq_of_zeros)


def _align_add(a1, a2):
    """Sum of two coefficient vectors aligned at their last (constant) term."""
    if a2.shape[0] > a1.shape[0]:
        a1, a2 = a2, a1
    return a1.at[-a2.shape[0]:].add(a2)


@jit_named("polyadd")
def _polyadd(a1, a2):
    a1, a2 = util.promote_dtypes(asarray(a1), asarray(a2))
    return _align_add(asarray(a1), asarray(a2))


def polyadd(a1, a2):
    util.check_arraylike("polyadd", a1, a2)
    return _polyadd(a1, a2)


@jit_named("polysub")
def _polysub(a1, a2):
    a1, a2 = util.promote_dtypes(asarray(a1), asarray(a2))
    return _polyadd(a1, lax.neg(asarray(a2)))


def polysub(a1, a2):
    util.check_arraylike("polysub", a1, a2)
    return _polysub(a1, a2)


def polymul(a1, a2, *, trim_leading_zeros=False):
    """Product polynomial (full convolution of the coefficients)."""
    from .convolution import convolve
    util.check_arraylike("polymul", a1, a2)
    a1, a2 = (asarray(x) for x in util.promote_dtypes_inexact(asarray(a1), asarray(a2)))
    if a1.ndim == 0 or a2.ndim == 0:
        raise TypeError("len() of unsized object")
    if trim_leading_zeros and (a1.shape[0] > 1 or a2.shape[0] > 1):
        from .manipulation import trim_zeros
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if a1.shape[0] == 0:
        a1 = lax.full((1,), 0, util_dtype(a2))
    if a2.shape[0] == 0:
        a2 = lax.full((1,), 0, util_dtype(a1))
    return convolve(a1, a2, mode="full")


def polydiv(u, v, *, trim_leading_zeros=False):
    """``(quotient, remainder)`` by long division; the remainder keeps
    ``u``'s length (its leading entries are zero up to rounding)."""
    util.check_arraylike("polydiv", u, v)
    u, v = (asarray(x) for x in util.promote_dtypes_inexact(asarray(u), asarray(v)))
    m, n = u.shape[0] - 1, v.shape[0] - 1
    dt = util_dtype(u)
    scale = lax.div(lax._convert(1.0, dt, False), lax.squeeze(lax.slice(v, (0,), (1,)), (0,)))
    qs = []
    for k in range(m - n + 1):
        d = lax.mul(scale, lax.squeeze(lax.slice(u, (k,), (k + 1,)), (0,)))
        qs.append(d)
        upd = lax.pad(lax.mul(lax.neg(d), v), lax._convert(0, dt, False), [(k, m - n - k, 0)])
        u = lax.add(u, upd)
    q = lax.concatenate([lax.reshape(d, (1,)) for d in qs], 0) if qs else lax.full((1,), 0, dt)
    if trim_leading_zeros:
        from .lax_numpy import zeros
        eps = float(dtypes.finfo(dt).eps)
        keep = np.flatnonzero(np.abs(np.asarray(core.concrete_or_error(None, u, "polydiv")))
                              >= np.sqrt(eps))
        u = u[keep[0]:] if keep.size else zeros((0,), dt)
    return q, u


@jit_named("polyder", static_argnames=("m",))
def _polyder(p, m):
    (p,) = util.promote_dtypes_inexact(asarray(p))
    p = asarray(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    dt = util_dtype(p)
    # coefficient of x^j after m derivatives: j (j-1) ... (j-m+1), for j = m .. n-1
    coeff = (arange(m, p.shape[0], dtype=dt)[None] - arange(m, dtype=dt)[:, None]).prod(0)
    return p[:-m] * coeff[::-1]


def polyder(p, m=1):
    """``m``-th derivative of the polynomial ``p``."""
    util.check_arraylike("polyder", p)
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyder")
    return _polyder(p, m=m)


@jit_named("polyint", static_argnames=("m",))
def polyint(p, m=1, k=None):
    """``m``-fold antiderivative; ``k`` gives the integration constants."""
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    util.check_arraylike("polyint", p, k)
    p, k = (asarray(x) for x in util.promote_dtypes_inexact(asarray(p), k))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = _1d(k)
    if k.shape[0] == 1:
        k = lax.broadcast_in_dim(k[0], (m,), ())
    if k.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    dt = util_dtype(p)
    grid = arange(p.shape[0] + m, dtype=dt)[None] - arange(m, dtype=dt)[:, None]
    coeff = maximum(1, grid).prod(0)[::-1]
    return true_divide(lax.concatenate([p, k], 0), coeff)


@jit_named("polyfit", static_argnames=("deg", "rcond", "full", "cov"))
def _polyfit(x, y, deg, rcond, full, w, cov):
    from .linalg import inv, lstsq
    from .tensor_contractions import outer
    x, y = asarray(x), asarray(y)
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * float(dtypes.finfo(util_dtype(x)).eps)
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = util.promote_dtypes_inexact(asarray(w))
        w = asarray(w)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    scale = sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale[None, :]
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = (c.T / scale[None, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, asarray(rcond)
    if not cov:
        return c
    vbase = inv(lhs.T @ lhs) / outer(scale, scale)
    if cov == "unscaled":
        fac = asarray(1.0)
    else:
        if x.shape[0] <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = resids / (x.shape[0] - order)
    fac = _1d(asarray(fac))
    if y.ndim == 1:
        return c, vbase * fac[None]
    return c, vbase[:, :, None] * fac[None, None, :]


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg`` (coefficients highest
    power first); ``full``/``cov`` add diagnostics as NumPy does."""
    if w is None:
        util.check_arraylike("polyfit", x, y)
    else:
        util.check_arraylike("polyfit", x, y, w)
    deg = core.concrete_or_error(int, deg, "deg must be int")
    if rcond is not None:
        rcond = core.concrete_or_error(float, rcond, "rcond must be float")
    return _polyfit(x, y, deg=deg, rcond=rcond, full=full, w=w, cov=cov)


@jit_named("polyval", static_argnames=("unroll",))
def _polyval(p, x, unroll):
    p, x = util.promote_dtypes(p, x)
    p, x = asarray(p), asarray(x)
    y = lax.full_like(x, 0)
    for i in range(p.shape[0]):
        y = lax.add(*util.promote_shapes("polyval", lax.mul(y, x), p[i]))
    return y


def polyval(p, x, *, unroll=16):
    util.check_arraylike("polyval", p, x)
    return _polyval(p, x, unroll=unroll)


def vander(x, N=None, increasing=False):
    util.check_arraylike("vander", x)
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else operator.index(N)
    if N < 0:
        raise ValueError("N must be nonnegative")
    exps = lax.iota(util_dtype(x) if util_dtype(x).kind in "iu" else np.int32, N)
    if not increasing:
        exps = lax.rev(exps, (0,))
    return power(lax.expand_dims(x, (1,)), lax.expand_dims(exps, (0,)))
