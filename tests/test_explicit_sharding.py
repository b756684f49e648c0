"""Shardings in the types (Explicit mesh axes) on 8 CPU devices, against JAX 0.10.2.

Each case runs in one subprocess with 8 CPU devices (``multi_device``) and is
compared with JAX's record (``explicit_sharding.json``, written by
``scripts/record_sharding.py explicit_sharding``): the types ``jax.typeof``
prints (eagerly and inside jit), the outputs' ``.sharding.spec``, the values,
and the error classes and messages where a layout is ambiguous or illegal.
"""
import multi_device

PRELUDE = '''
P = jax.P
mesh = jax.make_mesh((4, 2), ('X', 'Y'))
jax.set_mesh(mesh)
A = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), P('X', 'Y'))
B = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), P('X', None))
BY = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), P('Y', None))
C = jax.device_put(np.arange(64.0, dtype=np.float32).reshape(4, 16) / 10, P(None, 'Y'))
V = jax.device_put(np.arange(8.0, dtype=np.float32), P('X'))
R = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), P())
S4 = jax.device_put(np.arange(16).reshape(4, 4), P('X', None))
T4 = jax.device_put(np.arange(16).reshape(4, 4), P(None, 'X'))
COL = jax.device_put(np.arange(4).reshape(4, 1), P('X', None))
ROW = jax.device_put(np.arange(8).reshape(1, 8), P(None, 'Y'))
IMG = jax.device_put(np.arange(4 * 3 * 6 * 6, dtype=np.float32).reshape(4, 3, 6, 6) / 100,
                     P('X', None, None, None))
KER = jax.device_put(np.ones((2, 3, 3, 3), np.float32) / 10, P())

def ty(*xs):
    """Each value's type, and its layout when it is an array."""
    out = []
    for x in jax.tree.leaves(xs):
        s = getattr(x, 'sharding', None)
        out.append(f"{jax.typeof(x)}:{s.spec if s is not None else '-'}")
    return " ".join(out)

def intype(f, *args):
    """The types of f's results as traced under jit, then the results'."""
    seen = []
    def g(*a):
        r = f(*a)
        seen.extend(str(jax.typeof(l)) for l in jax.tree.leaves(r))
        return r
    out = jax.jit(g)(*args)
    return " ".join(seen) + " -> " + ty(out)

def mlp_params():
    rs = np.random.RandomState(0)
    w1 = jax.device_put(rs.randn(4, 16).astype(np.float32) * 0.3, P(None, 'Y'))
    b1 = jax.device_put(np.zeros(16, np.float32), P('Y'))
    w2 = jax.device_put(rs.randn(16, 3).astype(np.float32) * 0.3, P('Y', None))
    return [w1, b1, w2]

def mlp_loss(params, x, y):
    w1, b1, w2 = params
    h = jnp.tanh(x @ w1 + b1)
    out = jnp.dot(h, w2, out_sharding=P('X', None))
    return jnp.mean((out - y) ** 2)

Y3 = jax.device_put(np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3), P('X', None))

@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
    return loss, [p - 0.1 * g for p, g in zip(params, grads)]

def steps(n):
    params = mlp_params()
    losses = []
    for _ in range(n):
        loss, params = train_step(params, B / 10, Y3)
        losses.append(loss)
    return losses, params

def shards(a):
    return str([(s.device.id, np.asarray(s.data).tolist()) for s in a.addressable_shards])
'''

