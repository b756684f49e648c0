"""``shard_map`` and ``pmap`` over a mesh of 8 CPU devices, against JAX 0.10.2:
each collective's values, the compiled program's collectives (kinds and
device groups), the output shardings under jit, grad and vmap, what an
eager body prints (each device's block), ``in_specs`` inferred from a jit's
arguments, and the errors of misuse, replication the body does not
establish among them (``shard_map_multi_device.json``, written by
``scripts/record_sharding.py``; the cases run in an 8-device subprocess)."""

import multi_device

PRELUDE = r'''
NS, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))
emesh = jax.make_mesh((4, 2), ('x', 'y'))
X = jnp.arange(32.0).reshape(8, 4)
XS = jax.device_put(X, NS(mesh, P('x', 'y')))
V = jnp.arange(16.0)

def sm(f, ins=P('x', 'y'), outs=P('x', 'y')):
    return jax.shard_map(f, mesh=mesh, in_specs=ins, out_specs=outs)

def spec(a):
    return str(a.sharding.spec)

def body(a):
    b = lax.psum(a, 'x') * lax.axis_index('y')
    c = lax.ppermute(a, 'x', [(i, (i + 1) % 4) for i in range(4)])
    e = lax.psum_scatter(lax.all_gather(a, 'x', tiled=True), 'x', scatter_dimension=0,
                         tiled=True)
    return b, c, e, lax.all_to_all(a, 'y', 1, 0, tiled=True), lax.pmax(a, 'y')

def linear_body(a):
    b = lax.psum(a, 'x') * lax.axis_index('y')
    c = lax.ppermute(a, 'x', [(i, (i + 1) % 4) for i in range(4)])
    e = lax.psum_scatter(lax.all_gather(a, 'x', tiled=True), 'x', scatter_dimension=0,
                         tiled=True)
    return b, c, e, lax.all_to_all(a, 'y', 1, 0, tiled=True)

BODY_SPECS = (P(None, 'y'), P('x', 'y'), P('x', 'y'), P('x', 'y'), P('x'))

def printed(thunk):
    """What ``thunk()`` prints, then its result's repr."""
    import contextlib, io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        r = thunk()
    return out.getvalue() + repr(r)

def show(f):
    def body(*a):
        out = f(*a)
        print(out)
        return out
    return body

def in_mesh(m, thunk):
    with jax.set_mesh(m):
        return thunk()

def collectives(f, *args):
    """The collectives of f's compiled program: kind, groups or pairs."""
    import re
    text = f.lower(*args).compile().as_text()
    found = re.findall(r" (all-reduce|all-gather|collective-permute|reduce-scatter|all-to-all)"
                       r"\(.*?(replica_groups=\S+|source_target_pairs=\S+)", text)
    return str(sorted(found))
'''

