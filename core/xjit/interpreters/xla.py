"""``jax.interpreters.xla``: what is left of JAX's old module: the PJRT client
type (``Backend``), running one primitive eagerly (``apply_primitive``) and
the table of how host values of each Python type are made canonical
(``canonicalize_dtype_handlers``: a value's dtype is fixed by its aval)."""
from jaxlib._jax import Client as Backend  # noqa: F401

from xjit._src.dispatch import apply_primitive  # noqa: F401


def __getattr__(name):
    if name == "canonicalize_dtype_handlers":
        raise AttributeError("jax.interpreters.xla.canonicalize_dtype_handlers is not part of "
                             "xjit: host values take their canonical dtype from their aval")
    raise AttributeError(f"module 'jax.interpreters.xla' has no attribute {name!r}")