CASES = {
    # -- concrete arrays carry their sharding in their type
    "typeof_device_put": "ty(A, B, V, R)",
    "typeof_sharding": "str(jax.typeof(A).sharding)",
    "typeof_in_jit": "intype(lambda a: a, A)",
    "auto_mesh_untyped": "ty(jax.device_put(np.arange(8.0), jax.NamedSharding("
                         "jax.make_mesh((8,), ('a',), (jax.sharding.AxisType.Auto,)), P('a'))))",
    "unreduced_type": "ty(jax.device_put(A, P('X', None, unreduced={'Y'})))",
    "unreduced_shards": "shards(jax.device_put(A, P('X', None, unreduced={'Y'})))",
    # -- elementwise
    "sin_T": "ty(jnp.sin(A).T)",
    "sin_T:value": "jnp.sin(A).T",
    "broadcast_add": "ty(COL + ROW)",
    "broadcast_add:value": "COL + ROW",
    "broadcast_add_jit": "intype(lambda a, b: a + b, COL, ROW)",
    "illegal_add": "S4 + T4",
    "incompatible_add": "B + BY",
    "scalar_mul": "ty(A * 2, 2.0 * V, A ** 3, -A)",
    "where_clip_cast": "ty(jnp.where(A > 3, A, 0.0), jnp.clip(A, 1, 5), A.astype(jnp.int32))",
    "compare_select": "intype(lambda a: jax.lax.select(a > 3, a, a * 2), A)",
    "replicated_with_sharded": "ty(A + R, R * B)",
    # -- reductions
    "sums": "ty(A.sum(0), A.sum(1), A.sum(), A.mean(0), A.max(1), jnp.argmax(A, 0))",
    "sums:value": "(A.sum(0), A.sum(1), A.mean(0), A.max(1), jnp.argmax(A, 0))",
    "sum_jit": "intype(lambda a: a.sum(0), A)",
    "all_reduce_compiled": "str('all-reduce(' in jax.jit(lambda x: x.sum(0)).lower(A)"
                           ".compile().as_text())",
    "cumsum_unsharded_axis": "ty(jnp.cumsum(B, axis=1))",
    "cumsum_unsharded_axis:value": "jnp.cumsum(B, axis=1)",
    "cumsum_sharded_axis": "jnp.cumsum(A, axis=1)",
    # -- structure
    "reshape_split": "ty(V.reshape(4, 2))",
    "reshape_merge": "ty(B.reshape(32))",
    "reshape_merge:value": "B.reshape(32)",
    "reshape_unsupported": "A.reshape(4, 8)",
    "reshape_out_sharding": "ty(jax.lax.reshape(A, (4, 8), out_sharding=P('X', None)))",
    "reshape_ones": "ty(jnp.expand_dims(A, 0), jnp.squeeze(jnp.expand_dims(A, 1), 1), "
                    "A[:, None, :])",
    "transpose": "ty(jnp.transpose(A), jnp.moveaxis(A[None], 0, 2))",
    "concatenate": "ty(jnp.concatenate([B, B], 0), jnp.concatenate([A, A], 1))",
    "concatenate:value": "jnp.concatenate([B, B], 0)",
    "concatenate_mismatch": "jnp.concatenate([A, B], 1)",
    "stack_split": "ty(jnp.stack([B, B]), *jnp.split(B, 2, axis=1))",
    "pad": "ty(jnp.pad(B, ((0, 0), (1, 1))))",
    "pad:value": "jnp.pad(B, ((0, 0), (1, 1)))",
    "slice_kept": "ty(B[:, 1:3], A[4:8])",
    "slice_kept:value": "(B[:, 1:3], A[4:8])",
    "slice_indivisible": "A[0:2]",
    "iota_out_sharding": "ty(jax.lax.broadcasted_iota(jnp.int32, (8, 4), 0, "
                         "out_sharding=P('X', None)))",
    "full_like": "ty(jnp.zeros_like(A), jnp.ones_like(B))",
    "broadcast_to": "ty(jnp.broadcast_to(V[:, None], (8, 4)))",
    "sort_unsharded_axis": "ty(jnp.sort(B, axis=1))",
    "sort_sharded_axis": "jnp.sort(B, axis=0)",
    "top_k": "ty(*jax.lax.top_k(B, 2))",
    "top_k:value": "jax.lax.top_k(B, 2)",
    "take_unsharded_axis": "ty(jnp.take(B, jnp.array([0, 2]), axis=1))",
    "dynamic_slice": "intype(lambda a, i: jax.lax.dynamic_slice_in_dim(a, i, 2, axis=1), B, 1)",
    # -- dot_general
    "dot": "ty(jnp.dot(B, C), B @ C)",
    "dot:value": "jnp.dot(B, C)",
    "dot_ambiguous": "jnp.dot(jax.device_put(np.ones((8, 4), np.float32), P(None, 'X')), "
                     "jax.device_put(np.ones((4, 16), np.float32), P('X', None)))",
    "dot_out_sharding": "ty(jnp.dot(jax.device_put(np.ones((8, 4), np.float32), P(None, 'X')), "
                        "jax.device_put(np.ones((4, 16), np.float32), P('X', None)), "
                        "out_sharding=P('X', None)))",
    "dot_out_sharding:value": "jnp.dot(jax.device_put(np.ones((8, 4), np.float32), "
                              "P(None, 'X')), jax.device_put(np.ones((4, 16), np.float32), "
                              "P('X', None)), out_sharding=P('X', None))",
    "dot_vector": "ty(B @ jnp.ones(4), V @ B)",
    "conv_batch_sharded": "ty(jax.lax.conv(IMG, KER, (1, 1), 'SAME'))",
    "conv_batch_sharded:value": "jax.lax.conv(IMG, KER, (1, 1), 'SAME')",
    "conv_grad": "ty(*jax.grad(lambda x, k: jax.lax.conv(x, k, (1, 1), 'VALID').sum(), "
                 "(0, 1))(IMG, KER))",
    # -- autodiff and vmap
    "grad_square_sum": "ty(jax.grad(lambda a: (a ** 2).sum())(A))",
    "grad_square_sum:value": "jax.grad(lambda a: (a ** 2).sum())(A)",
    "mlp_grads": "ty(*jax.grad(mlp_loss)(mlp_params(), B / 10, Y3))",
    "mlp_grads:value": "jax.grad(mlp_loss)(mlp_params(), B / 10, Y3)",
    "mlp_steps": "ty(*steps(3)[1])",
    "mlp_steps:value": "steps(3)",
    "mlp_grads_in_jit": "intype(jax.grad(mlp_loss), mlp_params(), B / 10, Y3)",
    "vmap_rows": "ty(jax.vmap(jnp.sin)(B), jax.vmap(lambda r: r.sum())(A))",
    "vmap_cols": "ty(jax.vmap(jnp.sin, in_axes=1, out_axes=1)(A))",
    "vmap_rows:value": "jax.vmap(lambda r: r.sum())(A)",
    "vmap_grad_out_sharding": "ty(jax.vmap(jax.grad(lambda w, x: jnp.tanh(jnp.dot("
                              "x, w, out_sharding=P(None))).sum()), in_axes=(None, 0))("
                              "jax.device_put(np.ones((4, 4), np.float32), P(None, 'Y')), B))",
    "vmap_zeros_out_sharding": "intype(jax.vmap(lambda x: jnp.zeros((3, 4), "
                               "out_sharding=P(None, 'Y')) + x[:, None]), jnp.ones((5, 3)))",
    "grad_of_vmap": "ty(jax.grad(lambda a: jax.vmap(lambda r: jnp.tanh(r).sum())(a).sum())(B))",
    # -- reshard, auto_axes, explicit_axes
    "reshard": "ty(jax.reshard(A, P('Y', None)), jax.reshard(R, P(None, 'X')))",
    "reshard:value": "jax.reshard(A, P('Y', None))",
    "reshard_in_jit": "intype(lambda a: jax.reshard(a, P(None, 'X')) * 2, A)",
    "reshard_other_mesh_in_jit": "intype(lambda a: _in_abstract(a), A)",
    "auto_axes": "ty(jax.sharding.auto_axes(lambda a, b: a + b, out_sharding=P('X', None))"
                 "(S4, T4))",
    "auto_axes:value": "jax.sharding.auto_axes(lambda a, b: a + b, out_sharding=P('X', None))"
                       "(S4, T4)",
    "auto_axes_in_jit": "intype(lambda a, b: jax.sharding.auto_axes(lambda u, v: u + v, "
                        "out_sharding=P(None, 'X'))(a, b), S4, T4)",
    "random_out_sharding": "ty(jax.random.normal(jax.random.key(0), (8, 4), "
                           "out_sharding=P('X', 'Y')), jax.random.uniform(jax.random.key(1), "
                           "(8,), out_sharding=P('X')))",
    "random_out_sharding:value": "(jax.random.normal(jax.random.key(0), (8, 4), "
                                 "out_sharding=P('X', 'Y')), jax.random.uniform("
                                 "jax.random.key(1), (8,), out_sharding=P('X')))",
    "mesh_mismatch": "A + jax.device_put(np.ones((8, 4), np.float32), jax.NamedSharding("
                     "jax.make_mesh((2, 4), ('X', 'Y')), P('X', None)))",
    "jit_out_specs": "ty(jax.jit(lambda a: (a.sum(0), a.T, a * 2, a.reshape(2, 4, 4)))(A))",
}

