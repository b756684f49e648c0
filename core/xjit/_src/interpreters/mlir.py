"""Lowering jaxprs to StableHLO text.

We emit MLIR in its generic textual form (``%3 = "stablehlo.add"(%1, %2) :
(tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>``): string building is far
cheaper in Python than constructing op objects through the MLIR bindings, and
the PJRT client parses the text in C++. Every rule is platform-neutral
(plain StableHLO, no CPU-only custom calls), so the same module compiles for
CPU and for CUDA.

``rules[prim](ctx, avals_in, avals_out, *operands, **params)`` returns the SSA
name of the result (a list of names for multiple-result primitives).

Rules written JAX's way (``register_lowering(p, rule)`` with ``rule(ctx,
*ir_values, **params)`` building ops through jaxlib's MLIR bindings) join the
text through ``func.call``: the rule runs once per signature inside a private
function of a scratch bindings module, whose generic text is appended to the
module and called from the body (XLA inlines it). See ``register_lowering``.
Building the whole module through the bindings and handing PJRT bytecode
instead was measured (``bench/lowering_paths.py``, 3000 equations): it saves
the text parse but costs more Python per op, about 40 ms of a ~9.5 s
lower+compile that XLA's compile dominates, so the text stays.
"""
from __future__ import annotations

import math
import re
import threading

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

    __slots__ = ("lines", "count", "indent", "module_ctx", "loc")

    def __init__(self, module_ctx=None):
        self.lines: list[str] = []
        self.count = 0
        self.indent = "    "
        self.module_ctx = module_ctx if module_ctx is not None else ModuleContext()
        self.loc = ""  # the location of the equation being lowered (eqn_loc)

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
            f'({", ".join(in_types)}) -> {out_s}{self.loc}')
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
        self.op_prefix = ""  # "jit(f)/", the start of every op name (of this jaxpr level)
        self.lowering_eqn = None  # the equation whose rule is running (nested jaxprs' scope)
        self.keep_loc = False  # lowering an equation's implementation: its ops keep its loc
        self.eqn_count = 0  # equations lowered so far: the next one's number
        self.functions: list[str] = []  # private functions (bindings-built rules)
        self.function_names: dict = {}  # rule signature -> function name
        self.spmd = None  # a program over many devices: its mesh (xjit._src.pxla.SpmdModule)

    platforms = property(lambda self: (self.platform or _default_platform(),))
    context = property(lambda self: ir_context())

    def add_host_callback(self, fn) -> int:
        self.host_callbacks.append(fn)
        return len(self.host_callbacks) - 1

    def add_keepalive(self, obj):
        """JAX's hook for objects the executable must keep alive; the host
        callbacks, the only such objects here, are kept with the module text."""


class ModuleText(str):
    """Module text that also carries the host callbacks it refers to, so the
    compiler can pass them to PJRT."""

    host_callbacks: tuple = ()


_escaped_files: dict = {}


