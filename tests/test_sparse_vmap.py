"""``vmap`` over ``jax.experimental.sparse.BCOO`` arrays, and the
``register_vmappable`` mechanism it rests on, compared with JAX 0.10.2.

vmap maps a BCOO as one value: in_axes/out_axes name one of its batch
dimensions, sliced or stacked in ``data`` and ``indices`` together with its
``shape``. The cases run BCOO operations on the per-example arrays
(todense, products with dense operands, sums, transposes, casts, reshapes),
map along axis 0 and 1, return BCOO arrays (out_axes too), nest vmaps,
compose with jit and grad, and check the errors for axes that are not
batch dimensions. A small user type registered with ``register_vmappable``
checks the generic mechanism. Each case's record was written by
``scripts/record_sparse_vmap.py`` with the real JAX (``sparse_vmap.json``).
"""
import importlib

import numpy as np
import pytest

import recorded

PRELUDE = '''
import importlib
sparse = importlib.import_module(jax.__name__ + ".experimental.sparse")
batching = importlib.import_module(jax.__name__ + ".interpreters.batching")
BCOO = sparse.BCOO
M = jnp.array([[0., 1., 0., 2.], [3., 0., 0., 0.], [0., 0., 4., 0.]])
S = BCOO.fromdense(M)
IDX = S.indices
M3 = jnp.arange(24.).reshape(2, 3, 4) % 3
SB = BCOO.fromdense(M3, n_batch=1)
M4 = jnp.arange(120.).reshape(2, 3, 4, 5) % 4
SB2 = BCOO.fromdense(M4, n_batch=2)
SBD = BCOO.fromdense(jnp.arange(24.).reshape(2, 3, 4) % 2, n_batch=1, n_dense=1)
SBD2 = BCOO.fromdense(M4, n_batch=1, n_dense=1)
# indices shared by both batch elements (a batch dimension of size 1)
SH = BCOO((jnp.array([[1., 2.], [3., 4.]]), jnp.array([[[0, 1], [2, 3]]])), shape=(2, 3, 4))
X = jnp.array([1., -2., 0.5, 3.])
XB = jnp.stack([X, 2 * X, -X])
X2 = jnp.stack([X, X[::-1]])
XM2 = jnp.arange(16.).reshape(2, 4, 2) - 5
Y2 = jnp.array([[0.5, 1.5, -1.], [2., 0., 1.]])

def sp(d):
    return BCOO((d, SB.indices), shape=SB.shape)

def jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))

def traced_repr(s):
    seen = []
    jax.vmap(lambda s: seen.append(repr(s)) or s.todense())(s)
    return seen[0]

# a user type mapped with register_vmappable (JAX's VmappableTest)
class NamedArray:
    def __init__(self, names, data):
        assert len(names) == data.ndim
        self.names, self.data = list(names), data

class NamedMapSpec:
    def __init__(self, name, axis):
        self.name, self.axis = name, axis

def named_to_elt(cont, _, val, spec):
    if spec.name is None:
        return val
    names = list(val.names)
    if names.pop(spec.axis) != spec.name:
        raise ValueError("wrong axis name")
    return NamedArray(names, cont(val.data, spec.axis))

def named_from_elt(cont, axis_size, elt, spec):
    data = cont(axis_size, elt.data, spec.axis)
    if spec.axis is None:
        return NamedArray(elt.names, data)
    names = list(elt.names)
    names.insert(spec.axis, spec.name)
    return NamedArray(names, data)

jax.tree_util.register_pytree_node(NamedArray, lambda x: ((x.data,), x.names),
                                   lambda names, xs: NamedArray(names, xs[0]))
batching.register_vmappable(NamedArray, NamedMapSpec, int, named_to_elt, named_from_elt, None)

def named_square(x):
    return NamedArray(x.names, lax.mul(x.data, x.data))

def named(x):
    return (tuple(x.names), x.data)

NA = NamedArray(["i", "j"], jnp.arange(12.).reshape(3, 4))

def named_vmap(f, **kw):
    return named(jax.vmap(f, in_axes=NamedMapSpec("i", 0), out_axes=NamedMapSpec("i", 1),
                          axis_size=3, **kw)(NA))

class Plus1:  # to_elt binds a primitive
    def __init__(self, data):
        self.data = data

class Minus1:  # from_elt binds a primitive
    def __init__(self, data):
        self.data = data

class Indexed:  # to_elt hands each example its index
    def __init__(self, data, idx=None):
        self.data, self.idx = data, idx

batching.register_vmappable(Plus1, int, int, lambda cont, _, v, spec: cont(v.data + 1, spec),
                            None, None)
batching.register_vmappable(
    Minus1, int, int, lambda cont, _, v, spec: Minus1(cont(v.data, spec)),
    lambda cont, size, e, spec: Minus1(cont(size, e.data - 1, spec)), None)
batching.register_vmappable(
    Indexed, int, int, lambda cont, get_idx, v, spec: Indexed(cont(v.data, spec), get_idx()),
    lambda cont, size, e, spec: Indexed(cont(size, e.data, spec)), None)

class Foo:  # registered with NamedMapSpec too, then unregistered
    pass

batching.register_vmappable(Foo, NamedMapSpec, int, named_to_elt, named_from_elt, None)
batching.unregister_vmappable(Foo)
'''

