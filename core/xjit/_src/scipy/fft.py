"""``jax.scipy.fft``: the type-II discrete cosine transform and its inverse,
one- and n-dimensional, as JAX 0.10.2 has them.

Both go through one complex FFT of a reordered input (Makhoul's method), so
they trace to the same primitives as JAX's (values, dtypes, jaxprs, grads
and vmaps follow from that). Only type 2 exists in JAX, and only the
``None``/``"backward"``/``"ortho"`` normalisations; anything else raises
JAX's error. Complex inputs transform their real and imaginary parts apart.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src.array import Array
from xjit._src.lax.lax import _convert
from xjit._src.numpy import fft as jnp_fft
from xjit._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    promote_dtypes_inexact,
)

__all__ = ["dct", "dctn", "idct", "idctn"]


def _checked(name, x, type, norm):
    """JAX's argument checks, in its order: arraylike, then type, then norm."""
    check_arraylike(name, x)
    x = jnp.asarray(x)
    if type != 2:
        raise NotImplementedError('Only DCT type 2 is implemented.')
    if norm is not None and norm not in ['backward', 'ortho']:
        raise ValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")
    return x


def _is_complex(x):
    return dtypes.issubdtype(x.dtype, np.complexfloating)


def _axes_tuple(axes, ndim):
    """Axes as non-negative ints; a repeated axis is JAX's ValueError."""
    if not isinstance(axes, Sequence):
        return (canonicalize_axis(axes, ndim),)
    axes = tuple(canonicalize_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis: {axes}")
    return axes


def _others(x, axis):
    return [a for a in range(x.ndim) if a != axis]


def _pad_axis(x, axis, n):
    """Zero-pad (or, with a negative width, truncate) ``axis`` to length ``n``."""
    return lax.pad(x, jnp.array(0, x.dtype),
                   [(0, n - x.shape[axis] if a == axis else 0, 0) for a in range(x.ndim)])


def _twiddle(N, k):
    """exp(-i pi k / 2N), in the complex dtype of ``k`` (N joins the promotion
    as a weak Python int, as in JAX)."""
    dt, weak = dtypes.result_type(N, k, return_weak_type_flag=True)
    dt = dtypes.to_complex_dtype(dt)
    N_arr = _convert(N, dt, weak)
    k = _convert(k, dt, weak)
    return jnp.exp(-.5j * np.pi * k / N_arr)


def _interleave(x, axis):
    """Even samples in order, then odd samples reversed: the DCT-II as a DFT."""
    evens = lax.slice_in_dim(x, None, None, 2, axis)
    odds = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([evens, odds], axis)


def _deinterleave(x, axis):
    """The inverse of :func:`_interleave`."""
    full = slice(None)
    half = math.ceil(x.shape[axis] / 2)
    at = lambda s: tuple(s if i == axis else full for i in range(x.ndim))
    front = x[at(slice(None, half, 1))]
    back = lax.rev(x[at(slice(half, None, 1))], (axis,))
    out = jnp.zeros(x.shape, dtype=x.dtype)
    out = out.at[at(slice(None, None, 2))].set(front)
    return out.at[at(slice(1, None, 2))].set(back)


def _ortho(out, axis):
    """Scale by sqrt(1/4N) at index 0 and sqrt(1/2N) elsewhere along ``axis``."""
    n = out.shape[axis]
    factor = lax.concatenate([lax.full((1,), 4, out.dtype), lax.full((n - 1,), 2, out.dtype)], 0)
    factor = lax.expand_dims(factor, _others(out, axis))
    return out / lax.sqrt(factor * n)


def dct(x: Array, type: int = 2, n: int | None = None,
        axis: int = -1, norm: str | None = None) -> Array:
    """Type-II DCT along ``axis`` (``scipy.fft.dct``), zero-padding or
    truncating to ``n`` first."""
    x = _checked("dct", x, type, norm)
    if _is_complex(x):
        return lax.complex(dct(x.real, type=type, n=n, norm=norm, axis=axis),
                           dct(x.imag, type=type, n=n, norm=norm, axis=axis))
    axis = canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _pad_axis(x, axis, n)
    N = x.shape[axis]
    V = jnp_fft.fft(_interleave(x, axis), axis=axis)
    k = lax.expand_dims(jnp.arange(N, dtype=V.real.dtype), _others(x, axis))
    out = 2 * (V * _twiddle(N, k)).real
    return _ortho(out, axis) if norm == 'ortho' else out


def _dct2(x, axes, norm):
    """The 2-d DCT-II from one 2-d FFT (cheaper than two 1-d passes)."""
    axis1, axis2 = (canonicalize_axis(a, x.ndim) for a in axes)
    N1, N2 = x.shape[axis1], x.shape[axis2]
    V = jnp_fft.fftn(_interleave(_interleave(x, axis1), axis2), axes=axes)
    k1 = lax.expand_dims(jnp.arange(N1, dtype=V.dtype), _others(x, axis1))
    k2 = lax.expand_dims(jnp.arange(N2, dtype=V.dtype), _others(x, axis2))
    # V[k1, -k2] (indices mod N2), built after the twiddles as JAX's jaxpr has it
    out = _twiddle(N1, k1) * (_twiddle(N2, k2) * V + _twiddle(N2, -k2)
                              * jnp.roll(jnp.flip(V, axis=axis2), shift=1, axis=axis2))
    out = 2 * out.real
    if norm == 'ortho':
        return _ortho(_ortho(out, axis1), axis2)
    return out


def _shape_and_axes(x, s, axes):
    """``s`` as a list (an int is one length) and the axes it applies to."""
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = _axes_tuple(axes, x.ndim)
    return s, axes


def _pad_axes(x, s, axes):
    if s is None:
        return x
    ns = dict(zip(axes, s))
    return lax.pad(x, jnp.array(0, x.dtype),
                   [(0, ns[a] - x.shape[a] if a in ns else 0, 0) for a in range(x.ndim)])


def dctn(x: Array, type: int = 2, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """Type-II DCT over ``axes`` (``scipy.fft.dctn``), two axes per FFT."""
    x = _checked("dctn", x, type, norm)
    if _is_complex(x):
        return lax.complex(dctn(x.real, type=type, s=s, norm=norm, axes=axes),
                           dctn(x.imag, type=type, s=s, norm=norm, axes=axes))
    s, axes = _shape_and_axes(x, s, axes)
    if len(axes) == 1:
        return dct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    x = _pad_axes(x, s, axes)
    if len(axes) == 2:
        return _dct2(x, axes=axes, norm=norm)
    for i in range(0, len(axes), 2):
        x = dctn(x, axes=axes[i:i + 2], norm=norm)
    return x


def idct(x: Array, type: int = 2, n: int | None = None,
         axis: int = -1, norm: str | None = None) -> Array:
    """Inverse of the type-II DCT along ``axis`` (``scipy.fft.idct``)."""
    x = _checked("idct", x, type, norm)
    if _is_complex(x):
        return lax.complex(idct(x.real, type=type, n=n, norm=norm, axis=axis),
                           idct(x.imag, type=type, n=n, norm=norm, axis=axis))
    axis = canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _pad_axis(x, axis, n)
    N = x.shape[axis]
    x, = promote_dtypes_inexact(x)
    if norm is None or norm == 'backward':
        x = _ortho(x, axis)
    x = _ortho(x, axis)
    k = lax.expand_dims(jnp.arange(N, dtype=x.dtype), _others(x, axis))
    w = _twiddle(N, k)
    x = x.astype(w.dtype) / _twiddle(N, k) * 2 * N
    return _deinterleave(jnp_fft.ifft(x, axis=axis).real, axis)


def idctn(x: Array, type: int = 2, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """Inverse of :func:`dctn`: one inverse DCT per axis."""
    x = _checked("idctn", x, type, norm)
    if _is_complex(x):
        return lax.complex(idctn(x.real, type=type, s=s, norm=norm, axes=axes),
                           idctn(x.imag, type=type, s=s, norm=norm, axes=axes))
    s, axes = _shape_and_axes(x, s, axes)
    if len(axes) == 1:
        return idct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    x = _pad_axes(x, s, axes)
    for axis in axes:
        x = idct(x, axis=axis, norm=norm)
    return x
