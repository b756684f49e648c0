"""Varying manual axes in ``shard_map(check_vma=True)``, against JAX 0.10.2
on 8 CPU devices: the types inside bodies (``f32[2]{V:i}``), the printed
jaxprs (``pvary``, ``psum_invariant``, the ``shard_map`` equation), the
gradients through bodies with ``psum``/``pmean``/``all_gather`` in every
composition order (a wrong gradient is the failure this guards against),
``lax.pcast``, and the errors of misuse: out_specs the types contradict,
scan/while/cond carries and branches whose manual axes differ
(``shard_map_vma.json``, written by ``scripts/record_shard_map_vma.py``)."""

import multi_device

PRELUDE = r'''
P = jax.sharding.PartitionSpec
AUTO = jax.sharding.AxisType.Auto
mesh = jax.make_mesh((4, 2), ('i', 'j'), axis_types=(AUTO, AUTO))
X = jnp.arange(8.0) / 8 + 0.5
T = jnp.linspace(-1.0, 1.0, 8)
XB = jnp.stack([X, X * 2 - 1, X * X])
M = jnp.arange(32.0).reshape(8, 4) / 16

def sm(f, ins=P('i'), outs=P('i'), check_vma=True):
    return jax.shard_map(f, mesh=mesh, in_specs=ins, out_specs=outs, check_vma=check_vma)

def s(f):
    return lambda *a: f(*a).sum()

def types(body, *args, ins=P('i'), outs=P('i'), jit=False):
    """The types of a body's inputs and outputs, as jax.typeof prints them."""
    seen = []
    def spy(*xs):
        out = body(*xs)
        seen.extend(str(jax.typeof(v)) for v in jax.tree.leaves((xs, out)))
        return out
    f = sm(spy, ins, outs)
    (jax.jit(f) if jit else f)(*args)
    return " ".join(seen)

def _sorted_sets(text):
    """Sets printed in a sorted order (Python orders them by hash, which
    varies from process to process)."""
    import re
    return re.sub(r"\{('[^{}]*')\}", lambda m: "{" + ", ".join(sorted(
        m.group(1).split(", "))) + "}", text)

def jaxpr(f, *args):
    return _sorted_sets(str(jax.make_jaxpr(f)(*args)))

def error_text(thunk):
    try:
        thunk()
    except Exception as e:
        return f"{type(e).__name__}: {_sorted_sets(str(e))}"
    return "no error"

def under_mesh(m, thunk):
    with jax.set_mesh(m):
        return thunk()

def grad_psum(c):
    return jax.grad(lambda d: lax.psum((jnp.sin(d) * d).sum(), 'i'))(c)

# global functions of X (shape (8,)), each a shard_map over 'i'
FUNS = {
    "psum": sm(lambda b: jnp.sin(b) * lax.psum(b * b, 'i')),
    "pmean": sm(lambda b: lax.pmean(jnp.cos(b), 'i') * b),
    "psum_out_replicated": sm(lambda b: lax.psum(jnp.sin(b) * b, 'i'), outs=P()),
    "all_gather": sm(lambda b: lax.all_gather(b * b, 'i', tiled=True)[::4] * jnp.sin(b)),
    "axis_index": sm(lambda b: b * b * (lax.axis_index('i') + 1.0)),
    "invariant_input": sm(lambda b: lax.psum(b * b, 'i') * lax.axis_index('i'),
                          ins=P(), outs=P('i')),
    "grad_in_body": sm(grad_psum),
    "pmean_grad_in_body": sm(lambda b: jax.grad(
        lambda c: lax.pmean(jnp.cos(c).sum() * c[0], 'i'))(b) * b),
    "two_axes": jax.shard_map(lambda b: lax.psum(jnp.sin(b), 'j') * lax.pmean(b, ('i', 'j')),
                              mesh=mesh, in_specs=P(('i', 'j')), out_specs=P(('i', 'j'))),
    "scan_in_body": sm(lambda b: lax.scan(lambda c, x: (c * x + lax.psum(x, 'i'), c),
                                         lax.pcast(jnp.ones(()), 'i', to='varying'), b)[1]),
}
'''

