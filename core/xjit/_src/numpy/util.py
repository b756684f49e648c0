"""Shared machinery of ``xjit.numpy``: argument checking, dtype promotion and
rank promotion, exactly as ``jax.numpy`` applies them before calling lax."""
from __future__ import annotations

import types

import numpy as np

from .. import core, dtypes
from ..array import ArrayImpl
from ..config import config
from ..core import Tracer
from xjit._src.pjit import jit
from xjit._src.lax import lax
from ..lax.elementwise import broadcast_shapes_binary

_SCALARS = (int, float, complex, bool)
_PY_SCALAR_TYPES = frozenset(_SCALARS)
_flags = config._values  # read directly: attribute access on ``config`` is slower


_JAX_ARRAY_MSG = ("Triggering __jax_array__() during abstractification is no longer supported. "
                  "To avoid this error, either explicitly convert your object using "
                  "jax.numpy.array(), or register your object as a pytree.")


def jax_array_of(x):
    """``x.__jax_array__()`` where ``x`` defines that protocol, else ``x``."""
    m = getattr(x, "__jax_array__", None)
    return x if m is None else m()


def renamed(f, name):
    """A copy of function ``f`` named ``name``: JAX defines its aliases (amax,
    acos, divide...) as functions of their own, so their names are theirs.
    The copy shares ``f``'s code and closure, so calls cost the same."""
    g = types.FunctionType(f.__code__, f.__globals__, name, f.__defaults__, f.__closure__)
    g.__kwdefaults__ = f.__kwdefaults__
    g.__dict__.update(f.__dict__)
    g.__doc__, g.__module__, g.__qualname__ = f.__doc__, f.__module__, name
    return g


def check_arraylike(fun_name, *args):
    for pos, a in enumerate(args):
        if not (isinstance(a, (Tracer, ArrayImpl, np.ndarray, np.generic)) or type(a) in _SCALARS
                or isinstance(a, _SCALARS)):
            if getattr(a, "aval", None) is not None:  # WeakScalar and friends
                continue
            if getattr(a, "__jax_array__", None) is not None:
                # JAX's jitted jnp functions reject these when abstracting arguments
                raise ValueError(_JAX_ARRAY_MSG)
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got {type(a)} "
                            f"at position {pos}.")


def check_no_float0s(fun_name, *args):
    """JAX's TypeError for a float0 argument (the tangent type of integers)."""
    for a in args:
        dt = getattr(a, "dtype", None)
        if dt is not None and dt == dtypes.float0:
            raise TypeError(
                f"Called {fun_name} with a float0 array. float0s do not support any operations "
                "by design because they are not compatible with non-trivial vector spaces. No "
                "implicit dtype conversion is done. You can use np.zeros_like(arr, "
                "dtype=np.float) to cast a float0 array to a regular zeros array. \nIf you "
                "didn't expect to get a float0 you might have accidentally taken a gradient "
                "with respect to an integer argument.")


def shape_of(x):
    return x.aval.shape if isinstance(x, (Tracer, ArrayImpl)) else np.shape(x)


def ndim_of(x):
    return len(shape_of(x))


def concrete_arg(x, what):
    """``x``'s concrete value, or JAX's ConcretizationTypeError naming ``what``."""
    return core.concrete_or_error(None, x, f"The error arose in {what}.")


def const_like(x, value):
    """``value`` in ``x``'s dtype and weakness (a scalar literal in jaxprs)."""
    if isinstance(x, (Tracer, ArrayImpl)):
        return lax._convert(value, x.aval.dtype, bool(x.aval.weak_type))
    return lax._convert(value, dtypes.dtype(x, canonicalize=True), True)


def convert(x, dtype, weak):
    """``lax._convert``, except that under a trace a concrete scalar array is
    converted on the host: JAX folds that conversion of a constant, so the
    converted value appears in jaxprs as a literal of the new dtype."""
    if (type(x) is ArrayImpl and not x.aval.shape and core.trace_ctx.trace is not core.eval_trace
            and (x.aval.dtype != dtype or x.aval.weak_type != weak)):
        with np.errstate(all="ignore"):
            x = np.asarray(x).astype(dtype)[()]
    elif isinstance(x, (np.ndarray, np.generic)):
        canon = dtypes.canonicalize_dtype(x.dtype)
        if canon != x.dtype:  # first to the canonical dtype (wrapping), as JAX's device_put
            x = x.astype(canon)
        if weak and x.ndim:
            x = lax.asarray_device(x)  # a host array cannot carry the weak type
    elif getattr(type(x), "__jax_array__", None) is not None:
        # a pytree node that is array-like (a flax Variable): check_arraylike let
        # it through, and JAX's jitted jnp functions convert it by the protocol
        x = x.__jax_array__()
    return lax._convert(x, dtype, weak)


