"""Differential cases for complex, boolean and narrow dtypes: order comparisons
that reject complex operands, iota's dtype checks, the ml_dtypes narrow
float/int types through arithmetic and lowering, complex QR and
``sort_complex``."""

_CA = ("(jnp.array([[1., 2., -1.], [0.5, 3., 1.], [2., -1., 4.], [1., 1., 1.]]) "
       "+ 1j * jnp.array([[0., 1., 2.], [-1., 0.5, 0.], [1., 1., -2.], [0., 3., 1.]]))"
       ".astype(jnp.complex64)")

CASES = []


def case(name, code):
    CASES.append((name, code if "result" in code else f"result = {code}"))


# order comparisons reject complex; eq/ne/max/min accept it
for op in ("lt", "le", "gt", "ge", "eq", "ne"):
    case(f"cmp-complex-{op}", f"lax.{op}(jnp.array([1 + 1j]), jnp.array([1 + 2j]))")
case("max-complex", "jnp.abs(lax.max(jnp.array([1 + 1j, 2 - 1j]), jnp.array([1 + 2j, 1 + 5j])))")
case("cmp-complex-jnp-less", "jnp.less(jnp.array([1 + 1j]), jnp.array([1 + 2j]))")


# iota validates its dtype before lowering
case("iota-bool", "lax.iota(bool, 3)")
case("broadcasted-iota-bool", "lax.broadcasted_iota(bool, (2, 3), 1)")
case("arange-bool", "jnp.arange(3, dtype=bool)")
case("iota-bf16", "lax.iota(jnp.bfloat16, 3)")
case("iota-complex-real", "lax.iota(jnp.complex64, 3).real")
case("eye-bool", "jnp.eye(2, dtype=bool)")


# narrow ml_dtypes types lower
for dt in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
           "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float4_e2m1fn",
           "int4", "uint4", "int2", "uint2"):
    case(f"narrow-add-{dt}", f"(jnp.ones(3, jnp.{dt}) + 1).astype(jnp.float32)")
    case(f"narrow-repr-{dt}", f"repr(jnp.ones(2, jnp.{dt}) * 2)")
    case(f"narrow-cvt-{dt}", f"jnp.array([0., 1., 2.]).astype(jnp.{dt}).astype(jnp.float32)")
    case(f"narrow-lt-{dt}", f"jnp.ones(3, jnp.{dt}) < 2")
    case(f"narrow-jaxpr-{dt}", f"jax.make_jaxpr(lambda a: a * 2)(jnp.ones(2, jnp.{dt}))")
case("narrow-e8m0-zero", "jnp.arange(3.0).astype(jnp.float8_e8m0fnu).astype(jnp.float32)")


# complex QR
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


# sort_complex sorts the last axis
case("sort-complex-2d", "jnp.sort_complex(jnp.array([[3, 1], [2, 0]]))")
case("sort-complex-complex",
     "jnp.sort_complex(jnp.array([[3 + 1j, 1, 3 - 1j], [2, 0, -1j]])).imag")
case("sort-complex-int8", "jnp.sort_complex(jnp.array([3, 1], dtype=jnp.int8))")
case("sort-complex-bool", "jnp.sort_complex(jnp.array([True, False]))")
case("sort-complex-f16", "jnp.sort_complex(jnp.array([3, 1], dtype=jnp.float16))")
case("sort-complex-0d", "jnp.sort_complex(jnp.array(3.0))")
case("sort-complex-list", "jnp.sort_complex([3.0, 1.0])")
case("jaxpr-sort-complex", "jax.make_jaxpr(jnp.sort_complex)(jnp.array([[3, 1], [2, 0]]))")