# composition orders of a global function ``F``
ORDERS = {
    "value": "F(X)",
    "jit": "jax.jit(F)(X)",
    "grad": "jax.grad(s(F))(X)",
    "jit_grad": "jax.jit(jax.grad(s(F)))(X)",
    "grad_jit": "jax.grad(s(jax.jit(F)))(X)",
    "vmap_grad": "jax.vmap(jax.grad(s(F)))(XB)",
    "grad_vmap": "jax.grad(s(jax.vmap(F)))(XB)",
    "jit_vmap_grad": "jax.jit(jax.vmap(jax.grad(s(F))))(XB)",
    "jacfwd": "jax.jacfwd(F)(X)",
    "jacrev": "jax.jacrev(F)(X)",
    "jit_jacrev": "jax.jit(jax.jacrev(F))(X)",
    "hessian": "jax.hessian(s(F))(X)",
    "jvp": "jax.jvp(F, (X,), (T,))",
    "vjp": "jax.vjp(F, X)[1](T)",
    "linearize": "jax.linearize(F, X)[1](T)",
}

FUN_NAMES = ["psum", "pmean", "psum_out_replicated", "all_gather", "axis_index", "invariant_input",
        "grad_in_body", "pmean_grad_in_body", "two_axes", "scan_in_body"]

CASES = {f"{fn}:{order}": expr.replace("F", f"FUNS[{fn!r}]")
         for fn in FUN_NAMES for order, expr in ORDERS.items()}