CASES = {
    "psum": "jax.jit(sm(lambda a: lax.psum(a, 'x'), outs=P(None, 'y')))(XS)",
    "psum_spec": "spec(jax.jit(sm(lambda a: lax.psum(a, 'x'), outs=P(None, 'y')))(XS))",
    "psum_both": "jax.jit(sm(lambda a: lax.psum(a, ('x', 'y')), outs=P()))(XS)",
    "pmean": "jax.jit(sm(lambda a: lax.pmean(a, 'y'), outs=P('x')))(XS)",
    "pmax": "jax.jit(sm(lambda a: lax.pmax(a, 'x'), outs=P(None, 'y')))(XS)",
    "all_gather": "jax.jit(sm(lambda a: lax.all_gather(a, 'x', tiled=True)))(XS)",
    "all_gather_stacked": "jax.jit(sm(lambda a: lax.all_gather(a, 'y'), "
                          "outs=P(None, 'x', 'y')))(XS)",
    "ppermute": "jax.jit(sm(lambda a: lax.ppermute(a, 'x', [(i, (i + 1) % 4) "
                "for i in range(4)])))(XS)",
    "psum_scatter": "jax.jit(sm(lambda a: lax.psum_scatter(a, 'y', scatter_dimension=0, "
                    "tiled=True), ins=P('x'), outs=P(('x', 'y'))))(X)",
    "all_to_all": "jax.jit(sm(lambda a: lax.all_to_all(a, 'x', 1, 0, tiled=True), "
                  "ins=P('x'), outs=P(None, 'x')))(X)",
    "axis_index": "jax.jit(sm(lambda a: a * lax.axis_index('x') + lax.axis_index('y')))(XS)",
    "eager": "sm(lambda a: lax.psum(a, 'x'), outs=P(None, 'y'))(XS)",
    "eager_spec": "spec(sm(lambda a: lax.psum(a, 'x'), outs=P(None, 'y'))(XS))",
    "replicated_out_spec": "spec(jax.jit(sm(lambda a: lax.psum(a, ('x', 'y')), outs=P()))(XS))",
    "vector": "jax.jit(sm(lambda v: v * lax.axis_index('x'), ins=P('x'), outs=P('x')))(V)",
    "grad": "jax.jit(jax.grad(lambda a: sm(lambda b: lax.psum(b * b, 'x'), "
            "outs=P(None, 'y'))(a).sum()))(XS)",
    "vmap": "jax.vmap(sm(lambda v: lax.psum(v, 'x'), ins=P('x'), outs=P()))(jnp.stack([V, 2 * V]))",
    "body": "jax.jit(sm(body, outs=BODY_SPECS))(XS)",
    "body_eager": "sm(body, outs=BODY_SPECS)(XS)",
    "body_specs": "str([spec(o) for o in jax.jit(sm(body, outs=BODY_SPECS))(XS)])",
    "body_collectives": "collectives(jax.jit(sm(body, outs=BODY_SPECS)), XS)",
    "body_unsharded_args": "jax.jit(sm(body, outs=BODY_SPECS))(X)",
    "grad_body": "jax.jit(jax.grad(lambda a: sum(jnp.sum(o * o) for o in "
                 "sm(linear_body, outs=BODY_SPECS[:4])(a))))(XS)",
    "grad_body_eager": "jax.grad(lambda a: sum(jnp.sum(o * o) for o in "
                       "sm(linear_body, outs=BODY_SPECS[:4])(a)))(XS)",
    "vmap_jit": "jax.vmap(jax.jit(sm(lambda v: lax.psum(v, 'x'), ins=P('x'), outs=P())))"
                "(jnp.stack([V, 2 * V]))",
    "closure": "jax.jit(lambda a, w: sm(lambda b: lax.psum(b * w, 'y'), outs=P('x'))(a))(XS, 3.0)",
    "pmap_psum": "jax.pmap(lambda a: lax.psum(a, 'i'), axis_name='i')(X)",
    "pmap_sharding": "repr(jax.pmap(lambda a: a * 2)(X).sharding)",
    "pmap_shards": "str([(s.index, s.device.id) for s in "
                   "jax.pmap(lambda a: a * 2)(X).addressable_shards])",
    "pmap_in_axes": "jax.pmap(lambda a, b: a * b + lax.axis_index('i'), axis_name='i', "
                    "in_axes=(0, None))(X, 2.0)",
    "pmap_grad": "jax.pmap(jax.grad(lambda a: lax.psum((a * a).sum(), 'i')), axis_name='i')(X)",
    "pmap_ppermute": "jax.pmap(lambda a: lax.ppermute(a, 'i', [(j, (j + 3) % 8) "
                     "for j in range(8)]), axis_name='i')(X)",
    "pmap_fewer": "jax.pmap(lambda a: a.sum())(jnp.arange(12.0).reshape(4, 3))",
    "infer_eager": "jax.shard_map(lambda a: lax.psum(a, 'x'), mesh=emesh, out_specs=P(None, 'y'))"
                   "(jax.device_put(X, NS(emesh, P('x', 'y'))))",
    "infer_under_jit": "jax.jit(jax.shard_map(lambda a: lax.psum(a, 'x'), mesh=emesh, "
                       "out_specs=P(None, 'y')))(jax.device_put(X, NS(emesh, P('x', 'y'))))",
    # eager: the body runs a primitive at a time, its values printed per device
    "eager_print": "printed(lambda: sm(show(lambda a: lax.psum(a, 'x')), outs=P(None, 'y'))(XS))",
    "eager_print_input": "printed(lambda: sm(show(lambda a: a))(XS))",
    "eager_print_scalar": "printed(lambda: sm(show(lambda a: lax.psum(a.sum(), ('x', 'y'))), "
                          "outs=P())(XS))",
    "eager_print_collectives": "printed(lambda: sm(show(lambda v: (lax.ppermute(v, 'x', "
                               "[(i, (i + 1) % 4) for i in range(4)]), lax.psum_scatter(v, 'x', "
                               "tiled=True))), ins=P(('x', 'y')), outs=(P(('x', 'y')), "
                               "P(('x', 'y'))))(jnp.arange(64.0)))",
    "eager_print_context_mesh": "in_mesh(emesh, lambda: printed(lambda: jax.shard_map("
                                "show(lambda a: a * 2), in_specs=P('x'), out_specs=P('x'))("
                                "jax.device_put(V, NS(emesh, P('x'))))))",
    "eager_closure": "sm(lambda a: a * X[:2, :2] + 1.5)(XS)",
    "eager_jit_grad_in_body": "sm(lambda a: jax.jit(jax.grad(lambda b: (jnp.sin(b) * "
                              "lax.axis_index('x')).sum()))(a))(XS)",
    "eager_scan_in_body": "sm(lambda a: lax.scan(lambda c, r: (c + r, c * r), a[0], a)[1])"
                          "(XS)",
    "eager_custom_jvp_in_body": "sm(lambda a: jax.nn.relu(a - 10.0) + lax.pmax(a, 'y'))(XS)",
    "eager_vmap_in_body": "sm(lambda a: jax.vmap(lambda r: r * lax.axis_index('x') + "
                          "lax.psum(r, 'y'))(a))(XS)",
    "eager_grad_psum_in_body": "sm(lambda a: jax.grad(lambda b: lax.psum((b * b).sum(), "
                               "'x'))(a))(XS)",
    "grad_psum_in_body": "jax.jit(sm(lambda a: jax.grad(lambda b: lax.psum((b * b).sum(), "
                         "'x'))(a)))(XS)",
    "grad_psum_in_body_vma_off": "jax.jit(jax.shard_map(lambda a: jax.grad(lambda b: lax.psum("
                                 "(b * b).sum(), 'x'))(a), mesh=mesh, in_specs=P('x', 'y'), "
                                 "out_specs=P('x', 'y'), check_vma=False))(XS)",
    "eager_loop_invariant_carry": "sm(lambda a: lax.fori_loop(0, 3, lambda i, c: (c[0] + 1.0, "
                                  "c[1] * 2), (jnp.zeros(()), a)), outs=(P(), P('x', 'y')))(XS)",
    "eager_check_vma_off": "jax.shard_map(lambda a: a * (lax.axis_index('x') + 1), mesh=mesh, "
                           "in_specs=P(), out_specs=P(), check_vma=False)(X)",
    "eager_sharding": "spec(sm(lambda a: lax.pmax(a, 'y'), outs=P('x'))(XS))",
    "err_eager_unreplicated": "sm(lambda a: a, outs=P())(XS)",
    "err_eager_unreplicated_one_axis": "sm(lambda a: lax.psum(a, 'x'), outs=P('x'))(XS)",
    "err_eager_axis_index": "sm(lambda a: a + lax.axis_index('x'), ins=P(), outs=P())(X)",
    # in_specs=Infer under jit: the specs read from the jit's arguments' shardings
    "infer_under_jit_retrace": "(lambda f: (f(jax.device_put(X, NS(emesh, P('x', 'y')))), "
                               "f(jax.device_put(X, NS(emesh, P('x'))))))(jax.jit(jax.shard_map("
                               "lambda a: lax.psum(a, 'x'), mesh=emesh, out_specs=P(None, 'y'))))",
    "infer_under_jit_grad": "jax.jit(jax.grad(lambda a: jax.shard_map(lambda b: lax.psum("
                            "(b * b * lax.axis_index('y')).sum(), ('x', 'y')), mesh=emesh, "
                            "out_specs=P())(a)))(jax.device_put(X, NS(emesh, P('x', 'y'))))",
    "infer_under_jit_tree": "jax.jit(jax.shard_map(lambda p, b: lax.pmean(((b @ p['w']) ** 2)"
                            ".mean(), ('x', 'y')), mesh=emesh, out_specs=P()))({'w': "
                            "jax.device_put(jnp.ones((4, 3)), NS(emesh, P()))}, "
                            "jax.device_put(X, NS(emesh, P(('x', 'y')))))",
    "err_spec_axis": "sm(lambda a: a, ins=P('z'))(XS)",
    "err_indivisible": "sm(lambda v: v, ins=P('x'), outs=P('x'))(jnp.arange(6.0))",
}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = \
    multi_device.tests("shard_map_multi_device", "test_sharding_shard_map", CASES, every=6)
