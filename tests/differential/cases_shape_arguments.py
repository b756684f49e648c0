"""Differential cases for shape arguments: ``slice``/``slice_in_dim`` strides
as JAX prints them, ``lax.reshape`` with ``dimensions`` (and its jvp, grad,
transpose and vmap), ``order='F'`` reshapes and ravels, and negative shapes
rejected by the random samplers and array constructors."""

_F = "jnp.arange(1.0, 4.0)"
_I = "jnp.arange(3)"
_Y = "jnp.arange(24.0).reshape(2, 3, 4)"

CASES = []


def case(name, code):
    CASES.append((name, code if "result" in code else f"result = {code}"))


# slice strides as JAX prints them
case("jaxpr-slice-no-strides", f"jax.make_jaxpr(lambda a: lax.slice(a, (0,), (2,)))({_F})")
case("jaxpr-slice-unit-strides", f"jax.make_jaxpr(lambda a: lax.slice(a, (0,), (2,), (1,)))({_F})")
case("jaxpr-slice-in-dim", f"jax.make_jaxpr(lambda a: lax.slice_in_dim(a, 0, 2))({_F})")
case("jaxpr-slice-in-dim-axis", f"jax.make_jaxpr(lambda a: lax.slice_in_dim(a, 1, 3, axis=2))({_Y})")
case("jaxpr-slice-in-dim-stride", f"jax.make_jaxpr(lambda a: lax.slice_in_dim(a, 0, 3, 2))({_F})")
case("jaxpr-index-in-dim", f"jax.make_jaxpr(lambda a: lax.index_in_dim(a, 1, 1))({_Y})")
case("jaxpr-basic-slice", f"jax.make_jaxpr(lambda a: a[0:2])({_F})")


# reshape with dimensions
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


# negative shapes in random samplers
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