CASES.update({
    # the types inside bodies, eager and under jit
    "types_in_spec": "types(lambda b: lax.psum(b, 'i'), X)",
    "types_two_axes": "types(lambda b: lax.psum(b, 'j'), M, ins=P('i', 'j'), outs=P('i'))",
    "types_jit": "types(lambda b, c: (b * c, lax.pmax(c, 'i')), X, X[:2], ins=(P('i'), P()), "
                 "outs=(P('i'), P()), jit=True)",
    "types_pcast": "types(lambda b: lax.pcast(b, 'j', to='varying'), M, outs=P('i', 'j'))",
    "types_axis_index": "types(lambda b: b + lax.axis_index('j'), M, outs=P('i', 'j'), "
                        "jit=True)",
    "types_collectives": "types(lambda b: (lax.all_gather(b, 'i'), lax.ppermute(b, 'i', "
                         "[(0, 1), (1, 2), (2, 3), (3, 0)]), lax.psum_scatter(b, 'i', "
                         "tiled=True), lax.all_to_all(b, 'i', 0, 0, tiled=True)), X, "
                         "ins=P(), outs=(P('i'), P('i'), P('i'), P('i')))",
    "types_loops": "types(lambda b: (lax.fori_loop(0, 2, lambda k, c: c * b, b), lax.cond("
                   "True, lambda: b, lambda: -b)), X, outs=(P('i'), P('i')))",
    # printed jaxprs
    "jaxpr_implicit_pvary": "jaxpr(sm(lambda b, c: b * c * 2.0, ins=(P('i'), P())), X, "
                            "X[:2])",
    "jaxpr_collectives": "jaxpr(sm(lambda b: (lax.psum(b, 'i'), lax.pmax(b, 'j'), "
                         "lax.all_gather(b, 'i'), lax.axis_index('i')[None]), outs=(P(), P(('i', "
                         "'j')), P(), P('i'))), X)",
    "jaxpr_grad_in_body": "jaxpr(FUNS['grad_in_body'], X)",
    "jaxpr_out_pvary": "jaxpr(sm(lambda b: jnp.sum(b, keepdims=True), ins=P(), outs=P('i')), "
                       "X)",
    "jaxpr_set_mesh": "under_mesh(jax.make_mesh((4,), ('i',), axis_types=(AUTO,)), lambda: "
                      "jaxpr(jax.shard_map(lambda b, c: b * c, in_specs=(P('i'), P()), "
                      "out_specs=P('i')), X, X[:2]))",
    "set_mesh_grad": "under_mesh(jax.make_mesh((4,), ('i',), axis_types=(AUTO,)), lambda: "
                     "jax.jit(jax.grad(lambda x: jax.shard_map(lambda b: lax.psum(jnp.sin(b), "
                     "'i'), in_specs=P('i'), out_specs=P())(x).sum()))(X))",
    "jaxpr_grad_outside": "jaxpr(jax.grad(s(FUNS['psum'])), X)",
    "jaxpr_check_vma_off": "jaxpr(sm(lambda b: lax.psum(b, 'i') * 2.0, check_vma=False), X)",
    # pcast
    "pcast_values": "sm(lambda b: lax.pcast(b, 'j', to='varying') * 2, outs=P('i', 'j'))(M)",
    "pcast_tuple_axes": "sm(lambda b: lax.pcast(b, ('i', 'j'), to='varying'), ins=P(), "
                        "outs=P(('i', 'j')))(X)",
    "pcast_pytree": "sm(lambda b: lax.pcast({'a': b, 'b': b}, 'j', to='varying'), "
                    "outs={'a': P('i', 'j'), 'b': P('i')})(M)",
    "pcast_grad": "jax.grad(lambda x: sm(lambda b: lax.pcast(b, 'i', to='varying') * b, "
                  "ins=P(), outs=P('i'))(x).sum())(X[:2])",
    "err_pcast_already_varying": "sm(lambda b: lax.pcast(b, 'i', to='varying'))(X)",
    "err_pcast_to": "error_text(lambda: sm(lambda b: lax.pcast(b, 'j', to='invariant'))(X))",
    "err_pcast_set": "sm(lambda b: lax.pcast(b, {'j'}, to='varying'))(X)",
    "err_pcast_mixed": "sm(lambda b: lax.pcast(b, ('i', 'j'), to='varying'))(X)",
    "err_pvary_removed": "lax.pvary",
    "pvary_in_check_vma_off": "sm(lambda b: lax.pcast(b, 'j', to='varying') + 1, "
                              "check_vma=False)(X)",
    # psum of a value invariant over the axis: pvary-ed first, so n times it
    "psum_invariant_value": "sm(lambda b: lax.psum(b, 'i'), ins=P(), outs=P())(X)",
    "psum_invariant_value_jit": "jax.jit(sm(lambda b: (lax.psum(b, 'i'), lax.pmax(b, 'j')), "
                                "ins=P(), outs=(P(), P())))(X)",
    "psum_invariant_grad": "jax.grad(lambda x: sm(lambda b: lax.psum(b * b, 'i'), ins=P(), "
                           "outs=P())(x).sum())(X)",
    # out_specs the types contradict
    "err_out_unreplicated_jit": "jax.jit(sm(lambda b: b * 2, outs=P()))(X)",
    "err_out_unreplicated_eager": "sm(lambda b: b * 2, outs=P())(X)",
    "err_out_two_axes_jit": "jax.jit(sm(lambda b: b + lax.axis_index('j'), outs=P('i')))(X)",
    "out_check_vma_off": "jax.jit(sm(lambda b: b * 2, outs=P(), check_vma=False))(X)",
    # control flow
    "err_scan_swap": "jax.jit(sm(lambda b, c: lax.scan(lambda cr, _: ((cr[1], cr[0]), ()), "
                     "(b, c), (), length=2)[0], ins=(P('i'), P()), outs=P('i')))(X, X[:2])",
    "err_scan_swap_eager": "sm(lambda b, c: lax.scan(lambda cr, _: ((cr[1], cr[0]), ()), "
                           "(b, c), (), length=2)[0], ins=(P('i'), P()), outs=P('i'))(X, X[:2])",
    "err_fori_carry": "jax.jit(sm(lambda b, c: lax.fori_loop(0, 3, lambda k, cr: cr + b, c), "
                      "ins=(P('i'), P())))(X, X[:2])",
    "err_scan_carry": "jax.jit(sm(lambda b, c: lax.scan(lambda cr, x: (cr + x, cr), c, b)[0], "
                      "ins=(P('i'), P()), outs=P()))(X, X[0])",
    "err_while_carry": "jax.jit(sm(lambda b: lax.while_loop(lambda cr: cr[0] < 3, lambda cr: "
                       "(cr[0] + 1, cr[1] + b), (0, jnp.zeros(2))), outs=(P(), P('i'))))(X)",
    "err_cond_branches": "jax.jit(sm(lambda b, c: lax.cond(True, lambda: b, lambda: c), "
                         "ins=(P('i'), P())))(X, X[:2])",
    "err_switch_branches": "jax.jit(sm(lambda b, c: lax.switch(1, [lambda: b, lambda: c, "
                           "lambda: b]), ins=(P('i'), P())))(X, X[:2])",
    "scan_fixed_by_pcast": "jax.jit(sm(lambda b, c: lax.scan(lambda cr, _: ((cr[1], cr[0]), ()), "
                           "(b, lax.pcast(c, 'i', to='varying')), (), length=2)[0], "
                           "ins=(P('i'), P()), outs=P('i')))(X, X[:2])",
    "cond_propagates": "jax.jit(sm(lambda b: lax.cond(b.sum() > 0, lambda: lax.psum(b, 'i'), "
                       "lambda: jnp.zeros(2)), outs=P()))(X)",
})

