"""JAX's error classes (``xjit.errors``)."""
from xjit._src.errors import (  # noqa: F401
    ConcretizationTypeError, JaxRuntimeError, KeyReuseError, NonConcreteBooleanIndexError,
    TracerArrayConversionError, TracerBoolConversionError, TracerIntegerConversionError,
    UnexpectedTracerError)
