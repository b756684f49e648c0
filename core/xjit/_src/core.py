"""The IR and the tracing machinery: abstract values, primitives, jaxprs,
tracers and traces.

As in Autodidax, every transformation is an interpreter: a ``Trace`` subclass
whose ``process_primitive`` says what applying a primitive means for it. There
is one *current* trace at a time (``trace_ctx.trace``); ``Primitive.bind``
hands the primitive to it. The bottom trace (``EvalTrace``) runs primitives
eagerly; a transformation's trace processes its own tracers and delegates to
the trace it was created over (``parent``) by binding under it.
"""
from __future__ import annotations

import itertools
import operator
import sys
import threading
from typing import Any, Callable

import numpy as np

from . import dtypes
from . import errors
from .config import config as _config

# --------------------------------------------------------------------------
# Abstract values (abstract_arrays.py), re-exported as JAX's core has them

from .abstract_arrays import (  # noqa: E402,F401
    AbstractValue, ManualAxisType, ShapedArray, empty_mat, order_wrt_mesh,
    primal_dtype_to_tangent_dtype)


_flags = _config._values  # read directly: attribute access on ``config`` is slower
_scalar_avals: dict = {}  # (Python or NumPy scalar type, x64) -> its aval


def aval_of(x) -> ShapedArray:
    """The abstract value of any array-like: tracer, Array, NumPy or Python value."""
    t = type(x)
    if t is float or t is int or t is bool or t is complex:
        key = (t, _flags["jax_enable_x64"])
        aval = _scalar_avals.get(key)
        if aval is None:
            aval = _scalar_avals[key] = ShapedArray((), dtypes.dtype(x, canonicalize=True),
                                                    t is not bool)
        return aval
    if isinstance(x, np.generic):
        key = (t, _flags["jax_enable_x64"])
        aval = _scalar_avals.get(key)
        if aval is None:
            aval = _scalar_avals[key] = ShapedArray((), dtypes.canonicalize_dtype(x.dtype), False)
        return aval
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        return ShapedArray((), dtypes.dtype(x, canonicalize=True), type(x) is not bool)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), False)
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type")


# --------------------------------------------------------------------------
# Primitives


class Primitive:
    """A primitive operation: a name plus rules looked up in per-transformation
    tables keyed by the primitive (abstract eval, lowering, jvp, ...).

    ``def_impl``/``def_abstract_eval`` are JAX's public way to register the
    first two; they write the same tables the engine's own primitives use."""

    multiple_results = False
    call_primitive = False
    is_effectful = False

    def __init__(self, name: str):
        self.name = name

    def def_impl(self, impl):
        """``impl(*values, **params)`` runs the primitive on concrete values."""
        impl_rules[self] = impl
        return impl

    def def_abstract_eval(self, abstract_eval):
        """``abstract_eval(*avals, **params)`` returns the output aval (a list
        of them for ``multiple_results`` primitives)."""
        abstract_eval_rules[self] = abstract_eval
        return abstract_eval

    def def_effectful_abstract_eval(self, effectful_abstract_eval):
        """Like ``def_abstract_eval`` for a rule returning ``(avals, effects)``.
        Effects are not modelled here (no pass reorders or drops equations by
        them), so only the avals are kept."""
        def rule(*avals, **params):
            return effectful_abstract_eval(*avals, **params)[0]
        abstract_eval_rules[self] = rule
        return effectful_abstract_eval

    def __repr__(self):
        return self.name

    def bind(self, *args, **params):
        return trace_ctx.trace.process_primitive(self, args, params)

    def bind_with_trace(self, trace, args, params):
        return trace.process_primitive(self, args, params)

    def get_bind_params(self, params):
        """The keywords ``bind`` takes to re-run an equation with ``params``
        (equinox's jaxpr interpreters ask). JAX rewrites call primitives' jaxprs
        into functions here; xjit's primitives bind their equations' params as
        they are (``eval_jaxpr`` does)."""
        return params

    def impl(self, *args, **params):
        rule = impl_rules.get(self)
        if rule is None:
            return default_impl(self, *args, **params)
        return rule(*args, **params)

    def abstract_eval(self, *avals, **params):
        try:
            rule = abstract_eval_rules[self]
        except KeyError:
            raise NotImplementedError(f"Abstract evaluation for '{self.name}' not implemented") from None
        out = rule(*avals, **params)
        if typed_outputs is not None:
            for a in avals:
                if getattr(a, "typed", False):
                    return typed_outputs(self, avals, out, params)
        return out


