"""JAX's error classes (``xjit.errors``)."""
from xjit._src.errors import (  # noqa: F401
    ConcretizationTypeError, InconclusiveDimensionOperation, JAXIndexError, JAXTypeError,
    JaxprTypeError, JaxRuntimeError, KeyReuseError, NonConcreteBooleanIndexError,
    TracerArrayConversionError, TracerBoolConversionError, TracerIntegerConversionError,
    UnexpectedTracerError)
