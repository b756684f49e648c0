"""Shape manipulation and products of ``xjit.numpy``."""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray, util_dtype


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if shape is None:
        shape = newshape
    util.check_arraylike("reshape", a)
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
        raise ValueError("can only specify one unknown dimension")
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
    return reshape(a, (a.size,), order)


def transpose(a, axes=None):
    util.check_arraylike("transpose", a)
    a = asarray(a)
    nd = a.ndim
    axes = tuple(range(nd))[::-1] if axes is None else tuple(util.canonicalize_axis(i, nd) for i in axes)
    return lax.transpose(a, axes)


def permute_dims(a, axes):
    return transpose(a, axes)


def matrix_transpose(x):
    nd = x.ndim
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    perm = list(range(a.ndim))
    i, j = util.canonicalize_axis(axis1, a.ndim), util.canonicalize_axis(axis2, a.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def moveaxis(a, source, destination):
    a = asarray(a)
    src = [util.canonicalize_axis(s, a.ndim) for s in np.atleast_1d(source)]
    dst = [util.canonicalize_axis(d, a.ndim) for d in np.atleast_1d(destination)]
    perm = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


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
    return lax.squeeze(a, axes)


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
    for x in arrays[1:]:
        if x.ndim != nd:
            raise ValueError("All input arrays must have same number of dimensions")
    return lax.concatenate(arrays, util.canonicalize_axis(axis, nd))


def stack(arrays, axis=0, out=None, dtype=None):
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
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


@util.named_jit("atleast_1d")
def atleast_1d(*arys):
    util.check_arraylike("atleast_1d", *arys)
    out = [asarray(a) for a in arys]
    out = [lax.expand_dims(x, (0,)) if x.ndim == 0 else x for x in out]
    return out[0] if len(out) == 1 else out


@util.named_jit("atleast_2d")
def atleast_2d(*arys):
    util.check_arraylike("atleast_2d", *arys)
    out = [asarray(a) for a in arys]
    out = [lax.expand_dims(x, tuple(range(2 - x.ndim))) if x.ndim < 2 else x for x in out]
    return out[0] if len(out) == 1 else out


def broadcast_to(array, shape):
    return util.broadcast_to(array, shape)


def broadcast_arrays(*args):
    shape = util.broadcast_shapes(*[util.shape_of(a) for a in args])
    return [util.broadcast_to(asarray(a), shape) for a in args]


def broadcast_shapes(*shapes):
    return util.broadcast_shapes(*shapes)


# -- products


def _dot_result(a, b, out, preferred_element_type):
    """dot_general takes mixed dtypes and returns a weak result only when both
    operands are weak; JAX then marks the product weak as promotion says."""
    if preferred_element_type is not None:
        return out
    dtype, weak = dtypes.result_type(a, b, return_weak_type_flag=True)
    return lax._convert(out, dtype, weak) if weak and not out.aval.weak_type else out


def _product_dtype(a, b, preferred_element_type):
    if preferred_element_type is not None:
        return preferred_element_type
    return dtypes.result_type(a, b)


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """One dot_general without promoting the operands: batch dimensions equal
    in both become dot_general batch dimensions, a size-1 dimension facing a
    larger (or another size-1) one is squeezed out, and the product is
    transposed (and the all-ones dimensions broadcast back) into NumPy's order."""
    util.check_arraylike("matmul", a, b)
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: inputs must have at least one dimension, got {a.ndim} and {b.ndim}")
    a_mat, b_mat = a.ndim > 1, b.ndim > 1
    if a.shape[-1] != b.shape[-2 if b_mat else 0]:
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, got "
                        f"({a.shape[-1]},) and ({b.shape[-2 if b_mat else 0]},).")
    a_batch = a.shape[:-2] if a_mat else ()
    b_batch = b.shape[:-2] if b_mat else ()
    n = max(len(a_batch), len(b_batch))
    a_off, b_off = n - len(a_batch), n - len(b_batch)
    a_sq, b_sq, ones, kinds = [], [], [], []
    for i in range(n):
        da = a_batch[i - a_off] if i >= a_off else None
        db = b_batch[i - b_off] if i >= b_off else None
        if da is None or db is None:
            kinds.append("a" if db is None else "b")
        elif da == 1 and db == 1:
            a_sq.append(i - a_off)
            b_sq.append(i - b_off)
            ones.append(i)
            kinds.append(None)
        elif da == 1:
            a_sq.append(i - a_off)
            kinds.append("b")
        elif db == 1:
            b_sq.append(i - b_off)
            kinds.append("a")
        elif da == db:
            kinds.append("batch")
        else:
            raise ValueError(f"Incompatible shapes for matmul arguments: {a.shape} and {b.shape}")
    a, b = lax.squeeze(a, a_sq), lax.squeeze(b, b_sq)
    a_pos = [i for i in range(n) if i >= a_off and i not in ones and kinds[i] != "b"]
    b_pos = [i for i in range(n) if i >= b_off and i not in ones and kinds[i] != "a"]
    batch = [i for i in range(n) if kinds[i] == "batch"]
    dims = (((a.ndim - 1,), (b.ndim - 2 if b_mat else 0,)),
            (tuple(a_pos.index(i) for i in batch), tuple(b_pos.index(i) for i in batch)))
    out = lax.dot_general(a, b, dims, precision=precision,
                          preferred_element_type=_product_dtype(a, b, preferred_element_type))
    labels = batch + [i for i in a_pos if kinds[i] == "a"] + ["row"] * a_mat \
        + [i for i in b_pos if kinds[i] == "b"] + ["col"] * b_mat
    order = [i for i in range(n) if i not in ones] + ["row"] * a_mat + ["col"] * b_mat
    out = lax.transpose(out, [labels.index(x) for x in order])
    if ones:
        shape = list(out.shape)
        for i in ones:
            shape.insert(i, 1)
        out = lax.broadcast_in_dim(out, shape, [i for i in range(len(shape)) if i not in ones])
    return _dot_result(a, b, out, preferred_element_type)


