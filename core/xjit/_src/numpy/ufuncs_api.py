"""NumPy-style universal functions: ``jnp.ufunc``, ``jnp.frompyfunc`` and the
ufunc objects ``jnp.add``, ``jnp.multiply``, ... with their ``reduce``,
``accumulate``, ``reduceat``, ``outer`` and ``at`` methods.

A ufunc built from a scalar Python function gets the generic methods
(vectorized calls, reductions by a loop over the reduced axis, updates by a
scan over the indices); the built-in ufuncs name a fast path for each method
(``jnp.add.reduce`` is ``jnp.sum``). Methods are jitted under their method
name with the ufunc itself static, as JAX does, so jaxprs print alike."""
from __future__ import annotations

import math
import operator

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from . import lax_numpy as ln, reductions, ufuncs, util
from .lax_numpy import asarray, util_dtype
from xjit._src.pjit import jit_named

_AT_INPLACE_MESSAGE = (
    "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
    "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n"
    ">>> arr = jnp.add.at(arr, ind, val, inplace=False)\n")


class ufunc:
    """A function of ``nin`` array arguments applied elementwise (with
    broadcasting), returning ``nout`` arrays."""

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                 reduce=None, accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self._func = func
        self.nin, self.nout = operator.index(nin), operator.index(nout)
        self.nargs = operator.index(nargs or nin)
        self.identity = identity
        self._methods = {"call": call, "reduce": reduce, "accumulate": accumulate, "at": at,
                         "reduceat": reduceat}
        if hasattr(call, "__wrapped_eager__"):  # a call with a fused eager path (xjit._src.eager)
            self.__wrapped_eager__ = call.__wrapped_eager__

    def _key(self):
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        util.check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        call = self._methods["call"]
        return call(*args) if call is not None else _call_vectorized(self, *args)

    def _binary_only(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def _result_dtype(self, *args):
        """The dtype ``func`` gives on scalars of the arguments' dtypes."""
        from ..pjit import PjitFunction
        ones = [lax._convert(1, util_dtype(a), False) for a in args]
        return PjitFunction(self._func).eval_shape(*ones).dtype

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        return _reduce(self, a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                       initial=initial, where=where)

    def accumulate(self, a, axis=0, dtype=None, out=None):
        return _accumulate(self, a, axis=axis, dtype=dtype, out=out)

    def at(self, a, indices, b=None, /, *, inplace=True):
        if inplace:
            raise NotImplementedError(_AT_INPLACE_MESSAGE)
        return _at(self, a, indices, b, inplace=inplace)

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        return _reduceat(self, a, indices, axis=axis, dtype=dtype, out=out)

    def outer(self, A, B, /):
        return _outer(self, A, B)


@jit_named("_call_vectorized", static_argnames=("self",))
def _call_vectorized(self, *args):
    from .vectorize import vectorize
    return vectorize(self._func)(*args)


@jit_named("reduce", static_argnames=("self", "axis", "dtype", "out", "keepdims"))
def _reduce(self, a, axis, dtype, out, keepdims, initial, where):
    name = f"{self.__name__}.reduce"
    util.check_arraylike(name, a)
    self._binary_only("reduce")
    if out is not None:
        raise NotImplementedError(f"out argument of {name}()")
    if initial is not None:
        util.check_arraylike(name, initial)
    if where is not None:
        util.check_arraylike(name, where)
        if self.identity is None and initial is None:
            raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, "
                             "so to use a where mask one has to specify 'initial'.")
        if util_dtype(where) != np.bool_:
            raise ValueError(f"where argument must have dtype=bool; got dtype={util_dtype(where)}")
    fast = self._methods["reduce"]
    if fast is not None:
        return fast(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)
    return _reduce_by_loop(self, a, axis, dtype, keepdims, initial, where)


