"""Vector products over a core axis, broadcast over the others:
``jnp.vecdot`` (conjugating the first operand), ``jnp.matvec`` and
``jnp.vecmat``. Each is one ``dot_general`` whose batch dimensions are the
broadcast leading axes, which is what JAX's vectorized forms trace to."""
from __future__ import annotations

from ..lax import api as lax
from . import util
from .lax_numpy import asarray, util_dtype
from .more_ops import jitted
from .shape_ops import _product_dtype, moveaxis


def _batched_dot(a, b, a_core, b_core, contract, precision, preferred_element_type):
    """``dot_general`` over the core axes (the trailing ``a_core``/``b_core``
    of each) with the leading axes broadcast together as batch axes."""
    a, b = util.promote_dtypes(a, b)
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


@jitted("matvec", ("precision", "preferred_element_type"))
def _matvec(x1, x2, precision, preferred_element_type):
    if x1.shape[-1] != x2.shape[-1]:
        raise _core_error("m", "(n,m),(m)->(n)", x1.shape[-1], x2.shape[-1])
    return _batched_dot(x1, x2, 2, 1, ((1,), (0,)), precision, preferred_element_type)


def matvec(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Matrix-vector product over the last two axes of ``x1`` and the last
    axis of ``x2``."""
    util.check_arraylike("jnp.matvec", x1, x2)
    return _matvec(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


@jitted("vecmat", ("precision", "preferred_element_type"))
def _vecmat(x1, x2, precision, preferred_element_type):
    if x1.shape[-1] != x2.shape[-2]:
        raise _core_error("n", "(n),(n,m)->(m)", x1.shape[-1], x2.shape[-2])
    if util_dtype(x1).kind == "c":
        x1 = lax.conj(x1)
    return _batched_dot(x1, x2, 1, 2, ((0,), (0,)), precision, preferred_element_type)


def vecmat(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Conjugated vector-matrix product: ``conj(x1) @ x2`` over the core axes."""
    util.check_arraylike("jnp.vecmat", x1, x2)
    return _vecmat(x1, x2, precision=precision, preferred_element_type=preferred_element_type)
