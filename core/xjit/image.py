"""``jax.image``: resizing and affine resampling of images."""
from xjit._src.image import ResizeMethod, resize, scale_and_translate  # noqa: F401

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
