"""``jax.nn.log_softmax(x, where=mask)``, as optax's masked cross-entropy uses
it: masked-out entries are -inf and get no gradient, so the gradient over the
kept entries is that of the smaller softmax. Values are JAX 0.10.2's."""
import numpy as np

import xjit as jax
import xjit.numpy as jnp

X = jnp.array([1.0, 5.0, 2.0])
MASK = jnp.array([True, False, True])


def test_masked_log_softmax_value_and_gradient():
    np.testing.assert_allclose(jax.nn.log_softmax(X, where=MASK),
                               [-1.3132616, -np.inf, -0.31326163], rtol=1e-6)
    grad = jax.grad(lambda x: jnp.sum(jax.nn.log_softmax(x, where=MASK)))(X)
    np.testing.assert_allclose(grad, [0.46211714, 0.0, -0.4621172], rtol=1e-6)
    batched = jax.jit(jax.vmap(jax.grad(
        lambda x, m: jnp.sum(jnp.where(m, jax.nn.log_softmax(x, where=m), 0.0)))))(
        X[None], MASK[None])
    np.testing.assert_allclose(batched, [[0.46211714, 0.0, -0.4621172]], rtol=1e-6)
