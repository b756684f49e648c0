"""NumPy's API on xjit arrays (``import xjit.numpy as jnp``)."""
from xjit._src.numpy.lax_numpy import *  # noqa: F401,F403
from xjit._src.numpy.lax_numpy import Array, abs, bool, pow, round  # noqa: F401
from xjit._src.numpy.reductions import (  # noqa: F401
    all, amax, amin, any, argmax, argmin, count_nonzero, max, mean, min, prod, std, sum, var)
from xjit._src.numpy.shape_ops import (  # noqa: F401
    atleast_1d, atleast_2d, broadcast_arrays, broadcast_shapes, broadcast_to, concatenate, dot,
    expand_dims, hstack, inner, matmul, matrix_transpose, moveaxis, outer, permute_dims, ravel,
    reshape, squeeze, stack, swapaxes, tensordot, transpose, vdot, vstack)
from xjit._src.numpy.indexing import nonzero  # noqa: F401
from xjit._src.numpy import array_methods as _am

_am.install_all()
del _am
