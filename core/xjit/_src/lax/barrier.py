"""``lax.optimization_barrier``: values the compiler may not move
computations across; each operand keeps its own type."""
from __future__ import annotations

from xjit._src import core, sharding_in_types as sit, tree_util
from xjit._src.interpreters import ad, batching, mlir as lowering
from xjit._src.interpreters.ad import Zero
from xjit._src.interpreters.mlir import ttype

def _barrier_lower(ctx, ai, ao, *xs):
    return ctx.op("stablehlo.optimization_barrier", list(xs), [ttype(a) for a in ai],
                  [ttype(a) for a in ao])


optimization_barrier_p = lowering.define_primitive(
    "optimization_barrier", lambda *xs: list(xs), _barrier_lower, multiple_results=True)


def _barrier_jvp(primals, tangents):
    n = len(primals)
    nz = [type(t) is not Zero for t in tangents]
    ts = [t for t in tangents if type(t) is not Zero]
    outs = optimization_barrier_p.bind(*primals, *ts)
    it = iter(outs[n:])
    return outs[:n], [next(it) if z else t for z, t in zip(nz, tangents)]


ad.jvp_rules[optimization_barrier_p] = _barrier_jvp
ad.transpose_rules[optimization_barrier_p] = lambda cts, *xs: [
    ad.instantiate_zeros(c) if ad.is_undefined_primal(x) else None for c, x in zip(cts, xs)]
batching.batch_rules[optimization_barrier_p] = lambda args, dims: (
    optimization_barrier_p.bind(*args), list(dims))


sit.sharding_rules[optimization_barrier_p] = lambda *xs: [sit.P(*sit.parts(x)) for x in xs]


def optimization_barrier(operand, /):
    """Values the compiler may not move computations across (a pytree)."""
    leaves, tree = tree_util.tree_flatten(operand)
    outs = optimization_barrier_p.bind(*[core.lax_ops.asarray_device(x) for x in leaves])
    return tree_util.tree_unflatten(tree, list(outs))
