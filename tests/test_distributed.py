"""Two processes with 4 CPU devices each run one program through
``xjit.distributed`` (jaxlib's coordination service on 127.0.0.1, gloo
collectives): a sharded reduction and a data-parallel train step over the 8
global devices give JAX 0.10.2's numbers (``distributed.json``, recorded by
running the same worker with the real JAX: ``python tests/test_distributed.py``).
"""
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

WORKER = r'''
import json, sys
import numpy as np
impl, pid, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if impl == "jax":
    import jax, jax.numpy as jnp
else:
    import xjit as jax, xjit.numpy as jnp
jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid,
                           initialization_timeout=60)
NS, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
mesh = jax.sharding.Mesh(np.array(jax.devices()), ("data",))
data = (np.arange(64, dtype=np.float32).reshape(16, 4) - 30) / 10
target = np.cos(data[:, :2] * 3)
x = jax.make_array_from_callback((16, 4), NS(mesh, P("data")), lambda i: data[i])
y = jax.make_array_from_process_local_data(NS(mesh, P("data")), target[8 * pid:8 * pid + 8])
total = jax.jit(lambda a: jnp.sum(jnp.sin(a) * a), out_shardings=NS(mesh, P()))(x)
w0 = (np.arange(8, dtype=np.float32).reshape(4, 2) - 4) / 8
params = jax.make_array_from_callback((4, 2), NS(mesh, P()), lambda i: w0[i])

@jax.jit
def step(w, x, y):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((jnp.tanh(x @ w) - y) ** 2))(w)
    return loss, w - 0.5 * g

losses = []
for _ in range(3):
    loss, params = step(params, x, y)
    losses.append(float(loss))
out = {"process_index": jax.process_index(), "process_count": jax.process_count(),
       "device_count": jax.device_count(), "local_device_count": jax.local_device_count(),
       "total": float(total), "losses": losses, "params": np.asarray(params).ravel().tolist(),
       "params_spec": str(params.sharding.spec), "replicated": bool(params.is_fully_replicated),
       "x_local_shards": [str(s.index) for s in x.addressable_shards],
       "x_fully_addressable": bool(x.is_fully_addressable), "y_shape": list(y.shape),
       "y_local_shards": [str(s.index) for s in y.addressable_shards]}
print("@@" + json.dumps(out), flush=True)
jax.distributed.shutdown()
'''


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_two_processes(impl, timeout=180):
    """Each process's report, started together and cleaned up on any failure."""
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
           "JAX_PLATFORMS": "cpu"}
    port = _free_port()
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, impl, str(i), str(port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(2)]
    try:
        outs = [p.communicate(timeout=timeout) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    reports = []
    for (out, err), p in zip(outs, procs):
        if "@@" not in out:
            raise RuntimeError(f"a {impl} process failed (rc {p.returncode}):\n{err[-3000:]}")
        reports.append(json.loads(out.split("@@", 1)[1]))
    return reports


def _expected():
    with open(os.path.join(HERE, "distributed.json")) as f:
        return json.load(f)


def _compare(got, want):
    for g, w in zip(got, want):
        for k, v in w.items():
            if isinstance(v, float) or (isinstance(v, list) and v and isinstance(v[0], float)):
                np.testing.assert_allclose(g[k], v, rtol=1e-5, atol=1e-6, err_msg=k)
            else:
                assert g[k] == v, (k, g[k], v)


def test_two_processes_match_jax():
    _compare(run_two_processes("xjit"), _expected())


@pytest.mark.compare
def test_record_matches_live_jax():
    _compare(run_two_processes("jax"), _expected())


if __name__ == "__main__":  # record JAX's reports
    with open(os.path.join(HERE, "distributed.json"), "w") as f:
        json.dump(run_two_processes("jax"), f, indent=1)
