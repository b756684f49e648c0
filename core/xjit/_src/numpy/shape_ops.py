"""Shape manipulation of ``xjit.numpy``: reshapes, transposes, squeezes,
concatenation and stacking, ``atleast_*d`` and broadcasting."""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray
from xjit._src.pjit import jit_named


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if shape is None:
        shape = newshape
    a = util.jax_array_of(a)
    util.check_arraylike("reshape", a)
    if isinstance(a, np.ndarray):  # as JAX: a NumPy array reshapes itself (NumPy's result)
        return a.reshape(shape, order=order)
    a = asarray(a)
    given_tuple = isinstance(shape, tuple)
    if isinstance(shape, (int, np.integer)) or (hasattr(shape, "__index__") and not isinstance(shape, (tuple, list))):
        shape = (shape,)
    shape = list(shape)
    if any(isinstance(d, core.Tracer) for d in shape):
        # raises the error for traced dimensions, showing the shape as JAX does
        core.canonicalize_shape(tuple(shape) if given_tuple else shape)
    shape = [operator.index(s) for s in shape]
    size = a.size
    if shape.count(-1) > 1:
        raise TypeError("can only specify one unknown axis size with a `-1` value, got "
                        f"{tuple(shape)}")
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        if known == 0 or size % known:
            raise TypeError(f"cannot reshape array of shape {a.shape} (size {size}) into shape "
                            f"{tuple(shape)} because the product of specified axis sizes ({known}) "
                            f"does not evenly divide {size}")
        shape[shape.index(-1)] = size // known
    if int(np.prod(shape)) != size:
        raise TypeError(f"cannot reshape array of shape {a.shape} (size {size}) into shape "
                        f"{tuple(shape)} (size {int(np.prod(shape))})")
    if order == "C":
        return lax.reshape(a, tuple(shape))
    if order == "F":  # column-major: read the axes reversed, then reverse the result's
        out = lax.reshape(a, tuple(shape[::-1]), tuple(range(a.ndim))[::-1])
        return lax.transpose(out, tuple(range(out.ndim))[::-1])
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def ravel(a, order="C"):
    util.check_arraylike("ravel", a)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    a = asarray(a)
    return lax.jit_output(reshape(a, (a.size,), order))


def transpose(a, axes=None):
    a = util.jax_array_of(a)
    util.check_arraylike("transpose", a)
    a = asarray(a)
    nd = a.ndim
    axes = tuple(range(nd))[::-1] if axes is None else tuple(util.canonicalize_axis(i, nd) for i in axes)
    return lax.transpose(a, axes)


def permute_dims(a, axes):
    return transpose(a, axes)


def matrix_transpose(x):
    nd = np.ndim(x)
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    perm = np.arange(a.ndim)  # NumPy's indexing rules and errors for the axes, as JAX
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.jit_output(lax.transpose(a, [int(p) for p in perm]))


def _index_tuple(x):
    """An index or a sequence of them, as a tuple (JAX's TypeErrors otherwise)."""
    x = core.concrete_or_error(None, x, "expected a static index or sequence of indices.")
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def moveaxis(a, source, destination):
    a = asarray(a)
    source, destination = _index_tuple(source), _index_tuple(destination)
    src = [util.canonicalize_axis(s, a.ndim) for s in source]
    dst = [util.canonicalize_axis(d, a.ndim) for d in destination]
    if len(src) != len(dst):
        raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    perm = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.jit_output(lax.transpose(a, perm))


def squeeze(a, axis=None):
    a = asarray(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(a.shape) if d == 1)
    else:
        axes = tuple(util.canonicalize_axis(i, a.ndim) for i in np.atleast_1d(axis))
        for i in axes:
            if a.shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to "
                                 f"one, got shape={a.shape} and dimensions={axes}")
    return lax.jit_output(lax.squeeze(a, axes))


def expand_dims(a, axis):
    a = asarray(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = a.ndim + len(axes)
    axes = tuple(util.canonicalize_axis(ax, nd) for ax in axes)
    return lax.expand_dims(a, axes)


def concatenate(arrays, axis=0, dtype=None):
    if isinstance(arrays, core.Tracer) or hasattr(arrays, "aval"):
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    arrays = [util.jax_array_of(x) for x in arrays]
    util.check_arraylike("concatenate", *arrays)
    arrays = util.promote_dtypes(*arrays)
    if dtype is not None:
        arrays = [lax._convert(x, dtypes.canonicalize_dtype(dtype), False) for x in arrays]
    arrays = [asarray(x) for x in arrays]
    if axis is None:
        arrays = [ravel(x) for x in arrays]
        axis = 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = util.canonicalize_axis(axis, nd)  # before the ranks, as JAX checks
    for x in arrays[1:]:
        if x.ndim != nd:
            raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                            + ", ".join(str(tuple(a.shape)) for a in arrays) + ".")
    return lax.concatenate(arrays, util.canonicalize_axis(axis, nd))


def stack(arrays, axis=0, out=None, dtype=None):
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    arrays = [util.jax_array_of(x) for x in arrays]
    util.check_arraylike("stack", *arrays)
    arrays = [asarray(x) for x in util.promote_dtypes(*arrays)]
    if dtype is not None:
        arrays = [lax._convert(x, dtypes.canonicalize_dtype(dtype), False) for x in arrays]
    shape0 = arrays[0].shape
    if any(x.shape != shape0 for x in arrays[1:]):
        raise ValueError("All input arrays must have the same shape.")
    axis = util.canonicalize_axis(axis, len(shape0) + 1)
    from ..lax.structural import stack_p
    return stack_p.bind(*arrays, axis=axis)


def hstack(tup):
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)


def vstack(tup):
    return concatenate([atleast_2d(a) for a in tup], axis=0)


@jit_named("atleast_1d")
def atleast_1d(*arys):
    util.check_arraylike("atleast_1d", *arys)
    out = [asarray(a) for a in arys]
    out = [lax.expand_dims(x, (0,)) if x.ndim == 0 else x for x in out]
    return out[0] if len(out) == 1 else out


@jit_named("atleast_2d")
def atleast_2d(*arys):
    util.check_arraylike("atleast_2d", *arys)
    out = [asarray(a) for a in arys]
    out = [lax.expand_dims(x, tuple(range(2 - x.ndim))) if x.ndim < 2 else x for x in out]
    return out[0] if len(out) == 1 else out


def broadcast_to(array, shape):
    return util.broadcast_to(util.jax_array_of(array), shape)


def broadcast_arrays(*args):
    shape = util.broadcast_shapes(*[util.shape_of(a) for a in args])
    args = [asarray(a) for a in args]
    s = util.broadcast_sharding(*args)
    return [util.broadcast_to(a, shape, s) for a in args]


def broadcast_shapes(*shapes):
    return util.broadcast_shapes(*shapes)


@jit_named("atleast_3d")
def _atleast_3d(x):
    if x.ndim == 0:
        return lax.reshape(x, (1, 1, 1))
    if x.ndim == 1:
        return lax.expand_dims(x, (0, 2))
    if x.ndim == 2:
        return lax.expand_dims(x, (2,))
    return x


def atleast_3d(*arys):
    outs = [_atleast_3d(asarray(a)) for a in arys]
    return outs[0] if len(outs) == 1 else outs


def column_stack(tup):
    arrs = [asarray(a) for a in tup]
    arrs = [lax.transpose(atleast_2d(a), (1, 0)) if a.ndim < 2 else a for a in arrs]
    return concatenate(arrs, axis=1)


def dstack(tup, dtype=None):
    return concatenate([_atleast_3d(asarray(a)) for a in tup], axis=2, dtype=dtype)