# bodies mixing transformations and collectives: each eager, under jit, and
# differentiated inside the body (``grad_in``) and outside it (``grad_out``)
BODIES = {
    "relu_psum": "lambda b: lax.psum(jax.nn.relu(b - 0.8) + jax.nn.softplus(b), 'i')",
    "checkpoint": "lambda b: lax.psum(jax.checkpoint(lambda c: jnp.sin(c) * c)(b), 'i')",
    "fori_pmean": "lambda b: lax.fori_loop(0, 3, lambda k, c: c * lax.pmean(c, 'i'), b)",
    # collectives only under a predicate every device agrees on (under a varying
    # one devices would take different branches' collectives)
    "cond_psum": "lambda b: lax.cond(lax.psum(b[0], 'i') > 3.0, lambda: lax.psum(b * b, 'i') * b, "
                 "lambda: lax.psum(b, 'i') * b) + lax.cond(lax.axis_index('i') > 1, lambda: b * b, "
                 "lambda: jnp.sin(b)) * lax.pmean(b, 'i')",
    "vmap_psum": "lambda b: jax.vmap(lambda r: lax.psum(r * r, 'i') * r)(b.reshape(2, 1))"
                 ".reshape(2)",
    "all_gather": "lambda b: lax.all_gather(jnp.sin(b), 'i').sum(0) * b",
    "psum_scatter": "lambda b: lax.psum_scatter(jnp.tile(b * b, 4), 'i', tiled=True) * b",
    "ppermute": "lambda b: lax.ppermute(b * b, 'i', [(k, (k + 1) % 4) for k in range(4)]) * b",
    "all_to_all": "lambda b: lax.all_to_all(jnp.outer(b, b).reshape(4, 1), 'i', 0, 0, "
                  "tiled=True).reshape(4)[:2] * b",
    "where_const": "lambda b: jnp.where(b > 0.7, b, 0.5) * lax.psum(jnp.concatenate([b, "
                   "jnp.ones(1)]), 'i')[:2]",
    "dot_invariant": "lambda b: jnp.dot(lax.psum(b, 'i'), jnp.arange(4.0).reshape(2, 2)) * b",
    "two_axes_j": "lambda b: lax.psum(jnp.sin(b), 'j') * lax.pmean(b, 'i')",
    "pmax_value": "lambda b: lax.stop_gradient(lax.pmax(b, 'i')) * b",
    "psum_size": "lambda b: b * lax.psum(1, 'i') + lax.psum(2.0, ('i', 'j'))",
}

for _name, _body in BODIES.items():
    _f = f"sm({_body})"
    CASES[f"body:{_name}:eager"] = f"{_f}(X)"
    CASES[f"body:{_name}:jit"] = f"jax.jit({_f})(X)"
    CASES[f"body:{_name}:grad_in"] = (f"jax.jit(sm(lambda b: jax.grad(lambda c: ({_body})(c)"
                                       ".sum())(b)))(X)")
    CASES[f"body:{_name}:grad_in_eager"] = (f"sm(lambda b: jax.grad(lambda c: ({_body})(c)"
                                             ".sum())(b))(X)")
    CASES[f"body:{_name}:grad_out"] = f"jax.grad(s({_f}))(X)"

