"""Differential cases for lax/jnp correctness fixes: ``lax.pow`` with integer
exponents, comparisons that reject complex operands, boolean iota, the
ml_dtypes narrow float/int types, ``slice_in_dim`` strides, ``reshape`` with
``dimensions`` (and ``order='F'``), complex QR, ``sort_complex`` and negative
shapes in the random samplers, and ``jnp.power``'s choice of primitive."""

_F = "jnp.arange(1.0, 4.0)"
_I = "jnp.arange(3)"
_Y = "jnp.arange(24.0).reshape(2, 3, 4)"
_CA = ("(jnp.array([[1., 2., -1.], [0.5, 3., 1.], [2., -1., 4.], [1., 1., 1.]]) "
       "+ 1j * jnp.array([[0., 1., 2.], [-1., 0.5, 0.], [1., 1., -2.], [0., 3., 1.]]))"
       ".astype(jnp.complex64)")

CASES = []


def case(name, code):
    CASES.append((name, code if "result" in code else f"result = {code}"))


# 1. lax.pow: inexact base, integer or same-dtype inexact exponent
case("pow-int-exp", f"lax.pow({_F}, {_I})")
case("pow-int8-exp-f16", f"lax.pow({_F}.astype(jnp.float16), {_I}.astype(jnp.int8))")
case("pow-uint-exp", f"lax.pow({_F}, {_I}.astype(jnp.uint32))")
case("pow-neg-int-exp", f"lax.pow({_F}, -{_I})")
case("pow-complex-int-exp", f"jnp.stack([lax.pow({_F} + 1j, {_I}).real, lax.pow({_F} + 1j, {_I}).imag])")
case("pow-py-int", f"lax.pow({_F}, 2)")
case("pow-np-int8", f"lax.pow({_F}, np.int8(2))")
case("pow-weak-base", f"lax.pow(2.0, {_I})")
case("pow-err-int-base", f"lax.pow({_I}, {_I})")
case("pow-err-py-int-base", f"lax.pow(2, {_F})")
case("pow-err-bool-exp", f"lax.pow({_F}, {_I} > 0)")
case("pow-err-mixed-floats", f"lax.pow({_F}.astype(jnp.float16), {_F})")
case("pow-err-shapes", f"lax.pow({_F}, jnp.arange(2))")
case("jaxpr-pow-int", f"jax.make_jaxpr(lax.pow)({_F}, {_I})")
case("jaxpr-pow-py-int", f"jax.make_jaxpr(lambda a: lax.pow(a, 2))({_F})")
case("jaxpr-pow-weak", f"jax.make_jaxpr(lambda a: lax.pow(2.0, a))({_I})")
case("jvp-pow-int", f"jax.jvp(lambda a: lax.pow(a, {_I}), ({_F},), ({_F},))[1]")
case("jvp-pow-int-zero-base", f"jax.jvp(lambda a: lax.pow(a, {_I}), ({_F} - 1,), ({_F},))[1]")
case("jaxpr-jvp-pow-int",
     "jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: lax.pow(a, b), (a,), (a,)))"
     f"({_F}, {_I})")
case("grad-pow-int-scalar", "jax.grad(lambda a: lax.pow(a, jnp.int32(3)))(2.0)")
case("vmap-pow-int", f"jax.vmap(lax.pow)({_F}.reshape(3, 1), {_I}.reshape(3, 1))")
case("jaxpr-vmap-pow-int",
     f"jax.make_jaxpr(jax.vmap(lax.pow, (0, None)))({_F}.reshape(3, 1), {_I}[:1])")

# 2. order comparisons reject complex; eq/ne/max/min accept it
for op in ("lt", "le", "gt", "ge", "eq", "ne"):
    case(f"cmp-complex-{op}", f"lax.{op}(jnp.array([1 + 1j]), jnp.array([1 + 2j]))")
case("max-complex", "jnp.abs(lax.max(jnp.array([1 + 1j, 2 - 1j]), jnp.array([1 + 2j, 1 + 5j])))")
case("cmp-complex-jnp-less", "jnp.less(jnp.array([1 + 1j]), jnp.array([1 + 2j]))")

