"""Differentiation and batching of ``cond``, ``while`` and ``scan``.

Each rule transforms the sub-jaxprs and binds the same primitive again:

* JVP: bodies take ``(primals, nonzero tangents)``; loop carries whose
  tangent may become nonzero are found by iterating to a fixed point.
* Partial evaluation (linearize): ``cond`` and ``scan`` split into a known
  primitive computed now, which also returns the residuals (every branch
  returns every branch's residuals; a scan stacks them per iteration), and
  an unknown one recorded for the backward pass.
* Transpose: ``cond`` transposes each branch; ``scan`` runs the transposed
  body in the opposite direction, accumulating cotangents of its constants
  in the carry. ``while`` has no transpose (JAX's error).
* Batching: a batched ``cond`` index evaluates every branch and selects; a
  batched ``while`` predicate keeps iterating while any example's holds,
  freezing the finished examples' carries (in the lowering, as JAX does).
"""
from __future__ import annotations

import numpy as np

from xjit._src.interpreters import ad, batching
from xjit._src import core
from xjit._src.interpreters.ad import Zero, is_undefined_primal
from ..ad_jit import transpose_jaxpr
from xjit._src.interpreters.partial_eval import close_jaxpr, trace_to_jaxpr
from xjit._src.lax import lax
from .control_flow import cond_p, scan_p, while_p

# --------------------------------------------------------------------------
# Helpers on closed jaxprs


def _trace_closed(fun, avals, debug_info=None):
    with core.set_current_trace(core.eval_trace):
        jaxpr, consts = trace_to_jaxpr(fun, avals, debug_info)
    closed, tracer_consts = close_jaxpr(jaxpr, consts)
    assert not tracer_consts
    return closed


def _eval(closed, *args):
    return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _permute_inputs(closed, order):
    """``closed`` taking its inputs in the order ``[invars[i] for i in order]``."""
    j = closed.jaxpr
    return core.ClosedJaxpr(core.Jaxpr(j.constvars, [j.invars[i] for i in order], j.outvars,
                                       j.eqns, j.debug_info), closed.consts)


def jvp_jaxpr(closed, nonzeros, instantiate):
    """JVP of ``closed``: takes (primals, tangents of the ``nonzeros`` inputs),
    returns (outputs, tangents of the nonzero outputs). ``instantiate[i]``
    makes output i's tangent nonzero. Returns ``(jvp_closed, out_nonzeros)``."""
    n = len(closed.in_avals)
    t_avals = [ad.tangent_aval(a) for a, nz in zip(closed.in_avals, nonzeros) if nz]
    out_nz = []

    def fun(*args):
        ts = iter(args[n:])
        tangents = [next(ts) if nz else Zero(ad.tangent_aval(a))
                    for a, nz in zip(closed.in_avals, nonzeros)]
        outs, touts = ad.jvp_flat(lambda *a: _eval(closed, *a), args[:n], tangents)
        touts = [ad.instantiate_zeros(t) if inst and type(t) is Zero else t
                 for t, inst in zip(touts, instantiate)]
        out_nz[:] = [type(t) is not Zero for t in touts]
        return list(outs) + [t for t in touts if type(t) is not Zero]

    jvp = _trace_closed(fun, list(closed.in_avals) + t_avals, closed.jaxpr.debug_info)
    return jvp, out_nz


def _nonzero(ts):
    return [t for t in ts if type(t) is not Zero]


def _carry_fixpoint(step, carry_nz):
    """Grow the set of carries with property ``nz`` until the body preserves it."""
    while True:
        out = step(carry_nz)
        new = [a or b for a, b in zip(carry_nz, out)]
        if new == carry_nz:
            return carry_nz
        carry_nz = new


# --------------------------------------------------------------------------
# cond


def _cond_jvp(primals, tangents, *, branches):
    index, ops = primals[0], primals[1:]
    nz = [type(t) is not Zero for t in tangents[1:]]
    out_nz = [False] * len(branches[0].out_avals)
    for br in branches:
        out_nz = [a or b for a, b in zip(out_nz, jvp_jaxpr(br, nz, [False] * len(out_nz))[1])]
    jvps = tuple(jvp_jaxpr(br, nz, out_nz)[0] for br in branches)
    outs = cond_p.bind(index, *ops, *_nonzero(tangents[1:]), branches=jvps)
    n = len(out_nz)
    touts = iter(outs[n:])
    return outs[:n], [next(touts) if z else Zero(ad.tangent_aval(a))
                      for a, z in zip(branches[0].out_avals, out_nz)]


