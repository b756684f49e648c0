"""Shardings (``jax.sharding``) and the sharding operations of explicit-
sharding code (``reshard``, ``auto_axes``, ``explicit_axes``).

``NamedSharding`` lays an array out over a mesh by a ``PartitionSpec``; the
classes derive from jaxlib's C++ sharding so a PJRT buffer can carry them
(``x.sharding``). Over a mesh's Explicit axes the layout is also part of
the array's type (``sharding_in_types``): ``reshard`` changes that type,
``auto_axes``/``explicit_axes`` run code with axes retyped, and
``canonicalize_sharding`` reads the ``out_sharding=`` arguments.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import math

import numpy as np

from jaxlib import _jax
from jaxlib import xla_client as xc

from xjit._src import abstract_arrays, core
from xjit._src import sharding_in_types  # installs core.typed_outputs
from xjit._src import mesh as mesh_lib
from xjit._src import tree_util
from xjit._src import xla_bridge as backend
from xjit._src.mesh import AbstractMesh, AxisType, Mesh, make_mesh  # noqa: F401

Sharding = _jax.Sharding


class _Unconstrained:
    def __repr__(self):
        return "UNCONSTRAINED"


def _canonical_part(p):
    """A spec entry as JAX keeps it: a list is a tuple, a 1-tuple its one axis
    and the empty tuple None."""
    if isinstance(p, (tuple, list)):
        p = tuple(p)
        return None if not p else p[0] if len(p) == 1 else p
    return p


def _axis_set(name, value):
    if isinstance(value, frozenset):
        return value
    if not isinstance(value, set):
        raise TypeError(f"{name} argument of PartitionSpec should of type `frozenset` or "
                        f"`set`. Got type {value}")
    return frozenset(value)


class PartitionSpec:
    """Per-dimension mesh axis names (None: not partitioned), and the mesh axes
    over which the value is an unreduced partial sum (``unreduced``) or known
    to be reduced (``reduced``)."""
    UNCONSTRAINED = _Unconstrained()

    __slots__ = ("_parts", "unreduced", "reduced")

    def __init__(self, *parts, unreduced=frozenset(), reduced=frozenset()):
        self._parts = tuple(_canonical_part(p) for p in parts)
        self.unreduced = _axis_set("unreduced", unreduced)
        self.reduced = _axis_set("reduced", reduced)
        if None in self.unreduced or None in self.reduced:
            which = "unreduced" if None in self.unreduced else "reduced"
            raise ValueError(f"{which} cannot contain None. All elements in {which} should "
                             "refer to the mesh axes.")
        if self.unreduced & self.reduced:
            raise ValueError("`unreduced` and `reduced` argument to PartitionSpec cannot "
                             f"overlap. Got unreduced: {self.unreduced} and reduced: "
                             f"{self.reduced}")
        for name in self._axis_names():
            for which in ("unreduced", "reduced"):
                if name in getattr(self, which):
                    raise ValueError(f"partitions cannot overlap with {which} axes passed to "
                                     f"PartitionSpec. Got partitions: {self._parts} and "
                                     f"{which} axes: {getattr(self, which)}")

    partitions = property(lambda self: self._parts)

    def _positional(self, what):
        if self.unreduced or self.reduced:
            raise ValueError(f"Using {what} is dangerous when PartitionSpec has non-empty "
                             "unreduced/reduced set. Please use "
                             f"{'spec.partitions[...]' if what == 'pspec[...]' else '*spec.partitions'}")
        return self._parts

    def __len__(self):
        return len(self._parts)

    def __getitem__(self, i):
        return self._positional("pspec[...]")[i]

    def __iter__(self):
        return iter(self._positional("*pspec"))

    def index(self, value):
        return self._parts.index(_canonical_part(value))

    def count(self, value):
        return self._parts.count(_canonical_part(value))

    def __add__(self, other):
        if isinstance(other, PartitionSpec):
            return PartitionSpec(*self._parts, *other._parts,
                                 unreduced=self.unreduced | other.unreduced,
                                 reduced=self.reduced | other.reduced)
        if isinstance(other, tuple):
            self._no_tuple_concat(other, "__add__")
            return PartitionSpec(*self._parts, *other)
        raise NotImplementedError

    def __radd__(self, other):
        if not isinstance(other, tuple):
            raise NotImplementedError
        self._no_tuple_concat(other, "__radd__")
        return PartitionSpec(*other, *self._parts)

    def _no_tuple_concat(self, other, op):
        for which in ("unreduced", "reduced"):
            if getattr(self, which):
                raise TypeError(f"other {other} cannot be of instance `tuple` when self {self} "
                                f"has {which} in `{op}` of PartitionSpec.")

    def update(self, partitions=None, unreduced=None, reduced=None):
        """This spec with its partitions or (un)reduced axes replaced."""
        return PartitionSpec(*(self._parts if partitions is None else partitions),
                             unreduced=self.unreduced if unreduced is None else unreduced,
                             reduced=self.reduced if reduced is None else reduced)

    def __eq__(self, other):
        return isinstance(other, PartitionSpec) and self._parts == other._parts and \
            self.unreduced == other.unreduced and self.reduced == other.reduced

    def __hash__(self):
        return hash((self._parts, self.unreduced, self.reduced))

    def __reduce__(self):
        return functools.partial(PartitionSpec, unreduced=self.unreduced,
                                 reduced=self.reduced), self._parts

    def __repr__(self):
        parts = repr(self._parts)[1:-1]
        if not self.unreduced and not self.reduced:
            return f"P({parts})"
        sets = ", ".join(f"{w}={set(getattr(self, w))!r}" for w in ("unreduced", "reduced")
                         if getattr(self, w))
        parts = "" if not parts else f"{parts} " if parts.endswith(",") else f"{parts}, "
        return f"P({parts}{sets})"

    __str__ = __repr__

    def _axis_names(self):
        for p in self._parts:
            if isinstance(p, tuple):
                yield from p
            elif p is not None and p is not PartitionSpec.UNCONSTRAINED:
                yield p


class DuplicateSpecError(Exception):
    pass


class IndivisibleError(ValueError):
    """A dimension that the mesh axes it is split over do not divide."""


def _device_map(sharding, shape):
    return {d: (slice(None),) * len(shape) for d in sharding.device_set}


class SingleDeviceSharding(backend.Sharding):
    """The whole array on one device."""

    def __init__(self, device, *, memory_kind=None):
        super().__init__(device)

    memory_kind = property(lambda self: "device")
    num_devices = property(lambda self: 1)
    is_fully_replicated = property(lambda self: True)
    is_fully_addressable = property(lambda self: True)
    addressable_devices = property(lambda self: {self._device})
    _device_assignment = property(lambda self: (self._device,))
    _addressable_device_assignment = _device_assignment

    def __eq__(self, other):
        return (isinstance(other, backend.Sharding) and not isinstance(other, NamedSharding)
                and other._device == self._device)

    def __hash__(self):
        return hash(self._device)

    def devices_indices_map(self, global_shape):
        return _device_map(self, global_shape)

    addressable_devices_indices_map = devices_indices_map

    def shard_shape(self, global_shape):
        return tuple(global_shape)

    def check_compatible_aval(self, shape):
        pass


class NamedSharding(Sharding):
    """An array laid out over a mesh by a PartitionSpec: dimension ``d`` is
    split over the mesh axes ``spec[d]`` (major to minor), and replicated over
    the axes no dimension names. jaxlib's C++ arrays read the devices
    (``_internal_device_list``, in the mesh's flat order), the memory kind and
    the HLO sharding (``_to_xla_hlo_sharding``) from it."""

    def __init__(self, mesh, spec, *, memory_kind=None):
        super().__init__()
        if not isinstance(spec, PartitionSpec):
            raise TypeError("spec of NamedSharding must be a PartitionSpec, got "
                            f"{type(spec).__name__}")
        seen = set()
        for name in spec._axis_names():
            if name not in mesh.axis_names:
                raise ValueError(f"Resource axis: {name} of {spec} is not found in mesh: "
                                 f"{mesh.axis_names}.")
            if name in seen:
                raise DuplicateSpecError(
                    "A single NamedSharding spec specification can map every mesh axis to at "
                    f"most one positional dimension, but {spec} has duplicate entries for "
                    f"`{name}`")
            seen.add(name)
        self.mesh = mesh
        self.spec = spec
        # An abstract mesh has no devices: such a sharding describes a type
        # (ShapeDtypeStruct(..., sharding=...)) and sits on the default device.
        devices = (backend.devices()[0],) if isinstance(mesh, AbstractMesh) else \
            tuple(mesh.devices.flat)
        self._device = devices[0]
        self._devices = devices

    # Class-level properties, not instance attributes: importing the real jax
    # (jaxlib does, to make a one-device sharding) puts properties of these
    # names on jaxlib's Sharding base class, which would shadow the instance's.
    _device_assignment = property(lambda self: self._devices)
    _internal_device_list = property(lambda self: _device_list(self._devices))

    memory_kind = property(lambda self: "device")
    num_devices = property(lambda self: self.mesh.size)  # an abstract mesh's too, as JAX
    device_set = property(lambda self: set(self._device_assignment))

    @property
    def _addressable_device_assignment(self):
        """This process's devices, in the mesh's order (all of them unless
        several processes run: ``xjit.distributed``)."""
        devices = self._devices
        here = devices[0].client.process_index()
        if all(d.process_index == here for d in devices):
            return devices
        return tuple(d for d in devices if d.process_index == here)

    addressable_devices = property(lambda self: set(self._addressable_device_assignment))
    is_fully_addressable = property(
        lambda self: len(self._addressable_device_assignment) == len(self._devices))

    @property
    def is_fully_replicated(self):
        if self.mesh.size == 1:
            return True
        return not self.spec.unreduced and all(self.mesh.shape[n] == 1
                                               for n in self.spec._axis_names())

    _is_concrete = property(lambda self: not isinstance(self.mesh, AbstractMesh))

    @property
    def replicated_axes(self):
        """The mesh axes no dimension (nor the unreduced/reduced sets) names."""
        return frozenset(self.mesh.axis_names) - frozenset(self.spec._axis_names()) - \
            self.spec.unreduced - self.spec.reduced

    def update(self, **kwargs):
        """This sharding with its ``mesh``, ``spec`` (any sequence of entries)
        or ``memory_kind`` replaced; other keywords are ignored, as in JAX."""
        spec = kwargs.get("spec", self.spec)
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec)
        return NamedSharding(kwargs.get("mesh", self.mesh), spec,
                             memory_kind=kwargs.get("memory_kind", self.memory_kind))

    def with_memory_kind(self, kind):
        return self.update(memory_kind=kind)

    def is_equivalent_to(self, other, ndim):
        """Whether ``other`` lays a value of rank ``ndim`` out as this does: the
        same tiles on the same devices (of two abstract meshes: the same
        tiles), whatever the axes are called."""
        to_hlo = getattr(other, "_to_xla_hlo_sharding", None)
        theirs = to_hlo(ndim) if to_hlo is not None else xc.HloSharding.replicate()
        if self._to_xla_hlo_sharding(ndim) != theirs or \
                self.memory_kind != getattr(other, "memory_kind", None):
            return False
        if not self._is_concrete and not getattr(other, "_is_concrete", True):
            return True
        return tuple(self._device_assignment) == tuple(other._device_assignment)

    def __eq__(self, other):
        return self is other or (isinstance(other, NamedSharding) and self.spec == other.spec
                                 and self.mesh == other.mesh)

    def __hash__(self):
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = hash((self.mesh, self.spec))
        return h

    def __repr__(self):
        if isinstance(self.mesh, AbstractMesh):  # no devices, so no memory kind
            return f"NamedSharding(mesh={self.mesh}, spec={self.spec})"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec}, memory_kind=device)"

    def check_compatible_aval(self, shape):
        if len(shape) < len(self.spec):
            extra = " For scalars the PartitionSpec should be P()" if len(shape) == 0 else ""
            raise ValueError(f"Sharding {self} is only valid for values of rank at least "
                             f"{len(self.spec)}, but was applied to a value of rank "
                             f"{len(shape)}.{extra}")

    def _dim_axes(self, ndim):
        """For each of ``ndim`` dimensions, the mesh axes it is split over."""
        out = []
        for d in range(ndim):
            p = self.spec.partitions[d] if d < len(self.spec) else None
            out.append(() if p is None or p is PartitionSpec.UNCONSTRAINED else
                       (tuple(p) if isinstance(p, tuple) else (p,)))
        return out

    def shard_shape(self, global_shape):
        sizes = self.mesh.shape
        shape = []
        for d, axes in enumerate(self._dim_axes(len(global_shape))):
            n = math.prod(sizes[a] for a in axes)
            if global_shape[d] % n:
                raise IndivisibleError(
                    f"Sharding {self} implies that array axis {d} is partitioned "
                    f"{n} times, but the dimension size is {global_shape[d]} (full shape: "
                    f"{tuple(global_shape)}, per-dimension tiling factors: "
                    f"{[math.prod(sizes[a] for a in ax) for ax in self._dim_axes(len(global_shape))]}"
                    " should evenly divide the shape)")
            shape.append(global_shape[d] // n)
        return tuple(shape)

    def devices_indices_map(self, global_shape):
        """Each device's slice of an array of ``global_shape``."""
        shard = self.shard_shape(global_shape)
        names = self.mesh.axis_names
        sizes = self.mesh.axis_sizes
        dim_axes = self._dim_axes(len(global_shape))
        sizes_of = self.mesh.shape
        out = {}
        for pos, device in zip(np.ndindex(*sizes) if sizes else [()], self._device_assignment):
            coord = dict(zip(names, pos))
            index = []
            for d, axes in enumerate(dim_axes):
                if math.prod(sizes_of[a] for a in axes) == 1:  # not split (axes of size 1)
                    index.append(slice(None))
                    continue
                k = 0
                for a in axes:  # the shard's number along d: axes major to minor
                    k = k * self.mesh.shape[a] + coord[a]
                index.append(slice(k * shard[d], (k + 1) * shard[d]))
            out[device] = tuple(index)
        return out

    def addressable_devices_indices_map(self, global_shape):
        everywhere = self.devices_indices_map(global_shape)
        return {d: everywhere[d] for d in self._addressable_device_assignment}

    def _to_xla_hlo_sharding(self, num_dimensions):
        return hlo_sharding(self.mesh, self._dim_axes(num_dimensions))


@functools.lru_cache(maxsize=256)
def _device_list(devices):
    return _jax.DeviceList(devices)


def hlo_sharding(mesh, dim_axes):
    """XLA's sharding of a value whose dimension ``d`` is split over the mesh
    axes ``dim_axes[d]``: a tile per device, devices numbered by their
    position in the mesh's flat order, the unnamed axes replicated."""
    names = list(mesh.axis_names)
    used = [a for axes in dim_axes for a in axes]
    if not any(mesh.shape[a] > 1 for a in used):
        return xc.HloSharding.replicate()
    rest = [a for a in names if a not in used]
    tiles = [math.prod(mesh.shape[a] for a in axes) for axes in dim_axes]
    replicated = math.prod(mesh.shape[a] for a in rest)
    perm = [names.index(a) for a in used + rest]
    if replicated > 1:
        return xc.HloSharding.iota_tile(tiles + [replicated], list(mesh.axis_sizes), perm,
                                        [xc.OpSharding.Type.REPLICATED])
    return xc.HloSharding.iota_tile(tiles, list(mesh.axis_sizes), perm)


def spec_from_hlo(mesh, hlo, ndim):
    """The PartitionSpec over ``mesh`` whose HLO sharding is ``hlo`` (as JAX
    reports an output's sharding: trailing unsplit dimensions dropped), or
    None when no spec over ``mesh`` lays a value out that way."""
    if hlo.is_replicated():
        return PartitionSpec()
    names = [a for a in mesh.axis_names if mesh.shape[a] > 1]
    for choice in itertools.product(range(ndim + 1), repeat=len(names)):
        for order in itertools.permutations(range(len(names))):
            dim_axes = [[] for _ in range(ndim)]
            for i in order:
                if choice[i] < ndim:
                    dim_axes[choice[i]].append(names[i])
            if hlo_sharding(mesh, dim_axes) == hlo:
                parts = [None if not ax else ax[0] if len(ax) == 1 else tuple(ax)
                         for ax in dim_axes]
                while parts and parts[-1] is None:
                    parts.pop()
                return PartitionSpec(*parts)
    return None


def place(x, sharding):
    """``device_put(x, sharding)``: the array on the sharding's devices,
    carrying ``sharding`` as its ``.sharding``."""
    from .array import ArrayImpl
    from .dispatch import device_put
    if isinstance(x, core.Tracer) and isinstance(sharding, NamedSharding) and \
            sharding.mesh._any_axis_explicit:  # under jit: the value's type changes, as JAX
        return reshard(x, sharding)
    abstract = getattr(sharding, "mesh", None)
    if isinstance(abstract, mesh_lib.AbstractMesh):  # the devices of set_mesh's mesh, or none
        context = mesh_lib.get_concrete_mesh()
        if context is None or context.shape_tuple != abstract.shape_tuple:
            raise ValueError("is_fully_addressable is not implemented for "
                             "`jax.sharding.AbstractMesh`.")
        sharding = NamedSharding(context, sharding.spec)
    if isinstance(sharding, NamedSharding):  # a mesh of one device too: JAX keeps its type
        from .sharded_array import place_sharded
        return place_sharded(x, sharding)
    arr = device_put(x, sharding._device)
    try:
        getattr(sharding, "check_compatible_aval", lambda shape: None)(arr.shape)
    except ValueError as e:
        raise ValueError("One of device_put args is incompatible with its sharding annotation "
                         f"{sharding}: {e}") from None
    if type(arr) is not ArrayImpl:  # a tracer: placement is the caller's jit's business
        return arr
    aval = arr.aval
    if getattr(aval.dtype, "extended", False):  # key arrays hold their physical data
        aval = aval.dtype.physical_aval(aval)
    buf = _jax.ArrayImpl(aval, sharding, [arr._buf], committed=True, _skip_checks=True)
    return ArrayImpl(buf, arr.aval)


def aval_sharding(ndim: int):
    """The sharding an abstract value of rank ``ndim`` carries (``jax.typeof(x).sharding``):
    not partitioned, over the mesh in context (the empty mesh outside any)."""
    return NamedSharding(mesh_lib.get_abstract_mesh(), PartitionSpec(*[None] * ndim))


# ``ShapedArray.sharding`` (flax.nnx reads ``jax.typeof(x).sharding``) is set
# here: shardings sit a layer above core, which must not import them.
core.ShapedArray.sharding = property(
    lambda self: self._sharding or aval_sharding(len(self.shape)),
    doc="The aval's sharding: its explicit one, else unpartitioned over the context mesh.")
abstract_arrays._default_mesh = mesh_lib.get_abstract_mesh
sharding_in_types.P, sharding_in_types.NamedSharding = PartitionSpec, NamedSharding
sharding_in_types.DuplicateSpecError = DuplicateSpecError
sharding_in_types._context_mesh = mesh_lib.get_abstract_mesh


def make_single_device_sharding(device, *, memory_kind=None):
    """The whole array on ``device``: the one such sharding per device."""
    return backend.sharding_for(device)


# -- sharding operations --------------------------------------------------


def _named(sharding, api):
    """A NamedSharding from a NamedSharding, or from a PartitionSpec and the
    mesh in context."""
    if isinstance(sharding, PartitionSpec):
        mesh = mesh_lib.get_concrete_mesh()
        if mesh is None:
            abstract = mesh_lib.get_abstract_mesh()
            if abstract.empty:
                raise ValueError(
                    "Using PartitionSpec when you are not under a mesh context is not allowed. "
                    "Please pass a NamedSharding instance or enter into a mesh context via "
                    f"`jax.set_mesh`. Got {sharding}")
            mesh = abstract
        return NamedSharding(mesh, sharding)
    if isinstance(sharding, Sharding):
        return sharding
    raise TypeError(f"{api} expects a PartitionSpec or a Sharding, got {sharding!r} of type "
                    f"{type(sharding).__name__}")


def reshard(xs, out_shardings):
    """``xs`` (a pytree) given the types ``out_shardings`` name (a prefix
    tree of NamedShardings or PartitionSpecs over the mesh in context):
    under jit a sharding constraint, eagerly the arrays laid out anew."""
    from xjit._src.reshard import reshard_p
    leaves, tree = tree_util.tree_flatten(xs)
    specs = tree_util.broadcast_prefix(out_shardings, xs,
                                       is_leaf=lambda v: v is None or isinstance(v, PartitionSpec))
    out = []
    for x, s in zip(leaves, specs):
        ds = canonicalize_sharding(s, "reshard")
        if ds is None or ds.mesh.empty:
            raise ValueError("Reshard should only be used with out_shardings which are non-None "
                             f"and have a non-empty mesh. Got sharding {s}.")
        shape = core.aval_of(x).shape
        ds.check_compatible_aval(shape)
        parts = tuple(ds.spec.partitions) + (None,) * (len(shape) - len(ds.spec))
        ds = ds.update(spec=ds.spec.update(partitions=parts))
        out.append(reshard_p.bind(x, dst_sharding=ds, concrete_mesh=None))
    return tree_util.tree_unflatten(tree, out)


def _axes_of(axes, context):
    return context.axis_names if axes is None else \
        ((axes,) if isinstance(axes, str) else tuple(axes))


def _retyped(xs, mesh):
    """``xs`` with their types over ``mesh`` (the context mesh with some axes
    retyped): JAX's ``mesh_cast``; the axes made Auto leave the types."""
    from xjit._src.reshard import reshard_p
    leaves, tree = tree_util.tree_flatten(xs)
    out = []
    for x in leaves:
        s = getattr(core.aval_of(x), "_sharding", None)
        spec = s.spec if s is not None else PartitionSpec()
        typed = sharding_in_types.type_sharding(NamedSharding(mesh, spec))
        if typed == s or not (isinstance(x, core.Tracer) or hasattr(x, "_buf")):
            out.append(x)
            continue
        out.append(reshard_p.bind(x, dst_sharding=typed, concrete_mesh=None))
    return tree_util.tree_unflatten(tree, out)


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """Run ``f`` with mesh ``axes`` (default all) made Auto (the values'
    types drop them), then give its outputs the types ``out_sharding``
    names. Used as ``auto_axes(f, ...)`` or ``@auto_axes(out_sharding=...)``."""
    if f is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        sharding = kwargs.pop("out_sharding", out_sharding)
        if sharding is None:
            raise TypeError("Missing required keyword argument: 'out_sharding'")
        context = mesh_lib.get_abstract_mesh()
        if context.empty:
            return f(*args, **kwargs)
        new = context.update_axis_types({n: AxisType.Auto for n in _axes_of(axes, context)})
        with mesh_lib.use_abstract_mesh(new):
            args, kwargs = _retyped((args, kwargs), new)
            out = f(*args, **kwargs)
        return reshard(out, sharding)

    return wrapped


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """Run ``f`` with mesh ``axes`` (default all) made Explicit, its
    arguments given the types ``in_sharding`` names; its outputs go back to
    the outer mesh's types."""
    if f is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        sharding = kwargs.pop("in_sharding", in_sharding)
        context = mesh_lib.get_abstract_mesh()
        if context.empty:
            raise ValueError("Context mesh cannot be empty. Please use `jax.set_mesh` API to "
                             "enter into a mesh context when using `explicit_axes` API.")
        if sharding is None:
            raise TypeError("Missing required keyword argument: 'in_sharding'")
        new = context.update_axis_types({n: AxisType.Explicit
                                         for n in _axes_of(axes, context)})
        with mesh_lib.use_abstract_mesh(new):
            args = reshard(args, sharding) if not isinstance(sharding, PartitionSpec) else \
                tuple(reshard(a, sharding) for a in args)
            out = f(*args, **kwargs)
        return _retyped(out, context)

    return wrapped


def accepts_out_sharding(fun):
    """``fun`` with JAX's ``out_sharding=`` keyword: its result is laid out by
    that sharding (``reshard``; on one device the values are unchanged), and
    None leaves it as it is."""
    sig = inspect.signature(fun)
    params = list(sig.parameters.values())
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    params.insert(at, inspect.Parameter("out_sharding", inspect.Parameter.KEYWORD_ONLY,
                                        default=None))

    @functools.wraps(fun)
    def with_out_sharding(*args, out_sharding=None, **kwargs):
        out = fun(*args, **kwargs)
        return out if out_sharding is None else reshard(out, out_sharding)

    with_out_sharding.__signature__ = sig.replace(parameters=params)
    return with_out_sharding


def canonicalize_sharding(sharding, api):
    """An ``out_sharding=`` argument as a primitive's parameter: None, or a
    NamedSharding (a bare PartitionSpec over the mesh in context)."""
    if sharding is None:
        return None
    if isinstance(sharding, PartitionSpec):
        mesh = mesh_lib.get_abstract_mesh()
        if mesh.empty:
            raise ValueError(
                "Using PartitionSpec when you are not under a mesh context is not allowed. "
                "Please pass a NamedSharding instance or enter into a mesh context via "
                f"`jax.set_mesh`. Got {sharding}")
        return NamedSharding(mesh, sharding)
    if isinstance(sharding, NamedSharding):
        return sharding
    raise TypeError(f"{api} expects out_sharding to be a PartitionSpec or a NamedSharding, got "
                    f"{sharding!r}")