# 3. iota validates its dtype before lowering
case("iota-bool", "lax.iota(bool, 3)")
case("broadcasted-iota-bool", "lax.broadcasted_iota(bool, (2, 3), 1)")
case("arange-bool", "jnp.arange(3, dtype=bool)")
case("iota-bf16", "lax.iota(jnp.bfloat16, 3)")
case("iota-complex-real", "lax.iota(jnp.complex64, 3).real")
case("eye-bool", "jnp.eye(2, dtype=bool)")

# 4. narrow ml_dtypes types lower
for dt in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
           "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float4_e2m1fn",
           "int4", "uint4", "int2", "uint2"):
    case(f"narrow-add-{dt}", f"(jnp.ones(3, jnp.{dt}) + 1).astype(jnp.float32)")
    case(f"narrow-repr-{dt}", f"repr(jnp.ones(2, jnp.{dt}) * 2)")
    case(f"narrow-cvt-{dt}", f"jnp.array([0., 1., 2.]).astype(jnp.{dt}).astype(jnp.float32)")
    case(f"narrow-lt-{dt}", f"jnp.ones(3, jnp.{dt}) < 2")
    case(f"narrow-jaxpr-{dt}", f"jax.make_jaxpr(lambda a: a * 2)(jnp.ones(2, jnp.{dt}))")
case("narrow-e8m0-zero", "jnp.arange(3.0).astype(jnp.float8_e8m0fnu).astype(jnp.float32)")

# 5. slice strides as JAX prints them
case("jaxpr-slice-no-strides", f"jax.make_jaxpr(lambda a: lax.slice(a, (0,), (2,)))({_F})")
case("jaxpr-slice-unit-strides", f"jax.make_jaxpr(lambda a: lax.slice(a, (0,), (2,), (1,)))({_F})")
case("jaxpr-slice-in-dim", f"jax.make_jaxpr(lambda a: lax.slice_in_dim(a, 0, 2))({_F})")
case("jaxpr-slice-in-dim-axis", f"jax.make_jaxpr(lambda a: lax.slice_in_dim(a, 1, 3, axis=2))({_Y})")
case("jaxpr-slice-in-dim-stride", f"jax.make_jaxpr(lambda a: lax.slice_in_dim(a, 0, 3, 2))({_F})")
case("jaxpr-index-in-dim", f"jax.make_jaxpr(lambda a: lax.index_in_dim(a, 1, 1))({_Y})")
case("jaxpr-basic-slice", f"jax.make_jaxpr(lambda a: a[0:2])({_F})")

# 6. reshape with dimensions
case("reshape-dims", f"lax.reshape({_Y}, (4, 6), dimensions=(2, 0, 1))")
case("reshape-dims-list", f"lax.reshape({_Y}, (4, 6), dimensions=[2, 0, 1])")
case("reshape-dims-err-dup", f"lax.reshape({_Y}, (4, 6), dimensions=(2, 0, 0))")
case("reshape-dims-err-short", f"lax.reshape({_Y}, (4, 6), dimensions=(2, 0))")
case("reshape-dims-scalar", "lax.reshape(3.0, (1,), dimensions=())")
case("jaxpr-reshape-dims", f"jax.make_jaxpr(lambda a: lax.reshape(a, (4, 3, 2), dimensions=(2, 1, 0)))({_Y})")
case("jaxpr-reshape-identity-dims",
     f"jax.make_jaxpr(lambda a: lax.reshape(a, (2, 3, 4), dimensions=(0, 1, 2)))({_Y})")
case("jvp-reshape-dims",
     f"jax.jvp(lambda a: lax.reshape(a, (4, 6), dimensions=(2, 0, 1)), ({_Y},), ({_Y},))[1]")
_GRAD_RS = ("jax.grad(lambda a: (lax.reshape(a, (4, 6), dimensions=(2, 0, 1)) "
            "* jnp.arange(24.).reshape(4, 6)).sum())")
