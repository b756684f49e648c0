"""``ravel_pytree``: a pytree of arrays as one flat vector, and the function
back. Leaves are promoted to their common result dtype; the unravel
function restores each leaf's own dtype and shape."""
from __future__ import annotations

import warnings

import numpy as np

from xjit._src import dtypes, tree_util


def _lax():
    from xjit._src.lax import lax  # the lax layer sits above this module's callers' imports
    return lax


class _HashablePartial:
    """``functools.partial`` that hashes and compares by function and args, so
    an unravel function can be a static argument of ``jit``."""

    __slots__ = ("f", "args")

    def __init__(self, f, *args):
        self.f, self.args = f, args

    def __eq__(self, other):
        return type(other) is _HashablePartial and self.f is other.f and self.args == other.args

    def __hash__(self):
        return hash((self.f, self.args))

    def __call__(self, *args):
        return self.f(*self.args, *args)


def ravel_pytree(pytree):
    """``(flat, unravel)``: the leaves raveled and concatenated into one 1-D
    array of their promoted dtype, and ``unravel(flat) -> pytree``."""
    leaves, treedef = tree_util.tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, _HashablePartial(_unravel_pytree, treedef, unravel_list)


def _unravel_pytree(treedef, unravel_list, flat):
    return tree_util.tree_unflatten(treedef, unravel_list(flat))


def _ravel_list(leaves):
    from xjit._src.numpy import lax_numpy, shape_ops
    lax = _lax()
    if not leaves:
        return lax_numpy.array([], np.float32), lambda _: []
    from_dtypes = tuple(dtypes.dtype(x) for x in leaves)
    to_dtype = dtypes.result_type(*from_dtypes)
    shapes = tuple(np.shape(x) for x in leaves)
    indices = tuple(int(i) for i in np.cumsum([int(np.prod(s, dtype=np.int64)) for s in shapes]))
    if all(dt == to_dtype for dt in from_dtypes):
        flat = shape_ops.concatenate([shape_ops.ravel(x) for x in leaves])
        return flat, _HashablePartial(_unravel_single_dtype, indices, shapes)
    flat = shape_ops.concatenate([shape_ops.ravel(lax.convert_element_type(x, to_dtype))
                                  for x in leaves])
    return flat, _HashablePartial(_unravel_list, indices, shapes, from_dtypes, to_dtype)


def _chunks(flat, indices, shapes):
    from xjit._src.numpy.splitting import split
    return [c.reshape(s) for c, s in zip(split(flat, indices[:-1]), shapes)]


def _unravel_single_dtype(indices, shapes, flat):
    return _chunks(flat, indices, shapes)


def _unravel_list(indices, shapes, from_dtypes, to_dtype, flat):
    lax = _lax()
    got = dtypes.dtype(flat)
    if got != to_dtype:
        raise TypeError(f"unravel function given array of dtype {got}, but expected dtype "
                        f"{to_dtype}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a complex-to-real cast warns; the cast is intended
        return [lax.convert_element_type(c, dt)
                for c, dt in zip(_chunks(flat, indices, shapes), from_dtypes)]
