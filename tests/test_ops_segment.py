"""``jax.ops.segment_sum`` / ``_prod`` / ``_max`` / ``_min`` as JAX 0.10.2.

Each case is compared with what JAX returned or raised (``ops_segment.json``,
written by ``scripts/record_ops_segment.py``): values, dtypes and weak types
over dtypes, empty segments (the reduction's identity), ids out of range
(dropped, or clipped by ``mode``), buckets; printed jaxprs; gradients in
every composition order (ties in max/min share the cotangent); vmap over the
data, the ids or both; and JAX's errors (``num_segments`` traced under jit).
"""
import recorded

PRELUDE = '''
import importlib
import re
ops = importlib.import_module(jax.__name__ + ".ops")
SEG = {"sum": ops.segment_sum, "prod": ops.segment_prod,
       "max": ops.segment_max, "min": ops.segment_min}
# six rows into segments 0, 2, 3 of five: 1 and 4 stay empty, 7 is out of range;
# rows 0 and 2 tie in their first column (segment 0)
DATA = np.array([[0.5, -1.0], [2.0, 3.0], [0.5, 0.25], [4.0, -2.0], [1.0, 1.5],
                 [-0.5, 2.5]], np.float32)
IDS = np.array([0, 2, 0, 3, 2, 7], np.int32)
SORTED = np.array([0, 0, 1, 3, 3, 4], np.int32)
UNIQUE = np.array([4, 0, 2, 1, 3, 5], np.int32)
BATCH = np.stack([DATA, DATA * 2 - 1, -DATA])
BATCH_IDS = np.stack([IDS, SORTED, UNIQUE])

def data(dtype):
    """DATA in ``dtype``: small counts for integers, a pattern for bools."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return jnp.asarray(DATA > 0.75)
    if dtype.kind in "iu":
        return jnp.asarray((np.abs(DATA) * 2).astype(dtype))
    return jnp.asarray(DATA.astype(dtype))

def seg(op, n=5, ids=IDS, **kw):
    """The segment reduction of the float data, with ``n`` segments."""
    return lambda x: SEG[op](x, ids, n, **kw)

def parts(z):
    """A complex result with its parts (the records keep real values only)."""
    return z, z.real, z.imag

def s(f):
    return lambda *a: jnp.sum(jnp.sin(f(*a)))

def x64(thunk):
    with jax.enable_x64(True):
        return thunk()

def jaxpr(fn, *args):
    return str(jax.make_jaxpr(fn)(*args))
'''

OPS = ["sum", "prod", "max", "min"]
DTYPES = ["float32", "int32", "uint8", "int8", "bool", "float16", "bfloat16", "complex64"]

