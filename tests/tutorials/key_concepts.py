# Code cells of JAX's documentation page docs/key-concepts.md
# (github.com/jax-ml/jax, tag jax-v0.10.2), extracted unchanged by
# scripts/jax_tutorials.py as test input for xjit.
# Copyright The JAX Authors. Licensed under the Apache License, Version 2.0:
# http://www.apache.org/licenses/LICENSE-2.0
# Not imported by the test suite; each cell is run as a notebook cell.

# %% cell 0
import jax
import jax.numpy as jnp

def selu(x, alpha=1.67, lambda_=1.05):
  return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

selu_jit = jax.jit(selu)
print(selu_jit(1.0))

# %% cell 1
@jax.jit
def selu(x, alpha=1.67, lambda_=1.05):
  return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

# %% cell 2
@jax.jit
def f(x):
  print(x)
  return x + 1

x = jnp.arange(5)
result = f(x)

# %% cell 3
def selu(x, alpha=1.67, lambda_=1.05):
  return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

# %% cell 4
x = jnp.arange(5.0)
jax.make_jaxpr(selu)(x)

# %% cell 5
# (nested) list of parameters
params = [1, 2, (jnp.arange(3), jnp.ones(2))]

print(jax.tree.structure(params))
print(jax.tree.leaves(params))

# %% cell 6
# Dictionary of parameters
params = {'n': 5, 'W': jnp.ones((2, 2)), 'b': jnp.zeros(2)}

print(jax.tree.structure(params))
print(jax.tree.leaves(params))

# %% cell 7
# Named tuple of parameters
from typing import NamedTuple

class Params(NamedTuple):
  a: int
  b: float

params = Params(1, 5.0)
print(jax.tree.structure(params))
print(jax.tree.leaves(params))

# %% cell 8
import jax.numpy as jnp
jnp.add(1, 1.0)  # jax.numpy API implicitly promotes mixed types.

# %% cell 9
from jax import lax
lax.add(1, 1.0)  # jax.lax API requires explicit type promotion.

# %% cell 10
lax.add(jnp.float32(1), 1.0)

# %% cell 11
x = jnp.array([1, 2, 1])
y = jnp.ones(10)
jnp.convolve(x, y)

# %% cell 12
from jax import lax
result = lax.conv_general_dilated(
    x.reshape(1, 1, 3).astype(float),  # note: explicit promotion
    y.reshape(1, 1, 10),
    window_strides=(1,),
    padding=[(len(y) - 1, len(y) - 1)])  # equivalent of padding='full' in NumPy
result[0, 0]
