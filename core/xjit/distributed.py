"""``jax.distributed``: several processes running one program."""
from xjit._src.distributed import initialize, is_initialized, shutdown  # noqa: F401
