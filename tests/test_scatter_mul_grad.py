"""scatter-mul's derivatives as JAX 0.10.2's (values recorded from it): linear
in the operand; in the updates only with unique indices, else JAX's
NotImplementedError. Every order: grad, jit(grad), jvp, jacfwd, jacrev, vmap
both ways, hessian, linear_transpose."""
from __future__ import annotations

import json

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp

RECORDED = json.loads('{"grad_x": [-0.0707399994134903, -0.83228999376297, 0.10610999912023544, 3.5103299617767334, -1.4550000429153442], "grad_u": [-2.9100000858306885, 0.10610999912023544, 0.6366299986839294], "jit_grad_both": [[-0.0707399994134903, -0.83228999376297, 0.10610999912023544, 3.5103299617767334, -1.4550000429153442], [-2.9100000858306885, 0.10610999912023544, 0.6366299986839294]], "jvp": [[-1.5, -2.0, 1.5, 0.5, 8.0], [-3.75, -1.0, 3.75, 0.25, 20.0]], "jacfwd_u": [[0.0, 1.5, 0.0], [-0.0, -0.0, -0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [4.0, 0.0, 0.0]], "jacrev_u": [[0.0, 1.5, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [4.0, 0.0, 0.0]], "vmap_grad_u": [[-2.9100000858306885, 0.10610999912023544, 0.6366299986839294], [-19.15319061279297, -1.4849900007247925, -8.909930229187012]], "grad_vmap": [[-2.9100000858306885, 0.10610999912023544, 0.6366299986839294], [-2.9100000858306885, 0.10610999912023544, 0.6366299986839294]], "hessian_u": [[-79.1486587524414, -0.0, -0.0], [0.0, 2.2443599700927734, 0.0], [-0.0, -0.0, -26.93235969543457]], "linear_transpose_u": [[16.0, 0.0, 6.0]], "repeated": "NotImplementedError: scatter_mul gradients are only implemented if `unique_indices=True`"}')

X = jnp.array([1.5, -2.0, 3.0, 0.5, 4.0])
U = jnp.array([2.0, -1.0, 0.5])
I = jnp.array([4, 0, 2])
def f(x, u):
    return jnp.sum(jnp.sin(x.at[I].multiply(u, unique_indices=True)) * jnp.arange(1.0, 6.0))
def g(x, u):
    return x.at[I].multiply(u, unique_indices=True)
cases = {
  "grad_x": lambda: jax.grad(f)(X, U),
  "grad_u": lambda: jax.grad(f, 1)(X, U),
  "jit_grad_both": lambda: jax.jit(jax.grad(f, (0, 1)))(X, U),
  "jvp": lambda: jax.jvp(g, (X, U), (X * 0.5, U * 2.0)),
  "jacfwd_u": lambda: jax.jacfwd(g, 1)(X, U),
  "jacrev_u": lambda: jax.jacrev(g, 1)(X, U),
  "vmap_grad_u": lambda: jax.vmap(jax.grad(f, 1), (None, 0))(X, jnp.stack([U, U * 2])),
  "grad_vmap": lambda: jax.grad(lambda u: jnp.sum(jax.vmap(lambda uu: f(X, uu))(u)))(jnp.stack([U, -U])),
  "hessian_u": lambda: jax.hessian(f, 1)(X, U),
  "linear_transpose_u": lambda: jax.linear_transpose(lambda u: X.at[I].multiply(u, unique_indices=True), U)(jnp.arange(5.0)),
}


@pytest.mark.parametrize("name", sorted(cases))
def test_matches_jax(name):
    got = jax.tree.leaves(cases[name]())
    want = RECORDED[name]
    if len(got) == 1 and np.shape(want) == np.shape(got[0]):  # one array, not a 1-tuple
        want = [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w, dtype=float), rtol=1e-5,
                                   atol=1e-5)


def test_repeated_indices_refuse_the_updates_derivative():
    with pytest.raises(NotImplementedError) as e:
        jax.grad(lambda u: jnp.sum(X.at[jnp.array([0, 0])].multiply(u)), 0)(U[:2])
    assert f"{type(e.value).__name__}: {e.value}" == RECORDED["repeated"]
