"""``jax.scipy.signal``'s windowed-FFT estimators: ``stft``, ``istft``,
``csd`` and ``welch``, with JAX 0.10.2's defaults and quirks.

Where JAX departs from SciPy this follows JAX: ``nperseg=None`` means the
whole signal (not 256), a callable ``detrend`` sees segments with ``axis``
moved last, ``istft`` passes the caller's ``nfft`` (not the inferred one) to
the inverse FFT and measures ``t`` along the result's first axis. Only the
``'hann'`` window is built here; other named windows come from SciPy when
it is installed, as in JAX.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src.core import concrete_or_error
from xjit._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    promote_dtypes_inexact,
)
from xjit._src.pjit import jit_named
from xjit._src.scipy.signal import detrend

_BOUNDARIES = ("even", "odd", "constant", "zeros", None)


def _periodic_hann(n):
    return jnp.array([1.0]) if n == 1 else \
        jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2


def _scipy_window(window, n):
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use {window=}") from err
    return get_window(window, n)


def _segment_length(window, nperseg, length, dtype):
    """The segment length the window implies, with JAX's checks; an array
    window comes back converted to ``dtype`` (a named one is built later)."""
    if isinstance(window, (str, tuple)):
        n = length if nperseg is None else int(nperseg)
        if n > length:
            warnings.warn(f"nperseg={n} is greater than input_length={length}, "
                          f"using nperseg={length}")
            n = length
        return None, n
    win = jnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if length < win.size:
        raise ValueError("window is longer than input signal")
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _named_window(window, n, dtype):
    win = _periodic_hann(n) if window == "hann" else _scipy_window(window, n)
    return jnp.array(win, dtype=dtype)


def _odd_extension(x, n):
    """Extend the last axis by ``n`` points each end, point-reflected about
    the end values (SciPy's ``odd_ext``)."""
    if n < 1:
        return x
    size = x.shape[-1]
    if n > size - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                         f"x.shape[axis]-1, which is {size - 1}.")
    head, tail = x[..., :1], x[..., -1:]
    before = 2 * head - jnp.flip(x[..., 1:n + 1], axis=-1)
    after = 2 * tail - jnp.flip(x[..., size - n - 1:size - 1], axis=-1)
    return jnp.concatenate((before, x, after), axis=-1)


def _extend(x, n, boundary):
    if boundary == "odd":
        return _odd_extension(x, n)
    widths = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    if boundary == "even":
        return jnp.pad(x, widths, "reflect")
    if boundary == "constant":
        return jnp.pad(x, widths, "edge")
    return jnp.pad(x, widths, "constant", constant_values=0.0)


def _zero_pad_end(x, n):
    return jnp.concatenate((x, jnp.zeros((*x.shape[:-1], n), x.dtype)), axis=-1)


def _segment_spectra(x, win, detrend_fn, nperseg, noverlap, nfft, twosided):
    """FFT of each detrended, windowed segment: (..., segments, frequencies)."""
    if nperseg == 1 and noverlap == 0:
        segs = x[..., None]
    else:
        starts = np.arange(0, x.shape[-1] - nperseg + 1, nperseg - noverlap)
        segs = x[..., starts[:, None] + np.arange(nperseg)]
    segs = detrend_fn(segs)
    if jnp.iscomplexobj(win):
        segs = segs.astype(dtypes.to_complex_dtype(segs.dtype))
    segs = win * segs
    return jnp.fft.fft(segs, n=nfft) if twosided else jnp.fft.rfft(segs.real, n=nfft)


