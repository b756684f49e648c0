"""``jax.reshard`` and the mesh casts of ``auto_axes``/``explicit_axes``: a
value given a new type (its sharding over the mesh's Explicit axes).

``reshard_p`` is the identity on values; its output's type carries
``dst_sharding`` (a NamedSharding; None: no explicit sharding, as when the
axes become Auto). Under jit it lowers to a sharding constraint when that
type names axes (the SPMD lowering adds it for every typed value); eagerly
the array is laid out anew. Its transpose gives the cotangent the primal's
type back, as JAX's does.
"""
from __future__ import annotations

from xjit._src import core, sharding_in_types as sit
from xjit._src.interpreters import ad, batching, mlir as lowering


def _eval(x, *, dst_sharding, concrete_mesh=None):
    if dst_sharding is None:
        return x.update(sharding=None) if x.spec is not None else x
    sit.type_sharding(dst_sharding)  # a bad spec for the mesh raises here
    return x.update(sharding=sit.type_sharding(dst_sharding))


def _pp(params):
    return {}  # JAX prints the new type only (the equation's output)


reshard_p = lowering.define_primitive("reshard", _eval, lambda ctx, ai, ao, x, **_: x, pp=_pp)
sit._retyping.add(reshard_p)
sit.sharding_rules[reshard_p] = lambda x, *, dst_sharding, concrete_mesh=None: (
    dst_sharding if dst_sharding is not None else None)


def _impl(x, *, dst_sharding, concrete_mesh=None):
    """Eagerly: the array laid out as the new type says, on its own devices
    (or those of the mesh in context)."""
    from xjit._src.mesh import AxisType, Mesh, get_concrete_mesh
    from xjit._src.sharded_array import ShardedArrayImpl, place_sharded
    from xjit._src.sharded_array import concrete_mesh as on_devices
    from xjit._src.sharding import NamedSharding
    own = x.sharding.mesh if type(x) is ShardedArrayImpl else None
    if dst_sharding is None:  # the type drops its explicit axes: they become Auto
        if own is None:
            return x
        auto = own.abstract_mesh.update(axis_types=(AxisType.Auto,) * len(own.axis_names))
        return place_sharded(x, NamedSharding(on_devices(auto, own), x.sharding.spec))
    if isinstance(dst_sharding.mesh, Mesh):
        return place_sharded(x, _full(dst_sharding, x))
    devices = own if own is not None else concrete_mesh or get_concrete_mesh()
    if devices is None or devices.empty:
        raise ValueError("reshard of a concrete array over an AbstractMesh needs a mesh in "
                         f"context (`jax.set_mesh`); got {dst_sharding}")
    mesh = on_devices(dst_sharding.mesh, devices)
    return place_sharded(x, _full(NamedSharding(mesh, dst_sharding.spec), x))


def _full(sharding, x):
    """``sharding`` with one spec entry a dimension of ``x``, as JAX keeps it."""
    spec = sharding.spec
    n = core.aval_of(x).ndim
    return sharding.update(spec=spec.update(
        partitions=tuple(spec.partitions) + (None,) * (n - len(spec.partitions))))


core.impl_rules[reshard_p] = _impl


def _transpose(ct, x, *, dst_sharding, concrete_mesh=None):
    if type(ct) is ad.Zero:
        return [None]
    return [reshard_p.bind(ct, dst_sharding=x.aval._sharding, concrete_mesh=concrete_mesh)]


ad.deflinear2(reshard_p, _transpose)


def _batch(args, dims, *, dst_sharding, concrete_mesh=None):
    (x,), (d,) = args, dims
    if d is batching.not_mapped or dst_sharding is None:
        return reshard_p.bind(x, dst_sharding=dst_sharding, concrete_mesh=concrete_mesh), d
    parts = list(dst_sharding.spec.partitions)
    parts += [None] * (core.aval_of(x).ndim - 1 - len(parts))
    parts.insert(d, None)
    return reshard_p.bind(x, dst_sharding=dst_sharding.update(spec=parts),
                          concrete_mesh=concrete_mesh), d


batching.batch_rules[reshard_p] = _batch


def untyped(x):
    """``x`` with no explicit sharding in its type (the identity on values):
    for code that reshapes values as the mesh splits them (shard_map's
    emulation), which the types of an explicit layout do not allow."""
    if getattr(core.aval_of(x), "_sharding", None) is None:
        return x
    return reshard_p.bind(x, dst_sharding=None, concrete_mesh=None)
