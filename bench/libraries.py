"""Steady-state training-step time of the JAX libraries on xjit vs on JAX 0.10.2.

optax, flax and equinox import ``jax``, and in one process ``jax`` is either
xjit (through ``xjit.install_as_jax()``) or the real JAX, never both. So each
side runs in its own long-lived worker subprocess, and the parent asks the two
workers for samples in alternation (and alternates which goes first), as
``vs_jax.py`` does in one process: load on the machine hits both alike. A
sample is the mean time of a fixed number of training steps, after warm-up
(trace, compile, caches). Each row reports the median over rounds of the paired
ratio xjit/JAX (< 1: xjit is faster) and the spread of those ratios.

    .venv/bin/python bench/libraries.py [--rounds N] [--budget S] [-k SUBSTRING] [--json] [--cpu-time] [--executables]

``--executables`` also times, paired the same way, each side's compiled
executables of one step run bare (jaxlib's execute, result handlers, one
wait): it tells a slower step whose compiled code is slower from one whose
dispatch is.

``bench/vs_jax.py`` prints these rows after its own (``--no-libraries`` skips them).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = 1.0  # issue 14: every library row at or under JAX's step time
MIN_STEPS = 5  # per sample, whatever the calibration says


# --------------------------------------------------------------------------
# Workloads, run inside a worker where ``import jax`` is one side or the other.
# Each returns a thunk that runs one training step and waits for its outputs.


def _data(shape_x, shape_y, seed=0):
    r = np.random.RandomState(seed)
    return r.randn(*shape_x).astype("float32"), r.randn(*shape_y).astype("float32")


def optax_adam_mlp():
    """optax: clip_by_global_norm + Adam with a schedule on a 4-32-32-2 MLP, batch 128."""
    import jax
    import jax.numpy as jnp
    import optax

    x, y = map(jnp.asarray, _data((128, 4), (128, 2)))
    r = np.random.RandomState(1)
    params = [{"w": jnp.asarray(r.randn(a, b).astype("float32") * 0.3),
               "b": jnp.zeros(b, "float32")} for a, b in [(4, 32), (32, 32), (32, 2)]]

    def loss_fn(params, x, y):
        for layer in params[:-1]:
            x = jax.nn.gelu(x @ layer["w"] + layer["b"])
        return jnp.mean(optax.losses.squared_error(x @ params[-1]["w"] + params[-1]["b"], y))

    tx = optax.chain(optax.clip_by_global_norm(1.0),
                     optax.adam(optax.warmup_cosine_decay_schedule(0.0, 1e-2, 20, 10_000)))

    @jax.jit
    def step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    state = [params, tx.init(params)]

    def run():
        state[0], state[1], loss = step(state[0], state[1], x, y)
        jax.block_until_ready((state, loss))
    return run


def flax_linen_cnn():
    """flax.linen: a two-conv CNN trained with TrainState (adamw), batch 32 of 12x12."""
    import jax
    import optax
    import flax.linen as nn
    from flax.training import train_state

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Conv(features=8, kernel_size=(3, 3))(x))
            x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
            x = nn.relu(nn.Conv(features=16, kernel_size=(3, 3), padding="VALID")(x))
            x = nn.swish(nn.LayerNorm()(nn.Dense(32)(x.reshape((x.shape[0], -1)))))
            return nn.Dense(4)(x)

    images, _ = _data((32, 12, 12, 1), (1,))
    images = jax.numpy.asarray(images)
    labels = jax.numpy.asarray(np.random.RandomState(2).randint(0, 4, 32).astype("int32"))
    model = CNN()
    params = model.init(jax.random.PRNGKey(0), images[:1])["params"]
    state = [train_state.TrainState.create(apply_fn=model.apply, params=params,
                                           tx=optax.adamw(3e-3, weight_decay=1e-4))]

    @jax.jit
    def step(state, images, labels):
        def loss_fn(params):
            logits = state.apply_fn({"params": params}, images)
            return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
        loss, grads = jax.value_and_grad(loss_fn)(state.params)
        return state.apply_gradients(grads=grads), loss

    def run():
        state[0], loss = step(state[0], images, labels)
        jax.block_until_ready((state[0], loss))
    return run


def flax_nnx_mlp():
    """flax.nnx: Linear-BatchNorm-Dropout-Linear module, nnx.Optimizer (adam), nnx.jit."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    class MLP(nnx.Module):
        def __init__(self, rngs):
            self.linear1 = nnx.Linear(6, 24, rngs=rngs)
            self.bn = nnx.BatchNorm(24, rngs=rngs)
            self.dropout = nnx.Dropout(0.1, rngs=rngs)
            self.linear2 = nnx.Linear(24, 3, rngs=rngs)

        def __call__(self, x):
            return self.linear2(nnx.relu(self.dropout(self.bn(self.linear1(x)))))

    x, y = map(jnp.asarray, _data((64, 6), (64, 3)))
    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(5e-3), wrt=nnx.Param)

    @nnx.jit
    def step(model, optimizer, x, y):
        loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
        optimizer.update(model, grads)
        return loss

    def run():
        jax.block_until_ready(step(model, optimizer, x, y))
    return run


