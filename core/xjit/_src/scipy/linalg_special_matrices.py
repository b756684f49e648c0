"""``jax.scipy.linalg``'s structured-matrix constructors: the matrices SciPy
builds from a vector (hankel, circulant, leslie, companion, fiedler,
fiedler_companion, convolution_matrix) and those built from an order alone
(hilbert, invhilbert, pascal, invpascal, helmert, hadamard, dft).

The vector constructors take batches (``(..., n)``) through ``vectorize``;
the order constructors are jitted with the order static, under JAX's names."""
from __future__ import annotations

import math
import operator

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src.numpy.util import check_arraylike, promote_args_inexact, promote_dtypes
from xjit._src.numpy.vectorize import vectorize
from xjit._src.pjit import jit_named
from xjit._src.scipy.linalg import toeplitz
from xjit._src.scipy.special import comb


# -- from a vector -------------------------------------------------------------


def _hankel_1d(c, r):
    """H[i, j] = v[i + j], v = c ++ r[1:]: row i is the i-th length-n window of
    v, read off as the patches of a 1-D convolution. Built as JAX builds it,
    so an inf or nan in v makes nan of the rest of each row it is in."""
    m, n = c.shape[0], r.shape[0]
    if m == 0 or n == 0:
        return jnp.empty((m, n), dtype=jnp.result_type(c, r))
    v = jnp.concatenate((c, r[1:]))
    return lax.conv_general_dilated_patches(
        v.reshape((1, m + n - 1, 1)), (n,), (1,), "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"), precision=lax.Precision.HIGHEST)[0]


_hankel = vectorize(_hankel_1d, signature="(m),(n)->(m,n)")


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (``r[0]``
    is ignored; zeros when ``r`` is None)."""
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = jnp.asarray(c), jnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    # equal ranks, so the batch broadcast needs no rank promotion
    c = lax.expand_dims(c, range(max(0, r.ndim - c.ndim)))
    r = lax.expand_dims(r, range(max(0, c.ndim - r.ndim)))
    return _hankel(c, r)


def _circulant_1d(c):
    n = c.shape[0]
    k = np.arange(n)
    return c[(k[:, None] - k[None, :]) % n]


_circulant = vectorize(_circulant_1d, signature="(n)->(n,n)")


def circulant(c):
    """The circulant matrix whose columns are the cyclic shifts of ``c``."""
    check_arraylike("circulant", c)
    return _circulant(jnp.atleast_1d(jnp.asarray(c)))


def _leslie_1d(f, s):
    f, s = promote_dtypes(f, s)
    n = f.shape[0]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    # s[j] at (j + 1, j); built from where and concatenate, which keep a weak
    # type (a Python-scalar s) as JAX's result does
    below = jnp.where(i == j + 1, jnp.concatenate([s, jnp.zeros_like(s[:1])]), 0)
    return jnp.where(i == 0, f, below)


_leslie = vectorize(_leslie_1d, signature="(n),(m)->(n,n)")


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` in the first row, survival
    fractions ``s`` on the subdiagonal."""
    check_arraylike("leslie", f, s)
    f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if f.shape[-1] < 2:
        raise ValueError("The length of f along the last axis must be at least 2; "
                         f"got shape {f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along the last axis "
                         "must be one less than the length of f; got f shape "
                         f"{f.shape} and s shape {s.shape}.")
    return _leslie(f, s)


def _companion_1d(a):
    top = -a[1:] / a[0]
    m = top.shape[0]
    return jnp.concatenate([top[None, :], jnp.eye(m - 1, m, dtype=top.dtype)])


