"""Loops: ``while_loop`` / ``fori_loop`` and ``scan`` / ``map``. Each is one
primitive whose parameters hold the traced bodies as closed jaxprs, so every
transformation sees the whole loop at once:

    while[cond_jaxpr, cond_nconsts,     *cond_consts, *body_consts, *carry
          body_jaxpr, body_nconsts]
    scan[jaxpr, length, reverse, ...]  *consts, *carry, *xs

Loop carries that the body passes through unchanged become constants, as in
JAX. Lowering: ``while`` to ``stablehlo.while``, ``scan`` to a counted
``stablehlo.while`` that slices ``xs`` and writes ``ys`` with dynamic slices;
loop constants travel through the ``while`` as part of its state (the regions
see only their block arguments), as JAX lowers them. Rules:

* JVP: bodies take ``(primals, nonzero tangents)``; carries whose tangent may
  become nonzero are found by iterating to a fixed point.
* Partial evaluation (linearize): a known ``scan`` computed now stacks the
  residuals per iteration; the unknown one is recorded for the backward pass.
* Transpose: ``scan`` runs the transposed body in the opposite direction,
  accumulating cotangents of its constants in the carry. ``while`` has no
  transpose (JAX's error).
* Batching: a batched ``while`` predicate keeps iterating while any
  example's holds, freezing the finished examples' carries.
"""
from __future__ import annotations

import operator

import numpy as np

from xjit._src import core, dtypes, tree_util
from xjit._src.ad_jit import transpose_jaxpr
from xjit._src.config import config
from xjit._src.core import ShapedArray, Tracer
from xjit._src.interpreters import ad, batching, hijax_lowering as _hi, mlir as lowering
from xjit._src.interpreters.ad import Zero, is_undefined_primal
from xjit._src.interpreters.mlir import i64_array, lower_jaxpr, ttype
from xjit._src.interpreters.partial_eval import is_staging
from xjit._src.lax import lax
from . import errors as errs
from .common import (
    _carry_fixpoint, _closed, _dce, _eval, _forwarded, _move_to_front, _nonzero,
    _partition, _permute_inputs, _promote_weak_inputs, _prune_outputs, _trace_closed,
    closed_over_refs, jvp_jaxpr, threading_refs, trace_fun, write_back)

_flags = config._values

while_p = core.Primitive("while")
while_p.multiple_results = True
scan_p = core.Primitive("scan")
scan_p.multiple_results = True
core.abstract_eval_rules[while_p] = lambda *args, body_jaxpr, **_: list(body_jaxpr.out_avals)


def _scan_abstract_eval(*args, jaxpr, length, num_carry, **_):
    outs = jaxpr.out_avals
    return list(outs[:num_carry]) + [_stacked(a, length) for a in outs[num_carry:]]


core.abstract_eval_rules[scan_p] = _scan_abstract_eval
core.pp_param_rules[while_p] = lambda p: {k: p[k] for k in (
    "body_jaxpr", "body_nconsts", "cond_jaxpr", "cond_nconsts")}
core.pp_param_rules[scan_p] = lambda p: {k: p[k] for k in (
    "jaxpr", "length", "num_carry", "num_consts", "reverse", "unroll")}


# --------------------------------------------------------------------------
# while_loop / fori_loop


def while_loop(cond_fun, body_fun, init_val):
    """Run ``body_fun`` on the carry while ``cond_fun(carry)`` is true."""
    if _flags["jax_disable_jit"]:
        val, it = init_val, 0
        while cond_fun(val):
            with _iteration_note("while_loop", it):
                val = body_fun(val)
            it += 1
        return val
    init, in_tree = tree_util.tree_flatten(init_val)
    avals = [core.aval_of(x) for x in init]

    args_tree = tree_util.treedef_tuple([in_tree])

    def stage(init, avals):
        c, c_out = trace_fun(cond_fun, args_tree, avals, "while_loop")
        errs.check_cond_output(c, c_out)
        b, _ = trace_fun(body_fun, args_tree, avals, "while_loop", (init_val,))
        return c, b

    c, b = stage(init, avals)
    init, changed = _promote_weak_inputs(init, avals, b.out_avals)
    if changed:
        avals = [core.aval_of(x) for x in init]
        c, b = stage(init, avals)
    errs.check_carry("while_loop", b, in_tree, b.out_tree, avals, b.out_avals)
    refs = closed_over_refs([c, b])
    if refs:
        return _while_threading_refs(c, b, refs, tree_util.tree_unflatten(in_tree, init))
    cj, cconsts = c.jaxpr, c.consts
    bj, bconsts = b.jaxpr, b.consts
    nb = len(bconsts)
    # a carry the body passes through unchanged and the predicate ignores is a constant
    fwd = _forwarded(bj)
    passthrough = [f == nb + i for i, f in enumerate(fwd)]
    cj2, kept = _dce(cj, [True] * len(cconsts) + [not p for p in passthrough])
    move = [not k for k in kept[len(cconsts):]]
    if any(move):
        cj = cj2
        bj = _prune_outputs(bj, [not m for m in move])
        bj = _move_to_front(bj, [False] * nb + move)
        init, moved = _partition(move, init)
        bconsts = moved + bconsts
    outs = while_p.bind(*cconsts, *bconsts, *init, cond_jaxpr=_closed(cj),
                        cond_nconsts=len(cconsts), body_jaxpr=_closed(bj),
                        body_nconsts=len(bconsts))
    outs, moved = iter(outs), iter(moved if any(move) else [])
    flat = [next(moved) if m else next(outs) for m in move] if any(move) else list(outs)
    return tree_util.tree_unflatten(in_tree, flat)


