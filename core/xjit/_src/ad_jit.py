"""Differentiation of ``jit`` equations: each rule binds a new ``jit`` of a
transformed jaxpr, so the compiled structure survives differentiation (and
printed jaxprs show ``jit`` equations where JAX's do).

* JVP: one jit of the JVP jaxpr (primals, nonzero tangents) -> (outs, tangents).
* Partial evaluation (linearize): a known jit computing primal outputs and
  residuals now, and an unknown jit of the linear part recorded for later.
* Transpose: a jit of the transposed linear jaxpr (residuals, cotangents).

Derived jaxprs are cached per source jaxpr so repeated eager calls reuse the
compiled executables.
"""
from __future__ import annotations

import weakref

from xjit._src.interpreters import ad
from xjit._src import core
from xjit._src.interpreters.ad import UndefinedPrimal, Zero, is_undefined_primal
from xjit._src.pjit import jit_p, mesh_param
from xjit._src.interpreters.partial_eval import close_jaxpr, trace_to_jaxpr

_jvp_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_transpose_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _trace_closed(fun, avals, debug_info):
    with core.set_current_trace(core.eval_trace):
        jaxpr, consts = trace_to_jaxpr(fun, avals, debug_info)
    closed, tracer_consts = close_jaxpr(jaxpr, consts)
    assert not tracer_consts
    return closed


def jvp_jaxpr(closed, nonzeros):
    """The JVP of ``closed`` taking (primals, tangents of the ``nonzeros``
    inputs) and returning (outputs, tangents of the nonzero outputs).
    Returns ``(jvp_closed, out_nonzeros)``."""
    key = tuple(nonzeros)
    cache = _jvp_cache.setdefault(closed, {})
    hit = cache.get(key)
    if hit is not None:
        return hit
    n = len(closed.in_avals)
    t_avals = [ad.tangent_aval(a) for a, nz in zip(closed.in_avals, nonzeros) if nz]
    out_nz = []

    def fun(*args):
        primals, ts = args[:n], iter(args[n:])
        tangents = [next(ts) if nz else Zero(ad.tangent_aval(a))
                    for a, nz in zip(closed.in_avals, nonzeros)]
        outs, touts = ad.jvp_flat(lambda *a: core.eval_jaxpr(closed.jaxpr, closed.consts, *a),
                                  primals, tangents, allow_custom_lin=True)
        out_nz[:] = [type(t) is not Zero for t in touts]
        return list(outs) + [t for t in touts if type(t) is not Zero]

    result = (_trace_closed(fun, list(closed.in_avals) + t_avals, closed.jaxpr.debug_info), out_nz)
    cache[key] = result
    return result


def _jit_jvp(primals, tangents, *, jaxpr, name, donated_invars=(), **params):
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_closed, out_nz = jvp_jaxpr(jaxpr, nonzeros)
    args = list(primals) + [t for t in tangents if type(t) is not Zero]
    outs = jit_p.bind(*args, jaxpr=jvp_closed, name=name,
                      donated_invars=(False,) * len(args), **params)
    n = len(jaxpr.out_avals)
    touts = iter(outs[n:])
    return outs[:n], [next(touts) if nz else Zero(ad.tangent_aval(a))
                      for a, nz in zip(jaxpr.out_avals, out_nz)]


def _jit_partial_eval(trace, args, params):
    closed, name = params["jaxpr"], params["name"]
    unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_unknowns, num_res = ad.partial_eval_jaxpr(closed, unknowns)
    known, fwd = _forward_residuals(known, num_res)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    with core.set_current_trace(trace.parent):
        kouts = jit_p.bind(*known_args, jaxpr=known, name=name, **mesh_param(params),
                           donated_invars=(False,) * len(known_args))
    n_known = len(out_unknowns) - sum(out_unknowns)
    kit = iter(kouts[n_known:])
    residuals = [known_args[f] if f is not None else next(kit) for f in fwd]
    uargs = residuals + [x for x, u in zip(args, unknowns) if u]
    uouts = trace.record(jit_p, uargs, {"jaxpr": unknown, "name": name, **mesh_param(params),
                                        "donated_invars": (False,) * len(uargs)})
    kit, uit = iter(kouts[:n_known]), iter(uouts)
    return [next(uit) if u else next(kit) for u in out_unknowns]


_fwd_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _forward_residuals(known, num_res):
    """Residuals that are just known inputs are passed along by the caller
    instead of being returned by the known jit (as JAX does).
    Returns the trimmed jaxpr and, per residual, the input index or None."""
    hit = _fwd_cache.get(known)
    if hit is not None:
        return hit
    j = known.jaxpr
    pos = {v: i for i, v in enumerate(j.invars)}
    n_out = len(j.outvars) - num_res
    res = j.outvars[n_out:]
    fwd = [pos.get(v) if type(v) is core.Var else None for v in res]
    if all(f is None for f in fwd):
        result = (known, fwd)
    else:
        outvars = j.outvars[:n_out] + [v for v, f in zip(res, fwd) if f is None]
        trimmed = core.Jaxpr(j.constvars, j.invars, outvars, j.eqns, j.debug_info)
        result = (core.ClosedJaxpr(trimmed, known.consts), fwd)
    _fwd_cache[known] = result
    return result


def transpose_jaxpr(closed, undefined, ct_nonzeros):
    """``closed`` transposed with respect to its ``undefined`` inputs: takes
    the defined inputs then the nonzero cotangents, returns one cotangent per
    undefined input (zeros instantiated)."""
    key = (tuple(undefined), tuple(ct_nonzeros))
    cache = _transpose_cache.setdefault(closed, {})
    hit = cache.get(key)
    if hit is not None:
        return hit
    in_avals = closed.in_avals
    defined_avals = [a for a, u in zip(in_avals, undefined) if not u]
    ct_avals = [a for a, nz in zip(closed.out_avals, ct_nonzeros) if nz]

    def fun(*args):
        it = iter(args[:len(defined_avals)])
        primals = [UndefinedPrimal(a) if u else next(it) for a, u in zip(in_avals, undefined)]
        cit = iter(args[len(defined_avals):])
        cts = [next(cit) if nz else Zero(a) for a, nz in zip(closed.out_avals, ct_nonzeros)]
        outs = ad.backward_pass(closed.jaxpr, closed.consts, primals, cts)
        return [ad.instantiate_zeros(c) for c in outs]

    result = _trace_closed(fun, defined_avals + ct_avals, closed.jaxpr.debug_info)
    cache[key] = result
    return result


def _jit_transpose(cts, *args, jaxpr, name, donated_invars=(), **params):
    undefined = [is_undefined_primal(x) for x in args]
    ct_nz = [type(c) is not Zero for c in cts]
    if not any(ct_nz):
        return [Zero(x.aval) if u else None for x, u in zip(args, undefined)]
    t_closed = transpose_jaxpr(jaxpr, undefined, ct_nz)
    targs = [x for x, u in zip(args, undefined) if not u] + [c for c in cts if type(c) is not Zero]
    outs = iter(jit_p.bind(*targs, jaxpr=t_closed, name=name, **mesh_param(params),
                           donated_invars=(False,) * len(targs)))
    return [next(outs) if u else None for u in undefined]


ad.jvp_rules[jit_p] = _jit_jvp
ad.partial_eval_rules[jit_p] = _jit_partial_eval
ad.transpose_rules[jit_p] = _jit_transpose
