"""Spherical harmonics from the orthonormalised associated Legendre
functions, built as JAX 0.10.2 builds them (diagonal, first off-diagonal,
then the three-term recurrence in the degree) so values agree to rounding."""
from __future__ import annotations

import numpy as np

import xjit.numpy as jnp
from xjit._src import core
from xjit._src.lax import lax
from xjit._src.pjit import jit


def _normalized_legendre(l_max, x):
    """P[m, l, k]: the L^2(S^2)-orthonormal P_l^m(x_k) for 0 <= m, l <= l_max
    (zero where m > l)."""
    dt = x.dtype
    p00 = 0.5 / jnp.sqrt(np.pi)
    zero = jnp.zeros(x.shape, dt)
    rows = [[zero] * (l_max + 1) for _ in range(l_max + 1)]
    rows[0][0] = jnp.full(x.shape, p00, dt)
    if l_max > 0:
        a = jnp.arange(1, l_max + 1, dtype=dt)
        f_a = jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / a))
        f_b = jnp.sqrt(2.0 * jnp.arange(l_max, dtype=dt) + 3.0)
        y = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max,) + x.shape), axis=0)
        diag = p00 * (f_a[:, None] * y)
        for m in range(1, l_max + 1):
            rows[m][m] = diag[m - 1]
        for m in range(l_max):
            rows[m][m + 1] = (f_b[m] * x) * rows[m][m]
    for l in range(2, l_max + 1):
        ll, lm1 = l * l, (l - 1.0) * (l - 1.0)
        for m in range(l - 1):
            mm = m * m
            d0 = np.sqrt((4.0 * ll - 1.0) / (ll - mm)).astype(dt)
            d1 = np.sqrt(((2.0 * l + 1.0) * (lm1 - mm)) / ((2.0 * l - 3.0) * (ll - mm))).astype(dt)
            rows[m][l] = d0 * (rows[m][l - 1] * x) - d1 * rows[m][l - 2]
    return jnp.stack([jnp.stack(r) for r in rows])


def _sph_harm(n, m, theta, phi, n_max):
    p = _normalized_legendre(n_max, jnp.cos(theta))
    val = p.at[abs(m), n, jnp.arange(len(n))].get(mode="clip")
    angle = abs(m) * phi
    c, s = jnp.cos(angle), jnp.sin(angle)
    out = lax.complex(val * c, val * s)
    return jnp.where(m < 0, (-1.0) ** abs(m) * jnp.conjugate(out), out)


_sph_harm = jit(_sph_harm, static_argnums=(4,))


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    if n_max is None:
        n_max = np.max(n)
    n_max = core.concrete_or_error(
        int, n_max, "The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically "
        "specified to use `sph_harm` within JAX transformations.")
    return _sph_harm(n, m, theta, phi, n_max)
