"""Differential cases for the lax functions added to close the gap with
``jax.lax`` and the top level: special functions (values in f32/f16 and edge
cases, printed jaxprs of their derivatives), the shape/convolution helpers,
the small primitives (mulhi, reduce_precision, unstack, ...), and error
classes/messages."""

_A = "jnp.array([0.5, 1.0, 2.5, 7.0, 20.0, 0.0, -1.0, jnp.nan], jnp.float32)"
_X = "jnp.array([0.3, 2.0, 1.0, 9.0, 15.0, 1.0, 1.0, 1.0], jnp.float32)"
_U = "jnp.array([0.1, 0.5, 0.9, 0.0, 1.0, 0.3, 0.7, 0.2], jnp.float32)"
_B = "jnp.array([2.0, 0.5, 3.0, 1.0, 4.0, 0.0, 2.0, 9.0], jnp.float32)"
_F = "jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)"

CASES = []


def val(name, code):
    CASES.append((f"val-{name}", f"result = {code}"))


def jaxpr(name, fn, *args):
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})({', '.join(args)})"))


# -- special functions: values (f32, with domain edges and NaN), dtypes, jaxprs
for _n in ("igamma", "igammac", "igamma_grad_a", "random_gamma_grad"):
    val(f"{_n}-f32", f"lax.{_n}({_A}, {_X})")
    val(f"{_n}-f16", f"lax.{_n}({_A}.astype(jnp.float16), {_X}.astype(jnp.float16))")
    val(f"{_n}-bcast", f"lax.{_n}(jnp.float32(2.0), {_X})")
val("betainc-f32", f"lax.betainc({_B}, {_A}, {_U})")
val("betainc-small", "lax.betainc(jnp.float32(0.01), jnp.float32(3.0), jnp.float32(0.4))")
val("polygamma-f32", f"lax.polygamma(jnp.array([0., 1., 2., 3., 1., 0.5], jnp.float32), "
                     f"jnp.array([1., 2.5, 0.3, 4., -1.5, 2.], jnp.float32))")
val("zeta-f32", "lax.zeta(jnp.array([2., 3., 1.5, 1., 0.5], jnp.float32), "
                "jnp.array([1., 2., 0.5, 1., 1.], jnp.float32))")
val("bessel_i0e-f32", "lax.bessel_i0e(jnp.linspace(-30., 30., 13, dtype=jnp.float32))")
val("bessel_i1e-f32", "lax.bessel_i1e(jnp.linspace(-30., 30., 13, dtype=jnp.float32))")
val("bessel_i0e-bf16", "lax.bessel_i0e(jnp.linspace(-9., 9., 7).astype(jnp.bfloat16))")
val("igamma-weak", "lax.igamma(2.0, 3.0)")
val("polygamma-weak", "lax.polygamma(1., 2.)")
val("digamma-grad", "jax.grad(lax.digamma)(2.5)")
val("igamma-grad", "jax.grad(lax.igamma, argnums=(0, 1))(2.0, 1.5)")
val("igammac-grad", "jax.grad(lax.igammac, argnums=(0, 1))(2.0, 3.5)")
val("betainc-grad-x", "jax.grad(lax.betainc, argnums=2)(2.0, 3.0, 0.4)")
val("bessel_i0e-grad", "jax.vmap(jax.grad(lax.bessel_i0e))(jnp.array([-2., 0.5, 3.]))")
val("bessel_i1e-grad", "jax.vmap(jax.grad(lax.bessel_i1e))(jnp.array([-2., 0., 3.]))")
val("polygamma-grad", "jax.grad(lax.polygamma, argnums=1)(1.0, 2.0)")
val("vmap-igamma", f"jax.vmap(lax.igamma, (0, None))({_A}, jnp.float32(2.0))")
for _n, _args in (("igamma", "1.0, 2.0"), ("polygamma", "1.0, 2.0"), ("zeta", "2.0, 1.0"),
                  ("bessel_i0e", "2.0"), ("bessel_i1e", "2.0"), ("betainc", "2.0, 3.0, 0.5"),
                  ("igamma_grad_a", "1.0, 2.0"), ("igammac", "1.0, 2.0")):
    jaxpr(_n, f"lax.{_n}", _args)
