"""What every differentiation rule shares: symbolic zero tangents, tangent
accumulation (``add_any``) and ``stop_gradient``, the last two as primitives
with their evaluation rules (JAX's ``ad_util``, where libraries find them:
lineax registers a transpose for ``stop_gradient_p``). The interpreters attach
the JVP, transpose, batching and lowering rules in ``interpreters/ad.py``."""
from __future__ import annotations

import numpy as np

from xjit._src import core, dtypes
from xjit._src.core import Primitive, ShapedArray


class Zero:
    """A tangent (or cotangent) known to be zero, never materialised."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval})"

    @staticmethod
    def from_primal_value(x):
        return Zero(tangent_aval(core.aval_of(x)))


def tangent_aval(aval):
    """Integer and boolean values, and PRNG keys, have float0 tangents."""
    if aval.dtype.kind in "iub" or aval.dtype == dtypes.float0 or \
            getattr(aval.dtype, "extended", False):
        return ShapedArray(aval.shape, dtypes.float0, False)
    return aval


def zeros_like_aval(aval):
    if aval.dtype == dtypes.float0:
        return np.zeros(aval.shape, dtypes.float0)
    zero = core.lax_ops.host_convert(0, aval.dtype, aval.weak_type)  # weak kept, as JAX
    if not aval.shape:  # a scalar zero stays a literal, as in JAX
        return zero
    # laid out as the aval's type says (a gradient of an unused sharded parameter)
    return core.lax_ops.broadcast_in_dim(zero, aval.shape, (), out_sharding=aval._sharding)


def instantiate(t):
    """``t`` itself, or the zeros a symbolic ``Zero`` stands for."""
    return zeros_like_aval(t.aval) if type(t) is Zero else t


# -- add_any: tangent accumulation (JAX prints it as its own primitive)
add_jaxvals_p = Primitive("add_any")
add_any_p = add_jaxvals_p
core.abstract_eval_rules[add_any_p] = lambda x, y: x


def add_jaxvals(x, y):
    return add_jaxvals_p.bind(x, y)


stop_gradient_p = Primitive("stop_gradient")
core.abstract_eval_rules[stop_gradient_p] = lambda x: x


def _stop_gradient_impl(x):
    """The identity; a NumPy value comes out with its canonical dtype, as from
    any primitive (under vmap too: lax.stop_gradient of an int64 input)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x, core.aval_of(x).dtype)
    return x


core.impl_rules[stop_gradient_p] = _stop_gradient_impl