_companion = vectorize(_companion_1d, signature="(n)->(m,m)")


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest
    power first); a zero ``a[0]`` gives inf/nan rather than an error."""
    a, = promote_args_inexact("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError("The length of `a` along the last axis must be at least 2; "
                         f"got shape {a.shape}.")
    return _companion(a)


def fiedler(a):
    """The symmetric matrix of distances ``|a[i] - a[j]|``."""
    check_arraylike("fiedler", a)
    a = jnp.atleast_1d(a)
    return jnp.abs(a[..., :, None] - a[..., None, :])


def _fiedler_companion_layout(n):
    """Where the pentadiagonal Fiedler companion matrix of order n >= 2 holds
    ones, and where it holds -a[k] (rows, columns, k), as static indices."""
    even = np.arange(0, n, 2)
    odd = np.arange(3, n, 2)
    ones = [(1, 0)] + [(i, i + 2) for i in even if i + 2 < n] + [(i, i - 2) for i in odd]
    coefs = ([(0, 0, 1)] + [(i, i + 1, i + 2) for i in even if i + 1 < n]
             + [(i, i - 1, i + 1) for i in even if i >= 2])
    return tuple(np.array(x) for x in zip(*ones)), tuple(np.array(x) for x in zip(*coefs))


def _fiedler_companion_1d(a):
    n = a.shape[0] - 1
    if n == 0:
        return jnp.empty_like(a, shape=(0, 0))
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    (ri, ci), (rc, cc, k) = _fiedler_companion_layout(n)
    out = jnp.zeros((n, n), dtype=a.dtype).at[ri, ci].set(1)
    return out.at[rc, cc].set(-a[k])


_fiedler_companion = vectorize(_fiedler_companion_1d, signature="(n)->(m,m)")


def fiedler_companion(a):
    """The pentadiagonal (Fiedler) companion matrix of the polynomial with
    coefficients ``a``: same eigenvalues as ``companion(a)``, sparser."""
    a, = promote_args_inexact("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {a.shape}.")
    return _fiedler_companion(a)


@jit_named("convolution_matrix", static_argnames=("n", "mode"))
def convolution_matrix(a, n, mode="full"):
    """The Toeplitz matrix ``A`` with ``A @ v == jnp.convolve(a, v, mode)`` for
    ``v`` of length ``n``: the full matrix's rows, trimmed as ``mode`` says."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    short = min(m, n) - 1
    top, bottom = {"full": (0, 0), "valid": (short, short),
                   "same": (short // 2, short - short // 2)}[mode]
    # the full matrix has a[i - j] at (i, j), m + n - 1 rows; keep rows top..end-bottom
    rows = m + n - 1
    pad = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    first_col = lax.slice_in_dim(jnp.pad(a, pad), top, rows - bottom, axis=-1)
    # row `top` holds a[top - j]: a reversed, read from its end
    first_row = lax.slice_in_dim(jnp.pad(jnp.flip(a, axis=-1), pad), m - 1 - top,
                                 m - 1 - top + n, axis=-1)
    return toeplitz(first_col, first_row)


# -- from an order -------------------------------------------------------------


@jit_named("hilbert", static_argnames=("n",))
def hilbert(n):
    """H[i, j] = 1 / (i + j + 1), in the default float dtype."""
    i = lax.broadcasted_iota(float, (n, 1), 0)
    return 1 / (i + i.T + 1)


def _alternating(k):
    """(-1) ** k for whole-number floats k (negative ones included)."""
    return 1.0 - 2.0 * (k % 2)


@jit_named("invhilbert", static_argnames=("n",))
def invhilbert(n):
    """The inverse of ``hilbert(n)`` from its closed form in binomial
    coefficients, in floating point (no ``exact=True``): large n overflows."""
    k = jnp.arange(n, dtype=dtypes.default_float_dtype())
    i, j = k[:, None], k[None, :]
    return (_alternating(i + j) * (i + j + 1.0) * comb(n + i, n - j - 1)
            * comb(n + j, n - i - 1) * comb(i + j, i) ** 2)


@jit_named("_binom")
def _binom(n, k):
    """n choose k through log-gamma: 0 where k > n (lgamma's pole)."""
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


_KINDS = ["symmetric", "lower", "upper"]


@jit_named("pascal", static_argnames=("n", "kind"))
def pascal(n, kind=None):
    """The Pascal matrix (binomial coefficients), approximated through
    log-gamma in float32 whatever the x64 setting, as JAX."""
    kind = "symmetric" if kind is None else kind
    if kind not in _KINDS:
        raise ValueError(f"Expected kind to be on of: {_KINDS}; got {kind}")
    k = jnp.arange(n, dtype=np.float32)
    lower = _binom(k[:, None], k[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return jnp.dot(lower, lower.T)


@jit_named("invpascal", static_argnames=("n", "kind"))
def invpascal(n, kind=None):
    """The inverse Pascal matrix: (-1)^(i-j) C(i, j) below the diagonal for
    ``lower``, its transpose for ``upper``, and upper @ lower when symmetric."""
    kind = "symmetric" if kind is None else kind
    if kind not in _KINDS:
        raise ValueError(f"Expected kind to be one of: {_KINDS}; got {kind}")
    k = jnp.arange(n, dtype=dtypes.default_float_dtype())
    i, j = k[:, None], k[None, :]
    lower = _alternating(i - j) * _binom(i, j)
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return jnp.dot(lower.T, lower)


@jit_named("helmert", static_argnames=("n", "full"))
def helmert(n, full=False):
    """Orthonormal contrasts: row k-1 is (1, ..., 1, -k, 0, ...)/sqrt(k(k+1))
    with k ones; ``full`` puts the constant row 1/sqrt(n) on top."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    row = jnp.arange(n - 1)[:, None]
    col = jnp.arange(n)[None, :]
    k = (row + 1).astype(dtypes.default_float_dtype())
    norm = jnp.sqrt(k * (k + 1))
    h = jnp.where(col <= row, 1.0 / norm,
                  jnp.where(col == row + 1, -k / norm, jnp.zeros_like(norm)))
    if full:
        h = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=h.dtype), h])
    return h


@jit_named("hadamard", static_argnames=("n", "dtype"))
def hadamard(n, dtype=int):
    """Sylvester's Hadamard matrix of order n (a power of 2):
    H_2m = [[H_m, H_m], [H_m, -H_m]] from H_1 = [[1]]."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = jnp.concatenate([jnp.concatenate([h, h], axis=1),
                             jnp.concatenate([h, -h], axis=1)])
    return h


@jit_named("dft", static_argnames=("n", "scale", "dtype"))
def dft(n, scale=None, *, dtype=None):
    """W[i, j] = exp(-2 pi i j / n), unscaled or divided by sqrt(n) or n."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = dtypes.default_complex_dtype()
    else:
        dtype = dtypes.check_user_dtype_supported(dtype, "dft")
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    k = jnp.arange(n, dtype=dtype)
    w = jnp.exp(-2j * np.pi * k[:, None] * k[None, :] / n)
    if scale == "sqrtn":
        return w / jnp.sqrt(n)
    return w / n if scale == "n" else w
