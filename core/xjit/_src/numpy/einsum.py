"""``jnp.einsum``: Einstein summation as a sequence of ``dot_general``s.

Each operand first loses its repeated labels (diagonals) and the labels no
one else needs (summed out); then operands are contracted pairwise, greedily
choosing the pair whose result is smallest. A contraction keeps as batch
dimensions the shared labels still needed later and contracts the others."""
from __future__ import annotations

import functools

import itertools

import numpy as np

from .. import dtypes
from xjit._src.lax import lax
from . import util
from .lax_numpy import asarray, util_dtype
from xjit._src.sharding import auto_axes, canonicalize_sharding


def _parse(subscripts, ndims):
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        ins, out = subscripts.split("->")
        explicit = True
    else:
        ins, out, explicit = subscripts, None, False
    inputs = ins.split(",")
    if len(inputs) != len(ndims):
        raise ValueError(f"Number of einsum subscripts, {len(inputs)}, must match the number of "
                         f"operands, {len(ndims)}.")
    used = set(subscripts) - set(".,->")
    spare = (c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used)
    ell_nd = max((nd - len(s.replace("...", "")) for s, nd in zip(inputs, ndims) if "..." in s),
                 default=0)
    ell = "".join(next(spare) for _ in range(ell_nd))
    labels = []
    for s, nd in zip(inputs, ndims):
        if "..." in s:
            k = nd - len(s.replace("...", ""))
            s = s.replace("...", ell[ell_nd - k:] if k else "")
        if len(s) != nd:
            raise ValueError(f"einstein sum subscripts string contains too many subscripts for "
                             f"operand of rank {nd}" if len(s) > nd else
                             f"operand has more dimensions than subscripts given in einstein sum, "
                             f"but no '...' ellipsis provided to broadcast the extra dimensions.")
        labels.append(s)
    if explicit:
        out = out.replace("...", ell)
        for c in out:
            if not any(c in s for s in labels):
                raise ValueError(f"einstein sum subscripts string included output subscript "
                                 f"'{c}' which never appeared in an input")
    else:
        counts = {}
        for s in labels:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return labels, out


def _summable(x, preferred):
    """``x`` in the einsum's type before it is summed (a narrower operand is
    widened first, as JAX sums), unchanged if that would narrow it."""
    return x if dtypes.result_type(x, preferred) == util_dtype(x) else lax._convert(x, preferred)


def _diagonal(x, labels, preferred):
    """Collapse repeated labels of one operand onto their diagonal."""
    while True:
        dup = next((c for c in labels if labels.count(c) > 1), None)
        if dup is None:
            return x, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        mask = lax.eq(lax.broadcasted_iota(np.uint32, x.shape, i),
                      lax.broadcasted_iota(np.uint32, x.shape, j))
        x = lax.reduce_sum(_summable(lax.select(mask, x, lax.full_like(x, 0)), preferred), (i,))
        labels = labels[:i] + labels[i + 1:]


def _sum_unneeded(x, labels, keep, preferred):
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    return lax.reduce_sum(_summable(x, preferred), axes), "".join(c for c in labels if c in keep)


def _broadcast_label(x, labels, sizes):
    """Expand size-1 axes to the label's size elsewhere (NumPy broadcasting)."""
    shape = tuple(sizes[c] for c in labels)
    if tuple(x.shape) == shape:
        return x
    squeeze = [i for i, (d, s) in enumerate(zip(x.shape, shape)) if d != s]
    x = lax.reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in squeeze))
    return lax.broadcast_in_dim(x, shape, tuple(i for i in range(len(shape)) if i not in squeeze))


def _result_labels(la, lb, keep):
    shared = [c for c in la if c in lb]
    return "".join(c for c in shared if c in keep) + "".join(c for c in la if c not in shared) + \
        "".join(c for c in lb if c not in shared)


def _contract(a, la, b, lb, keep, precision, preferred):
    shared = [c for c in la if c in lb]
    batch = [c for c in shared if c in keep]
    contract = [c for c in shared if c not in keep]
    dn = ((tuple(la.index(c) for c in contract), tuple(lb.index(c) for c in contract)),
          (tuple(la.index(c) for c in batch), tuple(lb.index(c) for c in batch)))
    out = lax.dot_general(a, b, dn, precision=precision, preferred_element_type=preferred)
    return out, _result_labels(la, lb, keep)


def einsum(subscripts, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
    s = canonicalize_sharding(out_sharding, "einsum")
    if s is not None:  # the contractions in auto mode, the result of the type asked for
        return auto_axes(functools.partial(
            einsum, subscripts, out=out, optimize=optimize, precision=precision,
            preferred_element_type=preferred_element_type, _dot_general=_dot_general),
            out_sharding=s, axes=s.mesh.explicit_axes)(*operands)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        raise NotImplementedError("jnp.einsum with interleaved operand/sublist arguments is not "
                                  "implemented; pass a subscripts string")
    operands = [util.jax_array_of(x) for x in operands]
    util.check_arraylike("einsum", *operands)
    ops = [asarray(x) for x in operands]
    labels, out_labels = _parse(subscripts, [x.ndim for x in ops])
    sizes = {}
    for x, ls in zip(ops, labels):
        for c, d in zip(ls, x.shape):
            if sizes.get(c, 1) != 1 and d not in (1, sizes[c]):
                raise ValueError(f"Size of label '{c}' for operand does not match previous terms.")
            sizes[c] = max(sizes.get(c, 1), d) if c in sizes else d
    if preferred_element_type is None:
        preferred, weak = dtypes.result_type(*ops, return_weak_type_flag=True)
    else:
        preferred, weak = dtypes.canonicalize_dtype(preferred_element_type), False
    terms = []
    for k, (x, ls) in enumerate(zip(ops, labels)):
        x, ls = _diagonal(x, ls, preferred)
        others = set(out_labels).union(*(set(l) for i, l in enumerate(labels) if i != k))
        x, ls = _sum_unneeded(x, ls, others, preferred)
        terms.append((_broadcast_label(x, ls, sizes), ls))
    while len(terms) > 1:
        best = None
        for i, j in itertools.combinations(range(len(terms)), 2):
            la, lb = terms[i][1], terms[j][1]
            rest = set(out_labels).union(*(set(t[1]) for m, t in enumerate(terms) if m not in (i, j)))
            size = np.prod([sizes[c] for c in set(la) | set(lb) if c in rest or not (c in la and c in lb)],
                           dtype=np.int64)
            if best is None or size < best[0]:
                best = (size, i, j, rest)
        _, i, j, rest = best
        (a, la), (b, lb) = terms[i], terms[j]
        if len(terms) == 2 and _result_labels(lb, la, rest) == out_labels:
            (a, la), (b, lb) = (b, lb), (a, la)  # no transpose needed afterwards
        new = _contract(a, la, b, lb, rest, precision, preferred)
        terms = [t for m, t in enumerate(terms) if m not in (i, j)] + [new]
    x, ls = terms[0]
    x, ls = _sum_unneeded(x, ls, set(out_labels), preferred)
    x = lax.transpose(x, tuple(ls.index(c) for c in out_labels))
    return lax._convert(x, preferred, weak)


# -- contraction planning (``einsum_path``)


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
