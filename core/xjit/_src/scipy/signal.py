"""``jax.scipy.signal``'s convolutions and ``detrend``, as JAX 0.10.2 has them.

The direct methods are one ``conv_general_dilated`` with the smaller operand
flipped, padded per mode the way JAX pads (its ``same`` centring differs
from ``jnp.convolve``'s, so that helper is not reused). ``fftconvolve`` is
a real or complex n-d FFT product cut to the mode's window. Inputs are
promoted to an inexact dtype first, as JAX does, so integers give floats.
The spectral estimators (stft, istft, csd, welch) live in
``signal_spectral``.
"""
from __future__ import annotations

import itertools
import operator

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src.interpreters.batching import vmap
from xjit._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    promote_dtypes_inexact,
)
from xjit._src.pjit import jit_named

_MODES = ("full", "same", "valid")


def _as_axes(axes, ndim):
    if isinstance(axes, (tuple, list)):
        axes = tuple(operator.index(a) for a in axes)
    else:
        axes = (operator.index(axes),)
    return tuple(canonicalize_axis(a, ndim) for a in axes)


@jit_named("_fftconvolve_unbatched", static_argnames=("mode",))
def _fft_product(a, b, mode):
    """One (unbatched) FFT convolution of equal-rank arrays."""
    full = tuple(m + n - 1 for m, n in zip(a.shape, b.shape))
    if mode == "valid":
        a_big = all(m >= n for m, n in zip(a.shape, b.shape))
        b_big = all(m <= n for m, n in zip(a.shape, b.shape))
        if not (a_big or b_big):
            raise ValueError("For 'valid' mode, One input must be at least as "
                             "large as the other in every dimension.")
        if b_big:
            a, b = b, a
    if all(m == 1 or n == 1 for m, n in zip(a.shape, b.shape)):
        prod = a * b  # an outer product: nothing to transform
    elif jnp.iscomplexobj(a):
        prod = jnp.fft.ifftn(jnp.fft.fftn(a, full) * jnp.fft.fftn(b, full), full)
    else:
        prod = jnp.fft.irfftn(jnp.fft.rfftn(a, full) * jnp.fft.rfftn(b, full), full)
    if mode == "full":
        out = full
    elif mode == "same":
        out = a.shape
    else:
        out = tuple(m - n + 1 for m, n in zip(a.shape, b.shape))
    start = tuple((f - o) // 2 for f, o in zip(full, out))
    return lax.dynamic_slice(prod, start, out)


def fftconvolve(in1, in2, mode="full", axes=None):
    """N-d convolution through FFTs; ``axes`` convolves only those axes and
    maps the others, which must then have equal lengths."""
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = (jnp.asarray(v) for v in promote_dtypes_inexact(in1, in2))
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    fn = lambda a, b: _fft_product(a, b, mode=mode)
    if axes is None:
        return fn(in1, in2)
    axes = _as_axes(axes, in1.ndim)
    mapped = sorted(set(range(in1.ndim)) - set(axes))
    if any(in1.shape[d] != in2.shape[d] for d in mapped):
        raise ValueError(f"mapped axes must have same shape; got {in1.shape=} {in2.shape=} "
                         f"{axes=}")
    for d in mapped:  # innermost vmap takes the lowest axis, as the shapes shrink
        fn = vmap(fn, in_axes=d, out_axes=d)
    return fn(in1, in2)


def _direct(in1, in2, mode, precision):
    """Direct n-d convolution: one convolution, the larger input as the image."""
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError("zero-size arrays not supported in convolutions, got shapes "
                         f"{in1.shape} and {in2.shape}.")
    in1, in2 = (jnp.asarray(v) for v in promote_dtypes_inexact(in1, in2))
    first_big = all(m >= n for m, n in zip(in1.shape, in2.shape))
    second_big = all(m <= n for m, n in zip(in1.shape, in2.shape))
    if not (first_big or second_big):
        raise ValueError("One input must be smaller than the other in every dimension.")
    return _conv_nd(in1, in2, mode=mode, precision=precision, swap=second_big)


@jit_named("_convolve_nd", static_argnames=("mode", "precision", "swap"))
def _conv_nd(in1, in2, mode, precision, swap):
    kept = in2.shape  # 'same' centres on in1's size before any swap
    if swap:
        in1, in2 = in2, in1
    k = in2.shape
    if mode == "full":
        pads = [(n - 1, n - 1) for n in k]
    elif mode == "same":
        pads = [(n - 1 - (m - 1) // 2, n - m + (m - 1) // 2) for n, m in zip(k, kept)]
    else:
        pads = [(0, 0)] * len(k)
    out = lax.conv_general_dilated(in1[None, None], jnp.flip(in2)[None, None],
                                   (1,) * len(k), pads, precision=precision)
    return out[0, 0]


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """N-d convolution; ``auto`` means the direct method, as in JAX."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method not in ("direct", "auto"):
        raise ValueError(f"Got {method=}; expected 'auto', 'fft', or 'direct'.")
    return _direct(in1, in2, mode, precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """Cross-correlation: convolution with the conjugated, reversed ``in2``."""
    return convolve(in1, jnp.flip(in2.conj()), mode, precision=precision, method=method)


def _fill_only(name, boundary, fillvalue, in1, in2):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-d direct convolution with zero fill (the only boundary JAX has)."""
    _fill_only("convolve2d", boundary, fillvalue, in1, in2)
    return _direct(in1, in2, mode, precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-d cross-correlation. Which operand is reversed (and which result is
    flipped back or conjugated) depends on mode and on which input is the
    larger, exactly as in JAX, so complex and unequal-size results agree."""
    _fill_only("correlate2d", boundary, fillvalue, in1, in2)
    smaller = all(m <= n for m, n in zip(in1.shape, in2.shape))
    equal = tuple(in1.shape) == tuple(in2.shape)
    reverse_second = smaller and (mode == "valid" and not equal or
                                  mode not in ("same", "valid"))
    if not reverse_second:
        return jnp.flip(_direct(jnp.flip(in1), in2.conj(), mode, precision))
    out = _direct(jnp.flip(in2), in1.conj(), mode, precision)
    return out if mode == "valid" else out.conj()


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):
    """Subtract the mean, or a least-squares line fitted on each piece
    between breakpoints ``bp`` (JAX solves each piece with ``lstsq``)."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    data = jnp.asarray(data)
    if type == "constant":
        return _detrend(data, axis=axis, edges=None)
    n = data.shape[axis]
    edges = np.sort(np.unique(np.r_[0, bp, n]))
    if edges[0] < 0 or edges[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data "
                         "along given axis.")
    return _detrend(data, axis=axis, edges=tuple(int(e) for e in edges))


@jit_named("detrend", static_argnames=("axis", "edges"))
def _detrend(data, axis, edges):
    """The mean removed (``edges`` None), or a line per piece between edges."""
    data = jnp.asarray(promote_dtypes_inexact(data)[0])
    if edges is None:
        return data - data.mean(axis, keepdims=True)
    n = data.shape[axis]
    moved = jnp.moveaxis(data, axis, 0)
    flat = moved.reshape(n, -1)
    dt = flat.dtype
    for lo, hi in itertools.pairwise(edges):
        m = hi - lo
        ramp = jnp.arange(1, m + 1, dtype=dt) / np.asarray(m, dt)
        design = jnp.vstack([jnp.ones(m, dtype=dt), ramp]).T
        coef = jnp.linalg.lstsq(design, flat[lo:hi])[0]
        fit = jnp.matmul(design, coef, precision=lax.Precision.HIGHEST)
        flat = flat.at[lo:hi].add(-fit)
    return jnp.moveaxis(flat.reshape(moved.shape), 0, axis)
