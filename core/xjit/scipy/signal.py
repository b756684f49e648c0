"""``xjit.scipy.signal``, as ``jax.scipy.signal``: convolutions, detrending
and the windowed-FFT spectral estimators."""
from xjit._src.scipy.signal import (  # noqa: F401
    convolve,
    convolve2d,
    correlate,
    correlate2d,
    detrend,
    fftconvolve,
)
from xjit._src.scipy.signal_spectral import csd, istft, stft, welch  # noqa: F401
