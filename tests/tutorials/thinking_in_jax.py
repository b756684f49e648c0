# Code cells of JAX's documentation page docs/notebooks/thinking_in_jax.md
# (github.com/jax-ml/jax, tag jax-v0.10.2), extracted unchanged by
# scripts/jax_tutorials.py as test input for xjit.
# Copyright The JAX Authors. Licensed under the Apache License, Version 2.0:
# http://www.apache.org/licenses/LICENSE-2.0
# Not imported by the test suite; each cell is run as a notebook cell.

# %% cell 0
import jax.numpy as jnp

# %% cell 1
import matplotlib.pyplot as plt

x_jnp = jnp.linspace(0, 10, 1000)
y_jnp = 2 * jnp.sin(x_jnp) * jnp.cos(x_jnp)
plt.plot(x_jnp, y_jnp);

# %% cell 2
import numpy as np
import jax.numpy as jnp

x_np = np.linspace(0, 10, 1000)
x_jnp = jnp.linspace(0, 10, 1000)

# %% cell 3
type(x_np)

# %% cell 4
type(x_jnp)

# %% cell 5
# NumPy: mutable arrays
x = np.arange(10)
x[0] = 10
print(x)

# %% cell 6
%xmode minimal

# %% cell 7
# JAX: immutable arrays
x = jnp.arange(10)
x[0] = 10

# %% cell 8
y = x.at[0].set(10)
print(x)
print(y)

# %% cell 9
import jax
import jax.numpy as jnp

x = jnp.arange(5)
isinstance(x, jax.Array)

# %% cell 10
x.devices()

# %% cell 11
x.sharding

# %% cell 12
import jax.numpy as jnp

def norm(X):
  X = X - X.mean(0)
  return X / X.std(0)

# %% cell 13
from jax import jit
norm_compiled = jit(norm)

# %% cell 14
np.random.seed(1701)
X = jnp.array(np.random.rand(10000, 10))
np.allclose(norm(X), norm_compiled(X), atol=1E-6)

# %% cell 15
%timeit norm(X).block_until_ready()
%timeit norm_compiled(X).block_until_ready()

# %% cell 16
def get_negatives(x):
  return x[x < 0]

x = jnp.array(np.random.randn(10))
get_negatives(x)

# %% cell 17
jit(get_negatives)(x)

# %% cell 18
from jax import grad

def sum_logistic(x):
  return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))

x_small = jnp.arange(3.)
derivative_fn = grad(sum_logistic)
print(derivative_fn(x_small))

# %% cell 19
def first_finite_differences(f, x, eps=1E-3):
  return jnp.array([(f(x + eps * v) - f(x - eps * v)) / (2 * eps)
                   for v in jnp.eye(len(x))])

print(first_finite_differences(sum_logistic, x_small))

# %% cell 20
print(grad(jit(grad(jit(grad(sum_logistic)))))(1.0))

# %% cell 21
from jax import jacobian
print(jacobian(jnp.exp)(x_small))

# %% cell 22
from jax import jacfwd, jacrev
def hessian(fun):
  return jit(jacfwd(jacrev(fun)))
print(hessian(sum_logistic)(x_small))

# %% cell 23
from jax import random

key = random.key(1701)
key1, key2 = random.split(key)
mat = random.normal(key1, (150, 100))
batched_x = random.normal(key2, (10, 100))

def apply_matrix(x):
  return jnp.dot(mat, x)

# %% cell 24
def naively_batched_apply_matrix(v_batched):
  return jnp.stack([apply_matrix(v) for v in v_batched])

print('Naively batched')
%timeit naively_batched_apply_matrix(batched_x).block_until_ready()

# %% cell 25
import numpy as np

@jit
def batched_apply_matrix(batched_x):
  return jnp.dot(batched_x, mat.T)

np.testing.assert_allclose(naively_batched_apply_matrix(batched_x),
                           batched_apply_matrix(batched_x), atol=1E-4, rtol=1E-4)
print('Manually batched')
%timeit batched_apply_matrix(batched_x).block_until_ready()

# %% cell 26
from jax import vmap

@jit
def vmap_batched_apply_matrix(batched_x):
  return vmap(apply_matrix)(batched_x)

np.testing.assert_allclose(naively_batched_apply_matrix(batched_x),
                           vmap_batched_apply_matrix(batched_x), atol=1E-4, rtol=1E-4)
print('Auto-vectorized with vmap')
%timeit vmap_batched_apply_matrix(batched_x).block_until_ready()

# %% cell 27
from jax import random

key = random.key(43)
print(key)

# %% cell 28
print(random.normal(key))
print(random.normal(key))

# %% cell 29
for i in range(3):
  new_key, subkey = random.split(key)
  del key  # The old key is consumed by split() -- we must never use it again.

  val = random.normal(subkey)
  del subkey  # The subkey is consumed by normal().

  print(f"draw {i}: {val}")
  key = new_key  # new_key is safe to use in the next iteration.

# %% cell 30
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
  print("print(x) ->", x)
  y = jnp.sin(x)
  print("print(y) ->", y)
  return y

result = f(2.)

# %% cell 31
@jax.jit
def f(x):
  jax.debug.print("jax.debug.print(x) -> {x}", x=x)
  y = jnp.sin(x)
  jax.debug.print("jax.debug.print(y) -> {y}", y=y)
  return y

result = f(2.)