CASES.update({
    # only some mesh axes manual (axis_names)
    "while_pmean": "jax.jit(sm(lambda b: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, "
                   "c[1] * lax.pmean(c[1], 'i')), (0, b))[1]))(X)",
    "partial_manual": "jax.jit(jax.shard_map(lambda b: lax.psum(b * b, 'i'), mesh=mesh, "
                      "in_specs=P('i'), out_specs=P(), axis_names={'i'}))(X)",
    "partial_manual_grad": "jax.grad(lambda x: jax.shard_map(lambda b: lax.psum(jnp.sin(b), "
                           "'i'), mesh=mesh, in_specs=P('i'), out_specs=P(), axis_names={'i'})"
                           "(x).sum())(X)",
    # a gradient inside a body over some of the mesh axes (it was 4 times JAX's)
    "partial_manual_grad_in": "jax.jit(jax.shard_map(grad_psum, mesh=mesh, in_specs=P('i'), "
                              "out_specs=P('i'), axis_names={'i'}))(X)",
    "partial_manual_grad_in_eager": "jax.shard_map(grad_psum, mesh=mesh, in_specs=P('i'), "
                                    "out_specs=P('i'), axis_names={'i'})(X)",
    "partial_manual_grad_in_vma_off": "jax.jit(jax.shard_map(grad_psum, mesh=mesh, "
                                      "in_specs=P('i'), out_specs=P('i'), axis_names={'i'}, "
                                      "check_vma=False))(X)",
    "partial_manual_types": "(lambda seen: (jax.jit(jax.shard_map(lambda b: seen.append(str("
                            "jax.typeof(b))) or lax.psum(b, 'i'), mesh=mesh, in_specs=P('i'), "
                            "out_specs=P(), axis_names={'i'}))(X), seen[-1])[1])([])",
    "none_spec_grad_in": "jax.jit(sm(lambda b, k: grad_psum(b) * k, ins=(P('i'), None)))(X, "
                         "2.0)",
    "none_spec_grad_in_eager": "sm(lambda b, k: grad_psum(b) * k, ins=(P('i'), None))(X, 2.0)",
    "none_spec_traced": "jax.jit(lambda x, k: sm(lambda b, c: grad_psum(b) * c, ins=(P('i'), "
                        "None))(x, k))(X, 2.0)",
    # all_gather(to='invarying'): an invariant gather, transposed to each member's slice
    "all_gather_invarying": "sm(lambda b: lax.all_gather(jnp.sin(b), 'i', to='invarying', "
                            "tiled=True) ** 2, outs=P())(X)",
    "all_gather_invarying_jaxpr": "jaxpr(sm(lambda b: lax.all_gather(b, 'i', to='invarying'), "
                                  "outs=P()), X)",
    "all_gather_invarying_grad_out": "jax.grad(s(sm(lambda b: lax.all_gather(jnp.sin(b), 'i', "
                                     "to='invarying') ** 2, outs=P())))(X)",
    "all_gather_invarying_grad_in": "jax.jit(sm(lambda b: jax.grad(lambda c: (lax.all_gather("
                                    "jnp.sin(c), 'i', to='invarying', axis=1) ** 2).sum())(b)))"
                                    "(X)",
    "all_gather_invarying_grad_in_eager": "sm(lambda b: jax.grad(lambda c: (lax.all_gather("
                                          "jnp.sin(c), 'i', to='invarying') ** 2).sum())(b))(X)",
    "all_gather_invarying_types": "types(lambda b: lax.all_gather(b, ('i', 'j'), "
                                  "to='invarying'), X, outs=P(), jit=True)",
    "grad_in_two_axes": "jax.jit(jax.shard_map(lambda b: jax.grad(lambda c: lax.psum(jnp.sin("
                        "c).sum(), ('i', 'j')) * lax.psum(c[0], 'j'))(b), mesh=mesh, "
                        "in_specs=P(('i', 'j')), out_specs=P(('i', 'j'))))(X)",
    "grad_in_invariant_input": "jax.jit(sm(lambda b, w: jax.grad(lambda v: lax.psum((b * v)"
                               ".sum(), 'i'))(w), ins=(P('i'), P()), outs=P()))(X, X[:2])",
    "grad_in_invariant_input_eager": "sm(lambda b, w: jax.grad(lambda v: lax.psum((b * v)"
                                     ".sum(), 'i'))(w), ins=(P('i'), P()), outs=P())(X, X[:2])",
    "value_and_grad_in": "jax.jit(sm(lambda b, w: jax.value_and_grad(lambda v: lax.pmean(("
                         "jnp.tanh(b * v) ** 2).sum(), 'i'))(w), ins=(P('i'), P()), "
                         "outs=(P(), P())))(X, X[:2])",
})

# JAX stages the transposed body of a shard_map under grad; xjit's rules of
# the shard_map primitive (jvp, transpose, vmap) go through its one-device
# emulation, so the values agree while the printed jaxprs do not
KNOWN = {
    "jaxpr_grad_outside": "xjit differentiates a shard_map through its one-device emulation: "
                          "the gradient's values agree (the grad cases), its jaxpr is the "
                          "batched body rather than JAX's transposed shard_map",
    "out_check_vma_off": "check_vma=False with out_specs claiming a replication the body does "
                         "not establish: the devices disagree and XLA returns another device's "
                         "block than JAX's program does (undefined in JAX too)",
}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = \
    multi_device.tests("shard_map_vma", "test_shard_map_vma", CASES, known=KNOWN, every=9)