def _detrend_fn(detrend_type, axis):
    if isinstance(detrend_type, str):
        return lambda d: detrend(d, axis=-1, type=detrend_type)
    if callable(detrend_type):
        # JAX moves the signal's axis (always a non-negative index here) last
        # around the user's function, whatever the segment array's layout
        return lambda d: jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _static_int(v, what):
    return concrete_or_error(int, v, what)


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
              scaling, axis, mode, boundary=None, padded=False):
    """Frequencies, segment times and per-segment spectra of ``x`` (or the
    cross spectra of ``x`` and ``y``), the spectra's frequency axis at ``axis``."""
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_BOUNDARIES)}")
    axis = canonicalize_axis(concrete_or_error(operator.index, axis, "axis of windowed-FFT"),
                             x.ndim)
    cross = y is not None
    if not cross:
        check_arraylike("spectral_helper", x)
        x = jnp.asarray(promote_dtypes_inexact(x)[0])
        outer = x.shape[:axis] + x.shape[axis + 1:]
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        check_arraylike("spectral_helper", x, y)
        x, y = (jnp.asarray(v) for v in promote_dtypes_inexact(x, y))
        if x.ndim != y.ndim:
            raise ValueError("two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
        try:
            outer = jnp.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1:],
                                         y.shape[:axis] + y.shape[axis + 1:])
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    result_dtype = dtypes.to_complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype

    if nperseg is not None:
        nperseg = _static_int(nperseg, "nperseg of windowed-FFT")
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _segment_length(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else \
        _static_int(noverlap, "noverlap of windowed-FFT")
    nfft = nperseg if nfft is None else _static_int(nfft, "nfft of windowed-FFT")

    if x.size == 0 or (cross and y.size == 0):
        shape = x.shape if not cross else _empty_cross_shape(outer, x.shape[axis],
                                                             y.shape[axis], axis)
        return (jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype),
                jnp.zeros(shape, result_dtype))
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    _detrend_fn(detrend_type, axis)  # JAX's error for an unusable detrend, raised here
    if scaling not in ("density", "spectrum"):
        raise ValueError(f"Unknown scaling: {scaling}")
    twosided = not return_onesided
    if return_onesided and (jnp.iscomplexobj(x) or (cross and jnp.iscomplexobj(y))):
        twosided = True
        warnings.warn("Input data is complex, switching to return_onesided=False")
    config = {"window": None if win is not None else window, "nperseg": nperseg,
              "noverlap": noverlap, "nfft": nfft, "detrend_type": detrend_type,
              "twosided": twosided, "scaling": scaling, "mode": mode, "boundary": boundary,
              "padded": padded, "axis": axis}
    if _hashable_scalar(fs):
        return _spectral_core_static_fs(x, y, win, fs=fs, **config)
    return _spectral_core(x, y, win, fs, **config)


def _empty_cross_shape(outer, nx, ny, axis):
    """JAX's shape for an empty cross spectrum: its insert helper gets the
    position and the value swapped, so ``axis`` lands at index ``min(nx, ny)``
    (and an index past the end fails JAX's assertion)."""
    at = min(nx, ny)
    if not 0 <= at <= len(outer):
        raise AssertionError((at, len(outer)))
    return outer[:at] + (axis,) + outer[at:]


def _hashable_scalar(v):
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool)


def _spectral_body(x, y, win, fs, window, nperseg, noverlap, nfft, detrend_type, twosided,
                   scaling, mode, boundary, padded, axis):
    """The estimate itself, all options checked and static."""
    cross = y is not None
    result_dtype = dtypes.to_complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype
    if win is None:
        win = _named_window(window, nperseg, x.dtype)
    detrend_fn = _detrend_fn(detrend_type, axis)
    x = jnp.moveaxis(x, axis, -1)
    if cross:
        if y.ndim > 1:
            y = jnp.moveaxis(y, axis, -1)
        gap = x.shape[-1] - y.shape[-1]
        if gap < 0:
            x = _zero_pad_end(x, -gap)
        elif gap > 0:
            y = _zero_pad_end(y, gap)
    step = nperseg - noverlap
    if boundary is not None:
        x = _extend(x, nperseg // 2, boundary)
        y = _extend(y, nperseg // 2, boundary) if cross else y
    if padded:
        extra = (-(x.shape[-1] - nperseg) % step) % nperseg
        x = _zero_pad_end(x, extra)
        y = _zero_pad_end(y, extra) if cross else y

    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    else:
        scale = 1.0 / win.sum() ** 2
    if mode == "stft":
        scale = jnp.sqrt(scale)
    scale = jnp.asarray(scale)
    scale = scale.astype(dtypes.to_complex_dtype(scale.dtype))
    freqs = (jnp.fft.fftfreq if twosided else jnp.fft.rfftfreq)(nfft, 1 / fs, dtype=freq_dtype)

    spec = _segment_spectra(x, win, detrend_fn, nperseg, noverlap, nfft, twosided)
    if cross:
        spec = jnp.conjugate(spec) * _segment_spectra(y, win, detrend_fn, nperseg, noverlap,
                                                      nfft, twosided)
    elif mode == "psd":
        spec = jnp.conjugate(spec) * spec
    spec = spec * scale
    if not twosided and mode == "psd":  # fold the negative frequencies in
        spec = spec.at[..., 1:None if nfft % 2 else -1].mul(2)

    times = jnp.arange(nperseg / 2, x.shape[-1] - nperseg / 2 + 1, step, dtype=freq_dtype) / fs
    if boundary is not None:
        times = times - (nperseg / 2) / fs
    spec = spec.astype(result_dtype)
    if not cross and mode != "stft":
        spec = spec.real
    return freqs, times, jnp.moveaxis(spec, -1, axis)


_STATIC = ("window", "nperseg", "noverlap", "nfft", "detrend_type", "twosided", "scaling", "mode",
           "boundary", "padded", "axis")
_spectral_core = jit_named("_spectral_helper", static_argnames=_STATIC)(_spectral_body)
_spectral_core_static_fs = jit_named("_spectral_helper",
                                     static_argnames=_STATIC + ("fs",))(_spectral_body)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
    """Short-time Fourier transform: ``(f, t, Zxx)``."""
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                     "spectrum", axis, "stft", boundary, padded)


def _median_bias(n):
    """How much the median of ``n`` periodograms underestimates their mean."""
    even = jnp.arange(2., n, 2)
    return 1 + jnp.sum(1. / (even + 1) - 1. / even)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """Welch cross spectral density ``(f, Pxy)``; ``y=None`` gives the real PSD."""
    freqs, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, "psd")
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim < 2 or pxy.size == 0:
        return freqs, pxy
    if pxy.shape[-1] == 1:
        return freqs, pxy.reshape(pxy.shape[:-1])
    if average not in ("mean", "median"):
        raise ValueError(f'average must be "median" or "mean", got {average}')
    return freqs, _average(pxy, average=average)


