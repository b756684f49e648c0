"""lax's primitive objects, shape helpers and small primitives (mulhi,
reduce_precision, optimization_barrier, rng_bit_generator, associative_scan,
ragged_dot, approx_top_k), convolution helpers, platform/sharding wrappers
and the implicit-differentiation solvers (custom_linear_solve, custom_root)."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

from util import close

RNG = np.random.RandomState(0)


def test_primitive_objects_have_jax_names():
    names = {"add_p": "add", "sin_p": "sin", "reduce_sum_p": "reduce_sum", "scan_p": "scan",
             "while_p": "while", "cond_p": "cond", "scatter_add_p": "scatter-add",
             "linear_solve_p": "custom_linear_solve", "unstack_p": "unstack",
             "regularized_incomplete_beta_p": "regularized_incomplete_beta",
             "mulhi_p": "mulhi", "and_p": "and", "not_p": "not"}
    for attr, name in names.items():
        assert getattr(lax, attr).name == name
    eqns = jax.make_jaxpr(lambda x: jnp.sin(x) + 1)(1.0).eqns
    assert [e.primitive for e in eqns] == [lax.sin_p, lax.add_p]


# --------------------------------------------------------------------------
# Shape helpers and wrappers


def test_shape_helpers():
    assert lax.broadcast_shapes((2, 1), (3,)) == (2, 3)
    with pytest.raises(ValueError, match="Incompatible shapes"):
        lax.broadcast_shapes((2,), (3,))
    assert lax.broadcast_to_rank(jnp.ones(3), 3).shape == (1, 1, 3)
    assert lax.collapse(jnp.ones((2, 3, 4)), 0, 2).shape == (6, 4)
    with pytest.raises(ValueError, match="Invalid dimension range"):
        lax.collapse(jnp.ones((2, 3, 4)), 2, 1)
    close(lax.reciprocal(jnp.array([2.0, 4.0])), [0.5, 0.25])
    x = RNG.randn(3, 2, 4).astype(np.float32)
    y = RNG.randn(3, 4, 5).astype(np.float32)
    close(lax.batch_matmul(x, y), x @ y, rtol=1e-5)
    with pytest.raises(ValueError, match="same ndim"):
        lax.batch_matmul(x, y[0])


def test_dynamic_index_and_index_take():
    f = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    close(lax.dynamic_index_in_dim(f, 2, 0, keepdims=False), f[2])
    close(jax.jit(lambda i: lax.dynamic_index_in_dim(f, i, 1))(-1), f[:, -1:])
    out = lax.dynamic_update_index_in_dim(f, np.zeros(4, np.float32), 1, 0)
    want = f.copy()
    want[1] = 0
    close(out, want)
    close(lax.index_take(f, (np.array([2, -1, 0]), np.array([1, 3, 5])), (0, 1)),
          f[[2, -1, 0], [1, 3, 1]])


def test_stack_unstack():
    x = RNG.randn(2, 3).astype(np.float32)
    parts = lax.unstack(x, 1)
    assert isinstance(parts, tuple) and len(parts) == 3
    close(lax.stack(parts, 1), x)
    close(lax.stack([x, x], -1), np.stack([x, x], -1))
    close(jax.grad(lambda x: (lax.unstack(x)[1] * 2).sum())(x), np.array([[0.0] * 3, [2.0] * 3]))
    close(jax.vmap(lambda x: lax.unstack(x)[1])(np.stack([x, x])), np.stack([x[1], x[1]]))
    with pytest.raises(ValueError, match="out of bounds"):
        lax.unstack(x, 2)


def test_tile_and_empty():
    close(lax.tile(np.arange(3.0), (2,)), np.tile(np.arange(3.0), 2))
    e = lax.empty((2, 3), jnp.int32)
    assert e.shape == (2, 3) and e.dtype == np.int32
    assert "empty[" in str(jax.make_jaxpr(lambda: lax.empty((2,), jnp.float32))())


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32])
def test_mulhi_matches_exact_products(dtype):
    info = np.iinfo(dtype)
    x = RNG.randint(info.min, int(info.max) + 1, 50, dtype=np.int64)
    y = RNG.randint(info.min, int(info.max) + 1, 50, dtype=np.int64)
    x[:2], y[:2] = info.min, [info.max, info.min]
    bits = info.bits
    want = [(int(a) * int(b)) >> bits for a, b in zip(x, y)]
    want = np.array([w - (1 << bits) if w >= (1 << (bits - 1)) and info.min < 0 else w
                     for w in want]).astype(dtype) if info.min < 0 else np.array(want, dtype)
    out = lax.mulhi(x.astype(dtype), y.astype(dtype))
    assert out.dtype == dtype
    np.testing.assert_array_equal(np.asarray(out), want)


def test_reduce_precision():
    x = RNG.randn(100).astype(np.float32) * 1000
    close(lax.reduce_precision(x, 8, 7), x.astype(jnp.bfloat16).astype(np.float32), rtol=0)
    close(lax.reduce_precision(x, 5, 10), x.astype(np.float16).astype(np.float32), rtol=0)
    close(jax.grad(lambda v: lax.reduce_precision(v, 5, 10))(0.1), 1.0)
    with pytest.raises(TypeError, match="reduce_precision does not accept dtype int32"):
        lax.reduce_precision(np.arange(3, dtype=np.int32), 5, 10)


def test_optimization_barrier_transforms():
    x = np.arange(3.0, dtype=np.float32)
    a, b = lax.optimization_barrier((x, 2.0))
    close(a, x)
    close(jax.grad(lambda v: lax.optimization_barrier(v * v).sum())(x), 2 * x)
    close(jax.vmap(lambda v: lax.optimization_barrier(v + 1))(x), x + 1)
    assert "optimization_barrier" in str(jax.make_jaxpr(lax.optimization_barrier)(x))


def test_rng_bit_generator_and_uniform():
    key = np.array([1, 2, 3, 4], np.uint32)
    k1, bits = lax.rng_bit_generator(key, (3, 5))
    k2, bits2 = lax.rng_bit_generator(key, (3, 5))
    assert bits.dtype == np.uint32 and bits.shape == (3, 5) and k1.shape == (4,)
    np.testing.assert_array_equal(np.asarray(bits), np.asarray(bits2))
    assert not np.array_equal(np.asarray(k1), key)
    _, small = lax.rng_bit_generator(key, (7,), np.uint8)
    assert small.dtype == np.uint8
    with pytest.raises(TypeError, match="unsupported dtype"):
        lax.rng_bit_generator(key, (2,), np.int32)
    with pytest.raises(TypeError, match="uint32\\[4\\]"):
        lax.rng_bit_generator(np.zeros(3, np.uint32), (2,))
    u = np.asarray(lax.rng_uniform(np.float32(2.0), np.float32(3.0), (1000,)))
    assert ((u >= 2) & (u < 3)).all() and u.std() > 0.1


def test_associative_scan():
    x = RNG.randn(4, 9).astype(np.float32)
    close(lax.associative_scan(lax.add, x, axis=1), np.cumsum(x, 1), rtol=1e-5, atol=1e-5)
    close(lax.associative_scan(lax.max, x), np.maximum.accumulate(x, 0))
    close(lax.associative_scan(jnp.multiply, x[0], reverse=True),
          np.cumprod(x[0][::-1])[::-1], rtol=1e-5)
    for n in range(1, 10):
        v = np.arange(1.0, n + 1, dtype=np.float32)
        close(lax.associative_scan(lax.add, v), np.cumsum(v))
    # a linear recurrence as a scan over (a, b) pairs
    a, b = np.full(6, 0.5, np.float32), np.arange(6.0, dtype=np.float32)
    _, h = lax.associative_scan(lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]), (a, b))
    ref, acc = [], 0.0
    for ai, bi in zip(a, b):
        acc = acc * ai + bi
        ref.append(acc)
    close(h, ref)
    close(jax.grad(lambda v: lax.associative_scan(lax.add, v).sum())(x[0]),
          np.arange(9, 0, -1))
    with pytest.raises(ValueError, match="same first dimension"):
        lax.associative_scan(lambda p, q: p, (np.ones(3), np.ones(4)))


# --------------------------------------------------------------------------
# Convolutions


@pytest.mark.parametrize("strides,padding", [((1, 1), "SAME"), ((2, 2), "VALID"),
                                             ((1, 2), "VALID")])
def test_conv_transpose_is_gradient_of_conv(strides, padding):
    """With transpose_kernel=True, conv_transpose is the transpose (VJP) of a
    convolution whose windows tile the input exactly."""
    x = RNG.randn(1, 9, 9, 2).astype(np.float32)
    k = RNG.randn(3, 3, 2, 4).astype(np.float32)
    dn = ("NHWC", "HWIO", "NHWC")

    def fwd(v):
        return lax.conv_general_dilated(v, k, strides, padding, dimension_numbers=dn)
    y, pull = jax.vjp(fwd, x)
    ct = RNG.randn(*y.shape).astype(np.float32)
    out = lax.conv_transpose(ct, k, strides, padding, dimension_numbers=dn,
                             transpose_kernel=True)
    close(out, pull(ct)[0], rtol=1e-4, atol=1e-4)
    shape = lax.conv_transpose_shape_tuple(ct.shape, k.transpose(0, 1, 3, 2).shape, strides,
                                           padding, dn)  # the kernel as transposed
    assert tuple(int(d) for d in shape) == out.shape


def test_conv_patches_and_local():
    x = RNG.randn(2, 3, 5, 4).astype(np.float32)  # NCHW
    p = np.asarray(lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID"))
    assert p.shape == (2, 3 * 4, 4, 3)
    for c in range(3):
        for i in range(2):
            for j in range(2):
                close(p[:, c * 4 + i * 2 + j], x[:, c, i:i + 4, j:j + 3])
    w = RNG.randn(5, 12, 4, 3).astype(np.float32)  # (out, in * window, *out spatial)
    out = lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 2),
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
    close(out, np.einsum("nihw,oihw->nohw", p, w), rtol=1e-4, atol=1e-4)
    # with a shared kernel it is an ordinary convolution
    k = RNG.randn(5, 3, 2, 2).astype(np.float32)
    shared = np.broadcast_to(k.reshape(5, 12)[:, :, None, None], (5, 12, 4, 3))
    close(lax.conv_general_dilated_local(x, shared, (1, 1), "VALID", (2, 2),
                                         dimension_numbers=("NCHW", "OIHW", "NCHW")),
          lax.conv_general_dilated(x, k, (1, 1), "VALID"), rtol=1e-4, atol=1e-4)


def test_conv_shape_tuples():
    assert lax.conv_shape_tuple((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), [(1, 1), (1, 1)]) == \
        (1, 4, 8, 8)
    assert lax.conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 4), (2, 2), "SAME",
                                        ("NHWC", "HWIO", "NHWC")) == (1, 4, 4, 4)
    assert lax.reduce_window_shape_tuple((4, 6), (2, 2), (2, 2), [(0, 0), (0, 0)]) == (2, 3)
    assert lax.conv_general_permutations(("NCHW", "OIHW", "NCHW")) == \
        ((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))


def test_dot_algorithm_presets_accepted():
    x = RNG.randn(3, 3).astype(np.float32)
    close(lax.dot(x, x, precision=lax.DotAlgorithmPreset.F32_F32_F32), x @ x, rtol=1e-5)
    j = jax.make_jaxpr(lambda v: lax.dot(v, v, precision=lax.DotAlgorithmPreset.F32_F32_F32))(x)
    assert "precision=F32_F32_F32" in str(j)


def test_sharding_constraint_platform_dependent_and_composite():
    x = np.arange(3.0)
    assert lax.with_sharding_constraint(x, None) is x
    close(lax.platform_dependent(x, cpu=lambda v: v + 1, default=lambda v: v - 1),
          x + 1 if jax.default_backend() == "cpu" else x - 1)
    with pytest.raises(NotImplementedError):
        lax.platform_dependent(x, tpu=lambda v: v)
    double = lax.composite(lambda v: v * 2, name="my.double")
    close(double(x), 2 * x)
    close(jax.grad(lambda v: double(v).sum())(x), np.full(3, 2.0))


# --------------------------------------------------------------------------
# Implicit differentiation


def _lin_solve(A, b, symmetric=False):
    return lax.custom_linear_solve(
        lambda x: A @ x, b, lambda mv, r: jnp.linalg.solve(A, r),
        None if symmetric else (lambda vm, r: jnp.linalg.solve(A.T, r)), symmetric=symmetric)


def test_custom_linear_solve():
    A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], np.float32)
    A[0, 2] = 0.5
    b = np.array([1.0, 2.0, 3.0], np.float32)
    Ainv = np.linalg.inv(A.astype(np.float64))
    close(_lin_solve(A, b), Ainv @ b, rtol=1e-5)
    gA, gb = jax.grad(lambda A, b: _lin_solve(A, b).sum(), argnums=(0, 1))(A, b)
    ones_Ainv = Ainv.T @ np.ones(3)
    close(gb, ones_Ainv, rtol=1e-5)
    close(gA, -np.outer(ones_Ainv, Ainv @ b), rtol=1e-4, atol=1e-6)
    close(jax.jacfwd(lambda b: _lin_solve(A, b))(b), Ainv, rtol=1e-5, atol=1e-6)
    close(jax.vmap(_lin_solve, (None, 0))(A, np.stack([b, 2 * b])), np.stack([Ainv @ b,
                                                                            2 * Ainv @ b]),
          rtol=1e-5)
    close(jax.jit(_lin_solve)(A, b), Ainv @ b, rtol=1e-5)
    S = A + A.T
    close(jax.grad(lambda b: _lin_solve(S, b, True).sum())(b),
          np.linalg.inv(S.astype(np.float64)) @ np.ones(3), rtol=1e-5)
    no_t = lambda b: lax.custom_linear_solve(lambda x: A @ x, b,  # noqa: E731
                                             lambda mv, r: jnp.linalg.solve(A, r)).sum()
    with pytest.raises(TypeError, match="transpose_solve required"):
        jax.grad(no_t)(b)


def test_custom_root_sqrt():
    def newton(f, x0):
        return lax.fori_loop(0, 20, lambda i, x: x - f(x) / jax.grad(f)(x), x0)

    def sqrt(a):
        return lax.custom_root(lambda x: x ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))
    close(sqrt(2.0), np.sqrt(2.0))
    close(jax.grad(sqrt)(2.0), 0.5 / np.sqrt(2.0))
    close(jax.jit(jax.grad(sqrt))(4.0), 0.25)
    close(jax.vmap(sqrt)(jnp.array([4.0, 9.0])), [2.0, 3.0])
    close(jax.jvp(sqrt, (9.0,), (1.0,))[1], 1 / 6)


def test_ragged_dot_matches_per_group_products():
    lhs = RNG.randn(7, 3).astype(np.float32)
    rhs = RNG.randn(3, 3, 4).astype(np.float32)
    sizes = np.array([2, 0, 4], np.int32)
    want = np.zeros((7, 4))
    row = 0
    for g, n in enumerate(sizes):
        want[row:row + n] = lhs[row:row + n] @ rhs[g]
        row += n
    close(lax.ragged_dot(lhs, rhs, sizes), want, rtol=1e-5, atol=1e-6)
    close(jax.jit(lax.ragged_dot)(lhs, rhs, sizes), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="group dimension size"):
        lax.ragged_dot(lhs, rhs, sizes[:2])


def test_approx_top_k_is_exact():
    x = RNG.randn(4, 10).astype(np.float32)
    vals, idx = lax.approx_max_k(x, 3)
    close(vals, -np.sort(-x, 1)[:, :3])
    np.testing.assert_array_equal(np.asarray(idx), np.argsort(-x, 1, kind="stable")[:, :3])
    vals, idx = lax.approx_min_k(x, 2, reduction_dimension=0)
    close(vals, np.sort(x, 0)[:2])
    g = jax.grad(lambda v: lax.approx_min_k(v, 2)[0].sum())(x)
    assert np.asarray(g).sum() == 8 and set(np.unique(np.asarray(g))) == {0.0, 1.0}
    close(jax.vmap(lambda v: lax.approx_max_k(v, 1)[0])(x), x.max(1, keepdims=True))
    with pytest.raises(ValueError, match="floating"):
        lax.approx_max_k(np.arange(3), 1)
