"""Abstract values: what a tracer knows about its value.

An array's type is its shape, dtype and weak type, and two things a mesh adds
(JAX's "sharding in types"):

* ``sharding``: how the array is laid out over the mesh axes of type
  Explicit (``f32[8@X,4]``). ``None`` when it carries none; the property then
  answers an unpartitioned sharding over the mesh in context.
* ``manual_axis_type``: inside ``shard_map(check_vma=True)``, the manual mesh
  axes along which the per-device value differs (``f32[3]{V:i}``). Autodiff
  needs it: the transpose of ``psum`` of a varying value is a copy, of an
  invariant one a ``psum``.

Shardings live a layer above core, so they are handled by duck typing here
(``.spec``, ``.mesh``) and the default sharding comes from ``sharding.py``.
"""
from __future__ import annotations

import operator

import numpy as np

from . import dtypes


class AbstractValue:
    """Base of abstract values (what a tracer knows about its value).

    The hijax interface's low end: an ordinary type lowers to itself, so a
    high type's ``lo_ty``/``lower_val``/``raise_val`` can recurse into the
    types of its parts uniformly (flax's hijax Variable does)."""
    __slots__ = ()
    is_high = False
    has_qdd = False

    def lo_ty(self):
        return [self]

    def lower_val(self, val):
        return [val]

    def raise_val(self, val):
        return val

    def normalize(self):
        strip = getattr(self, "strip_weak_type", None)
        return self if strip is None else strip()


