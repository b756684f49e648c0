"""checkify's index checks (``checkify.index_checks``, OOBError) as JAX 0.10.2
makes them.

JAX checks the start indices of dynamic_slice, dynamic_update_slice, gather
and of scatter, scatter-add, -mul, -min and -max (scatter-sub is not
checked), whatever the indexing mode: a clipped, filled or dropped index is
reported all the same. A scatter's output is checked for NaNs only when the
index checks are on. Each case returns what ``err.get()`` gives, what
``err.throw()`` raises and the checkified function's outputs, and is compared
with what JAX returned or raised (``checkify_index.json``, written by
``scripts/record_checkify_index.py``): plain, under jit, vmap (batched
errors, and checkify of a vmapped function), grad, and in scan, cond,
while_loop and fori_loop bodies.
"""
import recorded

PRELUDE = '''
import importlib
checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
X = jnp.arange(10.).reshape(5, 2)
XS = jnp.stack([X, X + 10., X + 20., X + 30.])
IDX = jnp.array([[1, 7], [9, 2], [0, 1], [-8, 3]])
IDX_OK = jnp.array([[1, 0], [4, 2], [0, 1], [-5, 3]])
STARTS = jnp.array([1, 4, 0, 9])

def run(f, *args, errors=checkify.index_checks, jit=False, vmapped=False):
    cf = checkify.checkify(f, errors=errors)
    if vmapped:
        cf = jax.vmap(cf)
    if jit:
        cf = jax.jit(cf)
    err, out = cf(*args)
    try:
        err.throw()
        thrown = None
    except checkify.JaxRuntimeError as e:
        thrown = str(e)
    outs = [np.asarray(o).tolist() for o in jax.tree_util.tree_leaves(out)]
    return f"get: {err.get()!r}\\nthrow: {thrown!r}\\nout: {outs}"

def ds(x, i):
    return lax.dynamic_slice(x, (i, 0), (2, 2))

def dus(x, i):
    return lax.dynamic_update_slice(x, jnp.full((2, 2), -1.), (i, 0))

def in_scan(f):
    return lambda x, idx: lax.scan(lambda c, i: (c + 1., f(x * c, i)), 1., idx)

def in_cond(f, g):
    return lambda x, i, p: lax.cond(p, f, g, x, i)

def in_while(f):
    def body(c):
        k, acc = c
        return k + 1, acc + f(X, k * 3).sum()
    return lambda n: lax.while_loop(lambda c: c[0] < n, body, (0, 0.))

GDN = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
GDN2 = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0, 1))
GDN_WIN = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(1, 0))
GDN_NONE = lax.GatherDimensionNumbers(offset_dims=(0, 1), collapsed_slice_dims=(), start_index_map=())
GDN_1D = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
SDN = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))
SDN_1D = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
SDN_WIN = lax.ScatterDimensionNumbers(update_window_dims=(1, 2), inserted_window_dims=(),
                                      scatter_dims_to_operand_dims=(1, 0))
'''

OOB, OK, NEG, NEG_OOB = "jnp.array([1, 7])", "jnp.array([1, 4])", "jnp.array([-1, 2])", \
    "jnp.array([1, -7])"