def _reduce_by_loop(self, arr, axis, dtype, keepdims, initial, where):
    """Fold ``func`` over one axis (or all, flattened), from the identity or
    ``initial`` when there is one, else from the first element."""
    from ..lax.control_flow import fori_loop
    arr = asarray(arr)
    initial = self.identity if initial is None else initial
    dtype = self._result_dtype(arr, arr) if dtype is None else dtype
    if where is not None:
        where = util.broadcast_to(where, arr.shape)
    if isinstance(axis, tuple):
        raise NotImplementedError("tuple of axes")
    if axis is None:
        final_shape = (1,) * arr.ndim if keepdims else ()
        arr = arr.ravel()
        where = None if where is None else where.ravel()
        axis = 0
    else:
        axis = util.canonicalize_axis(axis, arr.ndim)
        final_shape = arr.shape[:axis] + ((1,) if keepdims else ()) + arr.shape[axis + 1:]
    if axis:
        from .shape_ops import moveaxis
        arr = moveaxis(arr, axis, 0)
        where = None if where is None else moveaxis(where, axis, 0)
    if arr.shape[0] == 0:
        if initial is None:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which has "
                             "no identity")
        return lax.full(final_shape, initial, dtype)

    def body(i, acc):
        step = self(acc, arr[i].astype(dtype))
        return step if where is None else ln.where(where[i], step, acc)

    start, first = (1, arr[0]) if initial is None else (0, initial)
    acc = util.broadcast_to(lax._convert(first, dtypes.canonicalize_dtype(dtype), False),
                            arr.shape[1:])
    out = fori_loop(start, arr.shape[0], body, acc)
    return out.reshape(final_shape) if keepdims else out


@jit_named("accumulate", static_argnames=("self", "axis", "dtype"))
def _accumulate(self, a, axis, dtype, out):
    self._binary_only("accumulate")
    if out is not None:
        raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
    fast = self._methods["accumulate"]
    if fast is not None:
        return fast(a, axis=axis, dtype=dtype)
    return _accumulate_by_scan(self, a, axis, dtype)


def _accumulate_by_scan(self, arr, axis, dtype):
    from ..lax.control_flow import scan
    from .shape_ops import moveaxis
    util.check_arraylike(f"{self.__name__}.accumulate", arr)
    arr = asarray(arr)
    dtype = self._result_dtype(arr, arr) if dtype is None else dtype
    if axis is None or isinstance(axis, tuple):
        raise ValueError("accumulate does not allow multiple axes")
    axis = util.canonicalize_axis(axis, arr.ndim)
    if arr.size == 0:
        return lax.full(arr.shape, 0, dtype)
    arr = moveaxis(arr, axis, 0)

    def step(carry, _):
        i, acc = carry
        y = ln.where(i == 0, arr[0].astype(dtype), self(acc.astype(dtype), arr[i].astype(dtype)))
        return (i + 1, y), y

    _, out = scan(step, (0, arr[0].astype(dtype)), None, length=arr.shape[0])
    return moveaxis(out, 0, axis)


@jit_named("at", static_argnames=("self", "inplace"))
def _at(self, a, indices, b, inplace):
    fast = self._methods["at"]
    if fast is not None:
        return fast(a, indices) if b is None else fast(a, indices, b)
    return _at_by_scan(self, a, indices, *(() if b is None else (b,)))


def _at_by_scan(self, a, indices, *args):
    """Apply ``func`` at each index in turn, so repeated indices accumulate."""
    from ..lax.control_flow import scan
    util.check_arraylike(f"{self.__name__}.at", a, *args)
    dtype = self._result_dtype(a, *args)
    a = asarray(a).astype(dtype)
    args = tuple(asarray(x).astype(dtype) for x in args)
    indices = indices if isinstance(indices, tuple) else (indices,)
    if not indices:
        return a
    shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
    shape = util.broadcast_shapes(*shapes) if shapes else ()
    if not shape:
        return a.at[indices].set(self(a.at[indices].get(), *args))
    if args:
        tail = args[0].shape[len(shape):]
        args = (util.broadcast_to(args[0], shape + tail).reshape(math.prod(shape), *tail),)
    indices = [i if isinstance(i, slice) else util.broadcast_to(asarray(i), shape).ravel()
               for i in indices]

    def step(carry, _):
        i, acc = carry
        idx = tuple(ix if isinstance(ix, slice) else ix[i] for ix in indices)
        acc = acc.at[idx].set(self(acc.at[idx].get(), *(x[i] for x in args)))
        return (i + 1, acc), None

    (_, out), _ = scan(step, (0, a), None, length=len(indices[0]))
    return out


