"""How a lowering rule built with jaxlib's MLIR bindings should join xjit's
StableHLO-text lowering: timings behind the choice (issue 13, point 4).

On the 1000-step loop of ``bench/vs_jax.py`` (3000 equations: sin, mul, add):

* text: xjit's lowering to text, then PJRT compiling the text (it parses
  it in C++), and that parse alone;
* bindings: the same module built op by op through jaxlib's Python MLIR
  bindings, serialized to bytecode, and PJRT compiling the bytecode (what
  moving the whole lowering to the bindings would cost);
* JAX: ``jit(f).trace(x).lower()`` and ``.compile()``;
* a user primitive whose rule builds ops with the bindings, 1000 equations:
  spliced as one private function per signature plus ``func.call``s (what
  ``mlir.register_lowering`` does), versus the same rule as ``lower_fun``
  (inlined text).

    .venv/bin/python bench/lowering_paths.py [--repeat N] [--compile-repeat N]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

try:
    import xjit  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core"))

import xjit
import xjit.numpy as jnp
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func, stablehlo as hlo

from xjit._src import core, dispatch, xla_bridge
from xjit._src.interpreters import mlir
from xjit.extend.core import Primitive

STEPS = 1000


def loop(x):
    for _ in range(STEPS):
        x = jnp.sin(x) * 0.5 + x
    return x


def _median(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def build_with_bindings(closed):
    """The module of ``closed`` (sin/mul/add with scalar literals only) built
    through the bindings: what a bindings-based lowering does per equation."""
    with mlir.ir_context(), ir.Location.unknown():
        module = ir.Module.create()
        avals = closed.in_avals
        types = [mlir.aval_to_ir_type(a) for a in avals]
        out_types = [mlir.aval_to_ir_type(a) for a in closed.out_avals]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("main", (types, out_types))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("public")
            block = fn.add_entry_block()
        env = dict(zip(closed.jaxpr.invars, block.arguments))
        with ir.InsertionPoint(block):
            for eqn in closed.jaxpr.eqns:
                ins = []
                for v in eqn.invars:
                    if type(v) is core.Literal:
                        t = mlir.aval_to_ir_type(eqn.outvars[0].aval)
                        c = hlo.ConstantOp(ir.DenseElementsAttr.get(
                            np.asarray(v.val, np.float32))).result
                        ins.append(hlo.BroadcastInDimOp(t, c, mlir.dense_int_array([])).result)
                    else:
                        ins.append(env[v])
                name = eqn.primitive.name
                op = {"sin": hlo.SineOp, "mul": hlo.MulOp, "add": hlo.AddOp}[name]
                env[eqn.outvars[0]] = op(*ins).result
            func.ReturnOp([env[v] for v in closed.jaxpr.outvars])
        return module


def main(repeat, compile_repeat):
    device = xla_bridge.default_device()
    client = device.client
    devs = xla_bridge.device_list(device)
    x = jnp.arange(8.0) * 0.1
    closed = xjit.make_jaxpr(loop)(x)
    rows = []

    text = mlir.lower_module("loop", closed)
    rows.append(("text: lower (jaxpr -> text)", _median(lambda: mlir.lower_module("loop", closed),
                                                        repeat)))
    rows.append(("text: MLIR parse of the text", _median(
        lambda: ir.Module.parse(text, context=mlir.ir_context()), repeat)))

    module = build_with_bindings(closed)
    rows.append(("bindings: build module", _median(lambda: build_with_bindings(closed), repeat)))
    rows.append(("bindings: to bytecode", _median(lambda: mlir.module_to_bytecode(module),
                                                  repeat)))
    code = mlir.module_to_bytecode(module)
    rows.append(("bindings: MLIR parse of the bytecode", _median(
        lambda: ir.Module.parse(code, context=mlir.ir_context()), repeat)))
    text_c, code_c = [], []
    for _ in range(compile_repeat):  # interleaved: XLA's time dominates and drifts with load
        t0 = time.perf_counter()
        client.compile_and_load(text, devs, xc.CompileOptions())
        t1 = time.perf_counter()
        client.compile_and_load(code, devs, xc.CompileOptions())
        t2 = time.perf_counter()
        text_c.append(t1 - t0)
        code_c.append(t2 - t1)
    rows.append(("text: compile (PJRT, from text)", statistics.median(text_c)))
    rows.append(("bindings: compile (PJRT, from bytecode)", statistics.median(code_c)))

    try:
        import jax
        import jax.numpy as jjnp

        def fresh_jax():  # a new function each time: nothing cached
            def jloop(x):
                for _ in range(STEPS):
                    x = jjnp.sin(x) * 0.5 + x
                return x
            return jax.jit(jloop).trace(jjnp.arange(8.0) * 0.1)
        lowers, compiles = [], []
        for _ in range(compile_repeat):
            traced = fresh_jax()
            t0 = time.perf_counter()
            lowered = traced.lower()
            t1 = time.perf_counter()
            lowered.compile()
            t2 = time.perf_counter()
            lowers.append(t1 - t0)
            compiles.append(t2 - t1)
        rows.append(("JAX: lower (traced -> Lowered)", statistics.median(lowers)))
        rows.append(("JAX: compile (Lowered -> Compiled)", statistics.median(compiles)))
    except ImportError:
        pass

    # a user primitive lowered by a bindings rule, 1000 equations
    p = Primitive("multiply_add")
    p.def_abstract_eval(lambda x, y, z: x)
    mlir.register_lowering(p, lambda ctx, x, y, z: [hlo.AddOp(hlo.MulOp(x, y), z).result])
    q = Primitive("multiply_add")
    q.def_abstract_eval(lambda x, y, z: x)
    mlir.register_lowering(q, mlir.lower_fun(lambda x, y, z: x * y + z, multiple_results=False))

    def user_loop(prim):
        def f(x):
            for _ in range(STEPS):
                x = prim.bind(x, x, x)
            return x
        return xjit.make_jaxpr(f)(x)
    for label, prim in (("splice (func.call)", p), ("lower_fun (inline)", q)):
        cj = user_loop(prim)
        t = mlir.lower_module("user", cj)
        rows.append((f"user prim, {label}: lower", _median(
            lambda: mlir.lower_module("user", cj), repeat)))
        rows.append((f"user prim, {label}: compile", _median(
            lambda: client.compile_and_load(t, devs, xc.CompileOptions()), compile_repeat)))
    out = dispatch.compile_text(mlir.lower_module("user", user_loop(p)))
    assert out is not None

    for label, t in rows:
        print(f"{label:45s} {t * 1e3:9.2f} ms")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--compile-repeat", type=int, default=3)
    a = ap.parse_args()
    main(a.repeat, a.compile_repeat)
