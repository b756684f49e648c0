"""``xjit.experimental.layout``: array layouts, as ``jax.experimental.layout``."""
from xjit._src.layout import Format, Layout, with_layout_constraint  # noqa: F401

__all__ = ["Format", "Layout", "with_layout_constraint"]