CASES.update({
    # -- a classifier's pieces: einsum, layer norm, log_softmax, one_hot, take_along_axis
    "classifier_loss:value": "clf_loss(C6, B6, LAB)",
    "classifier_grad": "ty(jax.jit(jax.grad(clf_loss))(C6, B6, LAB))",
    "classifier_grad:value": "jax.jit(jax.grad(clf_loss))(C6, B6, LAB)",
    "adam_update": "ty(*jax.jit(adam)(C6, jnp.zeros_like(C6), jnp.zeros_like(C6)))",
    "triu": "ty(jnp.triu(jax.device_put(np.ones((8, 8), np.float32), P('X', None))))",
    "outer_illegal": "jnp.outer(LAB, LAB)",
    "gram_ambiguous": "B6.T @ B6",
    "concat_unsharded_operand": "jnp.concatenate([B6, jnp.ones((8, 2))], axis=1)",
    "softmax_argsort": "ty(jax.nn.softmax(B6, axis=0), jnp.argsort(B6, axis=1))",
    "max_pool": "ty(jax.lax.reduce_window(B6, -jnp.inf, jax.lax.max, (1, 2), (1, 2), 'VALID'))",
    # -- jit's shardings and device_put under jit
    "jit_out_shardings_spec": "ty(jax.jit(lambda a: a * 2, out_shardings=P('Y', None))(A))",
    "jit_out_shardings_named": "ty(jax.jit(lambda a: a * 2, out_shardings=jax.NamedSharding("
                               "mesh, P(None, 'X')))(A))",
    "jit_in_shardings_mismatch": "jax.jit(lambda a: a * 2, in_shardings=P(None, 'X'))(A)",
    "jit_in_shardings_numpy": "intype(jax.jit(lambda a: a * 2, in_shardings=P('X', None)), "
                              "np.ones((8, 4), np.float32))",
    "device_put_in_jit": "intype(lambda a: jax.device_put(a, P(None, 'X')) * 2, A)",
    "einsum_out_sharding": "ty(jnp.einsum('ij,jk->ik', jax.device_put(np.ones((8, 4), "
                           "np.float32), P(None, 'X')), jax.device_put(np.ones((4, 16), "
                           "np.float32), P('X', None)), out_sharding=P('X', None)))",
    "einsum_ambiguous": "jnp.einsum('ij,jk->ik', jax.device_put(np.ones((8, 4), np.float32), "
                        "P(None, 'X')), jax.device_put(np.ones((4, 16), np.float32), "
                        "P('X', None)))",
    "linalg_batched": "ty(jnp.linalg.cholesky(SPD), *jnp.linalg.eigh(SPD), "
                      "jnp.linalg.svd(SPD, compute_uv=False), *jnp.linalg.qr(SPD))",
    "linalg_batched:value": "(jnp.linalg.cholesky(SPD), jnp.linalg.eigh(SPD)[0], "
                            "jnp.linalg.svd(SPD, compute_uv=False))",
    "lax_linalg_batched": "ty(jax.lax.linalg.cholesky(SPD, symmetrize_input=False), "
                          "*jax.lax.linalg.eigh(SPD, symmetrize_input=False), "
                          "jax.lax.linalg.svd(SPD, compute_uv=False), *jax.lax.linalg.qr(SPD))",
    "lax_linalg_batched:value": "(jax.lax.linalg.cholesky(SPD, symmetrize_input=False), "
                                "jax.lax.linalg.eigh(SPD, symmetrize_input=False)[1], "
                                "jax.lax.linalg.svd(SPD, compute_uv=False))",
    "lax_linalg_core_sharded": "jax.lax.linalg.cholesky(jax.reshard(SPD, P(None, 'X', None)), "
                               "symmetrize_input=False)",
    "linalg_matrix_dims_sharded": "jnp.linalg.cholesky(jax.reshard(SPD, P(None, 'X', None)))",
    "tile": "ty(jnp.tile(B, (1, 2)))",
    "tile_sharded_dim": "jnp.tile(B, (2, 1))",
    "data_parallel_step": "dp_step(False)",
    "data_parallel_step:value": "dp_step(True)",
    "model_parallel_ambiguous": "mp_step()",
    "at_get_out_sharding": "ty(A.at[0:2].get(out_sharding=P(None, 'Y')))",
    "at_set_out_sharding": "ty(A.at[1].set(0., out_sharding=P('X', None)))",
    "at_add_row_ambiguous": "A.at[1].add(1.)",
    "at_add_column": "ty(B.at[:, 1].add(1.), jax.jit(lambda b: b.at[:, 1].set(0.))(B))",
    "at_add_column:value": "(B.at[:, 1].add(1.), jax.jit(lambda b: b.at[:, 1].set(0.))(B))",
    "at_multiply_rows_ambiguous": "B.at[jnp.array([0, 3])].multiply(2.)",
    "index_rows_ambiguous": "B[jnp.array([0, 3])]",
    "index_columns": "ty(B[:, jnp.array([0, 3])])",
    "gamma_sampler": "ty(jax.random.gamma(jax.random.key(0), V + 1))",
    "gamma_sampler:value": "jax.random.gamma(jax.random.key(0), V + 1)",
    "triangular_solve": "ty(jax.lax.linalg.triangular_solve(TRI, RHS, left_side=True, "
                        "lower=True))",
    "triangular_solve:value": "jax.lax.linalg.triangular_solve(TRI, RHS, left_side=True, "
                              "lower=True)",
    "wsc_assert_in_jit": "intype(lambda a: jax.lax.with_sharding_constraint(a * 2, P('X')), V)",
    "wsc_assert_mismatch": "jax.lax.with_sharding_constraint(V, P(None))",
    "key_arrays": "ty(KEYS, jax.vmap(lambda k: jax.random.normal(k, (4,)))(KEYS), "
                  "jax.vmap(jax.random.split)(KEYS), jax.random.key_data(KEYS))",
    "key_arrays_jit": "intype(lambda k: jax.vmap(lambda kk: jax.random.uniform(kk))(k), KEYS)",
    "key_arrays:value": "(jax.vmap(lambda k: jax.random.normal(k, (4,)))(KEYS), "
                        "jax.random.key_data(jax.vmap(jax.random.split)(KEYS)))",
    "numpy_operand": "ty(A + np.ones((8, 4), np.float32), jax.jit(lambda a: a + 1)("
                     "np.ones((8, 4), np.float32)))",
})

