"""xjit vs JAX 0.10.2 on the workloads the performance issues name.

Both libraries run in one process; samples alternate between them (and
alternate which goes first) so drift in machine load hits both alike. Each
workload reports median and minimum time per call, the ratio xjit/JAX of the
medians (< 1: xjit is faster), the issue's target and pass/fail, then the
geometric mean of the ratios. Dispatch rows also time, interleaved with both,
jaxlib's bare execute of the same executable (the floor) and must come within
``FLOOR_TARGET`` of it. Workloads whose xjit feature does not exist yet
print "not available" and are picked up automatically once it does.

    .venv/bin/python bench/vs_jax.py [--quick] [--json] [-k SUBSTRING] [--no-libraries]

Needs JAX next to xjit: ``XJIT_EXTRAS=test,compare bash scripts/setup.sh``.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import statistics
import sys
import time
import types

import numpy as np


def _import_libs():
    try:
        import xjit  # noqa: F401
    except ImportError:  # running from a checkout with an interpreter that only has JAX
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core"))
    try:
        import jax
        import jax.numpy as jjnp
    except ImportError:
        sys.exit("bench/vs_jax.py needs JAX 0.10.2: XJIT_EXTRAS=test,compare bash scripts/setup.sh")
    import xjit
    import xjit.numpy as xjnp
    try:
        import xjit.inspect  # noqa: F401
    except ImportError:
        pass
    return (types.SimpleNamespace(name="xjit", jax=xjit, jnp=xjnp),
            types.SimpleNamespace(name="jax", jax=jax, jnp=jjnp))


class NotAvailable(Exception):
    """The library lacks a feature this workload needs."""


def need(obj, *names):
    """``obj.a.b`` or NotAvailable."""
    for n in names:
        if not hasattr(obj, n):
            raise NotAvailable(f"{n} is not implemented")
        obj = getattr(obj, n)
    return obj


# --------------------------------------------------------------------------
# Workloads. ``steady(lib)`` returns a thunk timed over many calls;
# ``fresh(lib)`` returns a function that prepares (untimed) and returns the
# thunk to time once, for work JAX would otherwise serve from a cache.

LOOP_STEPS = 1000


def _loop_fn(lib):
    """A new function object each time, so no trace/lowering cache applies."""
    jnp = lib.jnp

    def loop(x):
        for _ in range(LOOP_STEPS):
            x = jnp.sin(x) * 0.5 + x
        return x
    return loop


def _x(lib, n=8):
    return lib.jnp.arange(float(n)) * 0.1


def _dispatch(case):
    """A dispatch workload: ``case(lib) -> (fun, args)``; the jitted call and a
    wait for its outputs. The bench also times the bare execute of ``case``."""
    def build(lib):
        fun, args = case(lib)
        f, block = lib.jax.jit(fun), lib.jax.block_until_ready
        return lambda: block(f(*args))
    build.case = case
    return build


def _case_1(lib):
    return (lambda x: x + 1.0), (_x(lib),)


def w_jit_dispatch(lib):
    f = lib.jax.jit(lambda x: x + 1.0)
    x = _x(lib)
    return lambda: f(x).block_until_ready()


w_jit_dispatch.case = _case_1


def w_trace_loop(lib):
    x = _x(lib)
    make_jaxpr = lib.jax.make_jaxpr

    def prepare():
        f = _loop_fn(lib)
        return lambda: make_jaxpr(f)(x)
    return prepare


def w_lower_loop(lib):
    x = _x(lib)

    def prepare():
        traced = lib.jax.jit(_loop_fn(lib)).trace(x)
        return traced.lower
    return prepare


def w_eager_add(lib):
    x, y = _x(lib), _x(lib) + 1.0
    add = lib.jnp.add
    return lambda: add(x, y).block_until_ready()


def _small_loss(lib):
    jnp = lib.jnp
    return lambda x: jnp.sum(jnp.sin(x) * x)


def w_eager_grad(lib):
    g = need(lib.jax, "grad")(_small_loss(lib))
    x = _x(lib)
    return lambda: g(x).block_until_ready()


def w_jit_grad_dispatch(lib):
    g = lib.jax.jit(need(lib.jax, "grad")(_small_loss(lib)))
    x = _x(lib)
    return lambda: g(x).block_until_ready()


def w_jit_vmap_matmul(lib):
    f = lib.jax.jit(need(lib.jax, "vmap")(lib.jnp.matmul))
    a = lib.jnp.ones((16, 32, 32), "float32")
    b = lib.jnp.ones((16, 32, 32), "float32") * 0.5
    return lambda: f(a, b).block_until_ready()


def w_trace_grad_loop(lib):
    x = _x(lib)
    grad, make_jaxpr, jnp = need(lib.jax, "grad"), lib.jax.make_jaxpr, lib.jnp

    def prepare():
        loop = _loop_fn(lib)
        return lambda: make_jaxpr(grad(lambda x: jnp.sum(loop(x))))(x)
    return prepare


def w_eager_chain5(lib):
    jnp = lib.jnp
    x = _x(lib)
    return lambda: jnp.sum(jnp.exp(jnp.sin(x) * 2.0 + 1.0)).block_until_ready()


def w_jit_random_normal(lib):
    random = need(lib.jax, "random")
    key = need(random, "PRNGKey")(0)
    f = lib.jax.jit(lambda k: need(random, "normal")(k, (1_000_000,)))
    return lambda: f(key).block_until_ready()


_HOST_4MB = np.arange(1 << 20, dtype=np.float32)


def w_device_put(lib):
    # One host array for both libraries: whether PJRT can alias it instead of
    # copying depends on its alignment, which must not differ between them.
    host = _HOST_4MB
    put = lib.jax.device_put
    return lambda: put(host).block_until_ready()


def _case_3(lib):
    return (lambda x, y, z: x * y + z), (_x(lib), _x(lib) + 1.0, _x(lib) + 2.0)


PYTREE_LEAVES = 20


def _tree(lib):
    return {f"w{i:02d}": _x(lib) + float(i) for i in range(PYTREE_LEAVES)}


def _total(d):
    out = 0.0
    for v in d.values():
        out = out + v
    return out


def _case_tree_1(lib):
    return _total, (_tree(lib),)


def _case_tree_20(lib):
    return (lambda d: {k: v + 1.0 for k, v in d.items()}), (_tree(lib),)


def _block_fn(lib):
    """Layernorm, single-head attention and an MLP on a (16, 64) sequence."""
    jnp, nn = lib.jnp, need(lib.jax, "nn")

    def layernorm(x):
        m = jnp.mean(x, -1, keepdims=True)
        v = jnp.mean((x - m) ** 2, -1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5)

    def block(p, x):
        h = layernorm(x)
        q, k, v = h @ p["wq"], h @ p["wk"], h @ p["wv"]
        att = need(nn, "softmax")(q @ k.T / 8.0, axis=-1)
        x = x + (att @ v) @ p["wo"]
        h = layernorm(x)
        return x + need(nn, "gelu")(h @ p["w1"]) @ p["w2"]
    return block


def _block_params(lib):
    r = np.random.RandomState(0)
    shapes = dict(wq=(64, 64), wk=(64, 64), wv=(64, 64), wo=(64, 64), w1=(64, 256), w2=(256, 64))
    return ({k: lib.jnp.asarray(r.randn(*s).astype("float32") * 0.1) for k, s in shapes.items()},
            lib.jnp.asarray(r.randn(16, 64).astype("float32")))


def w_compile_loop(lib):
    x = _x(lib)

    def prepare():
        traced = lib.jax.jit(_loop_fn(lib)).trace(x)
        return lambda: traced.lower().compile()
    return prepare


def w_compile_block(lib):
    p, x = _block_params(lib)

    def prepare():
        block = _block_fn(lib)
        traced = lib.jax.jit(lambda p, x: block(p, x)).trace(p, x)
        return lambda: traced.lower().compile()
    return prepare


_MLP_SIZES = [(32, 128), (128, 128), (128, 10)]


def _mlp_train(jax, jnp, params, x, y):
    """``run()``: one SGD step of a tanh MLP on (x, y), then wait."""
    def loss(params, x, y):
        for w, b in params[:-1]:
            x = jnp.tanh(x @ w + b)
        w, b = params[-1]
        return jnp.mean((x @ w + b - y) ** 2)

    @jax.jit
    def step(params, x, y):
        l, g = need(jax, "value_and_grad")(loss)(params, x, y)
        return l, jax.tree_util.tree_map(lambda p, d: p - 0.01 * d, params, g)

    state = [params]

    def run():
        l, state[0] = step(state[0], x, y)
        jax.block_until_ready((l, state[0]))
    return run


def w_mlp_train_step(lib):
    jnp, jax = lib.jnp, lib.jax
    r = np.random.RandomState(0)
    params = [(jnp.asarray(r.randn(*s).astype("float32") * 0.1), jnp.zeros(s[1], "float32"))
              for s in _MLP_SIZES]
    x = jnp.asarray(r.randn(64, 32).astype("float32"))
    y = jnp.asarray(r.randn(64, 10).astype("float32"))
    return _mlp_train(jax, jnp, params, x, y)


def w_data_parallel_mlp(lib):
    """The MLP train step with its batch split over 8 devices ('data') and the
    parameters replicated (run with XLA_FLAGS=--xla_force_host_platform_device_count=8)."""
    jnp, jax = lib.jnp, lib.jax
    if jax.device_count() < 8:
        raise NotAvailable("needs 8 devices: XLA_FLAGS=--xla_force_host_platform_device_count=8")
    sharding = need(jax, "sharding", "NamedSharding")
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]), ("data",))
    P = jax.sharding.PartitionSpec
    r = np.random.RandomState(0)
    params = jax.device_put([(r.randn(*s).astype("float32") * 0.1, np.zeros(s[1], "float32"))
                             for s in _MLP_SIZES], sharding(mesh, P()))
    x = jax.device_put(r.randn(256, 32).astype("float32"), sharding(mesh, P("data")))
    y = jax.device_put(r.randn(256, 10).astype("float32"), sharding(mesh, P("data")))
    return _mlp_train(jax, jnp, params, x, y)


WORKLOADS = [
    # name, builder, fresh?, target ratio (xjit/JAX), what the target means
    ("jit dispatch (tiny fn)", w_jit_dispatch, False, 0.95),
    ("trace 1000-step loop", w_trace_loop, True, 0.67),
    ("lower 1000-step loop", w_lower_loop, True, 0.5),
    ("eager add (small)", w_eager_add, False, 1.2),
    ("eager grad (small fn)", w_eager_grad, False, 0.5),
    ("jit grad dispatch", w_jit_grad_dispatch, False, 1.2),
    ("jit vmap batched matmul", w_jit_vmap_matmul, False, 1.1),
    ("trace grad 1000-step loop", w_trace_grad_loop, True, 0.67),
    ("eager chain of 5 jnp ops", w_eager_chain5, False, 1.0),
    ("jit random.normal 1M", w_jit_random_normal, False, 1.1),
    ("device_put 4 MB", w_device_put, False, 1.1),
    ("jit dispatch 3 args", _dispatch(_case_3), False, 0.95),
    ("jit dispatch 20-leaf tree in, 1 out", _dispatch(_case_tree_1), False, 0.95),
    ("jit dispatch 20-leaf tree in, 20 out", _dispatch(_case_tree_20), False, 0.95),
    ("compile 1000-step loop (with lowering)", w_compile_loop, True, 0.95),
    ("compile transformer block (with lowering)", w_compile_block, True, 0.95),
    ("MLP train step (value_and_grad, update)", w_mlp_train_step, False, 1.0),
    ("data-parallel MLP train step, 8 devices", w_data_parallel_mlp, False, 1.0),
]


# --------------------------------------------------------------------------
# Timing


def _calibrate(thunk, budget_s):
    """Calls per sample so that one sample lasts about ``budget_s``."""
    n, t = 1, 0.0
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            thunk()
        t = time.perf_counter() - t0
        if t >= budget_s / 4 or n >= 1 << 16:
            return max(1, int(n * budget_s / max(t, 1e-9)))
        n *= 4


# What steady samples read: wall time, or with ``--cpu-time`` the process's CPU
# time (every thread's), which time spent preempted on a loaded machine does
# not inflate.
_clock = time.perf_counter


def _sample_steady(thunk, n):
    t0 = _clock()
    for _ in range(n):
        thunk()
    return (_clock() - t0) / n


def _sample_fresh(prepare, _n):
    thunk = prepare()
    gc.collect()
    t0 = time.perf_counter()
    thunk()
    return time.perf_counter() - t0


FLOOR_TARGET = 1.15  # dispatch rows: xjit within this factor of the bare execute


def measure_pair(runners, fresh, rounds, budget_s):
    """Interleaved samples for each (name -> thunk/prepare); returns name -> list of seconds."""
    sample = _sample_fresh if fresh else _sample_steady
    counts = {}
    for name, r in runners.items():  # warm up: traces, compiles, caches
        for _ in range(2 if fresh else 3):
            r()() if fresh else r()
        counts[name] = 1 if fresh else _calibrate(r, budget_s)
    if not fresh:  # the same number of calls for both, so samples are comparable
        n = min(counts.values())
        counts = dict.fromkeys(counts, n)
    times = {name: [] for name in runners}
    names = list(runners)
    for i in range(rounds):
        for name in (names if i % 2 == 0 else names[::-1]):
            times[name].append(sample(runners[name], counts[name]))
    return times


def _floor(xlib, builder):
    """jaxlib's bare execute of the executable xjit compiles for a dispatch
    workload (its arguments' buffers in, result handlers, one batched wait):
    the time no dispatcher on this jaxlib can beat."""
    from jaxlib import _jax
    from xjit._src import dispatch, xla_bridge
    fun, args = builder.case(xlib)
    lowered = xlib.jax.jit(fun).lower(*args)
    exe = dispatch.compile_text(lowered.as_text())
    outs = xlib.jax.tree_util.tree_leaves(xlib.jax.eval_shape(fun, *args))
    handlers = [xla_bridge.result_handler(a) for a in outs]
    bufs = [x._buf for x in xlib.jax.tree_util.tree_leaves(args)]
    wait = _jax.batched_block_until_ready
    return lambda: wait(exe.execute_sharded(bufs).consume_with_handlers(handlers))


def _build(lib, builder, fresh):
    try:
        r = builder(lib)
        (r()() if fresh else r())
        return r, None
    except NotAvailable as e:
        return None, f"not available: {e}"
    except (NotImplementedError, AttributeError, ImportError) as e:
        return None, f"not available: {type(e).__name__}: {e}"
    except Exception as e:  # a bug, not a missing feature: report it, keep benchmarking
        return None, f"FAILED: {type(e).__name__}: {e}"


def _fmt_t(s):
    if s < 1e-3:
        return f"{s * 1e6:8.1f} us"
    if s < 1:
        return f"{s * 1e3:8.2f} ms"
    return f"{s:8.2f} s "


def run(args):
    xlib, jlib = _import_libs()
    rounds = args.rounds or (7 if args.quick else 25)
    budget = 0.01 if args.quick else 0.04
    results = []
    for name, builder, fresh, target in WORKLOADS:
        if args.k and args.k.lower() not in name.lower():
            continue
        xr, why = _build(xlib, builder, fresh)
        jr, jwhy = _build(jlib, builder, fresh)
        row = dict(name=name, target=target, available=xr is not None and jr is not None)
        if not row["available"]:
            row["note"] = f"{'xjit' if xr is None else 'jax'} {why or jwhy}"
            results.append(row)
            _print_row(row, args)
            continue
        fr = max(3, rounds // 3) if fresh else rounds
        runners = {"xjit": xr, "jax": jr}
        if hasattr(builder, "case"):
            runners["floor"] = _floor(xlib, builder)
        t = measure_pair(runners, fresh, fr, budget)
        row.update(
            xjit_median_s=statistics.median(t["xjit"]), jax_median_s=statistics.median(t["jax"]),
            xjit_min_s=min(t["xjit"]), jax_min_s=min(t["jax"]))
        row["ratio"] = row["xjit_median_s"] / row["jax_median_s"]
        row["passed"] = row["ratio"] <= target
        if "floor" in t:  # dispatch rows: also within FLOOR_TARGET of the bare execute
            row["floor_median_s"] = statistics.median(t["floor"])
            row["floor_ratio"] = row["xjit_median_s"] / row["floor_median_s"]
            row["jax_floor_ratio"] = row["jax_median_s"] / row["floor_median_s"]
            row["passed"] = row["passed"] and row["floor_ratio"] <= FLOOR_TARGET
        results.append(row)
        _print_row(row, args)
    if not args.no_libraries:  # optax, flax, equinox: each side in its own process
        import libraries
        for row in libraries.measure(args.k, args.rounds or (11 if args.quick else 41),
                                     cpu_time=args.cpu_time):
            results.append(row)
            _print_row(row, args)
    if not args.k or args.k.lower() in INSPECT_PREFIX + "subscriber":
        for row in _inspect_overhead(xlib, rounds, budget):
            results.append(row)
            _print_row(row, args)
    ratios = [r["ratio"] for r in results
              if r.get("available") and not r["name"].startswith(INSPECT_PREFIX)]
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
    if args.json:
        print(json.dumps(dict(workloads=results, geomean_ratio=geo, rounds=rounds,
                              python=sys.version.split()[0]), indent=2))
    else:
        print("-" * 100)
        print(f"geometric mean xjit/JAX over {len(ratios)} workloads: "
              + (f"{geo:.2f}" if geo else "n/a"))
    return results


INSPECT_PREFIX = "jit dispatch + inspect "
INSPECT_ROWS = [  # name suffix, subscribe() keyword arguments
    ("subscriber", {}),
    ("sub., no execute", {"kinds": ("trace", "lower", "compile", "cache_miss", "nan")}),
]


def _inspect_overhead(xlib, rounds, budget):
    """xjit against itself: jitted dispatch while an ``xjit.inspect``
    subscriber listens vs with none (the 'JAX' columns hold the latter)."""
    rows = []
    try:
        subscribe = need(xlib.jax, "inspect", "subscribe")
    except NotAvailable as e:
        return [dict(name=INSPECT_PREFIX + "subscriber", target=1.02, available=False,
                     note=f"xjit not available: {e}")]
    plain = w_jit_dispatch(xlib)
    counts = _calibrate(plain, budget)
    for suffix, kw in INSPECT_ROWS:
        row = dict(name=INSPECT_PREFIX + suffix, target=1.02)
        rows.append(row)
        try:
            subscribe(lambda event: None, **kw).unsubscribe()
        except TypeError as e:
            row.update(available=False, note=f"xjit not available: {e}")
            continue
        times = {"off": [], "on": []}
        for i in range(rounds):
            for which in (("off", "on") if i % 2 == 0 else ("on", "off")):
                if which == "off":
                    times["off"].append(_sample_steady(plain, counts))
                    continue
                sub = subscribe(lambda event: None, **kw)  # process-wide: only around this sample
                try:
                    times["on"].append(_sample_steady(plain, counts))
                finally:
                    sub.unsubscribe()
        row.update(available=True, xjit_median_s=statistics.median(times["on"]),
                   jax_median_s=statistics.median(times["off"]), xjit_min_s=min(times["on"]),
                   jax_min_s=min(times["off"]), note="vs xjit without one")
        row["ratio"] = row["xjit_median_s"] / row["jax_median_s"]
        row["passed"] = row["ratio"] <= row["target"]
    return rows


_HEADER_DONE = []


def _print_row(row, args):
    if args.json:
        return
    if not _HEADER_DONE:
        _HEADER_DONE.append(1)
        print(f"{'workload':42} {'xjit med':>11} {'JAX med':>11} {'xjit min':>11} {'JAX min':>11}"
              f" {'ratio':>6} {'target':>7}")
        print("-" * 100)
    if not row.get("available"):
        print(f"{row['name']:42} {row['note']}")
        return
    mark = "pass" if row["passed"] else "FAIL"
    print(f"{row['name']:42} {_fmt_t(row['xjit_median_s'])} {_fmt_t(row['jax_median_s'])} "
          f"{_fmt_t(row['xjit_min_s'])} {_fmt_t(row['jax_min_s'])} {row['ratio']:6.2f} "
          f"<={row['target']:<5} {mark}" + (f"  ({row['note']})" if row.get("note") else "")
          + (f"  floor {_fmt_t(row['floor_median_s']).strip()}: xjit {row['floor_ratio']:.2f}x,"
             f" JAX {row['jax_floor_ratio']:.2f}x" if "floor_median_s" in row else ""))
    sys.stdout.flush()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer rounds, shorter samples")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.add_argument("--rounds", type=int, default=0, help="samples per library and workload")
    p.add_argument("-k", default="", help="only workloads whose name contains this")
    p.add_argument("--no-libraries", action="store_true",
                   help="skip the (slow) optax/flax/equinox rows of bench/libraries.py")
    p.add_argument("--cpu-time", action="store_true",
                   help="steady workloads read process CPU time, not wall time (loaded machines)")
    args = p.parse_args(argv)
    if args.cpu_time:
        global _clock
        _clock = time.process_time
    run(args)


if __name__ == "__main__":
    main()
