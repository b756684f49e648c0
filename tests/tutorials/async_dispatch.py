# Code cells of JAX's documentation page docs/async_dispatch.rst
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
import numpy as np

# %% cell 2
import jax.numpy as jnp

# %% cell 3
from jax import random

# %% cell 4
x = random.uniform(random.key(0), (1000, 1000))

# %% cell 5
jnp.dot(x, x) + 3.  # doctest: +SKIP

# %% cell 6
%time jnp.dot(x, x)  # doctest: +SKIP

# %% cell 7
%time np.asarray(jnp.dot(x, x))  # doctest: +SKIP

# %% cell 8
%time jnp.dot(x, x).block_until_ready()  # doctest: +SKIP