PRELUDE += '''
_rs = np.random.RandomState(0)
B6 = jax.device_put(_rs.randn(8, 6).astype(np.float32), P('X', None))
C6 = jax.device_put(_rs.randn(6, 4).astype(np.float32), P(None, 'Y'))
LAB = jax.device_put(np.arange(8) % 4, P('X'))

def _layer_norm(h):
    m = h.mean(-1, keepdims=True)
    v = ((h - m) ** 2).mean(-1, keepdims=True)
    return (h - m) / jnp.sqrt(v + 1e-5)

def clf_loss(w, x, labels):
    logits = _layer_norm(jax.nn.relu(jnp.einsum('bd,dk->bk', x, w)))
    logp = jax.nn.log_softmax(jax.reshard(logits, P('X', None)))
    l1 = -(jax.nn.one_hot(labels, 4) * logp).sum(-1).mean()
    return l1 - jnp.take_along_axis(logp, labels[:, None], axis=1).mean()

SPD = jax.device_put(np.stack([np.eye(4, dtype=np.float32) * (i + 2) + 0.5
                               for i in range(8)]), P('X', None, None))

def _dp_loss(params, x, y):
    h = jnp.tanh(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)

@jax.jit
def _dp_train(params, x, y):
    value, grads = jax.value_and_grad(_dp_loss)(params, x, y)
    return value, jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

def dp_step(values):
    """The data-parallel step of demos/06_sharding.ipynb on an Explicit mesh."""
    with jax.set_mesh(jax.make_mesh((8,), ('data',))):
        rs = np.random.RandomState(0)
        params = jax.device_put({"w1": rs.randn(32, 32).astype(np.float32) * 0.1,
                                 "w2": rs.randn(32, 1).astype(np.float32) * 0.1}, P())
        x = jax.device_put(rs.randn(64, 32).astype(np.float32), P('data'))
        y = jax.device_put(rs.randn(64, 1).astype(np.float32), P('data'))
        out = _dp_train(params, x, y)
        return out if values else ty(out)

def mp_step():
    """Its 2-d variant: the gradient's product contracts the split 'model' axis."""
    with jax.set_mesh(jax.make_mesh((4, 2), ('data', 'model'))):
        params = {"w1": jax.device_put(np.ones((32, 32), np.float32), P(None, 'model')),
                  "w2": jax.device_put(np.ones((32, 1), np.float32), P('model', None))}
        x = jax.device_put(np.ones((64, 32), np.float32), P('data'))
        return ty(_dp_train(params, x, x[:, :1]))

TRI = jax.device_put(np.stack([np.tril(np.ones((4, 4), np.float32)) + np.eye(4, dtype=np.float32)]
                               * 8), P('X', None, None))
RHS = jax.device_put(np.arange(64, dtype=np.float32).reshape(8, 4, 2), P('X', None, 'Y'))

KEYS = jax.device_put(jax.random.split(jax.random.key(0), 8), P('X'))

def adam(g, m, v):
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    return m / (jnp.sqrt(v) + 1e-8), m, v
'''

