"""Steady-state step times on a GPU, one library per process (xjit and a
machine's own JAX cannot share one process's CUDA plugin):

    python3 bench/gpu_step.py xjit ; python3 bench/gpu_step.py jax

Rows: a tiny jitted function (dispatch), an MLP train step (value_and_grad and
an SGD update of 4 layers, batch 256), and a 4096^3 bf16 matmul (the device).
Medians of 200 timed calls after warm-up, each call waited for."""
import statistics
import sys
import time

import numpy as np


def main(lib):
    if lib == "xjit":
        import xjit as jax
        import xjit.numpy as jnp
    else:
        import jax
        import jax.numpy as jnp
    r = np.random.RandomState(0)
    params = [(jnp.asarray(r.randn(n, m).astype(np.float32) / np.sqrt(n)), jnp.zeros(m))
              for n, m in [(784, 1024), (1024, 1024), (1024, 1024), (1024, 10)]]
    x = jnp.asarray(r.randn(256, 784).astype(np.float32))
    y = jnp.asarray(np.eye(10, dtype=np.float32)[r.randint(0, 10, 256)])

    def loss(p, x, y):
        for w, b in p[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = p[-1]
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(x @ w + b) * y, -1))

    @jax.jit
    def step(p, x, y):
        l, g = jax.value_and_grad(loss)(p, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), l

    tiny = jax.jit(lambda a: a + 1)
    a = jnp.ones(())
    big = jnp.ones((4096, 4096), jnp.bfloat16)
    mm = jax.jit(lambda m: m @ m)

    def timed(fn, n=200):
        for _ in range(20):
            out = fn()
        jax.block_until_ready(out)
        ts = []
        for _ in range(n):
            t = time.perf_counter()
            jax.block_until_ready(fn())
            ts.append(time.perf_counter() - t)
        return statistics.median(ts) * 1e6

    state = [params]

    def train():
        state[0], l = step(state[0], x, y)
        return l
    rows = {"tiny jit dispatch": timed(lambda: tiny(a)), "MLP train step": timed(train),
            "bf16 matmul 4096^3": timed(lambda: mm(big), 50)}
    for k, v in rows.items():
        print(f"{lib:5s} {k:22s} {v:9.1f} us")


if __name__ == "__main__":
    main(sys.argv[1])
