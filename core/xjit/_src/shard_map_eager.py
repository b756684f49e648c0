"""``shard_map`` applied eagerly on a concrete mesh: the body runs one
primitive at a time, as JAX's eager shard_map does, so a value inside it is
a concrete per-device value that prints device by device
(``print(x)`` in the body shows each device's block).

Each value inside is a ``ShardMapTracer`` holding every device's block,
stacked along one leading axis per mesh axis (in the mesh's order). A
primitive is applied by ``vmap``-ing it over those axes, each vmap binding
its mesh axis name, so collectives (``psum``, ``ppermute``...) combine the
blocks as XLA's collectives would across devices. Each value also carries
the mesh axes it varies over (JAX's ``vma``), so an output whose ``out_specs``
claim a replication the body does not establish fails as in JAX.
"""
from __future__ import annotations

import numpy as np

from xjit._src import core, tree_util
from xjit._src.interpreters import batching
from xjit._src.interpreters.batching import AxisData, extend_axis_env, vmap
from xjit._src.core import ManualAxisType
from xjit._src.sharding_in_types import VaryingMismatchError
from xjit._src.shard_map_spmd import erase_params

class ShardMapTracer(core.Tracer):
    __slots__ = ("val", "vma", "aval")

    def __init__(self, trace, val, vma):
        self._trace = trace
        self.val = val  # every device's block, stacked over the mesh axes
        # the mesh axes along which the blocks may differ; None: not known
        # (then out_specs are taken at their word, the blocks at device 0)
        self.vma = vma
        full = core.aval_of(val)
        mat = ManualAxisType(varying=vma) if trace.check_vma and vma else None
        self.aval = full.update(shape=full.shape[len(trace.order):], manual_axis_type=mat)

    def __str__(self):
        trace = self._trace
        mesh = trace.mesh
        names = f"({', '.join(map(str, mesh.axis_names))},)"
        blocks = np.asarray(self.val)
        return "\n".join(f"On {device} at mesh coordinates {names} = {idx}:\n{blocks[idx]}\n"
                         for idx, device in np.ndenumerate(mesh.devices))

    __repr__ = __str__


class ShardMapTrace(core.Trace):
    """The body of an eager shard_map over all axes of the concrete ``mesh``."""
    tracer_name = "ShardMapTracer"

    def __init__(self, mesh, check_vma=False):
        self.parent = core.eval_trace
        self.mesh = mesh
        self.check_vma = check_vma
        self.order = mesh.axis_names
        self.sizes = mesh.axis_sizes

    def fun_desc(self):
        return "a function transformed by shard_map"

    def _stacked(self, body, in_axes):
        for name, size in reversed(list(zip(self.order, self.sizes))):
            body = vmap(body, in_axes=in_axes, out_axes=0, axis_name=name, axis_size=size)
        return body

    def process_primitive(self, primitive, args, params):
        vals, in_axes, avals = [], [], []
        for x in args:
            if isinstance(x, ShardMapTracer) and x._trace is self:
                vals.append(x.val)
                in_axes.append(0)
            else:
                vals.append(x)
                in_axes.append(None)
            avals.append(core.aval_of(x))
        run_params = erase_params(params)  # its sub-jaxprs run on every device's blocks at once
        with core.set_current_trace(core.eval_trace):
            out = self._stacked(lambda *xs: primitive.bind(*xs, **run_params),
                                tuple(in_axes))(*vals)
        for v in (out if primitive.multiple_results else [out]):
            _untype(v)
        vmas = self._out_vmas(primitive, avals, params)
        n = len(out) if primitive.multiple_results else 1
        if vmas is None:  # check_vma=False: each may vary over every axis
            vmas = [frozenset(self.order)] * n
        elif type(vmas) is _Every:
            vmas = [vmas.vma] * n
        if primitive.multiple_results:
            return [ShardMapTracer(self, v, vma) for v, vma in zip(out, vmas)]
        return ShardMapTracer(self, out, vmas[0])

    def _out_vmas(self, primitive, avals, params):
        """The outputs' varying axes from their types (with check_vma; else
        every axis). Operands varying over different axes are pvary-ed to
        their union first, as the staging trace does."""
        if not self.check_vma:
            return None
        union = frozenset().union(*(a.manual_axis_type.varying for a in avals
                                    if isinstance(a, core.ShapedArray)))
        try:
            out = primitive.abstract_eval(*avals, **params)
        except VaryingMismatchError:
            avals = [a.update(manual_axis_type=a.manual_axis_type.update(varying=union))
                     if isinstance(a, core.ShapedArray) else a for a in avals]
            out = primitive.abstract_eval(*avals, **params)
        except NotImplementedError:  # evaluated only (no abstract rule): as its inputs vary
            return _Every(union)
        outs = out if primitive.multiple_results else [out]
        return [o.manual_axis_type.varying if isinstance(o, core.ShapedArray) else frozenset()
                for o in outs]

    def to_val_vma(self, x):
        """An output's stacked blocks and varying axes (a value from outside
        the body is the same on every device)."""
        if isinstance(x, ShardMapTracer) and x._trace is self:
            return x.val, x.vma
        with core.set_current_trace(core.eval_trace):
            return self._stacked(lambda v: v, (None,))(x), frozenset()


class _Every:
    """Every output varies over ``vma``."""

    def __init__(self, vma):
        self.vma = vma


def _untype(x):
    """A sub-program traced at this body's types (an inner jit's) gives arrays
    carrying them; every device's blocks together vary over nothing."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, core.ShapedArray) and aval.manual_axis_type.varying:
        x.aval = aval.update(manual_axis_type=aval.manual_axis_type.update(varying=()))


def run(f, mesh, leaves, in_tree, specs, check_vma, shard_input):
    """The body ``f`` on each device's block of the flat arguments ``leaves``
    (split by ``specs``; ``shard_input(x, spec)`` gives ``x``'s blocks
    stacked over the mesh axes it is split over). Returns the flat outputs
    as (stacked blocks, varying axes) pairs, the output tree and the
    outputs as ``f`` returned them."""
    from xjit._src.numpy import shape_ops as jnp  # expand_dims, broadcast_to
    trace = ShardMapTrace(mesh, check_vma)
    order = list(mesh.axis_names)
    tracers = []
    for x, spec in zip(leaves, specs):
        with core.set_current_trace(core.eval_trace):
            blocks, carried = shard_input(x, spec)
            missing = [i for i, a in enumerate(order) if a not in carried]
            if missing:  # the same block on every device along these axes
                blocks = jnp.expand_dims(blocks, missing)
                blocks = jnp.broadcast_to(blocks, (*mesh.axis_sizes, *blocks.shape[len(order):]))
        tracers.append(ShardMapTracer(trace, blocks, frozenset(carried) if check_vma
                                      else frozenset(order)))
    with extend_axis_env([AxisData(n, s, check_vma) for n, s in mesh.shape_tuple]), \
            core.set_current_trace(trace):
        out = f(*tree_util.tree_unflatten(in_tree, tracers))
    out_leaves, out_tree = tree_util.tree_flatten(out)
    return [trace.to_val_vma(y) for y in out_leaves], out_tree, out
