"""orbax-checkpoint under the takeover, and the two JAX modules it stands on.

In this process: ``xjit.experimental.colocated_python`` (functions, their
specializations and errors, objects, the pickling of meshes and shardings)
and ``xjit.experimental.array_serialization`` (TensorStore specs and a
GlobalAsyncCheckpointManager round trip). In a subprocess under
``python -m xjit`` on 8 CPU devices: orbax's StandardCheckpointer,
CheckpointManager, AsyncCheckpointer, restores into abstract targets with
other shardings, flax nnx's save-and-restore-into-eval_shape pattern and
orbax's ColocatedPythonDispatcher. Each restored array must equal what was
saved bit for bit, and the record (dtypes, shapes, shardings, bytes) must be
the one the real JAX 0.10.2 gives running the same program.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit.experimental import colocated_python as cp
from xjit.experimental.colocated_python import serialization as cp_serialization

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cpu0():
    return cp.colocated_cpu_devices(jax.local_devices()[:1])[0]


# -- colocated_python ---------------------------------------------------------


def test_colocated_cpu_devices_of_cpu_devices_and_meshes():
    devices = jax.local_devices()
    assert list(cp.colocated_cpu_devices(devices)) == list(devices)
    assert list(cp.colocated_cpu_devices(tuple(devices[:1]))) == [devices[0]]
    mesh = jax.sharding.Mesh(np.array(devices[:1]).reshape(1, 1), ("x", "y"))
    assert cp.colocated_cpu_devices(mesh) == mesh
    with pytest.raises(TypeError):
        cp.colocated_cpu_devices(3)


def test_function_runs_here_and_caches_by_input_signature():
    calls = []

    @cp.colocated_python
    def add_one(x):
        calls.append(1)  # a closure cell: the executor's copy has its own list
        return jax.tree.map(lambda v: v + 1, x)

    x = jax.device_put(np.array(1), _cpu0())
    assert int(add_one(x)) == 2 and int(add_one(x)) == 2
    tree = jax.device_put([np.array(1), (np.array(2.5), {"v": np.array(3)})], _cpu0())
    out = add_one(tree)
    assert jax.device_get(out) == [np.array(2), (np.array(3.5), {"v": np.array(4)})]
    assert calls == []  # the function ran as its pickled copy, as on another host
    assert add_one.__name__ == "add_one"


def test_specializations():
    @cp.colocated_python
    def make_zero():
        return jnp.array(0)

    with pytest.raises(ValueError, match="No devices found. colocated_python function "
                                         "without input arguments must be first specialized"):
        make_zero()
    zero = make_zero.specialize(devices=[_cpu0()])
    assert int(zero()) == 0 and int(zero()) == 0
    with pytest.raises(ValueError, match="devices already specified"):
        zero.specialize(devices=[_cpu0()])

    seen_specs = []

    def out_specs(x):
        seen_specs.append(x)
        return x

    @cp.colocated_python
    def double(x):
        return x * 2

    double = double.specialize(out_specs_fn=out_specs)
    x = jax.device_put(np.arange(3, dtype=np.float32), _cpu0())
    np.testing.assert_array_equal(np.asarray(double(x)), [0, 2, 4])
    np.testing.assert_array_equal(np.asarray(double(x)), [0, 2, 4])
    assert len(seen_specs) == 1 and seen_specs[0].shape == (3,)
    assert seen_specs[0].sharding == x.sharding


def test_bad_inputs_and_outputs_raise_jax_errors():
    @cp.colocated_python
    def identity(x):
        return x

    with pytest.raises(AttributeError):
        identity(np.array(1))
    with pytest.raises(AttributeError):
        identity(1)

    @cp.colocated_python
    def to_numpy(x):
        return np.asarray(x)

    with pytest.raises(ValueError, match="only supports jax.Array as input and output"):
        to_numpy(jnp.array(1.0))


def test_prng_keys_cross_as_keys():
    @cp.colocated_python
    def split(k):
        return jax.random.split(k)

    key = jax.device_put(jax.random.key(7), _cpu0())
    out = split(key)
    assert jax.dtypes.issubdtype(out.dtype, jax.dtypes.prng_key)
    np.testing.assert_array_equal(np.asarray(jax.random.key_data(out)),
                                  np.asarray(jax.random.key_data(jax.random.split(key))))


def test_object_lives_with_its_wrapper():
    events = []

    @cp.colocated_python_class
    class Value:
        def __init__(self, initial):
            self.value = initial
            events.append("init")

        def __del__(self):
            events.append("del")

        def add(self, x):
            self.value = self.value + np.asarray(x)
            return jax.device_put(self.value, x.sharding)

    value = Value(np.array(5))
    assert events == []  # made at the first method call
    x = jax.device_put(np.array(1), _cpu0())
    assert int(value.add(x)) == 6 and int(value.add(x)) == 7
    # The class travelled by value (a local class), so its copy's events list
    # is the executor's; the object is gone with the wrapper either way.
    del value


def test_calls_with_known_out_specs_run_concurrently():
    # State shared with the executor lives on a module (pickled by reference),
    # as in JAX's tests; a closure's cells would travel as copies.
    x = jax.device_put(np.array(1), _cpu0())

    @cp.colocated_python
    def wait(x):
        cp._testing_barrier.wait(timeout=10)
        return x

    wait = wait.specialize(out_specs_fn=lambda x: x)
    cp._testing_barrier = threading.Barrier(3)
    errors = []

    def call():
        try:
            jax.block_until_ready(wait(x))
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    try:
        threads = [threading.Thread(target=call) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        del cp._testing_barrier
    assert errors == []


def test_object_made_at_first_call_and_dropped_with_wrapper():
    @cp.colocated_python_class
    class Tracked:
        def __init__(self):
            cp._testing_made = True

        def __del__(self):
            cp._testing_dropped = True

        def echo(self, x):
            return x

    def state():
        return (getattr(cp, "_testing_made", False), getattr(cp, "_testing_dropped", False))

    try:
        obj = Tracked()
        del obj
        assert state() == (False, False)  # never called: never made
        obj = Tracked()
        jax.block_until_ready(obj.echo(jax.device_put(np.array(1), _cpu0())))
        assert state() == (True, False)
        del obj
        assert state() == (True, True)
    finally:
        for name in ("_testing_made", "_testing_dropped"):
            cp.__dict__.pop(name, None)


def test_serialization_roundtrips_meshes_and_shardings():
    mesh = jax.sharding.Mesh(np.array([_cpu0()]).reshape(1, 1), ("long_axis_1", "long_axis_2"))
    s1 = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("long_axis_1"))
    s2 = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("long_axis_2"))
    one = cp_serialization._serialize([s1])
    two = cp_serialization._serialize([s1, s2])
    same = cp_serialization._serialize([s1, s1])
    assert len(two) < 2 * len(one) and len(same) < len(two)  # shared objects written once
    assert cp_serialization._deserialize(two) == [s1, s2]
    assert cp_serialization._deserialize(cp_serialization._serialize(mesh)) == mesh
    single = jax.sharding.SingleDeviceSharding(_cpu0())
    assert cp_serialization._deserialize(cp_serialization._serialize((single,))) == (single,)
    dl = cp_serialization.DeviceList((_cpu0(),))
    assert list(cp_serialization._deserialize(cp_serialization._serialize(dl))) == [_cpu0()]
    key_dtype = jax.random.key(0).dtype
    assert cp_serialization._deserialize(cp_serialization._serialize(key_dtype)) == key_dtype
    treedef = jax.tree.structure({"a": 1, "b": [2]})
    specs = (jax.ShapeDtypeStruct((2,), jnp.float32, sharding=single),)
    back_treedef, back_specs = cp_serialization._deserialize_specs(
        cp_serialization._serialize_specs(treedef, specs, dl))
    assert back_treedef == treedef and back_specs[0].sharding == single
    with pytest.raises(ValueError, match="Invalid device ID"):
        cp_serialization._unreduce_single_device_sharding(10 ** 6, None)


# -- array_serialization ------------------------------------------------------


def test_tensorstore_specs():
    from xjit.experimental.array_serialization import serialization as ser
    from xjit.experimental.array_serialization import tensorstore_impl as ts_impl
    spec = ser.get_tensorstore_spec("/tmp/ckpt/w")
    assert spec == {"driver": "zarr", "kvstore": {"driver": "file", "path": "/tmp/ckpt/w"}}
    spec3 = ts_impl.get_tensorstore_spec("gs://bucket/dir/w", process_idx=2)
    assert spec3["kvstore"] == {"driver": "ocdbt", "path": "w", "base": {
        "driver": "gcs", "bucket": "bucket", "path": "dir/process_2"}}
    assert ser.is_remote_storage(spec3) and not ser.is_remote_storage(spec)
    with pytest.raises(ValueError, match="should be absolute"):
        ts_impl.get_tensorstore_spec("relative/w")
    assert ts_impl._compute_chunk_shape((1024, 1024), "float32", 1 << 20) == [256, 1024]
    meta = ts_impl._get_tensorstore_metadata(jnp.zeros((4, 6), jnp.bfloat16))
    assert meta["data_type"] == "bfloat16" and meta["shape"] == (4, 6)
    assert issubclass(ser.GlobalAsyncCheckpointManager, ser.GlobalAsyncCheckpointManagerBase)
    with pytest.raises(TypeError):
        ser.GlobalAsyncCheckpointManagerBase()


def test_global_async_checkpoint_manager_round_trip(tmp_path):
    from xjit.experimental.array_serialization import serialization as ser
    arrays = [jnp.arange(12, dtype=jnp.float32).reshape(3, 4),
              jnp.array([1.5, -2.25], jnp.bfloat16), jnp.int32(-7)]
    paths = [str(tmp_path / name) for name in ("a", "b", "c")]
    committed = []
    manager = ser.GlobalAsyncCheckpointManager()
    manager.serialize_with_paths(arrays, paths, on_commit_callback=lambda: committed.append(1))
    manager.wait_until_finished()
    assert committed == [1]
    shardings = [x.sharding for x in arrays]
    back = manager.deserialize_with_paths(shardings, paths)
    for got, want in zip(back, arrays):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
    # A larger requested shape reads zeros past the stored end; a dtype casts.
    (wider,) = ser.run_deserialization([shardings[0]], [ser.get_tensorstore_spec(paths[0])],
                                       global_shapes=[(4, 4)], dtypes=[np.int32])
    assert wider.dtype == np.int32 and np.asarray(wider)[3].tolist() == [0, 0, 0, 0]
    with pytest.raises(TypeError, match="jax.sharding.Sharding"):
        ser.run_deserialization(["cpu"], [ser.get_tensorstore_spec(paths[0])])


# -- orbax under the takeover, against JAX ------------------------------------

PROGRAM = textwrap.dedent('''
    import hashlib, json, os, sys, tempfile
    if sys.argv[1] == "xjit":
        import xjit; xjit.install_as_jax()
    import jax, jax.numpy as jnp, numpy as np
    import orbax.checkpoint as ocp
    from flax import nnx
    from jax.sharding import NamedSharding, PartitionSpec as P
    from orbax.checkpoint._src.multihost import dispatchers

    out, mismatches = {}, []
    def describe(x):
        return [str(x.dtype), list(x.shape), repr(getattr(x, "sharding", None)),
                hashlib.sha1(np.asarray(x).tobytes()).hexdigest()]
    def same(name, got, want):
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            if np.asarray(g).tobytes() != np.asarray(w).tobytes() or g.dtype != w.dtype:
                mismatches.append(name)
        return [describe(g) for g in jax.tree.leaves(got)]

    d = tempfile.mkdtemp()
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    tree = {"w": jax.device_put(jnp.arange(32, dtype=jnp.float32).reshape(8, 4) / 3,
                                NamedSharding(mesh, P("x", "y"))),
            "r": jax.device_put(jnp.arange(8, dtype=jnp.int32), NamedSharding(mesh, P())),
            "h": jnp.linspace(-2, 2, 6, dtype=jnp.bfloat16), "s": jnp.float32(3.25),
            "i": jnp.int32(-4)}
    ck = ocp.StandardCheckpointer()
    ck.save(os.path.join(d, "std"), tree)
    ck.wait_until_finished()
    out["std"] = same("std", ck.restore(os.path.join(d, "std")), tree)
    other = {"w": jax.ShapeDtypeStruct((8, 4), jnp.float32,
                                       sharding=NamedSharding(mesh, P(None, "x"))),
             "r": jax.ShapeDtypeStruct((8,), jnp.int32, sharding=NamedSharding(mesh, P("x"))),
             "h": jax.ShapeDtypeStruct((6,), jnp.bfloat16,
                                       sharding=NamedSharding(mesh, P("y"))),
             "s": jax.ShapeDtypeStruct((), jnp.float32,
                                       sharding=jax.sharding.SingleDeviceSharding(
                                           jax.devices()[0])),
             "i": jax.ShapeDtypeStruct((), jnp.int32, sharding=NamedSharding(mesh, P()))}
    out["abstract"] = same("abstract", ck.restore(os.path.join(d, "std"), other), tree)

    mngr = ocp.CheckpointManager(os.path.join(d, "m"),
                                 options=ocp.CheckpointManagerOptions(max_to_keep=2))
    for step in range(3):
        mngr.save(step, args=ocp.args.StandardSave(jax.tree.map(lambda v: v + step, tree)))
    mngr.wait_until_finished()
    out["steps"] = [list(mngr.all_steps()), mngr.latest_step()]
    out["step2"] = same("step2", mngr.restore(2, args=ocp.args.StandardRestore(other)),
                        jax.tree.map(lambda v: v + 2, tree))
    mngr.close()

    ack = ocp.AsyncCheckpointer(ocp.StandardCheckpointHandler())
    ack.save(os.path.join(d, "async"), args=ocp.args.StandardSave(tree))
    ack.wait_until_finished()
    out["async"] = same("async", ack.restore(os.path.join(d, "async")), tree)

    class Model(nnx.Module):
        def __init__(self, rngs):
            self.l1 = nnx.Linear(3, 4, rngs=rngs)
            self.bn = nnx.BatchNorm(4, rngs=rngs)
            self.l2 = nnx.Linear(4, 2, param_dtype=jnp.bfloat16, rngs=rngs)
        def __call__(self, x):
            return self.l2(self.bn(self.l1(x)))
    model = Model(nnx.Rngs(0))
    ck.save(os.path.join(d, "nnx"), nnx.state(model))
    ck.wait_until_finished()
    graphdef, abstract_state = nnx.split(nnx.eval_shape(lambda: Model(nnx.Rngs(1))))
    restored = nnx.merge(graphdef, ck.restore(os.path.join(d, "nnx"), abstract_state))
    out["nnx_state"] = same("nnx", nnx.state(restored), nnx.state(model))
    x = jnp.ones((2, 3))
    out["nnx_out"] = same("nnx_out", restored(x), model(x))

    def add(arrays, delta):
        return jax.tree.map(lambda a: a + delta, arrays)
    small = {"a": jnp.arange(4.0), "b": jnp.arange(3, dtype=jnp.int32)}
    got = dispatchers.ColocatedPythonDispatcher().dispatch(
        add, input_arrays=small, result_specs=jax.tree.map(
            lambda v: jax.ShapeDtypeStruct(v.shape, v.dtype, sharding=v.sharding), small),
        func_args=(1,))
    out["colocated"] = same("colocated", got, jax.tree.map(lambda a: a + 1, small))
    print(json.dumps({"results": out, "mismatches": mismatches}))
''')


def _have_real_jax() -> bool:
    try:
        return importlib.util.find_spec("jax") is not None and \
            importlib.util.find_spec("orbax.checkpoint") is not None
    except (ImportError, ValueError):
        return False


def _run(tmp_path, which: str) -> dict:
    script = tmp_path / "orbax_program.py"
    script.write_text(PROGRAM)
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.path.join(ROOT, "core"), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, str(script), which], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"orbax program failed on {which}:\n{proc.stderr[-6000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not _have_real_jax(), reason="needs orbax-checkpoint and the real jax")
def test_orbax_round_trips_as_on_jax(tmp_path):
    got = _run(tmp_path, "xjit")
    assert got["mismatches"] == []
    want = _run(tmp_path, "jax")
    assert want["mismatches"] == []
    assert got["results"] == want["results"]
