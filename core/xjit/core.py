"""``xjit.core``: what JAX 0.10.2's ``jax.core`` still exports (the IR itself
is in ``xjit.extend.core``)."""
from typing import Any

from xjit._src.api_transforms import ensure_compile_time_eval  # noqa: F401
from xjit._src.core import (  # noqa: F401
    AbstractValue, Literal, ShapedArray, Trace, Tracer, Var, eval_context, eval_jaxpr, max_dim,
    min_dim)

Atom = Var | Literal
Value = Any
ParamDict = dict[str, Any]

# JAX 0.10.2's ``jax.core`` still answers these, with a DeprecationWarning
# naming where they live now (flax's older code paths reach for them)...
_TO_EXTEND = ("CallPrimitive", "DropVar", "Effect", "Effects", "check_jaxpr",
              "concrete_or_error", "find_top_trace", "gensym", "get_opaque_trace_state",
              "jaxprs_in_params", "new_jaxpr_eqn", "no_effects",
              "primal_dtype_to_tangent_dtype", "valid_jaxtype")
_TO_ERRORS = ("JaxprTypeError", "InconclusiveDimensionOperation")
_PLAIN = {"call": "call", "is_concrete": "is_concrete", "trace_ctx": "trace_ctx",
          "nonempty_axis_env_DO_NOT_USE": "nonempty_axis_env_DO_NOT_USE",
          "unsafe_am_i_under_a_jit_DO_NOT_USE": "unsafe_am_i_under_a_jit_DO_NOT_USE",
          "unsafe_am_i_under_a_vmap_DO_NOT_USE": "unsafe_am_i_under_a_vmap_DO_NOT_USE",
          "unsafe_get_axis_names_DO_NOT_USE": "unsafe_get_axis_names_DO_NOT_USE"}
# ... and these it no longer has, saying so.
_REMOVED = {name: f"jax.core.{name} was deprecated in JAX v0.8.2 and removed in JAX v0.10.0. "
                  f"Use jax.extend.core.{name}."
            for name in ("AbstractToken", "TraceTag", "call_impl", "mapped_aval",
                         "set_current_trace", "subjaxprs", "take_current_trace",
                         "unmapped_aval")}
_REMOVED["traverse_jaxpr_params"] = ("jax.core.traverse_jaxpr_params was deprecated in JAX "
                                     "v0.8.2 and removed in JAX v0.10.0.")
_REMOVED["get_aval"] = ("jax.core.get_aval was deprecated in JAX v0.8.2 and removed in JAX "
                        "v0.10.0; use jax.typeof instead.")


def _moved(name):
    """(message, value) of a deprecated name, or None where xjit lacks it."""
    from xjit._src import call, core, transformation_state
    from xjit.extend import core as extend_core
    if name in _TO_EXTEND and hasattr(extend_core, name):
        return (f"jax.core.{name} is deprecated. Use jax.extend.core.{name}.",
                getattr(extend_core, name))
    if name in _TO_ERRORS:
        return (f"jax.core.{name} is deprecated. Use jax.errors.{name}.",
                getattr(extend_core, name))
    if name in _PLAIN:
        value = (call.call_p.bind if name == "call" else
                 getattr(core, name, None) or getattr(transformation_state, name))
        return f"jax.core.{name} is deprecated.", value
    return None


def __getattr__(name):
    if name in _REMOVED:
        raise AttributeError(_REMOVED[name])
    moved = _moved(name)
    if moved is None:
        raise AttributeError(f"module 'jax.core' has no attribute '{name}'")
    import warnings
    warnings.warn(moved[0], DeprecationWarning, stacklevel=2)
    return moved[1]
