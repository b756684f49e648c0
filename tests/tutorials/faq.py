# Code cells of JAX's documentation page docs/faq.rst
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
from jax import jit

# %% cell 2
import jax.numpy as jnp

# %% cell 3
def f(x):
  return jnp.log(jnp.sqrt(x))

# %% cell 4
x = jnp.pi

# %% cell 5
print(f(x))

# %% cell 6
print(jit(f)(x))

# %% cell 7
def f(x):
  return jnp.log(jnp.exp(x))

# %% cell 8
x = 100.0

# %% cell 9
print(f(x))

# %% cell 10
print(jit(f)(x))
