"""Lowering jaxprs to StableHLO text.

We emit MLIR in its generic textual form (``%3 = "stablehlo.add"(%1, %2) :
(tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>``): string building is far
cheaper in Python than constructing op objects through the MLIR bindings, and
the PJRT client parses the text in C++. Every rule is platform-neutral
(plain StableHLO, no CPU-only custom calls), so the same module compiles for
CPU and for CUDA.

``rules[prim](ctx, avals_in, avals_out, *operands, **params)`` returns the SSA
name of the result (a list of names for multiple-result primitives).
"""
from __future__ import annotations

import math

import numpy as np

from xjit._src import core, dtypes, errors

rules: dict = {}

_MLIR_DTYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "complex<f32>", "complex128": "complex<f64>",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
    "float8_e4m3fnuz": "f8E4M3FNUZ", "float8_e5m2fnuz": "f8E5M2FNUZ",
    "float8_e3m4": "f8E3M4", "float8_e4m3": "f8E4M3", "float8_e8m0fnu": "f8E8M0FNU",
    "float4_e2m1fn": "f4E2M1FN", "int4": "i4", "uint4": "ui4", "int2": "i2", "uint2": "ui2",
}


def mlir_dtype(dtype) -> str:
    try:
        return _MLIR_DTYPES[np.dtype(dtype).name]
    except KeyError:
        raise TypeError(f"dtype {np.dtype(dtype).name} is not supported by the lowering") from None


_type_cache: dict = {}


def ttype(aval) -> str:
    """``tensor<2x3xf32>`` for an abstract value."""
    key = (aval.shape, aval.dtype)
    t = _type_cache.get(key)
    if t is None:
        if getattr(aval.dtype, "extended", False):  # a key type: its physical data
            t = _type_cache[key] = ttype(aval.dtype.physical_aval(aval))
            return t
        _check_extent(aval)
        dims = "".join(f"{d}x" for d in aval.shape)
        t = _type_cache[key] = f"tensor<{dims}{mlir_dtype(aval.dtype)}>"
    return t


def _check_extent(aval):
    """XLA aborts the process on a shape whose byte size overflows int64, so such
    a value fails here as the allocation it could never be."""
    nbytes = math.prod(aval.shape) * np.dtype(aval.dtype).itemsize
    if nbytes >= 2 ** 62:
        raise errors.JaxRuntimeError(
            f"RESOURCE_EXHAUSTED: Out of memory allocating {nbytes} bytes.")


def scalar_type(dtype) -> str:
    return f"tensor<{mlir_dtype(dtype)}>"


def dense_attr(value: np.ndarray, type_str: str) -> str:
    value = np.ascontiguousarray(value)
    if value.dtype == np.bool_:
        value = value.astype(np.uint8)
    data = value.tobytes()
    if np.little_endian is False:  # pragma: no cover - MLIR hex is little-endian
        data = value.byteswap().tobytes()
    return f'dense<"0x{data.hex().upper()}"> : {type_str}'


def i64_array(xs) -> str:
    xs = list(xs)
    return f"array<i64: {', '.join(str(int(x)) for x in xs)}>" if xs else "array<i64>"


def bool_array(xs) -> str:
    xs = list(xs)
    return f"array<i1: {', '.join('true' if x else 'false' for x in xs)}>" if xs else "array<i1>"


class LoweringContext:
    """Accumulates the lines of one function body; hands out SSA names."""

    __slots__ = ("lines", "count", "indent", "module_ctx")

    def __init__(self, module_ctx=None):
        self.lines: list[str] = []
        self.count = 0
        self.indent = "    "
        self.module_ctx = module_ctx if module_ctx is not None else ModuleContext()

    def fresh(self) -> str:
        n = self.count
        self.count = n + 1
        return f"%v{n}"

    def op(self, name, operands, in_types, out_types, attrs=None, regions=None, nres=None):
        """Emit a generic-form op; returns its result name, or a list of names
        when ``out_types`` is a list."""
        multi = isinstance(out_types, list)
        outs = out_types if multi else [out_types]
        res = self.fresh()
        attr_s = f" {{{attrs}}}" if attrs else ""
        reg_s = f" ({', '.join(regions)})" if regions else ""
        out_s = outs[0] if len(outs) == 1 and not multi else f"({', '.join(outs)})"
        lhs = f"{res}:{len(outs)} = " if multi and len(outs) > 1 else (f"{res} = " if outs else "")
        self.lines.append(
            f'{self.indent}{lhs}"{name}"({", ".join(operands)}){reg_s}{attr_s} : '
            f'({", ".join(in_types)}) -> {out_s}')
        if not multi:
            return res
        if len(outs) == 1:
            return [res]
        return [f"{res}#{i}" for i in range(len(outs))]

    def constant(self, value, aval=None) -> str:
        value = np.asarray(value)
        if aval is not None and value.dtype != aval.dtype:
            value = value.astype(aval.dtype)
        t = ttype(aval) if aval is not None else ttype(core.ShapedArray(value.shape, value.dtype))
        return self.op("stablehlo.constant", [], [], t, attrs=f"value = {dense_attr(value, t)}")

    def region(self, arg_avals, body_fn) -> str:
        """A single-block region whose block arguments have ``arg_avals``;
        ``body_fn(ctx, *args)`` emits the body and returns the values to yield."""
        args = [self.fresh() for _ in arg_avals]
        saved, saved_indent = self.lines, self.indent
        self.lines, self.indent = [], saved_indent + "  "
        try:
            outs = body_fn(*args)
            out_types = [self.type_of_returned(o) for o in outs]
            self.lines.append(f'{self.indent}"stablehlo.return"({", ".join(v for v, _ in outs)}) : '
                              f'({", ".join(out_types)}) -> ()')
            body = "\n".join(self.lines)
        finally:
            self.lines, self.indent = saved, saved_indent
        head = ", ".join(f"{a}: {ttype(av)}" for a, av in zip(args, arg_avals))
        return f"{{\n{saved_indent}  ^bb0({head}):\n{body}\n{saved_indent}}}"

    @staticmethod
    def type_of_returned(o):
        return ttype(o[1])


