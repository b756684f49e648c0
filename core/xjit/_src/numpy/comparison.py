"""Whole-array and elementwise closeness tests: ``isclose``/``allclose``
(NumPy's asymmetric ``atol + rtol*|b|`` with ``equal_nan``) and
``array_equal``/``array_equiv`` (shape-aware exact equality)."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray, equal, isfinite, isnan, util_dtype
from .reductions import all as _all
from xjit._src.pjit import jit_named


@jit_named("isclose", static_argnames=("equal_nan",))
def _isclose(a, b, rtol, atol, equal_nan):
    """As JAX: integers and booleans are compared as floats (so the result is
    never weakly typed), ``a == b`` or a finite ``b`` within tolerance."""
    a, b = util.promote_args("isclose", a, b)
    if dtypes.issubdtype(util_dtype(a), dtypes.extended):  # keys: equality
        return lax.eq(a, b)
    a, b = util.promote_args_inexact("isclose", a, b)
    dt = util_dtype(a)
    rt = dt if dt.kind != "c" else np.dtype(np.float32 if dt == np.complex64 else np.float64)
    rtol, atol = lax._convert(rtol, rt, False), lax._convert(atol, rt, False)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = lax.bitwise_or(lax.eq(a, b), lax.bitwise_and(isfinite(b), in_range))
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(isnan(a), isnan(b)))
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
