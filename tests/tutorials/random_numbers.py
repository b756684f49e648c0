# Code cells of JAX's documentation page docs/random-numbers.md
# (github.com/jax-ml/jax, tag jax-v0.10.2), extracted unchanged by
# scripts/jax_tutorials.py as test input for xjit.
# Copyright The JAX Authors. Licensed under the Apache License, Version 2.0:
# http://www.apache.org/licenses/LICENSE-2.0
# Not imported by the test suite; each cell is run as a notebook cell.

# %% cell 0
import numpy as np
np.random.seed(0)

# %% cell 1
print(np.random.random())
print(np.random.random())
print(np.random.random())

# %% cell 2
def print_truncated_random_state():
  """To avoid spamming the outputs, print only part of the state."""
  full_random_state = np.random.get_state()
  print(str(full_random_state)[:460], '...')

print_truncated_random_state()

# %% cell 3
np.random.seed(0)
print_truncated_random_state()

# %% cell 4
_ = np.random.uniform()
print_truncated_random_state()

# %% cell 5
np.random.seed(0)
print(np.random.uniform(size=3))

# %% cell 6
np.random.seed(0)
print("individually:", np.stack([np.random.uniform() for _ in range(3)]))

np.random.seed(0)
print("all at once: ", np.random.uniform(size=3))

# %% cell 7
import numpy as np

np.random.seed(0)

def bar(): return np.random.uniform()
def baz(): return np.random.uniform()

def foo(): return bar() + 2 * baz()

print(foo())

# %% cell 8
from jax import random

key = random.key(42)
print(key)

# %% cell 9
print(random.normal(key))
print(random.normal(key))

# %% cell 10
for i in range(3):
  new_key, subkey = random.split(key)
  del key  # The old key is consumed by split() -- we must never use it again.

  val = random.normal(subkey)
  del subkey  # The subkey is consumed by normal().

  print(f"draw {i}: {val}")
  key = new_key  # new_key is safe to use in the next iteration.

# %% cell 11
key, subkey = random.split(key)

# %% cell 12
key, *forty_two_subkeys = random.split(key, num=43)

# %% cell 13
key = random.key(42)
subkeys = random.split(key, 3)
sequence = np.stack([random.normal(subkey) for subkey in subkeys])
print("individually:", sequence)

key = random.key(42)
print("all at once: ", random.normal(key, shape=(3,)))

# %% cell 14
import jax
print("vectorized:", jax.vmap(random.normal)(subkeys))
