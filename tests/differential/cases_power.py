"""Differential cases for ``lax.pow`` with integer exponents (values, dtypes,
errors, printed jaxprs, jvp/grad/vmap) and ``jnp.power``'s choice of
primitive: ``integer_pow`` only for a concrete integer exponent."""

_F = "jnp.arange(1.0, 4.0)"
_I = "jnp.arange(3)"

CASES = []


def case(name, code):
    CASES.append((name, code if "result" in code else f"result = {code}"))


# lax.pow: inexact base, integer or same-dtype inexact exponent
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


# jnp.power: integer_pow only for a concrete exponent
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