case("grad-reshape-dims", f"{_GRAD_RS}({_Y})")
case("jaxpr-grad-reshape-dims", f"jax.make_jaxpr({_GRAD_RS})({_Y})")
case("jaxpr-transpose-reshape-dims",
     "jax.make_jaxpr(lambda a: jax.linear_transpose(lambda b: lax.reshape(b, (4, 6), "
     f"dimensions=(2, 0, 1)), a)(jnp.ones((4, 6))))({_Y})")
case("vmap-reshape-dims",
     f"jax.vmap(lambda a: lax.reshape(a, (4, 2), dimensions=(1, 0)), in_axes=1)({_Y})")
case("jit-reshape-dims", f"jax.jit(lambda a: lax.reshape(a, (6, 4), dimensions=(1, 2, 0)))({_Y})")
case("reshape-F", f"jnp.reshape({_Y}, (6, 4), order='F')")
case("reshape-F-3d", f"jnp.reshape({_Y}, (3, 2, 4), order='F')")
case("jaxpr-reshape-F", f"jax.make_jaxpr(lambda a: jnp.reshape(a, (6, 4), order='F'))({_Y})")
case("jaxpr-method-reshape-F", f"jax.make_jaxpr(lambda a: a.reshape((6, 4), order='F'))({_Y})")
case("jaxpr-ravel-F", f"jax.make_jaxpr(lambda a: jnp.ravel(a, order='F'))({_Y})")
case("jaxpr-ravel-F-1d", f"jax.make_jaxpr(lambda a: jnp.ravel(a, order='F'))({_I})")
case("ravel-F", f"jnp.ravel({_Y}, order='F')")
case("ravel-err-K", f"jnp.ravel({_Y}, order='K')")
case("ravel-err-A", f"jnp.ravel({_Y}, order='A')")
case("ravel-err-Q", f"jnp.ravel({_Y}, order='Q')")
case("reshape-err-Q", f"jnp.reshape({_Y}, (4, 6), order='Q')")

# 7. complex QR
_QR = f"jnp.linalg.qr({_CA})"
case("qr-complex-q", f"jnp.stack([{_QR}[0].real, {_QR}[0].imag])")
case("qr-complex-r", f"jnp.stack([{_QR}[1].real, {_QR}[1].imag])")
case("qr-complex-complete-q-dtype", f"jnp.linalg.qr({_CA}, mode='complete')[0].shape")
case("qr-complex-wide-r", f"jnp.abs(jnp.linalg.qr({_CA}.T)[1])")
case("qr-complex128-q", f"jnp.abs(jnp.linalg.qr({_CA}.astype(jnp.complex128))[0])")
case("qr-complex-grad",
     f"jax.grad(lambda x: jnp.real(jnp.linalg.qr(x)[0] * jnp.arange(12.).reshape(4, 3)).sum())"
     f"({_CA}).real")
case("qr-complex-grad-r", f"jax.grad(lambda x: jnp.abs(jnp.linalg.qr(x)[1]).sum())({_CA}).imag")
case("qr-complex-vmap", f"jnp.abs(jax.vmap(jnp.linalg.qr)(jnp.stack([{_CA}, 2 * {_CA}]))[1])")

# 8. sort_complex sorts the last axis
case("sort-complex-2d", "jnp.sort_complex(jnp.array([[3, 1], [2, 0]]))")
case("sort-complex-complex",
     "jnp.sort_complex(jnp.array([[3 + 1j, 1, 3 - 1j], [2, 0, -1j]])).imag")
case("sort-complex-int8", "jnp.sort_complex(jnp.array([3, 1], dtype=jnp.int8))")
case("sort-complex-bool", "jnp.sort_complex(jnp.array([True, False]))")
case("sort-complex-f16", "jnp.sort_complex(jnp.array([3, 1], dtype=jnp.float16))")
case("sort-complex-0d", "jnp.sort_complex(jnp.array(3.0))")
case("sort-complex-list", "jnp.sort_complex([3.0, 1.0])")
case("jaxpr-sort-complex", "jax.make_jaxpr(jnp.sort_complex)(jnp.array([[3, 1], [2, 0]]))")

