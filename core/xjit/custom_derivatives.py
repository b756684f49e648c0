"""``xjit.custom_derivatives``: user-defined derivative rules."""
from xjit._src.api_transforms import closure_convert, custom_gradient  # noqa: F401
from xjit._src.custom_derivatives import (  # noqa: F401
    CustomVJPPrimal, SymbolicZero, custom_jvp, custom_jvp_call_p, custom_vjp, custom_vjp_call_p,
    custom_vjp_primal_tree_values, zero_from_primal)
from xjit._src.linear_call import linear_call  # noqa: F401
