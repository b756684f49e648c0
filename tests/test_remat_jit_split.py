"""grad of ``checkpoint`` around jitted functions (every ``jnp`` function that
is a named jit: clip, sinc, round, where...), in every order, with values
recorded from JAX 0.10.2. A jit equation with primal and tangent inputs is
split into its known and unknown halves, as JAX splits it; whole, its primal
outputs counted as linear and the transpose failed."""
from __future__ import annotations

import json

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp

RECORDED = json.loads('{"clip:grad": 1.399999976158142, "clip:jit_grad": 2.5999999046325684, "clip:vmap_grad": [1.399999976158142, 2.5999999046325684, 7.0], "clip:grad_vmap": [1.399999976158142, 2.5999999046325684, 7.0], "clip:dots_saveable": 7.0, "clip:grad_grad": 2.0, "clip:jacrev": 2.5999999046325684, "sinc:grad": -0.5877900123596191, "sinc:jit_grad": -0.5877900123596191, "sinc:vmap_grad": [-0.5877900123596191, -0.5877900123596191, 0.0], "sinc:grad_vmap": [-0.5877900123596191, -0.5877900123596191, 0.0], "sinc:dots_saveable": 0.0, "sinc:grad_grad": -2.541599988937378, "sinc:jacrev": -0.5877900123596191, "round:grad": 1.0, "round:jit_grad": 1.0, "round:vmap_grad": [1.0, 1.0, 4.0], "round:grad_vmap": [1.0, 1.0, 4.0], "round:dots_saveable": 4.0, "round:grad_grad": 0.0, "round:jacrev": 1.0, "jit_sin:grad": 1.179610013961792, "jit_sin:jit_grad": 1.311310052871704, "jit_sin:vmap_grad": [1.179610013961792, 1.311310052871704, -3.628380060195923], "jit_sin:grad_vmap": [1.179610013961792, 1.311310052871704, -3.628380060195923], "jit_sin:dots_saveable": -3.628380060195923, "jit_sin:grad_grad": 1.0787299871444702, "jit_sin:jacrev": 1.311310052871704, "where:grad": 0.627780020236969, "where:jit_grad": -0.9851300120353699, "where:vmap_grad": [0.627780020236969, -0.9851300120353699, 0.29128000140190125], "where:grad_vmap": [0.627780020236969, -0.9851300120353699, 0.29128000140190125], "where:dots_saveable": 0.29128000140190125, "where:grad_grad": -3.6476500034332275, "where:jacrev": -0.9851300120353699, "floordiv:grad": 0.0, "floordiv:jit_grad": 0.0, "floordiv:vmap_grad": [0.0, 0.0, -0.936460018157959], "floordiv:grad_vmap": [0.0, 0.0, -0.936460018157959], "floordiv:dots_saveable": -0.936460018157959, "floordiv:grad_grad": -0.0, "floordiv:jacrev": 0.0}')

FS = {"clip": lambda x: jnp.clip(x, 0., 5.) * x, "sinc": lambda x: jnp.sinc(x) * x,
      "round": lambda x: jnp.round(x) * x, "jit_sin": lambda x: jax.jit(jnp.sin)(x) * x,
      "where": lambda x: jnp.where(x > 1, x, 2 * x) * jnp.cos(x),
      "floordiv": lambda x: jnp.sin(x) * (x // 2.0)}
ORD = {"grad": lambda f: jax.grad(jax.checkpoint(f))(0.7),
       "jit_grad": lambda f: jax.jit(jax.grad(jax.checkpoint(f)))(1.3),
       "vmap_grad": lambda f: jax.vmap(jax.grad(jax.checkpoint(f)))(jnp.array([0.7, 1.3, 3.5])),
       "grad_vmap": lambda f: jax.grad(lambda x: jnp.sum(jax.vmap(jax.checkpoint(f))(x)))(jnp.array([0.7, 1.3, 3.5])),
       "dots_saveable": lambda f: jax.grad(jax.checkpoint(f, policy=jax.checkpoint_policies.dots_saveable))(3.5),
       "grad_grad": lambda f: jax.grad(jax.grad(jax.checkpoint(f)))(0.7),
       "jacrev": lambda f: jax.jacrev(jax.checkpoint(f))(jnp.array(1.3))}


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_matches_jax(case):
    fn, order = case.split(":")
    np.testing.assert_allclose(np.asarray(ORD[order](FS[fn])), RECORDED[case], rtol=1e-5,
                               atol=1e-5)