def equinox_mlp():
    """equinox: eqx.nn.MLP (3-16-16-1, softplus) with filter_jit, filter_value_and_grad, adam."""
    import jax
    import jax.numpy as jnp
    import equinox as eqx
    import optax

    x, y = map(jnp.asarray, _data((96, 3), (96, 1)))
    model = eqx.nn.MLP(in_size=3, out_size=1, width_size=16, depth=2,
                       activation=jax.nn.softplus, key=jax.random.PRNGKey(3))
    optim = optax.adam(1e-2)

    @eqx.filter_value_and_grad
    def loss_fn(model, x, y):
        return jnp.mean((jax.vmap(model)(x) - y) ** 2)

    @eqx.filter_jit
    def step(model, opt_state, x, y):
        loss, grads = loss_fn(model, x, y)
        updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
        return eqx.apply_updates(model, updates), opt_state, loss

    state = [model, optim.init(eqx.filter(model, eqx.is_array))]

    def run():
        state[0], state[1], loss = step(state[0], state[1], x, y)
        jax.block_until_ready(loss)
    return run


WORKLOADS = [
    ("optax Adam MLP train step", optax_adam_mlp),
    ("flax.linen CNN TrainState step", flax_linen_cnn),
    ("flax.nnx Optimizer nnx.jit step", flax_nnx_mlp),
    ("equinox MLP filter_jit step", equinox_mlp),
]
_BY_NAME = {name: build for name, build in WORKLOADS}


def _capture_executions(side, thunk):
    """The executable runs of one step of ``thunk``, as (execute, buffers,
    handlers) triples, read from each side's internals (a bench-only hook)."""
    calls = []
    if side == "xjit":
        import gc
        from xjit._src import pjit
        entries = [e for e in gc.get_objects()  # jits of any callable, cached per function or not
                   if type(e) is pjit.TraceEntry and e.executable is not None]
        for e in entries:
            e.execute = (lambda bufs, real=e.executable.exe.execute_sharded, e=e:
                         calls.append((real, list(bufs), e.handlers)) or real(bufs))
        try:
            thunk()
        finally:
            for e in entries:
                e.execute = e.executable.exe.execute_sharded
    else:
        import jax
        from jax._src.interpreters import pxla
        original = pxla.ExecuteReplicated.__call__

        def recording(self, *args):
            kept = [x for i, x in enumerate(args) if i in self.kept_var_idx]
            calls.append((self.xla_executable.execute_sharded, self.in_handler(kept),
                          self.out_handler.handlers))
            return original(self, *args)
        pxla.ExecuteReplicated.__call__ = recording
        jax.clear_caches()  # the next step misses JAX's C++ cache and runs through Python
        try:
            thunk()
        finally:
            pxla.ExecuteReplicated.__call__ = original
        for _ in range(5):  # compile and warm the C++ path again
            thunk()
    if not calls:
        raise RuntimeError("no executable ran in a step")
    from jaxlib import _jax
    wait = _jax.batched_block_until_ready

    def bare():
        for execute, bufs, handlers in calls:
            wait([x for x in execute(bufs).consume_with_handlers(handlers)
                  if type(x) is _jax.ArrayImpl])  # JAX's handlers may also give refs
    for _ in range(5):
        bare()
    return bare


