"""Varying manual axes ("vma") of values inside ``shard_map(check_vma=True)``.

Inside such a body each value's type records the manual mesh axes along
which it may differ from device to device (``f32[3]{V:i}``). Autodiff needs
that record: a sum over devices of a varying value (``psum``, bound as
``psum_invariant``) transposes to a copy into a varying value (``pvary``),
and ``pvary`` transposes back to that sum. Without the types both would be
ambiguous (a psum of an invariant value is ``n`` times it, its transpose a
psum). As in JAX:

* ``pvary`` is an invariant -> varying cast; lowered as nothing.
* ``psum`` of a tracer with ``check_vma`` binds ``psum_invariant`` after
  pvary-ing the input over the named axes it does not yet vary over;
  ``pmax``/``pmin``/``all_gather``/``ppermute``/... pvary their input the
  same way (``insert_collective_pvary``) and then require it varying.
* an operation whose operands vary over different axes gets ``pvary``
  inserted on the others by the staging trace (``insert_pvary``).

The rules here give each collective's output type (``vma_rules``); the
primitives' values under vmap and in SPMD programs are those of ``parallel``.
"""
from __future__ import annotations

import numpy as np

from xjit._src import core, tree_util
from xjit._src.core import ManualAxisType, ShapedArray
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.batching import moveaxis
from xjit._src.sharding_in_types import vma_rules
from xjit._src.lax import lax, parallel
from xjit._src.lax.parallel import _check_axis_names, _names


def check_vma(names) -> bool:
    """Whether the named axes are manual axes of a ``check_vma=True`` body
    (JAX's ``config._check_vma``, here kept per bound axis)."""
    for n in names:
        if not isinstance(n, int) and batching.axis_exists(n) \
                and batching.axis_data(n).check_vma:
            return True
    return False


def mesh_order(names) -> tuple:
    """``names`` in the order the axes were bound (shard_map binds the mesh's)."""
    bound = []
    for a in batching._axis_env:
        if a.name in names and a.name not in bound:
            bound.append(a.name)
    return tuple(bound) + tuple(n for n in names if n not in bound)


def varying(x) -> frozenset:
    aval = core.aval_of(x)
    return aval.manual_axis_type.varying if isinstance(aval, ShapedArray) else frozenset()


def _with_varying(aval, vma):
    return aval.update(manual_axis_type=aval.manual_axis_type.update(varying=vma))


# --------------------------------------------------------------------------
# pvary: invariant -> varying


def _pvary_vma(aval, *, axes):
    if set(axes) & aval.manual_axis_type.varying:
        raise ValueError(
            "pvary is a invariant->variant collective. This means that the axis names "
            "mentioned in `axes` passed to `pvary` must not be present in "
            f"`jax.typeof(inp).mat.varying`. Got axes={axes} and jax.typeof(inp)={aval}")
    return aval.manual_axis_type.update(varying=aval.manual_axis_type.varying | set(axes))


def _pvary_eval(aval, *, axes):
    _check_axis_names(axes, "pvary")
    return aval.update(manual_axis_type=_pvary_vma(aval, axes=axes))


pvary_p = lowering.define_primitive("pvary", _pvary_eval, lambda ctx, ai, ao, x, *, axes: x)
vma_rules[pvary_p] = _pvary_vma
batching.collective_axes[pvary_p] = lambda params: params["axes"]


def _pvary_impl(x, *, axes):
    raise ValueError("pvary should be called under jax.shard_map.")


core.impl_rules[pvary_p] = _pvary_impl


def _pvary_axis_batch(axis_data, vals, dims, *, axes):
    """Under the vmap standing for a manual axis the value is already one per
    member: casting it to varying changes nothing."""
    (x,), (d,) = vals, dims
    rest = tuple(a for a in axes if a != axis_data.name)
    return (pvary_p.bind(x, axes=rest) if rest else x), d


batching.axis_batch_rules[pvary_p] = _pvary_axis_batch


def pvary(x, axis_name):
    """Mark ``x`` (a pytree) as varying over the named manual axes: its value
    is unchanged, its transpose sums over them."""
    axes = _names(axis_name)
    if not axes:
        return x
    if all(batching.axis_exists(a) for a in axes) and not check_vma(axes):
        return x  # a check_vma=False body tracks nothing
    axes = mesh_order(axes)
    return tree_util.tree_map(lambda leaf: pvary_p.bind(leaf, axes=axes), x)


def _pvary_transpose(ct, x, *, axes):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    return [bind_psum_invariant(ct, axes)]


ad.jvp_rules[pvary_p] = parallel._linear_jvp(pvary_p)
ad.transpose_rules[pvary_p] = _pvary_transpose


# --------------------------------------------------------------------------
# psum_invariant: varying -> invariant sum


def _psum_vma(aval, *, axes, **_):
    mat = aval.manual_axis_type
    named = [a for a in axes if not isinstance(a, int)]
    if not set(named) & mat.varying:
        raise ValueError(
            "psum is a variant->invariant collective. This means that the axis names "
            "mentioned in `axes` passed to `psum` must be present in "
            f"`jax.typeof(inp).mat.varying`. Got axes={tuple(axes)} and "
            f"jax.typeof(inp).mat.varying={mat.varying}")
    return mat.update(varying=mat.varying - set(named))