CASES.update({
    # -- eval_shape and ShapeDtypeStruct keep the types' shardings
    "eval_shape_typed": "str(jax.eval_shape(lambda a: jnp.sin(a).T * 2, A))",
    "eval_shape_unsplit": "str(jax.eval_shape(lambda a: a + 1, jnp.ones(3)))",
    "eval_shape_struct": "str(jax.eval_shape(lambda a: a.sum(1), jax.ShapeDtypeStruct("
                         "(8, 4), jnp.float32, sharding=jax.NamedSharding(mesh, P('X')))))",
    "typeof_struct": "str(jax.typeof(jax.eval_shape(lambda a: a, jax.ShapeDtypeStruct("
                     "(8, 4), jnp.float32, sharding=jax.NamedSharding(mesh, P('X'))))))",
    "trace_out_info": "str(jax.jit(lambda a: a @ a.T).trace(B).out_info)",
    # -- scan: slices keep their layout, stacked outputs gain an unsplit axis
    "scan_typed": "ty(*jax.lax.scan(lambda c, x: (c + x, x * 2), "
                  "jax.device_put(jnp.zeros(4), P('Y')), "
                  "jax.device_put(np.arange(32.).reshape(8, 4), P(None, 'Y'))))",
    "scan_typed_jit": "intype(lambda a: jax.lax.scan(lambda c, x: (c + x, x * 2), "
                      "jax.device_put(jnp.zeros(4), P('Y')), a), "
                      "jax.device_put(np.arange(32.).reshape(8, 4), P(None, 'Y')))",
    # -- a gradient that no cotangent reaches is zeros laid out as its primal
    "grad_unused_param": "ty(jax.grad(lambda a, b: jnp.sum(b), argnums=(0, 1))(A, jnp.ones(3)))",
    "grad_unused_param_jit": "ty(jax.jit(jax.grad(lambda a, b: jnp.sum(b), argnums=(0, 1)))("
                             "A, jnp.ones(3)))",
    "scan_split_xs": "jax.lax.scan(lambda c, x: (c, x), 0., B)",
    "scan_carry_layout": "jax.lax.scan(lambda c, x: (c + x, x), jnp.zeros(4), "
                         "jax.device_put(np.arange(32.).reshape(8, 4), P(None, 'Y')))",
})

