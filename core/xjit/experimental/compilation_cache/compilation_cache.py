"""``jax.experimental.compilation_cache.compilation_cache``: turn the
persistent compilation cache on (``set_cache_dir``) and off (``reset_cache``)."""
from xjit._src.compilation_cache import reset_cache, set_cache_dir  # noqa: F401
