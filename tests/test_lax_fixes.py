"""lax/jnp correctness fixes against stored JAX 0.10.2 behaviour (see
tests/differential/cases_fixa.py): pow with integer exponents, complex
ordering, iota dtypes, narrow ml_dtypes types, slice strides, reshape with
dimensions, complex QR, sort_complex, negative sampler shapes and jnp.power's
primitive; plus direct checks against NumPy."""
import os
import sys

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "differential"))
from cases_fixa import CASES  # noqa: E402
from harness import differential_tests  # noqa: E402


KNOWN = {
    "grad-pow-int-scalar": "xjit's grad gives the cotangent the primal's weak type; JAX "
                           "returns a strong float32 here (values agree)",
    "jaxpr-power-np-array": "xjit converts a NumPy exponent on the host, so the unused promoted "
                            "copy JAX stages (a dead convert_element_type) is not printed",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "fixa", CASES, KNOWN, every=12)


def test_pow_integer_exponent_values_and_dtype():
    x = np.linspace(-2.0, 3.0, 7).astype(np.float16)
    n = np.arange(-3, 4, dtype=np.int16)
    out = lax.pow(jnp.asarray(x), jnp.asarray(n))
    assert out.dtype == np.float16
    np.testing.assert_allclose(np.asarray(out, np.float32),
                               np.power(x.astype(np.float32), n), rtol=2e-3)


def test_pow_integer_exponent_gradient_matches_closed_form():
    x = np.array([0.0, 0.5, 2.0, -1.5], np.float32)
    n = np.array([0, 1, 3, 2], np.int32)
    g = jax.grad(lambda a: lax.pow(a, jnp.asarray(n)).sum())(jnp.asarray(x))
    want = np.where(n == 0, 0.0, n * x ** np.maximum(n - 1, 0))
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)


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
