"""Arrays and jit over 8 CPU devices, against JAX 0.10.2.

Each case runs in one subprocess with 8 CPU devices (``multi_device``) and is
compared with JAX's record (``sharding_multi_device.json``, written by
``scripts/record_sharding.py``): values, output shardings (``.sharding.spec``),
shard indices, devices and replica ids, printed jaxprs, and the error
classes of misuse (an axis not in the mesh, a dimension the mesh axis does
not divide).
"""
import multi_device

PRELUDE = '''
NS, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))
emesh = jax.make_mesh((4, 2), ('x', 'y'))
X = jnp.arange(32.0).reshape(8, 4)
XS = jax.device_put(X, NS(mesh, P('x', 'y')))

def shards(a):
    return str([(s.index, s.device.id, s.replica_id, s.data.shape) for s in a.addressable_shards])

def sh(a):
    return (f"{a.sharding.spec} {a.is_fully_replicated} {len(a.devices())} "
            f"{sorted(d.id for d in a.sharding.device_set)}")

def visual(a, **kw):
    import contextlib, io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.debug.visualize_array_sharding(a, **kw)
    return out.getvalue()

def reduce_rows(a):
    return jnp.sin(a).sum(0)

def double(a):
    return a * 2

def wsc(a):
    return jax.lax.with_sharding_constraint(a * 2, NS(mesh, P('y', None)))

layout = __import__("importlib").import_module(jax.__name__ + ".experimental.layout")

def in_mesh(m, thunk):
    with jax.set_mesh(m):
        return thunk()

def nans(thunk):
    with jax.debug_nans(True):
        return thunk()
'''

