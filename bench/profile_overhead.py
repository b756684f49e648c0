"""What the source locations on every lowered op cost, and what profiling
costs when it is off and when it is on (issue 18).

1. Lowering and compiling with locations (``loc("jit(f)/prim#n"("fn"("file":
   line:0)))`` on each op, what the engine does) against the same without
   them (``mlir.eqn_loc`` stubbed to ``""``): the 1000-step loop of
   ``vs_jax.py`` (lowering only; a 200-step one for compiling, as XLA takes
   seconds on 1000 steps) and an MLP train step (a new function each sample,
   so no cache applies), also with ``named_scope``s (in every op name).
   Samples alternate between the two, so load on the machine hits both alike;
   ``eqn_loc``'s own time per equation is timed apart (the best of 5).
2. A jitted call (tiny, and the MLP step) with no profiler session, and the
   same call inside one; ``TraceAnnotation`` entered with nothing tracing.

    .venv/bin/python bench/profile_overhead.py [--samples 15]
"""
from __future__ import annotations

import argparse
import contextlib
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
try:
    import xjit  # noqa: F401
except ImportError:  # a checkout without the editable install
    sys.path.insert(0, str(ROOT / "core"))

import numpy as np  # noqa: E402

import xjit as jax  # noqa: E402
import xjit.numpy as jnp  # noqa: E402
from xjit import profiler  # noqa: E402
from xjit._src import dispatch  # noqa: E402
from xjit._src.profiler import collect_xspace  # noqa: E402
from xjit._src.interpreters import mlir  # noqa: E402


def _loop_fn(steps=1000):
    def loop(x):
        for _ in range(steps):
            x = jnp.sin(x) * 0.5 + x
        return x
    return loop


def _mlp_step(scopes=False):
    def loss(params, x, y):
        with jax.named_scope("hidden") if scopes else contextlib.nullcontext():
            h = jnp.tanh(x @ params["w1"])
        with jax.named_scope("head") if scopes else contextlib.nullcontext():
            return jnp.mean((h @ params["w2"] - y) ** 2)

    def step(params, x, y):
        grads = jax.grad(loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    return step


def _mlp_args():
    rng = np.random.RandomState(0)
    params = {"w1": jnp.asarray(rng.randn(128, 256).astype(np.float32)),
              "w2": jnp.asarray(rng.randn(256, 64).astype(np.float32))}
    x = jnp.asarray(rng.randn(64, 128).astype(np.float32))
    y = jnp.asarray(rng.randn(64, 64).astype(np.float32))
    return params, x, y


class _NoLocations:
    """Lowering as it was before issue 18: no location on any op."""

    def __enter__(self):
        self.saved = mlir.eqn_loc
        mlir.eqn_loc = lambda module_ctx, eqn: ""

    def __exit__(self, *exc):
        mlir.eqn_loc = self.saved


def _lower_time(make_fn, args):
    traced = jax.jit(make_fn()).trace(*args)
    t0 = time.perf_counter()
    lowered = traced.lower()
    return time.perf_counter() - t0, lowered._entry.text


def _compile_time(text):
    t0 = time.perf_counter()
    dispatch.compile_text(text)
    return time.perf_counter() - t0


def _paired(samples, run):
    """Medians of ``run(with_locations)``, the two alternating."""
    on, off = [], []
    for i in range(samples):
        for with_loc in ((True, False) if i % 2 else (False, True)):
            if with_loc:
                on.append(run())
            else:
                with _NoLocations():
                    off.append(run())
    return statistics.median(on), statistics.median(off)


def _per_call(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def _fmt(s):
    return f"{s * 1e3:8.3f} ms" if s >= 1e-3 else f"{s * 1e6:8.2f} us"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=15)
    n = ap.parse_args().samples
    rows = []
    x = jnp.arange(8.0) * 0.1
    step_args = _mlp_args()
    rows.append(("lower 1000-step loop", *_paired(n, lambda: _lower_time(_loop_fn, (x,))[0])))
    rows.append(("compile 200-step loop", *_paired(max(3, n // 3), lambda: _compile_time(
        _lower_time(lambda: _loop_fn(200), (x,))[1]))))
    rows.append(("lower MLP train step",
                 *_paired(n, lambda: _lower_time(_mlp_step, step_args)[0])))
    rows.append(("lower MLP step, named_scopes",
                 *_paired(n, lambda: _lower_time(lambda: _mlp_step(True), step_args)[0])))
    rows.append(("compile MLP train step", *_paired(max(3, n // 3), lambda: _compile_time(
        _lower_time(_mlp_step, step_args)[1]))))
    print(f"{'locations on every op':34s} {'with':>11s} {'without':>11s}  ratio")
    for name, a, b in rows:
        print(f"{name:34s} {_fmt(a)} {_fmt(b)}  {a / b:5.2f}")
    eqns = jax.make_jaxpr(_mlp_step(True))(*step_args).jaxpr.eqns
    module_ctx = mlir.ModuleContext()
    per_eqn = min(_per_call(lambda: [mlir.eqn_loc(module_ctx, e) for e in eqns], 200)
                  for _ in range(5)) / len(eqns)
    print(f"{'mlir.eqn_loc (scoped MLP step)':34s} {_fmt(per_eqn)} per equation, the lowering's "
          "own cost (the rest is a longer text)")

    tiny = jax.jit(lambda v: v + 1.0)
    jstep = jax.jit(_mlp_step())
    calls = [("jit dispatch (tiny fn)", lambda: tiny(x).block_until_ready(), 2000),
             ("jit MLP train step", lambda: jax.block_until_ready(jstep(*step_args)), 200)]
    print(f"\n{'profiling':34s} {'off':>11s} {'on':>11s}  ratio")
    for name, fn, reps in calls:
        fn()
        off = statistics.median(_per_call(fn, reps) for _ in range(5))
        on_samples = []
        for _ in range(5):
            collect_xspace(lambda: on_samples.append(_per_call(fn, reps)))
        on = statistics.median(on_samples)
        print(f"{name:34s} {_fmt(off)} {_fmt(on)}  {on / off:5.2f}")

    def annotated():
        with profiler.TraceAnnotation("step"):
            pass
    base = statistics.median(_per_call(lambda: None, 100000) for _ in range(5))
    ann = statistics.median(_per_call(annotated, 100000) for _ in range(5))
    print(f"{'TraceAnnotation, nothing tracing':34s} {_fmt(ann - base)} per block")


if __name__ == "__main__":
    main()
