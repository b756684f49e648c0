"""Meshes: named-axis arrays of devices (``Mesh``, ``make_mesh``), their
device-free shape (``AbstractMesh``), and the mesh in context
(``get_abstract_mesh``, ``use_abstract_mesh``, ``set_mesh``, ``get_mesh``).

An ``AbstractMesh`` is a mesh's shape without devices: axis names, sizes and
types. Tracing code asks ``get_abstract_mesh()`` which mesh is in context
(flax does, to decide how to annotate parameters); outside any
``set_mesh``/``use_abstract_mesh`` it is the empty mesh. ``make_mesh`` makes
Explicit axes by default, as JAX 0.10.2: arrays over them carry their layout
in their types (``sharding_in_types``).
"""
from __future__ import annotations

import collections
import enum
import math
import threading

import numpy as np

from xjit._src import xla_bridge


class AxisType(enum.Enum):
    """How a mesh axis is partitioned: by the compiler, explicitly, or by hand."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


class _AxisTypeQueries:
    """Which axes of a mesh are Auto, Explicit or Manual (shared by Mesh and
    AbstractMesh; both have ``axis_names`` and ``axis_types``)."""

    __slots__ = ()

    @property
    def _name_to_type(self):
        return dict(zip(self.axis_names, self.axis_types))

    def _names_of(self, kind):
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t == kind)

    auto_axes = property(lambda self: self._names_of(AxisType.Auto))
    explicit_axes = property(lambda self: self._names_of(AxisType.Explicit))
    manual_axes = property(lambda self: self._names_of(AxisType.Manual))

    def _all(self, *kinds):
        return bool(self.axis_types) and all(t in kinds for t in self.axis_types)

    def _any(self, *kinds):
        return any(t in kinds for t in self.axis_types)

    are_all_axes_auto = property(lambda self: self._all(AxisType.Auto))
    are_all_axes_explicit = property(lambda self: self._all(AxisType.Explicit))
    are_all_axes_manual = property(lambda self: self._all(AxisType.Manual))
    _are_all_axes_auto_or_manual = property(
        lambda self: self._all(AxisType.Auto, AxisType.Manual))
    _are_all_axes_explicit_or_manual = property(
        lambda self: self._all(AxisType.Explicit, AxisType.Manual))
    _any_axis_auto = property(lambda self: self._any(AxisType.Auto))
    _any_axis_explicit = property(lambda self: self._any(AxisType.Explicit))
    _any_axis_manual = property(lambda self: self._any(AxisType.Manual))
    _any_axis_auto_or_manual = property(lambda self: self._any(AxisType.Auto, AxisType.Manual))


class Mesh(_AxisTypeQueries):
    """A named-axis array of devices."""

    def __init__(self, devices, axis_names, axis_types=None):
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        self.devices = np.asarray(devices, dtype=object)
        self.axis_names = tuple(axis_names)
        if self.devices.ndim != len(self.axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                "of its second argument (`axis_names`), but got "
                f"devices.ndim == {self.devices.ndim} and len(axis_names) == "
                f"{len(self.axis_names)}.")
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(self.axis_names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(self.axis_names)
        self.axis_types = tuple(axis_types)
        if len(self.axis_types) != len(self.axis_names):
            raise ValueError("Number of axis names should match the number of axis_types. Got "
                             f"axis_names={self.axis_names} and axis_types={self.axis_types}")

    shape = property(lambda self: collections.OrderedDict(self.shape_tuple))
    shape_tuple = property(lambda self: tuple(zip(self.axis_names, self.devices.shape)))
    axis_sizes = property(lambda self: tuple(self.devices.shape))
    size = property(lambda self: self.devices.size if self.axis_names else 0)
    empty = property(lambda self: self.size == 0)
    device_ids = property(lambda self: np.vectorize(lambda d: d.id, otypes=[int])(self.devices))
    is_multi_process = property(lambda self: False)
    local_mesh = property(lambda self: self)

    def _key(self):
        key = self.__dict__.get("_key_cache")
        if key is None:  # made once: meshes are compared and hashed on every SPMD call
            key = () if not self.axis_names else (  # () : the empty mesh (get_mesh())
                self.axis_names, self.axis_types, self.devices.shape,
                tuple(d.id for d in self.devices.flat))
            self.__dict__["_key_cache"] = key
        return key

    def __eq__(self, other):
        return self is other or isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    @property
    def abstract_mesh(self):
        """The mesh's axis names, sizes and types, and its devices' kind."""
        return abstract_mesh_of(self)

    def __repr__(self):
        types = f", axis_types={self.axis_types}" if self.axis_types else ""
        return f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}{types})"

    def __str__(self):
        if not self.axis_names:
            return "Mesh()"
        sizes = ", ".join(f"{n!r}: {s}" for n, s in self.shape_tuple)
        return f"Mesh({sizes}, axis_types={self.axis_types})"


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None):
    """A mesh of the first ``prod(axis_shapes)`` devices (axes Explicit by default)."""
    axis_shapes = tuple(axis_shapes)
    devices = list(xla_bridge.devices() if devices is None else devices)
    need = math.prod(axis_shapes)
    if len(devices) < need:
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of "
                         f"mesh_shape {axis_shapes}")
    if isinstance(axis_names, str):
        axis_names = (axis_names,)
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(tuple(axis_names))
    grid = np.empty(need, dtype=object)
    grid[:] = devices[:need]
    return Mesh(grid.reshape(axis_shapes), axis_names, axis_types)


class AbstractDevice:
    """What an abstract mesh knows of its devices: their kind and platform."""

    __slots__ = ("device_kind", "num_cores", "platform")

    def __init__(self, device_kind: str, num_cores: int | None, platform: str):
        self.device_kind = device_kind
        self.num_cores = num_cores
        self.platform = platform

    def _key(self):
        return (self.device_kind, self.num_cores, self.platform)

    def __eq__(self, other):
        return isinstance(other, AbstractDevice) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"AbstractDevice(device_kind={self.device_kind}, num_cores={self.num_cores}, "
                f"platform={self.platform})")


def _normalize_axis_types(axis_types, n):
    if axis_types is None:
        return (AxisType.Auto,) * n
    if isinstance(axis_types, AxisType):
        return (axis_types,) * n
    return tuple(axis_types)


class AbstractMesh(_AxisTypeQueries):
    """A mesh's axis names, sizes and types, without devices."""

    __slots__ = ("axis_sizes", "axis_names", "axis_types", "abstract_device", "_hash")

    def __init__(self, axis_sizes, axis_names, axis_types=None, *, abstract_device=None):
        axis_sizes, axis_names = tuple(axis_sizes), tuple(axis_names)
        if len(axis_sizes) != len(axis_names):
            raise ValueError(
                "Number of axis names should match the number of axis sizes. Got "
                f"axis_sizes={axis_sizes} and axis_names={axis_names}")
        axis_types = _normalize_axis_types(axis_types, len(axis_names))
        if len(axis_types) != len(axis_names):
            raise ValueError("Number of axis names should match the number of axis_types. Got "
                             f"axis_names={axis_names} and axis_types={axis_types}")
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
        self.axis_sizes = axis_sizes
        self.axis_names = axis_names
        self.axis_types = axis_types
        self.abstract_device = abstract_device
        self._hash = hash((axis_sizes, axis_names, axis_types, abstract_device))

    # -- shape ------------------------------------------------------------
    shape_tuple = property(lambda self: tuple(zip(self.axis_names, self.axis_sizes)))
    shape = property(lambda self: collections.OrderedDict(self.shape_tuple))
    empty = property(lambda self: self.size == 0)
    abstract_mesh = property(lambda self: self)
    is_multi_process = property(lambda self: False)

    size = property(lambda self: math.prod(self.axis_sizes) if self.axis_sizes else 0)

    # -- derived meshes ---------------------------------------------------
    def update(self, axis_sizes=None, axis_names=None, axis_types=None, **kwargs):
        """This mesh with some of its sizes, names or types replaced."""
        return AbstractMesh(
            self.axis_sizes if axis_sizes is None else axis_sizes,
            self.axis_names if axis_names is None else axis_names,
            self.axis_types if axis_types is None else axis_types,
            abstract_device=kwargs.get("abstract_device", self.abstract_device))

    def update_axis_types(self, name_to_type):
        """This mesh with the named axes given new types."""
        unknown = set(name_to_type) - set(self.axis_names)
        if unknown:
            raise ValueError(f"axes {sorted(unknown)} are not in mesh {self}")
        types = tuple(name_to_type.get(n, t) for n, t in zip(self.axis_names, self.axis_types))
        return self.update(axis_types=types)

    # -- devices (an abstract mesh has none) -------------------------------
    def _no_devices(self, what):
        raise RuntimeError(f"AbstractMesh does not implement {what}")

    devices = property(lambda self: self._no_devices("devices"))
    device_ids = property(lambda self: self._no_devices("device_ids"))
    local_devices = property(lambda self: self._no_devices("local_devices"))
    local_mesh = property(lambda self: self._no_devices("local_mesh"))
    _internal_device_list = property(lambda self: self._no_devices("_internal_device_list"))

    def __eq__(self, other):
        return (isinstance(other, AbstractMesh) and self.axis_sizes == other.axis_sizes
                and self.axis_names == other.axis_names and self.axis_types == other.axis_types
                and self.abstract_device == other.abstract_device)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        sizes = ", ".join(f"{n!r}: {s}" for n, s in self.shape_tuple) or "()"
        types = "(" + ", ".join(map(repr, self.axis_types)) + \
            ("," if len(self.axis_types) == 1 else "") + ")"
        dev = self.abstract_device
        where = "" if dev is None else (f", device_kind={dev.device_kind}, "
                                        f"num_cores={dev.num_cores}, platform={dev.platform}")
        return f"AbstractMesh({sizes}, axis_types={types}{where})"

    __str__ = __repr__


