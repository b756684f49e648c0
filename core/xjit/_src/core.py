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
from typing import Any, Callable

import numpy as np

from . import dtypes
from . import errors
from .config import config as _config

# --------------------------------------------------------------------------
# Abstract values


class ShapedArray:
    """The abstract value of an array: shape, dtype and weak type."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash")
    array_abstraction_level = 1

    def __init__(self, shape, dtype, weak_type=False):
        self.shape = tuple(shape)
        # extended dtypes (PRNG key types) are kept as they are
        self.dtype = dtype if getattr(dtype, "extended", False) else np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self._hash = hash((self.shape, self.dtype, self.weak_type))

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def __eq__(self, other):
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return self._hash

    def update(self, shape=None, dtype=None, weak_type=None):
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def strip_weak_type(self):
        return self.update(weak_type=False) if self.weak_type else self

    def str_short(self, short_dtypes=True):
        dt = dtypes.short_name(self.dtype) if short_dtypes else self.dtype.name
        return f"{dt}[{','.join(str(d) for d in self.shape)}]"

    def __repr__(self):
        wt = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short(False)}{wt})"

    def __str__(self):
        return self.str_short(False)


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
    tables keyed by the primitive (abstract eval, lowering, jvp, ...)."""

    multiple_results = False

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name

    def bind(self, *args, **params):
        return trace_ctx.trace.process_primitive(self, args, params)

    def bind_with_trace(self, trace, args, params):
        return trace.process_primitive(self, args, params)

    def impl(self, *args, **params):
        rule = impl_rules.get(self)
        if rule is None:
            return default_impl(self, *args, **params)
        return rule(*args, **params)

    def abstract_eval(self, *avals, **params):
        try:
            rule = abstract_eval_rules[self]
        except KeyError:
            raise NotImplementedError(f"no abstract evaluation rule for primitive {self.name}") from None
        return rule(*avals, **params)


impl_rules: dict[Primitive, Callable] = {}
default_impl: Callable = None  # eager dispatch of one primitive, set by dispatch.py
abstract_eval_rules: dict[Primitive, Callable] = {}
pp_param_rules: dict[Primitive, Callable] = {}  # params -> params to print


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
    function), plus the chain of user frames above it."""

    __slots__ = ("filename", "lineno", "function", "frames")

    def __init__(self, filename, lineno, function, frames=()):
        self.filename, self.lineno, self.function, self.frames = filename, lineno, function, frames

    def __repr__(self):
        return f"{self.filename}:{self.lineno} ({self.function})"


_internal_cache: dict[str, bool] = {}


def _is_internal(filename: str) -> bool:
    r = _internal_cache.get(filename)
    if r is None:
        r = filename.startswith(_INTERNAL_DIRS) or filename.startswith("<frozen ")
        _internal_cache[filename] = r
    return r


def current_source_info() -> SourceInfo | None:
    f = sys._getframe(1)
    while f is not None:
        code = f.f_code
        if not _is_internal(code.co_filename):
            return SourceInfo(code.co_filename, f.f_lineno, code.co_name)
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


class Var:
    __slots__ = ("aval", "suffix")
    _count = itertools.count()

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Var({self.aval.str_short()})"


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

    def replace(self, **kw):
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

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, **kw):
        return self.jaxpr.pretty_print(**kw)


class _EqnSource:
    """The source info of the equation an interpreter is evaluating, so a
    check that fires inside it (NaN replay) can name the user's line."""
    __slots__ = ("value",)

    def get(self):
        return self.value


eqn_source = _EqnSource()
eqn_source.value = None


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


# --------------------------------------------------------------------------
# Traces and tracers


class TraceCtx:
    __slots__ = ("trace",)


trace_ctx = TraceCtx()


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


class Trace:
    """Base of all interpreters. ``parent`` is the trace this one delegates to."""

    parent: "Trace | None" = None

    def process_primitive(self, primitive, args, params):
        raise NotImplementedError

    def is_valid(self):
        return True


class EvalTrace(Trace):
    """The bottom of every stack: primitives run eagerly on the device."""

    def process_primitive(self, primitive, args, params):
        for a in args:
            if isinstance(a, Tracer):
                raise errors.UnexpectedTracerError(_leak_message(a))
        rule = impl_rules.get(primitive)
        if rule is None:
            return default_impl(primitive, *args, **params)
        return rule(*args, **params)

    def __repr__(self):
        return "EvalTrace"


eval_trace = EvalTrace()
trace_ctx.trace = eval_trace


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
        from xjit._src.lax import lax
        nd = len(shape)
        return (lax.squeeze(lax.slice(self, (i,) + (0,) * (nd - 1), (i + 1,) + shape[1:],
                                      (1,) * nd), (0,)) for i in range(shape[0]))

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

    def __setitem__(self, idx, value):
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
