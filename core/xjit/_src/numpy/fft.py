"""``jnp.fft``: NumPy's FFT API over the ``fft`` primitive.

Each transform resizes the chosen axes (slice, then zero-pad, as JAX does),
moves them to the end when they are not there, applies XLA's FFT and scales
for the requested normalisation. XLA transforms at most three axes at once,
so n-d transforms over more axes are done in chunks."""
from __future__ import annotations

import operator

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from ..lax.fft import FftType, fft_p
from . import util
from .lax_numpy import asarray, util_dtype
from .padding import _pad
from .reordering import _roll_static
from .shape_ops import moveaxis
from xjit._src.pjit import jit_named

_NORMS = (None, "backward", "ortho", "forward")


def _scale(x, norm, n, inverse):
    if norm in (None, "backward"):
        return x
    factor = np.sqrt(n) if norm == "ortho" else n
    return lax.mul(x, lax._convert(factor if inverse else 1 / factor, util_dtype(x), False))


@jit_named("fft", static_argnames=("fft_type", "lengths", "axes", "norm"))
def _fft_core(a, fft_type, lengths, axes, norm):
    """One XLA FFT over ``axes`` (at most three)."""
    nd = len(axes)
    trailing = tuple(range(a.ndim - nd, a.ndim))
    if tuple(axes) != trailing:
        a = moveaxis(a, axes, trailing)
    dt = util_dtype(a)
    if fft_type == FftType.RFFT:
        if dt.kind == "c":
            raise TypeError("only real valued inputs supported for rfft")
        a = lax._convert(a, dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dt)), False)
    elif dt.kind != "c":
        a = lax._convert(a, dtypes.canonicalize_dtype(dtypes.to_complex_dtype(dt)), False)
    out = fft_p.bind(a, fft_type=fft_type, fft_lengths=tuple(lengths))
    out = _scale(out, norm, int(np.prod(lengths)), fft_type in (FftType.IFFT, FftType.IRFFT))
    return moveaxis(out, trailing, axes) if tuple(axes) != trailing else out


def _resize(a, axes, lengths):
    """Slice axes longer than wanted, then zero-pad (as JAX does, even when
    nothing is left to pad)."""
    for ax, n in zip(axes, lengths):
        if a.shape[ax] > n:
            a = lax.slice(a, [0] * a.ndim, tuple(n if i == ax else d for i, d in enumerate(a.shape)))
    widths = [(np.int64(0), np.int64(0))] * a.ndim
    for ax, n in zip(axes, lengths):
        widths[ax] = (np.int64(0), np.int64(n - a.shape[ax]))
    return _pad(a, pad_width=tuple(widths), mode="constant", constant_values=0)