EMPTY_ABSTRACT_MESH = AbstractMesh((), ())


def abstract_mesh_of(mesh: Mesh) -> AbstractMesh:
    """``mesh.abstract_mesh``: its shape and types, and its devices' kind."""
    devices = list(mesh.devices.flat)
    device = None
    if devices:
        d = devices[0]
        device = AbstractDevice(d.device_kind, getattr(d, "num_cores", None), d.platform)
    return AbstractMesh(mesh.axis_sizes, mesh.axis_names, mesh.axis_types,
                        abstract_device=device)


# -- the mesh in context (per thread) ---------------------------------------
class _MeshContext(threading.local):
    def __init__(self):
        self.abstract = EMPTY_ABSTRACT_MESH
        self.concrete = None


_context = _MeshContext()


def get_abstract_mesh() -> AbstractMesh:
    """The abstract mesh in context (the empty mesh outside any)."""
    return _context.abstract


def get_concrete_mesh():
    """The mesh ``set_mesh`` put in context, or None."""
    return _context.concrete


def _empty_mesh() -> Mesh:
    return Mesh(np.empty((), dtype=object), ())


def get_mesh() -> Mesh:
    """``jax.sharding.get_mesh()``: the mesh ``set_mesh`` put in context (an
    empty mesh outside any)."""
    mesh = _context.concrete
    return _empty_mesh() if mesh is None else mesh