CASES = {
    # per-example operations
    "todense": "jax.vmap(lambda s: s.todense())(SB)",
    "todense_fn": "jax.vmap(sparse.todense)(SB)",
    "todense_dense_dim": "jax.vmap(lambda s: s.todense())(SBD)",
    "matvec": "jax.vmap(lambda s: s @ X)(SB)",
    "matvec_both": "jax.vmap(lambda s, x: s @ x)(SB, X2)",
    "matmat_both": "jax.vmap(lambda s, x: s @ x)(SB, XM2)",
    "vecmat": "jax.vmap(lambda s, y: y @ s)(SB, Y2)",
    "matvec_dense_dim": "jax.vmap(lambda s: s @ jnp.ones(4))(SBD)",
    "dot_general": "jax.vmap(lambda s: sparse.bcoo_dot_general(s, jnp.ones((4, 2)), "
                   "dimension_numbers=(((1,), (0,)), ((), ()))))(SB)",
    "sum": "jax.vmap(lambda s: s.sum())(SB)",
    "sum_0": "jax.vmap(lambda s: s.sum(0))(SB)",
    "sum_1_todense": "jax.vmap(lambda s: s.sum(1).todense())(SB)",
    "sum_int": "jax.vmap(lambda s: s.astype(jnp.int8).sum())(SB)",
    "transpose": "jax.vmap(lambda s: s.T)(SB)",
    "transpose_todense": "jax.vmap(lambda s: s.T.todense())(SB)",
    "mul_scalar": "jax.vmap(lambda s: s * 2)(SB)",
    "mul_dense": "jax.vmap(lambda s, m: (s * m).todense())(SB, M3)",
    "neg": "jax.vmap(lambda s: (-s).todense())(SB)",
    "astype": "jax.vmap(lambda s: s.astype(jnp.int32))(SB)",
    "reshape": "jax.vmap(lambda s: s.reshape(12).todense())(SB)",
    "sum_duplicates": "jax.vmap(lambda s: s.sum_duplicates(nse=8))(SB)",
    "sort_indices": "jax.vmap(lambda s: s.T.sort_indices())(SB)",
    "extract": "jax.vmap(lambda s, m: sparse.bcoo_extract(s, m))(SB, M3 + 1)",
    "data_and_indices": "jax.vmap(lambda s: (s.data, s.indices))(SB)",
    "props": "jax.vmap(lambda s: jnp.array([s.nse, s.n_batch, s.n_sparse, s.n_dense, s.ndim]) "
             "+ 0 * s.data.sum().astype(int))(SB2)",
    "repr": "traced_repr(SB)",
    "psum": "jax.vmap(lambda s: jax.lax.psum(s.sum(), 'i'), axis_name='i')(SB)",
    # which axes may be mapped
    "in_axes_1": "jax.vmap(lambda s: s.todense(), in_axes=1)(SB2)",
    "in_axes_1_not_batch": "jax.vmap(lambda s: s.todense(), in_axes=1)(SB)",
    "in_axes_0_no_batch": "jax.vmap(lambda s: s.todense())(S)",
    "in_axes_neg": "jax.vmap(lambda s: s.todense(), in_axes=-1)(SB)",
    "in_axes_neg_same_dim": "jax.vmap(lambda s: s.todense(), in_axes=-3)(SBD)",
    "in_axes_too_big": "jax.vmap(lambda s: s.todense(), in_axes=5)(SB)",
    "in_axes_too_big_with_x": "jax.vmap(lambda s, x: s.todense(), in_axes=(5, 0))(SB, X2)",
    "in_axes_none": "jax.vmap(lambda s, x: s @ x, in_axes=(None, 0))(S, XB)",
    "in_axes_none_batched": "jax.vmap(lambda s, x: s @ x, in_axes=(None, 0))(SB, XB)",
    "in_axes_mixed": "jax.vmap(lambda s, x: s @ x, in_axes=(1, 0))(SB2, jnp.ones((3, 5)))",
    "in_axes_dict": "jax.vmap(lambda d: d['a'].todense(), in_axes=({'a': 0},))({'a': SB})",
    "in_axes_into_bcoo": "jax.vmap(lambda s: s.todense(), in_axes=((0, 0),))(SB)",
    "kwargs": "jax.vmap(lambda s: s.todense())(s=SB)",
    "in_list": "jax.vmap(lambda l: l[0] @ l[1])([SB, X2])",
    "size_mismatch": "jax.vmap(lambda s, x: s @ x)(SB, XB)",
    "axis_size_mismatch": "jax.vmap(lambda s: s.todense(), axis_size=3)(SB)",
    # BCOO outputs and out_axes
    "identity": "jax.vmap(lambda s: s)(SB)",
    "identity_nbatch2": "jax.vmap(lambda s: s)(SB2)",
    "out_axes_1": "jax.vmap(lambda s: s, out_axes=1)(SB2)",
    "out_axes_1_in_axes_1": "jax.vmap(lambda s: s, in_axes=1, out_axes=1)(SB2)",
    "out_axes_1_not_batch": "jax.vmap(lambda s: s, out_axes=1)(SB)",
    "out_axes_2_not_batch": "jax.vmap(lambda s: s, out_axes=2)(SB2)",
    "out_axes_neg": "jax.vmap(lambda s: s, out_axes=-1)(SB)",
    "out_axes_neg_same_dim": "jax.vmap(lambda s: s, out_axes=-3)(SBD2)",
    "out_axes_tuple": "jax.vmap(lambda s: (s, s.todense()), out_axes=(0, 1))(SB)",
    "returns_fromdense": "jax.vmap(lambda m: BCOO.fromdense(m, nse=3))(M3)",
    "returns_fromdense_todense": "jax.vmap(lambda m: BCOO.fromdense(m, nse=3))(M3).todense()",
    "returns_from_data": "jax.vmap(lambda d: BCOO((d, IDX), shape=(3, 4)))(jnp.stack([S.data, "
                         "-S.data]))",
    "returns_unbatched": "jax.vmap(lambda x: S, axis_size=2)(X2)",
    "returns_unbatched_out_none": "jax.vmap(lambda x: (S, x.sum()), out_axes=(None, 0))(X2)",
    "returns_half_batched": "jax.vmap(lambda d: BCOO((d, IDX), shape=(3, 4)) * 1.)"
                            "(jnp.stack([S.data, -S.data]))",
    # nested vmaps
    "nested": "jax.vmap(jax.vmap(lambda s: s.todense()))(SB2)",
    "nested_in_axes_1": "jax.vmap(jax.vmap(lambda s: s.todense()), in_axes=1)(SB2)",
    "nested_bcoo_out": "jax.vmap(jax.vmap(lambda s: s * 2))(SB2)",
    "nested_dense_outer": "jax.vmap(lambda x: jax.vmap(lambda s: s @ x)(SB))(XB)",
    "nested_matvec": "jax.vmap(jax.vmap(lambda s, x: s @ x, in_axes=(0, None)), "
                     "in_axes=(0, None))(SB2, jnp.ones(5))",
    # with jit
    "jit_vmap": "jax.jit(jax.vmap(lambda s, x: s @ x))(SB, X2)",
    "jit_vmap_bcoo_out": "jax.jit(jax.vmap(lambda s: s.T))(SB)",
    "vmap_jit": "jax.vmap(jax.jit(lambda s: s.todense()))(SB)",
    "vmap_jit_bcoo_out": "jax.vmap(jax.jit(lambda s: s * 3))(SB)",
    "jaxpr_vmap_matvec": "jaxpr(jax.vmap(lambda s: s @ X), SB)",
    "jaxpr_vmap_todense": "jaxpr(jax.vmap(lambda s: s.todense()), SB)",
    # with grad
    "grad_rhs": "jax.grad(lambda x: jax.vmap(lambda s, x: s @ x)(SB, x).sum())(X2)",
    "grad_rhs_sin": "jax.grad(lambda x: jnp.sin(jax.vmap(lambda s, x: s @ x)(SB, x)).sum())(XM2)",
    "grad_rhs_shared": "jax.grad(lambda x: jax.vmap(lambda x: SB @ x)(x).sum())(XB)",
    "grad_data": "jax.grad(lambda d: jax.vmap(lambda s: s @ X)(sp(d)).sum())(SB.data)",
    "grad_data_sin": "jax.grad(lambda d: jnp.sin(jax.vmap(lambda s, x: s @ x)(sp(d), X2)).sum())"
                     "(SB.data)",
    "grad_both": "jax.grad(lambda d, x: jnp.sin(jax.vmap(lambda s, x: s @ x)(sp(d), x)).sum(), "
                 "(0, 1))(SB.data, XM2)",
    "grad_todense": "jax.grad(lambda d: (jax.vmap(lambda s: s.todense())(sp(d)) ** 2).sum())"
                    "(SB.data)",
    "vmap_grad_rhs": "jax.vmap(jax.grad(lambda s, x: jnp.sin(s @ x).sum(), argnums=1))(SB, X2)",
    "jit_grad_vmap": "jax.jit(jax.grad(lambda d, x: jax.vmap(lambda s, x: s @ x)(sp(d), x).sum(), "
                     "(0, 1)))(SB.data, X2)",
    # a batch dimension of size 1 (indices shared by the batch elements)
    "shared_todense": "jax.vmap(lambda s: s.todense())(SH)",
    "shared_matvec": "jax.vmap(lambda s: s @ jnp.ones(4))(SH)",
    "shared_transpose": "jax.vmap(lambda s: s.T.todense())(SH)",
    "shared_mul": "jax.vmap(lambda s: (s * 2).todense())(SH)",
    "shared_data": "jax.vmap(lambda s: s.data)(SH)",
    "shared_identity": "jax.vmap(lambda s: s)(SH)",
    "shared_indices": "jax.vmap(lambda s: s.indices)(SH)",
    "shared_sum": "jax.vmap(lambda s: s.sum())(SH)",
    # register_vmappable of user types
    "named": "named_vmap(named_square)",
    "named_jit": "named_vmap(jax.jit(named_square))",
    "named_in_out_same": "named(jax.vmap(named_square, in_axes=NamedMapSpec('i', 0), "
                         "out_axes=NamedMapSpec('i', 0), axis_size=3)(NA))",
    "named_unmapped": "named(jax.vmap(named_square, in_axes=NamedMapSpec(None, None), "
                      "out_axes=NamedMapSpec(None, None), axis_size=3)(NA))",
    "named_wrong_name": "named(jax.vmap(named_square, in_axes=NamedMapSpec('j', 0), "
                        "out_axes=NamedMapSpec('i', 1), axis_size=3)(NA))",
    "named_no_axis_size": "named(jax.vmap(named_square, in_axes=NamedMapSpec('i', 0), "
                          "out_axes=NamedMapSpec('i', 1))(NA))",
    "named_with_array": "named(jax.vmap(lambda x, y: NamedArray(x.names, x.data * y), "
                        "in_axes=(NamedMapSpec('i', 0), 0), out_axes=NamedMapSpec('k', 0))"
                        "(NA, jnp.arange(3.)))",
    "named_same_spec_after_unregister": "named(jax.jit(named_square)(NA))",
    "plus1_jit": "jax.jit(lambda: jax.vmap(lambda x: x - 1, axis_size=3)(Plus1(jnp.arange(3.))))()",
    "minus1_jit": "jax.jit(lambda: jax.vmap(lambda x: x, axis_size=3)(Minus1(jnp.arange(3.))).data)()",
    "indexed": "jax.vmap(lambda x: Indexed(x.data * x.idx), axis_size=4)"
               "(Indexed(jnp.arange(4.) + 1)).data",
    "indexed_no_axis_size": "jax.vmap(lambda x: Indexed(x.data * x.idx))"
                            "(Indexed(jnp.arange(4.) + 1)).data",
    "indexed_in_axes_1": "jax.vmap(lambda x: Indexed(x.data + x.idx), in_axes=1, out_axes=1, "
                         "axis_size=3)(Indexed(jnp.ones((2, 3)))).data",
    "bad_spec_type": "jax.vmap(lambda x: x, in_axes=NamedMapSpec)(X)",
    "spec_on_array": "jax.vmap(lambda x: x, in_axes=NamedMapSpec('i', 0), axis_size=4)(X)",
}

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
KNOWN = {
    "in_axes_neg": "JAX builds an inconsistent BCOO and fails on an assertion; xjit raises "
                   "its 'Cannot map in_axis' ValueError (a negative axis is taken only where "
                   "it names the same batch dimension of shape, data and indices)",
    "out_axes_neg": "JAX fails validating the inconsistent BCOO it builds; xjit raises a "
                    "ValueError naming the out_axis",
    "shared_identity": "JAX keeps the size-1 indices batch dimension; xjit stacks the shared "
                       "indices to the full size (the same array)",
    "shared_indices": "JAX returns the size-1 indices (shape (1, 2, 2)) as the stacked "
                      "per-example indices; xjit returns them stacked (2, 2, 2)",
    "shared_sum": "JAX fails at run time (a buffer of the size-1 axis where the mapped size is "
                  "expected); xjit sums each example",
    "spec_on_array": "JAX fails on an assertion; xjit raises a TypeError naming the spec",
}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "sparse_vmap", PRELUDE, CASES, KNOWN, every=8)


