"""Experimental APIs (``xjit.experimental``), as in ``jax.experimental``."""
from xjit._src.callback import io_callback  # noqa: F401
from xjit._src.hijax import cur_qdd  # noqa: F401
from xjit.experimental import checkify  # noqa: F401,E402
