"""Sharding in the debugger on 8 CPU devices: ``xjit.inspect.sharding`` and
``collectives`` (checked against the arrays' own shards and the compiled
program's HLO), the %%xjit Sharding tab, the sidebar's ``function`` reply, a
device profile with a timeline lane per device, and a NaN under the checker
in a sharded function landing on the user's line.

The main pytest process has one CPU device, so everything runs in one
subprocess started with ``--xla_force_host_platform_device_count=8``; it
prints its findings as JSON and the tests below check them.
"""
import functools
import json
import os
import subprocess
import sys

import pytest

from multi_device import FLAGS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = r'''
import json, sys
import numpy as np
from IPython.core.interactiveshell import InteractiveShell
out = {}
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "xjit")
ns = ip.user_ns
ip.run_cell("""
import xjit as jax, xjit.numpy as jnp, xjit.inspect as xi
from xjit import lax
from xjit.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((4, 2), ("data", "model"))
rows = NamedSharding(mesh, P("data"))
cols = NamedSharding(mesh, P(None, "model"))
@jax.jit
def layer(x, params):
    h = jnp.tanh(x @ params["w"])
    return {"h": h, "loss": jnp.mean(h)}
x = jax.device_put(jnp.arange(64.0).reshape(16, 4), rows)
w = jax.device_put(jnp.ones((4, 6)), cols)
""")
import xjit.inspect as xi
from xjit_kernel_ext import channel as xjit_kernel_ext_channel
r = ip.run_cell("%%xjit --repeat 2\nres = layer(x, {'w': w})")
out["cell_error"] = repr(r.error_in_exec)
fid = next(i.fun_id for i in xi.functions() if i.name == "layer")
info = xi.sharding(fid)
res = ns["res"]
out["mesh"] = info.mesh_text
out["args"] = [[v.path, v.type, v.spec, v.replicated, list(v.shard_shape),
                [[s.device, [list(i) for i in s.index], list(s.shape)] for s in v.shards]]
               for v in info.args]
out["outs"] = [[v.path, v.spec, list(v.shard_shape)] for v in info.outs]
out["out_specs_engine"] = {k: str(a.sharding.spec) for k, a in res.items()}

def truth(a):  # each device's slice, as the array's own shards say
    return sorted([s.device.id, [[0 if i.start is None else i.start,
                                  n if i.stop is None else i.stop] for i, n in zip(s.index, a.shape)],
                   list(s.data.shape)] for s in a.addressable_shards)
out["x_shards_engine"] = truth(ns["x"])
out["h_shards_engine"] = truth(res["h"])
out["h_shards"] = sorted([s.device, [list(i) for i in s.index], list(s.shape)]
                         for s in info.outs[0].shards)
out["collectives"] = [[c.kind, list(c.axes), c.shape, c.bytes, c.primitive, c.lineno]
                      for c in info.collectives]
compiled = ns["layer"].lower(ns["x"], {"w": ns["w"]}).compile()
out["collectives_from_stage"] = [[c.kind, list(c.axes)] for c in xi.collectives(compiled)]
out["all_reduces_in_text"] = compiled.as_text().count(" all-reduce(")
out["repr"] = repr(info)

panel = ip.magics_manager.registry["XjitMagics"].panels["layer"]
out["panel_text"] = panel.text()
out["panel_html"] = panel.html()
out["steady_s"] = panel.data.timing.steady_s
out["steady_note"] = panel.data.timing.note

# %%xjit --profile: the SPMD program under XLA's profiler, a timeline lane per device
# (a function of its own: %%xjit sees a sharded function in the cell that traces it)
ip.run_cell("""
@jax.jit
def profiled(x, params):
    h = jnp.tanh(x @ params["w"])
    return jnp.mean(h)
""")
r = ip.run_cell("%%xjit --profile --repeat 3\nprofiled(x, {'w': w})")
out["profile_error"] = repr(r.error_in_exec)
panel = ip.magics_manager.registry["XjitMagics"].panels["profiled"]
prof = panel.data.profile
out["profile_note"] = panel.data.profile_note
out["profile_text"] = panel.text().split("-- Profile --", 1)[-1]
out["profile_devices"] = prof.devices if prof else None
out["profile_kernels"] = sorted({o.opcode for o in prof.ops}) if prof else []
if prof:  # each run's busy time is its devices' parts summed
    per_run = sorted(prof.run_spans)
    parts = {}
    for d, s0, e0, b in prof.device_spans:
        parts.setdefault(d, []).append((s0, e0, b))
    out["device_parts"] = {str(d): len(v) for d, v in parts.items()}
    out["parts_sum_to_runs"] = [abs(sum(sorted(v)[k][2] for v in parts.values()) - per_run[k][2])
                                < 1e-9 for k in range(len(per_run))]
chan = xjit_kernel_ext_channel()
lane = [e for e in chan.recent if e["kind"] == "device" and e["fun_name"] == "profiled"]
out["lane_devices"] = sorted({e["details"].get("device") for e in lane})
out["lane_count"] = len(lane)
from xjit_kernel_ext import protocol as _protocol
_protocol.validate_outgoing({"protocol": "xjit/2", "type": "batch", "seq": 1, "events": lane,
                             "executes": [], "functions": [], "dropped": 0})

ip.run_cell("""
m8 = jax.make_mesh((8,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
@jax.jit
def comms(x):
    def body(b):
        s = lax.psum(b, "i")
        g = lax.all_gather(b, "i")
        p = lax.ppermute(b, "i", [(j, (j + 1) % 8) for j in range(8)])
        t = lax.all_to_all(jnp.tile(b, 4), "i", 0, 0, tiled=True)
        rs = lax.psum_scatter(jnp.tile(b, 8) * b[0], "i", tiled=True)
        return s + p + g.sum() + t.sum() + rs.sum()
    return jax.shard_map(body, mesh=m8, in_specs=P("i"), out_specs=P("i"))(x)
cres = comms(jnp.arange(16.0))
@jax.jit
def one(x):
    return x * 2
one(jnp.ones(3))
""")
fid = next(i.fun_id for i in xi.functions() if i.name == "comms")
out["comms"] = sorted([c.kind, list(c.axes), c.shape, c.bytes, c.operand_bytes, c.primitive]
                      for c in xi.sharding(fid).collectives)
one = next(i.fun_id for i in xi.functions() if i.name == "one")
out["one_sharding"] = repr(xi.sharding(one))
out["one_collectives"] = repr(xi.collectives(ns["one"].lower(ns["x"][:, 0]).compile()))

# the sidebar's reply for a sharded and a one-device function
import xjit_kernel_ext
from xjit_kernel_ext import XjitChannel, protocol
class Comm:
    def __init__(self): self.sent = []
    def send(self, d): self.sent.append(json.loads(json.dumps(d, allow_nan=False)))
    def on_msg(self, cb): self.cb = cb
    def on_close(self, cb): pass
    def close(self): pass
chan = XjitChannel(None, comm_manager=None, create_comm=lambda **k: Comm())
c = Comm(); chan.attach(c)
for name in ("layer", "one"):
    f = next(i.fun_id for i in xi.functions() if i.name == name)
    c.cb({"content": {"data": {"protocol": "xjit/2", "type": "select_function", "fun_id": f}}})
    reply = c.sent[-1]
    protocol.validate_outgoing(reply)
    out["reply_" + name] = reply.get("sharding")

# a NaN under the checker in a function over 8 devices
ip.run_cell("""def nan_step(x, y):
    z = x * 2.0
    return jnp.log(z - y)
nan_jit = jax.jit(nan_step, in_shardings=(NamedSharding(m8, P("i")), NamedSharding(m8, P())))
""")
r = ip.run_cell("%%xjit --nans\nnan_jit(jnp.ones(16), 5.0)")
err = r.error_in_exec
out["nan_error"] = f"{type(err).__name__}: {err}" if err is not None else None
if err is not None:
    tb = err.__traceback__
    while tb.tb_next:
        tb = tb.tb_next
    out["nan_frame"] = [tb.tb_frame.f_code.co_name, tb.tb_lineno,
                        repr(np.asarray(tb.tb_frame.f_locals.get("z")))]
sys.stdout.write("\n@@RESULTS@@" + json.dumps(out))
'''


