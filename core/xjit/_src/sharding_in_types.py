"""Sharding in types: the rules that give a primitive's outputs their
sharding and manual axis type from its inputs' types.

``core.Primitive.abstract_eval`` calls ``typed_outputs`` only when an input's
type carries an explicit sharding or a manual axis type, so programs without
a mesh never pay for it. Each primitive may register, beside its other rules:

* ``sharding_rules[prim](*avals, **params)``: the outputs' partition specs (a
  ``PartitionSpec``, or a list of them for ``multiple_results``), read from
  the inputs' ``aval.spec`` (None where an input carries no explicit one);
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


def standard_vma_rule(prim_name, *avals) -> ManualAxisType:
    mats = [a.manual_axis_type for a in avals if isinstance(a, core.ShapedArray)]
    if not mats:
        return empty_mat
    first = mats[0]
    for m in mats[1:]:
        if m.varying != first.varying:
            raise ValueError(
                f"Primitive {prim_name} requires varying manual axes to match, but got "
                f"{[set(x.varying) for x in mats]}. This is a bug in xjit's tracing "
                "(pvary should have been inserted); as a workaround pass "
                "check_vma=False to `jax.shard_map`")
    return first


def _out_specs(prim, avals, n_out, params):
    """The outputs' specs (None each where no input is explicitly sharded)."""
    if not any(getattr(a, "spec", None) is not None for a in avals):
        return [None] * n_out
    rule = sharding_rules.get(prim)
    if rule is None:
        shown = ", ".join(a.str_short() for a in avals if isinstance(a, core.ShapedArray))
        raise ShardingTypeError(
            f"sharding rule for {prim.name} is not implemented (inputs {shown}). You can "
            "work around this error by dropping that operation into full auto sharding "
            "mode via: `jax.sharding.auto_axes(fun, out_sharding=...)`")
    specs = rule(*avals, **params)
    return list(specs) if prim.multiple_results else [specs]


def _out_mats(prim, avals, n_out, params):
    if not any(getattr(a, "manual_axis_type", empty_mat) is not empty_mat for a in avals):
        return [empty_mat] * n_out
    rule = vma_rules.get(prim)
    if rule is None:
        return [standard_vma_rule(prim.name, *avals)] * n_out
    mats = rule(*avals, **params)
    return list(mats) if prim.multiple_results else [mats]


def _sharding_source(avals):
    for a in avals:
        if getattr(a, "_sharding", None) is not None:
            return a._sharding
    return None


def typed_outputs(prim, avals, out, params):
    outs = list(out) if prim.multiple_results else [out]
    specs = _out_specs(prim, avals, len(outs), params)
    mats = _out_mats(prim, avals, len(outs), params)
    source = _sharding_source(avals)
    typed = []
    for o, spec, mat in zip(outs, specs, mats):
        if not isinstance(o, core.ShapedArray):
            typed.append(o)
            continue
        sharding = None if spec is None or source is None else source.update(spec=spec)
        typed.append(o.update(sharding=sharding, manual_axis_type=mat))
    return typed if prim.multiple_results else typed[0]


core.typed_outputs = typed_outputs
