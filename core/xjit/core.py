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

# JAX 0.10.2 still answers these from ``jax.core`` with a DeprecationWarning
# pointing at ``jax.extend.core`` (flax's older code paths reach for them).
_MOVED_TO_EXTEND = ("find_top_trace", "get_opaque_trace_state")


def __getattr__(name):
    if name in _MOVED_TO_EXTEND:
        import warnings

        from xjit.extend import core as extend_core
        warnings.warn(f"jax.core.{name} is deprecated. Use jax.extend.core.{name}.",
                      DeprecationWarning, stacklevel=2)
        return getattr(extend_core, name)
    raise AttributeError(f"module 'jax.core' has no attribute '{name}'")
