"""The jit fast path for calls over many devices (``pxla.SpmdEntry``).

A repeated call whose arguments are sharded arrays laid out as the program
takes them skips the full path (and its layout step): these tests check that
what it serves is what the full path gives, and that any change it cannot
serve (another layout, a deleted argument, a mesh in context, a checking
flag) goes the full way. They run in one subprocess with 8 CPU devices.
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

_SCRIPT = r'''
import json, sys
import numpy as np
sys.path.insert(0, "core")
import xjit as jax
import xjit.numpy as jnp
from xjit.sharding import Mesh, NamedSharding, PartitionSpec as P
from xjit._src import pxla

out = {}
mesh = Mesh(np.array(jax.devices()), ("d",))
rows, whole = NamedSharding(mesh, P("d")), NamedSharding(mesh, P())
calls = []
_run = pxla.SpmdExecutable.run
def counted(self, leaves):
    calls.append(1)
    return _run(self, leaves)
pxla.SpmdExecutable.run = counted

def record(name, value):
    out[name] = value

@jax.jit
def step(p, x):
    return jnp.sum(x * p["w"]), {"w": p["w"] - 0.5 * x.mean(0)}

xs = np.arange(32, dtype=np.float32).reshape(8, 4)
x = jax.device_put(xs, rows)
p = {"w": jax.device_put(np.ones(4, np.float32), whole)}
ref_p = np.ones(4, np.float32)
losses, ref = [], []
for i in range(4):
    l, p = step(p, x)
    losses.append(float(l))
    ref.append(float((xs * ref_p).sum()))
    ref_p = ref_p - 0.5 * xs.mean(0)
record("loop_losses", [losses, ref])
record("loop_full_path_calls", len(calls))
record("loop_output", [type(p["w"]).__name__, str(p["w"].sharding.spec), type(l).__name__,
                      np.asarray(p["w"]).tolist(), ref_p.tolist()])

# the same avals laid out another way: the full path, the right layout
calls.clear()
x2 = jax.device_put(xs, whole)
l2, p2 = step(p, x2)
record("relayout", [len(calls), float(l2), float((xs * ref_p).sum())])
l3, _ = step(p, x)
record("back", [float(l3), float((xs * ref_p).sum())])

# a deleted argument: JAX's error, not PJRT's
gone = jax.device_put(xs, rows)
step(p, gone)
gone.delete()
try:
    step(p, gone)
    record("deleted", "no error")
except RuntimeError as e:
    record("deleted", str(e))

# donation through the fast path
bump = jax.jit(lambda a: a + 1, donate_argnums=0)
a = jax.device_put(xs, rows)
deleted = []
for _ in range(3):
    b = bump(a)
    deleted.append(a.is_deleted())
    a = b
record("donated_deleted", deleted)
record("donated_value", [np.asarray(a).tolist(), (xs + 3).tolist()])

# a checking flag switched on after fast calls: every call checks again
f = jax.jit(lambda v: jnp.log(v))
v = jax.device_put(xs - 1, rows)
f(v); f(v)
jax.config.update("jax_debug_nans", True)
try:
    f(jax.device_put(xs - 1.5, rows))
    record("debug_nans", "no error")
except FloatingPointError as e:
    record("debug_nans", type(e).__name__)
finally:
    jax.config.update("jax_debug_nans", False)

# a mesh in context changes what the program is: not served from outside it
g = jax.jit(lambda v: v * 2)
g(v); g(v)
calls.clear()
with jax.set_mesh(mesh):
    r = g(v)
record("in_context", [len(calls), np.asarray(r).tolist(), ((xs - 1) * 2).tolist()])

# the fast path while inspect times each call (the notebook's panels)
import xjit.inspect
events = []
sub = xjit.inspect.subscribe(events.append)
try:
    timed = step(p, x)
finally:
    sub.unsubscribe()
record("inspected", [float(timed[0]), float((xs * np.asarray(p["w"])).sum()),
                     str(timed[1]["w"].sharding.spec),
                     sum(getattr(e, "kind", None) == "execute" for e in events)])

# a loop that never waits keeps many runs with collectives in flight: XLA's CPU
# collectives share one thread pool and deadlocked (then aborted the process)
@jax.jit
def dp(w, xb):
    return w - 0.01 * jax.grad(lambda w: jnp.mean((xb @ w) ** 2))(w)
xd = jax.device_put(np.linspace(0, 1, 256, dtype=np.float32).reshape(64, 4), rows)
w1 = w2 = jax.device_put(np.ones(4, np.float32), whole)
for _ in range(400):
    w1 = dp(w1, xd)
for _ in range(400):
    w2 = dp(w2, xd).block_until_ready()
record("in_flight", [np.asarray(w1).tolist(), np.asarray(w2).tolist()])

sys.stdout.write("\n@@RESULTS@@" + json.dumps(out))
'''


@functools.lru_cache(None)
def results():
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
           "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300, cwd=os.path.dirname(HERE))
    if "@@RESULTS@@" not in proc.stdout:
        raise RuntimeError(f"the 8-device subprocess failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.split("@@RESULTS@@", 1)[1])


def test_a_training_loop_runs_on_the_fast_path_with_the_full_paths_values():
    r = results()
    losses, ref = r["loop_losses"]
    assert losses == pytest.approx(ref, rel=1e-6)
    # the first call lays out the arguments; the outputs fed back need no layout
    assert r["loop_full_path_calls"] == 1
    kind, spec, loss_kind, w, ref_w = r["loop_output"]
    assert (kind, spec, loss_kind) == ("ShardedArrayImpl", "P()", "ShardedArrayImpl")
    assert w == pytest.approx(ref_w)


def test_another_layout_of_the_same_avals_takes_the_full_path():
    r = results()
    n, got, want = r["relayout"]
    assert n == 1 and got == pytest.approx(want)
    got, want = r["back"]
    assert got == pytest.approx(want)


def test_a_deleted_argument_gives_jaxs_error():
    assert results()["deleted"].startswith("Array has been deleted with shape=float32[8,4]")


def test_donation_on_the_fast_path_deletes_the_argument():
    r = results()
    assert r["donated_deleted"] == [True, True, True]
    got, want = r["donated_value"]
    assert got == want


def test_debug_nans_switched_on_after_fast_calls_still_checks():
    assert results()["debug_nans"] == "FloatingPointError"


def test_a_mesh_in_context_is_not_served_from_calls_outside_it():
    n, got, want = results()["in_context"]
    assert n == 1 and got == want


def test_many_runs_with_collectives_in_flight_neither_deadlock_nor_differ():
    unwaited, waited = results()["in_flight"]
    assert unwaited == waited


def test_an_inspected_call_on_the_fast_path_is_timed_and_right():
    got, want, spec, executes = results()["inspected"]
    assert got == pytest.approx(want) and spec == "P()" and executes == 1