impl_rules: dict[Primitive, Callable] = {}
default_impl: Callable = None  # eager dispatch of one primitive, set by dispatch.py
abstract_eval_rules: dict[Primitive, Callable] = {}
pp_param_rules: dict[Primitive, Callable] = {}  # params -> params to print
pp_eqn_rules: dict[Primitive, Callable] = {}  # (eqn, pretty.Context) -> Doc: own syntax
# (primitive, in avals, out aval(s), params) -> out aval(s) with the sharding
# and manual axis type the inputs' types give them; set by sharding_in_types.py
# and called only when an input's type carries either.
typed_outputs: Callable | None = None


# --------------------------------------------------------------------------
# Source information: the user's line that created an equation

_INTERNAL_DIRS: tuple[str, ...] = ()


def register_internal_dir(path: str):
    """Frames whose file lies under ``path`` are skipped when attributing an
    equation to the user's source line."""
    global _INTERNAL_DIRS
    _INTERNAL_DIRS = _INTERNAL_DIRS + (path,)


class SourceInfo:
    """Where an equation came from: the innermost user frame (file, line,
    function), plus the chain of user frames above it, and the
    ``named_scope``s it was staged under (a ``source_info_util.NameStack``,
    None for none; lowering puts it in the op's name)."""

    __slots__ = ("filename", "lineno", "function", "frames", "_code", "_lasti", "name_stack")

    def __init__(self, filename, lineno, function, frames=(), code=None, lasti=-1,
                 name_stack=None):
        self.filename, self.lineno, self.function, self.frames = filename, lineno, function, frames
        self._code, self._lasti = code, lasti  # for the column, worked out only when asked
        self.name_stack = name_stack

    @property
    def column(self) -> int:
        code = self._code
        if code is None or self._lasti < 0:
            return 0
        for i, pos in enumerate(code.co_positions()):
            if i == self._lasti // 2:
                return pos[2] or 0
        return 0

    def __repr__(self):
        return f"{self.filename}:{self.lineno} ({self.function})"


_internal_cache: dict[str, bool] = {}


def _is_internal(filename: str) -> bool:
    r = _internal_cache.get(filename)
    if r is None:
        r = filename.startswith(_INTERNAL_DIRS) or filename.startswith("<frozen ")
        _internal_cache[filename] = r
    return r


class _NameStack(threading.local):
    """The ``named_scope``s entered in this thread (``source_info_util``
    pushes and pops them; None: none)."""
    value = None


name_stack = _NameStack()


def current_source_info() -> SourceInfo | None:
    f = sys._getframe(1)
    while f is not None:
        code = f.f_code
        if not _is_internal(code.co_filename):
            return SourceInfo(code.co_filename, f.f_lineno, code.co_name, (), code, f.f_lasti,
                              name_stack.value)
        f = f.f_back
    return None


def user_frame():
    """The innermost frame outside xjit (for error messages)."""
    f = sys._getframe(1)
    while f is not None and _is_internal(f.f_code.co_filename):
        f = f.f_back
    return f


# --------------------------------------------------------------------------
# The IR


no_effects: frozenset = frozenset()


class Var:
    __slots__ = ("aval", "suffix")
    _count = itertools.count()

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Var(id={id(self)}):{self.aval.str_short(False)}"


class DropVar(Var):
    """An output nobody uses, printed as ``_``."""
    __slots__ = ()