jaxpr("grad-digamma", "jax.grad(lax.digamma)", "2.0")
jaxpr("grad-igamma", "jax.grad(lax.igamma, argnums=(0, 1))", "2.0", "1.0")
jaxpr("grad-bessel_i0e", "jax.grad(lax.bessel_i0e)", "2.0")
jaxpr("grad-bessel_i1e", "jax.grad(lax.bessel_i1e)", "2.0")
jaxpr("grad-betainc", "jax.grad(lax.betainc, argnums=2)", "2.0", "3.0", "0.5")
jaxpr("vmap-igamma", "jax.vmap(lax.igamma, (0, None))", "jnp.ones(3)", "1.0")
for _code in ("lax.igamma(1, 2.)", "lax.igamma(jnp.ones(3), jnp.ones(3, jnp.float16))",
              "lax.bessel_i0e(1)", "lax.igamma(jnp.ones(3), jnp.ones(2))",
              "jax.grad(lax.betainc)(2.0, 3.0, 0.5)",
              "jax.grad(lax.polygamma)(1.0, 2.0)"):
    val(f"err-{_code}", _code)

# -- shape helpers and wrappers
val("broadcast_shapes", "lax.broadcast_shapes((2, 1), (3,), (1, 1, 1))")
val("broadcast_shapes-err", "lax.broadcast_shapes((2,), (3,))")
val("broadcast_to_rank", f"lax.broadcast_to_rank({_F}, 4)")
val("collapse", "lax.collapse(jnp.ones((2, 3, 4)), 1)")
val("collapse-neg", "lax.collapse(jnp.ones((2, 3, 4)), 0, -1)")
val("collapse-err", "lax.collapse(jnp.ones((2, 3, 4)), 2, 1)")
val("reciprocal", "lax.reciprocal(jnp.array([2., 4., 0.5]))")
val("batch_matmul", f"lax.batch_matmul({_F}[None], {_F}.T[None])")
val("batch_matmul-err", f"lax.batch_matmul({_F}, {_F}[None])")
val("dynamic_index_in_dim", f"lax.dynamic_index_in_dim({_F}, -1, 1, False)")
val("dynamic_update_index_in_dim", f"lax.dynamic_update_index_in_dim({_F}, "
                                   "jnp.array([7., 8.]), 1, 1)")
val("index_take", f"lax.index_take({_F}, (jnp.array([1, 0]), jnp.array([2, -1])), (0, 1))")
val("stack", f"lax.stack([{_F}, {_F} + 1], 1)")
val("unstack", f"lax.unstack({_F}, 1)")
val("tile", f"lax.tile({_F}, (2, 1))")
val("empty", "lax.empty((2, 3), jnp.int32)")
val("reduce_precision", "lax.reduce_precision(jnp.array([0.1, 1/3, 131008.0, 1e-8], "
                        "jnp.float32), 5, 10)")
val("reduce_precision-bf16", "lax.reduce_precision(jnp.array([0.1, 1/3, 3e38]), 8, 7)")
val("mulhi-u32", "lax.mulhi(jnp.array([4294967295, 123456789, 7], jnp.uint32), "
                 "jnp.array([4294967295, 987654321, 3], jnp.uint32))")
val("mulhi-i32", "lax.mulhi(jnp.array([-2147483648, -123456789, 7, -1], jnp.int32), "
                 "jnp.array([2147483647, 987654321, -3, -1], jnp.int32))")
val("mulhi-i8", "lax.mulhi(jnp.array([-128, 100, -7], jnp.int8), jnp.array([127, 100, 9], "
                "jnp.int8))")
val("optimization_barrier", f"lax.optimization_barrier(({_F}, 2.0))")
val("rng_bit_generator", "lax.rng_bit_generator(jnp.array([1, 2, 3, 4], jnp.uint32), (2, 3))")
val("rng_bit_generator-u8", "lax.rng_bit_generator(jnp.zeros(4, jnp.uint32), (5,), jnp.uint8, "
                            "lax.RandomAlgorithm.RNG_PHILOX)[1]")
val("rng_bit_generator-err", "lax.rng_bit_generator(jnp.zeros(4, jnp.uint32), (5,), jnp.int32)")
val("associative_scan", "lax.associative_scan(lax.add, jnp.arange(7.))")
val("associative_scan-rev", "lax.associative_scan(jnp.multiply, jnp.arange(1, 7.), "
                            "reverse=True)")
val("associative_scan-tree", "lax.associative_scan(lambda a, b: (a[0] * b[0], a[1] * b[0] + "
                             "b[1]), (jnp.full(6, .5), jnp.arange(6.)))")
