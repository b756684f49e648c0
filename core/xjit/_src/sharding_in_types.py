"""Sharding in types: the rules that give a primitive's outputs their
sharding and manual axis type from its inputs' types.

``core.Primitive.abstract_eval`` calls ``typed_outputs`` only when an input's
type carries an explicit sharding or a manual axis type, so programs without
a mesh never pay for it. Each primitive may register, beside its other rules:

* ``sharding_rules[prim](*avals, **params)``: the outputs' partition specs (a
  ``PartitionSpec``, or a list of them for ``multiple_results``), read from
  the inputs' ``aval.spec`` (None where an input carries no explicit one),
  over the inputs' mesh; or the NamedSharding an ``out_sharding``-like
  parameter names. A spec naming a mesh axis twice is JAX's "illegally
  sharded result" error. Primitives whose parameters hold a jaxpr are typed
  by tracing it;
* ``vma_rules[prim](*avals, **params)``: the outputs' ``ManualAxisType``
  (a list of them for ``multiple_results``).

Without a registered rule, a primitive's outputs are typed as JAX's
``standard_vma_rule`` does: the inputs must vary over the same manual axes
(tracing inserts ``pvary`` to make them, see ``insert_pvary``), and the
outputs vary as they do. A primitive with no sharding rule given an
explicitly sharded input raises, naming the workaround (``auto_axes``),
rather than guess a layout.
"""
from __future__ import annotations

from typing import Callable

from xjit._src import core
from xjit._src.core import ManualAxisType, empty_mat

sharding_rules: dict[core.Primitive, Callable] = {}
vma_rules: dict[core.Primitive, Callable] = {}


class ShardingTypeError(Exception):
    """JAX's ``core.ShardingTypeError``: inputs whose shardings do not type-check."""


class VaryingMismatchError(ValueError):
    """Operands varying over different manual axes: a staging trace catches it
    and inserts ``pvary`` (JAX's auto_insert_reshard); elsewhere it is JAX's ValueError."""


def standard_vma_rule(prim_name, *avals) -> ManualAxisType:
    mats = [a.manual_axis_type for a in avals if isinstance(a, core.ShapedArray)]
    if not mats:
        return empty_mat
    first = mats[0]
    for m in mats[1:]:
        if m.varying != first.varying:
            raise VaryingMismatchError(
                f"Primitive {prim_name} requires varying manual axes to match, but got "
                f"{[x.varying for x in mats]}. Please open an issue at "
                "https://github.com/jax-ml/jax/issues and as a temporary workaround pass the "
                "check_vma=False argument to `jax.shard_map`")
    return first


def _out_specs(prim, avals, outs, params):
    """The outputs' specs, or shardings (None each where no input is
    explicitly sharded: eval rules type what their parameters name)."""
    if not any(getattr(a, "spec", None) is not None for a in avals):
        return [getattr(o, "_sharding", None) for o in outs]
    rule = sharding_rules.get(prim)
    if rule is None and _has_inner_jaxpr(params):  # typed by tracing its body
        return [getattr(o, "_sharding", None) for o in outs]
    if rule is None:
        raise ShardingTypeError(
            f"sharding rule for {prim.name} is not implemented. Please file an issue at "
            "https://github.com/jax-ml/jax/issues. You can work around this error by "
            "dropping that operation into full auto sharding mode via: "
            "`jax.sharding.auto_axes(fun, out_shardings=...)`")
    specs = rule(*avals, **params)
    return list(specs) if prim.multiple_results else [specs]


def _has_inner_jaxpr(params):
    for v in params.values():
        if isinstance(v, (core.Jaxpr, core.ClosedJaxpr)) or (
                isinstance(v, tuple) and v and isinstance(v[0], (core.Jaxpr, core.ClosedJaxpr))):
            return True
    return False


def _out_mats(prim, avals, n_out, params):
    if not any(getattr(a, "manual_axis_type", empty_mat) is not empty_mat for a in avals):
        return [empty_mat] * n_out
    rule = vma_rules.get(prim)
    if rule is None and _has_inner_jaxpr(params):  # typed by tracing its body
        outs = core.abstract_eval_rules[prim](*avals, **params)
        return [getattr(o, "manual_axis_type", empty_mat)
                for o in (outs if prim.multiple_results else [outs])]
    if rule is None:
        return [standard_vma_rule(prim.name, *avals)] * n_out
    mats = rule(*avals, **params)
    return list(mats) if prim.multiple_results else [mats]


