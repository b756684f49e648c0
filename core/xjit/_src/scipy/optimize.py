"""``jax.scipy.optimize.minimize``: BFGS, and JAX's experimental L-BFGS.

Both loops are ``lax.while_loop``s over a NamedTuple state (so ``minimize``
jits and vmaps), with gradients from ``value_and_grad`` and steps from the
strong-Wolfe line search in ``optimize_line_search``. The updates follow
JAX's arithmetic so iteration counts and results agree with it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from xjit import lax
from xjit import numpy as jnp
from xjit._src import dtypes
from xjit._src.ad_api import value_and_grad
from xjit._src.numpy import linalg as jnp_linalg
from xjit._src.scipy.optimize_line_search import line_search

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)
_einsum = partial(jnp.einsum, precision=lax.Precision.HIGHEST)


class OptimizeResults(NamedTuple):
    """What ``minimize`` returns. ``status``: 0 converged, 1 ``maxiter``
    reached, 2 + the line search's status when it failed (BFGS), -1 other;
    L-BFGS: 1 maxiter, 2 maxfun, 3 maxgrad, 4 no progress (ftol), 5 line
    search failed. ``hess_inv`` is None for L-BFGS."""
    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


class _BFGSState(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any
    old_old_fval: Any
    status: Any
    line_search_status: Any


def _bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """BFGS with a dense inverse-Hessian estimate (Nocedal & Wright, alg. 6.1)."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _BFGSState(converged=jnp_linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0,
                       nfev=1, ngev=1, nhev=0, x_k=x0, f_k=f_0, g_k=g_0,
                       H_k=jnp.eye(d, dtype=x0.dtype), old_old_fval=f_0 + jnp_linalg.norm(g_0) / 2,
                       status=0, line_search_status=0)

    def running(s):
        return ~s.converged & ~s.failed & (s.k < maxiter)

    def step(s):
        p_k = -_dot(s.H_k, s.g_k)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval,
                         gfk=s.g_k, maxiter=line_search_maxiter)
        s_k = ls.a_k * p_k
        y_k = ls.g_k - s.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        w = jnp.eye(d, dtype=rho_k.dtype) - rho_k * (s_k[:, None] * y_k[None, :])
        H_next = _einsum("ij,jk,lk", w, s.H_k, w) + rho_k * s_k[:, None] * s_k[None, :]
        # a non-positive curvature pair would break the estimate: keep the old one
        H_next = jnp.where(jnp.isfinite(rho_k), H_next, s.H_k)
        return s._replace(converged=jnp_linalg.norm(ls.g_k, ord=norm) < gtol,
                          failed=ls.failed, k=s.k + 1, nfev=s.nfev + ls.nfev,
                          ngev=s.ngev + ls.ngev, x_k=s.x_k + s_k, f_k=ls.f_k, g_k=ls.g_k,
                          H_k=H_next, old_old_fval=s.f_k, line_search_status=ls.status)

    state = lax.while_loop(running, step, state)
    status = jnp.where(state.converged, 0,
                       jnp.where(state.k == maxiter, 1,
                                 jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)


class _LBFGSState(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    s_history: Any
    y_history: Any
    rho_history: Any
    gamma: Any
    status: Any
    ls_status: Any


def _lbfgs(fun, x0, maxiter=None, norm=np.inf, maxcor=10, ftol=2.220446049250313e-09,
           gtol=1e-05, maxfun=None, maxgrad=None, maxls=20):
    """Limited-memory BFGS (Nocedal & Wright, alg. 7.5), with the complex
    generalisation of Sorber et al. (2012)."""
    d = len(x0)
    dtype = dtypes.dtype(x0)
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200
    maxiter, maxfun, maxgrad = (np.inf if v is None else v for v in (maxiter, maxfun, maxgrad))

    f_0, g_0 = value_and_grad(fun)(x0)
    state = _LBFGSState(converged=jnp.array(False, dtype=bool),
                        failed=jnp.array(False, dtype=bool), k=0, nfev=1, ngev=1, x_k=x0,
                        f_k=f_0, g_k=g_0, s_history=jnp.zeros((maxcor, d), dtype=dtype),
                        y_history=jnp.zeros((maxcor, d), dtype=dtype),
                        rho_history=jnp.zeros((maxcor,), dtype=dtype), gamma=1., status=0,
                        ls_status=0)

    def step(s):
        p_k = _two_loop_direction(s)
        ls = line_search(f=fun, xk=s.x_k, pk=p_k, old_fval=s.f_k, gfk=s.g_k, maxiter=maxls)
        s_k = jnp.asarray(ls.a_k).astype(p_k.dtype) * p_k
        y_k = ls.g_k - s.g_k
        sy = jnp.real(_dot(y_k, s_k))
        rho_k = jnp.reciprocal(sy).astype(y_k.dtype)
        gamma = sy / jnp.real(_dot(jnp.conj(y_k), y_k))

        # the later checks win: line search, then maxiter, maxfun, maxgrad, ftol
        status = jnp.array(0)
        status = jnp.where(s.f_k - ls.f_k < ftol, 4, status)
        status = jnp.where(s.ngev >= maxgrad, 3, status)
        status = jnp.where(s.nfev >= maxfun, 2, status)
        status = jnp.where(s.k >= maxiter, 1, status)
        status = jnp.where(ls.failed, 5, status)
        converged = jnp_linalg.norm(ls.g_k, ord=norm) < gtol
        return s._replace(
            converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev,
            x_k=(s.x_k + s_k).astype(s.x_k.dtype), f_k=ls.f_k.astype(s.f_k.dtype),
            g_k=ls.g_k.astype(s.g_k.dtype), s_history=_push(s.s_history, s_k),
            y_history=_push(s.y_history, y_k), rho_history=_push(s.rho_history, rho_k),
            gamma=gamma.astype(s.g_k.dtype), status=jnp.where(converged, 0, status),
            ls_status=ls.status)

    return lax.while_loop(lambda s: ~s.converged & ~s.failed, step, state)


def _two_loop_direction(s):
    """-H_k g_k from the stored (s, y, rho) pairs, newest last."""
    dtype = s.rho_history.dtype
    size = len(s.rho_history)
    used = jnp.where(s.k < size, s.k, size)

    def newest_first(j, carry):
        q, alphas = carry
        i = size - 1 - j
        a_i = s.rho_history[i] * _dot(jnp.conj(s.s_history[i]), q).real.astype(dtype)
        return q - a_i * jnp.conj(s.y_history[i]), alphas.at[i].set(a_i)

    q, alphas = lax.fori_loop(0, used, newest_first,
                              (-jnp.conj(s.g_k), jnp.zeros_like(s.rho_history)))
    q = s.gamma * q

    def oldest_first(j, q):
        i = size - used + j
        b_i = s.rho_history[i] * _dot(s.y_history[i], q).real.astype(dtype)
        return q + (alphas[i] - b_i) * s.s_history[i]

    return lax.fori_loop(0, used, oldest_first, q)


def _push(history, new):
    """Drop the oldest entry and append ``new`` as the last."""
    return jnp.roll(history, -1, axis=0).at[-1].set(new)


def minimize(fun: Callable, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
    """Minimise ``fun(x, *args)`` over a 1-D ``x`` from ``x0``; ``method`` is
    ``"BFGS"`` or ``"l-bfgs-experimental-do-not-rely-on-this"`` and
    ``options`` go to the solver (``maxiter``, ``gtol``, ...). ``tol`` is
    accepted and ignored, as in JAX."""
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError("args argument to jax.scipy.optimize.minimize must be a tuple, "
                        f"got {args}")

    def objective(x):
        return fun(x, *args)

    name = method.lower()
    if name == "bfgs":
        r = _bfgs(objective, x0, **options)
        hess_inv = r.H_k
    elif name == "l-bfgs-experimental-do-not-rely-on-this":
        r = _lbfgs(objective, x0, **options)
        hess_inv = None
    else:
        raise ValueError(f"Method {method} not recognized")
    return OptimizeResults(x=r.x_k, success=r.converged & jnp.logical_not(r.failed),
                           status=r.status, fun=r.f_k, jac=r.g_k, hess_inv=hess_inv,
                           nfev=r.nfev, njev=r.ngev, nit=r.k)