def promote_dtypes(*args):
    """Convert all args to their common (weak) dtype."""
    if len(args) == 1:
        x = args[0]
        if isinstance(x, (Tracer, ArrayImpl)):
            return [x]
    try:
        dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    except TypeError:
        if any(getattr(a, "__jax_array__", None) is not None for a in args):
            raise ValueError(_JAX_ARRAY_MSG) from None  # as JAX's jitted functions
        raise
    if getattr(dtype, "extended", False):  # keys of one type: nothing to convert
        return [lax.asarray_device(x) for x in args]
    return [convert(x, dtype, weak) for x in args]


def check_for_prngkeys(fun_name, *args):
    """JAX's check that PRNG keys meet only keys of their own type in a jnp
    function (called once promotion has failed, so the common path pays nothing)."""
    if not any(isinstance(a, (Tracer, ArrayImpl)) and getattr(a.aval.dtype, "extended", False)
               for a in args):
        return
    check_arraylike(fun_name, *args)
    dts = [dtypes.dtype(a) for a in args]
    if len(set(dts)) > 1:
        raise TypeError(f"{fun_name} does not accept dtypes {', '.join(map(str, dts))}.")


def _uniform_dtype(args):
    """The dtype shared by ``args`` when all are arrays/tracers of one strongly
    typed aval (promotion is then a no-op), else None."""
    a0 = None
    for x in args:
        if type(x) is not ArrayImpl and not isinstance(x, Tracer):
            return None
        a = x.aval
        if a0 is None:
            if a.weak_type:
                return None
            a0 = a
        elif a is not a0 and a != a0:
            return None
    return None if a0 is None else a0.dtype


def _canonical_inexact(dt):
    return dtypes.to_inexact_dtype(dt) == dt and dtypes.canonicalize_dtype(dt) == dt


def promote_dtypes_inexact(*args):
    dt = _uniform_dtype(args)
    if dt is not None and _canonical_inexact(dt):
        return list(args)
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtype))
    return [convert(x, dtype, weak) for x in args]


def promote_dtypes_numeric(*args):
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if dtype == np.bool_:
        dtype = dtypes.default_int_dtype()
    return [convert(x, dtype, weak) for x in args]


def promote_shapes(fun_name, *args):
    """Rank promotion: lower-rank (non-scalar) operands get leading unit dims."""
    if len(args) < 2:
        return list(args)
    shapes = [shape_of(a) for a in args]
    nd = max(len(s) for s in shapes)
    if all(len(s) == nd or len(s) == 0 for s in shapes):
        _check_broadcast(fun_name, shapes)
        return list(args)
    full = [s for s in shapes if s]
    if any(len({d for d in dims if d != 1}) > 1 for dims in zip(*(s[::-1] for s in full))):
        # JAX's rank promotion checks with lax.broadcast_shapes first: ValueError
        raise ValueError("Incompatible shapes for broadcasting: shapes="
                         f"[{', '.join(str(tuple(s)) for s in shapes)}]")
    out = []
    for a, s in zip(args, shapes):
        if 0 < len(s) < nd:
            k = nd - len(s)
            a = lax.broadcast_in_dim(a, (1,) * k + tuple(s), tuple(range(k, nd)))
        out.append(a)
    _check_broadcast(fun_name, [shape_of(a) for a in out])
    return out


def _check_broadcast(fun_name, shapes):
    full = [s for s in shapes if s]
    for dims in zip(*full):
        if len({d for d in dims if d != 1}) > 1:
            raise TypeError(f"{fun_name} got incompatible shapes for broadcasting: "
                            f"{', '.join(str(tuple(s)) for s in shapes)}.")


# Each promote_args* returns its arguments unchanged, skipping the general
# machinery, when they are arrays of one aval that needs no conversion.

_scalar_promotions: dict = {}  # (dtype, weak, Python type, x64) -> (dtype, weak)