def _mlir_string(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def eqn_loc(module_ctx: ModuleContext, eqn) -> str:
    """The MLIR location every op of ``eqn`` carries: ``loc("jit(f)/block/
    tanh#12"("fn"("file.py":13:0)))``: its ``named_scope`` path, the
    primitive and the equation's number in lowering order as the op name,
    the user's function and line as its place. XLA keeps both as each HLO
    instruction's metadata (``op_name``, ``source_file``/``source_line``),
    through fusion, so profiles (``xjit.inspect.device_profile``, XProf)
    name the scope, equation and line."""
    k = module_ctx.eqn_count
    module_ctx.eqn_count = k + 1
    src = eqn.source_info
    if src is None:
        return f' loc("{module_ctx.op_prefix}{eqn.primitive.name}#{k}")'
    name = f"{_scope_prefix(module_ctx.op_prefix, src)}{eqn.primitive.name}#{k}"
    if src.filename is None:
        return f' loc("{name}")'
    f = _escaped_files.get(src.filename)
    if f is None:
        f = _escaped_files[src.filename] = _mlir_string(src.filename)
    return f' loc("{name}"("{src.function}"("{f}":{src.lineno}:0)))'


_scope_names: dict = {}  # "a/b" -> its escaped "a/b/" (few distinct per program)


def _scope_prefix(prefix: str, src) -> str:
    """``prefix`` followed by the equation's ``named_scope`` path."""
    stack = src.name_stack
    if stack is None:
        return prefix
    path = str(stack)
    scope = _scope_names.get(path)
    if scope is None:
        if len(_scope_names) > 4096:  # scopes named per step: keep the cache bounded
            _scope_names.clear()
        scope = _scope_names[path] = _mlir_string(f"{path}/") if path else ""
    return prefix + scope


def _nested_prefix(prefix: str, eqn) -> str:
    """The op-name prefix of a jaxpr lowered inside ``eqn``'s rule (a
    nested jit's, a loop body's): the equation's scope path, then
    ``jit(g)/`` or the primitive's name, as JAX names inner ops."""
    src = eqn.source_info
    head = _scope_prefix(prefix, src) if src is not None else prefix
    name = eqn.primitive.name
    call = (f"jit({_mlir_string(str(eqn.params.get('name')))})" if name == "jit"
            else _CALL_SCOPES.get(name, name))
    return f"{head}{call}/"


_CALL_SCOPES = {"remat2": "checkpoint"}  # JAX's scope names where not the primitive's


def lower_jaxpr(ctx: LoweringContext, jaxpr: core.Jaxpr, consts, args) -> list[str]:
    """Emit the equations of ``jaxpr`` inline; ``consts`` are SSA names or
    host values for its constvars, ``args`` SSA names for its invars."""
    env: dict = {}

    def read(v):
        if type(v) is core.Literal:
            return ctx.constant(np.asarray(v.val, v.aval.dtype), v.aval)
        return env[v]

    for v, c in zip(jaxpr.constvars, consts):
        if isinstance(c, str):
            env[v] = c
        elif getattr(v.aval.dtype, "extended", False):  # a key array: its key data
            env[v] = ctx.constant(c._value, v.aval.dtype.physical_aval(v.aval))
        else:
            env[v] = ctx.constant(np.asarray(c), v.aval)
    for v, a in zip(jaxpr.invars, args):
        env[v] = a
    outer_loc = ctx.loc
    module_ctx = ctx.module_ctx
    outer_prefix, outer_eqn = module_ctx.op_prefix, module_ctx.lowering_eqn
    keep_loc = module_ctx.keep_loc
    spmd = module_ctx.spmd
    typed = spmd is not None and not getattr(module_ctx, "manual", None)
    if outer_eqn is not None and not keep_loc:
        module_ctx.op_prefix = _nested_prefix(outer_prefix, outer_eqn)
    for eqn in jaxpr.eqns:
        if not keep_loc:
            ctx.loc = eqn_loc(module_ctx, eqn)
            module_ctx.lowering_eqn = eqn
        prim = eqn.primitive
        rule = rules.get(prim)
        if rule is None:
            raise NotImplementedError(f"MLIR translation rule for primitive '{prim.name}' not "
                                      f"found for platform {ctx.module_ctx.platforms[0]}")
        ins = [read(v) for v in eqn.invars]
        avals_in = [v.aval for v in eqn.invars]
        avals_out = [v.aval for v in eqn.outvars]
        out = rule(ctx, avals_in, avals_out, *ins, **eqn.params)
        if typed:  # explicitly sharded values: constrained as their types say
            out = _constrain_typed(ctx, spmd, eqn, out)
        if prim.multiple_results:
            for v, o in zip(eqn.outvars, out):
                env[v] = o
        else:
            env[eqn.outvars[0]] = out
    ctx.loc = outer_loc
    module_ctx.op_prefix, module_ctx.lowering_eqn = outer_prefix, outer_eqn
    return [read(v) for v in jaxpr.outvars]


def _constrain_typed(ctx, spmd, eqn, out):
    """``out`` with a sharding constraint on each value whose type carries an
    explicit sharding (JAX's ``lower_with_sharding_in_types``), so XLA's
    partitioner lays it out as the type says."""
    outs = out if eqn.primitive.multiple_results else [out]
    new = []
    for v, o in zip(eqn.outvars, outs):
        aval = v.aval
        attr = None if getattr(aval, "_sharding", None) is None or type(o) is not str \
            else spmd.type_constraint(aval)
        if attr is None:
            new.append(o)
            continue
        t = ttype(aval)
        new.append(ctx.op("sdy.sharding_constraint", [o], [t], t, attrs=f"sharding = {attr}"))
    return new if eqn.primitive.multiple_results else new[0]


# closed jaxpr -> closed jaxpr rewrites run before lowering (e.g. discharging refs)
prepare_rules: list = []


def lower_module(name: str, closed: core.ClosedJaxpr, donated=(), arg_names=None,
                 spmd=None, platform=None) -> str:
    """The text of a StableHLO module whose ``main`` computes ``closed``.

    ``donated[i]`` marks input i as donated: it is aliased to the first
    not-yet-aliased output with the same type (``tf.aliasing_output``).
    ``spmd`` (``xjit._src.pxla.SpmdModule``) makes it a program over many
    devices: its partition count, mesh declaration and per-argument and
    per-result sharding attributes. ``platform`` ("cpu", "gpu"; None: the
    default backend's) picks the rules' platform-specific kernels."""
    for rule in prepare_rules:
        closed = rule(closed)
    jaxpr = closed.jaxpr
    ctx = LoweringContext()
    ctx.module_ctx.spmd = spmd
    ctx.module_ctx.platform = platform
    ctx.module_ctx.op_prefix = f"jit({_mlir_string(name)})/"
    in_avals = [v.aval for v in jaxpr.invars]
    out_avals = [v.aval for v in jaxpr.outvars]
    args = [f"%arg{i}" for i in range(len(in_avals))]
    outs = lower_jaxpr(ctx, jaxpr, closed.consts, args)
    aliases = _donation_aliases(in_avals, out_avals, donated)
    params = []
    for i, (a, av) in enumerate(zip(args, in_avals)):
        attr = f" {{tf.aliasing_output = {aliases[i]} : i32}}" if i in aliases else ""
        if spmd is not None:
            attr = spmd.arg_attr(i, attr)
        params.append(f"{a}: {ttype(av)}{attr}")
    results = ", ".join(f'{ttype(av)} {{jax.result_info = "result"'
                        f'{spmd.result_attr(j) if spmd is not None else ""}}}'
                        for j, av in enumerate(out_avals))
    body = "\n".join(ctx.lines)
    ret = (f'    "func.return"({", ".join(outs)}) : '
           f'({", ".join(ttype(av) for av in out_avals)}) -> ()')
    mod_name = _module_symbol("jit_" + name)
    text = (f"module @{mod_name} attributes {{mhlo.num_partitions = "
            f"{1 if spmd is None else spmd.num_partitions} : i32, "
            f"mhlo.num_replicas = 1 : i32}} {{\n{'' if spmd is None else spmd.mesh_decl}"
            f"  func.func public @main({', '.join(params)}) -> ({results}) {{\n"
            f"{body}\n{ret}\n  }}\n{''.join(ctx.module_ctx.functions)}}}\n")
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


# --------------------------------------------------------------------------
# JAX's registration API: rules over jaxlib's MLIR bindings, and lower_fun


def _default_platform():
    return default_platform()


# The default backend's platform name; set by ``dispatch`` (the backends sit
# in a layer above the interpreters).
default_platform = None


# JAX names GPU rules by vendor; the engine's GPU backend is "gpu"
_PLATFORM_ALIASES = {"gpu": ("gpu", "cuda", "rocm"), "cuda": ("gpu", "cuda"),
                     "rocm": ("gpu", "rocm")}


def register_lowering(prim, rule, platform=None):
    """Register ``rule(ctx, *operands, **params)`` as ``prim``'s lowering, JAX's way.

    ``rule`` either comes from ``lower_fun`` (then it is emitted inline as
    text, like the engine's own rules), or builds ops with jaxlib's MLIR
    bindings on ``ir.Value`` operands and returns the result values. A rule
    for another ``platform`` than the default backend's is ignored."""
    if platform is not None:
        wanted = _PLATFORM_ALIASES.get(platform, (platform,))
        if _default_platform() not in wanted:
            return
    rules[prim] = rule if isinstance(rule, LoweredFun) else BindingsRule(prim, rule)


class LoweredFun:
    """The rule ``lower_fun`` returns: ``fun`` (written with lax/jnp calls)
    staged into a jaxpr at the operands' avals and lowered. Called by the
    text lowering it emits the equations inline; called from a bindings rule
    (with a ``LoweringRuleContext``) it returns ``ir.Value`` results."""

    __slots__ = ("fun", "multiple_results", "cache")

    def __init__(self, fun, multiple_results=True):
        self.fun, self.multiple_results = fun, multiple_results
        self.cache = {}  # (avals, params) -> traced jaxpr: traced once per signature

    def _jaxpr(self, avals_in, params):
        from xjit._src.interpreters import partial_eval as pe
        try:
            key = (tuple(avals_in), tuple(sorted(params.items())))
            hit = self.cache.get(key)
        except TypeError:  # unhashable params
            key = hit = None
        if hit is not None:
            return hit
        fun, multi = self.fun, self.multiple_results

        def flat(*xs):
            out = fun(*xs, **params)
            return list(out) if multi else [out]
        with core.set_current_trace(core.eval_trace):
            traced = pe.trace_to_jaxpr(flat, list(avals_in))
        if key is not None:
            self.cache[key] = traced
        return traced

    def __call__(self, ctx, *args, **params):
        if isinstance(ctx, LoweringRuleContext):
            return _call_from_bindings(self, ctx, args, params)
        avals_in, avals_out, operands = args[0], args[1], args[2:]
        jaxpr, consts = self._jaxpr(avals_in, params)
        module_ctx = ctx.module_ctx
        keep_loc, module_ctx.keep_loc = module_ctx.keep_loc, True  # the ops are the equation's
        try:
            outs = lower_jaxpr(ctx, jaxpr, consts, list(operands))
        finally:
            module_ctx.keep_loc = keep_loc
        return outs if self.multiple_results else outs[0]


def lower_fun(fun, multiple_results=True):
    """A lowering rule computing ``fun(*operands, **params)`` (JAX's ``lower_fun``)."""
    return LoweredFun(fun, multiple_results)


class LoweringRuleContext:
    """What a bindings rule sees besides its operands (JAX's names)."""

    __slots__ = ("module_context", "primitive", "avals_in", "avals_out", "tokens_in",
                 "tokens_out", "name_stack")

    def __init__(self, module_context, primitive, avals_in, avals_out):
        self.module_context, self.primitive = module_context, primitive
        self.avals_in, self.avals_out = list(avals_in), list(avals_out)
        self.tokens_in = self.tokens_out = None
        self.name_stack = ""

    platforms = property(lambda self: self.module_context.platforms)

    def replace(self, **kw):
        new = LoweringRuleContext(self.module_context, self.primitive, self.avals_in,
                                  self.avals_out)
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    def set_tokens_out(self, tokens_out):
        self.tokens_out = tokens_out


_fn_counter = iter(range(1 << 62))


class BindingsRule:
    """A text rule wrapping a bindings rule: each distinct (avals, params)
    signature becomes one private function, built once per process and
    called once per equation."""

    __slots__ = ("prim", "rule", "cache")

    def __init__(self, prim, rule):
        self.prim, self.rule, self.cache = prim, rule, {}

    def __call__(self, ctx, avals_in, avals_out, *operands, **params):
        try:
            key = (tuple(avals_in), tuple(avals_out), tuple(sorted(params.items())))
            hash(key)
        except TypeError:  # unhashable params: build afresh
            key = None
        built = self.cache.get(key) if key is not None else None
        if built is None:
            mctx = ctx.module_ctx
            n_callbacks = len(mctx.host_callbacks)
            built = _build_function(self.prim, self.rule, mctx, avals_in, avals_out, params)
            # a rule that added a host callback refers to it by this module's index
            if key is not None and len(mctx.host_callbacks) == n_callbacks:
                self.cache[key] = built
        name, texts = built
        mctx = ctx.module_ctx
        if name not in mctx.function_names:
            mctx.function_names[name] = True
            mctx.functions.extend(texts)
        outs = ctx.op("func.call", list(operands), [ttype(a) for a in avals_in],
                      [ttype(a) for a in avals_out], attrs=f"callee = @{name}")
        return outs if self.prim.multiple_results else outs[0]


_ir_lock = threading.RLock()  # one MLIR context, built in by one thread at a time


def _build_function(prim, rule, module_ctx, avals_in, avals_out, params):
    """Run ``rule`` in a private function of a scratch module: (its name, the
    generic text of every function the rule created)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func
    name = f"{_symbol(prim.name)}_{next(_fn_counter)}"
    with _ir_lock, ir_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(name, ([aval_to_ir_type(a) for a in avals_in],
                                    [aval_to_ir_type(a) for a in avals_out]))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            rctx = LoweringRuleContext(module_ctx, prim, avals_in, avals_out)
            outs = _flatten_results(rule(rctx, *block.arguments, **params))
            got = [str(v.type) for v in outs]
            want = [str(aval_to_ir_type(a)) for a in avals_out]
            if got != want:
                raise ValueError(f"lowering rule for primitive '{prim.name}' returned values "
                                 f"of types {got}, but its abstract evaluation says {want}")
            func.ReturnOp(outs)
        texts = ["  " + op.get_asm(print_generic_op_form=True) + "\n"
                 for op in module.body.operations]
    return name, texts


def _flatten_results(outs):
    from jaxlib.mlir import ir
    if isinstance(outs, ir.Value):
        return [outs]
    if isinstance(outs, (ir.Operation, ir.OpView)):
        return list(outs.results)
    flat = []
    for o in outs:
        flat.extend(_flatten_results(o) if not isinstance(o, ir.Value) else [o])
    return flat


def _symbol(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def _call_from_bindings(lowered, ctx, operands, params):
    """``lower_fun``'s rule invoked inside a bindings rule: lower the jaxpr to
    text as a private function, parse it into the rule's context and call it."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func
    jaxpr, consts = lowered._jaxpr(ctx.avals_in, params)
    closed = core.ClosedJaxpr(jaxpr, consts)
    text = lower_module("lower_fun", closed)
    op = ir.InsertionPoint.current.block.owner.operation
    while op.name != "builtin.module":
        op = op.parent.operation
    name = f"lower_fun_{next(_fn_counter)}"
    parsed = ir.Module.parse(text)  # owns ``main``: keep it alive until cloned
    main = parsed.body.operations[0]
    main.attributes["sym_name"] = ir.StringAttr.get(name)
    main.attributes["sym_visibility"] = ir.StringAttr.get("private")
    for attr in ("arg_attrs", "res_attrs"):
        if attr in main.attributes:
            del main.attributes[attr]
    main.operation.clone(ip=ir.InsertionPoint(op.regions[0].blocks[0]))
    call = func.CallOp([aval_to_ir_type(a) for a in ctx.avals_out],
                       ir.FlatSymbolRefAttr.get(name), list(operands))
    return list(call.results)


# -- helpers with JAX's names for bindings rules

_ir_ctx = None


def make_ir_context():
    """A new MLIR context with the dialects StableHLO lowering uses loaded."""
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, sdy, stablehlo
    ctx = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)  # asinh, nextafter, ...: parsed when a program has callbacks
    sdy.register_dialect(ctx)  # Shardy: the sharding annotations of programs over many devices
    return ctx