def _fftn(name, a, s, axes, norm, fft_type):
    util.check_arraylike(name, a)
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    a = asarray(a)
    if axes is None:
        axes = tuple(range(a.ndim)) if s is None else tuple(range(a.ndim - len(s), a.ndim))
    axes = tuple(util.canonicalize_axis(ax, a.ndim) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name} does not support repeated axes. Got axes {axes}.")
    if s is not None:
        s = tuple(map(operator.index, s))
        if len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
        if any(n < 1 for n in s):
            raise ValueError("Shape should be positive.")
    if fft_type == FftType.IRFFT:
        in_sizes = list(s) if s is not None else [a.shape[ax] for ax in axes]
        if s is None:
            in_sizes[-1] = 2 * (a.shape[axes[-1]] - 1)
        lengths = tuple(in_sizes)
        if s is not None:
            a = _resize(a, axes, lengths[:-1] + (lengths[-1] // 2 + 1,))
    else:
        lengths = s if s is not None else tuple(a.shape[ax] for ax in axes)
        if s is not None:
            a = _resize(a, axes, lengths)
    if not axes:
        return a
    if fft_type == FftType.IRFFT and lengths[-1] < 1:
        raise ValueError(f"Invalid number of data points ({lengths[-1]}) specified")
    real = fft_type in (FftType.RFFT, FftType.IRFFT)
    complex_kind = FftType.IFFT if fft_type in (FftType.IFFT, FftType.IRFFT) else FftType.FFT
    # the real transform takes the last (up to) three axes; others are complex
    last, rest = axes[-3:], axes[:-3]
    last_len, rest_len = lengths[-3:], lengths[:-3]
    chunks = [(rest[i:i + 3], rest_len[i:i + 3]) for i in range(0, len(rest), 3)]
    if fft_type == FftType.IRFFT:
        for ax, ln in chunks:
            a = _fft_core(a, fft_type=complex_kind, lengths=ln, axes=ax, norm=norm)
        return _fft_core(a, fft_type=fft_type, lengths=last_len, axes=last, norm=norm)
    a = _fft_core(a, fft_type=fft_type if real else complex_kind, lengths=last_len, axes=last,
                  norm=norm)
    for ax, ln in chunks:
        a = _fft_core(a, fft_type=complex_kind, lengths=ln, axes=ax, norm=norm)
    return a


def _one_axis(name, fft_type):
    def fn(a, n=None, axis=-1, norm=None):
        return _fftn(name, a, None if n is None else (n,), (axis,), norm, fft_type)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _n_axes(name, fft_type, default_axes=None):
    def fn(a, s=None, axes=default_axes, norm=None):
        if default_axes is not None and axes is not None and len(axes) != 2:
            raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes={axes}.")
        return _fftn(name, a, s, axes, norm, fft_type)
    fn.__name__ = fn.__qualname__ = name
    return fn


fft = _one_axis("fft", FftType.FFT)
ifft = _one_axis("ifft", FftType.IFFT)
rfft = _one_axis("rfft", FftType.RFFT)
irfft = _one_axis("irfft", FftType.IRFFT)
fft2 = _n_axes("fft2", FftType.FFT, (-2, -1))
ifft2 = _n_axes("ifft2", FftType.IFFT, (-2, -1))
rfft2 = _n_axes("rfft2", FftType.RFFT, (-2, -1))
irfft2 = _n_axes("irfft2", FftType.IRFFT, (-2, -1))
fftn = _n_axes("fftn", FftType.FFT)
ifftn = _n_axes("ifftn", FftType.IFFT)
rfftn = _n_axes("rfftn", FftType.RFFT)
irfftn = _n_axes("irfftn", FftType.IRFFT)


_SWAP_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a, n=None, axis=-1, norm=None):
    """FFT of a Hermitian-symmetric signal: an inverse real FFT of the
    conjugate with the opposite normalisation."""
    a = asarray(a)
    conj = lax.conj(a) if util_dtype(a).kind == "c" else a
    return irfft(conj, n, axis, _SWAP_NORM[norm])


def ihfft(a, n=None, axis=-1, norm=None):
    return lax.conj(rfft(a, n, axis, _SWAP_NORM[norm]))


@util.takes_device
def fftfreq(n, d=1.0, *, dtype=None, device=None):
    dtypes.check_user_dtype_supported(dtype, "fftfreq")
    dt = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    n = operator.index(n)
    from .lax_numpy import remainder
    k = remainder(lax.add(lax.iota(dt, n), float(n // 2)), n)
    return lax.div(lax.sub(k, float(n // 2)), float(n * d))


@util.takes_device
def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    dtypes.check_user_dtype_supported(dtype, "rfftfreq")
    dt = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    n = operator.index(n)
    return lax.div(lax.iota(dt, n // 2 + 1), float(n * d))


def _shift(x, axes, sign):
    x = asarray(x)
    axes = tuple(range(x.ndim)) if axes is None else tuple(
        util.canonicalize_axis(a, x.ndim) for a in np.atleast_1d(axes))
    shifts = tuple(sign * (x.shape[ax] // 2) for ax in axes)
    return _roll_static(x, shift=shifts, axis=axes)


def fftshift(x, axes=None):
    util.check_arraylike("fftshift", x)
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    util.check_arraylike("ifftshift", x)
    return _shift(x, axes, -1)