@functools.lru_cache(maxsize=None)
def results():
    env = {**os.environ, "XLA_FLAGS": FLAGS, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    if "@@RESULTS@@" not in proc.stdout:
        raise RuntimeError(f"the 8-device subprocess failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.split("@@RESULTS@@", 1)[1])


def test_argument_and_output_shardings_match_the_arrays_shards():
    r = results()
    assert r["cell_error"] == "None"
    assert r["mesh"] == "Mesh('data': 4, 'model': 2)"
    (xp, xt, xs, xr, xshard, xshards), (wp, wt, ws, wr, wshard, _) = r["args"]
    assert (xp, xt, xs, xr, xshard) == ("x", "f32[16,4]", "P('data',)", False, [4, 4])
    assert (wp, wt, ws, wr, wshard) == ("params['w']", "f32[4,6]", "P(None, 'model')", False,
                                        [4, 3])
    assert sorted(xshards) == r["x_shards_engine"]
    assert r["h_shards"] == r["h_shards_engine"]
    assert r["outs"] == [["out['h']", "P('data', 'model')", [4, 3]], ["out['loss']", "P()", []]]
    assert r["out_specs_engine"] == {"h": "P('data', 'model')", "loss": "P()"}


def test_collectives_of_the_compiled_program():
    r = results()
    # the mean of h, split over both axes: one all-reduce over each
    assert sorted(c[:5] for c in r["collectives"]) == [
        ["all-reduce", ["data"], "f32[]", 4, "reduce_sum"],
        ["all-reduce", ["model"], "f32[]", 4, "reduce_sum"]]
    assert {c[5] for c in r["collectives"]} == {10}  # the line of jnp.mean, in the cell
    assert r["all_reduces_in_text"] == 2
    assert sorted(r["collectives_from_stage"]) == sorted(c[:2] for c in r["collectives"])
    assert "all-reduce over 'data': f32[] (4 B per device) from reduce_sum" in r["repr"]


def test_shard_map_collectives_with_their_sizes():
    """Per device: b is f32[2]; all_gather makes f32[8,2]; a tiled
    psum_scatter of f32[16] leaves f32[2]; all_to_all of f32[8] keeps 32
    bytes (XLA splits it into one f32[1] per device)."""
    got = {c[0]: c[1:] for c in results()["comms"]}
    assert got["all-reduce"] == [["i"], "f32[2]", 8, 8, "psum_invariant"]
    assert got["all-gather"] == [["i"], "f32[8,2]", 64, 8, "all_gather"]
    assert got["collective-permute"] == [["i"], "f32[2]", 8, 8, "ppermute"]
    assert got["all-to-all"][:3] == [["i"], "(" + ", ".join(["f32[1]"] * 8) + ")", 32]
    assert got["reduce-scatter"][:4] == [["i"], "f32[2]", 8, 64]


def test_one_device_function_has_no_sharding():
    r = results()
    assert r["one_sharding"] == "None"
    assert r["one_collectives"] == "[]"
    assert r["reply_one"] is None


def test_xjit_panel_has_a_sharding_tab_and_times_the_sharded_program():
    r = results()
    text = r["panel_text"].split("-- Sharding --", 1)[1]
    assert "Mesh('data': 4, 'model': 2) over 8 cpu devices (ids 0, 1, 2, 3, 4, 5, 6, 7)" in text
    assert "  x: f32[16,4] P('data',): dim 0 over 'data': each device holds f32[4,4]" in text
    assert "    device 2: [4:8, 0:4]" in text
    assert "  out['loss']: f32[] P(): replicated: each device holds all of f32[]" in text
    assert "  all-reduce over 'data': f32[] per device (4 B) from reduce_sum at In [" in text
    html = r["panel_html"]
    assert 'class="xjit-tab xjit-tab-sharding"' in html
    assert "<caption>Collectives in the compiled program</caption>" in html
    assert 'data-xjit-line="10"' in html.split("xjit-tab-sharding", 1)[1]
    assert r["steady_s"] is not None and r["steady_s"] > 0, r["steady_note"]


def test_sidebar_reply_carries_the_sharding():
    s = results()["reply_layer"]
    assert s["mesh"] == [{"name": "data", "size": 4}, {"name": "model", "size": 2}]
    assert s["devices"] == list(range(8))
    x = s["args"][0]
    assert (x["path"], x["spec"], x["axes"], x["shard_type"]) == ("x", "P('data',)",
                                                                  [["data"], []], "f32[4,4]")
    assert [sh["index"] for sh in x["shards"][:3]] == [[[0, 4], [0, 4]], [[0, 4], [0, 4]],
                                                       [[4, 8], [0, 4]]]
    assert {(c["kind"], tuple(c["axes"]), c["location"]["lineno"]) for c in s["collectives"]} \
        == {("all-reduce", ("data",), 10), ("all-reduce", ("model",), 10)}


def test_profile_of_a_sharded_function_has_a_lane_per_device():
    r = results()
    assert r["profile_error"] == "None" and r["profile_note"] == ""
    assert r["profile_devices"] == 8
    assert "device time per run on 8 cpu devices (summed over them)" in r["profile_text"]
    assert "all-reduce" in r["profile_kernels"]  # the collective's own time is a kernel's
    assert r["device_parts"] == {str(d): 3 for d in range(8)}
    assert r["parts_sum_to_runs"] == [True] * 3
    assert r["lane_devices"] == list(range(8)) and r["lane_count"] == 24


def test_nan_in_a_sharded_function_lands_on_the_users_line():
    r = results()
    assert r["nan_error"] is not None, "no FloatingPointError: the NaN went unreported"
    assert r["nan_error"].startswith("FloatingPointError: invalid value (nan) encountered in log")
    name, line, z = r["nan_frame"]
    assert (name, line) == ("nan_step", 3)  # the cell's `return jnp.log(z - y)`
    assert z.startswith("array([2., 2.")


ASYNC_HLO = """HloModule m, num_partitions=8

ENTRY %main (p: f32[2]) -> f32[2] {
  %p = f32[2]{0} parameter(0)
  %ar = f32[2]{0} all-reduce(%p), channel_id=1, replica_groups=[2,4]<=[8], to_apply=%add
  %ar2 = f32[2]{0} all-reduce(%ar), channel_id=2, replica_groups=[4,2]<=[2,4]T(1,0), to_apply=%add
  %ags = (f32[2]{0}, f32[16]{0}) all-gather-start(%ar2), channel_id=3, replica_groups={{0,1,2,3,4,5,6,7}}, dimensions={0}
  %agd = f32[16]{0} all-gather-done(%ags)
  %cps = (f32[2]{0}, f32[2]{0}, u32[], u32[]) collective-permute-start(%ar2), channel_id=4, source_target_pairs={{0,4},{4,0}}
  ROOT %cpd = f32[2]{0} collective-permute-done(%cps)
}
"""


def test_collectives_read_groups_and_async_pairs_from_hlo_text():
    """XLA's iota replica groups (transposed too), explicit groups and
    permutation pairs name the mesh axes they span; an asynchronous
    collective is listed once, with its result (not its operand) size."""
    import xjit.inspect as xi
    from xjit.sharding import AbstractMesh
    got = [(c.kind, c.name, c.shape, c.bytes, c.operand_bytes, c.axes)
           for c in xi.collectives(ASYNC_HLO, AbstractMesh((2, 4), ("a", "b")))]
    assert got == [("all-reduce", "ar", "f32[2]", 8, 8, ("b",)),
                   ("all-reduce", "ar2", "f32[2]", 8, 8, ("a",)),
                   ("all-gather", "ags", "f32[16]", 64, 8, ("a", "b")),
                   ("collective-permute", "cps", "f32[2]", 8, 8, ("a",))]
    assert [c.axes for c in xi.collectives(ASYNC_HLO)] == [()] * 4  # no mesh: no axis names


COUNTING_SCRIPT = r'''
import json
import xjit as jax, xjit.numpy as jnp, xjit.inspect as xi
from xjit.sharding import NamedSharding, PartitionSpec as P
seen = []
sub = xi.subscribe(lambda e: seen.append((e.kind, e.fun_name)), kinds={"lower", "compile"})
s = NamedSharding(jax.make_mesh((8,), ("i",)), P("i"))
def double(x):
    return x * 2
f = jax.jit(double, in_shardings=s)
for _ in range(3):
    f(jnp.arange(16.0))
jnp.sin(jax.device_put(jnp.ones(16), s))  # an eager op over the devices: not a function
info = [i for i in xi.functions() if i.name == "double"]
print("@@" + json.dumps({"seen": seen, "calls": [i.calls for i in info],
                         "timed": [i.lower_s > 0 and i.compile_s > 0 for i in info],
                         "names": sorted({i.name for i in xi.functions()})}))
'''


def test_sharded_calls_are_counted_and_timed():
    """A jit over 8 devices is one function to inspect: its calls counted, its
    lower and compile events sent, while an eager op over them is no function."""
    env = {**os.environ, "XLA_FLAGS": FLAGS, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-c", COUNTING_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert "@@" in proc.stdout, proc.stderr[-3000:]
    r = json.loads(proc.stdout.split("@@", 1)[1])
    assert r["seen"] == [["lower", "double"], ["compile", "double"]]
    assert r["calls"] == [3] and r["timed"] == [True]
    assert r["names"] == ["double"]
