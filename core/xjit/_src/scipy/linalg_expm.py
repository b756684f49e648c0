"""Matrix exponential by scaling and squaring with a Pade approximant whose
degree is picked from the 1-norm (Higham 2005), as ``jax.scipy.linalg.expm``."""
from __future__ import annotations

import functools
from fractions import Fraction
from math import factorial

import numpy as np

from xjit._src.numpy import linalg as _jnp_linalg
from xjit._src.numpy.util import promote_dtypes_inexact
from xjit._src.numpy.vectorize import vectorize
from xjit._src.lax import control_flow
from xjit._src.lax import lax
from xjit._src.numpy import lax_numpy as jnp
from xjit._src.numpy import manipulation
from xjit._src.numpy import tensor_contractions
from xjit._src.numpy import ufuncs
from xjit._src.numpy import ufuncs_api
from xjit._src.pjit import jit_named


def _pade_coefficients(m):
    """b_0..b_m of the [m/m] Pade approximant of exp, scaled so b_m = 1."""
    c = [Fraction(factorial(2 * m - k) * factorial(m), factorial(2 * m) * factorial(k)
                  * factorial(m - k)) for k in range(m + 1)]
    return [float(ck / c[m]) for ck in c]


def _dot(a, b):
    return tensor_contractions.dot(a, b, precision=lax.Precision.HIGHEST)


def _pade(m, a):
    """(U, V) with exp(A) ~ (V - U)^-1 (V + U); U holds the odd powers. Even
    powers are built by repeated products with A^2; degree 13 nests A^6."""
    b = _pade_coefficients(m)
    ident = jnp.eye(*a.shape, dtype=a.dtype)
    a2 = _dot(a, a)
    powers = {0: ident, 2: a2}
    top = 6 if m == 13 else m - 1
    for k in range(4, top + 1, 2):
        powers[k] = _dot(a2, a2) if k == 4 else _dot(powers[k - 2], a2)

    def poly(ks, shift=0):
        """sum b_k A^(k - shift), A's odd powers rounded down to even."""
        return functools.reduce(lambda x, y: x + y,
                                [b[k] * powers[k - shift - (k - shift) % 2] for k in ks])

    if m == 13:  # the top terms carry an A^6 factor outside
        a6 = powers[6]
        u = _dot(a, _dot(a6, poly([13, 11, 9], 6)) + poly([7, 5, 3, 1]))
        v = _dot(a6, poly([12, 10, 8], 6)) + poly([6, 4, 2, 0])
        return u, v
    return _dot(a, poly(range(m, 0, -2))), poly(range(m - 1, -1, -2))


_SCHEMES = {  # dtype -> (max scaled norm, degree thresholds, degrees)
    "64": (5.371920351148152, [0.01495585217958292, 0.253939833006323, 0.9504178996162932,
                               2.097847961257068], (3, 5, 7, 9, 13)),
    "32": (3.92572478313866, [0.4258730016922831, 1.880152677804762], (3, 5, 7)),
}


@jit_named("_calc_P_Q")
def _calc_P_Q(a):
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected A to be a square matrix")
    norm = _jnp_linalg.norm(a, 1)
    if a.dtype.name in ("float64", "complex128"):
        maxnorm, conds, degrees = _SCHEMES["64"]
    elif a.dtype.name in ("float32", "complex64"):
        maxnorm, conds, degrees = _SCHEMES["32"]
    else:
        raise TypeError(f"A.dtype={a.dtype} is not supported.")
    n_squarings = ufuncs_api.maximum(0, jnp.floor(ufuncs.log2(norm / maxnorm)))
    a = a / 2 ** n_squarings.astype(a.dtype)
    idx = manipulation.digitize(norm, jnp.array(conds, dtype=norm.dtype))
    u, v = control_flow.switch(idx, [functools.partial(_pade, m) for m in degrees], a)
    return u + v, -u + v, n_squarings


@jit_named("_squaring", static_argnames=("max_squarings",))
def _squaring(r, n_squarings, max_squarings):
    def step(c, i):
        return control_flow.cond(i < n_squarings, lambda x: _dot(x, x), lambda x: x, c), None
    out, _ = control_flow.scan(step, r, jnp.arange(max_squarings, dtype=n_squarings.dtype))
    return out


@jit_named("expm", static_argnames=("upper_triangular", "max_squarings"))
def expm(A, *, upper_triangular=False, max_squarings=16):
    A, = promote_dtypes_inexact(A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={A.shape!r}.")
    if A.ndim > 2:
        return vectorize(functools.partial(expm, upper_triangular=upper_triangular,
                                           max_squarings=max_squarings),
                         signature="(n,n)->(n,n)")(A)
    p, q, n_squarings = _calc_P_Q(jnp.asarray(A))

    def nan(args):
        return jnp.full_like(args[0], np.nan)

    def compute(args):
        _, p_, q_ = args
        if upper_triangular:
            from xjit._src.scipy.linalg import solve_triangular
            r = solve_triangular(q_, p_)
        else:
            r = _jnp_linalg.solve(q_, p_)
        return _squaring(r, n_squarings, max_squarings)

    return control_flow.cond(n_squarings > max_squarings, nan, compute, (A, p, q))
