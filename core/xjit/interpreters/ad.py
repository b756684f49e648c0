"""``xjit.interpreters.ad``: forward and reverse differentiation rules.

``primitive_jvps`` and ``primitive_transposes`` are the tables the JVP and
transpose interpreters consult: writing a rule here is registering it."""
from __future__ import annotations  # noqa: F401  (JAX's module exports ``annotations`` too)

from xjit._src.ad_util import add_jaxvals, add_jaxvals_p  # noqa: F401
from xjit._src.interpreters.ad import (  # noqa: F401
    JVPTrace, JVPTracer, UndefinedPrimal, Zero, add_tangents, defbilinear, defjvp, defjvp2,
    deflinear, deflinear2, instantiate_zeros, is_undefined_primal, zeros_like_aval)
from xjit._src.interpreters.ad import jvp_rules as primitive_jvps  # noqa: F401
from xjit._src.interpreters.ad import transpose_rules as primitive_transposes  # noqa: F401


def get_primitive_transpose(p):
    try:
        return primitive_transposes[p]
    except KeyError:
        raise NotImplementedError(
            f"Transpose rule (for reverse-mode differentiation) for '{p}' not implemented"
        ) from None
