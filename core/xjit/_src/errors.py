"""JAX's error classes, with messages that name the offending value and where
it came from (the traced function, and the arguments it depends on)."""
from __future__ import annotations

_DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."

IMMUTABLE_MESSAGE = (
    "JAX arrays are immutable and do not support in-place item assignment. Instead of "
    "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


class JAXTypeError(TypeError):
    pass


class JAXIndexError(IndexError):
    pass


def _origin(tracer) -> str:
    try:
        return tracer._origin()
    except Exception:  # an origin is a courtesy; never mask the real error
        return ""


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where Python needs a concrete one."""

    def __init__(self, tracer, context: str = ""):
        self.tracer = tracer
        msg = ("Abstract tracer value encountered where concrete value is expected: "
               f"traced array with shape {tracer.aval.str_short(False)}\n")
        if context:
            msg += context + "\n"
        origin = _origin(tracer)
        if origin:
            msg += origin + "\n"
        super().__init__(msg + "\nSee " + _DOCS + "ConcretizationTypeError")


class NonConcreteBooleanIndexError(JAXIndexError):
    def __init__(self, tracer):
        super().__init__(
            f"Array boolean indices must be concrete; got {tracer.aval.str_short(False)}\n\n"
            "See " + _DOCS + "NonConcreteBooleanIndexError")


def _traced_message(head, tracer, name):
    """``head``, where the traced value came from, and the docs anchor."""
    origin = _origin(tracer)
    return head + (origin + "\n" if origin else "") + "See " + _DOCS + name


class TracerArrayConversionError(JAXTypeError):
    def __init__(self, tracer):
        self.tracer = tracer
        super().__init__(_traced_message(
            "The numpy.ndarray conversion method __array__() was called on traced array "
            f"with shape {tracer.aval.str_short(False)}\n", tracer, "TracerArrayConversionError"))


class TracerIntegerConversionError(JAXTypeError):
    def __init__(self, tracer):
        self.tracer = tracer
        super().__init__(_traced_message(
            "The __index__() method was called on traced array with shape "
            f"{tracer.aval.str_short(False)}\n", tracer, "TracerIntegerConversionError"))


class TracerBoolConversionError(ConcretizationTypeError):
    def __init__(self, tracer):
        self.tracer = tracer
        TypeError.__init__(self, _traced_message(
            "Attempted boolean conversion of traced array with shape "
            f"{tracer.aval.str_short(False)}.\n", tracer, "TracerBoolConversionError"))


class UnexpectedTracerError(JAXTypeError):
    pass


class KeyReuseError(JAXTypeError):
    pass


class JaxprTypeError(TypeError):
    """A jaxpr that does not type-check."""


class InconclusiveDimensionOperation(Exception):
    """A shape computation that symbolic dimensions cannot decide."""


class JaxRuntimeError(RuntimeError):
    pass


for _cls in (ConcretizationTypeError, NonConcreteBooleanIndexError, TracerArrayConversionError,
             TracerIntegerConversionError, TracerBoolConversionError, UnexpectedTracerError,
             KeyReuseError, JaxRuntimeError, JAXTypeError, JAXIndexError, JaxprTypeError,
             InconclusiveDimensionOperation):
    _cls.__module__ = "xjit.errors"
