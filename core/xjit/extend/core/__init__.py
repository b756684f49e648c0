"""``xjit.extend.core``: jaxprs, primitives and traces (``jax.extend.core``)."""
from xjit._src.core import (  # noqa: F401
    ClosedJaxpr, DropVar, Effect, InconclusiveDimensionOperation, Jaxpr, JaxprEqn,
    JaxprTypeError, Literal, Primitive, Var, check_jaxpr, concrete_or_error, find_top_trace,
    gensym, jaxpr_as_fun, jaxprs_in_params, mapped_aval, new_jaxpr_eqn, no_effects,
    primal_dtype_to_tangent_dtype, set_current_trace, subjaxprs, take_current_trace,
    unmapped_aval, valid_jaxtype)
from xjit._src.transformation_state import (  # noqa: F401
    TraceTag, array_types, get_opaque_trace_state, nonempty_axis_env_DO_NOT_USE,
    unsafe_am_i_under_a_jit_DO_NOT_USE, unsafe_am_i_under_a_vmap_DO_NOT_USE,
    unsafe_get_axis_names_DO_NOT_USE)
from xjit.extend.core import primitives  # noqa: F401
from xjit._src.call import CallPrimitive, call_impl  # noqa: F401

Effects = set  # a set of ``Effect``s
