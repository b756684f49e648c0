"""``jax.scipy.cluster.vq.vq``: nearest code-book entry per observation."""
from __future__ import annotations

import operator

from xjit import numpy as jnp
from xjit._src.interpreters.batching import vmap
from xjit._src.numpy.util import check_arraylike, promote_dtypes_inexact


def vq(obs, code_book, check_finite=True):
    """``(code, dist)``: the index of each observation's nearest code (by
    Euclidean distance) and that distance. ``check_finite`` is ignored, as in
    JAX (nothing can be checked under a trace)."""
    del check_finite
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, book = (jnp.asarray(v) for v in promote_dtypes_inexact(obs, code_book))
    if obs.ndim != book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, book = obs[:, None], book[:, None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: jnp.linalg.norm(ob[None] - book, axis=-1))(obs)
    code = jnp.argmin(dist, axis=-1)
    return code, vmap(operator.getitem)(dist, code)