@jit_named("reduceat", static_argnames=("self", "axis", "dtype"))
def _reduceat(self, a, indices, axis, dtype, out):
    from ..lax.control_flow import fori_loop
    from .advanced_indexing import take
    self._binary_only("reduceat")
    if out is not None:
        raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
    util.check_arraylike(f"{self.__name__}.reduceat", a, indices)
    a, indices = asarray(a), asarray(indices)
    if a.ndim == 0:
        raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={a.shape!r}")
    if indices.ndim != 1:
        raise ValueError(f"reduceat: indices must be one-dimensional, got "
                         f"indices.shape={indices.shape!r}")
    if axis is None or isinstance(axis, (tuple, list)):
        raise ValueError("reduceat requires a single integer axis.")
    axis = util.canonicalize_axis(axis, a.ndim)
    out = take(a, indices, axis=axis)
    # segment j covers [indices[j], indices[j + 1]); the last runs to the end
    bounds = lax.concatenate([indices, lax._convert(np.array([a.shape[axis]]),
                                                    util_dtype(indices), False)], 0)
    others = [d for d in range(out.ndim) if d != axis]
    bounds = lax.expand_dims(bounds, others)
    starts = lax.slice_along(bounds, 0, bounds.shape[axis] - 1, axis=axis)
    ends = lax.slice_along(bounds, 1, bounds.shape[axis], axis=axis)

    def body(i, acc):
        inside = lax.bitwise_and(i > starts, i < ends)
        return ln.where(inside, self(acc, take(a, lax.expand_dims(i, (0,)), axis=axis)), acc)

    return fori_loop(0, a.shape[axis], body, out)


