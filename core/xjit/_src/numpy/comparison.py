"""Whole-array and elementwise closeness tests: ``isclose``/``allclose``
(NumPy's asymmetric ``atol + rtol*|b|`` with ``equal_nan``) and
``array_equal``/``array_equiv`` (shape-aware exact equality)."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray, equal, isinf, isnan, util_dtype, where
from .reductions import all as _all
from xjit._src.pjit import jit_named


@jit_named("isclose", static_argnames=("equal_nan",))
def _isclose(a, b, rtol, atol, equal_nan):
    a, b = util.promote_args("isclose", a, b)
    dt = util_dtype(a)
    if not dtypes.is_inexact(dt):
        return lax.eq(a, b)
    rt = dt if dt.kind != "c" else np.dtype(np.float32 if dt == np.complex64 else np.float64)
    rtol, atol = lax._convert(rtol, rt, False), lax._convert(atol, rt, False)
    out = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    a_inf, b_inf = isinf(a), isinf(b)
    out = where(lax.bitwise_or(a_inf, b_inf), False, out)
    out = where(lax.bitwise_and(a_inf, b_inf), lax.eq(a, b), out)
    if equal_nan:
        out = where(lax.bitwise_and(isnan(a), isnan(b)), True, out)
    return out


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    util.check_arraylike("isclose", a, b)
    return _isclose(a, b, rtol, atol, equal_nan=builtins.bool(equal_nan))


@jit_named("allclose", static_argnames=("equal_nan",))
def _allclose(a, b, rtol, atol, equal_nan):
    return _all(_isclose(a, b, rtol, atol, equal_nan=equal_nan))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    util.check_arraylike("allclose", a, b)
    return _allclose(a, b, rtol, atol, equal_nan=builtins.bool(equal_nan))


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return asarray(False)
    eq = equal(a1, a2)  # JAX's ``a1 == a2``: keys compare too
    if equal_nan:
        eq = lax.bitwise_or(eq, lax.bitwise_and(isnan(a1), isnan(a2)))
    return _all(eq)


def array_equiv(a1, a2):
    a1, a2 = asarray(a1), asarray(a2)
    try:
        util.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return asarray(False)
    return _all(equal(a1, a2))