class ManualAxisType:
    """The manual mesh axes a value varies over, or is unreduced or reduced
    over (JAX's ``core.ManualAxisType``; ``varying`` is the "vma")."""

    __slots__ = ("varying", "unreduced", "reduced", "_hash")

    def __init__(self, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
        varying, unreduced, reduced = frozenset(varying), frozenset(unreduced), frozenset(reduced)
        if varying & unreduced:
            raise ValueError("varying and unreduced cannot have common mesh axes. Got "
                             f"varying={varying} and unreduced={unreduced}")
        if varying & reduced:
            raise ValueError("varying and reduced cannot have common mesh axes. Got "
                             f"varying={varying} and reduced={reduced}")
        self.varying, self.unreduced, self.reduced = varying, unreduced, reduced
        self._hash = hash((varying, unreduced, reduced))

    def __eq__(self, other):
        return (type(other) is ManualAxisType and self.varying == other.varying
                and self.unreduced == other.unreduced and self.reduced == other.reduced)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return (f"ManualAxisType(varying={set(self.varying) or 'set()'}, "
                f"unreduced={set(self.unreduced) or 'set()'}, "
                f"reduced={set(self.reduced) or 'set()'})")

    empty = property(lambda self: not (self.varying or self.unreduced or self.reduced))

    def update(self, **kw):
        for k in ("varying", "unreduced", "reduced"):
            kw.setdefault(k, getattr(self, k))
        return ManualAxisType(**kw)

    def to_ct_mat(self):
        """The cotangent's: unreduced and reduced trade places."""
        return self.update(unreduced=self.reduced, reduced=self.unreduced)


empty_mat = ManualAxisType()


def order_wrt_mesh(mesh, names) -> tuple:
    """``names`` in the mesh's axis order (names the mesh lacks go last, sorted)."""
    axis_names = tuple(getattr(mesh, "axis_names", ()))
    return (tuple(a for a in axis_names if a in names)
            + tuple(sorted((a for a in names if a not in axis_names), key=str)))


def _names_str(names, tag):
    return f"{tag}:{names[0]}" if len(names) == 1 else f"{tag}:({','.join(names)})"


class ShapedArray(AbstractValue):
    """The abstract value of an array: shape, dtype and weak type, and its
    sharding and manual axis type when a mesh gives it one."""

    __slots__ = ("shape", "dtype", "weak_type", "_sharding", "manual_axis_type", "typed", "_hash")
    array_abstraction_level = 1

    def __init__(self, shape, dtype, weak_type=False, *, sharding=None, manual_axis_type=None):
        shape = tuple(shape)
        for d in shape:
            if type(d) is not int:  # NumPy integers from shape arithmetic: shapes hold ints
                shape = tuple(map(operator.index, shape))
                break
        self.shape = shape
        # extended dtypes (PRNG key types) are kept as they are
        self.dtype = dtype if getattr(dtype, "extended", False) else np.dtype(dtype)
        self.weak_type = bool(weak_type)
        # Only a sharding naming mesh axes is kept: an all-None spec says no more
        # than the default (flax's scan passes the input's sharding back).
        if sharding is not None:
            spec = getattr(sharding, "spec", None)
            if spec is None or not _spec_names_axes(spec):
                sharding = None
            elif len(spec.partitions) > len(shape):
                raise ValueError(f"sharding {spec} has more entries than the rank of the "
                                 f"array type {shape}")
        self._sharding = sharding
        mat = empty_mat if manual_axis_type is None else manual_axis_type
        self.manual_axis_type = empty_mat if mat.empty else mat
        # whether the type says more than shape and dtype (a fast test for the rules)
        self.typed = sharding is not None or self.manual_axis_type is not empty_mat
        self._hash = hash((self.shape, self.dtype, self.weak_type))

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    mat = property(lambda self: self.manual_axis_type)

    @property
    def spec(self):
        """The explicit partition spec, or None when the type carries none."""
        return None if self._sharding is None else self._sharding.spec

    def __eq__(self, other):
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self.manual_axis_type == other.manual_axis_type
                and _spec_key(self) == _spec_key(other))

    def __hash__(self):
        return self._hash

    def update(self, shape=None, dtype=None, weak_type=None, **kw):
        if "sharding" not in kw and (shape is None or len(shape) == len(self.shape)):
            kw["sharding"] = self._sharding  # a new rank needs a sharding given for it
        kw.setdefault("manual_axis_type", self.manual_axis_type)
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type, **kw)

    def update_manual_axis_type(self, mat):
        return self if mat == self.manual_axis_type else self.update(manual_axis_type=mat)

    def update_weak_type(self, weak_type):
        return self if weak_type == self.weak_type else self.update(weak_type=weak_type)

    def strip_weak_type(self):
        return self.update(weak_type=False) if self.weak_type else self

    def to_tangent_aval(self):
        """The aval of this value's tangents (``float0`` for integers and bools)."""
        return self.update(dtype=primal_dtype_to_tangent_dtype(self.dtype))

    def to_ct_aval(self):
        return self.update(dtype=primal_dtype_to_tangent_dtype(self.dtype),
                           manual_axis_type=self.manual_axis_type.to_ct_mat())

    def str_short(self, short_dtypes=True):
        dt = dtypes.short_name(self.dtype)  # float0's NumPy name is "void"
        dt = dt if short_dtypes or dt == "float0" else self.dtype.name
        spec = self.spec
        if spec is None:
            dims = ",".join(str(d) for d in self.shape)
        else:
            parts = tuple(spec.partitions) + (None,) * (len(self.shape) - len(spec.partitions))
            dims = ",".join(_dim_str(d, p) for d, p in zip(self.shape, parts))
        return f"{dt}[{dims}]{self._mat_str(spec)}"

    def _mat_str(self, spec):
        mat = self.manual_axis_type
        unreduced = set(mat.unreduced) | set(getattr(spec, "unreduced", ()) or ())
        reduced = set(mat.reduced) | set(getattr(spec, "reduced", ()) or ())
        if not (mat.varying or unreduced or reduced):
            return ""
        mesh = getattr(self._sharding, "mesh", None) if self._sharding is not None else None
        if mesh is None and _default_mesh is not None:
            mesh = _default_mesh()
        parts = [_names_str(order_wrt_mesh(mesh, names), tag)
                 for names, tag in ((mat.varying, "V"), (unreduced, "U"), (reduced, "R")) if names]
        return "{" + ", ".join(parts) + "}"

    def __repr__(self):
        wt = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short(False)}{wt})"

    def __str__(self):
        return ("~" if self.weak_type else "") + self.str_short(False)


_default_mesh = None  # () -> the abstract mesh in context; set by sharding.py


def _dim_str(d, p):
    if p is None:
        return str(d)
    if isinstance(p, tuple):
        return f"{d}@({','.join(map(str, p))})"
    return f"{d}@{p}"


def _spec_names_axes(spec) -> bool:
    return (any(p is not None and p != () for p in spec.partitions)
            or bool(getattr(spec, "unreduced", None)) or bool(getattr(spec, "reduced", None)))


def _spec_key(aval):
    spec = aval.spec
    if spec is None:
        return None
    parts = tuple(spec.partitions)
    parts = parts + (None,) * (len(aval.shape) - len(parts))
    return (parts, frozenset(getattr(spec, "unreduced", ()) or ()),
            frozenset(getattr(spec, "reduced", ()) or ()),
            getattr(getattr(aval._sharding, "mesh", None), "axis_names", None))


def primal_dtype_to_tangent_dtype(primal_dtype):
    # dtypes.issubdtype: np.issubdtype does not place bfloat16/float8 under inexact
    if getattr(primal_dtype, "extended", False) or not dtypes.issubdtype(primal_dtype,
                                                                          np.inexact):
        return dtypes.float0
    return primal_dtype
