"""The strong-Wolfe line search under ``xjit.scipy.optimize``'s BFGS and
L-BFGS (Nocedal & Wright, algorithms 3.5 and 3.6).

Everything runs inside ``lax.while_loop`` with branch-free ``where`` updates,
and both zoom loops are traced every bracketing step (one of them is switched
off by ``skip``) so the evaluation counts, step sizes and therefore the
optimizers' iteration counts agree with JAX's step for step.
"""
from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src.ad_api import value_and_grad
from xjit._src.numpy.util import promote_dtypes_inexact

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)


def _cubic_step(a, fa, fpa, b, fb, c, fc):
    """Minimiser of the cubic through (a, fa) with slope fpa, (b, fb), (c, fc)."""
    dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    m = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    rhs = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    A, B = _dot(m, rhs) / denom
    return a + (-B + jnp.sqrt(B * B - 3. * A * fpa)) / (3. * A)


def _quadratic_step(a, fa, fpa, b, fb):
    """Minimiser of the parabola through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    B = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2. * B)


def _take(cond, state, **new):
    """``state`` with the named fields set to ``new``'s where ``cond`` holds."""
    return state._replace(**{k: jnp.where(cond, v, getattr(state, k)) for k, v in new.items()})


class _Zoom(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom(phi_dphi, sufficient_decrease_fails, curvature_holds,
          a_lo, phi_lo, dphi_lo, a_hi, phi_hi, dphi_hi, g_0, skip):
    """Shrink the bracket [a_lo, a_hi] until a point meets both Wolfe
    conditions, trying a cubic, then a quadratic, then bisection."""
    state = _Zoom(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
                  a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.,
                  phi_rec=(phi_lo + phi_hi) / 2., a_star=1., phi_star=phi_lo,
                  dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0)

    def body(s):
        width = s.a_hi - s.a_lo
        lo_end = jnp.minimum(s.a_hi, s.a_lo)
        hi_end = jnp.maximum(s.a_hi, s.a_lo)
        cubic_margin, quad_margin = 0.2 * width, 0.1 * width
        # a bracket this narrow cannot make progress: give up (not Wolfe)
        floor = jnp.where(dtypes.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
        s = s._replace(failed=s.failed | (width <= floor))

        a_cubic = _cubic_step(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = ((s.j > 0) & (a_cubic > lo_end + cubic_margin)
                     & (a_cubic < hi_end - cubic_margin))
        a_quad = _quadratic_step(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = ~use_cubic & (a_quad > lo_end + quad_margin) & (a_quad < hi_end - quad_margin)
        use_half = ~use_cubic & ~use_quad
        a_j = jnp.where(use_cubic, a_cubic, s.a_rec)
        a_j = jnp.where(use_quad, a_quad, a_j)
        a_j = jnp.where(use_half, (s.a_lo + s.a_hi) / 2., a_j)

        phi_j, dphi_j, g_j = phi_dphi(a_j)
        phi_j = phi_j.astype(s.phi_lo.dtype)
        dphi_j = dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)

        hi_to_j = sufficient_decrease_fails(a_j, phi_j) | (phi_j >= s.phi_lo)
        star_to_j = curvature_holds(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (s.a_hi - s.a_lo) >= 0.) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j

        s = _take(hi_to_j, s, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                  a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _take(star_to_j, s._replace(done=star_to_j | s.done),
                  a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)
        s = _take(hi_to_lo, s, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo,
                  a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _take(lo_to_j & ~hi_to_lo, s, a_rec=s.a_lo, phi_rec=s.phi_lo)
        s = _take(lo_to_j, s, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        # JAX allows 30 zoom steps (more than SciPy's 10)
        return s._replace(j=s.j + 1, failed=s.failed | (s.j + 1 >= 30))

    return lax.while_loop(lambda s: ~s.done & ~skip & ~s.failed, body, state)


class _Search(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class LineSearchResults(NamedTuple):
    """End state of one line search; ``status`` 0 = Wolfe point found,
    1 = zoom failed, 3 = ``maxiter`` bracketing steps used."""
    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
                maxiter=20):
    """A step along the descent direction ``pk`` from ``xk`` meeting the
    strong Wolfe conditions with constants ``c1`` and ``c2``."""
    xk, pk = promote_dtypes_inexact(xk, pk)

    def phi_dphi(t):
        t = jnp.array(t, dtype=pk.dtype)
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, jnp.real(_dot(g, pk)), g

    evaluated_here = old_fval is None or gfk is None
    if evaluated_here:
        phi_0, dphi_0, gfk = phi_dphi(0)
    else:
        phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
    if old_old_fval is not None:
        guess = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        first_step = jnp.where(guess > 1, 1.0, guess)
    else:
        first_step = 1

    def sufficient_decrease_fails(a, phi):
        return phi > phi_0 + c1 * a * dphi_0

    def curvature_holds(dphi):
        return jnp.abs(dphi) <= -c2 * dphi_0

    state = _Search(done=jnp.array(False, dtype=bool), failed=jnp.array(False, dtype=bool),
                    i=1, a_i1=0., phi_i1=phi_0, dphi_i1=dphi_0, nfev=int(evaluated_here),
                    ngev=int(evaluated_here), a_star=0., phi_star=phi_0, dphi_star=dphi_0,
                    g_star=gfk)

    def body(s):
        # no upper step bound: double the step each time, as SciPy does
        a_i = jnp.where(s.i == 1, first_step, s.a_i1 * 2.)
        phi_i, dphi_i, g_i = phi_dphi(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)

        zoom_left = sufficient_decrease_fails(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        accept = curvature_holds(dphi_i) & ~zoom_left
        zoom_right = (dphi_i >= 0.) & ~zoom_left & ~accept

        z1 = _zoom(phi_dphi, sufficient_decrease_fails, curvature_holds, s.a_i1, s.phi_i1,
                   s.dphi_i1, a_i, phi_i, dphi_i, gfk, ~zoom_left)
        s = s._replace(nfev=s.nfev + z1.nfev, ngev=s.ngev + z1.ngev)
        z2 = _zoom(phi_dphi, sufficient_decrease_fails, curvature_holds, a_i, phi_i, dphi_i,
                   s.a_i1, s.phi_i1, s.dphi_i1, gfk, ~zoom_right)
        s = s._replace(nfev=s.nfev + z2.nfev, ngev=s.ngev + z2.ngev)

        star = ("a_star", "phi_star", "dphi_star", "g_star")
        s = _take(zoom_left, s._replace(done=zoom_left | s.done,
                                        failed=(zoom_left & z1.failed) | s.failed),
                  **{k: getattr(z1, k) for k in star})
        s = _take(accept, s._replace(done=accept | s.done),
                  a_star=a_i, phi_star=phi_i, dphi_star=dphi_i, g_star=g_i)
        s = _take(zoom_right, s._replace(done=zoom_right | s.done,
                                         failed=(zoom_right & z2.failed) | s.failed),
                  **{k: getattr(z2, k) for k in star})
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = lax.while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, state)

    status = jnp.where(state.failed, jnp.array(1),
                       jnp.where(state.i > maxiter, jnp.array(3), jnp.array(0)))
    # below 64 bits a vanishing step would freeze the optimizer: keep it >= 1e-8
    a_k = jnp.asarray(state.a_star)
    a_k = jnp.where((dtypes.finfo(a_k.dtype).bits != 64) & (jnp.abs(a_k) < 1e-8),
                    jnp.sign(a_k) * 1e-8, a_k)
    return LineSearchResults(failed=state.failed | ~state.done, nit=state.i - 1,
                             nfev=state.nfev, ngev=state.ngev, k=state.i, a_k=a_k,
                             f_k=state.phi_star, g_k=state.g_star, status=status)
