"""Window functions of ``xjit.numpy`` (``bartlett``, ``blackman``,
``hamming``, ``hanning``, ``kaiser``): length-``M`` tapers in the default
float dtype, written with the same elementwise steps JAX takes so their
jaxprs print alike. ``M`` must be concrete; ``M <= 1`` gives ones."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from xjit._src.lax import lax
from .lax_numpy import abs as _abs, cos, sqrt


def _setup(M, name):
    """``(M, n)``: the concrete length and the sample index ``0..M-1`` as
    floats (or the all-ones window when ``M <= 1``)."""
    M = core.concrete_or_error(int, M, f"M argument of jnp.{name}")
    dtype = dtypes.default_float_dtype()
    return M, (lax.full((M,), 1, dtype) if M <= 1 else lax.iota(dtype, M))


def bartlett(M):
    """Triangular window, zero at both ends."""
    M, n = _setup(M, "bartlett")
    return n if M <= 1 else 1 - _abs(2 * n + 1 - M) / (M - 1)


def blackman(M):
    """Three-term cosine window (0.42, 0.5, 0.08)."""
    M, n = _setup(M, "blackman")
    if M <= 1:
        return n
    return 0.42 - 0.5 * cos(2 * np.pi * n / (M - 1)) + 0.08 * cos(4 * np.pi * n / (M - 1))


def hamming(M):
    """Raised cosine with 0.54/0.46 weights (nonzero ends)."""
    M, n = _setup(M, "hamming")
    return n if M <= 1 else 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1))


def hanning(M):
    """Raised cosine with 0.5/0.5 weights (zero ends)."""
    M, n = _setup(M, "hanning")
    return n if M <= 1 else 0.5 * (1 - cos(2 * np.pi * n / (M - 1)))


def _i0(x):
    from .ufuncs import i0  # jnp.i0 lives with the elementwise functions
    return i0(x)


def kaiser(M, beta):
    """Kaiser-Bessel window with shape parameter ``beta``."""
    M, n = _setup(M, "kaiser")
    if M <= 1:
        return n
    alpha = 0.5 * (M - 1)
    return _i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / _i0(beta)