# --------------------------------------------------------------------------
# Worker: one side, commands on stdin, one JSON reply per line on stdout.


def _worker(side):
    reply_to = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # library chatter must not break the protocol
    if side == "xjit":
        try:
            import xjit
        except ImportError:
            sys.path.insert(0, os.path.join(ROOT, "core"))
            import xjit
        xjit.install_as_jax()
    thunks = {}
    for line in sys.stdin:
        cmd, name, *arg = json.loads(line)
        try:
            if cmd == "build":
                thunks[name] = _BY_NAME[name]()
                for _ in range(5):  # trace, compile, fill caches
                    thunks[name]()
                out = {"ok": True}
            elif cmd == "capture":  # the step's executables alone, as workload ``name!``
                thunks[name + "!"] = _capture_executions(side, thunks[name])
                out = {"ok": True}
            elif cmd == "calibrate":  # steps per sample of about ``budget`` seconds
                n, budget = 1, arg[0]
                while True:
                    t = _sample(thunks[name], n)[0]
                    if t * n >= budget / 4 or n >= 1 << 14:
                        break
                    n *= 4
                # The quietest of a few tries: a load spike must not shrink samples to a step.
                t = min([t] + [_sample(thunks[name], n)[0] for _ in range(3)])
                out = {"n": max(MIN_STEPS, int(budget / max(t, 1e-9)))}
            elif cmd == "sample":
                out = dict(zip(("s", "cpu"), _sample(thunks[name], arg[0])))
            else:
                out = {"error": f"unknown command {cmd!r}"}
        except Exception as e:  # reported by the parent as this row's failure
            out = {"error": f"{type(e).__name__}: {e}"}
        reply_to.write(json.dumps(out) + "\n")


def _sample(thunk, n):
    """Wall-clock and process CPU seconds per step (CPU time, all threads, is
    far less sensitive than wall time to other processes on a loaded machine)."""
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        thunk()
    return (time.perf_counter() - t0) / n, (time.process_time() - c0) / n


# --------------------------------------------------------------------------
# Parent


class _Worker:
    def __init__(self, side):
        self.side = side
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", side],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, cwd=ROOT)

    def ask(self, *cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.side} worker exited (code {self.proc.wait()})")
        out = json.loads(line)
        if "error" in out:
            raise RuntimeError(f"{self.side}: {out['error']}")
        return out

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _paired(xjit, jax):
    """Median and quartiles of the per-round ratios xjit/JAX."""
    ratios = np.asarray(xjit) / np.asarray(jax)
    return tuple(float(q) for q in np.quantile(ratios, (0.5, 0.25, 0.75)))


