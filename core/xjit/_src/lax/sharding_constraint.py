"""``lax.with_sharding_constraint``: the identity, telling XLA's partitioner
how a value should be laid out.

In a program over many devices (``pxla``) it lowers to Shardy's
``sdy.sharding_constraint``; on one device it lowers to nothing. Tangents
and cotangents carry the same constraint; under ``vmap`` the batch
dimension is left to the partitioner (``UNCONSTRAINED``), as in JAX.
"""
from __future__ import annotations

from xjit._src import core, tree_util
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src import sharding_in_types as sit
from xjit._src.mesh import AbstractMesh, AxisType, get_abstract_mesh, get_concrete_mesh, get_mesh
from xjit._src.sharding import NamedSharding, PartitionSpec, Sharding, _named, place
from xjit._src.layout import Format, Layout


def _lower(ctx, avals_in, avals_out, x, *, sharding, unconstrained_dims, **_):
    spmd = ctx.module_ctx.spmd
    if spmd is None or not isinstance(sharding, NamedSharding) or sharding.num_devices == 1:
        return x
    from xjit._src.pxla import sdy_sharding
    t = lowering.ttype(avals_in[0])
    return ctx.op("sdy.sharding_constraint", [x], [t], t,
                  attrs=f"sharding = {sdy_sharding(sharding, len(avals_in[0].shape))}")


def _pp(params):
    dims = params["unconstrained_dims"]
    params = {**params, "unconstrained_dims": f"frozenset({{{', '.join(map(str, sorted(dims)))}}})"}
    return dict(sorted(params.items()))  # JAX prints these in name order


sharding_constraint_p = lowering.define_primitive(
    "sharding_constraint", lambda x, **_: x, _lower, pp=_pp)
sit.sharding_rules[sharding_constraint_p] = sit.unary_rule  # its input's type (JAX's)
ad.deflinear(sharding_constraint_p,
             lambda ct, **params: [sharding_constraint_p.bind(ct, **params)])


def _impl(x, *, sharding, **_):
    """Eagerly: ``x`` laid out by ``sharding`` (dimensions left UNCONSTRAINED
    are not split)."""
    if isinstance(sharding, NamedSharding):
        sharding = NamedSharding(sharding.mesh, PartitionSpec(*[
            None if p is PartitionSpec.UNCONSTRAINED else p for p in sharding.spec]))
    return place(x, sharding)


core.impl_rules[sharding_constraint_p] = _impl


def _batch(args, dims, *, sharding, unconstrained_dims, **params):
    (x,), (d,) = args, dims
    if d is batching.not_mapped or not isinstance(sharding, NamedSharding):
        return sharding_constraint_p.bind(x, sharding=sharding,
                                          unconstrained_dims=unconstrained_dims, **params), d
    spec = list(sharding.spec) + [None] * (x.ndim - 1 - len(sharding.spec))
    spec.insert(d, PartitionSpec.UNCONSTRAINED)
    moved = frozenset(u + (u >= d) for u in unconstrained_dims) | {d}
    out = sharding_constraint_p.bind(x, sharding=NamedSharding(sharding.mesh,
                                                               PartitionSpec(*spec)),
                                     unconstrained_dims=moved, **params)
    return out, d


batching.batch_rules[sharding_constraint_p] = _batch


def _on_devices(x, s):
    """An eager constraint over an AbstractMesh takes the devices of ``x``'s own
    mesh, as in JAX (which refuses any other input)."""
    if not (isinstance(s, NamedSharding) and isinstance(s.mesh, AbstractMesh)):
        return s
    have = getattr(x, "sharding", None)
    if not isinstance(have, NamedSharding) or isinstance(have.mesh, AbstractMesh):
        raise TypeError("The sharding on the input must be a `NamedSharding` since the target "
                        "sharding has an `AbstractMesh` in it. Got sharding type "
                        f"{type(have)} for shape {core.aval_of(x).str_short(False)}")
    return NamedSharding(have.mesh, s.spec)


def _assert_type(aval, s):
    have = sit.parts(aval)
    want = tuple(s.spec.partitions) + (None,) * (len(aval.shape) - len(s.spec))
    if any(w is not PartitionSpec.UNCONSTRAINED and h != w for h, w in zip(have, want)):
        raise AssertionError(
            "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
            f"`Explicit`. The array sharding: {PartitionSpec(*have)} did not match the sharding "
            f"provided: {PartitionSpec(*want)}. Please use `jax.sharding.reshard` to shard your "
            "input to the sharding you want.")


def _check_auto(s):
    """Outside an all-Explicit context, a constraint may name Auto axes only."""
    types = dict(zip(s.mesh.axis_names, s.mesh.axis_types))
    if any(types[a] != AxisType.Auto for a in s.spec._axis_names()):
        raise ValueError("The spec of NamedSharding passed to with_sharding_constraint can only "
                         f"refer to Auto axes of the mesh. Got spec={s.spec} and "
                         f"mesh={s.mesh.abstract_mesh}. You probably meant to use `reshard` API?")


def with_sharding_constraint(x, shardings):
    """``x`` (a pytree) constrained to ``shardings`` (a prefix tree of
    Shardings, or PartitionSpecs under a mesh context, or Formats: their
    layout checked against the value, their sharding applied)."""
    if shardings is None:
        return x
    leaves, tree = tree_util.tree_flatten(x)
    specs = tree_util.broadcast_prefix(
        shardings, x,
        is_leaf=lambda v: v is None or isinstance(v, (PartitionSpec, Sharding, Format)))
    context = get_concrete_mesh()
    out = []
    for v, s in zip(leaves, specs):
        if isinstance(s, Format):  # a layout with its sharding: the layout is checked
            if isinstance(s.layout, Layout):  # against the value (see layout.py)
                try:
                    s.layout.check_compatible_aval(core.aval_of(v).shape)
                except ValueError as e:
                    raise ValueError("One of with_sharding_constraint arguments is incompatible "
                                     f"with its layout annotation {s.layout}: {e}") from None
            s = s.sharding
        if s is None:  # no constraint on this leaf
            out.append(v)
            continue
        s = _named(s, "with_sharding_constraint")
        if isinstance(s, NamedSharding):
            s.check_compatible_aval(core.aval_of(v).shape)
            s.shard_shape(core.aval_of(v).shape)
            if get_abstract_mesh().are_all_axes_explicit:  # an assert on the type, as JAX
                _assert_type(core.aval_of(v), s)
                out.append(v)
                continue
            _check_auto(s)
        if not isinstance(v, core.Tracer):  # eagerly: lay the value out as asked
            out.append(place(v, _on_devices(v, s)))
            continue
        out.append(sharding_constraint_p.bind(
            v, sharding=s, layout=None, context_mesh=context if context is not None else get_mesh(),
            unconstrained_dims=frozenset()))
    return tree_util.tree_unflatten(tree, out)
