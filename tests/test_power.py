"""lax.pow with integer exponents and jnp.power's choice of primitive, against
stored JAX 0.10.2 behaviour (tests/differential/cases_power.py) and NumPy."""
import numpy as np

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

from util import differential_cases, differential_tests

CASES = differential_cases("power")

KNOWN = {
    "jaxpr-power-np-array": "xjit converts a NumPy exponent on the host, so the unused promoted "
                            "copy JAX stages (a dead convert_element_type) is not printed",
}


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "power", CASES, KNOWN, every=8)


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