val("associative_scan-axis", f"lax.associative_scan(lax.max, {_F}[:, ::-1], axis=1)")
val("platform_dependent", "lax.platform_dependent(1., cpu=lambda x: x + 1, "
                          "cuda=lambda x: x + 1, default=lambda x: x)")
val("reduce_window_shape_tuple", "lax.reduce_window_shape_tuple((4, 6), (2, 2), (2, 2), "
                                 "[(0, 0), (1, 0)], (1, 2), (2, 1))")
val("conv_general_permutations", "lax.conv_general_permutations(('NHWC', 'HWIO', 'NHWC'))")
val("conv_shape_tuple", "lax.conv_shape_tuple((4, 3, 8, 8), (4, 3, 3, 3), (2, 1), 'SAME')")
val("conv_general_shape_tuple", "lax.conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 4), "
                                "(1, 1), 'SAME', ('NHWC', 'HWIO', 'NHWC'))")
val("conv_transpose_shape_tuple", "lax.conv_transpose_shape_tuple((1, 8, 8, 3), (3, 3, 3, 4), "
                                  "(2, 2), 'VALID', ('NHWC', 'HWIO', 'NHWC'))")
_IMG = "jnp.arange(2 * 5 * 4 * 3, dtype=jnp.float32).reshape(2, 5, 4, 3) / 10"
_KER = "jnp.arange(2 * 2 * 3 * 4, dtype=jnp.float32).reshape(2, 2, 3, 4) / 10 - 1"
val("conv_transpose-same", f"lax.conv_transpose({_IMG}, {_KER}, (2, 2), 'SAME')")
val("conv_transpose-valid-tk", f"lax.conv_transpose({_IMG}, {_KER}.transpose(0, 1, 3, 2), "
                               "(2, 1), 'VALID', transpose_kernel=True)")
val("conv_transpose-pads", f"lax.conv_transpose({_IMG}, {_KER}, (1, 2), ((1, 0), (2, 1)))")
val("conv_patches", f"lax.conv_general_dilated_patches({_IMG}.transpose(0, 3, 1, 2), (2, 3), "
                    "(1, 2), 'SAME')")
val("conv_local", f"lax.conv_general_dilated_local({_IMG}, jnp.ones((4, 3, 12, 2)), (1, 1), "
                  "'VALID', (2, 2), dimension_numbers=('NHWC', 'HWIO', 'NHWC'))")

# -- printed jaxprs of the new primitives and wrappers
jaxpr("stack", "lambda x: lax.stack([x, x], 1)", _F)
jaxpr("unstack", "lambda x: lax.unstack(x, 1)", _F)
jaxpr("reciprocal", "lax.reciprocal", _F)
jaxpr("optimization_barrier", "lambda x: lax.optimization_barrier((x, x))", _F)
jaxpr("reduce_precision", "lambda x: lax.reduce_precision(x, 5, 10)", _F)
jaxpr("mulhi", "lambda x: lax.mulhi(x, x)", "jnp.arange(3, dtype=jnp.uint32)")
jaxpr("collapse", "lambda x: lax.collapse(x, 0)", _F)
jaxpr("broadcast_to_rank", "lambda x: lax.broadcast_to_rank(x, 4)", _F)
jaxpr("batch_matmul", "lambda x: lax.batch_matmul(x[None], x.T[None])", _F)
jaxpr("rng_bit_generator", "lambda k: lax.rng_bit_generator(k, (2, 3))",
      "jnp.zeros(4, jnp.uint32)")
jaxpr("rng_uniform", "lambda: lax.rng_uniform(0., 1., (2,))")
jaxpr("associative_scan", "lambda x: lax.associative_scan(lax.add, x)", "jnp.arange(5.)")
jaxpr("grad-unstack", "jax.grad(lambda x: lax.unstack(x)[1].sum())", _F)
jaxpr("vmap-unstack", "jax.vmap(lambda x: lax.unstack(x)[0])", "jnp.ones((3, 2, 4))")

# -- top level
val("linear_transpose", f"jax.linear_transpose(lambda x, y: (2 * x + y.sum(), x), jnp.ones(3), "
                        "jnp.ones((2, 3)))((jnp.arange(3.), jnp.ones(3)))")
