"""``jax.experimental.ode``: ``odeint``, an adaptive Dormand–Prince (RK45)
integrator for ``dy/dt = func(y, t, *args)``.

The step-size control, dense-output interpolation and first-step heuristic
follow JAX's, so the two take the same steps and agree to float rounding.
Gradients come from the adjoint method (Chen et al. 2018, appendix C): the
reverse pass integrates the state, its cotangent and the cotangents of ``t``
and ``args`` backwards in time, instead of differentiating through the
solver's loops (whose memory would grow with the number of steps).
"""
from __future__ import annotations

import functools
import operator

import xjit.numpy as jnp
from xjit import lax
from xjit._src import core
from xjit._src.ad_api import vjp
from xjit._src.closure_convert import closure_convert
from xjit._src.config import default_matmul_precision
from xjit._src.custom_derivatives import custom_vjp
from xjit._src.flatten_util import ravel_pytree
from xjit._src.interpreters.batching import vmap
from xjit._src.numpy.util import promote_dtypes_inexact
from xjit._src.pjit import jit
from xjit._src.tree_util import tree_leaves, tree_map

__all__ = ["odeint"]

# Dormand–Prince 5(4) tableau: stage times, stage weights, the 5th-order
# solution's weights and (solution - embedded 4th order) for the error.
_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1., 0]
_BETA = [[1 / 5, 0, 0, 0, 0, 0, 0],
         [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
         [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]]
_C_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_C_ERR = [35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085,
          125 / 192 - 451 / 720, -2187 / 6784 - -12231 / 42400,
          11 / 84 - 649 / 6300, -1. / 60.]
# Weights giving the solution at the step's midpoint (Shampine 1986), halved.
_C_MID = [6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
          -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
          -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2]


def _flat_state(func, unravel):
    """``func`` on the raveled state: takes and returns flat vectors, so the
    solver works on one array whatever pytree ``y0`` is."""
    def flat_func(y_flat, *args):
        return ravel_pytree(func(unravel(y_flat), *args))[0]
    return flat_func


def _interp_coeffs(y0, y1, k, dt):
    """Coefficients of the quartic through the step (in the step's relative
    time): it matches y and dy/dt at both ends and the midpoint estimate."""
    c_mid = jnp.array(_C_MID, dtype=y0.dtype)
    y_mid = y0 + dt.astype(y0.dtype) * jnp.dot(c_mid, k)
    dy0, dy1 = k[0], k[-1]
    dt = dt.astype(y0.dtype)
    a = -2. * dt * dy0 + 2. * dt * dy1 - 8. * y0 - 8. * y1 + 16. * y_mid
    b = 5. * dt * dy0 - 3. * dt * dy1 + 18. * y0 + 14. * y1 - 32. * y_mid
    c = -4. * dt * dy0 + dt * dy1 - 11. * y0 - 5. * y1 + 16. * y_mid
    return jnp.asarray((a, b, c, dt * dy0, y0))


def _first_step(fun, t0, y0, order, rtol, atol, f0):
    """Hairer, Nørsett & Wanner's starting step (Solving ODEs I, II.4): a
    step whose explicit-Euler change and curvature are both small."""
    y0, f0 = promote_dtypes_inexact(y0, f0)
    dtype = y0.dtype
    scale = atol + jnp.abs(y0) * rtol
    norm = jnp.linalg.norm
    d0 = norm(y0 / scale.astype(dtype))
    d1 = norm(f0 / scale.astype(dtype))
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = fun(y0 + h0.astype(dtype) * f0, t0 + h0)
    d2 = norm((f1 - f0) / scale.astype(dtype)) / h0
    h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15), jnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / jnp.maximum(d1, d2)) ** (1. / (order + 1.)))
    return jnp.minimum(100. * h0, h1)


def _rk_step(func, y0, f0, t0, dt):
    """One Dormand–Prince step: (y1, f1, error estimate, the 7 stage slopes).
    The last stage is evaluated at y1 (FSAL), so f1 seeds the next step."""
    alpha = jnp.array(_ALPHA, dtype=dt.dtype)
    beta = jnp.array(_BETA, dtype=f0.dtype)
    c_sol = jnp.array(_C_SOL, dtype=f0.dtype)
    c_err = jnp.array(_C_ERR, dtype=f0.dtype)

    def stage(i, k):
        ti = t0 + dt * alpha[i - 1]
        yi = y0 + dt.astype(f0.dtype) * jnp.dot(beta[i - 1, :], k)
        return k.at[i, :].set(func(yi, ti))

    k = jnp.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
    k = lax.fori_loop(1, 7, stage, k)
    y1 = dt.astype(f0.dtype) * jnp.dot(c_sol, k) + y0
    err = dt.astype(f0.dtype) * jnp.dot(c_err, k)
    return y1, k[-1], err, k


