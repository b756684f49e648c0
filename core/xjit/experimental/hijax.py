"""``xjit.experimental.hijax``: primitives defined by methods, as
``jax.experimental.hijax`` (high types are not supported yet; see
``xjit._src.hijax``)."""
from xjit._src.hijax import (  # noqa: F401
    AbstractValue, AvalMutableQDD, AvalQDD, HiPrimitive, HiPspec, HiType, MutableHiType,
    ShapedArray, VJPHiPrimitive, Zero, aval_method, aval_property, control_flow_allowed_effects,
    instantiate_zeros, is_undefined_primal, register_hitype)