def _check_outside_traces(api: str):
    from xjit._src import core
    if core.trace_ctx.trace is not core.eval_trace:
        raise ValueError(f"`{api}` can only be used outside of `jax.jit`.")


class use_abstract_mesh:
    """Context manager: ``get_abstract_mesh()`` gives ``mesh`` inside."""

    __slots__ = ("mesh", "_prev")

    def __init__(self, mesh: AbstractMesh):
        if not isinstance(mesh, AbstractMesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.AbstractMesh`. Got {type(mesh)}")
        self.mesh = mesh
        self._prev = None

    def __enter__(self):
        self._prev = _context.abstract
        _context.abstract = self.mesh
        if self.mesh != self._prev:  # the fast jit path must not serve other types
            _retoken()
        return self.mesh

    def __exit__(self, *exc):
        _context.abstract, mesh = self._prev, _context.abstract
        if mesh != self._prev:
            _retoken()


_retoken_listening = []


def _retoken(*_):
    """Give dispatch's hot-path cache token the concrete mesh in context as
    well as the flags: a jitted call under ``set_mesh`` lays its results out
    on that mesh (``pxla``), so the one-device fast path must not serve it.
    Also a config listener (after dispatch's own), as a flag change resets
    the token to the flags alone."""
    from xjit._src import config as config_lib, dispatch
    mesh, abstract = _context.concrete, _context.abstract
    if mesh is not None and abstract == mesh.abstract_mesh:
        abstract = None  # set_mesh's own
    key = config_lib.config.trace_key if mesh is None and (abstract is None or abstract.empty) \
        else (config_lib.config.trace_key, "mesh", mesh and mesh._key(), abstract)
    dispatch.trace_token = dispatch._trace_tokens.setdefault(key, len(dispatch._trace_tokens))
    if not _retoken_listening:
        _retoken_listening.append(True)
        config_lib.config.add_listener(_retoken)


class set_mesh:
    """Put ``mesh`` in context for this thread: at once (a global setter), or
    for a ``with`` block (a context manager that restores the previous mesh).
    Inside, ``get_abstract_mesh()`` is ``mesh.abstract_mesh`` and APIs taking a
    sharding accept a bare ``PartitionSpec``."""

    __slots__ = ("_prev_abstract", "_prev_concrete")

    def __init__(self, mesh):
        if mesh is not None and not isinstance(mesh, Mesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
        if mesh is not None and AxisType.Manual in tuple(mesh.axis_types):
            raise ValueError(
                f"mesh {mesh} contains manual axes which is not allowed when using "
                "`jax.set_mesh`. Please use `jax.shard_map` to enter into `Manual` mode instead.")
        _check_outside_traces("set_mesh")
        self._prev_abstract = _context.abstract
        self._prev_concrete = _context.concrete
        _context.abstract = EMPTY_ABSTRACT_MESH if mesh is None else abstract_mesh_of(mesh)
        _context.concrete = mesh
        if mesh is not self._prev_concrete:
            _retoken()

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _context.abstract = self._prev_abstract
        _context.concrete, mesh = self._prev_concrete, _context.concrete
        if mesh is not self._prev_concrete:
            _retoken()