@jit_named("outer", static_argnames=("self",))
def _outer(self, A, B):
    from xjit._src.interpreters.batching import vmap
    self._binary_only("outer")
    util.check_arraylike(f"{self.__name__}.outer", A, B)
    flat = [lax.reshape(asarray(x), (np.size(x),)) for x in (A, B)]
    out = vmap(vmap(self, (None, 0)), (0, None))(*flat)
    return out.reshape(*np.shape(A), *np.shape(B))


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A ufunc from a function of scalars (vectorized over its arguments)."""
    return ufunc(func, nin, nout, identity=identity)

# -- the built-in ufuncs


def _bool_as_int(update):
    """Scatter updates of booleans done in int32 (scatter-add has no bool form)."""
    def at(a, indices, b):
        a = asarray(a)
        if util_dtype(a) == np.bool_:
            b = lax._convert(lax._convert(asarray(b), np.bool_, False), np.int32, False)
            return update(a.astype(np.int32), indices, b).astype(bool)
        return update(a, indices, b)
    return at


def _initial_after(reduce, binop):
    """A lax-style reduction whose ``initial`` (traced, in a jitted method) is
    combined with the reduced value afterwards."""
    def fn(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        out = reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
        if initial is None:
            return out
        if util.ndim_of(initial):
            raise ValueError(f"initial value must be a scalar. Got array of shape "
                             f"{util.shape_of(initial)}")
        return binop(lax._convert(initial, util_dtype(out), False), out)
    return fn


def _integer_reduction(name, lax_fn, binop, ones):
    """bitwise_and/or/xor.reduce: integer (or bool) input only; the identity
    is all bits set for ``and``, zero otherwise."""
    init = (lambda dt: np.array(-1).astype(dt)[()]) if ones else (lambda dt: 0)
    reduce = _initial_after(reductions._reduction(name, lax_fn, init, binop), binop)

    def fn(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        dt = util_dtype(asarray(a))
        if not dtypes.isdtype(dt, ("bool", "integral")):
            raise ValueError(f"integer argument required; got dtype={dt}")
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)
    return fn


def _logical_reduction(reduce):
    """logical_and/or/xor.reduce: the integer reduction of the inputs as booleans."""
    def fn(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        return reduce(lax._convert(asarray(a), np.bool_, False), axis=axis, dtype=dtype,
                      keepdims=keepdims, initial=initial, where=where)
    return fn


def _binary(func, identity, reduce=None, accumulate=None, at=None):
    return ufunc(func, 2, 1, name=func.__name__, identity=identity, call=func, reduce=reduce,
                 accumulate=accumulate, at=at)


def _make_builtins():
    from .sorting import cumprod, cumsum
    and_r = _integer_reduction("bitwise_and", lax.reduce_and, lax.bitwise_and, True)
    or_r = _integer_reduction("bitwise_or", lax.reduce_or, lax.bitwise_or, False)
    xor_r = _integer_reduction("bitwise_xor", lax.reduce_xor, lax.bitwise_xor, False)
    return {
        "add": _binary(ln.add, 0, _initial_after(reductions.sum, lax.add), cumsum,
                       _bool_as_int(lambda a, i, b: a.at[i].add(b))),
        "multiply": _binary(ln.multiply, 1, _initial_after(reductions.prod, lax.mul), cumprod,
                            _bool_as_int(lambda a, i, b: a.at[i].multiply(b))),
        "subtract": _binary(ln.subtract, None, at=lambda a, i, b: asarray(a).at[i].subtract(b)),
        "bitwise_and": _binary(ln.bitwise_and, -1, and_r),
        "bitwise_or": _binary(ln.bitwise_or, 0, or_r),
        "bitwise_xor": _binary(ln.bitwise_xor, 0, xor_r),
        "logical_and": _binary(ln.logical_and, True, _logical_reduction(and_r)),
        "logical_or": _binary(ln.logical_or, False, _logical_reduction(or_r)),
        "logical_xor": _binary(ln.logical_xor, False, _logical_reduction(xor_r)),
        "maximum": _binary(ln.maximum, None, _initial_after(reductions.max, lax.max)),
        "minimum": _binary(ln.minimum, None, _initial_after(reductions.min, lax.min)),
        "logaddexp": _binary(ufuncs.logaddexp, -np.inf, _logsumexp),
        "logaddexp2": _binary(ufuncs.logaddexp2, -np.inf, _logsumexp2),
        "negative": ufunc(ln.negative, 1, 1, name="negative", call=ln.negative),
    }


def _logsumexp(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
    """logaddexp.reduce: log(sum(exp(a))) less and plus the (finite) max."""
    from ..ad_api import stop_gradient
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, "jnp.logaddexp.reduce")
    util.check_arraylike("logsumexp", a)
    (a,) = util.promote_dtypes_inexact(asarray(a))
    dims = reductions._axes(axis, a.ndim)
    amax = reductions.max(ln.real(a), axis=dims, keepdims=keepdims, where=where,
                          initial=-np.inf)
    amax = stop_gradient(lax.select(lax.is_finite(amax), amax, ln.zeros_like(amax)))
    amax_dims = amax if keepdims else lax.expand_dims(amax, dims)
    sumexp = reductions.sum(lax.exp(lax.sub(a, amax_dims.astype(a.dtype))), axis=dims,
                            keepdims=keepdims, where=where)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    return out if initial is None else ufuncs.logaddexp(initial, out)


def _logsumexp2(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
    """logaddexp2.reduce: the natural-log reduction of a * ln 2, over ln 2."""
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, "jnp.logaddexp2.reduce")
    util.check_arraylike("logsumexp2", a)
    ln2 = float(np.log(2))
    initial = None if initial is None else initial * ln2
    return _logsumexp(asarray(a) * ln2, axis=axis, keepdims=keepdims, where=where,
                      initial=initial) / ln2


_BUILTINS = _make_builtins()
add, multiply, subtract = _BUILTINS["add"], _BUILTINS["multiply"], _BUILTINS["subtract"]
bitwise_and, bitwise_or = _BUILTINS["bitwise_and"], _BUILTINS["bitwise_or"]
bitwise_xor, logical_and = _BUILTINS["bitwise_xor"], _BUILTINS["logical_and"]
logical_or, logical_xor = _BUILTINS["logical_or"], _BUILTINS["logical_xor"]
maximum, minimum = _BUILTINS["maximum"], _BUILTINS["minimum"]
logaddexp, logaddexp2 = _BUILTINS["logaddexp"], _BUILTINS["logaddexp2"]
negative = _BUILTINS["negative"]