def _while_threading_refs(c, b, refs, init_val):
    """A while loop whose functions close over refs: the refs' values join
    the carry and are written back after the loop."""
    if any(e.primitive.name in ("swap", "addupdate") for e in c.jaxpr.eqns):
        raise NotImplementedError("a while_loop's cond_fun must not write to a Ref")
    cond, body = threading_refs(c, refs), threading_refs(b, refs)

    def cond2(state):
        val, values = state
        return cond(values, *tree_util.tree_leaves(val))[0][0]

    def body2(state):
        val, values = state
        outs, values = body(values, *tree_util.tree_leaves(val))
        return tree_util.tree_unflatten(b.out_tree, outs), values
    val, values = while_loop(cond2, body2, (init_val, [r[...] for r in refs]))
    write_back(refs, values)
    return val


def _static_bound(x):
    """A loop bound known in Python (so ``fori_loop`` can use ``scan``)."""
    if isinstance(x, Tracer):
        return False
    if not isinstance(x, (int, np.integer, np.ndarray)) and is_staging():
        return False  # an array made while staging is a traced value in JAX
    return True


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``for i in range(lower, upper): val = body_fun(i, val)``; a ``scan``
    when the trip count is known (so reverse-mode AD works), else a
    ``while_loop``."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    ld = dtypes.canonicalize_dtype(core.aval_of(lower).dtype)
    ud = dtypes.canonicalize_dtype(core.aval_of(upper).dtype)
    if ld != ud:
        if not (np.issubdtype(ld, np.integer) and np.issubdtype(ud, np.integer)):
            raise TypeError("lower and upper arguments to fori_loop must have equal types, "
                            f"got {ld.name} and {ud.name}")
        dt = dtypes.result_type(lower, upper)
        lower, upper = lax._convert(lower, dt), lax._convert(upper, dt)
    if _static_bound(lower) and _static_bound(upper):
        try:
            lo, hi = int(lower), int(upper)
        except TypeError:
            pass
        else:
            length = max(hi - lo, 0)
            if _flags["jax_disable_jit"] and length == 0:
                return init_val

            def scanned_fun(loop_carry, _):
                i, x = loop_carry
                return (i + 1, body_fun(i, x)), None

            (_, result), _ = scan(scanned_fun, (lo, init_val), None, length=length,
                                  unroll=1 if unroll is None else unroll)
            return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")

    def while_cond(loop_carry):
        return lax.lt(loop_carry[0], loop_carry[1])

    def while_body(loop_carry):
        i, upper, x = loop_carry
        return (i + 1, upper, body_fun(i, x))

    return while_loop(while_cond, while_body, (lower, upper, init_val))[2]


# --------------------------------------------------------------------------
# scan / map


