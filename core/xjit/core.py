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