CASES = {}
for op in OPS:
    f = f"SEG[{op!r}]"
    CASES.update({f"value:{op}:{dt}": f"{f}(data({dt!r}), IDS, 5)" for dt in DTYPES})
    CASES[f"value:{op}:complex64"] = f"parts({f}(data('complex64') * (1 - 2j), IDS, 5))"
    CASES.update({f"value_x64:{op}:{dt}": f"x64(lambda: {f}(data({dt!r}), IDS, 5))"
                  for dt in ["float64", "int64", "uint32"]})
    CASES.update({
        # num_segments: max id + 1 by default; fewer drops the rows beyond
        f"default_n:{op}": f"{f}(DATA, SORTED)",
        f"default_n_numpy_ids:{op}": f"{f}(data('int32'), np.array([2, 0, 2, 1, 0, 1]))",
        f"fewer_segments:{op}": f"{f}(DATA, IDS, 2)",
        f"zero_segments:{op}": f"{f}(DATA, IDS, 0)",
        f"negative_ids_dropped:{op}": f"{f}(DATA, -IDS, 5)",
        f"mode_clip:{op}": f"{f}(DATA, IDS, 4, mode='clip')",
        f"mode_enum_clip:{op}": f"{f}(DATA, IDS, 4, mode=lax.GatherScatterMode.CLIP)",
        f"mode_promise:{op}": f"{f}(DATA, SORTED, 5, mode='promise_in_bounds')",
        f"sorted:{op}": f"{f}(DATA, SORTED, 5, indices_are_sorted=True)",
        f"unique:{op}": f"{f}(DATA, UNIQUE, 6, unique_indices=True)",
        f"bucket:{op}": f"{f}(DATA, IDS, 5, bucket_size=4)",
        f"bucket_int:{op}": f"{f}(data('int32'), IDS, 5, bucket_size=2)",
        f"bucket_f16:{op}": f"{f}(data('float16'), SORTED, bucket_size=1)",
        f"vector:{op}": f"{f}(DATA[:, 0], IDS, 4)",
        f"rank3:{op}": f"{f}(BATCH.transpose(1, 0, 2), IDS, 5)",
        f"jnp_data:{op}": f"{f}(jnp.asarray(DATA), jnp.asarray(IDS), 5)",
        f"weak_data:{op}": f"{f}(lax.broadcast(2.0, (6,)), IDS, 3)",
        f"scalar_ids:{op}": f"{f}(DATA[:1], 1, 3)",
        f"static_n_np_int:{op}": f"{f}(DATA, IDS, np.int64(3))",
        # under jit: num_segments static, or traced (JAX's ConcretizationTypeError)
        f"jit_static_n:{op}": f"jax.jit({f}, static_argnums=2)(DATA, IDS, 5)",
        f"jit_closed_n:{op}": f"jax.jit(seg({op!r}))(DATA)",
        f"jit_traced_n:{op}": f"jax.jit({f})(DATA, IDS, 5)",
        f"jit_default_n:{op}": f"jax.jit({f})(DATA, IDS)",
        # errors
        f"list_data:{op}": f"{f}([1.0, 2.0], IDS[:2], 3)",
        f"list_ids:{op}": f"{f}(DATA, [0, 1, 1, 2, 0, 1], 3)",
        f"negative_n:{op}": f"{f}(DATA, IDS, -1)",
        f"float_n:{op}": f"{f}(DATA, IDS, 2.5)",
        f"bad_mode:{op}": f"{f}(DATA, IDS, 5, mode='foo')",
        f"spec_without_mesh:{op}": f"{f}(DATA, IDS, 5, out_sharding=jax.P())",
        f"bad_out_sharding:{op}": f"{f}(DATA, IDS, 5, out_sharding='x')",
        # vmap: over the data, the ids, both; under jit
        f"vmap_data:{op}": f"jax.vmap(seg({op!r}))(BATCH)",
        f"vmap_ids:{op}": f"jax.vmap(lambda i: SEG[{op!r}](DATA, i, 6))(BATCH_IDS)",
        f"vmap_both:{op}": f"jax.vmap(lambda x, i: SEG[{op!r}](x, i, 6))(BATCH, BATCH_IDS)",
        f"vmap_axis1:{op}": f"jax.vmap(seg({op!r}), in_axes=1)(BATCH.transpose(1, 0, 2))",
        f"jit_vmap:{op}": f"jax.jit(jax.vmap(seg({op!r})))(BATCH)",
        f"vmap_bucket:{op}": f"jax.vmap(seg({op!r}, bucket_size=4))(BATCH)",
        # printed jaxprs
        f"jaxpr:{op}": f"jaxpr(seg({op!r}), DATA)",
        f"jaxpr_int:{op}": f"jaxpr(seg({op!r}, 3), data('int32'))",
        f"jaxpr_flags:{op}": f"jaxpr(seg({op!r}, 6, UNIQUE, indices_are_sorted=True, "
                             f"unique_indices=True, mode='clip'), DATA)",
        f"jaxpr_bucket:{op}": f"jaxpr(seg({op!r}, bucket_size=4), DATA)",
        f"jaxpr_default_n:{op}": f"jaxpr(lambda x, i: {f}(x, i), DATA, IDS)",
        f"jaxpr_vmap:{op}": f"jaxpr(jax.vmap(seg({op!r})), BATCH)",
        f"jaxpr_vmap_ids:{op}": f"jaxpr(jax.vmap(lambda i: SEG[{op!r}](DATA, i, 6)), "
                                f"BATCH_IDS)",
    })