# 9. negative shapes in random samplers
_K = "jax.random.key(0)"
for name, call in [
        ("gamma", f"jax.random.gamma({_K}, 1.0, shape=(-1,))"),
        ("bernoulli", f"jax.random.bernoulli({_K}, 0.5, shape=(-1,))"),
        ("randint", f"jax.random.randint({_K}, (-1,), 0, 3)"),
        ("beta", f"jax.random.beta({_K}, 1.0, 1.0, shape=(-1,))"),
        ("poisson", f"jax.random.poisson({_K}, 1.0, shape=(-1,))"),
        ("binomial", f"jax.random.binomial({_K}, 3.0, 0.5, shape=(-1,))"),
        ("dirichlet", f"jax.random.dirichlet({_K}, jnp.ones(3), shape=(-1,))"),
        ("truncated_normal", f"jax.random.truncated_normal({_K}, -1.0, 1.0, shape=(-1,))"),
        ("categorical", f"jax.random.categorical({_K}, jnp.zeros(3), shape=(-1,))"),
        ("choice", f"jax.random.choice({_K}, 3, (-1,))"),
        ("multivariate_normal",
         f"jax.random.multivariate_normal({_K}, jnp.zeros(2), jnp.eye(2), (-1,))"),
        ("ball", f"jax.random.ball({_K}, 2, shape=(-1,))"),
        ("t", f"jax.random.t({_K}, 2.0, (-1,))"),
        ("zeros", "jnp.zeros((-1,))"),
        ("full", "jnp.full((-1,), 1.0)")]:
    case(f"neg-shape-{name}", call)

# 10. jnp.power: integer_pow only for a concrete exponent
_X = "jnp.arange(3.0)"
case("jaxpr-power-jnp-int32", f"jax.make_jaxpr(lambda a: jnp.power(a, jnp.int32(2)))({_X})")
case("jaxpr-power-py-int", f"jax.make_jaxpr(lambda a: jnp.power(a, 2))({_X})")
case("jaxpr-power-np-int32", f"jax.make_jaxpr(lambda a: jnp.power(a, np.int32(2)))({_X})")
case("jaxpr-power-jnp-array", f"jax.make_jaxpr(lambda a: jnp.power(a, jnp.array(2)))({_X})")
case("jaxpr-power-op", f"jax.make_jaxpr(lambda a: a ** jnp.int32(2))({_X})")
case("jaxpr-power-np-array", f"jax.make_jaxpr(lambda a: jnp.power(a, np.array([2])))({_X})")
case("jaxpr-power-f16-int", f"jax.make_jaxpr(lambda a: jnp.power(a.astype(jnp.float16), jnp.int32(3)))({_X})")
case("jaxpr-power-float-exp", f"jax.make_jaxpr(lambda a: jnp.power(a, jnp.float32(2)))({_X})")
case("jaxpr-power-int-array",
     f"jax.make_jaxpr(lambda a: jnp.power(a, jnp.array([1, 2, 3])))({_X})")
case("power-eager-jnp-int32", f"jnp.power({_X}, jnp.int32(3))")
case("power-jit-jnp-int32", f"jax.jit(lambda a: jnp.power(a, jnp.int32(3)))({_X})")
case("power-grad-jnp-int32", "jax.grad(lambda a: jnp.power(a, jnp.int32(3)))(2.0)")
case("power-grad-int-array-zero-base",
     f"jax.grad(lambda a: jnp.power(a, jnp.array([0, 1, 2])).sum())({_X})")
case("power-bool-bool", "jnp.power(jnp.array([True, False]), jnp.array([True, True]))")
case("power-int-int", "jnp.power(jnp.arange(4), jnp.arange(4))")
case("power-py-float-base", f"jnp.power(2.0, {_I})")
case("power-int-float", "jnp.power(jnp.arange(3), 2.5)")
case("power-uint8-exp", f"jnp.power({_X}, jnp.arange(3, dtype=jnp.uint8))")
