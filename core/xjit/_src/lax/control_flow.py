"""Structured control flow: ``cond``/``switch``, ``while_loop``/``fori_loop``,
``scan``/``map``.

Each is one primitive whose parameters hold the traced bodies as closed
jaxprs, so every transformation sees the whole loop or branch at once:

    cond[branches=(b0, b1, ...)]       index, *operands
    while[cond_jaxpr, cond_nconsts,     *cond_consts, *body_consts, *carry
          body_jaxpr, body_nconsts]
    scan[jaxpr, length, reverse, ...]  *consts, *carry, *xs

Values the user's functions close over become leading (const) operands, so
the stored jaxprs have no constants of their own. As in JAX, outputs that
merely forward an input are taken out of the primitive (the input is used
directly), and loop carries that the body passes through unchanged become
constants. Lowering lives in ``control_flow_lowering.py``; the jvp, transpose
and batching rules in ``control_flow_rules.py``.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes, tree_util
from ..config import config
from ..core import Tracer
from xjit._src.interpreters.partial_eval import DebugInfo, JaxprTrace, arg_names_of, trace_to_jaxpr
from xjit._src.lax import lax
from . import control_flow_errors as errs

_flags = config._values

cond_p = core.Primitive("cond")
cond_p.multiple_results = True
while_p = core.Primitive("while")
while_p.multiple_results = True
scan_p = core.Primitive("scan")
scan_p.multiple_results = True

core.abstract_eval_rules[cond_p] = lambda index, *ops, branches: list(branches[0].out_avals)
core.abstract_eval_rules[while_p] = lambda *args, body_jaxpr, **_: list(body_jaxpr.out_avals)


def _scan_abstract_eval(*args, jaxpr, length, num_carry, **_):
    outs = jaxpr.out_avals
    return list(outs[:num_carry]) + [a.update(shape=(length, *a.shape)) for a in outs[num_carry:]]


core.abstract_eval_rules[scan_p] = _scan_abstract_eval
core.pp_param_rules[cond_p] = lambda p: {"branches": p["branches"]}
core.pp_param_rules[while_p] = lambda p: {k: p[k] for k in (
    "body_jaxpr", "body_nconsts", "cond_jaxpr", "cond_nconsts")}
core.pp_param_rules[scan_p] = lambda p: {k: p[k] for k in (
    "jaxpr", "length", "num_carry", "num_consts", "reverse", "unroll")}


# --------------------------------------------------------------------------
# Staging the user's functions


class Traced:
    """A user function staged out: its jaxpr (constants as leading invars),
    the constant values, and the output pytree structure."""

    __slots__ = ("jaxpr", "consts", "out_tree", "debug")

    def __init__(self, jaxpr, consts, out_tree, debug):
        self.jaxpr, self.consts, self.out_tree, self.debug = jaxpr, consts, out_tree, debug

    out_avals = property(lambda self: [v.aval for v in self.jaxpr.outvars])


def trace_fun(fun, in_tree, in_avals, traced_for, args_for_names=None):
    """Stage ``fun(*unflatten(in_tree, args))`` into a jaxpr."""
    names = arg_names_of(fun, args_for_names, {}) if args_for_names is not None else None
    debug = DebugInfo(fun, traced_for, names)
    store = []

    def flat_fun(*args):
        out = fun(*tree_util.tree_unflatten(in_tree, args))
        leaves, tree = tree_util.tree_flatten(out)
        store.append((out, tree))
        return leaves

    jaxpr, consts = trace_to_jaxpr(flat_fun, in_avals, debug)
    jaxpr = core.Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns, debug)
    return Traced(jaxpr, list(consts), store[0][1], debug), store[0][0]


def _closed(jaxpr):
    return core.ClosedJaxpr(jaxpr, [])


def _join_consts(traced):
    """Give every staged function the same leading const invars: the union of
    their constants, in order of first appearance."""
    all_consts, index = [], {}
    for t in traced:
        for c in t.consts:
            if id(c) not in index:
                index[id(c)] = len(all_consts)
                all_consts.append(c)
    out = []
    for t in traced:
        n = len(t.consts)
        mine = {index[id(c)]: v for c, v in zip(t.consts, t.jaxpr.invars[:n])}
        cvars = [mine.get(i) or core.Var(core.aval_of(c)) for i, c in enumerate(all_consts)]
        j = t.jaxpr
        out.append(core.Jaxpr([], cvars + j.invars[n:], j.outvars, j.eqns, j.debug_info))
    return out, all_consts


def _forwarded(jaxpr):
    """For each output, the index of the invar it merely forwards, or None."""
    pos = {v: i for i, v in enumerate(jaxpr.invars)}
    return [pos.get(v) if type(v) is core.Var else None for v in jaxpr.outvars]


def _prune_outputs(jaxpr, keep):
    return core.Jaxpr([], jaxpr.invars, [v for v, k in zip(jaxpr.outvars, keep) if k],
                      jaxpr.eqns, jaxpr.debug_info)


def _dce(jaxpr, keep_invars):
    """Drop equations whose results are unused, and the unused invars among
    those not marked ``keep_invars``. Returns (jaxpr, kept invar flags)."""
    live = {v for v in jaxpr.outvars if type(v) is core.Var}
    eqns = []
    for e in reversed(jaxpr.eqns):
        if any(v in live for v in e.outvars):
            eqns.append(e)
            live.update(v for v in e.invars if type(v) is core.Var)
    kept = [k or v in live for v, k in zip(jaxpr.invars, keep_invars)]
    invars = [v for v, k in zip(jaxpr.invars, kept) if k]
    return core.Jaxpr([], invars, jaxpr.outvars, eqns[::-1], jaxpr.debug_info), kept


def _move_to_front(jaxpr, flags):
    front = [v for v, f in zip(jaxpr.invars, flags) if f]
    rest = [v for v, f in zip(jaxpr.invars, flags) if not f]
    return core.Jaxpr([], front + rest, jaxpr.outvars, jaxpr.eqns, jaxpr.debug_info)


def _partition(flags, xs):
    return [x for x, f in zip(xs, flags) if not f], [x for x, f in zip(xs, flags) if f]


def _promote_weak_inputs(vals, in_avals, out_avals):
    """A weakly typed initial carry takes the dtype the body gives it."""
    changed = False
    vals = list(vals)
    for i, (a, b) in enumerate(zip(in_avals, out_avals)):
        if a.weak_type and a.dtype != b.dtype:
            vals[i] = lax._convert(vals[i], dtypes.result_type(vals[i], b.dtype), False)
            changed = True
    return vals, changed


def _inside_staging():
    t = core.trace_ctx.trace
    while t is not None:
        if isinstance(t, JaxprTrace):
            return True
        t = t.parent
    return False


# --------------------------------------------------------------------------
# cond / switch


def cond(pred, true_fun, false_fun, *operands, operand=errs.NO_OPERAND):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``,
    staged as one ``cond`` primitive (both branches traced)."""
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    if operand is not errs.NO_OPERAND:
        if operands:
            raise TypeError("if `operand` is passed, no other positional operands may be passed")
        operands = (operand,)
    try:
        aval = core.aval_of(pred)
    except TypeError:
        raise TypeError(f"Pred must be a scalar, got {pred} of type {type(pred)}") from None
    if aval.shape:
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {aval.shape}.")
    if aval.dtype != np.bool_:
        if not np.issubdtype(aval.dtype, np.integer) and not np.issubdtype(aval.dtype, np.floating):
            raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype.name}.")
        pred = lax.ne(pred, lax._convert(0, aval.dtype, aval.weak_type))
    if _flags["jax_disable_jit"] and not isinstance(pred, Tracer):
        return (true_fun if bool(pred) else false_fun)(*operands)
    index = lax._convert(pred, np.int32, False)
    return _bind_cond(index, [true_fun, false_fun], operands, "cond")


