"""``jax.random`` samplers as run by JAX 0.10.2, compared bit for bit: each
case prints the sample's dtype, shape and weak type, and its result is the raw
bits (floats viewed as unsigned integers, which the harness compares exactly).
Cases named ``x64-*`` turn ``jax_enable_x64`` on for their body only."""

_PRELUDE = '''
def bits(x):
    a = np.asarray(x)
    print(a.dtype, a.shape, getattr(x, "weak_type", False))
    if a.dtype.kind in "fc":
        a = a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint32)
    return a
k0, k42, kl = jax.random.key(0), jax.random.key(42), jax.random.PRNGKey(7)
R = jax.random
'''


def _case(name, body):
    return name, _PRELUDE + body


def _x64(name, body):
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    return name, (_PRELUDE + "jax.config.update('jax_enable_x64', True)\ntry:\n" + indented +
                  "\nfinally:\n    jax.config.update('jax_enable_x64', False)\n")


_ALPHAS = "jnp.array([0.1, 0.5, 1., 3., 100.])"
_COV = "jnp.array([[2., 0.5, 0.1], [0.5, 1., 0.2], [0.1, 0.2, 0.5]])"

CASES = [
    # ---- gamma family
    _case("gamma-scalar", "result = bits(R.gamma(k0, 2.0, (5,)))"),
    _case("gamma-array", f"result = bits(R.gamma(k42, {_ALPHAS}, (3, 5)))"),
    _case("gamma-small-a", "result = bits(R.gamma(k0, jnp.array([1e-3, 1e-2, 0.3]), (2, 3)))"),
    _case("gamma-legacy-key", "result = bits(R.gamma(kl, 1.5, (4,)))"),
    _case("gamma-default-shape", f"result = bits(R.gamma(k0, {_ALPHAS}))"),
    _case("gamma-bfloat16", "result = bits(R.gamma(k0, 2.0, (8,), 'bfloat16'))"),
    _case("gamma-float16", "result = bits(R.gamma(k42, 0.7, (8,), 'float16'))"),
    _case("gamma-int-param", "result = bits(R.gamma(k0, jnp.arange(1, 4)))"),
    _case("gamma-vmap-keys", "result = bits(jax.vmap(lambda k: R.gamma(k, 2.0))(R.split(k0, 4)))"),
    _case("gamma-vmap-both",
          "result = bits(jax.vmap(lambda k, a: R.gamma(k, a, (2,)))(R.split(k0, 3), "
          "jnp.array([0.5, 2., 9.])))"),
    _case("gamma-jit", "result = bits(jax.jit(lambda k, a: R.gamma(k, a, (3,)))(k42, 4.0))"),
    _case("gamma-grad", "result = bits(jax.grad(lambda a: R.gamma(k0, a, (3,)).sum())(0.5))"),
    _case("gamma-grad-array",
          f"result = bits(jax.grad(lambda a: R.gamma(k42, a).sum())({_ALPHAS}))"),
    _case("loggamma-grad", "result = bits(jax.grad(lambda a: R.loggamma(k0, a, (3,)).sum())(0.5))"),
    _case("gamma-jaxpr", "result = jax.make_jaxpr(lambda k, a: R.gamma(k, a, (2,)))(k0, 2.0)"),
    _case("loggamma-jaxpr", "result = jax.make_jaxpr(lambda k, a: R.loggamma(k, a))(k0, jnp.ones(3))"),
    _case("loggamma", "result = bits(R.loggamma(k0, jnp.array([1e-3, 0.5, 4.]), (2, 3)))"),
    _case("loggamma-tiny", "result = bits(R.loggamma(k42, 1e-4, (6,)))"),
    _case("beta", "result = bits(R.beta(k0, 0.5, jnp.array([0.5, 2., 10.]), (4, 3)))"),
    _case("beta-default-shape", "result = bits(R.beta(k42, jnp.array([1., 2.]), 3.0))"),
    _case("beta-bfloat16", "result = bits(R.beta(k0, 2., 3., (6,), 'bfloat16'))"),
    _case("dirichlet", "result = bits(R.dirichlet(k0, jnp.array([0.2, 1., 5.]), (6,)))"),
    _case("dirichlet-batch", "result = bits(R.dirichlet(k42, jnp.ones((2, 4))))"),
    # ---- counts
    _case("poisson", "result = bits(R.poisson(k0, jnp.array([0., 0.3, 4., 9.9, 10., 300.]), (3, 6)))"),
    _case("poisson-scalar", "result = bits(R.poisson(k42, 3.0, (40,)))"),
    _case("poisson-int16", "result = bits(R.poisson(k0, 30.0, (10,), dtype='int16'))"),
    _case("poisson-legacy", "result = bits(R.poisson(kl, 7.0, (5,)))"),
    _case("poisson-vmap", "result = bits(jax.vmap(lambda k: R.poisson(k, 20., (2,)))(R.split(k0, 3)))"),
    _case("binomial", "result = bits(R.binomial(k0, jnp.array([3., 20., 500.]), "
                      "jnp.array([0.2, 0.6, 0.9]), (4, 3)))"),
    _case("binomial-invalid", "result = bits(R.binomial(k42, jnp.array([5., -1., jnp.inf, 4.]), "
                              "jnp.array([0.3, 0.3, 0.3, jnp.nan])))"),
    _case("binomial-float16", "result = bits(R.binomial(k0, 50, 0.7, (6,), dtype='float16'))"),
    _case("multinomial", "result = bits(R.multinomial(k0, 20., jnp.array([0.1, 0.2, 0.7])))"),
    _case("multinomial-batch", "result = bits(R.multinomial(k42, jnp.array([10., 100.]), "
                               "jnp.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]), shape=(2, 3)))"),
    _case("geometric", "result = bits(R.geometric(k0, 0.25, (20,)))"),
    _case("geometric-array", "result = bits(R.geometric(k42, jnp.array([0.1, 0.9])))"),
    # ---- multivariate normal
    _case("mvn-cholesky", f"result = bits(R.multivariate_normal(k0, jnp.zeros(3), {_COV}, (10,)))"),
    _case("mvn-svd", f"result = bits(R.multivariate_normal(k0, jnp.ones(3), {_COV}, (10,), "
                     "method='svd'))"),
    _case("mvn-eigh", f"result = bits(R.multivariate_normal(k42, jnp.ones(3), {_COV}, (10,), "
                      "method='eigh'))"),
    _case("mvn-batch-eigh", f"result = bits(R.multivariate_normal(k0, jnp.ones((2, 3)), {_COV}, "
                            "method='eigh'))"),
    _case("mvn-vmap", f"result = bits(jax.vmap(lambda k: R.multivariate_normal(k, jnp.zeros(3), "
                      f"{_COV}, method='svd'))(R.split(k0, 3)))"),
    # ---- categorical, gumbel
    _case("categorical-noreplace",
          "result = bits(R.categorical(k0, jnp.log(jnp.arange(1., 13.).reshape(3, 4)), "
          "shape=(4, 3), replace=False))"),
    _case("categorical-noreplace-axis0",
          "result = bits(R.categorical(k42, jnp.log(jnp.arange(1., 13.).reshape(3, 4)), axis=0, "
          "shape=(2, 4), replace=False))"),
    _case("categorical-noreplace-high",
          "result = bits(R.categorical(k0, jnp.zeros((2, 5)), shape=(3, 2), replace=False, "
          "mode='high'))"),
    _case("categorical-vmap",
          "result = bits(jax.vmap(lambda k: R.categorical(k, jnp.zeros(5), shape=(3,), "
          "replace=False))(R.split(k0, 3)))"),
    _case("gumbel-highest", "result = bits(R.gumbel(k0, (64,), mode='highest'))"),
    _case("gumbel-highest-2d", "result = bits(R.gumbel(k42, (3, 5), mode='highest'))"),
    _case("gumbel-highest-bfloat16", "result = bits(R.gumbel(k0, (16,), 'bfloat16', mode='highest'))"),
    _case("gumbel-highest-jaxpr", "result = jax.make_jaxpr(lambda k: R.gumbel(k, (2,), "
                                  "mode='highest'))(k0)"),
    # ---- the rest of the public list
    _case("ball", "result = bits(R.ball(k0, 3, 2, (5,)))"),
    _case("ball-p1", "result = bits(R.ball(k42, 4, 1.5, (3,)))"),
    _case("chisquare", "result = bits(R.chisquare(k0, 4., (20,)))"),
    _case("clone", "result = bits(R.key_data(R.clone(k42)))"),
    _case("clone-jaxpr", "result = jax.make_jaxpr(R.clone)(k0)"),
    _case("double-sided-maxwell", "result = bits(R.double_sided_maxwell(k0, 1., 2., (20,)))"),
    _case("double-sided-maxwell-params",
          "result = bits(R.double_sided_maxwell(k42, jnp.array([1., 2.]), 2., (3,)))"),
    _case("f", "result = bits(R.f(k0, 3., 7., (20,)))"),
    _case("generalized-normal", "result = bits(R.generalized_normal(k0, 3., (20,)))"),
    _case("lognormal", "result = bits(R.lognormal(k0, 0.3, (20,)))"),
    _case("lognormal-complex", "result = bits(R.lognormal(k42, 0.5, (5,), dtype='complex64'))"),
    _case("maxwell", "result = bits(R.maxwell(k0, (20,)))"),
    _case("maxwell-50", "result = bits(R.maxwell(k0, (50,)))"),
    _case("orthogonal", "result = bits(R.orthogonal(k0, 4, (2,)))"),
    _case("orthogonal-wide", "result = bits(R.orthogonal(k42, 3, (), m=5))"),
    _case("orthogonal-tall", "result = bits(R.orthogonal(k42, 5, (), m=3))"),
    _case("pareto", "result = bits(R.pareto(k0, 3., (20,)))"),
    _case("pareto-array", "result = bits(R.pareto(k42, jnp.array([1., 3.])))"),
    _case("rayleigh", "result = bits(R.rayleigh(k0, 2., (20,)))"),
    _case("t", "result = bits(R.t(k0, 5., (20,)))"),
    _case("t-array", "result = bits(R.t(k42, jnp.array([1., 30.]), (3, 2)))"),
    _case("triangular", "result = bits(R.triangular(k0, -1., 0.5, 2., (20,)))"),
    _case("wald", "result = bits(R.wald(k0, 1.5, (20,)))"),
    _case("weibull-min", "result = bits(R.weibull_min(k0, 2., 0.8, (20,)))"),
    _case("vmap-t", "result = bits(jax.vmap(lambda k: R.t(k, 3.))(R.split(k0, 3)))"),
    _case("vmap-normal", "result = bits(jax.vmap(lambda k: R.normal(k, (2,)))(R.split(k0, 3)))"),
    _case("vmap-legacy-uniform",
          "result = bits(jax.vmap(lambda k: R.uniform(k, (2,)))(R.split(kl, 3)))"),
    _case("vmap-fold-in", "result = bits(R.key_data(jax.vmap(R.fold_in)(R.split(k0, 3), "
                          "jnp.arange(3))))"),
    _case("no-shuffle", "result = hasattr(R, 'shuffle')"),
    # ---- printed jaxprs
    *[_case(f"jaxpr-{n}", f"result = jax.make_jaxpr(lambda k: {c})(k0)") for n, c in [
        ("beta", "R.beta(k, 2., 3., (2,))"), ("dirichlet", "R.dirichlet(k, jnp.ones(3))"),
        ("t", "R.t(k, 3., (2,))"), ("pareto", "R.pareto(k, 3., (2,))"),
        ("chisquare", "R.chisquare(k, 3., (2,))"), ("geometric", "R.geometric(k, 0.3, (2,))"),
        ("wald", "R.wald(k, 0.3, (2,))"), ("weibull-min", "R.weibull_min(k, 1., 2., (2,))"),
        ("rayleigh", "R.rayleigh(k, 2., (2,))"), ("maxwell", "R.maxwell(k, (2,))"),
        ("generalized-normal", "R.generalized_normal(k, 2., (2,))")]],
    # ---- 64-bit mode
    _x64("x64-gamma", f"result = bits(R.gamma(k0, {_ALPHAS}, (2, 5)))"),
    _x64("x64-loggamma", "result = bits(R.loggamma(k42, jnp.array([1e-3, 0.5, 4.])))"),
    _x64("x64-beta", "result = bits(R.beta(k0, 0.5, 2.0, (6,)))"),
    _x64("x64-dirichlet", "result = bits(R.dirichlet(k0, jnp.array([0.2, 1., 5.]), (3,)))"),
    _x64("x64-poisson", "result = bits(R.poisson(k0, jnp.array([0.3, 4., 12., 300.]), (2, 4)))"),
    _x64("x64-binomial", "result = bits(R.binomial(k0, 40., 0.3, (8,)))"),
    _x64("x64-mvn-eigh", f"result = bits(R.multivariate_normal(k0, jnp.zeros(3), {_COV}, (4,), "
                         "method='eigh'))"),
    _x64("x64-categorical-noreplace",
         "result = bits(R.categorical(k0, jnp.zeros((2, 6)), shape=(3, 2), replace=False))"),
    _x64("x64-gumbel-highest", "result = bits(R.gumbel(k0, (16,), mode='highest'))"),
    _x64("x64-t", "result = bits(R.t(k42, 3., (8,)))"),
    _x64("x64-wald", "result = bits(R.wald(k0, 2., (8,)))"),
    _x64("x64-geometric", "result = bits(R.geometric(k0, 0.3, (8,)))"),
    _x64("x64-gamma-vmap", "result = bits(jax.vmap(lambda k: R.gamma(k, 2.0))(R.split(k0, 3)))"),
    # ---- errors
    _case("err-gamma-int-dtype", "result = R.gamma(k0, 1., dtype='int32')"),
    _case("err-gamma-shape", "result = R.gamma(k0, jnp.ones(3), (2,))"),
    _case("err-loggamma-int-dtype", "result = R.loggamma(k0, 1., dtype=int)"),
    _case("err-gamma-batched-key", "result = R.gamma(R.split(k0), 1.)"),
    _case("err-gamma-list-key", "result = R.gamma([0, 1], 1.)"),
    _case("err-beta-int-dtype", "result = R.beta(k0, 1., 2., dtype='int32')"),
    _case("err-beta-unsafe-cast", "result = R.beta(k0, 1 + 1j, 2.)"),
    _case("err-beta-shape", "result = R.beta(k0, jnp.ones(3), 2., (4,))"),
    _case("err-dirichlet-0d", "result = R.dirichlet(k0, 1.)"),
    _case("err-dirichlet-shape", "result = R.dirichlet(k0, jnp.ones((2, 3)), (3,))"),
    _case("err-binomial-int-dtype", "result = R.binomial(k0, 3., 0.5, dtype='int32')"),
    _case("err-geometric-float-dtype", "result = R.geometric(k0, 0.5, dtype='float32')"),
    _case("err-categorical-too-many", "result = R.categorical(k0, jnp.zeros(3), shape=(4,), "
                                      "replace=False)"),
    _case("err-gumbel-mode", "result = R.gumbel(k0, mode='x')"),
    _case("err-mvn-method", "result = R.multivariate_normal(k0, jnp.zeros(2), jnp.eye(2), "
                            "method='lu')"),
    _case("err-mvn-mean-ndim", "result = R.multivariate_normal(k0, 0., jnp.eye(2))"),
    _case("err-mvn-cov-ndim", "result = R.multivariate_normal(k0, jnp.zeros(2), jnp.ones(2))"),
    _case("err-mvn-cov-shape", "result = R.multivariate_normal(k0, jnp.zeros(2), jnp.eye(3))"),
    _case("err-mvn-int-dtype", "result = R.multivariate_normal(k0, jnp.zeros(2), jnp.eye(2), "
                               "dtype='int32')"),
    _case("err-mvn-shape", "result = R.multivariate_normal(k0, jnp.zeros((3, 2)), jnp.eye(2), (2,))"),
    _case("err-pareto-unsafe-cast", "result = R.pareto(k0, jnp.float32(2.), dtype='float16')"),
    _case("err-t-shape", "result = R.t(k0, jnp.ones(2), (3,))"),
    _case("err-chisquare-int-dtype", "result = R.chisquare(k0, 2., dtype='int8')"),
    _case("err-f-unsafe-cast", "result = R.f(k0, 2., 1j)"),
    _case("err-lognormal-int-dtype", "result = R.lognormal(k0, dtype='int32')"),
    _case("err-maxwell-int-dtype", "result = R.maxwell(k0, dtype='int32')"),
    _case("err-ball-float-d", "result = R.ball(k0, 2.5)"),
    _case("err-orthogonal-float-n", "result = R.orthogonal(k0, 2.5)"),
    _case("err-rayleigh-shape", "result = R.rayleigh(k0, jnp.ones(2), (3,))"),
    _case("err-triangular-shape", "result = R.triangular(k0, 0., jnp.ones(2) * .5, 1., (3,))"),
    _case("err-weibull-int-dtype", "result = R.weibull_min(k0, 1., 1., dtype='int32')"),
]