class Literal:
    """A scalar constant inlined into an equation (printed ``2.0:f32[]``)."""

    __slots__ = ("val", "aval")

    def __init__(self, val, aval: ShapedArray):
        self.val, self.aval = val, aval

    def __repr__(self):
        return f"Literal({self.val})"


class JaxprEqn:
    __slots__ = ("invars", "outvars", "primitive", "params", "source_info")

    def __init__(self, invars, outvars, primitive, params, source_info=None):
        self.invars, self.outvars = invars, outvars
        self.primitive, self.params, self.source_info = primitive, params, source_info

    # Effects and the per-equation context are not modelled (see
    # ``Primitive.def_effectful_abstract_eval``); read as JAX's empty values.
    effects = property(lambda self: no_effects)
    ctx = property(lambda self: None)

    def replace(self, **kw):
        kw.pop("effects", None)
        kw.pop("ctx", None)
        new = JaxprEqn(self.invars, self.outvars, self.primitive, self.params, self.source_info)
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    def __repr__(self):
        from .pretty import pp_eqn_str
        return pp_eqn_str(self)


class Jaxpr:
    __slots__ = ("constvars", "invars", "outvars", "eqns", "debug_info")

    def __init__(self, constvars, invars, outvars, eqns, debug_info=None):
        self.constvars, self.invars = list(constvars), list(invars)
        self.outvars, self.eqns = list(outvars), list(eqns)
        self.debug_info = debug_info

    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])
    effects = property(lambda self: no_effects)

    def replace(self, **kw):
        kw.pop("effects", None)
        f = {k: kw.pop(k, getattr(self, k)) for k in self.__slots__}
        if kw:
            raise TypeError(f"Jaxpr.replace got unexpected fields {sorted(kw)}")
        return Jaxpr(**f)

    def __str__(self):
        from .pretty import pp_jaxpr
        return pp_jaxpr(self)

    __repr__ = __str__

    def pretty_print(self, **kw):
        from .pretty import pp_jaxpr
        return pp_jaxpr(self, **kw)


class ClosedJaxpr:
    """A jaxpr with its constants bound to values."""

    __slots__ = ("jaxpr", "consts", "__weakref__")  # jit caches executables per jaxpr

    def __init__(self, jaxpr: Jaxpr, consts):
        self.jaxpr, self.consts = jaxpr, list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)
    constvars = property(lambda self: self.jaxpr.constvars)
    invars = property(lambda self: self.jaxpr.invars)
    outvars = property(lambda self: self.jaxpr.outvars)
    effects = property(lambda self: no_effects)
    literals = property(lambda self: self.consts)  # JAX's name for the same list

    def map_jaxpr(self, f):
        return ClosedJaxpr(f(self.jaxpr), self.consts)

    def replace(self, *, jaxpr=None, consts=None):
        return ClosedJaxpr(self.jaxpr if jaxpr is None else jaxpr,
                           self.consts if consts is None else consts)

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, **kw):
        return self.jaxpr.pretty_print(**kw)


class _EqnSource(threading.local):
    """The source info of the equation an interpreter is evaluating, so a
    check that fires inside it (NaN replay) can name the user's line. One per
    thread, as each thread interprets its own jaxprs."""
    value = None

    def get(self):
        return self.value


eqn_source = _EqnSource()


def eval_jaxpr(jaxpr: Jaxpr, consts, *args):
    """Interpret a jaxpr with the current trace (so it composes with every
    transformation)."""
    env: dict[Var, Any] = {}

    def read(v):
        return v.val if type(v) is Literal else env[v]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    saved = eqn_source.value
    try:
        for eqn in jaxpr.eqns:
            eqn_source.value = eqn.source_info
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            if eqn.primitive.multiple_results:
                for v, x in zip(eqn.outvars, outs):
                    env[v] = x
            else:
                env[eqn.outvars[0]] = outs
    finally:
        eqn_source.value = saved
    return [read(v) for v in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr, *args):
    """``closed`` as a Python function of its inputs (curried when no args)."""
    if not args:
        return lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs)
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=no_effects, source_info=None,
                  ctx=None):
    return JaxprEqn(list(invars), list(outvars), primitive, params, source_info)