def input_mesh(avals):
    """The mesh of the inputs' explicit shardings (all one mesh, as JAX
    requires), or None."""
    mesh = None
    for a in avals:
        s = getattr(a, "_sharding", None)
        if s is not None:
            if mesh is not None and s.mesh != mesh:
                raise ValueError(f"Mesh for all inputs should be equal. Got one mesh: {mesh} "
                                 f"and another mesh: {s.mesh}")
            mesh = s.mesh
    return mesh


def _named(spec, mesh, prim, avals, out):
    """The output's sharding from a rule's answer: a PartitionSpec over the
    inputs' mesh, or a sharding (an ``out_sharding`` parameter's)."""
    if spec is None:
        return None
    if not isinstance(spec, P):
        return type_sharding(spec)
    if mesh is None:
        mesh = _context_mesh()
    try:
        return NamedSharding(mesh, spec)
    except DuplicateSpecError:
        shown = ", ".join(a.str_short() for a in avals if isinstance(a, core.ShapedArray))
        bad = out.update(sharding=_Unchecked(mesh, spec)).str_short()
        raise ShardingTypeError(f"{prim.name} operation with inputs: {shown} produces an "
                                f"illegally sharded result: {bad}") from None


class _Unchecked:
    """A mesh and a spec, unvalidated: to print a type that cannot be."""

    def __init__(self, mesh, spec):
        self.mesh, self.spec = mesh, spec


def _check_context_mesh(prim, avals):
    """As JAX: a typed input's mesh is the mesh in context (unless the
    context is empty, or has manual axes: shard_map's business)."""
    ctx = _context_mesh()
    if ctx.empty or ctx._any_axis_manual or prim in _retyping:
        return
    for a in avals:
        s = getattr(a, "_sharding", None)
        if s is not None and s.mesh != ctx and not (s.mesh.are_all_axes_auto and
                                                    ctx.are_all_axes_auto):
            raise ValueError(f"For primitive {prim.name}, context mesh {ctx} should match the "
                             f"aval mesh {s.mesh} for shape {a.str_short()}.")


_retyping: set = set()  # primitives that change a value's mesh (reshard)


def typed_outputs(prim, avals, out, params):
    outs = list(out) if prim.multiple_results else [out]
    _check_context_mesh(prim, avals)
    mesh = input_mesh(avals)
    specs = _out_specs(prim, avals, outs, params)
    mats = _out_mats(prim, avals, len(outs), params)
    typed = []
    for o, spec, mat in zip(outs, specs, mats):
        if not isinstance(o, core.ShapedArray):
            typed.append(o)
            continue
        sharding = _named(spec, mesh, prim, avals, o)
        typed.append(o.update(sharding=sharding, manual_axis_type=mat))
    return typed if prim.multiple_results else typed[0]


def type_sharding(sharding):
    """The sharding a type carries for an ``out_sharding``-like parameter:
    over the mesh's abstract mesh, naming its Explicit axes only (None when
    it names none)."""
    if sharding is None or not hasattr(sharding, "spec"):
        return None
    mesh = sharding.mesh.abstract_mesh
    explicit = set(mesh.explicit_axes)
    if not explicit:
        return None
    keep = lambda p: _keep(p, explicit)
    spec = sharding.spec
    new = P(*(keep(p) for p in spec.partitions),
            unreduced=spec.unreduced & explicit, reduced=spec.reduced & explicit)
    return NamedSharding(mesh, new)


def _keep(p, axes):
    kept = tuple(a for a in entry_axes(p) if a in axes)
    return None if not kept else kept[0] if len(kept) == 1 else kept


def primal_sharding(aval, *others):
    """The sharding a transpose gives a cotangent: its primal's, or unsplit
    when the primal's type names no axes (JAX's avals always carry a mesh:
    here the one in context, else the other operands')."""
    s = getattr(aval, "_sharding", None)
    if s is not None:
        return s
    mesh = _context_mesh()
    if mesh.empty:
        mesh = input_mesh(others)
    return NamedSharding(mesh, P()) if mesh is not None and mesh._any_axis_explicit else None