def _psum_invariant_eval(aval, *, axes):
    _check_axis_names(axes, "psum")
    if any(isinstance(a, int) for a in axes):
        raise ValueError(f"psum_invariant does not accept integer axes. Got {axes}")
    return aval.update(manual_axis_type=_psum_vma(aval, axes=axes))


_psum_lower = parallel._allreduce_lower("psum")
psum_invariant_p = lowering.define_primitive(
    "psum_invariant", _psum_invariant_eval,
    lambda ctx, ai, ao, x, *, axes: _psum_lower(ctx, ai, ao, x, axes=axes,
                                                axis_index_groups=None))
vma_rules[psum_invariant_p] = _psum_vma
batching.collective_axes[psum_invariant_p] = lambda params: params["axes"]


def _psum_invariant_axis_batch(axis_data, vals, dims, *, axes):
    (x,), (d,) = vals, dims
    name = axis_data.name
    rest = tuple(a for a in axes if a != name)
    if name not in axes:
        return psum_invariant_p.bind(x, axes=axes), d
    if d is None:  # the same on every member: the sum is the size times it
        x = lax.mul(parallel._const(x, axis_data.size), x)
    else:
        x = lax.reduce_sum(moveaxis(x, d, 0), (0,))
    return (psum_invariant_p.bind(x, axes=rest) if rest else x), None


batching.axis_batch_rules[psum_invariant_p] = _psum_invariant_axis_batch


def bind_psum_invariant(x, axes):
    """psum of one array over named ``axes`` in a check_vma body: pvary it
    first over the axes it does not vary over (their sum is a multiple)."""
    missing = set(axes) - varying(x)
    if missing:
        x = pvary_p.bind(x, axes=mesh_order(missing))
    return psum_invariant_p.bind(x, axes=tuple(axes))


def _psum_invariant_transpose(ct, x, *, axes):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    missing = set(axes) - varying(ct)
    return [pvary_p.bind(ct, axes=mesh_order(missing)) if missing else ct]


ad.jvp_rules[psum_invariant_p] = parallel._linear_jvp(psum_invariant_p)
ad.transpose_rules[psum_invariant_p] = _psum_invariant_transpose


# --------------------------------------------------------------------------
# The other collectives' types


def insert_collective_pvary(axis_name, x):
    """``x`` pvary-ed over the named axes it does not vary over (a collective
    over an axis acts on a value varying along it)."""
    names = _names(axis_name)
    if not check_vma(names):
        return x
    missing = set(names) - varying(x)
    return pvary_p.bind(x, axes=mesh_order(missing)) if missing else x


def collective_vma(prim_name, axis_name, aval) -> ManualAxisType:
    mat = aval.manual_axis_type
    names = _names(axis_name)
    if any(a not in mat.varying for a in names):
        raise ValueError(
            f"Collective {prim_name} must be applied to a device-varying  type, but got "
            f"{set(mat.varying) or 'frozenset()'} for collective acting over axis name "
            f"{names}. Please open an issue at https://github.com/jax-ml/jax/issues and as "
            "a temporary workaround pass the check_vma=False argument to `jax.shard_map`")
    return mat


def _collective_rule(name, key="axis_name"):
    return lambda aval, **params: collective_vma(name, params[key], aval)


for _prim, _name in ((parallel.all_gather_p, "all_gather"),
                     (parallel.reduce_scatter_p, "reduce_scatter"),
                     (parallel.ppermute_p, "ppermute"), (parallel.pbroadcast_p, "pbroadcast"),
                     (parallel.all_to_all_p, "all_to_all")):
    vma_rules[_prim] = _collective_rule(_name)
for _prim in (parallel.pmax_p, parallel.pmin_p):
    vma_rules[_prim] = _psum_vma
# psum_p itself (bound directly) is a sum and a broadcast: invariant, as in JAX
vma_rules[parallel.psum_p] = lambda aval, **params: ManualAxisType()


def axis_index_aval(names):
    """``axis_index``'s type: an int32 scalar varying over the axes it names
    when they are manual axes of a check_vma body."""
    vma = frozenset(n for n in names) if check_vma(names) else frozenset()
    return ShapedArray((), np.dtype(np.int32), manual_axis_type=ManualAxisType(varying=vma))


# --------------------------------------------------------------------------
# all_gather(to='invarying'): varying -> invariant gather


def _gather_shape(x, all_gather_dimension, axis_size, tiled):
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return tuple(shape)


def _all_gather_invariant_vma(aval, *, axis_name, **_):
    mat = aval.manual_axis_type
    return mat.update(varying=mat.varying - set(axis_name))


