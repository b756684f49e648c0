# Code cells of JAX's documentation page docs/aot.md
# (github.com/jax-ml/jax, tag jax-v0.10.2), extracted unchanged by
# scripts/jax_tutorials.py as test input for xjit.
# Copyright The JAX Authors. Licensed under the Apache License, Version 2.0:
# http://www.apache.org/licenses/LICENSE-2.0
# Not imported by the test suite; each cell is run as a notebook cell.

# %% cell 0
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

# %% cell 1
import jax

# %% cell 2
def f(x, y): return 2 * x + y

# %% cell 3
x, y = 3, 4

# %% cell 4
traced = jax.jit(f).trace(x, y)

# %% cell 5
print(traced.jaxpr)

# %% cell 6
lowered = traced.lower()

# %% cell 7
print(lowered.as_text())

# %% cell 8
compiled = lowered.compile()

# %% cell 9
compiled.cost_analysis()['flops']

# %% cell 10
compiled(x, y)

# %% cell 11
i32_scalar = jax.ShapeDtypeStruct((), jnp.dtype('int32'))

# %% cell 12
jax.jit(f).trace(i32_scalar, i32_scalar).lower().compile()(x, y)

# %% cell 13
x_1d = y_1d = jnp.arange(3)

# %% cell 14
jax.jit(f).trace(i32_scalar, i32_scalar).lower().compile()(x_1d, y_1d)  # doctest: +IGNORE_EXCEPTION_DETAIL

# %% cell 15
x_f = y_f = jnp.float32(72.)

# %% cell 16
jax.jit(f).trace(i32_scalar, i32_scalar).lower().compile()(x_f, y_f)  # doctest: +IGNORE_EXCEPTION_DETAIL

# %% cell 17
lowered_with_x = jax.jit(f, static_argnums=0).trace(7, 8).lower()

# %% cell 18
print(lowered_with_x.as_text())

# %% cell 19
lowered_with_x.compile()(5)

# %% cell 20
jax.jit(f, static_argnums=0).trace(i32_scalar, i32_scalar)  # doctest: +SKIP

# %% cell 21
jax.jit(f, static_argnums=0).trace(10, i32_scalar).lower().compile()(5)

# %% cell 22
def g(x):
  assert x.shape == (3, 2)
  return x @ jnp.ones(2)

# %% cell 23
def make_z(*shape):
  return jnp.arange(np.prod(shape)).reshape(shape)

# %% cell 24
z, zs = make_z(3, 2), make_z(4, 3, 2)

# %% cell 25
g_jit = jax.jit(g)

# %% cell 26
g_aot = jax.jit(g).trace(z).lower().compile()

# %% cell 27
jax.vmap(g_jit)(zs)

# %% cell 28
jax.vmap(g_aot)(zs)  # doctest: +SKIP