# Gradients, in every composition order. segment_prod differentiates only with
# unique ids (JAX's scatter-mul rule); with repeated ids it raises.
GRAD_FUNS = {"sum": "seg('sum')", "max": "seg('max')", "min": "seg('min')",
             "prod_unique": "seg('prod', 6, UNIQUE, unique_indices=True)",
             "sum_bucket": "seg('sum', bucket_size=4)",
             "max_bucket": "seg('max', bucket_size=4)"}
ORDERS = {
    "grad": "jax.grad(s(F))(DATA)",
    "jit_grad": "jax.jit(jax.grad(s(F)))(DATA)",
    "grad_jit": "jax.grad(s(jax.jit(F)))(DATA)",
    "vmap_grad": "jax.vmap(jax.grad(s(F)))(BATCH)",
    "grad_vmap": "jax.grad(s(jax.vmap(F)))(BATCH)",
    "jit_vmap_grad": "jax.jit(jax.vmap(jax.grad(s(F))))(BATCH)",
    "vmap_jit_grad": "jax.vmap(jax.jit(jax.grad(s(F))))(BATCH)",
    "jvp": "jax.jvp(F, (DATA,), (DATA * 3,))",
    "jacfwd": "jax.jacfwd(F)(DATA)",
    "jacrev": "jax.jacrev(F)(DATA)",
}
CASES.update({f"grad:{name}:{order}": expr.replace("F", f"({fn})")
              for name, fn in GRAD_FUNS.items() for order, expr in ORDERS.items()})
CASES.update({
    "grad:prod_repeated": "jax.grad(s(seg('prod')))(DATA)",
    "grad:ids_float0": "jax.grad(lambda i: s(seg('sum', 5, i))(DATA), allow_int=True)(IDS)",
    "grad:vmap_ids_grad": "jax.vmap(lambda i: jax.grad(s(seg('max', 6, i)))(DATA))(BATCH_IDS)",
    "grad:x64_sum": "x64(lambda: jax.grad(s(seg('sum')))(DATA.astype(np.float64)))",
    "jaxpr:grad_sum": "jaxpr(jax.grad(s(seg('sum'))), DATA)",
    "jaxpr:grad_prod_unique": "jaxpr(jax.grad(s(seg('prod', 6, UNIQUE, unique_indices=True))), "
                              "DATA)",
    "jaxpr:grad_max": "jaxpr(jax.grad(s(seg('max'))), DATA)",
    "jaxpr:vmap_grad_sum": "jaxpr(jax.vmap(jax.grad(s(seg('sum')))), BATCH)",
    "jaxpr:jvp_min": "jaxpr(lambda x: jax.jvp(seg('min'), (x,), (x,)), DATA)",
})

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
# None is in jax.ops: they come from the scatter rules (lax/gather_scatter.py)
# and the out_sharding check (sharding.canonicalize_sharding) it calls.
_BATCHED_DNUMS = ("JAX's scatter batching rule leaves np.int64 dims in the printed "
                  "dimension numbers; xjit's prints ints (same values)")
KNOWN = {
    "jaxpr:grad_max": "scatter-max's JVP gathers with FILL_OR_DROP and orders its "
                      "equations differently from JAX's (same values)",
    "jaxpr:jvp_min": "scatter-min's JVP, as scatter-max's",
    "jaxpr:vmap_grad_sum": _BATCHED_DNUMS,
    **{f"jaxpr_vmap{which}:{op}": _BATCHED_DNUMS for which in ("", "_ids") for op in OPS},
    **{f"bad_out_sharding:{op}": "canonicalize_sharding's TypeError words it differently"
       for op in OPS},
}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "ops_segment", PRELUDE, CASES, KNOWN, every=15)
