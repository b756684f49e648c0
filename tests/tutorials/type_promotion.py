# Code cells of JAX's documentation page docs/type_promotion.rst
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
x = jnp.arange(5, dtype='int8')

# %% cell 2
2 * x

# %% cell 3
jnp.int32(2) * x

# %% cell 4
jnp.asarray(2)

# %% cell 5
jnp.asarray(2, dtype='int32')

# %% cell 6
x = jnp.float32(1)

# %% cell 7
y = jnp.int32(1)

# %% cell 8
with jax.numpy_dtype_promotion('strict'):
  z = x + y  # doctest: +SKIP

# %% cell 9
with jax.numpy_dtype_promotion('strict'):
  z = x + 1

# %% cell 10
print(z)
