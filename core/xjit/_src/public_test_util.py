"""Numerical checks of derivatives (``xjit.test_util``): a function's JVP and
VJP are compared with central differences along random directions, and
``check_grads`` repeats that for higher orders by differentiating the
derivative. A mismatch raises ``AssertionError``."""
from __future__ import annotations

import functools

import numpy as np

from xjit._src import dtypes, tree_util

EPS = 1e-4

# Tolerances per dtype for comparing derivatives with finite differences.
default_gradient_tolerance = {
    np.dtype(np.float16): 1e-2, np.dtype(dtypes.bfloat16): 1e-1,
    np.dtype(np.float32): 2e-3, np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5,
}


def _tolerance(given, dtype):
    if given is not None and not isinstance(given, dict):
        return given
    table = dict(default_gradient_tolerance, **(given or {}))
    return table.get(np.dtype(dtype), 0)


def _dtype(x):
    return dtypes.dtype(x, canonicalize=True) if not hasattr(x, "dtype") else np.dtype(x.dtype)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    def check(x, y):
        dt = max((_dtype(x), _dtype(y)), key=lambda d: _tolerance(None, d))
        a, r = _tolerance(atol, dt), _tolerance(rtol, dt)
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype == dtypes.float0 or y.dtype == dtypes.float0:
            return
        np.testing.assert_allclose(x.astype(np.result_type(x, y)), y.astype(np.result_type(x, y)),
                                   atol=a, rtol=r, err_msg=err_msg)
    tree_util.tree_map(check, xs, ys)


def _inexact(x):
    return np.issubdtype(_dtype(x), np.inexact)


def _add(xs, ys):
    return tree_util.tree_map(lambda x, y: np.add(x, y).astype(_dtype(x)) if _inexact(x) else x,
                              xs, ys)


def _scale(xs, a):
    return tree_util.tree_map(lambda x: np.multiply(x, a).astype(_dtype(x)) if _inexact(x) else x,
                              xs)


def _sub(xs, ys):
    return _add(xs, _scale(ys, -1))


def numerical_jvp(f, primals, tangent, eps=EPS):
    """Central difference ``(f(p + eps t) - f(p - eps t)) / (2 eps)``."""
    delta = _scale(tangent, eps)
    f_pos = f(*_add(primals, delta))
    f_neg = f(*_sub(primals, delta))
    return tree_util.tree_map(
        lambda a, b: ((np.asarray(a, np.float64 if not np.iscomplexobj(a) else np.complex128)
                       - np.asarray(b)) * (0.5 / eps)).astype(_dtype(a)), f_pos, f_neg)


def _rand_like(rng, x):
    dt = _dtype(x)
    shape = np.shape(x)
    if not np.issubdtype(dt, np.inexact):
        return np.zeros(shape, dtypes.float0) if dt != dtypes.float0 else x
    r = rng.randn(*shape)
    if np.issubdtype(dt, np.complexfloating):
        r = r + 1j * rng.randn(*shape)
    return np.asarray(r).astype(dt)


def _inner(xs, ys):
    """Real part of the sum over leaves of ``conj(x) . y``."""
    def dot(x, y):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype == dtypes.float0 or y.dtype == dtypes.float0:
            return 0.0
        return float(np.real(np.dot(np.conj(x).reshape(-1), y.reshape(-1))))
    return sum(tree_util.tree_leaves(tree_util.tree_map(dot, xs, ys)))


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """``f_jvp(args, tangents) -> (out, tangent_out)`` agrees with ``f`` and with
    central differences along a random tangent."""
    rng = np.random.RandomState(0)
    tangent = tree_util.tree_map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    check_close(v_out, f(*args), atol=atol, rtol=rtol,
                err_msg=f"{err_msg} primal" if err_msg else "primal")
    check_close(t_out, numerical_jvp(f, args, tangent, eps=eps), atol=atol, rtol=rtol,
                err_msg=f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """``f_vjp(*args) -> (out, vjp_fun)`` agrees with ``f``, and
    ``<t, vjp(c)> == <jvp(t), c>`` for random ``t``, ``c`` (the JVP by
    central differences)."""
    rng = np.random.RandomState(0)
    v_out, vjpfun = f_vjp(*args)
    check_close(v_out, f(*args), atol=atol, rtol=rtol,
                err_msg=f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_util.tree_map(functools.partial(_rand_like, rng), args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_util.tree_map(functools.partial(_rand_like, rng), v_out)
    cotangent_out = tree_util.tree_map(np.conj, vjpfun(tree_util.tree_map(np.conj, cotangent)))
    ip = _inner(tangent, cotangent_out)
    ip_expected = _inner(tangent_out, cotangent)
    dt = max((_dtype(x) for x in tree_util.tree_leaves(v_out)),
             key=lambda d: _tolerance(None, d), default=np.dtype(np.float32))
    np.testing.assert_allclose(ip, ip_expected, atol=_tolerance(atol, dt),
                               rtol=_tolerance(rtol, dt),
                               err_msg=f"{err_msg} cotangent projection" if err_msg
                               else "cotangent projection")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check ``f``'s derivatives up to ``order`` in forward (``"fwd"``) and/or
    reverse (``"rev"``) mode against finite differences."""
    from xjit._src import ad_api
    args = tuple(args)
    eps = eps or EPS
    jvp_check = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
    vjp_check = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

    def check(f, args, order, msg=""):
        if "fwd" in modes:
            m = f"JVP of {msg}" if msg else "JVP"
            jvp_check(f, functools.partial(ad_api.jvp, f), args, err_msg=m)
            if order > 1:
                check(functools.partial(ad_api.jvp, f), (args, args), order - 1, m)
        if "rev" in modes:
            m = f"VJP of {msg}" if msg else "VJP"
            vjp_check(f, functools.partial(ad_api.vjp, f), args, err_msg=m)
            if order > 1:
                def f_vjp(*a):
                    out, pullback = ad_api.vjp(f, *a)
                    return pullback(out)
                check(f_vjp, args, order - 1, m)

    check(f, args, order)
