"""Array layouts (``jax.experimental.layout``): ``Layout`` (the order of an
array's dimensions in memory, with optional tiling), ``Format`` (a layout with
the sharding it applies to) and ``with_layout_constraint``.

xjit lets XLA pick its default layouts, so a layout constraint checks that the
layout fits the value and leaves the value as it is (a layout changes where
elements live in memory, never their values).
"""
from __future__ import annotations

from xjit._src import tree_util
from xjit._src.sharding import Sharding


class AutoLayout:
    """``Layout.AUTO``: let the compiler choose."""

    __slots__ = ()

    def __repr__(self):
        return "AUTO"


class Layout:
    """Dimensions from major to minor, optional tiles, and the element size in
    bits of sub-byte types."""

    AUTO = AutoLayout()

    __slots__ = ("major_to_minor", "tiling", "sub_byte_element_size_in_bits")

    def __init__(self, major_to_minor, tiling=None, sub_byte_element_size_in_bits: int = 0):
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = None if tiling is None else tuple(map(tuple, tiling))
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    def _key(self):
        return (self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits)

    def __eq__(self, other):
        return isinstance(other, Layout) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
                f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")

    def update(self, **kwargs):
        """This layout with the given fields replaced."""
        fields = dict(major_to_minor=self.major_to_minor, tiling=self.tiling,
                      sub_byte_element_size_in_bits=self.sub_byte_element_size_in_bits)
        fields.update(kwargs)
        return Layout(**fields)

    def check_compatible_aval(self, shape):
        if len(self.major_to_minor) != len(shape):
            raise ValueError(
                "Length of major_to_minor and the rank of the value should match. Got "
                f"major_to_minor={self.major_to_minor} and shape={tuple(shape)}")
        if sorted(self.major_to_minor) != list(range(len(shape))):
            raise ValueError(f"major_to_minor={self.major_to_minor} is not a permutation of "
                             f"the value's {len(shape)} dimensions")


class Format:
    """A layout together with the sharding it applies to."""

    __slots__ = ("layout", "sharding")

    def __init__(self, layout=None, sharding=None):
        if not (layout is None or isinstance(layout, (Layout, AutoLayout))):
            raise TypeError(
                "Invalid value received for the layout argument. Expected values are `None`, "
                "`Layout.AUTO` or an instance of `Layout`. Got "
                f"{layout} of type {type(layout)}")
        if not (sharding is None or isinstance(sharding, Sharding)):
            raise TypeError(
                "Invalid value received for the sharding argument. Expected values are `None` "
                f"or an instance of `jax.Sharding`. Got {sharding} of type {type(sharding)}")
        if isinstance(layout, Layout) and sharding is None:
            raise ValueError(
                f"Sharding has to be concrete when layout is of type {type(layout)}. Please "
                "pass a `jax.sharding.NamedSharding` or `jax.sharding.SingleDeviceSharding` "
                "to the sharding argument. Got sharding None")
        self.layout = layout
        self.sharding = sharding

    def __eq__(self, other):
        return (isinstance(other, Format) and self.layout == other.layout
                and self.sharding == other.sharding)

    def __hash__(self):
        return hash((self.layout, self.sharding))

    def __repr__(self):
        return f"Format(layout={self.layout!r}, sharding={self.sharding!r})"


def with_layout_constraint(x, layouts):
    """``x`` (a pytree) constrained to ``layouts`` (a prefix tree of Layouts):
    checked against each value's rank; the values are returned unchanged."""
    leaves, tree = tree_util.tree_flatten(x)
    specs = tree_util.broadcast_prefix(layouts, x, is_leaf=lambda v: v is None)
    for value, layout in zip(leaves, specs):
        if isinstance(layout, Layout):
            try:
                layout.check_compatible_aval(getattr(value, "shape", ()))
            except ValueError as e:
                raise ValueError("One of with_layout_constraint arguments is incompatible with "
                                 f"its layout annotation {layout}: {e}") from None
        elif not (layout is None or isinstance(layout, AutoLayout)):
            raise TypeError(f"with_layout_constraint expects Layout instances, got {layout!r}")
    return tree_util.tree_unflatten(tree, leaves)
