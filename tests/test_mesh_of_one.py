"""Meshes of one device, against JAX 0.10.2.

A mesh of one device is a mesh like any other in JAX: arrays laid out on it
keep their ``NamedSharding`` (and their type, ``float32[8@x]``, on Explicit
axes) through ``jit``, eager operations, ``shard_map`` and ``device_put``.
Every case runs twice: in this process (one CPU device) against
``mesh_of_one.json``, and in a process with 8 CPU devices, its mesh made of
the first one, against ``mesh_of_one_8.json`` (``multi_device``). Both
records are written by ``scripts/record_mesh_of_one.py``.
"""
import multi_device
import recorded

PRELUDE = '''
NS, P, AxisType = jax.sharding.NamedSharding, jax.sharding.PartitionSpec, jax.sharding.AxisType
D0 = jax.devices()[:1]
mesh = jax.make_mesh((1,), ('x',), devices=D0)
mesh2 = jax.make_mesh((1, 1), ('x', 'y'), devices=D0)
amesh = jax.make_mesh((1,), ('x',), devices=D0, axis_types=(AxisType.Auto,))
omesh = jax.sharding.Mesh(np.array(D0), ('x',))
s = NS(mesh, P('x'))
X = jnp.arange(8.0)
M = jnp.arange(16.0).reshape(8, 2)
XS = jax.device_put(X, s)
MS = jax.device_put(M, NS(mesh2, P('x', 'y')))
MA = jax.device_put(M, NS(amesh, P('x', None)))
MO = jax.device_put(M, NS(omesh, P('x')))

def sh(a):
    """An array's layout: its sharding's class and spec, its type, committed."""
    return (f"{type(a.sharding).__name__} {getattr(a.sharding, 'spec', '-')} "
            f"{jax.typeof(a)} {a.committed}")

def shards(a):
    return str([(h.index, h.device.id, h.replica_id, h.data.shape) for h in a.addressable_shards])

def in_mesh(m, thunk):
    with jax.set_mesh(m):
        return thunk()
'''