def _leading_length(xs, length):
    lengths = [x.shape[0] for x in xs]  # a scalar fails here as it does in JAX
    if length is not None:
        length = int(length)
        if any(n != length for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {lengths}.")
        return length
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    if len(set(lengths)) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in lengths)}.")
    return lengths[0]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns the
    final carry and the stacked ``y``s."""
    if not callable(f):
        raise TypeError("scan: f argument should be a callable.")
    xs_flat, xs_tree = tree_util.tree_flatten(xs)
    _hi.check_no_hi(xs_flat + tree_util.tree_leaves(init), "as a scan carry or scanned-over value")
    xs_avals = [core.aval_of(x) for x in xs_flat]
    length = _leading_length(xs_avals, length)
    if any(a.spec is not None and core.spec_parts(a)[:1] != (None,) for a in xs_avals):
        raise ValueError("0th dimension of all xs should be replicated. Got "
                         + ", ".join(str(a.sharding.spec) for a in xs_avals))
    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    elif operator.index(unroll) < 0:
        raise ValueError("`unroll` must be a `bool` or a positive `int`.")
    if _flags["jax_disable_jit"]:
        return _scan_python(f, init, xs, xs_flat, xs_tree, length, reverse)
    init_flat, init_tree = tree_util.tree_flatten(init)
    x_avals = [core.mapped_aval(length, 0, a) for a in xs_avals]  # a slice keeps its layout
    in_tree = tree_util.treedef_tuple([init_tree, xs_tree])

    hi_writes = []

    def stage(init_flat):
        avals = [core.aval_of(x) for x in init_flat]
        t, out = trace_fun(f, in_tree, avals + x_avals, "scan", (init, xs), hi_writes)
        if hi_writes:  # it writes to hijax values from outside: carry their state
            return t, None, None
        carry_tree = errs.check_scan_output(t, out, len(init_flat))
        return t, avals, carry_tree

    t, carry_avals, carry_tree = stage(init_flat)
    if hi_writes:
        return _scan_threading_hi([w[0] for w in hi_writes], f, init, xs, length, reverse,
                                  unroll)
    nc = len(init_flat)
    init_flat, changed = _promote_weak_inputs(init_flat, carry_avals, t.out_avals[:nc])
    if changed:
        t, carry_avals, carry_tree = stage(init_flat)
    errs.check_carry("scan", t, init_tree, carry_tree, carry_avals,
                     t.out_avals[:carry_tree.num_leaves])
    refs = closed_over_refs([t])
    if refs:
        return _scan_threading_refs(t, refs, tree_util.tree_unflatten(init_tree, init_flat), xs,
                                    length, reverse, unroll)
    jaxpr, consts = t.jaxpr, t.consts
    nk = len(consts)
    fwd = _forwarded(jaxpr)
    move = [f == nk + i for i, f in enumerate(fwd[:nc])]
    moved = []
    if any(move):
        jaxpr = _prune_outputs(jaxpr, [not m for m in move] + [True] * (len(fwd) - nc))
        jaxpr = _move_to_front(jaxpr, [False] * nk + move + [False] * len(xs_flat))
        init_flat, moved = _partition(move, init_flat)
        consts = moved + consts
    nk, nc2 = len(consts), len(init_flat)
    # a y that is just the x of the same step is the input itself
    ys_fwd = [f - nk - nc2 if f is not None and f >= nk + nc2 else None
              for f in _forwarded(jaxpr)[nc2:]]
    jaxpr = _prune_outputs(jaxpr, [True] * nc2 + [f is None for f in ys_fwd])
    outs = iter(scan_p.bind(*consts, *init_flat, *xs_flat, reverse=bool(reverse), length=length,
                            jaxpr=_closed(jaxpr), num_consts=nk, num_carry=nc2,
                            linear=(False,) * (nk + nc2 + len(xs_flat)), unroll=int(unroll),
                            _split_transpose=bool(_split_transpose)))
    moved = iter(moved)
    carry = [next(moved) if m else next(outs) for m in move]
    ys = [next(outs) if f is None else lax.asarray_device(xs_flat[f]) for f in ys_fwd]
    return (tree_util.tree_unflatten(init_tree, carry),
            tree_util.tree_unflatten(t.out_tree, [0] * nc + ys)[1])


def _scan_threading_refs(t, refs, init, xs, length, reverse, unroll):
    """A scan whose body closes over refs: the refs' values join the carry
    and are written back after the loop."""
    body = threading_refs(t, refs)

    def body2(state, x):
        carry, values = state
        outs, values = body(values, *tree_util.tree_leaves(carry), *tree_util.tree_leaves(x))
        carry, y = tree_util.tree_unflatten(t.out_tree, outs)
        return (carry, values), y
    (carry, values), ys = scan(body2, (init, [r[...] for r in refs]), xs, length=length,
                               reverse=reverse, unroll=unroll)
    write_back(refs, values)
    return carry, ys


def _scan_threading_hi(values, f, init, xs, length, reverse, unroll):
    """A scan whose body writes to mutable hijax values from outside: their
    state joins the carry and is written back after the loop."""
    avals = [_hi.hi_aval(v) for v in values]
    states = [_hi.read_state(core.trace_ctx.trace, v, a) for v, a in zip(values, avals)]
    qdds = [q for q, _ in states]

    def body(state, x):
        carry, lo = state
        proxies = _hi.thread_in(values, avals, qdds, [v for vs in lo for v in vs])
        carry, y = f(carry, x)
        new_qdds, lo = _hi.read_out(proxies, avals)
        if new_qdds != qdds:
            raise TypeError("scan body changed the type of a hijax value it writes to: "
                            f"{qdds} before, {new_qdds} after")
        return (carry, lo), y
    (carry, lo), ys = scan(body, (init, [lo for _, lo in states]), xs, length=length,
                           reverse=reverse, unroll=unroll)
    _hi.write_back(values, avals, qdds, lo)
    return carry, ys


class _iteration_note:
    """While a loop runs de-optimised (NaN replay), a FloatingPointError from
    its body gets a note naming the iteration it happened in."""

    __slots__ = ("kind", "i")

    def __init__(self, kind, i):
        self.kind, self.i = kind, i

    def __enter__(self):
        return self

    def __exit__(self, typ, exc, tb):
        if typ is FloatingPointError and not getattr(exc, "_xjit_iteration", False):
            exc.add_note(f"(in iteration {self.i} of the {self.kind} body)")
            exc._xjit_iteration = True
        return False


def _scan_python(f, init, xs, xs_flat, xs_tree, length, reverse):
    """Scan as a Python loop (``jax_disable_jit``)."""
    carry, ys = init, []
    for i in (reversed(range(length)) if reverse else range(length)):
        x = tree_util.tree_unflatten(xs_tree, [x[i] for x in xs_flat])
        with _iteration_note("scan", i):
            carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    if not ys:
        raise ValueError("scan with disable_jit and length 0 is not supported")
    stacked = tree_util.tree_map(  # stacked with lax, as JAX's scan does
        lambda *y: lax.concatenate([lax.expand_dims(v, (0,)) for v in y], 0), *ys)
    return carry, stacked


def map(f, xs, *, batch_size=None):
    """``f`` applied to each slice of ``xs`` along its leading axis, as a scan
    (``batch_size`` slices at a time through ``vmap`` when given)."""
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    from xjit._src.interpreters.batching import vmap
    leaves, tree = tree_util.tree_flatten(xs)
    n = leaves[0].shape[0]
    nb, rem = divmod(n, batch_size)
    main = [lax.reshape(x[:nb * batch_size] if rem else x, (nb, batch_size, *x.shape[1:]))
            for x in leaves]
    ys = scan(lambda _, x: ((), vmap(f)(tree_util.tree_unflatten(tree, x))), (), main)[1]
    ys = tree_util.tree_map(lambda y: lax.reshape(y, (nb * batch_size, *y.shape[2:])), ys)
    if rem:
        rest = vmap(f)(tree_util.tree_unflatten(tree, [x[nb * batch_size:] for x in leaves]))
        ys = tree_util.tree_map(lambda a, b: lax.concatenate([a, b], 0), ys, rest)
    return ys


# --------------------------------------------------------------------------
# Lowering

_I32 = ShapedArray((), np.int32)
_BOOL = ShapedArray((), np.bool_)


def _while_lowering(ctx, avals_in, avals_out, *args, cond_jaxpr, cond_nconsts, body_jaxpr,
                    body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    types = [ttype(a) for a in avals_in]

    pred_aval = cond_jaxpr.out_avals[0]  # batched (vmap) predicates have a shape

    def predicate(xs):
        pred, = lower_jaxpr(ctx, cond_jaxpr.jaxpr, cond_jaxpr.consts, [*xs[:nc], *xs[nc + nb:]])
        return pred

    def cond_region(*xs):
        pred = predicate(xs)
        if pred_aval.shape:
            pred = _reduce_or(ctx, pred, pred_aval)
        return [(pred, _BOOL)]

    def body_region(*xs):
        new = lower_jaxpr(ctx, body_jaxpr.jaxpr, body_jaxpr.consts, xs[nc:])
        if pred_aval.shape:
            pred = predicate(xs)
            new = [_select(ctx, pred, pred_aval, n, old, a)
                   for n, old, a in zip(new, xs[nc + nb:], avals_in[nc + nb:])]
        return [*zip(xs[:nc + nb], avals_in), *zip(new, avals_in[nc + nb:])]

    outs = ctx.op("stablehlo.while", list(args), types, types,
                  regions=[ctx.region(avals_in, cond_region), ctx.region(avals_in, body_region)])
    return outs[nc + nb:]


def _reduce_or(ctx, pred, aval):
    t = ttype(_BOOL)
    false = ctx.constant(np.bool_(False), _BOOL)
    body = ctx.region([_BOOL, _BOOL],
                      lambda a, b: [(ctx.op("stablehlo.or", [a, b], [t, t], t), _BOOL)])
    return ctx.op("stablehlo.reduce", [pred, false], [ttype(aval), t], t, regions=[body],
                  attrs=f"dimensions = {i64_array(range(aval.ndim))}")


def _select(ctx, pred, pred_aval, on_true, on_false, aval):
    """``on_true`` where the (leading-axis) predicate holds, else ``on_false``."""
    p = _physical(aval)
    mask_aval = p.update(dtype=np.dtype(bool))
    if p.shape != pred_aval.shape:
        pred = ctx.op("stablehlo.broadcast_in_dim", [pred], [ttype(pred_aval)], ttype(mask_aval),
                      attrs=f"broadcast_dimensions = {i64_array(range(pred_aval.ndim))}")
    return ctx.op("stablehlo.select", [pred, on_true, on_false],
                  [ttype(mask_aval), ttype(p), ttype(p)], ttype(p))


def _physical(aval):
    dt = aval.dtype
    return dt.physical_aval(aval) if getattr(dt, "extended", False) else aval


def _scan_lowering(ctx, avals_in, avals_out, *args, jaxpr, length, reverse, num_consts,
                   num_carry, **_):
    nk, nc = num_consts, num_carry
    consts, init, xs = args[:nk], args[nk:nk + nc], args[nk + nc:]
    x_avals = avals_in[nk + nc:]
    y_avals = avals_out[nc:]
    bufs = []
    for a in y_avals:
        p = _physical(a)
        z = ctx.constant(np.zeros((), p.dtype), p.update(shape=()))
        bufs.append(ctx.op("stablehlo.broadcast_in_dim", [z], [ttype(p.update(shape=()))],
                           ttype(p), attrs="broadcast_dimensions = array<i64>"))
    if length == 0:
        return [*init, *bufs]
    state_avals = [_I32, *avals_in, *y_avals]
    types = [ttype(a) for a in state_avals]

    def cond_region(i, *_):
        n = ctx.constant(np.int32(length), _I32)
        attrs = ("comparison_direction = #stablehlo<comparison_direction LT>, "
                 "compare_type = #stablehlo<comparison_type SIGNED>")
        t = ttype(_I32)
        return [(ctx.op("stablehlo.compare", [i, n], [t, t], ttype(_BOOL), attrs=attrs), _BOOL)]

    def body_region(i, *state):
        t = ttype(_I32)
        ks, carry, xs_, ys = (state[:nk], state[nk:nk + nc], state[nk + nc:nk + nc + len(xs)],
                              state[nk + nc + len(xs):])
        zero = ctx.constant(np.int32(0), _I32)
        idx = i
        if reverse:
            last = ctx.constant(np.int32(length - 1), _I32)
            idx = ctx.op("stablehlo.subtract", [last, i], [t, t], t)
        elems = []
        for x, a in zip(xs_, x_avals):
            p = _physical(a)
            zeros = [zero] * (p.ndim - 1)
            one = p.update(shape=(1, *p.shape[1:]))
            s = ctx.op("stablehlo.dynamic_slice", [x, idx, *zeros], [ttype(p)] + [t] * p.ndim,
                       ttype(one), attrs=f"slice_sizes = {i64_array(one.shape)}")
            elems.append(ctx.op("stablehlo.reshape", [s], [ttype(one)],
                                ttype(p.update(shape=p.shape[1:]))))
        outs = lower_jaxpr(ctx, jaxpr.jaxpr, jaxpr.consts, [*ks, *carry, *elems])
        new_ys = []
        for buf, y, a in zip(ys, outs[nc:], y_avals):
            p = _physical(a)
            one = p.update(shape=(1, *p.shape[1:]))
            y1 = ctx.op("stablehlo.reshape", [y], [ttype(p.update(shape=p.shape[1:]))], ttype(one))
            zeros = [zero] * (p.ndim - 1)
            new_ys.append(ctx.op("stablehlo.dynamic_update_slice", [buf, y1, idx, *zeros],
                                 [ttype(p), ttype(one)] + [t] * p.ndim, ttype(p)))
        one = ctx.constant(np.int32(1), _I32)
        i1 = ctx.op("stablehlo.add", [i, one], [t, t], t)
        return [(i1, _I32), *zip(ks, avals_in), *zip(outs[:nc], avals_in[nk:nk + nc]),
                *zip(xs_, x_avals), *zip(new_ys, y_avals)]

    start = ctx.constant(np.int32(0), _I32)
    outs = ctx.op("stablehlo.while", [start, *args, *bufs], types, types,
                  regions=[ctx.region(state_avals, cond_region),
                           ctx.region(state_avals, body_region)])
    return [*outs[1 + nk:1 + nk + nc], *outs[1 + len(args):]]


lowering.rules[while_p] = _while_lowering
lowering.rules[scan_p] = _scan_lowering


# --------------------------------------------------------------------------
# while


def _while_jvp(primals, tangents, *, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cconsts, bconsts, init = primals[:nc], primals[nc:nc + nb], primals[nc + nb:]
    bconst_nz = [type(t) is not Zero for t in tangents[nc:nc + nb]]
    n = len(init)

    def step(carry_nz):
        return jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, [False] * n)[1]

    carry_nz = _carry_fixpoint(step, [type(t) is not Zero for t in tangents[nc + nb:]])
    body, _ = jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, carry_nz)
    nbt, nct = sum(bconst_nz), sum(carry_nz)
    # jvp order: bconsts, carry, bconst tangents, carry tangents -> consts first
    order = [*range(nb), *range(nb + n, nb + n + nbt), *range(nb, nb + n),
             *range(nb + n + nbt, nb + n + nbt + nct)]
    body = _permute_inputs(body, order)
    c_avals = cond_jaxpr.in_avals
    t_avals = [ad.tangent_aval(a) for a, z in zip(body_jaxpr.in_avals[nb:], carry_nz) if z]
    cond = _trace_closed(lambda *xs: _eval(cond_jaxpr, *xs[:len(c_avals)]), c_avals + t_avals)
    init_t = [ad.instantiate_zeros(t) for t, z in zip(tangents[nc + nb:], carry_nz) if z]
    outs = while_p.bind(*cconsts, *bconsts, *_nonzero(tangents[nc:nc + nb]), *init, *init_t,
                        cond_jaxpr=cond, cond_nconsts=nc, body_jaxpr=body,
                        body_nconsts=nb + nbt)
    touts = iter(outs[n:])
    return outs[:n], [next(touts) if z else Zero(ad.tangent_aval(a))
                      for a, z in zip(body_jaxpr.out_avals, carry_nz)]


def _while_transpose(cts, *args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
                     "using fori_loop with static start/stop.")


def _while_partial_eval(trace, args, params):
    """Known carries come from a loop over their part of the body alone, now;
    the unknown ones from the whole loop, recorded (it recomputes the known
    part, as JAX's rule does). Under ``linearize`` the primal outputs are thus
    values and the tangents a recorded loop."""
    cond, body = params["cond_jaxpr"], params["body_jaxpr"]
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    uk = [trace.is_unknown(x) for x in args]
    cc_uk, bc_uk = uk[:nc], uk[nc:nc + nb]
    carry_uk = _carry_fixpoint(
        lambda c_uk: ad.partial_eval_jaxpr(body, bc_uk + c_uk, c_uk)[2], uk[nc + nb:])
    known_cond, _, pred_uk, _ = ad.partial_eval_jaxpr(cond, cc_uk + carry_uk)
    if pred_uk[0] or all(carry_uk):
        return trace.record(while_p, args, params)  # the trip count is unknown
    known_body = ad.partial_eval_jaxpr(body, bc_uk + carry_uk, carry_uk)[0]
    n_kc = carry_uk.count(False)
    kbody = _trace_closed(lambda *xs: _eval(known_body, *xs)[:n_kc], known_body.in_avals)
    kcond = _trace_closed(lambda *xs: _eval(known_cond, *xs)[:1], known_cond.in_avals)
    known = lambda xs, flags: [x for x, u in zip(xs, flags) if not u]
    cconsts, bconsts, init = args[:nc], args[nc:nc + nb], args[nc + nb:]
    kc, kb = known(cconsts, cc_uk), known(bconsts, bc_uk)
    with core.set_current_trace(trace.parent):
        kouts = while_p.bind(*kc, *kb, *known(init, carry_uk), cond_jaxpr=kcond,
                             cond_nconsts=len(kc), body_jaxpr=kbody, body_nconsts=len(kb))
    uouts = trace.record(while_p, args, params)
    kit = iter(kouts)
    return [u if is_uk else next(kit) for u, is_uk in zip(uouts, carry_uk)]


def _while_batch(axis_data, args, dims, *, cond_jaxpr, cond_nconsts, body_jaxpr,
                 body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    size = axis_data.size
    bat = [d is not batching.not_mapped for d in dims]
    cc_b, bc_b, carry_b = bat[:nc], bat[nc:nc + nb], bat[nc + nb:]

    def step(carry_b):
        return batching.batch_jaxpr(body_jaxpr, axis_data, bc_b + carry_b, False)[1]

    carry_b = _carry_fixpoint(step, carry_b)
    pred_b = batching.batch_jaxpr(cond_jaxpr, axis_data, cc_b + carry_b, False)[1][0]
    if pred_b:  # every carry follows the batched predicate
        carry_b = [True] * len(carry_b)
    args = [x if not b else batching.moveaxis(x, d, 0) for x, d, b in zip(args, dims, bat)]
    cconsts, bconsts, init = args[:nc], args[nc:nc + nb], args[nc + nb:]
    init = [batching.broadcast(x, size, 0) if b and not was else x
            for x, b, was in zip(init, carry_b, bat[nc + nb:])]
    cond_b, _ = batching.batch_jaxpr(cond_jaxpr, axis_data, cc_b + carry_b, pred_b)
    body_b, _ = batching.batch_jaxpr(body_jaxpr, axis_data, bc_b + carry_b, carry_b)
    # a batched predicate stays batched: the lowering loops while any example's
    # holds and leaves the finished examples' carries as they are
    outs = while_p.bind(*cconsts, *bconsts, *init, cond_jaxpr=cond_b, cond_nconsts=nc,
                        body_jaxpr=body_b, body_nconsts=nb)
    return outs, [0 if b else batching.not_mapped for b in carry_b]


# --------------------------------------------------------------------------
# scan


def _scan_split(args, num_consts, num_carry):
    return args[:num_consts], args[num_consts:num_consts + num_carry], args[num_consts + num_carry:]


def _scan_params(params, **kw):
    p = dict(params)
    p.update(kw)
    p["linear"] = (False,) * len(p["jaxpr"].in_avals)
    return p


def _scan_jvp(primals, tangents, **params):
    jaxpr, nk, nc = params["jaxpr"], params["num_consts"], params["num_carry"]
    consts, init, xs = _scan_split(primals, nk, nc)
    nz = [type(t) is not Zero for t in tangents]
    k_nz, _, x_nz = _scan_split(nz, nk, nc)
    ny = len(jaxpr.out_avals) - nc

    def step(carry_nz):
        return jvp_jaxpr(jaxpr, k_nz + carry_nz + x_nz, [False] * (nc + ny))[1][:nc]

    carry_nz = _carry_fixpoint(step, nz[nk:nk + nc])
    body, out_nz = jvp_jaxpr(jaxpr, k_nz + carry_nz + x_nz, carry_nz + [False] * ny)
    n = len(primals)
    nkt, nct, nxt = sum(k_nz), sum(carry_nz), sum(x_nz)
    t0 = n
    order = [*range(nk), *range(t0, t0 + nkt),
             *range(nk, nk + nc), *range(t0 + nkt, t0 + nkt + nct),
             *range(nk + nc, n), *range(t0 + nkt + nct, t0 + nkt + nct + nxt)]
    body = _permute_inputs(body, order)
    # outputs: carry, ys, carry tangents, ys tangents -> carry, carry tangents, ys, ys tangents
    y_nz = out_nz[nc:]
    nyt = sum(y_nz)
    j = body.jaxpr
    outv = j.outvars
    n_out = nc + ny
    outv = (outv[:nc] + outv[n_out:n_out + nct]
            + outv[nc:n_out] + outv[n_out + nct:n_out + nct + nyt])
    body = core.ClosedJaxpr(core.Jaxpr(j.constvars, j.invars, outv, j.eqns, j.debug_info),
                            body.consts)
    t_consts, t_init, t_xs = _scan_split(tangents, nk, nc)
    t_init = [ad.instantiate_zeros(t) for t, z in zip(t_init, carry_nz) if z]
    outs = scan_p.bind(*consts, *_nonzero(t_consts), *init, *t_init, *xs, *_nonzero(t_xs),
                       **_scan_params(params, jaxpr=body, num_consts=nk + nkt,
                                      num_carry=nc + nct))
    carry, carry_t = outs[:nc], iter(outs[nc:nc + nct])
    ys, ys_t = outs[nc + nct:nc + nct + ny], iter(outs[nc + nct + ny:])
    c_avals = jaxpr.out_avals
    touts = ([next(carry_t) if z else Zero(ad.tangent_aval(a)) for a, z in zip(c_avals, carry_nz)]
             + [next(ys_t) if z else Zero(ad.tangent_aval(_stacked(a, params["length"])))
                for a, z in zip(c_avals[nc:], y_nz)])
    return list(carry) + list(ys), touts


def _scan_partial_eval(trace, args, params):
    jaxpr, nk, nc = params["jaxpr"], params["num_consts"], params["num_carry"]
    uk = [trace.is_unknown(x) for x in args]
    k_uk, _, x_uk = _scan_split(uk, nk, nc)
    ny = len(jaxpr.out_avals) - nc

    def step(carry_uk):
        return ad.partial_eval_jaxpr(jaxpr, k_uk + carry_uk + x_uk, carry_uk + [False] * ny)[2][:nc]

    carry_uk = _carry_fixpoint(step, uk[nk:nk + nc])
    unknowns = k_uk + carry_uk + x_uk
    known, unknown, out_uk, num_res = ad.partial_eval_jaxpr(jaxpr, unknowns,
                                                            carry_uk + [False] * ny)
    consts, init, xs = _scan_split(args, nk, nc)
    kk = [x for x, u in zip(consts, k_uk) if not u]
    kc = [x for x, u in zip(init, carry_uk) if not u]
    kx = [x for x, u in zip(xs, x_uk) if not u]
    with core.set_current_trace(trace.parent):
        kouts = scan_p.bind(*kk, *kc, *kx, **_scan_params(
            params, jaxpr=known, num_consts=len(kk), num_carry=len(kc)))
    n_known_out = len(kouts) - num_res
    residuals = kouts[n_known_out:]
    uk_consts = [x for x, u in zip(consts, k_uk) if u]
    uk_carry = [x for x, u in zip(init, carry_uk) if u]
    uk_xs = [x for x, u in zip(xs, x_uk) if u]
    # unknown body inputs: residuals, consts, carry, xs -> consts, carry, residuals (as xs), xs
    r, a, b = num_res, len(uk_consts), len(uk_carry)
    order = [*range(r, r + a + b), *range(r), *range(r + a + b, len(unknown.in_avals))]
    body = _permute_inputs(unknown, order)
    uouts = trace.record(scan_p, [*uk_consts, *uk_carry, *residuals, *uk_xs], _scan_params(
        params, jaxpr=body, num_consts=a, num_carry=b))
    kit, uit = iter(kouts[:n_known_out]), iter(uouts)
    return [next(uit) if u else next(kit) for u in out_uk]


def _scan_transpose(cts, *args, **params):
    jaxpr, nk, nc = params["jaxpr"], params["num_consts"], params["num_carry"]
    consts, init, xs = _scan_split(list(args), nk, nc)
    k_ud = [is_undefined_primal(x) for x in consts]
    x_ud = [is_undefined_primal(x) for x in xs]
    # the body is linear in the carry: a known initial carry (an instantiated
    # zero tangent) is transposed like the others, its cotangent dropped
    c_ud = [is_undefined_primal(x) for x in init]
    ct_carry = [ad.instantiate_zeros(c) for c in cts[:nc]]
    ct_ys = cts[nc:]
    ys_nz = [type(c) is not Zero for c in ct_ys]
    undefined = k_ud + [True] * nc + x_ud
    tbody = transpose_jaxpr(jaxpr, undefined, [True] * nc + ys_nz)
    def_consts = [x for x, u in zip(consts, k_ud) if not u]
    def_xs = [x for x, u in zip(xs, x_ud) if not u]
    uk_avals = [x.aval for x, u in zip(consts, k_ud) if u]
    n_dk, n_uk, n_dx = len(def_consts), len(uk_avals), len(def_xs)

    def body(*v):
        dk, acc, cc = v[:n_dk], v[n_dk:n_dk + n_uk], v[n_dk + n_uk:n_dk + n_uk + nc]
        dx, cy = v[n_dk + n_uk + nc:n_dk + n_uk + nc + n_dx], v[n_dk + n_uk + nc + n_dx:]
        outs = _eval(tbody, *dk, *dx, *cc, *cy)
        k_ct, c_ct, x_ct = outs[:n_uk], outs[n_uk:n_uk + nc], outs[n_uk + nc:]
        return [ad.add_tangents(a, c) for a, c in zip(acc, k_ct)] + list(c_ct) + list(x_ct)

    x_avals = [_unstacked(x) for x in def_xs]
    y_avals = [_unstacked(c) for c in _nonzero(ct_ys)]
    carry_avals = [core.aval_of(c) for c in ct_carry]
    tclosed = _trace_closed(body, [core.aval_of(x) for x in def_consts] + uk_avals + carry_avals
                            + x_avals + y_avals)
    zeros = [ad.zeros_like_aval(a) for a in uk_avals]
    outs = scan_p.bind(*def_consts, *zeros, *ct_carry, *def_xs, *_nonzero(ct_ys), **_scan_params(
        params, jaxpr=tclosed, num_consts=n_dk, num_carry=n_uk + nc,
        reverse=not params["reverse"]))
    k_ct, c_ct, x_ct = iter(outs[:n_uk]), outs[n_uk:n_uk + nc], iter(outs[n_uk + nc:])
    return ([next(k_ct) if u else None for u in k_ud]
            + [c if u else None for c, u in zip(c_ct, c_ud)]
            + [next(x_ct) if u else None for u in x_ud])


def _stacked(aval, length):
    """The stacked aval of ``length`` values of ``aval``: a new unsplit leading axis."""
    return core.unmapped_aval(length, 0, aval)


def _unstacked(x):
    a = core.aval_of(x)
    return a.update(shape=a.shape[1:])


def _scan_batch(axis_data, args, dims, **params):
    jaxpr, nk, nc = params["jaxpr"], params["num_consts"], params["num_carry"]
    size = axis_data.size
    bat = [d is not batching.not_mapped for d in dims]
    k_b, _, x_b = _scan_split(bat, nk, nc)

    def step(carry_b):
        return batching.batch_jaxpr(jaxpr, axis_data, k_b + carry_b + x_b, False)[1][:nc]

    carry_b = _carry_fixpoint(step, bat[nk:nk + nc])
    ny = len(jaxpr.out_avals) - nc
    body, out_b = batching.batch_jaxpr(jaxpr, axis_data, k_b + carry_b + x_b,
                                       carry_b + [False] * ny)
    consts, init, xs = _scan_split(list(args), nk, nc)
    cdims, idims, xdims = _scan_split(list(dims), nk, nc)
    consts = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
              for x, d in zip(consts, cdims)]
    init = [batching.bdim_at_front(x, d, size) if b else x
            for x, d, b in zip(init, idims, carry_b)]
    xs = [x if d is batching.not_mapped else batching.moveaxis(x, d, 1)
          for x, d in zip(xs, xdims)]
    outs = scan_p.bind(*consts, *init, *xs, **_scan_params(params, jaxpr=body))
    out_dims = ([0 if b else batching.not_mapped for b in out_b[:nc]]
                + [1 if b else batching.not_mapped for b in out_b[nc:]])
    return outs, out_dims


ad.jvp_rules[while_p] = _while_jvp
ad.transpose_rules[while_p] = _while_transpose
ad.partial_eval_rules[while_p] = _while_partial_eval
ad.jvp_rules[scan_p] = _scan_jvp
ad.partial_eval_rules[scan_p] = _scan_partial_eval
ad.transpose_rules[scan_p] = _scan_transpose
batching.axis_batch_rules[while_p] = _while_batch
batching.axis_batch_rules[scan_p] = _scan_batch