def _error_ratio(err, rtol, atol, y0, y1):
    """RMS of the error over the tolerance (≤ 1: the step is accepted)."""
    tol = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    ratio = err / tol.astype(err.dtype)
    sq = ratio.real ** 2 + ratio.imag ** 2 if jnp.iscomplexobj(ratio) else ratio ** 2
    return jnp.sqrt(jnp.mean(sq))


def _next_step(last, ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5.0):
    """The step after one with this error ratio: grown at most ``ifactor``
    times; shrunk at most by ``dfactor`` and, after an accepted step, not
    shrunk at all."""
    dfactor = jnp.where(ratio < 1, 1.0, dfactor)
    factor = jnp.minimum(ifactor, jnp.maximum(ratio ** (-1.0 / order) * safety, dfactor))
    return jnp.where(ratio == 0, last * ifactor, last * factor)


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=jnp.inf, hmax=jnp.inf):
    """Solve ``dy/dt = func(y, t, *args)`` from ``y(t[0]) = y0``.

    ``y0`` is an array or pytree of arrays; ``t`` a strictly increasing float
    array of output times; ``args`` arrays, scalars or pytrees of them.
    ``rtol``/``atol`` bound each step's local error, ``mxstep`` the steps
    taken per output time, ``hmax`` the step size. Returns ``y`` at each
    time: ``y0``'s structure with a leading axis of length ``len(t)``.
    """
    for leaf in tree_leaves(args):
        if not core.valid_jaxtype(leaf):
            raise TypeError(
                f"The contents of odeint *args must be arrays or scalars, but got {leaf}.")
    if not jnp.issubdtype(t.dtype, jnp.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    # traced values func closes over become arguments, for the adjoint to see
    converted, consts = closure_convert(func, y0, t[0], *args)
    return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


@functools.partial(jit, static_argnums=(0, 1, 2, 3, 4))
@default_matmul_precision("highest")
def _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    """``odeint`` on the raveled state, unraveled at each output time."""
    y0, unravel = ravel_pytree(y0)
    ys = _odeint(_flat_state(func, unravel), rtol, atol, mxstep, hmax, y0, ts, *args)
    return vmap(unravel)(ys)


@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
@default_matmul_precision("highest")
def _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    """The solve on a flat state: a scan over the output times, each an
    adaptive-step while loop that runs past it, then interpolates back."""
    def f(y, t):
        return func(y, t, *args)

    def to_time(carry, target):
        def more(state):
            i, _, _, t, dt, _, _ = state
            return (t < target) & (i < mxstep) & (dt > 0)

        def step(state):
            i, y, fy, t, dt, last_t, coeffs = state
            y1, f1, err, k = _rk_step(f, y, fy, t, dt)
            t1 = t + dt
            ratio = _error_ratio(err, rtol, atol, y, y1)
            new_coeffs = _interp_coeffs(y, y1, k, dt)
            dt_next = jnp.clip(_next_step(dt, ratio), min=0., max=hmax)
            accepted = [i + 1, y1, f1, t1, dt_next, t, new_coeffs]
            rejected = [i + 1, y, fy, t, dt_next, last_t, coeffs]
            keep = ratio <= 1.
            return [jnp.where(keep, a, r) for a, r in zip(accepted, rejected)]

        _, *carry = lax.while_loop(more, step, [0] + carry)
        _, _, t, _, last_t, coeffs = carry
        s = (target - last_t) / (t - last_t)  # where target falls in the last step
        return carry, jnp.polyval(coeffs, s.astype(coeffs.dtype))

    f0 = f(y0, ts[0])
    dt0 = jnp.clip(_first_step(f, ts[0], y0, 4, rtol, atol, f0), min=0., max=hmax)
    coeffs0 = jnp.array([y0] * 5)
    init = [y0, f0, ts[0], dt0, ts[0], coeffs0]
    _, ys = lax.scan(to_time, init, ts[1:])
    return jnp.concatenate((y0[None], ys))


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


@default_matmul_precision("highest")
def _odeint_rev(func, rtol, atol, mxstep, hmax, res, g):
    """The adjoint pass: from the last output time back to the first, solve
    the augmented system (state, its cotangent, t0's and args' cotangents)
    in negated time, adding each output's cotangent as it is passed."""
    ys, ts, args = res

    def augmented(state, minus_t, *args):
        y, y_bar = state[0], state[1]
        y_dot, pullback = vjp(func, y, -minus_t, *args)
        return (-y_dot, *pullback(y_bar))

    def back_one(carry, i):
        y_bar, t0_bar, args_bar = carry
        # moving output time i moves the output by dy/dt there
        t_bar = jnp.dot(func(ys[i], ts[i], *args), g[i]).real
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            augmented, (ys[i], y_bar, t0_bar, args_bar), jnp.array([-ts[i], -ts[i - 1]]),
            *args, rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_map(operator.itemgetter(1), (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    init = (g[-1], 0., tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), ts_bar_rev = lax.scan(
        back_one, init, jnp.arange(len(ts) - 1, 0, -1))
    ts_bar = jnp.concatenate([jnp.array([t0_bar]), ts_bar_rev[::-1]])
    return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_rev)