CASES = {
    # device_put and the array's own API
    "put": "sh(XS)",
    "put_repr": "repr(XS.sharding)",
    "put_value": "XS",
    "put_shards": "shards(XS)",
    "put_shards_2d": "shards(MS)",
    "put_replicated": "sh(jax.device_put(X, NS(mesh, P())))",
    "put_flags": "str((XS.is_fully_replicated, XS.is_fully_addressable, len(XS.devices()), "
                 "XS.device.id))",
    "put_typeof": "str(jax.typeof(XS))",
    "from_callback": "sh(jax.make_array_from_callback((8,), s, lambda i: np.arange(8.0)[i]))",
    "from_callback_value": "jax.make_array_from_callback((8,), s, lambda i: np.arange(8.0)[i])",
    "from_single_device_arrays": "sh(jax.make_array_from_single_device_arrays((8,), s, "
                                 "[jax.device_put(X, D0[0])]))",
    # jit with in_shardings/out_shardings, and of arrays laid out on the mesh
    "jit_out_shardings": "sh(jax.jit(lambda a: a * 2, out_shardings=s)(X))",
    "jit_out_shardings_repr": "repr(jax.jit(lambda a: a * 2, out_shardings=s)(X).sharding)",
    "jit_out_replicated": "sh(jax.jit(lambda a: a * 2, out_shardings=NS(mesh, P()))(X))",
    "jit_in_shardings": "sh(jax.jit(lambda a: a * 2, in_shardings=s)(X))",
    "jit_in_shardings_transpose": "sh(jax.jit(lambda a: a.T, in_shardings=s)(M))",
    "jit_of_put": "sh(jax.jit(lambda a: a * 2)(XS))",
    "jit_of_put_spec": "str(jax.jit(lambda a: a * 2)(XS).sharding.spec)",
    "jit_of_put_value": "jax.jit(lambda a: a * 2)(XS)",
    "jit_sum": "sh(jax.jit(lambda a: a.sum())(XS))",
    "jit_transpose_2d": "sh(jax.jit(lambda a: a.T)(MS))",
    "jit_with_plain_arg": "sh(jax.jit(lambda a, b: a * b)(XS, X))",
    "jit_two_steps": "sh(jax.jit(lambda a: a + 1)(jax.jit(lambda a: a * 2)(XS)))",
    "wsc": "sh(jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, NS(amesh, P('x'))))("
           "X))",
    "wsc_explicit": "sh(jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, s))(X))",
    "reshard": "sh(jax.sharding.reshard(XS, NS(mesh, P())))",
    # eager operations and transformations
    "eager_mul": "sh(XS * 2)",
    "eager_sum": "sh(XS.sum())",
    "eager_sum_value": "XS.sum()",
    "eager_add_plain": "sh(XS + X)",
    "eager_slice": "sh(XS[2:5])",
    "eager_slice_value": "XS[2:5]",
    "grad": "sh(jax.grad(lambda a: (a * a).sum())(XS))",
    "vmap": "sh(jax.vmap(lambda a: a * 2)(XS))",
    "random_of_key_on_mesh": "sh(jax.random.normal(jax.device_put(jax.random.key(0), "
                             "NS(mesh, P())), (4,)))",
    "matmul": "sh(jax.device_put(M, NS(mesh, P('x', None))) @ jnp.ones((2, 3)))",
    "jaxpr": "str(jax.make_jaxpr(lambda a: a * 2)(XS))",
    "jaxpr_sum": "str(jax.make_jaxpr(lambda a: a.sum())(XS))",
    # shard_map over the mesh
    "shard_map": "sh(jax.shard_map(lambda a: a * 2, mesh=amesh, in_specs=P('x'), "
                 "out_specs=P('x'))(X))",
    "shard_map_jit": "sh(jax.jit(jax.shard_map(lambda a: a * 2, mesh=amesh, in_specs=P('x'), "
                     "out_specs=P('x')))(X))",
    "shard_map_psum": "sh(jax.shard_map(lambda a: jax.lax.psum(a, 'x'), mesh=amesh, "
                      "in_specs=P('x'), out_specs=P())(X))",
    "shard_map_psum_value": "jax.shard_map(lambda a: jax.lax.psum(a, 'x'), mesh=amesh, "
                            "in_specs=P('x'), out_specs=P())(X)",
    "shard_map_explicit": "sh(jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('x'), "
                          "out_specs=P('x'))(XS))",
    "shard_map_explicit_unsharded": "sh(jax.shard_map(lambda a: a * 2, mesh=mesh, "
                                    "in_specs=P('x'), out_specs=P('x'))(X))",
    # Auto axes (make_mesh's axis_types, and Mesh's default): jit keeps the
    # argument's sharding for a result of its rank computed from it
    "auto_put": "sh(MA)",
    "auto_jit": "sh(jax.jit(lambda a: a * 2)(MA))",
    "auto_jit_transpose": "sh(jax.jit(lambda a: a.T)(MA))",
    "auto_jit_sum0": "sh(jax.jit(lambda a: a.sum(0))(MA))",
    "auto_jit_reshape": "sh(jax.jit(lambda a: a.reshape(2, 4, 2))(MA))",
    "auto_jit_outputs": "str([sh(o) for o in jax.jit(lambda a: (a, a.sum(), a + 1))(MA)])",
    "auto_jit_plain_first": "sh(jax.jit(lambda b, a: a * b)(M, MA))",
    "auto_jit_plain_second": "sh(jax.jit(lambda a, b: a * b)(MA, M))",
    "auto_eager": "sh(MA * 2)",
    "auto_eager_sum": "sh(MA.sum(0))",
    "mesh_jit": "sh(jax.jit(lambda a: a + 1)(MO))",
    "mesh_jit_transpose": "sh(jax.jit(lambda a: a.T)(MO))",
    "mesh_jit_sum": "sh(jax.jit(lambda a: a.sum(1))(MO))",
    "mesh_eager_transpose": "sh(MO.T)",
    "mesh_in_shardings": "sh(jax.jit(lambda a: a + 1, in_shardings=NS(omesh, P('x')))(M))",
    "mesh_out_shardings": "str([sh(o) for o in jax.jit(lambda a: (a + 1, a.T), "
                          "out_shardings=(None, NS(omesh, P('x'))))(M)])",
    "mesh_named_then_device": "sh(jax.jit(lambda a, b: a + b)(MO, jax.device_put(M, D0[0])))",
    # under set_mesh: bare PartitionSpecs name the mesh's axes
    "ctx_put": "in_mesh(mesh, lambda: sh(jax.device_put(X, P('x'))))",
    "ctx_jit": "in_mesh(mesh, lambda: sh(jax.jit(lambda a: a * 2)(jax.device_put(X, P('x')))))",
    "ctx_jit_sum": "in_mesh(mesh, lambda: sh(jax.jit(lambda a: a.sum())("
                   "jax.device_put(X, P('x')))))",
    "ctx_eager": "in_mesh(mesh, lambda: sh(jax.device_put(X, P('x')) * 2))",
    "ctx_eager_sum": "in_mesh(mesh, lambda: sh(jax.device_put(X, P('x')).sum()))",
    "ctx_typeof": "in_mesh(mesh, lambda: str(jax.typeof(jax.device_put(X, P('x')))))",
    "ctx_jaxpr": "in_mesh(mesh, lambda: str(jax.make_jaxpr(lambda a: a * 2)("
                 "jax.device_put(X, P('x')))))",
    "ctx_jaxpr_sum": "in_mesh(mesh, lambda: str(jax.make_jaxpr(lambda a: a.sum())("
                     "jax.device_put(X, P('x')))))",
    "ctx_traced_type": "in_mesh(mesh, lambda: jax.jit(lambda a: (a, str(jax.typeof(a)))[0])("
                       "jax.device_put(X, P('x'))).sharding.spec.__repr__())",
    "ctx_plain_jit": "in_mesh(mesh, lambda: sh(jax.jit(lambda a: a * 2)(X)))",
    "ctx_arange": "in_mesh(mesh, lambda: sh(jnp.arange(4.0)))",
    "ctx_dot": "in_mesh(mesh, lambda: sh(jax.device_put(M, P('x', None)) @ jnp.ones((2, 3))))",
    "ctx_reshard": "in_mesh(mesh, lambda: sh(jax.reshard(jax.device_put(X, P('x')), P())))",
    "ctx_jit_reshard": "in_mesh(mesh, lambda: sh(jax.jit(lambda a: jax.reshard(a, P()))("
                       "jax.device_put(X, P('x')))))",
    "ctx_shard_map": "in_mesh(mesh, lambda: sh(jax.shard_map(lambda a: a * 2, in_specs=P('x'), "
                     "out_specs=P('x'))(jax.device_put(X, P('x')))))",
    "ctx_auto_jit": "in_mesh(amesh, lambda: sh(jax.jit(lambda a: a * 2)("
                    "jax.device_put(X, P('x')))))",
    "ctx_auto_plain_jit": "in_mesh(amesh, lambda: sh(jax.jit(lambda a: a * 2)(X)))",
    # one-device code with no mesh is as before
    "plain_jit": "sh(jax.jit(lambda a: a * 2)(X))",
    "plain_committed_jit": "sh(jax.jit(lambda a: a * 2)(jax.device_put(X, D0[0])))",
    # where xjit still differs
    "device_then_named": "sh(jax.jit(lambda a, b: a + b)(jax.device_put(M, D0[0]), MO))",
    "unused_mesh_arg": "sh(jax.jit(lambda a: jnp.ones((3, 3)))(MA))",
    "constant_output": "str([sh(o) for o in jax.jit(lambda a: (a, M))(MA)])",
    "explicit_and_auto_meshes": "sh(jax.jit(lambda a, b: a + b)(jax.device_put(M, s), MO))",
}

KNOWN = {
    "device_then_named": "a first argument committed to a device lays the results out on it "
                         "(SingleDeviceSharding) in JAX; xjit lays them out on the mesh",
    "unused_mesh_arg": "JAX drops an unused argument, and with it the mesh (results on one "
                       "device); xjit keeps it",
    "explicit_and_auto_meshes": "xjit's types carry no Auto mesh, so mixing arrays on an "
                                "Explicit and an Auto mesh raises no error (as on 8 devices)",
}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "mesh_of_one", PRELUDE, CASES, KNOWN, every=4)

test_matches_jax_8, test_every_case_recorded_8, test_records_match_live_jax_8 = \
    multi_device.tests("mesh_of_one_8", "test_mesh_of_one", CASES, known=KNOWN, every=4)
