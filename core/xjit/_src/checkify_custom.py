"""``checkify`` inside ``custom_jvp``/``custom_vjp`` functions and inside
``checkpoint``/``remat``, with JAX 0.10.2's rules.

* A ``custom_jvp_call``/``custom_vjp_call`` equation is checked in its
  *function*: it is re-bound as a custom function returning its outputs and
  every site's failure flag and payload, with the same rules. The rules are
  not checked: where an outer differentiation runs the rule (``jvp``, or
  ``fwd``/``bwd``) instead of the function, the extra outputs are "nothing
  failed", as JAX forwards its incoming error unchanged there. (Under
  ``checkify(grad(f))`` the rule's own operations are in the traced function
  and are checked like any other; the function they call again is checked
  through its own equation.)
* A ``remat2`` equation is re-bound with its checked body, its policy kept.
  With the index checks on, JAX 0.10.2 fails to build such a body when it
  indexes directly (a gather, dynamic_slice, dynamic_update_slice or scatter
  in the body itself, or in a custom function it calls; one in a jit, cond,
  scan or while inside it is checked normally): it raises ``ValueError: too
  many values to unpack (expected 0)``, and so does this module, rather than
  checking nothing.
"""
from __future__ import annotations

from . import checkify_index, core
from .interpreters import ad
from .interpreters.ad import Zero

CUSTOM_CALLS = frozenset({"custom_jvp_call", "custom_vjp_call"})
REMAT = "remat2"

_REMAT_INDEX_MESSAGE = (
    "too many values to unpack (expected 0)\n"
    "(checkify with index checks of a checkpoint/remat body that indexes directly: JAX 0.10.2 "
    "raises this ValueError, as its checked body captures constants; move the indexing into a "
    "jit inside the checkpoint, or leave out checkify.index_checks)")


def _jnp():
    from .. import numpy as jnp
    return jnp


def _checked_flat(evaluate, closed, errors, layout):
    """``closed`` checked, as a flat function: its outputs, then each site's
    failure flag, then the sites' payload values; ``layout`` gets (payload
    count, message) per site each time it is traced or run."""
    def run(*args):
        jnp = _jnp()
        local = []
        outs = evaluate(closed.jaxpr, closed.consts, list(args), errors, local)
        layout[:] = [(len(payload), msg) for _, payload, msg in local]
        return [*outs, *[jnp.asarray(pred) for pred, _, _ in local],
                *[jnp.asarray(v) for _, payload, _ in local for v in payload]]
    return run


def _add_sites(extras, layout, sites):
    preds, values = extras[:len(layout)], extras[len(layout):]
    start = 0
    for pred, (count, msg) in zip(preds, layout):
        sites.append((pred, list(values[start:start + count]), msg))
        start += count


def _extra_avals(fun, ins, n_out):
    from .pjit import make_jaxpr
    shapes = make_jaxpr(fun, return_shape=True)(*ins)[1]
    return [core.ShapedArray(s.shape, s.dtype) for s in shapes[n_out:]]


def _nothing_failed(avals):
    """The extra outputs where a rule runs instead of the function: no flag
    set, zero payloads (they are never read)."""
    jnp = _jnp()
    return [jnp.zeros(a.shape, a.dtype) for a in avals]


def checked_custom_call(evaluate, eqn, ins, errors, sites):
    """A custom_jvp_call or custom_vjp_call equation, its function checked."""
    from .custom_derivatives import _custom_jvp_at, _custom_vjp_at, _fun_name, _Named
    params = eqn.params
    closed = params["call_jaxpr"]
    n_out = len(closed.out_avals)
    layout = []
    fun = _checked_flat(evaluate, closed, errors, layout)
    extra_avals = _extra_avals(fun, ins, n_out)
    rule_params = {"name": params["name"], "symbolic_zeros": params["symbolic_zeros"],
                   "num_consts": params["num_consts"]}
    trace = core.trace_ctx.trace
    if eqn.primitive.name == "custom_jvp_call":
        jvp = params["jvp"]

        def checked_jvp(primals, tangents):
            outs, touts = jvp(list(primals), list(tangents))
            extra = _nothing_failed(extra_avals)
            return ([*outs, *extra],
                    [*touts, *[Zero(ad.tangent_aval(core.aval_of(x))) for x in extra]])
        outs = _custom_jvp_at(trace, fun, _Named(checked_jvp, _fun_name(jvp)), list(ins), rule_params)
    else:
        fwd, bwd = params["fwd"], params["bwd"]

        def checked_fwd(primals, perturbed):
            outs, res, res_tree = fwd(list(primals), perturbed)
            return [*outs, *_nothing_failed(extra_avals)], res, res_tree

        def checked_bwd(res_tree, res, cts):
            return bwd(res_tree, res, list(cts)[:n_out])
        outs = _custom_vjp_at(trace, fun, _Named(checked_fwd, _fun_name(fwd)),
                              _Named(checked_bwd, _fun_name(bwd)), list(ins), rule_params)
    _add_sites(list(outs[n_out:]), layout, sites)
    return list(outs[:n_out])


def _indexes_directly(jaxpr):
    """Whether ``jaxpr`` has an index-checked equation at its own level (or
    in a custom function's body, which is traced into it)."""
    return any(e.primitive.name in checkify_index.INDEX_PRIMS or
               (e.primitive.name in CUSTOM_CALLS and
                _indexes_directly(e.params["call_jaxpr"].jaxpr))
               for e in jaxpr.eqns)


def checked_remat(evaluate, eqn, ins, errors, sites, index_checks):
    """A remat2 equation re-bound with its body checked."""
    from .ad_checkpoint import remat_p
    from .custom_derivatives import _stage
    closed = eqn.params["jaxpr"]
    n_out = len(closed.out_avals)
    layout = []
    checked, tracer_consts = _stage(_checked_flat(evaluate, closed, errors, layout), list(ins),
                                    "checkpoint")
    if index_checks and _indexes_directly(closed.jaxpr):
        raise ValueError(_REMAT_INDEX_MESSAGE)
    params = {k: v for k, v in eqn.params.items() if k != "jaxpr"}
    outs = remat_p.bind(*tracer_consts, *ins, jaxpr=checked, **params)
    _add_sites(list(outs[n_out:]), layout, sites)
    return list(outs[:n_out])