CASES = {
    # arrays over many devices
    "put_sharding": "sh(XS)",
    "put_repr": "repr(XS.sharding)",
    "put_shards": "shards(XS)",
    "put_value": "XS",
    "put_str": "str(XS)",
    "put_repr_array": "repr(XS)",
    "put_replicated_axis": "shards(jax.device_put(X, NS(mesh, P('y'))))",
    "put_tuple_axes": "shards(jax.device_put(X, NS(mesh, P(('x', 'y')))))",
    "put_fully_replicated": "sh(jax.device_put(X, NS(mesh, P())))",
    "put_int": "jax.device_put(jnp.arange(8), NS(mesh, P('x')))",
    "shard_data": "XS.addressable_shards[5].data",
    "addressable_data": "XS.addressable_data(3)",
    "make_mesh": "repr(emesh) + str(emesh.axis_types)",
    "make_mesh_sharding": "repr(jax.device_put(X, NS(emesh, P('x'))).sharding)",
    "from_callback": "shards(jax.make_array_from_callback((8, 4), NS(mesh, P('x')), "
                     "lambda i: np.asarray(X)[i]))",
    "from_callback_value": "jax.make_array_from_callback((8, 4), NS(mesh, P(None, 'y')), "
                           "lambda i: np.asarray(X)[i])",
    "from_single_device_arrays": "jax.make_array_from_single_device_arrays((8, 4), "
                                 "NS(mesh, P('x', 'y')), [s.data for s in XS.addressable_shards])",
    "from_single_device_arrays_sharding": "sh(jax.make_array_from_single_device_arrays((8, 4), "
                                          "NS(mesh, P('x', 'y')), "
                                          "[s.data for s in XS.addressable_shards]))",
    "from_process_local": "jax.make_array_from_process_local_data(NS(mesh, P('x')), "
                          "np.asarray(X))",
    "from_process_local_sharding": "sh(jax.make_array_from_process_local_data("
                                   "NS(mesh, P('x', 'y')), np.asarray(X), (8, 4)))",
    "single_device_shards": "shards(X)",
    "eager_op": "XS * 2 + 1",
    "eager_op_sharding": "sh(XS * 2 + 1)",
    "eager_reduce_sharding": "sh(XS.sum())",
    "eager_matmul_sharding": "sh(XS @ XS.T)",
    "eager_grad_sharding": "sh(jax.grad(lambda a: (jnp.sin(a) * a).sum())(XS))",
    "eager_grad": "jax.grad(lambda a: (jnp.sin(a) * a).sum())(XS)",
    "zeros_like_sharded": "sh(jnp.zeros_like(XS))",
    "ones_like_sharded_int": "sh(jnp.ones_like(XS, dtype=jnp.int32)) + ' ' + "
                             "str(jnp.ones_like(XS, dtype=jnp.int32).dtype)",
    "full_like_sharded_value": "jnp.full_like(XS, 3.0)",
    "zeros_like_sharded_new_shape": "repr(jnp.zeros_like(XS, shape=(3,)).sharding)",
    "lax_full_like_sharded": "sh(jax.lax.full_like(XS, 2.0))",
    "lax_full_like_new_shape": "repr(jax.lax.full_like(XS, 2.0, shape=(3,)).sharding)",
    "zeros_like_replicated_new_shape": "sh(jnp.zeros_like(jax.device_put(X, NS(mesh, P())), "
                                       "shape=(3,)))",
    # a jit equation run eagerly (under vmap) on replicated values, keys included
    "vmap_jit_replicated_keys": "jax.vmap(jax.jit(lambda k: jax.random.key_data(k)))("
                                "jax.device_put(jax.random.split(jax.random.key(0), 4), "
                                "NS(mesh, P())))",
    "vmap_jit_replicated_value": "jax.vmap(jax.jit(lambda a: jnp.sin(a) * 2))("
                                 "jax.device_put(X, NS(mesh, P())))",
    # jit over many devices
    "jit_reduce": "jax.jit(lambda a: jnp.sin(a).sum(0))(XS)",
    "jit_reduce_sharding": "sh(jax.jit(lambda a: jnp.sin(a).sum(0))(XS))",
    "jit_matmul": "jax.jit(lambda a: a.T @ a)(XS)",
    "jit_matmul_sharding": "sh(jax.jit(lambda a: a.T @ a)(XS))",
    "jit_sum_sharding": "sh(jax.jit(jnp.sum)(XS))",
    "jit_elementwise_sharding": "sh(jax.jit(lambda a: a * 2 + 1)(XS))",
    "jit_mixed": "jax.jit(lambda a, b: a + b)(XS, X)",
    "jit_mixed_sharding": "sh(jax.jit(lambda a, b: a + b)(XS, X))",
    "jit_out_shardings": "sh(jax.jit(lambda a: a * 2, out_shardings=NS(mesh, P(None, 'y')))(X))",
    "jit_in_shardings": "sh(jax.jit(lambda a: a + 1, in_shardings=NS(mesh, P('x')))(X))",
    "jit_in_shardings_value": "jax.jit(lambda a: a + 1, in_shardings=NS(mesh, P('x')))(X)",
    "jit_tree": "jax.tree_util.tree_map(sh, jax.jit(lambda d: {'s': d['a'].sum(1), "
                "'t': d['a'].T})({'a': XS}))['s']",
    "wsc": "jax.jit(wsc)(XS)",
    "wsc_sharding": "sh(jax.jit(wsc)(XS))",
    "wsc_grad_sharding": "sh(jax.jit(jax.grad(lambda a: wsc(a).sum()))(XS))",
    "wsc_eager_sharding": "sh(wsc(X))",
    "wsc_format_eager": "sh(jax.lax.with_sharding_constraint(X, layout.Format("
                        "layout.Layout((1, 0)), NS(mesh, P('x', None)))))",
    "wsc_format_jit": "sh(jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, "
                      "layout.Format(layout.Layout((1, 0)), NS(mesh, P('x')))))(X))",
    "wsc_format_value": "jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, "
                        "layout.Format(layout.Layout((1, 0)), NS(mesh, P('x')))))(X)",
    "err_wsc_format_rank": "jax.lax.with_sharding_constraint(X, layout.Format("
                           "layout.Layout((0,)), NS(mesh, P('x'))))",
    "wsc_jaxpr": "str(jax.make_jaxpr(wsc)(X))",
    "wsc_vmap_jaxpr": "str(jax.make_jaxpr(jax.vmap(wsc))(jnp.ones((3, 8, 4))))",
    "wsc_grad_value": "jax.jit(jax.grad(lambda a: (wsc(a) ** 2).sum()))(XS)",
    "visualize_2d": "visual(XS)",
    "visualize_rows": "visual(jax.device_put(X, NS(mesh, P('x'))))",
    "visualize_cols_replicated": "visual(jax.device_put(X, NS(mesh, P(None, 'y'))))",
    "visualize_1d": "visual(jax.device_put(jnp.arange(16.0), NS(mesh, P(('x', 'y')))))",
    "visualize_1d_partial": "visual(jax.device_put(jnp.arange(16.0), NS(mesh, P('x'))))",
    "visualize_scaled": "visual(jax.device_put(jnp.ones((32, 8)), NS(mesh, P('x', 'y'))), "
                        "scale=0.5, use_color=False)",
    "visualize_replicated": "visual(jax.device_put(X, NS(mesh, P())))",
    "visualize_one_device": "visual(X)",
    "err_visualize_3d": "visual(jnp.ones((2, 2, 2)))",
    "inspect_sharding": "(lambda seen: (jax.debug.inspect_array_sharding({'a': XS, 'b': X}, "
                        "callback=lambda s: seen.append(repr(s))), str(seen))[1])([])",
    "lower_text": "jax.jit(reduce_rows).lower(XS).as_text()",
    "lower_text_out_shardings": "jax.jit(double, out_shardings=NS(mesh, P(None, 'y')))"
                                ".lower(XS).as_text()",
    "lower_text_constraint": "jax.jit(wsc).lower(XS).as_text()",
    "compiled_shardings": "str(jax.jit(reduce_rows).lower(XS).compile().output_shardings) + "
                          "str(jax.jit(reduce_rows).lower(XS).compile().input_shardings)",
    # jit under set_mesh: results laid out on the mesh in context
    "set_mesh_jit": "in_mesh(emesh, lambda: sh(jax.jit(lambda a: a * 2)(X)))",
    "set_mesh_jit_repr": "in_mesh(emesh, lambda: repr(jax.jit(lambda a: a * 2)(X).sharding))",
    "set_mesh_jit_auto": "in_mesh(mesh, lambda: repr(jax.jit(lambda a: a * 2)(X).sharding))",
    "set_mesh_jit_value": "in_mesh(emesh, lambda: jax.jit(lambda a: jnp.sin(a) @ a.T)(X))",
    "set_mesh_jit_scalar": "in_mesh(emesh, lambda: repr(jax.jit(jnp.sum)(X).sharding))",
    "set_mesh_jit_sharded_in": "in_mesh(emesh, lambda: repr(jax.jit(lambda a: a * 2)("
                               "jax.device_put(X, NS(emesh, P('x')))).sharding))",
    "set_mesh_jit_no_args": "in_mesh(mesh, lambda: sh(jax.jit(lambda: jnp.ones((4, 2)))()))",
    "set_mesh_key": "in_mesh(emesh, lambda: jax.jit(lambda k: jax.random.normal(k, (4,)))"
                    "(jax.random.key(0)))",
    "set_mesh_one_device": "in_mesh(jax.make_mesh((1,), ('d',)), lambda: "
                           "repr(jax.jit(lambda a: a * 2)(X).sharding))",
    "set_mesh_abstract_constraint": "in_mesh(mesh, lambda: shards(jax.jit(lambda: "
                                    "jax.lax.with_sharding_constraint(jnp.ones((8, 4)), NS("
                                    "jax.sharding.get_abstract_mesh(), P('x', 'y'))))()))",
    # eager operations under set_mesh: results laid out on the mesh, replicated
    # (flax creates its parameters this way, then constrains them eagerly)
    "set_mesh_eager_ones": "in_mesh(mesh, lambda: repr(jnp.ones((8, 4)).sharding))",
    "set_mesh_eager_op": "in_mesh(emesh, lambda: sh(X * 2 + 1))",
    "set_mesh_eager_value": "in_mesh(mesh, lambda: jnp.sin(X) @ X.T + jnp.zeros((8, 8)))",
    "set_mesh_eager_random": "in_mesh(mesh, lambda: repr(jax.random.normal("
                             "jax.random.key(0), (3,)).sharding))",
    "set_mesh_eager_constraint": "in_mesh(mesh, lambda: shards(jax.lax.with_sharding_constraint("
                                 "jnp.ones((8, 4)), NS(jax.sharding.get_abstract_mesh(), "
                                 "P('x', 'y')))))",
    "set_mesh_eager_after_exit": "(in_mesh(mesh, lambda: None), repr((X + 1).sharding))[1]",
    # key arrays constrained under jit: the key data's dimension is never split
    "jit_key_constraint": "in_mesh(mesh, lambda: [jax.random.key_data(o) for o in jax.jit("
                          "lambda k, ks: (jax.lax.with_sharding_constraint(k, P()), "
                          "jax.lax.with_sharding_constraint(ks, P('x'))))(jax.random.key(0), "
                          "jax.random.split(jax.random.key(1), 4))])",
    "jit_key_constraint_sharding": "in_mesh(mesh, lambda: repr(jax.jit(lambda ks: "
                                   "jax.lax.with_sharding_constraint(ks, P('x')))("
                                   "jax.random.split(jax.random.key(1), 4)).sharding))",
    "set_mesh_abstract_vmap": "in_mesh(mesh, lambda: sh(jax.vmap(lambda r: "
                              "jax.lax.with_sharding_constraint(r, NS("
                              "jax.sharding.get_abstract_mesh(), P('x'))))(jnp.ones((2, 8)))))",
    "set_mesh_exit": "(in_mesh(emesh, lambda: None), "
                     "repr(jax.jit(lambda a: a + 1)(X).sharding))[1]",
    # PartitionSpec and NamedSharding as JAX 0.10.2 has them
    "pspec_index": "str((P('x', None, ('a', 'b')).index(None), P('x', ('y',)).index('y'), "
                   "P('x', None, None).count(None), P(('x', 'y')).index(['x', 'y'])))",
    "pspec_concat": "str((P('x') + ('y',), ('y',) + P('x'), P('x') + P(None, 'y')))",
    "pspec_canonical": "str([repr(P(('x',))), repr(P([])), repr(P(['x', 'y'])), "
                       "P(('x',)) == P('x'), P('x', None) == P('x'), hash(P(('x',))) == hash(P('x'))])",
    "pspec_update": "str((P('x').update(partitions=('y', None)), P('x').partitions))",
    "pspec_unreduced": "str([repr(P('x', None, unreduced={'y'})), repr(P(reduced={'y'})), "
                       "repr(P('x', unreduced={'y'}) + P(None, reduced={'z'})), "
                       "P('x', unreduced={'y'}) == P('x')])",
    "pspec_pickle": "(lambda pickle: repr(pickle.loads(pickle.dumps(P('x', None, "
                    "reduced={'y'})))))(__import__('pickle'))",
    "put_unreduced": "(lambda a: str((a.sharding, a.is_fully_replicated)))(jax.device_put(X, "
                     "NS(emesh, P('x', None, unreduced={'y'}))))",
    "err_pspec_overlap": "P('x', unreduced={'x'})",
    "err_pspec_unreduced_none": "P('x', unreduced={None})",
    "err_pspec_unreduced_list": "P('x', unreduced=['y'])",
    "err_pspec_index_missing": "P('x').index('z')",
    "err_pspec_add_int": "P('x') + 1",
    "err_pspec_getitem_unreduced": "P('x', unreduced={'y'})[0]",
    "ns_update": "str([repr(NS(mesh, P('x')).update(spec=('x', None))), "
                 "NS(mesh, P('x')).update(spec=P()).spec, "
                 "repr(NS(mesh, P('x')).with_memory_kind('device')), "
                 "repr(NS(mesh, P()).update(mesh=emesh))])",
    "ns_replicated_axes": "str([sorted(NS(mesh, s).replicated_axes) for s in "
                          "(P(), P('x'), P(None, ('y', 'x')))])",
    "ns_equivalent": "str([NS(mesh, P('x')).is_equivalent_to(NS(emesh, P('x', None)), 2), "
                     "NS(mesh, P('x')).is_equivalent_to(NS(mesh, P('y')), 2), "
                     "NS(mesh, P()).is_equivalent_to(NS(mesh, P(None, None)), 2), "
                     "NS(jax.make_mesh((1,), ('a',)), P('a')).is_equivalent_to("
                     "jax.sharding.SingleDeviceSharding(jax.devices()[0]), 1), "
                     "NS(jax.sharding.AbstractMesh((4, 2), ('x', 'y')), P('x')).is_equivalent_to("
                     "NS(jax.sharding.AbstractMesh((4, 2), ('a', 'b')), P('a')), 1)])",
    "ns_update_type_sharding": "(lambda s: repr(s.update(spec=P(*s.spec[1:]))))"
                               "(jax.typeof(X).sharding)",
    "debug_nans_clean": "nans(lambda: jax.jit(lambda a: jnp.log(a + 1.0))(XS))",
    "err_debug_nans": "nans(lambda: jax.jit(lambda a: jnp.log(a - 100.0))(XS))",
    "err_debug_nans_static": "nans(lambda: jax.jit(lambda a, k: jnp.log(a - k), "
                             "static_argnums=1)(XS, 100.0))",
    # misuse
    "err_axis_not_in_mesh": "jax.device_put(X, NS(mesh, P('z')))",
    "err_indivisible": "jax.device_put(jnp.arange(6.0), NS(mesh, P('x')))",
    "err_rank": "jax.device_put(jnp.arange(6.0), NS(mesh, P('x', 'y')))",
    "err_duplicate": "NS(mesh, P('x', 'x'))",
    "err_jit_indivisible": "jax.jit(lambda a: a, in_shardings=NS(mesh, P('x')))(jnp.arange(6.0))",
}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = \
    multi_device.tests("sharding_multi_device", "test_sharding_multi_device", CASES, every=5)


def test_output_specs_read_back_from_xla_shardings():
    """Every spec over a 4x2 mesh survives the trip through XLA's sharding
    (how jit names its outputs' shardings), trailing unsplit dims dropped."""
    from xjit._src.mesh import AbstractMesh
    from xjit._src.sharding import NamedSharding, PartitionSpec as P, spec_from_hlo
    mesh = AbstractMesh((4, 2), ("x", "y"))
    for spec, want in [(P(), P()), (P("x"), P("x")), (P(None, "y"), P(None, "y")),
                       (P("y", "x"), P("y", "x")), (P(("x", "y")), P(("x", "y"))),
                       (P(("y", "x"), None), P(("y", "x"))), (P(None, ("x", "y")),
                                                               P(None, ("x", "y")))]:
        hlo = NamedSharding(mesh, spec)._to_xla_hlo_sharding(2)
        assert spec_from_hlo(mesh, hlo, 2) == want, spec