def switch(index, branches, *operands, operand=errs.NO_OPERAND):
    """``branches[clamp(0, index, len(branches) - 1)](*operands)``."""
    branches = list(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if operand is not errs.NO_OPERAND:
        operands = (*operands, operand)
    aval = core.aval_of(index)
    if aval.shape:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {aval.shape}.")
    if not (np.issubdtype(aval.dtype, np.integer) or aval.dtype == np.bool_):
        raise TypeError(f"Index type must be an integer, got {index} as {aval.dtype.name}")
    if len(branches) == 1:
        return branches[0](*operands)
    index = lax._convert(index, np.int32, False)
    index = lax.clamp(np.int32(0), index, np.int32(len(branches) - 1))
    if _flags["jax_disable_jit"] and not isinstance(index, Tracer):
        return branches[int(index)](*operands)
    return _bind_cond(index, branches, operands, "switch")


def _bind_cond(index, funs, operands, kind):
    """Trace every branch (in the order given), check they agree, and bind
    ``cond`` with the branches in index order (false first for ``cond``)."""
    ops, in_tree = tree_util.tree_flatten(operands)
    avals = [core.aval_of(x) for x in ops]
    traced = [trace_fun(f, in_tree, avals, kind)[0] for f in funs]
    errs.check_branches(kind, funs, traced)
    jaxprs, consts = _join_consts(traced)
    if kind == "cond":
        jaxprs = jaxprs[::-1]
    args = consts + list(ops)
    fwd = [_forwarded(j) for j in jaxprs]
    same = [f[0] if all(g[i] == f[0] for g in fwd) else None for i, f in enumerate(zip(*fwd))]
    keep = [s is None for s in same]
    branches = tuple(_closed(_prune_outputs(j, keep)) for j in jaxprs)
    outs = iter(cond_p.bind(index, *args, branches=branches))
    flat = [next(outs) if s is None else lax.asarray_device(args[s]) for s in same]
    return tree_util.tree_unflatten(traced[0].out_tree, flat)


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


def _static_bound(x):
    """A loop bound known in Python (so ``fori_loop`` can use ``scan``)."""
    if isinstance(x, Tracer):
        return False
    if not isinstance(x, (int, np.integer, np.ndarray)) and _inside_staging():
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
    length = _leading_length([core.aval_of(x) for x in xs_flat], length)
    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    elif operator.index(unroll) < 0:
        raise ValueError("`unroll` must be a `bool` or a positive `int`.")
    if _flags["jax_disable_jit"]:
        return _scan_python(f, init, xs, xs_flat, xs_tree, length, reverse)
    init_flat, init_tree = tree_util.tree_flatten(init)
    x_avals = [core.aval_of(x).update(shape=core.aval_of(x).shape[1:]) for x in xs_flat]
    in_tree = tree_util.treedef_tuple([init_tree, xs_tree])

    def stage(init_flat):
        avals = [core.aval_of(x) for x in init_flat]
        t, out = trace_fun(f, in_tree, avals + x_avals, "scan", (init, xs))
        carry_tree = errs.check_scan_output(t, out, len(init_flat))
        return t, avals, carry_tree

    t, carry_avals, carry_tree = stage(init_flat)
    nc = len(init_flat)
    init_flat, changed = _promote_weak_inputs(init_flat, carry_avals, t.out_avals[:nc])
    if changed:
        t, carry_avals, carry_tree = stage(init_flat)
    errs.check_carry("scan", t, init_tree, carry_tree, carry_avals,
                     t.out_avals[:carry_tree.num_leaves])
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
    from ..numpy.shape_ops import stack
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
    stacked = tree_util.tree_map(lambda *y: stack(y), *ys)
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
        from ..numpy.shape_ops import concatenate
        ys = tree_util.tree_map(lambda a, b: concatenate([a, b]), ys, rest)
    return ys


from . import control_flow_lowering, control_flow_rules  # noqa: E402,F401  (register rules)