def gensym(suffix=""):
    """A function making fresh variables (``gensym()(aval)``)."""
    return Var


def jaxprs_in_params(params):
    """The jaxprs held directly in an equation's params (closed ones opened)."""
    for val in params.values():
        for v in (val if isinstance(val, tuple) else (val,)):
            if isinstance(v, Jaxpr):
                yield v
            elif isinstance(v, ClosedJaxpr):
                yield v.jaxpr


def subjaxprs(jaxpr: Jaxpr):
    """The jaxprs in the params of ``jaxpr``'s equations (not recursively)."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


class Effect:
    """Base of side-effect kinds (effects are not tracked by this engine)."""


class JaxprTypeError(TypeError):
    pass


class InconclusiveDimensionOperation(Exception):
    """Raised by shape arithmetic on symbolic dimensions (none exist here)."""


def check_jaxpr(jaxpr: Jaxpr):
    """Raise ``JaxprTypeError`` unless every variable is bound before use and
    every equation's output types are what its primitive's abstract
    evaluation gives (sub-jaxprs are checked too)."""
    bound = set(jaxpr.constvars)

    def check_bind(v, where):
        if v in bound:
            raise JaxprTypeError(f"Variable '{v}' already bound ({where})")
        bound.add(v)

    for v in jaxpr.invars:
        if v in bound:
            raise JaxprTypeError(f"Variable '{v}' already bound (jaxpr invars)")
        bound.add(v)
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if type(v) is not Literal and v not in bound:
                raise JaxprTypeError(f"Variable '{v}' not defined (in equation {i}: {eqn})")
        try:
            out = eqn.primitive.abstract_eval(*[v.aval for v in eqn.invars], **eqn.params)
        except Exception as e:
            raise JaxprTypeError(f"Equation {i} ({eqn.primitive}) fails to type-check: {e}") from e
        outs = out if eqn.primitive.multiple_results else [out]
        for v, a in zip(eqn.outvars, outs):
            if (v.aval.shape, v.aval.dtype) != (a.shape, a.dtype):
                raise JaxprTypeError(f"Equation {i} ({eqn.primitive}) output type {v.aval} "
                                     f"does not match its abstract evaluation {a}")
            if type(v) is not DropVar:
                check_bind(v, f"equation {i}")
        for sub in jaxprs_in_params(eqn.params):
            check_jaxpr(sub)
    for v in jaxpr.outvars:
        if type(v) is not Literal and v not in bound:
            raise JaxprTypeError(f"Variable '{v}' not defined (jaxpr outvars)")


def mapped_aval(size, axis, aval):
    """``aval`` with axis ``axis`` (of length ``size``) removed."""
    if axis is None:
        return aval
    assert aval.shape[axis] == size, (aval, axis, size)
    spec = getattr(aval, "spec", None)
    if spec is not None:
        parts = spec_parts(aval)
        return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:],
                           sharding=aval._sharding.update(spec=aval.spec.update(
                               partitions=parts[:axis] + parts[axis + 1:])))
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size, axis, aval, explicit_mesh_axis=None):
    """``aval`` with an axis of length ``size`` inserted at ``axis``."""
    if axis is None:
        return aval
    spec = getattr(aval, "spec", None)
    if spec is not None:  # the new axis is sharded over ``explicit_mesh_axis`` (or not)
        parts = spec_parts(aval)
        return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:],
                           sharding=aval._sharding.update(spec=aval.spec.update(
                               partitions=parts[:axis] + (explicit_mesh_axis,) + parts[axis:])))
    return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


def spec_parts(aval) -> tuple:
    """An aval's explicit layout, one entry a dimension (all None when untyped)."""
    parts = tuple(aval.spec) if aval.spec is not None else ()
    return parts + (None,) * (len(aval.shape) - len(parts))


def valid_jaxtype(x) -> bool:
    try:
        aval_of(x)
    except TypeError:
        return False
    return True


def max_dim(d1, d2):
    return max(operator.index(d1), operator.index(d2))


