# Code cells of JAX's documentation page docs/transfer_guard.rst
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
jax.config.update("jax_transfer_guard", "allow")  # This is default.

# %% cell 2
x = jnp.array(1)

# %% cell 3
y = jnp.array(2)

# %% cell 4
z = jnp.array(3)

# %% cell 5
print("x", x)  # All transfers are allowed.

# %% cell 6
with jax.transfer_guard("disallow"):
  print("x", x)  # x has already been fetched into the host.
  print("y", jax.device_get(y))  # Explicit transfers are allowed.
  try:
    print("z", z)  # Implicit transfers are disallowed.
    assert False, "This line is expected to be unreachable."
  except:
    print("z could not be fetched")  # doctest: +SKIP
