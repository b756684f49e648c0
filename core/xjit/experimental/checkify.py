"""Functionalized runtime checks (``xjit.experimental.checkify``)."""
from xjit._src.checkify import (  # noqa: F401
    DivisionByZeroError, Error, JaxRuntimeError, NaNError, OOBError, UserCheckError,
    all_checks, automatic_checks, check, checkify, div_checks, float_checks, index_checks,
    nan_checks, user_checks)