def batched_sharding(sharding, bdim, entry=None):
    """An ``out_sharding``-like parameter under vmap: the batch dimension (at
    ``bdim``) split as the batched operand's is (``entry``), as JAX's
    ``get_sharding_for_vmap`` splits it over the vmapped axis's mesh axis."""
    if sharding is None:
        return None
    ps = list(sharding.spec.partitions)
    ps += [None] * (bdim - len(ps))
    ps.insert(bdim, entry)
    return sharding.update(spec=sharding.spec.update(partitions=ps))


def batch_entry(x, bdim):
    """The spec entry of batched value ``x``'s batch dimension."""
    return None if bdim is None else parts(core.aval_of(x))[bdim]


def with_param_sharding(aval, sharding):
    """A primitive's output type given its ``sharding=`` parameter (eval
    rules call this: the output is typed even when no input is)."""
    return aval if sharding is None else aval.update(sharding=type_sharding(sharding))


# -- helpers for the rules ---------------------------------------------------
# Set by sharding.py, which imports this module (shardings sit above core).
P = None  # PartitionSpec
NamedSharding = None
DuplicateSpecError = None
_context_mesh = None  # () -> the abstract mesh in context


def parts(aval) -> tuple:
    """``aval``'s partition entries, one per dimension (None: not split)."""
    spec = getattr(aval, "spec", None)
    n = len(aval.shape)
    if spec is None:
        return (None,) * n
    ps = tuple(spec.partitions)
    return ps + (None,) * (n - len(ps))


def entry_axes(p) -> tuple:
    """The mesh axes one spec entry names."""
    return () if p is None else p if isinstance(p, tuple) else (p,)


def same_as(i=0):
    """A rule: the output is laid out as input ``i``."""
    def rule(*avals, **_):
        return P(*parts(avals[i]))
    return rule


def unary_rule(x, *_, **__):
    return P(*parts(x))


def drop_axes_rule(x, *_, axes, **__):
    """Reductions: the reduced dimensions' entries go."""
    axes = set(axes)
    return P(*(p for i, p in enumerate(parts(x)) if i not in axes))


def broadcasting_rule(name):
    """Elementwise ops: each dimension takes the one sharding its operands
    agree on (a size-1 unsharded operand dimension agrees with any)."""
    def rule(*avals, **_):
        shaped = [a for a in avals if a.shape]
        if not shaped:
            return P()
        return P(*broadcast_parts(name, [a.shape for a in shaped], [parts(a) for a in shaped]))
    return rule


def broadcast_parts(name, shapes, specs):
    """The entries of the broadcast of values of equal rank (``shapes``)
    laid out by ``specs``."""
    out = []
    for d in range(len(shapes[0])):
        ss = [s[d] for s in specs]
        if all(s == ss[0] for s in ss[1:]):
            out.append(ss[0])
            continue
        nontrivial = [s for s, n in zip(ss, shapes) if not (n[d] == 1 and s is None)]
        if not nontrivial or all(s == nontrivial[0] for s in nontrivial[1:]):
            out.append(nontrivial[0] if nontrivial else None)
            continue
        got = None
        for s in ss:
            if got is None:
                got = s
            elif s is not None and s != got:
                raise ShardingTypeError(
                    f"{name} got incompatible shardings for broadcasting: "
                    f"{', '.join(str(tuple(s)) for s in specs)}.")
        out.append(got)
    return out


def broadcast_shardings(*avals):
    """JAX's ``lax.broadcast_shardings``: the layout of the broadcast of
    ``avals`` (ranks padded with leading unsplit dimensions), or None when
    none is explicitly sharded."""
    mesh = input_mesh(avals)
    if mesh is None:
        return None
    nd = max(len(a.shape) for a in avals)
    shapes = [(1,) * (nd - len(a.shape)) + tuple(a.shape) for a in avals]
    specs = [(None,) * (nd - len(a.shape)) + parts(a) for a in avals]
    if not nd:
        return None
    return NamedSharding(mesh, P(*broadcast_parts("broadcast_shardings", shapes, specs)))


def register(prims, rule):
    for p in prims:
        sharding_rules[p] = rule


core.typed_outputs = typed_outputs