def ir_context():
    """The context every bindings rule builds in (one per process)."""
    global _ir_ctx
    if _ir_ctx is None:
        with _ir_lock:
            if _ir_ctx is None:
                _ir_ctx = make_ir_context()
    return _ir_ctx


def dtype_to_ir_type(dtype):
    from jaxlib.mlir import ir
    return ir.Type.parse(mlir_dtype(dtype))


def aval_to_ir_type(aval):
    from jaxlib.mlir import ir
    return ir.Type.parse(ttype(aval))


def aval_to_ir_types(aval):
    return (aval_to_ir_type(aval),)


def ir_constant(val):
    """A ``stablehlo.constant`` holding ``val`` (a NumPy or Python value)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo
    val = np.asarray(val)
    val = val.astype(dtypes.canonicalize_dtype(val.dtype))  # float64 -> float32 without x64
    attr = ir.DenseElementsAttr.get(val, type=dtype_to_ir_type(val.dtype), shape=val.shape)
    return stablehlo.ConstantOp(attr).result


def ir_constants(val):
    return [ir_constant(val)]


def flatten_ir_values(xs):
    """One flat list from values and sequences of values."""
    from jaxlib.mlir import ir
    out = []
    for x in xs:
        out.extend([x] if isinstance(x, ir.Value) else x)
    return out


def flatten_ir_types(xs):
    from jaxlib.mlir import ir
    out = []
    for x in xs:
        out.extend([x] if isinstance(x, ir.Type) else x)
    return out


def dense_int_array(xs):
    from jaxlib.mlir import ir
    return ir.DenseI64ArrayAttr.get([int(x) for x in xs])


def dense_int_elements(xs):
    from jaxlib.mlir import ir
    return ir.DenseIntElementsAttr.get(np.asarray(xs, np.int64))


def i32_attr(i):
    from jaxlib.mlir import ir
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), i)


def i64_attr(i):
    from jaxlib.mlir import ir
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i)


def token_type():
    from jaxlib.mlir.dialects import stablehlo
    return stablehlo.TokenType.get()


def module_to_string(module, enable_debug_info=None):
    return module.operation.get_asm(enable_debug_info=bool(enable_debug_info))


def module_to_bytecode(module):
    import io
    out = io.BytesIO()
    module.operation.write_bytecode(out)
    return out.getvalue()


def _module_symbol(name):
    """The module's symbol as JAX names it: characters other than word
    characters, '.' and '-' become '_', trailing '_' are dropped, and a name
    MLIR cannot write bare is quoted."""
    name = re.sub(r"[^\w.-]", "_", name).rstrip("_")
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", name) else f'"{name}"'
