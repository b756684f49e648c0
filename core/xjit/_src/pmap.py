"""``jax.pmap``, built as JAX 0.10.2 builds it: a ``jit`` of a ``shard_map``
over a one-axis mesh of the devices the mapped axis runs on, whose body
squeezes the mapped axis out of each input and puts it back into each output.

A mapped axis larger than the device count fails the way JAX's does (the
body's ``squeeze`` of a dimension that is not of size 1). Over several
devices the outputs are laid out along the mapped axis on a mesh whose axis
has JAX's internal name, as JAX reports them.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from xjit._src import tree_util
from xjit._src.sharding import Mesh, NamedSharding, PartitionSpec
from xjit._src.traceback_util import api_boundary


class _PmapAxisName:
    """The axis name of a pmap given none (named only by the function)."""

    def __init__(self, fun):
        self.name = getattr(fun, "__name__", type(fun).__name__)

    def __repr__(self):
        return f"<axis {self.name}>"


def _int_tuple(argnums, what):
    if isinstance(argnums, int):
        argnums = (argnums,)
    try:
        return tuple(operator.index(i) for i in argnums)
    except TypeError:
        raise TypeError(f"pmap {what} must be an int or a collection of ints, got "
                        f"{argnums!r}") from None


def _mapped_axis_size(leaves, axes):
    for x, ax in zip(leaves, axes):
        if ax is not None and hasattr(x, "shape"):
            return int(x.shape[ax])
    raise ValueError("pmap requires at least one argument with a mapped axis.")


def _in_axes_flat(in_axes, n_args, dyn_argnums, dyn_args, kwargs):
    """One in_axis per leaf of ``(dyn_args, kwargs)`` (keyword arguments map axis 0)."""
    if isinstance(in_axes, tuple):
        if len(in_axes) != n_args:
            raise ValueError(f"pmap in_axes {in_axes} has {len(in_axes)} entries but the "
                             f"function was called with {n_args} positional arguments")
        per_arg = tuple(in_axes[i] for i in dyn_argnums)
    elif isinstance(in_axes, list):
        raise TypeError("pmap in_axes must be an int, None, or a tuple of entries corresponding "
                        "to the positional arguments passed to the function, but got list.")
    else:
        per_arg = (in_axes,) * len(dyn_argnums)
    try:
        axes = tree_util.broadcast_prefix(per_arg, tuple(dyn_args), is_leaf=lambda x: x is None)
    except ValueError:
        raise ValueError(f"pmap in_axes specification must be a tree prefix of the "
                         f"corresponding value, got specification {in_axes} for value tree "
                         f"{tree_util.tree_structure(tuple(dyn_args))}.") from None
    return tuple(axes) + (0,) * len(tree_util.tree_leaves(kwargs))


def _axes_to_spec(axis_name, axis):
    return None if axis is None else PartitionSpec(*([None] * axis), axis_name)


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Map ``fun`` over the leading (``in_axes``) axis of its arguments, one slice
    per device, with ``axis_name`` bound for collectives. See the module docstring
    for what one device allows."""
    if not callable(fun):
        raise TypeError(f"pmap requires a callable as its first argument, got {fun!r}")
    if devices is not None:
        if not devices:
            raise ValueError("'devices' argument to pmap must be non-empty, or None.")
        devices = tuple(devices)
    static = _int_tuple(static_broadcasted_argnums, "static_broadcasted_argnums")
    donate = _int_tuple(donate_argnums, "donate_argnums")
    if set(static) & set(donate):
        raise ValueError("pmap: static_broadcasted_argnums and donate_argnums cannot overlap")
    name = _PmapAxisName(fun) if axis_name is None else axis_name
    compiled = {}

    def prepare(args, kwargs):
        from xjit._src import xla_bridge
        n = len(args)
        static_norm = tuple(i % n if n else i for i in static)
        dyn_argnums = [i for i in range(n) if i not in static_norm]
        dyn_args = [args[i] for i in dyn_argnums]
        leaves, tree = tree_util.tree_flatten((tuple(dyn_args), kwargs))
        axes = _in_axes_flat(in_axes, n, dyn_argnums, dyn_args, kwargs)
        size = _mapped_axis_size(leaves, axes)
        if axis_size is not None and axis_size != size:
            raise ValueError(f"Specified axis_size {axis_size} doesn't match received "
                             f"axis_size {size}.")
        mesh_devices = devices if devices is not None else \
            tuple(xla_bridge.local_devices(backend=backend))
        mesh_devices = mesh_devices[:size]
        if size != len(mesh_devices):
            _fail_like_one_shard(leaves, axes, len(mesh_devices))
        statics = tuple((i, args[i]) for i in static_norm)
        donated = _donated_leaves(donate, dyn_argnums, dyn_args, len(leaves))
        key = (statics, tree, axes, tuple(d.id for d in mesh_devices), donated)
        try:
            jitted = compiled.get(key)
        except TypeError:
            raise ValueError("Non-hashable static arguments are not supported. An error occurred "
                             "while trying to hash an object of type "
                             f"{type(statics).__name__}.") from None
        if jitted is None:
            jitted = compiled[key] = _build(fun, name, statics, tree, axes, out_axes,
                                            mesh_devices, donated)
        return jitted, leaves

    @functools.wraps(fun)
    @api_boundary
    def pmapped(*args, **kwargs):
        jitted, leaves = prepare(args, kwargs)
        return jitted(*leaves)

    def lower(*args, **kwargs):
        jitted, leaves = prepare(args, kwargs)
        lowered = jitted.lower(*leaves)
        # its compiled form is called, as JAX's is, with the pmapped function's arguments
        lowered.flat_args = lambda a, k: prepare(a, k)[1]
        return lowered

    pmapped.lower = lower
    return pmapped