def measure(k="", rounds=41, budget_s=0.05, cpu_time=False, executables=False):
    """Rows in ``vs_jax.py``'s format for the workloads whose name contains ``k``.

    The row's times and ``ratio`` read wall-clock time, or process CPU time
    with ``cpu_time``; the note gives the other clock's paired ratio too.
    With ``executables`` each row also has ``exec_ratio``: the paired ratio
    of the two sides' compiled executables run bare, on the same clock.
    """
    chosen = [name for name, _ in WORKLOADS if k.lower() in name.lower()]
    if not chosen:
        return []
    workers = {side: _Worker(side) for side in ("xjit", "jax")}
    clocks = ("cpu", "s") if cpu_time else ("s", "cpu")
    rows = []
    try:
        for name in chosen:
            row = dict(name=name, target=TARGET)
            try:
                for w in workers.values():
                    w.ask("build", name)
                n = min(w.ask("calibrate", name, budget_s)["n"] for w in workers.values())
                samples = {side: [] for side in workers}
                bare = {side: [] for side in workers}
                order = list(workers)
                if executables:
                    for w in workers.values():
                        w.ask("capture", name)
                for i in range(rounds):
                    for side in (order if i % 2 == 0 else order[::-1]):
                        samples[side].append(workers[side].ask("sample", name, n))
                        if executables:
                            bare[side].append(workers[side].ask("sample", name + "!", n))
            except RuntimeError as e:
                row.update(available=False, note=f"FAILED: {e}")
                rows.append(row)
                continue
            t = {side: [x[clocks[0]] for x in v] for side, v in samples.items()}
            ratio, q25, q75 = _paired(t["xjit"], t["jax"])
            other, o25, o75 = _paired(*([x[clocks[1]] for x in samples[side]]
                                        for side in ("xjit", "jax")))
            row.update(
                available=True, steps_per_sample=n, rounds=rounds,
                clock="cpu" if cpu_time else "wall",
                xjit_median_s=statistics.median(t["xjit"]),
                jax_median_s=statistics.median(t["jax"]),
                xjit_min_s=min(t["xjit"]), jax_min_s=min(t["jax"]),
                ratio=ratio, ratio_q25=q25, ratio_q75=q75,
                ratio_of_mins=min(t["xjit"]) / min(t["jax"]),
                other_clock_ratio=other, other_clock_q25=o25, other_clock_q75=o75)
            if executables:
                row["exec_ratio"] = _paired(*([x[clocks[0]] for x in bare[side]]
                                              for side in ("xjit", "jax")))[0]
                row["xjit_exec_median_s"] = statistics.median(x[clocks[0]] for x in bare["xjit"])
                row["jax_exec_median_s"] = statistics.median(x[clocks[0]] for x in bare["jax"])
            row["passed"] = row["ratio"] <= TARGET
            row["note"] = (f"paired ratio IQR {q25:.2f}-{q75:.2f}, of mins "
                           f"{row['ratio_of_mins']:.2f}; {'wall' if cpu_time else 'CPU'} time"
                           f" ratio {other:.2f} (IQR {o25:.2f}-{o75:.2f}); {rounds}x{n} steps"
                           + (f"; executables alone {row['exec_ratio']:.2f} (xjit "
                              f"{row['xjit_exec_median_s'] * 1e3:.3f} ms, JAX "
                              f"{row['jax_exec_median_s'] * 1e3:.3f} ms)" if executables else ""))
            rows.append(row)
    finally:
        for w in workers.values():
            w.close()
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--worker", choices=("xjit", "jax"), help=argparse.SUPPRESS)
    p.add_argument("--rounds", type=int, default=41, help="paired samples per workload")
    p.add_argument("--budget", type=float, default=0.05, help="seconds per sample")
    p.add_argument("-k", default="", help="only workloads whose name contains this")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.add_argument("--cpu-time", action="store_true",
                   help="headline ratio from process CPU time, not wall time (loaded machines)")
    p.add_argument("--executables", action="store_true",
                   help="also time each side's compiled executables of a step run bare")
    args = p.parse_args(argv)
    if args.worker:
        return _worker(args.worker)
    rows = measure(args.k, args.rounds, args.budget, args.cpu_time, args.executables)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        if not r["available"]:
            print(f"{r['name']:34} {r['note']}")
            continue
        print(f"{r['name']:34} xjit {r['xjit_median_s'] * 1e3:8.3f} ms  JAX {r['jax_median_s'] * 1e3:8.3f}"
              f" ms  ratio {r['ratio']:.2f}  {'pass' if r['passed'] else 'FAIL'}  ({r['note']})")


if __name__ == "__main__":
    main()
