"""Experimental APIs (``xjit.experimental``), as in ``jax.experimental``."""
from xjit._src.callbacks import io_callback  # noqa: F401
