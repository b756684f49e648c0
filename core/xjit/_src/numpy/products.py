"""Vector products over a core axis, broadcast over the others:
``jnp.vecdot`` (conjugating the first operand), ``jnp.matvec`` and
``jnp.vecmat``. Each is one ``dot_general`` whose batch dimensions are the
broadcast leading axes, which is what JAX's vectorized forms trace to."""
from __future__ import annotations

import numpy as np

from xjit._src.lax import lax
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
        raise _core_error("m", "(n,m),(m)->(n)", x2.shape[-1], x1.shape[-1])
    return _batched_dot(x1, x2, 2, 1, ((1,), (0,)), precision, preferred_element_type)


def matvec(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Matrix-vector product over the last two axes of ``x1`` and the last
    axis of ``x2``."""
    util.check_arraylike("jnp.matvec", x1, x2)
    return _matvec(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


@jitted("vecmat", ("precision", "preferred_element_type"))
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

# -- contraction planning


def _pair_cost(la, lb, keep, sizes):
    """FLOPs of contracting two terms, counted as opt_einsum does: the size of
    the joint index space, doubled when some index is summed away."""
    joint = set(la) | set(lb)
    out = {c for c in joint if c in keep}
    return int(np.prod([sizes[c] for c in joint], dtype=np.int64)) * (2 if joint - out else 1), out


def _optimal_path(terms, out_labels, sizes):
    """Exhaustive search over pairwise orders; ties keep the first found."""
    best = [None, None]

    def search(terms, path, cost):
        if best[0] is not None and cost >= best[0]:
            return
        if len(terms) == 1:
            best[0], best[1] = cost, path
            return
        for i in range(len(terms)):
            for j in range(i + 1, len(terms)):
                rest = [t for k, t in enumerate(terms) if k not in (i, j)]
                keep = set(out_labels).union(*rest)
                c, new = _pair_cost(terms[i], terms[j], keep, sizes)
                search(rest + [frozenset(new)], path + [(i, j)], cost + c)
    search([frozenset(t) for t in terms], [], 0)
    return best[1], best[0]


def einsum_path(subscripts, *operands, optimize="auto"):
    """``(path, description)``: the pairwise contraction order (opt_einsum's
    linear-position format) that minimizes the FLOP count. ``optimize=False``
    contracts left to right; an explicit path is returned as is. The
    description is a short text summary, not opt_einsum's ``PathInfo``."""
    from .einsum import _parse
    shapes = [np.shape(x) for x in operands]
    labels, out_labels = _parse(subscripts, [len(s) for s in shapes])
    sizes = {}
    for ls, shape in zip(labels, shapes):
        for c, d in zip(ls, shape):
            sizes[c] = max(sizes.get(c, 1), d)
    if isinstance(optimize, (list, tuple)):
        path = [tuple(p) for p in optimize if p != "einsum_path"]
        cost = None
    elif optimize is False or len(labels) < 2:
        path, cost = [(0, 1)] * (len(labels) - 1) or [(0,)], None
    else:
        path, cost = _optimal_path(labels, out_labels, sizes)
    naive = int(np.prod([sizes[c] for c in sizes], dtype=np.int64)) * len(labels)
    info = (f"  Complete contraction:  {','.join(labels)}->{out_labels}\n"
            f"      Naive FLOP count:  {naive:.3e}\n"
            f"  Optimized FLOP count:  {(naive if cost is None else cost):.3e}")
    return path, info