def _array_and_scalar(args):
    """An (array, Python scalar) pair, in either order, promoted; else None.
    The promotion is cached per (array dtype and weakness, scalar type)."""
    if len(args) != 2:
        return None
    a, b = args
    if type(b) in _PY_SCALAR_TYPES and (type(a) is ArrayImpl or isinstance(a, Tracer)):
        arr, s = a, b
    elif type(a) in _PY_SCALAR_TYPES and (type(b) is ArrayImpl or isinstance(b, Tracer)):
        arr, s = b, a
    else:
        return None
    aval = arr.aval
    key = (aval.dtype, aval.weak_type, type(s), _flags["jax_enable_x64"])
    r = _scalar_promotions.get(key)
    if r is None:
        r = dtypes.result_type(arr, s, return_weak_type_flag=True)
        if dtypes.canonicalize_dtype(aval.dtype) == aval.dtype:  # else it may warn: no caching
            _scalar_promotions[key] = r
    dtype, weak = r
    return [convert(a, dtype, weak), convert(b, dtype, weak)]


def promote_args(fun_name, *args):
    if _uniform_dtype(args) is not None:
        return list(args)
    try:
        pair = _array_and_scalar(args)
        if pair is not None:
            return pair
        check_arraylike(fun_name, *args)
        check_no_float0s(fun_name, *args)
        promoted = promote_dtypes(*args)
    except (TypeError, ValueError):
        check_for_prngkeys(fun_name, *args)
        raise
    return promote_shapes(fun_name, *promoted)


def promote_args_inexact(fun_name, *args):
    dt = _uniform_dtype(args)
    if dt is not None and _canonical_inexact(dt):
        return list(args)
    check_arraylike(fun_name, *args)
    check_no_float0s(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name, *args):
    dt = _uniform_dtype(args)
    if dt is not None and dt != np.bool_:
        return list(args)
    check_arraylike(fun_name, *args)
    check_no_float0s(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def canonicalize_axis(axis, ndim):
    import operator
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def broadcast_shapes(*shapes):
    from ..lax.lax import broadcast_shapes as lax_broadcast_shapes
    return lax_broadcast_shapes(*shapes)


def broadcast_to(x, shape, sharding=None):
    """``x`` broadcast to ``shape`` (laid out by ``sharding``: the broadcast
    of explicitly sharded operands keeps their layout, as JAX's does)."""
    shape = core.canonicalize_shape(shape, lax._BCAST_NEGATIVE)
    xs = shape_of(x)
    if tuple(xs) == shape and (sharding is None or getattr(
            getattr(x, "aval", None), "_sharding", None) == sharding):
        return x if isinstance(x, (Tracer, ArrayImpl)) else lax.asarray_device(x)
    nd = len(shape)
    if len(xs) > nd or any(a not in (1, b) for a, b in zip(xs[::-1], shape[::-1])):
        raise ValueError(f"Incompatible shapes for broadcasting: {tuple(xs)} and requested shape {shape}")
    k = nd - len(xs)
    squeeze = [i for i, (a, b) in enumerate(zip(xs, shape[k:])) if a == 1 and b != 1]
    if squeeze:
        x = lax.reshape(x, tuple(d for i, d in enumerate(xs) if i not in squeeze))
    dims = tuple(i + k for i in range(len(xs)) if i not in squeeze)
    return lax.broadcast_in_dim(x, shape, dims, out_sharding=sharding)


def broadcast_sharding(*args):
    """The layout the broadcast of ``args`` takes (None unless one is
    explicitly sharded: the cost stays off programs without a mesh)."""
    avals = [getattr(a, "aval", None) for a in args]
    if not any(getattr(a, "typed", False) for a in avals):
        return None
    from xjit._src.sharding_in_types import broadcast_shardings
    return broadcast_shardings(*[a if a is not None else core.aval_of(x)
                                 for a, x in zip(avals, args)])


__all__ = ["broadcast_shapes_binary"]


def on_device(out, device):
    """``out`` committed to ``device`` (a Device or a Sharding), as the
    ``device=`` argument of JAX's array-creating functions places it."""
    if device is None:
        return out
    if isinstance(out, tuple):  # linspace(..., retstep=True)
        return tuple(on_device(o, device) for o in out)
    from jaxlib import _jax
    from ..sharding import place
    from ..dispatch import device_put
    return place(out, device) if isinstance(device, _jax.Sharding) else device_put(out, device)


def takes_device(fn):
    """``fn``, whose keyword-only ``device`` parameter it leaves alone, with
    its result committed to that device."""
    import functools

    @functools.wraps(fn)
    def placed(*args, **kwargs):
        return on_device(fn(*args, **kwargs), kwargs.get("device"))
    return placed