def _all_gather_invariant_eval(x, *, all_gather_dimension, axis_name, axis_size, tiled):
    _check_axis_names(axis_name, "all_gather_invariant")
    return x.update(shape=_gather_shape(x, all_gather_dimension, axis_size, tiled),
                    manual_axis_type=_all_gather_invariant_vma(x, axis_name=axis_name))


def _all_gather_invariant_lower(ctx, ai, ao, x, **params):
    return lowering.rules[parallel.all_gather_p](ctx, ai, ao, x, axis_index_groups=None,
                                                 **params)


all_gather_invariant_p = lowering.define_primitive(
    "all_gather_invariant", _all_gather_invariant_eval, _all_gather_invariant_lower)
vma_rules[all_gather_invariant_p] = _all_gather_invariant_vma
batching.collective_axes[all_gather_invariant_p] = lambda params: params["axis_name"]
batching.axis_batch_rules[all_gather_invariant_p] = \
    lambda axis_data, vals, dims, **params: parallel._all_gather_batch(
        axis_data, vals, dims, axis_index_groups=None, **params)
ad.jvp_rules[all_gather_invariant_p] = parallel._linear_jvp(all_gather_invariant_p)


def _all_gather_invariant_transpose(ct, x, *, all_gather_dimension, axis_name, axis_size,
                                    tiled):
    """Each member's slice of the (invariant) cotangent: its own block."""
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    size = ct.shape[all_gather_dimension] // axis_size
    starts = [0] * len(ct.shape)
    starts[all_gather_dimension] = parallel.axis_index(axis_name) * size
    sizes = list(ct.shape)
    sizes[all_gather_dimension] = size
    out = lax.dynamic_slice(ct, starts, sizes)
    return [out if tiled else lax.squeeze(out, (all_gather_dimension,))]


ad.transpose_rules[all_gather_invariant_p] = _all_gather_invariant_transpose


def all_gather_invariant(x, axis_name, *, axis=0, tiled=False):
    """All members' blocks gathered into one value the same on every member
    (its type invariant over ``axis_name``, unlike ``all_gather``'s)."""
    names = _names(axis_name)
    if not names:
        return x
    size = parallel.axis_size(names)

    def one(v):
        nd = np.ndim(v)
        v = insert_collective_pvary(names, v)
        return all_gather_invariant_p.bind(
            v, all_gather_dimension=batching.canonicalize_axis(axis, nd if tiled else nd + 1),
            axis_name=names, axis_size=size, tiled=tiled)
    return tree_util.tree_map(one, x)


# Typed primitives and their untyped forms (shard_map's emulation erases types)
UNTYPED = {
    psum_invariant_p: lambda params: (parallel.psum_p, dict(axes=params["axes"],
                                                            axis_index_groups=None)),
    all_gather_invariant_p: lambda params: (parallel.all_gather_p,
                                            dict(params, axis_index_groups=None)),
}


# --------------------------------------------------------------------------
# pcast


def _pcast_from(aval, axes) -> str:
    mat = aval.manual_axis_type
    states = set()
    for a in axes:
        states.add("varying" if a in mat.varying else "unreduced" if a in mat.unreduced
                   else "reduced" if a in mat.reduced else "invarying")
    if len(states) > 1:
        raise ValueError(
            "jax.lax.pcast can only accept axis_name which corresponds to one of varying, "
            "unreduced, reduced or invarying state of the input. Got input type: "
            f"{aval}, axes: {axes} and input state: {states}")
    return states.pop()


_PCAST_TO = ("unreduced", "reduced", "varying")
# JAX's supported (from, to) pairs; xjit's types have no reduced/unreduced yet
_PCAST_PAIRS = {("invarying", "varying"), ("invarying", "reduced"),
                ("varying", "unreduced"), ("reduced", "varying")}


def pcast(x, axis_name, *, to: str):
    """Cast ``x`` (a pytree) between the states of the named manual axes; to
    ``'varying'`` from invariant is ``pvary``."""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name}")
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axis_name:
        return x
    if to not in _PCAST_TO:
        raise ValueError("Got unexpected `to` value. Allowed `to` values are: "
                         f"{set(_PCAST_TO)}")

    def one(leaf):
        src = _pcast_from(core.aval_of(leaf), axes)
        if (src, to) not in _PCAST_PAIRS:
            raise ValueError(f"Unsupported pcast from={src}, to={to!r}")
        if (src, to) != ("invarying", "varying"):
            raise NotImplementedError(
                f"pcast from {src} to {to!r}: xjit's types do not carry reduced or "
                "unreduced axes yet")
        return pvary(leaf, axes)
    return tree_util.tree_map(one, x)


def _insert_pvary(args):
    """``args`` with pvary inserted on those varying over fewer axes than the
    others together (JAX's ``auto_insert_reshard`` before an operation)."""
    vmas = [varying(a) for a in args]
    union = frozenset().union(*vmas)
    out = []
    for a, v in zip(args, vmas):
        missing = union - v
        if missing and isinstance(core.aval_of(a), ShapedArray):
            a = pvary_p.bind(a, axes=mesh_order(missing))
        out.append(a)
    return out


core.lax_ops.register(insert_pvary=_insert_pvary)
