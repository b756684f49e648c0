"""Run a battery of user-level programs on a CUDA GPU under xjit and under the
real JAX installed beside it, and compare (used with the `device` tool when a
GPU is lent; ``scripts/gpu_check.sh`` runs it).

    python3 scripts/gpu_check.py run LIB OUT.npz   # LIB: xjit or jax
    python3 scripts/gpu_check.py compare XJIT.npz JAX.npz

Each case returns arrays (or raises: the error's class and message are
recorded). The comparison prints one line per case: equal bits, within
tolerance (GPU kernels for the same program may differ in the last ulp
between XLA versions), different, or an error on one side.
"""
from __future__ import annotations

import io
import sys
import time
import traceback
from contextlib import redirect_stdout

import numpy as np


def cases(jax, jnp):
    lax = jax.lax
    r = np.random.RandomState(0)
    a = r.randn(64, 64).astype(np.float32)
    spd = (a @ a.T + 64 * np.eye(64)).astype(np.float32)
    b = r.randn(64, 8).astype(np.float32)
    v = r.randn(1000).astype(np.float32)

    def printed(fn):
        def run():
            buf = io.StringIO()
            with redirect_stdout(buf):
                out = fn()
                jax.effects_barrier()
            return np.frombuffer("".join(sorted(buf.getvalue().splitlines())).encode(), np.uint8), out
        return run

    def nan_check():
        with jax.debug_nans(True):
            try:
                jax.jit(lambda x: jnp.log(x) * 2)(jnp.array([-1.0, 1.0])).block_until_ready()
            except FloatingPointError as e:
                return np.frombuffer(type(e).__name__.encode(), np.uint8)
        return np.zeros(1)

    def scan_rnn():
        w = jnp.asarray(a[:16, :16] / 8)
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum()
        return lax.scan(step, jnp.zeros(16), jnp.asarray(a[:, :16]))

    def mlp_grad():
        w1, w2 = jnp.asarray(a[:, :32]), jnp.asarray(a[:32, :10])
        x, y = jnp.asarray(a), jnp.asarray(np.eye(10, dtype=np.float32)[np.arange(64) % 10])
        def loss(p):
            h = jax.nn.relu(x @ p[0])
            return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ p[1]) * y, -1))
        return jax.jit(jax.value_and_grad(loss))((w1, w2))

    return {
        "devices": lambda: np.frombuffer(
            f"{jax.default_backend()} {len(jax.devices())} {jax.devices()[0].platform}".encode(), np.uint8),
        "elementwise": lambda: jax.jit(lambda x: jnp.sin(x) ** 2 + jnp.exp(-x * x) / (1 + jnp.abs(x)))(v),
        "reductions": lambda: (jnp.sum(v), jnp.max(v), jnp.argmax(v), jnp.cumsum(v), jnp.sort(v)),
        "matmul_f32": lambda: jnp.asarray(a) @ jnp.asarray(a),
        "matmul_highest": lambda: jnp.matmul(jnp.asarray(a), jnp.asarray(a), precision="highest"),
        "bf16": lambda: (jnp.asarray(a, jnp.bfloat16) @ jnp.asarray(a, jnp.bfloat16)).astype(np.float32),
        "f16": lambda: jnp.tanh(jnp.asarray(v, jnp.float16)).astype(np.float32),
        "int_ops": lambda: (jnp.arange(100) * 7 // 3 % 5, jnp.left_shift(jnp.arange(8, dtype=jnp.uint32), 3)),
        "grad_vmap": lambda: jax.vmap(jax.grad(lambda x: jnp.sum(jnp.tanh(x) ** 3)))(jnp.asarray(a[:8])),
        "mlp_value_and_grad": mlp_grad,
        "scan_rnn": scan_rnn,
        "while_cond": lambda: lax.while_loop(lambda c: c[0] < 50, lambda c: (c[0] + 1, lax.cond(
            c[0] % 2 == 0, lambda y: y * 1.01, lambda y: y - 0.5, c[1])), (0, jnp.asarray(v[:4]))),
        "conv": lambda: lax.conv_general_dilated(jnp.asarray(r.randn(2, 3, 16, 16).astype(np.float32)),
                                                 jnp.asarray(r.randn(4, 3, 3, 3).astype(np.float32)),
                                                 (1, 1), "SAME", precision="highest"),
        "random": lambda: (jax.random.normal(jax.random.key(0), (5,)),
                           jax.random.uniform(jax.random.PRNGKey(1), (5,)),
                           jax.random.randint(jax.random.key(2), (5,), 0, 100)),
        "gather_scatter": lambda: (jnp.asarray(v)[jnp.array([3, 1, 999])],
                                   jnp.zeros(10).at[jnp.array([1, 1, 5])].add(1.0)),
        "cholesky": lambda: jnp.linalg.cholesky(jnp.asarray(spd)),
        "solve": lambda: jnp.linalg.solve(jnp.asarray(spd), jnp.asarray(b)),
        "inv": lambda: jnp.linalg.inv(jnp.asarray(spd)),
        "det": lambda: jnp.linalg.slogdet(jnp.asarray(spd)),
        "eigh": lambda: jnp.linalg.eigh(jnp.asarray(spd))[0],
        "svd": lambda: jnp.linalg.svd(jnp.asarray(a), compute_uv=False),
        "qr_r": lambda: jnp.abs(jnp.linalg.qr(jnp.asarray(a))[1]),
        "lstsq": lambda: jnp.linalg.lstsq(jnp.asarray(a), jnp.asarray(b))[0],
        "triangular_solve": lambda: jax.scipy.linalg.solve_triangular(
            jnp.asarray(np.tril(spd)), jnp.asarray(b), lower=True),
        "debug_print": printed(lambda: jax.jit(lambda x: (jax.debug.print("x={x}", x=x), x + 1)[1])(
            jnp.arange(3.0))),
        "pure_callback": lambda: jax.jit(lambda x: jax.pure_callback(
            lambda t: np.sin(t), jax.ShapeDtypeStruct(x.shape, x.dtype), x))(jnp.asarray(v[:8])),
        "io_callback": printed(lambda: jax.jit(lambda x: jax.experimental.io_callback(
            lambda t: print("io", np.asarray(t).sum()) or np.asarray(t) * 2,
            jax.ShapeDtypeStruct((3,), np.float32), x))(jnp.arange(3.0))),
        "debug_nans": nan_check,
        "x64": lambda: _x64(jax, jnp),
        "donate": lambda: jax.jit(lambda x: x * 2, donate_argnums=0)(jnp.arange(4.0)),
        "cpu_gpu_transfer": lambda: jax.device_put(jax.device_put(jnp.arange(4.0), jax.devices("cpu")[0])
                                                   + 1, jax.devices()[0]) * 3,
        "named_sharding": lambda: np.frombuffer(repr(jax.device_put(jnp.arange(8.0), jax.sharding.NamedSharding(
            jax.make_mesh((1,), ("x",)), jax.sharding.PartitionSpec("x"))).sharding.spec).encode(), np.uint8),
    }


def _x64(jax, jnp):
    with jax.enable_x64(True):
        x = jnp.arange(5, dtype=jnp.float64) / 3
        return jax.jit(lambda t: jnp.exp(t) * 1e-300)(x), np.asarray(x.dtype.itemsize)


def run(lib, out):
    if lib == "xjit":
        import xjit as jax
        import xjit.numpy as jnp
        import xjit.experimental  # noqa: F401
        import xjit.scipy.linalg  # noqa: F401
    else:
        import jax
        import jax.experimental  # noqa: F401
        import jax.numpy as jnp
        import jax.scipy.linalg  # noqa: F401
    results, times = {}, {}
    for name, fn in cases(jax, jnp).items():
        t = time.perf_counter()
        try:
            leaves = [np.asarray(x) for x in jax.tree_util.tree_leaves(fn())]
            for i, x in enumerate(leaves):
                results[f"{name}/{i}"] = x
        except Exception as e:  # recorded, compared with the other side
            msg = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            results[f"{name}/error"] = np.frombuffer(msg.encode(), np.uint8)
            if lib == "xjit":
                traceback.print_exc(limit=-3)
        times[name] = time.perf_counter() - t
    np.savez(out, **results)
    print(lib, "ran", len(times), "cases in %.1f s" % sum(times.values()))


def compare(xjit_file, jax_file):
    x, j = dict(np.load(xjit_file)), dict(np.load(jax_file))
    names = sorted({k.split("/")[0] for k in x} | {k.split("/")[0] for k in j})
    bad = 0
    for n in names:
        xe, je = x.get(f"{n}/error"), j.get(f"{n}/error")
        if xe is not None or je is not None:
            text = lambda e: bytes(e).decode() if e is not None else "ok"  # noqa: E731
            verdict = "both raise" if xe is not None and je is not None and \
                text(xe).split(":")[0] == text(je).split(":")[0] else "DIFFERENT"
            bad += verdict != "both raise"
            print(f"{n:20s} {verdict}: xjit {text(xe)} | jax {text(je)}")
            continue
        keys = sorted(k for k in x if k.startswith(n + "/"))
        if keys != sorted(k for k in j if k.startswith(n + "/")):
            bad += 1
            print(f"{n:20s} DIFFERENT structure")
            continue
        worst, exact = 0.0, True
        for k in keys:
            a, b = x[k], j[k]
            if a.shape != b.shape or a.dtype != b.dtype:
                exact, worst = False, np.inf
                print(f"{n:20s} DIFFERENT {k}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}")
                break
            if not np.array_equal(a, b, equal_nan=True):
                exact = False
                if a.dtype.kind in "fc":
                    err = np.abs(a.astype(np.float64) - b) / (np.abs(b.astype(np.float64)) + 1e-6)
                    worst = max(worst, float(np.nanmax(err)) if err.size else 0.0)
                else:
                    worst = np.inf
        verdict = "equal" if exact else ("close (rel %.1e)" % worst if worst < 1e-4 else
                                         "DIFFERENT (rel %.1e)" % worst)
        bad += verdict.startswith("DIFFERENT")
        print(f"{n:20s} {verdict}")
    print(f"{len(names) - bad}/{len(names)} cases agree")
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit(1 if compare(sys.argv[2], sys.argv[3]) else 0)
