"""``jax.dlpack``: exchange arrays with other libraries through DLPack."""
from xjit._src.dlpack import from_dlpack, is_supported_dtype  # noqa: F401

__all__ = ["from_dlpack", "is_supported_dtype"]