def dot(a, b, *, precision=None, preferred_element_type=None):
    """A single dot_general (scalars included) on the unpromoted operands."""
    util.check_arraylike("dot", a, b)
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        contract = ((), ())
    else:
        contract = ((a.ndim - 1,), (max(b.ndim - 2, 0),))
    out = lax.dot_general(a, b, (contract, ((), ())), precision=precision,
                          preferred_element_type=_product_dtype(a, b, preferred_element_type))
    return _dot_result(a, b, out, preferred_element_type)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    a, b = asarray(a), asarray(b)
    if util_dtype(a).kind == "c":
        a = lax.conj(a)
    return dot(ravel(a), ravel(b), precision=precision, preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return lax.mul(*util.promote_dtypes(a, b))
    out = lax.dot_general(a, b, (((a.ndim - 1,), (b.ndim - 1,)), ((), ())), precision=precision,
                          preferred_element_type=_product_dtype(a, b, preferred_element_type))
    return _dot_result(a, b, out, preferred_element_type)


def outer(a, b, out=None):
    a, b = util.promote_dtypes(a, b)
    a = ravel(a)
    a = lax.broadcast_in_dim(a, (a.shape[0], 1), (0,))
    b = ravel(b)
    return lax.mul(a, lax.broadcast_in_dim(b, (1, b.shape[0]), (1,)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    a, b = util.promote_dtypes(asarray(a), asarray(b))
    if isinstance(axes, int):
        ca = tuple(range(a.ndim - axes, a.ndim))
        cb = tuple(range(axes))
    else:
        ca, cb = axes
        ca = tuple(util.canonicalize_axis(i, a.ndim) for i in np.atleast_1d(ca))
        cb = tuple(util.canonicalize_axis(i, b.ndim) for i in np.atleast_1d(cb))
    return lax.dot_general(a, b, ((ca, cb), ((), ())), precision=precision,
                           preferred_element_type=preferred_element_type or util_dtype(a))