val("linear_transpose-weak", "jax.linear_transpose(lambda x: 3 * x, 1.0)(2.0)")
val("linear_transpose-tree-err", "jax.linear_transpose(lambda x: (x, x), 1.0)((2.0,))")
val("jacobian", "jax.jacobian(lambda x: x ** 2)(jnp.arange(3.))")
val("closure_convert", "jax.closure_convert(lambda x: x * jnp.arange(3.) + 1, jnp.ones(3))[1]")
val("named_scope-err", "jax.named_scope(3)")
val("named_call", "jax.named_call(lambda x: x + 1, name='foo')(1)")
val("dtypes-canonicalize", "jax.dtypes.canonicalize_dtype(np.float64)")
val("dtypes-result_type", "jax.dtypes.result_type(1, jnp.float16)")
val("dtypes-issubdtype", "(jax.dtypes.issubdtype(jnp.bfloat16, jnp.floating), "
                         "jax.dtypes.issubdtype(jax.random.key(0).dtype, jax.dtypes.prng_key), "
                         "jax.dtypes.issubdtype(jnp.float32, jax.dtypes.extended))")
val("dtypes-scalar_type_of", "(jax.dtypes.scalar_type_of(jnp.ones(2, jnp.int8)), "
                             "jax.dtypes.scalar_type_of(np.float16(1)))")
val("float0", "jax.float0")
val("version", "(jax.version.__version__, jax.__version__)")

# -- implicit differentiation and custom rules
_M = "jnp.array([[4., 1., 0.5], [1., 3., 1.], [0., 1., 2.]])"
_SOLVE = ("lambda A, b: lax.custom_linear_solve(lambda x: A @ x, b, "
          "lambda mv, r: jnp.linalg.solve(A, r), lambda vm, r: jnp.linalg.solve(A.T, r))")
val("custom_linear_solve", f"({_SOLVE})({_M}, jnp.array([1., 2., 3.]))")
val("custom_linear_solve-grad", "jnp.concatenate([g.ravel() for g in jax.grad(lambda A, b: "
                                f"({_SOLVE})(A, b).sum(), argnums=(0, 1))({_M}, "
                                "jnp.array([1., 2., 3.]))])")
val("custom_linear_solve-jvp", f"jax.jvp(lambda b: ({_SOLVE})({_M}, b), (jnp.ones(3),), "
                               "(jnp.arange(3.),))")
val("custom_linear_solve-vmap", f"jax.vmap(lambda b: ({_SOLVE})({_M}, b))(jnp.eye(3))")
val("custom_linear_solve-err", "jax.grad(lambda b: lax.custom_linear_solve(lambda x: 2 * x, b, "
                               "lambda mv, r: r / 2).sum())(jnp.ones(2))")
_ROOT = ("lambda a: lax.custom_root(lambda x: x ** 3 - a, 1.0, lambda f, x0: lax.fori_loop(0, "
         "30, lambda i, x: x - f(x) / (3 * x ** 2), x0), lambda g, y: y / g(1.0))")
val("custom_root", f"({_ROOT})(8.0)")
val("custom_root-grad", f"jax.grad({_ROOT})(8.0)")
val("custom_root-vmap", f"jax.vmap({_ROOT})(jnp.array([1., 27.]))")
val("custom_gradient", "jax.grad(jax.custom_gradient(lambda x: (x ** 2, lambda g: (g * 10 * x,)"
                       ")))(3.0)")
val("custom_vmap", "(lambda f: (f.def_vmap(lambda n, b, x: (x * 10, True)), "
                   "jax.vmap(f)(jnp.arange(3.)))[1])(jax.custom_batching.custom_vmap("
                   "lambda x: x + 1))")
val("sequential_vmap", "jax.vmap(jax.custom_batching.sequential_vmap(lambda x: x.sum()))("
                       "jnp.arange(6.).reshape(2, 3))")
val("dot-preset", f"lax.dot({_F}, {_F}.T, precision=lax.DotAlgorithmPreset.F32_F32_F32)")
jaxpr("dot-preset", "lambda x: lax.dot(x, x.T, precision=lax.DotAlgorithmPreset.F32_F32_F32)", _F)
val("random-gamma-grad", "jax.grad(lambda a: jax.random.gamma(jax.random.key(0), a, (3,)).sum()"
                         ")(2.0)")