CASES = {
    # x[...] gathers and dynamic slices
    "getitem:scalar_oob": "run(lambda x, i: x[i], X, jnp.int32(7))",
    "getitem:scalar_neg_oob": "run(lambda x, i: x[i], X, jnp.int32(-7))",
    "getitem:scalar_neg_ok": "run(lambda x, i: x[i], X, jnp.int32(-1))",
    "getitem:array_oob": f"run(lambda x, i: x[i], X, {OOB})",
    "getitem:array_ok": f"run(lambda x, i: x[i], X, {OK})",
    "getitem:array_neg_ok": f"run(lambda x, i: x[i], X, {NEG})",
    "getitem:array_neg_oob": f"run(lambda x, i: x[i], X, {NEG_OOB})",
    "getitem:two_arrays": "run(lambda x, i, j: x[i, j], X, jnp.array([1, 2]), jnp.array([0, 3]))",
    "getitem:second_axis": "run(lambda x, j: x[:, j], X, jnp.array([0, 3]))",
    "getitem:matrix_index": "run(lambda x, i: x[i], X, jnp.array([[0, 1], [5, 9]]))",
    "getitem:first_failing_of_many": "run(lambda x, i: x[i], X, jnp.array([9, -9, 12]))",
    "getitem:slice_then_index": "run(lambda x, i: x[1:][i], X, jnp.array([3, 4]))",
    # static indices: out of bounds they are a dynamic_slice (or a gather), which is checked;
    # mode='clip' slices them statically, unchecked
    "static:oob": "run(lambda x: x[7], X)",
    "static:neg_oob": "run(lambda x: x[-7], X)",
    "static:ok": "run(lambda x: (x[4], x[-5], x[1, 1]), X)",
    "static:second_axis": "run(lambda x: x[1, 2], X)",
    "static:strided": "run(lambda x: x[7, ::2], X)",
    "static:reversed": "run(lambda x: x[7, ::-1], X)",
    "static:at_get_clip": "run(lambda x: x.at[7].get(mode='clip'), X)",
    "static:at_get_fill": "run(lambda x: x.at[7].get(mode='fill'), X)",
    "static:at_get_fill_value": "run(lambda x: x.at[7].get(fill_value=-5.), X)",
    "static:at_get_no_wrap": "run(lambda x: x.at[-1].get(wrap_negative_indices=False), X)",
    "static:at_set": "run(lambda x: x.at[7].set(0.), X)",
    "static:zero_d_numpy_array": "run(lambda x: x[np.array(7)], X)",
    "traced:strided": "run(lambda x, i: x[i, ::2], X, jnp.int32(6))",
    "traced:reversed": "run(lambda x, i: x[i, ::-1], X, jnp.int32(6))",
    "traced:at_get_clip": "run(lambda x, i: x.at[i].get(mode='clip'), X, jnp.int32(6))",
    "take:default": "run(lambda x, i: jnp.take(x, i, axis=1), X, jnp.array([0, 5]))",
    "take:clip": "run(lambda x, i: jnp.take(x, i, axis=1, mode='clip'), X, jnp.array([0, 5]))",
    "take:wrap": "run(lambda x, i: jnp.take(x, i, axis=1, mode='wrap'), X, jnp.array([0, 5]))",
    "take:fill": "run(lambda x, i: jnp.take(x, i, axis=1, mode='fill'), X, jnp.array([0, 5]))",
    "take_along_axis": "run(lambda x, i: jnp.take_along_axis(x, i, axis=1), X, "
                       "jnp.array([[0], [5], [1], [1], [0]]))",
    "segment_sum": "run(lambda d, s: jax.ops.segment_sum(d, s, num_segments=3), jnp.arange(4.), "
                   "jnp.array([0, 1, 5, 2]))",
    # lax.gather directly: windows, index vectors, narrow index dtypes, edge cases
    "lax_gather:index_vector": "run(lambda x, i: lax.gather(x, i, GDN2, (1, 2)), X, "
                               "jnp.array([[1, 0], [2, 1]]))",
    "lax_gather:index_vector_first_axis": "run(lambda x, i: lax.gather(x, i, GDN2, (1, 2)), X, "
                                          "jnp.array([[1, 0], [5, 0]]))",
    "lax_gather:window": "run(lambda x, i: lax.gather(x, i, GDN_WIN, (3, 1)), X, "
                         "jnp.array([[1, 2], [1, 3]]))",
    "lax_gather:window_negative": "run(lambda x, i: lax.gather(x, i, GDN_WIN, (3, 1)), X, "
                                  "jnp.array([[1, 2], [-1, 3]]))",
    "lax_gather:window_ok": "run(lambda x, i: lax.gather(x, i, GDN_WIN, (3, 1)), X, "
                            "jnp.array([[1, 2], [0, 0]]))",
    "lax_gather:int8_bound_wraps": "run(lambda x, i: lax.gather(x, i, GDN_1D, (1,)), "
                                   "jnp.arange(300.), jnp.array([[50]], jnp.int8))",
    "lax_gather:uint8_bound_wraps": "run(lambda x, i: lax.gather(x, i, GDN_1D, (1,)), "
                                    "jnp.arange(300.), jnp.array([[250]], jnp.uint8))",
    "lax_gather:uint32_index": "run(lambda x, i: lax.gather(x, i, GDN, (1, 2)), X, "
                               "jnp.array([[4294967295]], jnp.uint32))",
    "lax_gather:no_indices_raises": "run(lambda x, i: lax.gather(x, i, GDN, (1, 2)), X, "
                                    "jnp.zeros((0, 1), jnp.int32))",
    "lax_gather:no_index_map_raises": "run(lambda x: lax.gather(x, jnp.zeros((0,), jnp.int32), "
                                      "GDN_NONE, (5, 2)), X)",
    "lax_gather:unchecked_without_index_checks": "run(lambda x, i: x[i], X, jnp.array([9]), "
                                                 "errors=checkify.float_checks)",
    "lax_gather:all_checks": "run(lambda x, i: jnp.log(x[i] - 100.), X, jnp.array([1, 7]), "
                             "errors=checkify.all_checks)",
    "lax_gather:all_checks_nan_first": "run(lambda x, i: jnp.log(x - 100.)[i], X, "
                                       "jnp.array([1, 7]), errors=checkify.all_checks)",
    # scatters
    "scatter:int8_ok": "run(lambda x, i: lax.scatter_add(x, i, jnp.ones(1), SDN_1D), "
                       "jnp.arange(300.), jnp.array([[50]], jnp.int8))",
    "scatter:int8_oob": "run(lambda x, i: lax.scatter_add(x, i, jnp.ones(1), SDN_1D), "
                        "jnp.arange(100.), jnp.array([[120]], jnp.int8))",
    "scatter:window": "run(lambda x, i: lax.scatter(x, i, jnp.ones((1, 2, 2)), SDN_WIN), X, "
                      "jnp.array([[0, 4]]))",
    "scatter:window_ok": "run(lambda x, i: lax.scatter(x, i, jnp.ones((1, 2, 2)), SDN_WIN), X, "
                         "jnp.array([[0, 3]]))",
    "scatter:no_indices_raises": "run(lambda x, i: lax.scatter(x, i, jnp.ones((0, 2)), SDN), X, "
                                 "jnp.zeros((0, 1), jnp.int32))",
    "scatter:nan_in_operand": "run(lambda x, i: x.at[i].set(1.), X.at[0, 0].set(jnp.nan), "
                              "jnp.array([1]), errors=checkify.all_checks)",
    "scatter:nan_made": "run(lambda x, i: x.at[i].mul(jnp.inf), X, jnp.array([0, 1]), "
                        "errors=checkify.all_checks)",
    "scatter:nan_add": "run(lambda x, i: x.at[i].add(jnp.nan), X, jnp.array([0, 1]), "
                       "errors=checkify.all_checks)",
    "scatter:nan_needs_index_checks": "run(lambda x, i: x.at[i].mul(jnp.inf), X, "
                                      "jnp.array([0, 1]), errors=checkify.nan_checks)",
    "scatter:oob_before_nan": "run(lambda x, i: x.at[i].add(jnp.nan), X, jnp.array([0, 9]), "
                              "errors=checkify.all_checks)",
    "scatter:sub_nan_unchecked": "run(lambda x, i: x.at[i].subtract(jnp.inf), "
                                 "X.at[0, 0].set(jnp.inf), jnp.array([0]), "
                                 "errors=checkify.all_checks)",
    "scatter:int_operand": "run(lambda x, i: x.at[i].set(1), jnp.arange(4), jnp.array([1, 6]), "
                           "errors=checkify.all_checks)",
    "scatter:two_arrays": "run(lambda x, i, j: x.at[i, j].add(1.), X, jnp.array([1, 2]), "
                          "jnp.array([0, 3]))",
    # dynamic_slice / dynamic_update_slice
    "dynamic_slice:oob": "run(ds, X, jnp.int32(4))",
    "dynamic_slice:ok": "run(ds, X, jnp.int32(3))",
    "dynamic_slice:neg_wraps_oob": "run(ds, X, jnp.int32(-1))",
    "dynamic_slice:neg_ok": "run(ds, X, jnp.int32(-2))",
    "dynamic_slice:neg_oob": "run(ds, X, jnp.int32(-7))",
    "dynamic_slice:second_axis": "run(lambda x, i: lax.dynamic_slice_in_dim(x, i, 1, axis=1), "
                                 "X, jnp.int32(2))",
    "dynamic_slice:index_in_dim": "run(lambda x, i: lax.dynamic_index_in_dim(x, i, axis=1), X, "
                                  "jnp.int32(2))",
    "dynamic_slice:scalar_operand_raises": "run(lambda x: lax.dynamic_slice(x, (), ()), "
                                           "jnp.float32(1.))",
    "dynamic_update_slice:oob": "run(dus, X, jnp.int32(4))",
    "dynamic_update_slice:ok": "run(dus, X, jnp.int32(3))",
    "dynamic_update_slice:neg_wraps_oob": "run(dus, X, jnp.int32(-1))",
    "dynamic_update_slice:neg_oob": "run(dus, X, jnp.int32(-7))",
    "dynamic_update_slice:in_dim": "run(lambda x, i: lax.dynamic_update_index_in_dim("
                                   "x, jnp.zeros(5), i, axis=1), X, jnp.int32(-3))",
    "dynamic_update_slice:slice_in_dim": "run(lambda x, i: lax.dynamic_update_slice_in_dim("
                                         "x, jnp.zeros((5, 2)), i, axis=0), X, jnp.int32(1))",
    "dynamic_update_slice:scalar_operand_raises": "run(lambda x: lax.dynamic_update_slice(x, x, "
                                                  "()), jnp.float32(1.))",
    # the end index is summed in int32 (int8 + NumPy int64), so it does not wrap
    "dynamic_update_slice:int8_start": "run(lambda x, i: lax.dynamic_update_slice(x, "
                                       "jnp.ones((20,)), (i,)), jnp.arange(100.), jnp.int8(120))",
    # the end index is summed in int8: 120 + 20 wraps, and JAX sees no overflow
    "dynamic_slice:int8_start": "run(lambda x, i: lax.dynamic_slice(x, (i,), (20,)), "
                                "jnp.arange(100.), jnp.int8(120))",
    "dynamic_slice:int8_start_big_operand": "run(lambda x, i: lax.dynamic_slice(x, (i,), (20,)), "
                                            "jnp.arange(300.), jnp.int8(120))",
    # program order: the first failing site is reported
    "order:first_site": "run(lambda x, i: (x[i[0]], dus(x, i[1]), x.at[i[1]].add(1.)), X, "
                        "jnp.array([1, 4]))",
    "order:second_site": "run(lambda x, i: (x.at[i[0]].add(1.), x[i[1]]), X, jnp.array([1, 6]))",
    # jit, vmap, grad
    "jit:getitem": f"run(lambda x, i: x[i], X, {OOB}, jit=True)",
    "jit:inner_jit": f"run(jax.jit(lambda x, i: x.at[i].max(3.)), X, {OOB})",
    "jit:inner_jit_ok": f"run(jax.jit(lambda x, i: x.at[i].max(3.)), X, {OK})",
    "jit:dus": "run(jax.jit(dus), X, jnp.int32(4), jit=True)",
    "vmap_checkify:getitem": "run(lambda x, i: x[i], XS, IDX, vmapped=True)",
    "vmap_checkify:getitem_ok": "run(lambda x, i: x[i], XS, IDX_OK, vmapped=True)",
    "vmap_checkify:set": "run(lambda x, i: x.at[i].set(-1.), XS, IDX, vmapped=True)",
    "vmap_checkify:ds": "run(ds, XS, STARTS, vmapped=True)",
    "vmap_checkify:dus": "run(dus, XS, STARTS, vmapped=True, jit=True)",
    "vmap_checkify:two_sites": "run(lambda x, i: (x[i[0]], ds(x, i[1])), XS, IDX, vmapped=True)",
    "vmap_checkify:user_check_and_oob": "run(lambda x, i: (checkify.check(i[0] < 5, 'c {}', "
                                        "i[0]), x[i[1]])[1], XS, IDX, "
                                        "errors=checkify.all_checks, vmapped=True)",
    "checkify_vmap:getitem": "run(jax.vmap(lambda x, i: x[i]), XS, IDX)",
    "checkify_vmap:getitem_unbatched_operand": "run(jax.vmap(lambda i: X[i]), IDX)",
    "checkify_vmap:add_unbatched_index": "run(jax.vmap(lambda x: x.at[jnp.array([1, 7])]"
                                         ".add(1.)), XS)",
    "checkify_vmap:ds": "run(jax.vmap(ds), XS, STARTS)",
    "checkify_vmap:set_raises": "run(jax.vmap(lambda x, i: x.at[i].set(1.)), XS, IDX)",
    "checkify_vmap:dus_raises": "run(jax.vmap(dus), XS, STARTS)",
    "grad:getitem": "run(jax.grad(lambda x, i: x[i].sum()), X, jnp.array([1, 7]))",
    "grad:getitem_ok": "run(jax.grad(lambda x, i: x[i].sum()), X, jnp.array([1, 3]))",
    "grad:ds": "run(jax.grad(lambda x, i: ds(x, i).sum()), X, jnp.int32(4))",
    "grad:dus": "run(jax.grad(lambda x, i: lax.dynamic_update_slice(x, x[:2] * 2, (i, 0))"
                ".sum()), X, jnp.int32(4))",
    "grad:set": "run(jax.grad(lambda x, i: x.at[i].set(x[0]).sum()), X, jnp.array([1, 7]))",
    "grad:add": "run(jax.grad(lambda x, i: (x.at[i].add(x[0]) ** 2).sum()), X, "
                "jnp.array([1, -7]))",
    # control flow
    "scan:getitem": "run(in_scan(lambda x, i: x[i]), X, jnp.array([1, 6, 2, 8]))",
    "scan:getitem_ok": "run(in_scan(lambda x, i: x[i]), X, jnp.array([1, 4, 2, -1]))",
    "scan:set": "run(in_scan(lambda x, i: x.at[i].set(0.)), X, jnp.array([0, -9, 7]))",
    "scan:ds": "run(in_scan(ds), X, jnp.array([0, 3, 4]))",
    "scan:jit": "run(in_scan(dus), X, jnp.array([0, 5, 4]), jit=True)",
    "scan:vmap": "run(in_scan(lambda x, i: x[i]), XS, IDX, vmapped=True)",
    "cond:taken_branch": "run(in_cond(lambda x, i: x[i], lambda x, i: ds(x, i)[0]), X, "
                         "jnp.int32(7), True)",
    "cond:other_branch": "run(in_cond(lambda x, i: x[i], lambda x, i: ds(x, i)[0]), X, "
                         "jnp.int32(4), False)",
    "cond:ok": "run(in_cond(lambda x, i: x[i], lambda x, i: ds(x, i)[0]), X, jnp.int32(3), "
               "True)",
    "while:getitem": "run(in_while(lambda x, i: x[i]), 3)",
    "while:ok": "run(in_while(lambda x, i: x[i]), 2)",
    "fori:dus": "run(lambda x: lax.fori_loop(0, 4, lambda k, c: dus(c, k + 1), x), X)",
}

for op, args in [("set", "-1."), ("add", "2."), ("mul", "2."), ("min", "2."), ("max", "2."),
                 ("subtract", "2."), ("divide", "2."), ("power", "2."), ("apply", "jnp.sin")]:
    for name, idx in [("oob", OOB), ("ok", OK), ("neg_ok", NEG), ("neg_oob", NEG_OOB)]:
        CASES[f"at_{op}:{name}"] = f"run(lambda x, i: x.at[i].{op}({args}), X, {idx})"

for mode in ["fill", "drop", "clip", "promise_in_bounds", None]:
    for name, idx in [("oob", OOB), ("ok", OK), ("neg_oob", NEG_OOB)]:
        CASES[f"at_get:{mode}:{name}"] = f"run(lambda x, i: x.at[i].get(mode={mode!r}), X, {idx})"
        CASES[f"at_set:{mode}:{name}"] = \
            f"run(lambda x, i: x.at[i].set(-1., mode={mode!r}), X, {idx})"
CASES["at_get:fill_value"] = f"run(lambda x, i: x.at[i].get(mode='fill', fill_value=-5.), X, {OOB})"

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
KNOWN = {}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "checkify_index", PRELUDE, CASES, KNOWN, every=10)