class ModuleContext:
    """State shared by every function of one module: the Python callables
    that compiled code calls back into (``host_callbacks[i]`` is the one a
    custom call with ``index = i`` invokes)."""

    def __init__(self):
        self.host_callbacks: list = []
        self.platform = None

    def add_host_callback(self, fn) -> int:
        self.host_callbacks.append(fn)
        return len(self.host_callbacks) - 1


class ModuleText(str):
    """Module text that also carries the host callbacks it refers to, so the
    compiler can pass them to PJRT."""

    host_callbacks: tuple = ()


def lower_jaxpr(ctx: LoweringContext, jaxpr: core.Jaxpr, consts, args) -> list[str]:
    """Emit the equations of ``jaxpr`` inline; ``consts`` are SSA names or
    host values for its constvars, ``args`` SSA names for its invars."""
    env: dict = {}

    def read(v):
        if type(v) is core.Literal:
            return ctx.constant(np.asarray(v.val, v.aval.dtype), v.aval)
        return env[v]

    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c if isinstance(c, str) else ctx.constant(np.asarray(c), v.aval)
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    for eqn in jaxpr.eqns:
        prim = eqn.primitive
        rule = rules.get(prim)
        if rule is None:
            raise NotImplementedError(f"MLIR translation rule for primitive '{prim.name}' not found")
        ins = [read(v) for v in eqn.invars]
        avals_in = [v.aval for v in eqn.invars]
        avals_out = [v.aval for v in eqn.outvars]
        out = rule(ctx, avals_in, avals_out, *ins, **eqn.params)
        if prim.multiple_results:
            for v, o in zip(eqn.outvars, out):
                env[v] = o
        else:
            env[eqn.outvars[0]] = out
    return [read(v) for v in jaxpr.outvars]


def lower_module(name: str, closed: core.ClosedJaxpr, donated=(), arg_names=None) -> str:
    """The text of a StableHLO module whose ``main`` computes ``closed``.

    ``donated[i]`` marks input i as donated: it is aliased to the first
    not-yet-aliased output with the same type (``tf.aliasing_output``)."""
    jaxpr = closed.jaxpr
    ctx = LoweringContext()
    in_avals = [v.aval for v in jaxpr.invars]
    out_avals = [v.aval for v in jaxpr.outvars]
    args = [f"%arg{i}" for i in range(len(in_avals))]
    outs = lower_jaxpr(ctx, jaxpr, closed.consts, args)
    aliases = _donation_aliases(in_avals, out_avals, donated)
    params = []
    for i, (a, av) in enumerate(zip(args, in_avals)):
        attr = f" {{tf.aliasing_output = {aliases[i]} : i32}}" if i in aliases else ""
        params.append(f"{a}: {ttype(av)}{attr}")
    results = ", ".join(f'{ttype(av)} {{jax.result_info = "result"}}' for av in out_avals)
    body = "\n".join(ctx.lines)
    ret = (f'    "func.return"({", ".join(outs)}) : '
           f'({", ".join(ttype(av) for av in out_avals)}) -> ()')
    mod_name = "jit_" + "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    text = (f"module @{mod_name} attributes {{mhlo.num_partitions = 1 : i32, "
            f"mhlo.num_replicas = 1 : i32}} {{\n"
            f"  func.func public @main({', '.join(params)}) -> ({results}) {{\n"
            f"{body}\n{ret}\n  }}\n}}\n")
    if not ctx.module_ctx.host_callbacks:
        return text
    text = ModuleText(text)
    text.host_callbacks = tuple(ctx.module_ctx.host_callbacks)
    return text


def _donation_aliases(in_avals, out_avals, donated):
    aliases = {}
    taken = set()
    for i, d in enumerate(donated):
        if not d:
            continue
        for j, ov in enumerate(out_avals):
            if j not in taken and ov.shape == in_avals[i].shape and ov.dtype == in_avals[i].dtype:
                aliases[i] = j
                taken.add(j)
                break
    return aliases


def define_primitive(name, abstract_eval, lower, *, pp=None, multiple_results=False):
    """A primitive with its abstract evaluation and lowering rules (and an
    optional parameter printer) registered: the data every primitive needs."""
    p = core.Primitive(name)
    p.multiple_results = multiple_results
    core.abstract_eval_rules[p] = abstract_eval
    rules[p] = lower
    if pp is not None:
        core.pp_param_rules[p] = pp
    return p