_T = "jnp.array([[3., 1., 3., 7., -2., 7.], [0., 5., 5., 1., 9., 2.]])"
val("approx_max_k", f"lax.approx_max_k({_T}, 3)")
val("approx_min_k", f"lax.approx_min_k({_T}, 3)")
val("approx_max_k-dim0", f"lax.approx_max_k({_T}, 1, reduction_dimension=0)")
val("approx_max_k-grad", f"jax.grad(lambda x: lax.approx_max_k(x, 2)[0].sum())({_T})")
val("approx_min_k-int", "lax.approx_min_k(jnp.array([1, 5, 2, 2], jnp.int32), 2)")
val("lax-dtype", "(lax.dtype(1.0), lax.dtype(np.arange(3)), lax.dtype(jnp.ones(2, jnp.int8)))")
val("lax-dtype-err", "lax.dtype('foo')")
val("vmap-rng_bit_generator", "jax.vmap(lambda k: lax.rng_bit_generator(k, (3,)))("
                              "jnp.array([[1, 2, 3, 4], [5, 6, 7, 8]], jnp.uint32))")
for _code in ("lax.stack([1., 2.])", "lax.stack([jnp.ones(2), jnp.ones(3)])",
              "lax.unstack(jnp.float32(1.))", "lax.broadcast_to_rank(2.0, 2)",
              "lax.reciprocal(jnp.arange(1, 3))", "lax.reciprocal(2.0)",
              "lax.collapse(jnp.ones((2, 3, 4)), -2)", "lax.batch_matmul(jnp.ones(3), jnp.ones(3))",
              "lax.mulhi(jnp.ones(2), jnp.ones(2))", "lax.mulhi(jnp.array([7], jnp.uint8), 200)",
              "lax.reduce_precision(2.0, 5, 10)", "lax.empty((2,), jnp.bool_)",
              "lax.optimization_barrier(1)", "lax.tile(jnp.ones((2, 2)), (2,))"):
    val(f"edge-{_code}", _code)
for _code in ("lax.tile(1.0, ())", "lax.tile(jnp.ones(2), (0,))", "lax.stack([])",
              "lax.stack([jnp.ones(2), jnp.ones(2, jnp.int32)])"):
    val(f"edge-{_code}", _code)
val("process_indices", "(jax.process_indices(), jax.process_count(), jax.process_index())")
_L, _R = "jnp.arange(12.).reshape(6, 2)", "jnp.arange(12.).reshape(3, 2, 2)"
_G = "jnp.array([2, 1, 2], jnp.int32)"
val("ragged_dot", f"lax.ragged_dot({_L}, {_R}, {_G})")
val("ragged_dot-int", f"lax.ragged_dot({_L}.astype(jnp.int32), {_R}.astype(jnp.int32), {_G})")
val("ragged_dot-grad", f"jax.grad(lambda l: lax.ragged_dot(l, {_R}, {_G}).sum())({_L})")
val("ragged_dot-err-groups", f"lax.ragged_dot({_L}, {_R}, jnp.array([2, 1], jnp.int32))")
val("ragged_dot-err-dtype", f"lax.ragged_dot({_L}, {_R}, jnp.array([2., 1, 1]))")
val("linear_transpose-int", "jax.linear_transpose(lambda x: 2 * x, jnp.arange(3))(jnp.arange(3))")
val("linear_transpose-unused", "jax.linear_transpose(lambda x, y: x, 1.0, 2.0)(3.0)[1]")
val("linear_transpose-mixed-err", "jax.linear_transpose(lambda x: x.astype(jnp.float32), "
                                  "jnp.arange(3))")

# -- printed jaxprs known to differ (values agree; see KNOWN in the test file)
jaxpr("empty", "lambda: lax.empty((2,), jnp.float32)")
jaxpr("approx_max_k", "lambda x: lax.approx_max_k(x, 2)", _T)
jaxpr("custom_linear_solve", f"lambda b: ({_SOLVE})({_M}, b)", "jnp.ones(3)")
jaxpr("platform_dependent", "lambda x: lax.platform_dependent(x, cpu=lambda v: v + 1, "
      "default=lambda v: v)", "1.0")
jaxpr("grad-approx_min_k", "jax.grad(lambda x: lax.approx_min_k(x, 2)[0].sum())", _T)
jaxpr("vmap-approx_min_k", "jax.vmap(lambda x: lax.approx_min_k(x, 2))", _T)
val("vmap-approx_min_k", f"jax.vmap(lambda x: lax.approx_min_k(x, 2))({_T})")
val("approx_max_k-err-k", f"lax.approx_max_k({_T}, 7)")
