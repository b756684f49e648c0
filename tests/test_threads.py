"""The engine under threads, as JAX is: one thread tracing must not turn
another's eager operations into tracers, and the process has one client."""
import threading

import numpy as np

import xjit as jax
import xjit.numpy as jnp


def _run(workers):
    errors, wrong = [], []
    threads = [threading.Thread(target=w, args=(k, errors, wrong)) for k, w in enumerate(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors, wrong


def _mixed(k, errors, wrong):
    for i in range(6):
        try:
            f = jax.jit(lambda x, i=i: jnp.sin(x) * i + k)
            y = np.asarray(f(jnp.arange(4.0)))
            if not np.allclose(y, np.sin(np.arange(4.0)) * i + k, rtol=1e-6):
                wrong.append(("jit", k, i))
            g = jax.grad(lambda x: jnp.sum(jnp.tanh(x) * k))(jnp.ones(3))
            if not np.allclose(np.asarray(g), k * (1 - np.tanh(1.0) ** 2), rtol=1e-5):
                wrong.append(("grad", k, i))
            v = jax.vmap(lambda x: x * i)(jnp.arange(3.0))
            if not np.allclose(np.asarray(v), np.arange(3.0) * i):
                wrong.append(("vmap", k, i))
            e = jnp.ones(3, jnp.float32) * k + i
            if not np.allclose(np.asarray(e), k + i):
                wrong.append(("eager", k, i))
        except Exception as e:  # noqa: BLE001 - collected and asserted below
            errors.append(repr(e)[:300])


def test_jit_grad_vmap_and_eager_from_eight_threads():
    errors, wrong = _run([_mixed] * 8)
    assert errors == [] and wrong == []


def test_tracing_thread_leaves_eager_thread_alone():
    def tracer(k, errors, wrong):
        for i in range(15):
            try:
                jax.make_jaxpr(lambda x, i=i: jnp.cos(x) + i)(1.0)
                jax.jit(lambda x, i=i: x * i)(jnp.ones(2)).block_until_ready()
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e)[:300])

    def eager(k, errors, wrong):
        for i in range(200):
            try:
                y = jnp.ones(3, jnp.float32) + jnp.float32(i)
                if type(y) is not jax.Array and not isinstance(y, jax.Array):
                    wrong.append(type(y))
                elif not np.allclose(np.asarray(y), 1 + i):
                    wrong.append(i)
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e)[:300])

    errors, wrong = _run([tracer, eager])
    assert errors == [] and wrong == []
    np.testing.assert_allclose(np.asarray(jnp.ones(3) + 1), [2.0, 2.0, 2.0])


def test_new_thread_starts_at_the_eager_trace():
    out = []

    @jax.jit
    def f(x):
        t = threading.Thread(target=lambda: out.append(jnp.sin(jnp.float32(1.0))))
        t.start()
        t.join()
        return x + 1

    f(1.0)
    assert isinstance(out[0], jax.Array)
    np.testing.assert_allclose(np.asarray(out[0]), np.sin(np.float32(1.0)), rtol=1e-6)
