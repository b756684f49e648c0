"""The ``fft`` primitive: XLA's FFT over the trailing ``len(fft_lengths)``
axes (at most three), lowered to ``stablehlo.fft`` on every platform."""
from __future__ import annotations

import enum
import operator

import numpy as np

from xjit._src import core
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import instantiate_zeros
from xjit._src.interpreters.batching import moveaxis
from xjit._src.core import Primitive
from xjit._src.interpreters.mlir import i64_array, ttype
from xjit._src.lax import lax


class FftType(enum.IntEnum):
    """Printed as its integer value in jaxprs, as JAX's enum is."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


def _fft_eval(x, *, fft_type, fft_lengths):
    n = len(fft_lengths)
    if not 1 <= n <= 3:
        raise ValueError(f"fft_lengths must have 1 to 3 elements, got {fft_lengths}")
    if x.ndim < n:
        raise ValueError(f"FFT of {n} dimensions needs an operand of rank >= {n}, got {x.shape}")
    if fft_type == FftType.RFFT:
        if x.dtype not in _COMPLEX_OF:
            raise TypeError(f"RFFT requires a float32 or float64 operand, got {x.dtype.name}")
        if x.shape[-n:] != tuple(fft_lengths):
            raise ValueError(f"RFFT input shape {x.shape} must end with fft_lengths {fft_lengths}")
        shape = x.shape[:-1] + (fft_lengths[-1] // 2 + 1,)
        return x.update(shape=shape, dtype=_COMPLEX_OF[x.dtype], weak_type=False)
    if x.dtype not in _REAL_OF:
        raise TypeError(f"{FftType(fft_type).name} requires a complex operand, got {x.dtype.name}")
    if fft_type == FftType.IRFFT:
        if x.shape[-n:-1] != tuple(fft_lengths[:-1]) or x.shape[-1] != fft_lengths[-1] // 2 + 1:
            raise ValueError(f"IRFFT input shape {x.shape} does not match fft_lengths {fft_lengths}")
        return x.update(shape=x.shape[:-n] + tuple(fft_lengths), dtype=_REAL_OF[x.dtype],
                        weak_type=False)
    if x.shape[-n:] != tuple(fft_lengths):
        raise ValueError(f"FFT input shape {x.shape} must end with fft_lengths {fft_lengths}")
    return x.update(weak_type=False)


def _fft_lower(ctx, ai, ao, x, *, fft_type, fft_lengths):
    return ctx.op("stablehlo.fft", [x], [ttype(ai[0])], ttype(ao[0]),
                  attrs=f"fft_type = #stablehlo<fft_type {FftType(fft_type).name}>, "
                        f"fft_length = {i64_array(fft_lengths)}")


fft_p = Primitive("fft")
core.abstract_eval_rules[fft_p] = _fft_eval
lowering.rules[fft_p] = _fft_lower


def fft(x, fft_type, fft_lengths):
    """XLA's FFT of the trailing ``len(fft_lengths)`` axes of ``x``."""
    if isinstance(fft_type, str):
        fft_type = FftType[fft_type.upper()]
    fft_type = FftType(fft_type)
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=tuple(map(operator.index, fft_lengths)))


# -- transformation rules. fft is linear. The DFT matrix is symmetric, so FFT
# and IFFT are their own transposes; the real transforms are transposed by
# composing the transposes of their real/complex conversion and truncation
# (cotangents of complex values follow the conjugate convention of the other
# complex rules).


def _fft_transpose(ct, *, fft_type, fft_lengths):
    ct = instantiate_zeros(ct)
    if fft_type in (FftType.FFT, FftType.IFFT):
        return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]
    n = fft_lengths[-1]
    if fft_type == FftType.RFFT:  # x -> truncate(FFT(complex(x)))
        cfg = [(0, 0, 0)] * (ct.ndim - 1) + [(0, n - ct.shape[-1], 0)]
        full = lax.pad(ct, lax._convert(0, ct.dtype, False), cfg)
        return [lax.real(fft_p.bind(full, fft_type=FftType.FFT, fft_lengths=fft_lengths))]
    x = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    m = x.shape[-1]
    weights = np.full((m,), 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    weights = weights / float(np.prod(fft_lengths))
    w = lax.broadcast_in_dim(np.asarray(weights, _REAL_OF[x.dtype]), x.shape, (x.ndim - 1,))
    return [lax.conj(lax.mul(x, lax._convert(w, x.dtype, False)))]


def _fft_batch(args, dims, *, fft_type, fft_lengths):
    return fft_p.bind(moveaxis(args[0], dims[0], 0), fft_type=fft_type,
                      fft_lengths=fft_lengths), 0


ad.deflinear(fft_p, _fft_transpose)
batching.batch_rules[fft_p] = _fft_batch