def _fail_like_one_shard(leaves, axes, n_devices):
    """More slices than devices: each device's shard keeps the extra slices, and
    the body's squeeze of the mapped axis fails on it, as in JAX."""
    from xjit._src.lax import lax
    from xjit._src.api import ShapeDtypeStruct, eval_shape
    for x, ax in zip(leaves, axes):
        if ax is not None and hasattr(x, "shape") and x.shape[ax] != n_devices:
            shard = tuple(x.shape[:ax]) + (x.shape[ax] // n_devices,) + tuple(x.shape[ax + 1:])
            eval_shape(lambda v: lax.squeeze(v, [ax]), ShapeDtypeStruct(shard, x.dtype))


def _donated_leaves(donate, dyn_argnums, dyn_args, n_leaves):
    out, start = [], 0
    for i, arg in zip(dyn_argnums, dyn_args):
        count = len(tree_util.tree_leaves(arg))
        if i in donate:
            out.extend(range(start, start + count))
        start += count
    return tuple(out)


def _build(fun, axis_name, statics, in_tree, in_axes_flat, out_axes, mesh_devices, donated):
    from xjit._src.lax import lax
    from xjit._src.pjit import jit
    from xjit._src.shard_map import shard_map

    mesh = Mesh(np.array(mesh_devices, dtype=object), (axis_name,))
    in_specs = tuple(_axes_to_spec(axis_name, ax) for ax in in_axes_flat)

    def body(*flat):
        flat = [x if ax is None else lax.squeeze(x, [ax]) for x, ax in zip(flat, in_axes_flat)]
        dyn_args, kwargs = tree_util.tree_unflatten(in_tree, flat)
        args = list(dyn_args)
        for i, value in statics:
            args.insert(i, value)
        out = fun(*args, **kwargs)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        axes = tree_util.broadcast_prefix(out_axes, out, is_leaf=lambda x: x is None)
        out_leaves = [y if ax is None else lax.expand_dims(y, [ax])
                      for y, ax in zip(out_leaves, axes)]
        return tree_util.tree_unflatten(out_tree, out_leaves)

    def out_specs_for(out_tree_axes):
        return tree_util.tree_map(lambda ax: _axes_to_spec(axis_name, ax), out_tree_axes,
                                  is_leaf=lambda x: x is None)

    mapped = shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs_for(out_axes),
                       check_vma=False)
    if len(mesh_devices) == 1:
        return jit(mapped, donate_argnums=donated)
    # outputs over the devices, on a mesh whose axis has JAX's internal name
    named = Mesh(mesh.devices, (_PMAP_AXIS,))
    out_shardings = tree_util.tree_map(
        lambda ax: NamedSharding(named, _axes_to_spec(_PMAP_AXIS, ax) or PartitionSpec()),
        out_axes,
        is_leaf=lambda x: x is None)
    return jit(mapped, donate_argnums=donated, out_shardings=out_shardings)


_PMAP_AXIS = "_internal_pmap_axis_name"
