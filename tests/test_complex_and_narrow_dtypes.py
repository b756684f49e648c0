"""Complex, boolean and narrow dtypes against stored JAX 0.10.2 behaviour
(tests/differential/cases_complex_and_narrow_dtypes.py): complex ordering,
iota's dtype checks, ml_dtypes narrow types, complex QR and sort_complex;
and the same against NumPy."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

from util import differential_cases, differential_tests

CASES = differential_cases("complex_and_narrow_dtypes")

test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "complex_and_narrow_dtypes", CASES, every=12)


def test_complex_qr_reconstructs_and_is_unitary():
    rng = np.random.RandomState(0)
    for dt in (np.complex64,):
        a = (rng.randn(5, 3) + 1j * rng.randn(5, 3)).astype(dt)
        q, r = jnp.linalg.qr(jnp.asarray(a))
        q, r = np.asarray(q), np.asarray(r)
        np.testing.assert_allclose(q @ r, a, atol=1e-5)
        np.testing.assert_allclose(q.conj().T @ q, np.eye(3), atol=1e-5)
        assert np.allclose(np.tril(r, -1), 0)


def test_complex_ordering_is_lexicographic():
    a = np.array([1 + 1j, 2, 1 + 3j, 2 - 1j], np.complex64)
    b = np.array([1 + 2j, 1, 1 + 3j, 2 + 1j], np.complex64)
    np.testing.assert_array_equal(np.asarray(jnp.less(a, b)), np.less(a, b))
    np.testing.assert_array_equal(np.asarray(jnp.greater_equal(a, b)), np.greater_equal(a, b))
    np.testing.assert_array_equal(np.asarray(jnp.maximum(a, b)), np.maximum(a, b))
    np.testing.assert_array_equal(np.asarray(lax.min(jnp.asarray(a), jnp.asarray(b))), np.minimum(a, b))
    with pytest.raises(TypeError, match="lt does not accept dtype complex64"):
        lax.lt(jnp.asarray(a), jnp.asarray(b))


def test_sort_complex_matches_numpy_on_last_axis():
    x = np.array([[3 + 1j, 1, 3 - 1j], [2, 0, -1j]], np.complex64)
    np.testing.assert_array_equal(np.asarray(jnp.sort_complex(jnp.asarray(x))), np.sort_complex(x))


def test_unsigned_narrow_ints_compare_unsigned():
    x = jnp.array([0, 1, 3], jnp.uint2)
    np.testing.assert_array_equal(np.asarray(x > 1), [False, False, True])
    np.testing.assert_array_equal(np.asarray(jnp.argmax(jnp.array([1, 15, 3], jnp.uint4))), 1)


def test_iota_bool_never_reaches_xla():
    with pytest.raises(TypeError, match="iota does not accept dtype bool"):
        jax.jit(lambda: lax.iota(bool, 4))()
