"""Host arrays reaching the device. On CPU, jaxlib may keep using a NumPy
array's own memory (zero-copy) when it is suitably aligned: xjit's
``jnp.array``/``jnp.asarray`` did, so writing to the NumPy array afterwards
changed the device array (about one array in three), and a later donation of
that array could not reuse its memory (equinox's test_buffer_donation_function).
JAX copies there; ``device_put`` may alias in both, as JAX documents."""
from __future__ import annotations

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp


@pytest.mark.parametrize("make", [jnp.array, jnp.asarray, lambda a: jnp.asarray(a, np.float32)])
def test_later_writes_to_the_numpy_array_do_not_reach_the_device_array(make):
    for n in range(64, 96):  # several sizes: some land on zero-copy alignment
        a = np.zeros(n, np.float32)
        x = make(a)
        a[0] = 5
        assert float(x[0]) == 0.0, n


@pytest.mark.parametrize("make", ["python", "numpy", "array"])
def test_donation_reuses_a_transferred_array(make):
    f = jax.jit(lambda x: x + 1, donate_argnums=0)
    for v in range(6):
        x = {"python": lambda: jnp.array(float(v)),
             "numpy": lambda: jnp.asarray(np.full(64, v, np.float32)),
             "array": lambda: jnp.array(np.full((4, 16), v, np.float32))}[make]()
        x.block_until_ready()
        before = x.unsafe_buffer_pointer()
        y = f(x)
        assert x.is_deleted()
        assert y.unsafe_buffer_pointer() == before
        np.testing.assert_array_equal(y, np.asarray(v + 1.0, np.float32) + np.zeros(x.shape))
