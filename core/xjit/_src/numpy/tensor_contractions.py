"""Tensor products of ``xjit.numpy``: ``matmul``, ``dot``, ``vdot``, ``inner``,
``outer``, ``tensordot``, the core-axis products ``vecdot``/``matvec``/``vecmat``
(one ``dot_general`` whose batch dimensions are the broadcast leading axes,
as JAX's vectorized forms trace), ``cross`` and ``kron``.

Products call ``dot_general`` on the unpromoted operands with a
``preferred_element_type``, as JAX does, and fix weak types afterwards."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray, multiply, subtract, util_dtype
from .shape_ops import moveaxis, ravel
from xjit._src.pjit import jit_named

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


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
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
    out = lax.dot_general(a, b, dims, precision=precision, out_sharding=out_sharding,
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


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """A single dot_general (scalars included) on the unpromoted operands."""
    util.check_arraylike("dot", a, b)
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        contract = ((), ())
    else:
        contract = ((a.ndim - 1,), (max(b.ndim - 2, 0),))
    out = lax.dot_general(a, b, (contract, ((), ())), precision=precision,
                          preferred_element_type=_product_dtype(a, b, preferred_element_type),
                          out_sharding=out_sharding)
    return _dot_result(a, b, out, preferred_element_type)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    a, b = asarray(a), asarray(b)
    if util_dtype(a).kind == "c":
        a = lax.conj(a)
    return dot(ravel(a), ravel(b), precision=precision, preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        if preferred_element_type is not None:
            a, b = (lax._convert(x, preferred_element_type, False) for x in (a, b))
        return multiply(a, b)
    out = lax.dot_general(a, b, (((a.ndim - 1,), (b.ndim - 1,)), ((), ())), precision=precision,
                          preferred_element_type=_product_dtype(a, b, preferred_element_type))
    return _dot_result(a, b, out, preferred_element_type)


def outer(a, b, out=None):
    a, b = util.promote_dtypes(a, b)
    a = ravel(a)
    a = lax.broadcast_in_dim(a, (a.shape[0], 1), (0,))
    b = ravel(b)
    return multiply(a, lax.broadcast_in_dim(b, (1, b.shape[0]), (1,)))  # and on booleans


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None, out_sharding=None):
    a, b = asarray(a), asarray(b)
    if isinstance(axes, int):
        ca = tuple(range(a.ndim - axes, a.ndim))
        cb = tuple(range(axes))
    else:
        ca, cb = axes
        ca = tuple(util.canonicalize_axis(i, a.ndim) for i in np.atleast_1d(ca))
        cb = tuple(util.canonicalize_axis(i, b.ndim) for i in np.atleast_1d(cb))
    out = lax.dot_general(a, b, ((ca, cb), ((), ())), precision=precision,
                          preferred_element_type=_product_dtype(a, b, preferred_element_type),
                          out_sharding=out_sharding)
    return _dot_result(a, b, out, preferred_element_type)


def _batched_dot(a, b, a_core, b_core, contract, precision, preferred_element_type):
    """``dot_general`` over the core axes (the trailing ``a_core``/``b_core``
    of each) with the leading axes broadcast together as batch axes."""
    batch = util.broadcast_shapes(a.shape[:a.ndim - a_core], b.shape[:b.ndim - b_core])
    a = util.broadcast_to(a, batch + a.shape[a.ndim - a_core:])
    b = util.broadcast_to(b, batch + b.shape[b.ndim - b_core:])
    nb = len(batch)
    dims = ((tuple(nb + i for i in contract[0]), tuple(nb + i for i in contract[1])),
            (tuple(range(nb)), tuple(range(nb))))
    return lax.dot_general(a, b, dims, precision=precision,
                           preferred_element_type=_product_dtype(a, b, preferred_element_type))


def _core_error(name, sig, a, b):
    return ValueError(f"inconsistent size for core dimension '{name}': {a} vs {b} on vectorized "
                      f"function with excluded=frozenset() and signature='{sig}'")


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """``sum(conj(x1) * x2, axis)``."""
    util.check_arraylike("jnp.vecdot", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with axis={axis}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    if util_dtype(x1).kind == "c":
        x1 = lax.conj(x1)
    return _batched_dot(x1, x2, 1, 1, ((0,), (0,)), precision, preferred_element_type)


@jit_named("matvec", static_argnames=("precision", "preferred_element_type"))
def _matvec(x1, x2, precision, preferred_element_type):
    if x1.shape[-1] != x2.shape[-1]:
        raise _core_error("m", "(n,m),(m)->(n)", x2.shape[-1], x1.shape[-1])
    return _batched_dot(x1, x2, 2, 1, ((1,), (0,)), precision, preferred_element_type)


def matvec(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Matrix-vector product over the last two axes of ``x1`` and the last
    axis of ``x2``."""
    util.check_arraylike("jnp.matvec", x1, x2)
    return _matvec(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


@jit_named("vecmat", static_argnames=("precision", "preferred_element_type"))
def _vecmat(x1, x2, precision, preferred_element_type):
    if x1.shape[-1] != x2.shape[-2]:
        raise _core_error("n", "(n),(n,m)->(m)", x2.shape[-2], x1.shape[-1])
    if util_dtype(x1).kind == "c":
        x1 = lax.conj(x1)
    return _batched_dot(x1, x2, 1, 2, ((0,), (0,)), precision, preferred_element_type)


def vecmat(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Conjugated vector-matrix product: ``conj(x1) @ x2`` over the core axes."""
    util.check_arraylike("jnp.vecmat", x1, x2)
    return _vecmat(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


@jit_named("cross", static_argnames=("axisa", "axisb", "axisc", "axis"))
def _cross(a, b, axisa, axisb, axisc, axis):
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(asarray(a), axisa, -1), moveaxis(asarray(b), axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")

    def comp(x, i):
        if i >= x.shape[-1]:
            return lax.full(x.shape[:-1], 0, util_dtype(x))
        return lax.squeeze(lax.slice_along(x, i, i + 1, axis=x.ndim - 1), (x.ndim - 1,))

    # jnp's products, not lax's: a boolean factor selects (False * inf is 0)
    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))
    z = subtract(multiply(a0, b1), multiply(a1, b0))
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return z
    c = [subtract(multiply(a1, b2), multiply(a2, b1)), subtract(multiply(a2, b0), multiply(a0, b2)), z]
    out = lax.concatenate([lax.expand_dims(x, (x.ndim,)) for x in c], z.ndim)
    return moveaxis(out, -1, axisc)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    util.check_arraylike("cross", a, b)
    return _cross(a, b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


@jit_named("kron")
def _kron(a, b):
    a, b = (asarray(x) for x in util.promote_dtypes(a, b))
    nd = builtins.max(a.ndim, b.ndim)
    a = lax.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = lax.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    wide_a = lax.broadcast_in_dim(a, sum(((d, 1) for d in a.shape), ()), tuple(range(0, 2 * nd, 2)))
    wide_b = lax.broadcast_in_dim(b, sum(((1, d) for d in b.shape), ()), tuple(range(1, 2 * nd, 2)))
    wide_a, wide_b = util.promote_shapes("kron", wide_a, wide_b)
    prod = multiply(wide_a, wide_b)
    return lax.reshape(prod, tuple(x * y for x, y in zip(a.shape, b.shape)))


def kron(a, b):
    util.check_arraylike("kron", a, b)
    return _kron(a, b)