def min_dim(d1, d2):
    return min(operator.index(d1), operator.index(d2))


# --------------------------------------------------------------------------
# Traces and tracers


class _LaxOps:
    """The few lax operations the layers below lax need (unpacking a tracer,
    zeros for symbolic tangents, moving batch axes). lax fills these in when
    it is imported (``lax_ops.register``), so core and the interpreters never
    import lax."""

    def register(self, **ops):
        for name, fn in ops.items():
            setattr(self, name, fn)

    def __getattr__(self, name):
        raise RuntimeError(f"lax operation {name!r} is needed before xjit.lax was imported")


lax_ops = _LaxOps()


class TraceCtx(threading.local):
    """The current trace, one per thread: a thread tracing a jit must not
    turn another thread's eager operations into tracers. A new thread starts
    at the bottom (eager) trace."""

    def __init__(self):
        self.trace = eval_trace


trace_ctx = TraceCtx.__new__(TraceCtx)  # its first __init__ runs once eval_trace exists


def trace_state_clean() -> bool:
    """Whether no transformation is running on this thread (libraries ask
    before caching a function that may close over tracers: numpyro). Named
    axes are bound only while tracing, so the current trace tells."""
    return trace_ctx.trace is eval_trace


class set_current_trace:
    """Context manager making ``trace`` the one ``bind`` hands primitives to."""

    __slots__ = ("new", "prev")

    def __init__(self, trace):
        self.new = trace

    def __enter__(self):
        self.prev = trace_ctx.trace
        trace_ctx.trace = self.new
        return self.new

    def __exit__(self, *exc):
        trace_ctx.trace = self.prev


class take_current_trace:
    """Context manager yielding the current trace with the eval trace current:
    how a custom ``bind`` hands a primitive to the trace it came from."""

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = trace_ctx.trace
        trace_ctx.trace = eval_trace
        return self.prev

    def __exit__(self, *exc):
        trace_ctx.trace = self.prev


def eval_context():
    """Context manager making primitives run eagerly (the eval trace current)."""
    return set_current_trace(eval_trace)


def find_top_trace(_):
    """The trace primitives are handed to now (JAX keeps the argument unused too)."""
    return trace_ctx.trace


class Trace:
    """Base of all interpreters. ``parent`` is the trace this one delegates to."""

    parent: "Trace | None" = None

    def process_primitive(self, primitive, args, params):
        raise NotImplementedError

    def is_valid(self):
        return True

    @property
    def main(self):
        """JAX's deprecated ``Trace.main`` (its tag): what tells one transformation's
        tracers from another's (equinox's filter_jvp compares ``x._trace.main``).
        Each xjit transformation has its own trace object, so that is the trace."""
        return self


class EvalTrace(Trace):
    """The bottom of every stack: primitives run eagerly on the device."""

    def process_primitive(self, primitive, args, params):
        for a in args:
            if isinstance(a, Tracer):
                raise errors.UnexpectedTracerError(_leak_message(a))
        rule = impl_rules.get(primitive)
        if rule is None:
            if primitive not in abstract_eval_rules:  # a user primitive with no rules yet
                raise NotImplementedError(f"Evaluation rule for '{primitive.name}' not implemented")
            return default_impl(primitive, *args, **params)
        return rule(*args, **params)

    def __repr__(self):
        return "EvalTrace"


eval_trace = EvalTrace()
trace_ctx.__init__()


def _leak_message(tracer):
    return (f"Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
            f"allowing for a reference to an intermediate value with type {tracer.aval.str_short(False)} "
            f"wrapped in a {type(tracer).__name__} to escape the scope of the transformation.\n"
            f"JAX transformations require that functions explicitly return their outputs, and "
            f"disallow saving intermediate values to global state.\n"
            f"The function being traced when the value leaked was {tracer._trace.fun_desc()}.\n"
            f"See https://docs.jax.dev/en/latest/errors.html#jax.errors.UnexpectedTracerError")


