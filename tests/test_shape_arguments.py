"""Shape arguments against stored JAX 0.10.2 behaviour
(tests/differential/cases_shape_arguments.py): slice strides, lax.reshape with
dimensions, order='F', negative shapes; and reshape against NumPy."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

from util import differential_cases, differential_tests

CASES = differential_cases("shape_arguments")

test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "shape_arguments", CASES, every=8)


@pytest.mark.parametrize("dims", [(0, 2, 1), (2, 1, 0), (1, 0, 2)])
def test_reshape_dimensions_is_transpose_then_reshape(dims):
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    want = np.transpose(x, dims).reshape(6, 4)
    np.testing.assert_array_equal(np.asarray(lax.reshape(jnp.asarray(x), (6, 4), dims)), want)
    batched = jax.vmap(lambda a: lax.reshape(a, (12,), (1, 0)))(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(batched),
                                  np.stack([np.transpose(b).reshape(12) for b in x]))


def test_reshape_dimensions_vjp_is_the_inverse_permutation():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    ct = np.arange(24.0, dtype=np.float32).reshape(4, 6) * 0.5
    _, vjp = jax.vjp(lambda a: lax.reshape(a, (4, 6), (2, 0, 1)), x)
    (g,) = vjp(jnp.asarray(ct))
    np.testing.assert_array_equal(np.asarray(g), np.transpose(ct.reshape(4, 2, 3), (1, 2, 0)))


def test_reshape_order_f_matches_numpy():
    x = np.arange(24).reshape(2, 3, 4)
    for shape in [(6, 4), (4, 3, 2), (24,)]:
        np.testing.assert_array_equal(np.asarray(jnp.reshape(jnp.asarray(x), shape, order="F")),
                                      np.reshape(x, shape, order="F"))
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x).ravel(order="F")), x.ravel(order="F"))