@jit_named("_average", static_argnames=("average",))
def _average(pxy, average):
    """Mean, or bias-corrected median, over the last (segment) axis."""
    if average == "mean":
        return pxy.mean(axis=-1)
    bias = _median_bias(pxy.shape[-1]).astype(pxy.dtype)
    if jnp.iscomplexobj(pxy):
        med = jnp.median(jnp.real(pxy), axis=-1) + 1j * jnp.median(jnp.imag(pxy), axis=-1)
    else:
        med = jnp.median(pxy, axis=-1)
    return med / bias


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """Welch power spectral density ``(f, Pxx)``."""
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, pxx.real


def _overlap_add(frames, step):
    """Sum frames ``(..., count, length)`` placed ``step`` apart."""
    *batch, count, length = frames.shape
    where = (np.arange(count)[:, None] * step + np.arange(length)).ravel()
    out = jnp.zeros((*batch, step * (count - 1) + length), frames.dtype)
    return out.at[..., where].add(frames.reshape(*batch, count * length))


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """Inverse STFT by windowed overlap-add: ``(t, x)``."""
    check_arraylike("istft", Zxx)
    Zxx = jnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim)
    time_axis = canonicalize_axis(time_axis, Zxx.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    Zxx = Zxx.astype(dtypes.to_complex_dtype(Zxx.dtype))

    nbins = Zxx.shape[freq_axis]
    inferred = 2 * (nbins - 1) if input_onesided else nbins
    seg = _static_int(nperseg or inferred, "nperseg: segment length of STFT")
    if seg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_len = inferred + (1 if input_onesided and seg == inferred + 1 else 0)
    else:
        nfft_len = _static_int(nfft, "nfft of STFT")
    if nfft_len < seg:
        raise ValueError(f"FFT length ({nfft_len}) must be longer than nperseg ({seg}).")
    overlap = _static_int(noverlap or seg // 2, "noverlap of STFT")
    if overlap >= seg:
        raise ValueError("noverlap must be less than nperseg.")

    win = None
    if not isinstance(window, (str, tuple)):
        win = jnp.asarray(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != seg:
            raise ValueError(f"window must have length of {seg}")
    config = {"window": None if win is not None else window, "seg": seg, "overlap": overlap,
              "nfft": nfft, "input_onesided": input_onesided, "boundary": bool(boundary),
              "time_axis": time_axis, "freq_axis": freq_axis}
    if _hashable_scalar(fs):
        return _istft_core_static_fs(Zxx, win, fs=fs, **config)
    return _istft_core(Zxx, win, fs, **config)


def _istft_body(Zxx, win, fs, window, seg, overlap, nfft, input_onesided, boundary,
                time_axis, freq_axis):
    last_two = (Zxx.ndim - 2, Zxx.ndim - 1)
    if (freq_axis, time_axis) != last_two:
        rest = tuple(d for d in range(Zxx.ndim) if d not in (time_axis, freq_axis))
        Zxx = jnp.transpose(Zxx, rest + (freq_axis, time_axis))
    inverse = jnp.fft.irfft if input_onesided else jnp.fft.ifft
    frames = inverse(Zxx, axis=-2, n=nfft)[..., :seg, :]  # (..., length, count)
    if win is None:
        win = _named_window(window, seg, frames.dtype)
    frames = frames * win.sum()  # undo stft's 'spectrum' scaling
    win = lax.expand_dims(win, (*range(frames.ndim - 2), -1))
    x = _overlap_add((frames * win).swapaxes(-2, -1), seg - overlap)
    norm = _overlap_add(jnp.repeat(win * win, frames.shape[-1], axis=-1).swapaxes(-2, -1),
                        seg - overlap)
    if boundary:  # drop the half-segment stft added at each end
        x = x[..., seg // 2:-(seg // 2)]
        norm = norm[..., seg // 2:-(seg // 2)]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)

    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    t = jnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return t, x


_ISTFT_STATIC = ("window", "seg", "overlap", "nfft", "input_onesided", "boundary", "time_axis",
                 "freq_axis")
_istft_core = jit_named("istft", static_argnames=_ISTFT_STATIC)(_istft_body)
_istft_core_static_fs = jit_named("istft", static_argnames=_ISTFT_STATIC + ("fs",))(_istft_body)
