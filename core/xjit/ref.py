"""``jax.ref``: mutable array references."""
from xjit._src.state.primitives import (  # noqa: F401
    empty_ref, free_ref, freeze, new_ref, ref_addupdate as addupdate, ref_get as get,
    ref_set as set, ref_swap as swap)
from xjit._src.state.types import AbstractRef, Ref  # noqa: F401
from xjit._src.state import discharge as _discharge  # noqa: F401  (refs are discharged before lowering)

__all__ = ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get", "new_ref",
           "set", "swap"]