def _xjit_env():
    env = recorded.namespace("xjit")
    exec(compile(PRELUDE, "<prelude>", "exec"), env)
    return env


def test_batched_bcoo_with_out_axes_none_raises():
    """JAX hands back the per-example BCOO, its arrays still batch tracers
    that fail when used later; xjit refuses at the vmap boundary."""
    env = _xjit_env()
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        env["jax"].vmap(lambda s: s, out_axes=None)(env["SB"])


def test_shared_batch_dims_match_dense():
    """A size-1 batch dimension is shared by every example; mapped results
    equal those of the dense array."""
    env = _xjit_env()
    jax, SH = env["jax"], env["SH"]
    dense = np.asarray(SH.todense())
    np.testing.assert_allclose(jax.vmap(lambda s: s.sum())(SH), dense.sum((1, 2)))
    np.testing.assert_allclose(jax.vmap(lambda s: s)(SH).todense(), dense)


def test_public_names():
    import xjit
    b = importlib.import_module("xjit.interpreters.batching")
    src = importlib.import_module("xjit._src.interpreters.batching")
    assert b.register_vmappable is src.register_vmappable
    assert b.unregister_vmappable is src.unregister_vmappable
    sparse = importlib.import_module("xjit.experimental.sparse")
    assert src.is_vmappable(sparse.BCOO.fromdense(xjit.numpy.eye(2)))