class Tracer:
    """A value being traced. Operators and array methods are installed by
    ``xjit.numpy`` so tracers and concrete arrays behave alike."""

    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        """Unpacking slices along the leading axis (with explicit unit
        strides, as JAX's iteration does), then squeezes it."""
        shape = self.aval.shape
        if not shape:
            raise TypeError("iteration over a 0-d array")
        return lax_ops.iter_leading(self)

    def _origin(self):
        return self._trace.origin_message(self)

    def __bool__(self):
        raise errors.TracerBoolConversionError(self)

    def __int__(self):
        raise errors.ConcretizationTypeError(self, "The problem arose with the `int` function. If trying to convert the data type of a value, try using `x.astype(int)` or `jnp.array(x, int)` instead.")

    def __float__(self):
        raise errors.ConcretizationTypeError(self, "The problem arose with the `float` function. If trying to convert the data type of a value, try using `x.astype(float)` or `jnp.array(x, float)` instead.")

    def __complex__(self):
        raise errors.ConcretizationTypeError(self, "The problem arose with the `complex` function. If trying to convert the data type of a value, try using `x.astype(complex)` or `jnp.array(x, complex)` instead.")

    def __index__(self):
        raise errors.TracerIntegerConversionError(self)

    def __array__(self, *args, **kw):
        raise errors.TracerArrayConversionError(self)

    def __hash__(self):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")

    def __getattr__(self, name):
        """Methods an aval type gives its tracers (a ref's ``addupdate``), as
        JAX's aval methods; only reached when normal lookup fails."""
        if name != "aval" and not name.startswith("_"):
            method = getattr(type(self.aval), "tracer_methods", {}).get(name)
            if method is not None:
                return lambda *args, **kw: method(self, *args, **kw)
        raise AttributeError(f"{type(self).__name__} has no attribute {name}")

    def __setitem__(self, idx, value):
        setitem = getattr(self.aval, "_setitem", None)  # a ref's tracer: ref[idx] = value
        if setitem is not None:
            return setitem(self, idx, value)
        raise TypeError(errors.IMMUTABLE_MESSAGE)

    def item(self, *args):
        raise errors.ConcretizationTypeError(self, "The problem arose with the `item` function.")

    def tolist(self):
        raise errors.ConcretizationTypeError(self, "The problem arose with the `tolist` function.")

    def __repr__(self):
        aval = self.aval
        return f"{self._trace.tracer_name}({'~' if aval.weak_type else ''}{aval.str_short(False)})"

    __str__ = __repr__


def full_lower(x):
    return x


def is_concrete(x) -> bool:
    return not isinstance(x, Tracer)


def concrete_or_error(fun, x, context=""):
    """``fun(x)`` when x is concrete, else JAX's ConcretizationTypeError."""
    if isinstance(x, Tracer):
        raise errors.ConcretizationTypeError(x, context)
    return fun(x) if fun is not None else x


def canonicalize_shape(shape, negative_error=""):
    """Validate and normalise a shape to a tuple of non-negative Python ints.

    ``negative_error`` is the start of the TypeError a primitive raises for a
    negative dimension (JAX's message names the primitive that rejects it)."""
    given = shape
    try:
        if isinstance(shape, str):
            raise TypeError
        shape = tuple(shape)
    except TypeError:
        shape = given = (shape,)
    out = []
    for d in shape:
        if isinstance(d, Tracer):
            msg = (f"Shapes must be 1D sequences of concrete values of integer type, got {given}.\n"
                   "If using `jit`, try using `static_argnums` or applying `jit` to smaller "
                   "subfunctions.")
            origin = d._origin()
            raise TypeError(msg + ("\n" + origin if origin else ""))
        try:
            d = operator.index(d)
        except TypeError:
            raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                            f"got {shape}.") from None
        out.append(d)
    if any(d < 0 for d in out):
        if negative_error:
            raise TypeError(f"{negative_error}, got {tuple(out)}.")
        raise ValueError(f"Shapes must be 1D sequences of non-negative integers, got {shape}.")
    return tuple(out)
