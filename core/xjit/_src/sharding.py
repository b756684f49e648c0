"""Shardings for the single-device case (``jax.sharding``), and the sharding
operations of explicit-sharding code (``reshard``, ``auto_axes``,
``explicit_axes``).

xjit runs every computation on one device, so every sharding here places the
whole array on one device; ``Mesh``/``NamedSharding``/``PartitionSpec`` exist
so tutorial code that names a one-device mesh runs and reprs as in JAX. The
classes derive from jaxlib's C++ single-device sharding so a PJRT buffer can
carry them (``x.sharding`` after ``device_put(x, sharding)``).
"""
from __future__ import annotations

import functools
import inspect

from jaxlib import _jax

from xjit._src import core
from xjit._src import mesh as mesh_lib
from xjit._src import tree_util
from xjit._src import xla_bridge as backend
from xjit._src.mesh import AbstractMesh, AxisType, Mesh, make_mesh  # noqa: F401

Sharding = _jax.Sharding


class _Unconstrained:
    def __repr__(self):
        return "UNCONSTRAINED"


class PartitionSpec:
    """Per-dimension mesh axis names (None: not partitioned)."""
    UNCONSTRAINED = _Unconstrained()

    __slots__ = ("_parts",)

    def __init__(self, *parts):
        self._parts = tuple(tuple(p) if isinstance(p, list) else p for p in parts)

    def __len__(self):
        return len(self._parts)

    def __getitem__(self, i):
        return self._parts[i]

    def __iter__(self):
        return iter(self._parts)

    def __eq__(self, other):
        return isinstance(other, PartitionSpec) and self._parts == other._parts

    def __hash__(self):
        return hash(self._parts)

    def __repr__(self):
        return "P(" + "".join(f"{p!r}, " for p in self._parts)[:-2] + \
            ("," if len(self._parts) == 1 else "") + ")"

    __str__ = __repr__

    def _axis_names(self):
        for p in self._parts:
            if isinstance(p, tuple):
                yield from p
            elif p is not None and p is not PartitionSpec.UNCONSTRAINED:
                yield p


class DuplicateSpecError(Exception):
    pass


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


class NamedSharding(backend.Sharding):
    """An array laid out over a mesh by a PartitionSpec (one device here)."""

    def __init__(self, mesh, spec, *, memory_kind=None):
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
        # An abstract mesh has no devices: such a sharding describes a type
        # (ShapeDtypeStruct(..., sharding=...)) and sits on the default device.
        abstract = isinstance(mesh, AbstractMesh)
        super().__init__(backend.devices()[0] if abstract else mesh.devices.flat[0])
        self.mesh = mesh
        self.spec = spec

    memory_kind = property(lambda self: "device")
    num_devices = property(lambda self: self.mesh.size)
    device_set = property(lambda self: set(self._device_assignment))
    addressable_devices = device_set

    @property
    def _device_assignment(self):
        if isinstance(self.mesh, AbstractMesh):
            return (self._device,)
        return tuple(self.mesh.devices.flat)
    is_fully_addressable = property(lambda self: True)

    @property
    def is_fully_replicated(self):
        return all(self.mesh.shape[n] == 1 for n in self.spec._axis_names())

    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and self.spec == other.spec
                and self.mesh == other.mesh)

    def __hash__(self):
        return hash((self.mesh, self.spec))

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

    def devices_indices_map(self, global_shape):
        return _device_map(self, global_shape)

    addressable_devices_indices_map = devices_indices_map

    def shard_shape(self, global_shape):
        return tuple(global_shape)


def place(x, sharding):
    """``device_put(x, sharding)``: the array on the sharding's device, carrying
    ``sharding`` as its ``.sharding``."""
    from .array import ArrayImpl
    from .dispatch import device_put
    if getattr(sharding, "num_devices", 1) != 1:
        raise ValueError(f"xjit runs on one device; {sharding} spans "
                         f"{sharding.num_devices} devices")
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
core.ShapedArray.sharding = property(lambda self: aval_sharding(len(self.shape)),
                                     doc="The aval's sharding: unpartitioned on one device.")


def make_single_device_sharding(device):
    """``jax.sharding.make_single_device_sharding``: the whole array on ``device``."""
    return SingleDeviceSharding(device)


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
    if isinstance(sharding, backend.Sharding):
        return sharding
    raise TypeError(f"{api} expects a PartitionSpec or a Sharding, got {sharding!r} of type "
                    f"{type(sharding).__name__}")


def reshard(xs, out_shardings):
    """``xs`` (a pytree) laid out by ``out_shardings`` (a prefix tree of
    NamedShardings or PartitionSpecs). One device holds every shard, so the
    values are unchanged; concrete arrays carry the new sharding."""
    from xjit._src.array import ArrayImpl
    leaves, tree = tree_util.tree_flatten(xs)
    specs = tree_util.broadcast_prefix(out_shardings, xs,
                                       is_leaf=lambda v: isinstance(v, PartitionSpec))
    out = []
    for x, spec in zip(leaves, specs):
        sharding = _named(spec, "reshard")
        shape = getattr(x, "shape", ())
        getattr(sharding, "check_compatible_aval", lambda s: None)(shape)
        if isinstance(sharding, NamedSharding) and len(sharding.spec) < len(shape):
            # as JAX normalizes a spec to the value's rank: P('x') -> P('x', None)
            padded = PartitionSpec(*sharding.spec, *[None] * (len(shape) - len(sharding.spec)))
            sharding = NamedSharding(sharding.mesh, padded)
        concrete = not isinstance(getattr(sharding, "mesh", None), AbstractMesh)
        out.append(place(x, sharding) if concrete and isinstance(x, ArrayImpl) else x)
    return tree_util.tree_unflatten(tree, out)


def _with_axis_types(axes, kind):
    """A context putting ``axes`` (None: all) of the context mesh in ``kind``."""
    context = mesh_lib.get_abstract_mesh()
    names = context.axis_names if axes is None else \
        ((axes,) if isinstance(axes, str) else tuple(axes))
    return mesh_lib.use_abstract_mesh(context.update_axis_types({n: kind for n in names}))


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """Run ``f`` with mesh ``axes`` (default all) made Auto, then lay its
    outputs out by ``out_sharding``. Used as ``auto_axes(f, ...)`` or as a
    decorator ``@auto_axes(out_sharding=...)``."""
    if f is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        sharding = kwargs.pop("out_sharding", out_sharding)
        if sharding is None:
            raise TypeError("Missing required keyword argument: 'out_sharding'")
        if mesh_lib.get_abstract_mesh().empty:
            return f(*args, **kwargs)
        with _with_axis_types(axes, AxisType.Auto):
            out = f(*args, **kwargs)
        return reshard(out, sharding)

    return wrapped


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """Run ``f`` with mesh ``axes`` (default all) made Explicit, its arguments
    laid out by ``in_sharding``."""
    if f is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        sharding = kwargs.pop("in_sharding", in_sharding)
        if mesh_lib.get_abstract_mesh().empty:
            raise ValueError("Context mesh cannot be empty. Please use `jax.set_mesh` API to "
                             "enter into a mesh context when using `explicit_axes` API.")
        if sharding is None:
            raise TypeError("Missing required keyword argument: 'in_sharding'")
        args = reshard(args, sharding) if not isinstance(sharding, PartitionSpec) else \
            tuple(reshard(a, sharding) for a in args)
        with _with_axis_types(axes, AxisType.Explicit):
            return f(*args, **kwargs)

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