def _cond_partial_eval(trace, args, params):
    branches = params["branches"]
    index, ops = args[0], args[1:]
    if trace.is_unknown(index):
        return trace.record(cond_p, args, params)
    unknowns = [trace.is_unknown(x) for x in ops]
    n_out = len(branches[0].out_avals)
    out_uk = [False] * n_out
    for br in branches:
        out_uk = [a or b for a, b in zip(out_uk, ad.partial_eval_jaxpr(br, unknowns)[2])]
    splits = [ad.partial_eval_jaxpr(br, unknowns, out_uk) for br in branches]
    res_avals = [k.out_avals[len(k.out_avals) - r:] for k, _, _, r in splits]
    all_res = [a for avals in res_avals for a in avals]
    n_known = n_out - sum(out_uk)
    known_avals = [a for a, u in zip(branches[0].in_avals, unknowns) if not u]

    def known_branch(b):
        k, _, _, r = splits[b]
        before = sum(len(x) for x in res_avals[:b])

        def fun(*kargs):
            outs = _eval(k, *kargs)
            zeros = [ad.zeros_like_aval(a) for a in all_res]
            zeros[before:before + r] = outs[n_known:]
            return list(outs[:n_known]) + zeros
        return _trace_closed(fun, known_avals)

    def unknown_branch(b):
        _, u, _, r = splits[b]
        before = sum(len(x) for x in res_avals[:b])
        u_avals = [a for a, uk in zip(branches[0].in_avals, unknowns) if uk]
        return _trace_closed(lambda *xs: _eval(u, *xs[before:before + r], *xs[len(all_res):]),
                             all_res + u_avals)

    known_args = [x for x, u in zip(ops, unknowns) if not u]
    with core.set_current_trace(trace.parent):
        kouts = cond_p.bind(index, *known_args,
                            branches=tuple(known_branch(b) for b in range(len(branches))))
    residuals = kouts[n_known:]
    uargs = [index, *residuals, *[x for x, u in zip(ops, unknowns) if u]]
    uouts = trace.record(cond_p, uargs, {"branches": tuple(
        unknown_branch(b) for b in range(len(branches)))})
    kit, uit = iter(kouts[:n_known]), iter(uouts)
    return [next(uit) if u else next(kit) for u in out_uk]


def _cond_transpose(cts, index, *ops, branches):
    undefined = [is_undefined_primal(x) for x in ops]
    ct_nz = [type(c) is not Zero for c in cts]
    if not any(ct_nz):
        return [None] + [Zero(x.aval) if u else None for x, u in zip(ops, undefined)]
    tbranches = tuple(transpose_jaxpr(br, undefined, ct_nz) for br in branches)
    defined = [x for x, u in zip(ops, undefined) if not u]
    outs = iter(cond_p.bind(index, *defined, *_nonzero(cts), branches=tbranches))
    return [None] + [next(outs) if u else None for u in undefined]


def _cond_batch(axis_data, args, dims, *, branches):
    index, ops = args[0], args[1:]
    op_dims = dims[1:]
    size = axis_data.size
    if dims[0] is not batching.not_mapped:
        # every branch runs on every example, its inputs masked by
        # stop_gradient where it is not taken; the index picks per example
        from ..ad_api import stop_gradient
        index = batching.bdim_at_front(index, dims[0], size)
        ops = [batching.bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
        outs = []
        for i, br in enumerate(branches):
            taken = lax.eq(index, np.int32(i))
            masked = [lax.select_n(_bcast(taken, core.aval_of(x).shape), stop_gradient(x), x)
                      for x in ops]
            batched, _ = batching.batch_jaxpr(br, axis_data, [True] * len(ops), True)
            outs.append(_eval(batched, *masked))
        sel = [lax.select_n(_bcast(index, core.aval_of(o[0]).shape), *o) for o in zip(*outs)]
        return sel, [0] * len(sel)
    in_b = [d is not batching.not_mapped for d in op_dims]
    ops = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
           for x, d in zip(ops, op_dims)]
    out_b = [False] * len(branches[0].out_avals)
    for br in branches:
        out_b = [a or b for a, b in zip(out_b, batching.batch_jaxpr(br, axis_data, in_b, False)[1])]
    batched = tuple(batching.batch_jaxpr(br, axis_data, in_b, out_b)[0] for br in branches)
    outs = cond_p.bind(index, *ops, branches=batched)
    return outs, [0 if b else batching.not_mapped for b in out_b]


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


def _bcast(pred, shape):
    """Broadcast a per-example selector over a batched value's other axes."""
    return pred if len(shape) <= 1 else lax.broadcast_in_dim(pred, shape, (0,))


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
    return aval.update(shape=(length, *aval.shape))


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


ad.jvp_rules[cond_p] = _cond_jvp
ad.partial_eval_rules[cond_p] = _cond_partial_eval
ad.transpose_rules[cond_p] = _cond_transpose
ad.jvp_rules[while_p] = _while_jvp
ad.transpose_rules[while_p] = _while_transpose
ad.jvp_rules[scan_p] = _scan_jvp
ad.partial_eval_rules[scan_p] = _scan_partial_eval
ad.transpose_rules[scan_p] = _scan_transpose
batching.axis_batch_rules[cond_p] = _cond_batch
batching.axis_batch_rules[while_p] = _while_batch
batching.axis_batch_rules[scan_p] = _scan_batch