PRELUDE += '''
def _in_abstract(a):
    am = jax.sharding.AbstractMesh((8,), ('A',), (jax.sharding.AxisType.Explicit,))
    with jax.sharding.use_abstract_mesh(am):
        return jax.reshard(a, P('A', None)) * 2
'''

PRELUDE += '''
AUTO = jax.make_mesh((4, 2), ('X', 'Y'), axis_types=(jax.sharding.AxisType.Auto,) * 2)
MIXED = jax.make_mesh((4, 2), ('X', 'Y'), axis_types=(jax.sharding.AxisType.Explicit,
                                                       jax.sharding.AxisType.Auto))

def under(m, f):
    with jax.set_mesh(m):
        return f()
'''

CASES.update({
    # -- out_info names a sharding only when every axis of the type's mesh is Explicit
    "eval_shape_auto_mesh": "str(under(AUTO, lambda: jax.eval_shape(lambda: jnp.ones((8, 4)))))",
    "eval_shape_auto_constraint": "str(under(AUTO, lambda: jax.eval_shape(lambda: "
                                  "jax.lax.with_sharding_constraint(jnp.ones((8, 4)), P('X')))))",
    "eval_shape_mixed_mesh": "str(under(MIXED, lambda: jax.eval_shape(lambda: "
                             "jax.reshard(jnp.ones((8, 4)), P('X')))))",
    "trace_out_info_auto": "str(under(AUTO, lambda: jax.jit(lambda a: a * 2).trace("
                           "jnp.ones(4)).out_info))",
    # -- on a mesh with Auto axes, XLA may split a typed value further over them
    "mixed_jit_elementwise": "under(MIXED, lambda: ty(jax.jit(lambda a: jnp.sin(a) * 2)("
                             "jax.device_put(np.arange(32.).reshape(8, 4), P('X', 'Y')))))",
    "mixed_jit_binary": "under(MIXED, lambda: ty(jax.jit(lambda a, b: a + b)("
                        "jax.device_put(np.arange(32.).reshape(8, 4), P('X', 'Y')), "
                        "jax.device_put(np.ones((8, 4)), P('X', None)))))",
    "mixed_auto_constraint": "under(MIXED, lambda: ty(jax.jit(lambda a: "
                             "jax.lax.with_sharding_constraint(a * 2, P(None, 'Y')))("
                             "jax.device_put(np.arange(32.).reshape(8, 4), P('X', None)))))",
    "mixed_reduce": "under(MIXED, lambda: ty(jax.jit(lambda a: a.sum(0))("
                    "jax.device_put(np.arange(32.).reshape(8, 4), P('X', 'Y')))))",
    "mixed_values": "under(MIXED, lambda: np.asarray(jax.jit(lambda a: (a * a.sum(0)).sum(1) + a[:, 0])("
                    "jax.device_put(np.arange(32.).reshape(8, 4), P('X', 'Y')))).tolist())",
    # -- grad's seed over a mesh with Explicit axes: a reshard of the literal
    "grad_seed_jaxpr": "str(jax.make_jaxpr(jax.grad(lambda a: jnp.sin(a).sum()))(A))",
    "value_and_grad_seed_jaxpr": "str(jax.make_jaxpr(jax.value_and_grad("
                                 "lambda a: (a * 2).mean()))(A))",
    "grad_seed_mixed_jaxpr": "under(MIXED, lambda: str(jax.make_jaxpr(jax.grad("
                             "lambda a: jnp.sin(a).sum()))(jax.device_put(np.ones((8, 4)), "
                             "P('X', 'Y')))))",
    "grad_seed_auto_jaxpr": "under(AUTO, lambda: str(jax.make_jaxpr(jax.grad("
                            "lambda a: jnp.sin(a).sum()))(jax.device_put(np.ones((8, 4)), "
                            "P('X', 'Y')))))",
    # -- jit equations traced under a mesh record it (ctx_mesh), as do their derivatives'
    "jit_ctx_mesh_jaxpr": "str(jax.make_jaxpr(lambda a: jax.jit(lambda b: jnp.sin(b) * 2)(a) + 1)"
                          "(A))",
    "grad_jit_ctx_mesh_jaxpr": "str(jax.make_jaxpr(jax.grad(lambda a: jax.jit("
                               "lambda b: jnp.sin(b) * 2)(a).sum()))(A))",
    "jit_ctx_mesh_auto_jaxpr": "under(AUTO, lambda: str(jax.make_jaxpr(lambda a: jax.jit("
                               "lambda b: b * 2)(a))(jnp.ones(8))))",
    "eval_shape_explicit_no_context": "str(under(AUTO, lambda: jax.eval_shape(lambda: jax.reshard("
                                      "jnp.ones((8, 4)), jax.NamedSharding(mesh, P('X', 'Y'))))))",
})

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = multi_device.tests(
    "explicit_sharding", "test_explicit_sharding", CASES)
