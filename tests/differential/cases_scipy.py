"""Differential cases for ``jax.scipy`` (H-scipy): ``scipy.special`` values,
dtypes and weak types, gradients and errors; every ``scipy.stats``
distribution function on in- and out-of-support points; ``scipy.linalg``
solves, factorizations and ``expm``. ``jaxpr-*`` cases compare printed
jaxprs as text; tuple results are stacked into one array."""

_X = "jnp.array([0.1, 0.5, 1.5, 3.0, 9.0], dtype=jnp.float32)"
_P = "jnp.array([0.01, 0.2, 0.5, 0.9, 0.999], dtype=jnp.float32)"
_S = "jnp.array([-2.5, -0.5, 0.0, 0.7, 4.0], dtype=jnp.float32)"
_K = "jnp.array([-1., 0., 1., 2., 3.5], dtype=jnp.float32)"
_A = "jnp.array([[4., 1., 0.], [1., 3., 1.], [0., 1., 2.]], dtype=jnp.float32)"
_B = "jnp.arange(3., dtype=jnp.float32)"

CASES = []


def val(name, code):
    CASES.append((f"val-{name}", f"result = {code}"))


def jaxpr(name, fn, *args):
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})({', '.join(args)})"))


def err(name, code):
    CASES.append((f"err-{name}", f"result = {code}"))


sp = "jax.scipy.special"
# -- special: values
for name, call in [
        ("gammaln", f"{sp}.gammaln({_X})"), ("gammaln-int", f"{sp}.gammaln(3)"),
        ("gammaln-weak", f"{sp}.gammaln(2.5)"), ("gamma", f"{sp}.gamma({_S})"),
        ("gammasgn", f"{sp}.gammasgn({_S})"), ("betaln", f"{sp}.betaln({_X}, {_X} + 9)"),
        ("beta", f"{sp}.beta({_X}, 2.)"), ("factorial", f"{sp}.factorial({_K})"),
        ("comb", f"{sp}.comb(10., {_K})"), ("comb-rep", f"{sp}.comb(5., {_K}, repetition=True)"),
        ("betainc", f"{sp}.betainc(2., 3., {_P})"), ("gammainc", f"{sp}.gammainc({_X}, 2.)"),
        ("gammaincc", f"{sp}.gammaincc({_X}, 2.)"), ("digamma", f"{sp}.digamma({_X})"),
        ("multigammaln", f"{sp}.multigammaln({_X} + 3, 3)"),
        ("polygamma", f"{sp}.polygamma(1, {_X})"), ("polygamma-vec", f"{sp}.polygamma(jnp.arange(5), {_X})"),
        ("zeta", f"{sp}.zeta({_X} + 1.5, 2.)"), ("erf", f"{sp}.erf({_S})"), ("erfc", f"{sp}.erfc({_S})"),
        ("erfinv", f"{sp}.erfinv({_P})"), ("logit", f"{sp}.logit({_P})"), ("expit", f"{sp}.expit({_S})"),
        ("xlogy", f"{sp}.xlogy({_K}, {_X})"), ("xlogy-zero", f"{sp}.xlogy(0., 0.)"),
        ("xlog1py", f"{sp}.xlog1py({_K}, {_X})"), ("entr", f"{sp}.entr({_S})"),
        ("rel_entr", f"{sp}.rel_entr({_S}, {_P})"), ("kl_div", f"{sp}.kl_div({_X}, {_P})"),
        ("boxcox", f"{sp}.boxcox({_X}, jnp.array([0., 0.5, 1., 2., -1.]))"),
        ("boxcox1p", f"{sp}.boxcox1p({_X}, 0.5)"),
        ("ndtr", f"{sp}.ndtr({_S})"), ("ndtr-f64", f"{sp}.ndtr(np.array([-9., 0.3, 12.]))"),
        ("ndtri", f"{sp}.ndtri({_P})"), ("ndtri-edges", f"{sp}.ndtri(jnp.array([0., 1., 1e-30, 0.5]))"),
        ("log_ndtr", f"{sp}.log_ndtr(jnp.array([-40., -12., -3., 0., 4., 7.]))"),
        ("log_ndtr-order", f"{sp}.log_ndtr(jnp.array([-40., -12.]), series_order=0)"),
        ("i0", f"{sp}.i0({_S})"), ("i0e", f"{sp}.i0e({_S})"), ("i1", f"{sp}.i1({_S})"),
        ("i1e", f"{sp}.i1e({_S})"), ("spence", f"{sp}.spence(jnp.array([-1., 0., 0.3, 1., 1.7, 2.5, 5.]))"),
        ("bernoulli", f"{sp}.bernoulli(12)"), ("bernoulli-small", f"{sp}.bernoulli(1)"),
        ("logsumexp", f"{sp}.logsumexp({_S})"),
        ("logsumexp-b", f"{sp}.logsumexp({_S}, b=jnp.array([1., -1., 2., 0., 1.]))"),
        ("logsumexp-sign", f"jnp.stack({sp}.logsumexp({_S}, b=-1., return_sign=True))"),
        ("logsumexp-where", f"{sp}.logsumexp({_S}, where={_S} > 0)"),
        ("softmax", f"{sp}.softmax({_S})"), ("log_softmax", f"{sp}.log_softmax({_S}.reshape(5, 1), axis=0)"),
        ("erf-int", f"{sp}.erf(jnp.arange(3))"), ("expit-f16", f"{sp}.expit(jnp.float16(0.5))")]:
    val(f"sp-{name}", call)

# -- special: gradients
for name, fn, arg in [
        ("xlogy", f"lambda a: {sp}.xlogy(a, a).sum()", _X),
        ("xlog1py", f"lambda a: {sp}.xlog1py(a, a).sum()", _X),
        ("zeta", f"lambda a: {sp}.zeta(a, 2.).sum()", f"{_X} + 1.5"),
        ("zeta-q", f"lambda q: {sp}.zeta(3., q).sum()", _X),
        ("log_ndtr", f"lambda a: {sp}.log_ndtr(a).sum()", f"-3 * {_X}"),
        ("logit", f"lambda a: {sp}.logit(a).sum()", _P),
        ("entr", f"lambda a: {sp}.entr(a).sum()", _X),
        ("betaln", f"lambda a: {sp}.betaln(a, 3.).sum()", _X),
        ("ndtri", f"lambda a: {sp}.ndtri(a).sum()", _P),
        ("gammainc", f"lambda a: {sp}.gammainc(2., a).sum()", _X),
        ("logsumexp", f"lambda a: {sp}.logsumexp(a)", _S),
        ("rel_entr", f"lambda a: {sp}.rel_entr(a, 0.5).sum()", _X)]:
    val(f"grad-{name}", f"jax.grad({fn})({arg})")

# -- special: printed jaxprs
for name, fn in [("gammaln", f"{sp}.gammaln"), ("logit", f"{sp}.logit"), ("gamma", f"{sp}.gamma"),
                 ("xlogy", f"lambda a: {sp}.xlogy(a, a)"), ("betaln", f"lambda a: {sp}.betaln(a, a)"),
                 ("logsumexp", f"{sp}.logsumexp"), ("softmax", f"{sp}.softmax"),
                 ("entr", f"{sp}.entr"), ("zeta", f"lambda a: {sp}.zeta(a, 2.0)"),
                 ("ndtr", f"{sp}.ndtr"), ("log_ndtr", f"{sp}.log_ndtr"), ("ndtri", f"{sp}.ndtri"),
                 ("i1", f"{sp}.i1"), ("rel_entr", f"lambda a: {sp}.rel_entr(a, a)"),
                 ("multigammaln", f"lambda a: {sp}.multigammaln(a, 2)"),
                 ("erfinv", f"{sp}.erfinv"), ("expit", f"{sp}.expit"),
                 ("grad-xlogy", f"jax.grad(lambda a: {sp}.xlogy(a, 2.))")]:
    jaxpr(f"sp-{name}", fn, "jnp.float32(0.5)" if name.startswith("grad") else f"{_P}[:2]")

# -- special: errors
err("sp-polygamma-float-n", f"{sp}.polygamma(1.0, 2.0)")
err("sp-zeta-riemann", f"{sp}.zeta(2.0)")
err("sp-ndtr-int", f"{sp}.ndtr(jnp.arange(3))")
err("sp-ndtri-f16", f"{sp}.ndtri(jnp.float16(0.3))")
err("sp-log_ndtr-order", f"{sp}.log_ndtr(1.0, series_order=31)")
err("sp-log_ndtr-neg", f"{sp}.log_ndtr(1.0, series_order=-1)")
err("sp-log_ndtr-type", f"{sp}.log_ndtr(1.0, series_order=2.0)")
err("sp-entr-complex", f"{sp}.entr(1j)")
err("sp-factorial-exact", f"{sp}.factorial(3, exact=True)")
err("sp-bernoulli-neg", f"{sp}.bernoulli(-1)")
err("sp-multigammaln-traced", f"jax.jit({sp}.multigammaln)(2.0, 3)")

# -- stats
st = "jax.scipy.stats"
_CONT = {"norm": "", "uniform": "", "expon": "", "laplace": "", "logistic": "", "cauchy": "",
         "gamma": ", 2.5", "chi2": ", 3.", "beta": ", 2., 3.", "t": ", 4."}
for d, extra in _CONT.items():
    for fn in ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]:
        x = _P if fn in ("ppf", "isf") else (f"{_P}" if d == "beta" else _S)
        CASES.append((f"val-st-{d}-{fn}",
                      f"f = getattr({st}.{d}, {fn!r}, None)\n"
                      f"result = 'missing' if f is None else f({x}{extra})"))
    CASES.append((f"val-st-{d}-loc-scale", f"result = {st}.{d}.logpdf({_S}{extra}, 0.5, 2.)"))
for d, extra in {"poisson": ", 2.5", "bernoulli": ", 0.3", "geom": ", 0.3"}.items():
    for fn in ["logpmf", "pmf", "cdf", "ppf"]:
        x = _P if fn == "ppf" else _K
        CASES.append((f"val-st-{d}-{fn}",
                      f"f = getattr({st}.{d}, {fn!r}, None)\n"
                      f"result = 'missing' if f is None else f({x}{extra})"))
val("st-norm-logpdf-int", f"{st}.norm.logpdf(1)")
val("st-norm-ppf-weak", f"{st}.norm.ppf(0.3)")
val("st-poisson-int-k", f"{st}.poisson.logpmf(jnp.arange(4), 2.0)")
val("grad-st-norm-logpdf", f"jax.grad(lambda m: {st}.norm.logpdf({_S}, m, 2.).sum())(0.5)")
val("grad-st-gamma-logpdf", f"jax.grad(lambda a: {st}.gamma.logpdf({_X}, a).sum())(2.5)")
val("grad-st-beta-cdf", f"jax.grad(lambda x: {st}.beta.cdf(x, 2., 3.).sum())({_P})")
val("grad-st-t-logpdf", f"jax.grad(lambda df: {st}.t.logpdf({_S}, df).sum())(4.)")
for d, extra in [("norm", ""), ("expon", ""), ("gamma", ", 2.5"), ("beta", ", 2., 3."), ("t", ", 4."),
                 ("cauchy", ""), ("laplace", "")]:
    jaxpr(f"st-{d}-logpdf", f"lambda x: {st}.{d}.logpdf(x{extra})", f"{_P}[:2]")
jaxpr("st-norm-cdf", f"{st}.norm.cdf", f"{_P}[:2]")
jaxpr("st-poisson-logpmf", f"lambda k: {st}.poisson.logpmf(k, 2.)", f"{_K}[:2]")
jaxpr("st-bernoulli-logpmf", f"lambda k: {st}.bernoulli.logpmf(k, 0.3)", f"{_K}[:2]")

# -- linalg
la = "jax.scipy.linalg"
for name, call in [
        ("cholesky", f"{la}.cholesky({_A})"), ("cholesky-lower", f"{la}.cholesky({_A}, lower=True)"),
        ("cho_factor", f"{la}.cho_factor({_A})[0]"), ("cho_solve", f"{la}.cho_solve({la}.cho_factor({_A}), {_B})"),
        ("cho_solve-mat", f"{la}.cho_solve(({la}.cholesky({_A}, lower=True), True), jnp.eye(3))"),
        ("solve_triangular", f"{la}.solve_triangular({_A}, {_B}, lower=True)"),
        ("solve_triangular-T", f"{la}.solve_triangular({_A}, jnp.stack([{_B}, {_B}], 1), trans='T')"),
        ("solve_triangular-unit", f"{la}.solve_triangular({_A}, {_B}, trans=2, unit_diagonal=True)"),
        ("lu_factor", f"{la}.lu_factor({_A})[0]"), ("lu_factor-piv", f"{la}.lu_factor({_A})[1]"),
        ("lu_solve", f"{la}.lu_solve({la}.lu_factor({_A}), {_B})"),
        ("lu_solve-T", f"{la}.lu_solve({la}.lu_factor({_A} + jnp.triu({_A}, 1)), {_B}, trans=1)"),
        ("lu", f"jnp.stack({la}.lu({_A} + jnp.triu({_A}, 1)))"),
        ("lu-permute", f"jnp.stack({la}.lu({_A} + jnp.triu({_A}, 1), permute_l=True))"),
        ("lu-rect", f"{la}.lu(jnp.arange(6.).reshape(2, 3) + 1)[2]"),
        ("solve", f"{la}.solve({_A}, {_B})"), ("solve-pos", f"{la}.solve({_A}, {_B}, assume_a='pos')"),
        ("solve-pos-mat", f"{la}.solve({_A}, jnp.eye(3), assume_a='pos', lower=True)"),
        ("det", f"{la}.det({_A})"), ("inv", f"{la}.inv({_A})"),
        ("block_diag", f"{la}.block_diag({_A}[:2, :2], 5., jnp.ones((1, 2)))"),
        ("block_diag-int", f"{la}.block_diag(jnp.ones((2, 2), int), 3)"),
        ("toeplitz", f"{la}.toeplitz({_B}, {_B} + 1)"), ("toeplitz-c", f"{la}.toeplitz({_B})"),
        ("qr", f"jnp.abs({la}.qr({_A})[1])"), ("qr-r", f"jnp.abs({la}.qr({_A}, mode='r')[0])"),
        ("qr-economic", f"{la}.qr(jnp.ones((4, 2)), mode='economic')[0].shape"),
        ("svd", f"{la}.svd({_A})[1]"), ("svd-vals", f"{la}.svd({_A}, compute_uv=False)"),
        ("eigh", f"{la}.eigh({_A})[0]"), ("eigh-vals", f"{la}.eigh({_A}, eigvals_only=True)"),
        ("expm", f"{la}.expm({_A} / 10)"), ("expm-big", f"{la}.expm({_A})"),
        ("expm-f64", f"{la}.expm(np.array([[0., 1.], [-1., 0.]]))"),
        ("expm-batch", f"{la}.expm(jnp.stack([{_A}, -{_A}]) / 4)"),
        ("expm-triu", f"{la}.expm(jnp.triu({_A}) / 3, upper_triangular=True)")]:
    val(f"la-{name}", call)
for name, fn in [("cholesky", f"lambda m: {la}.cholesky(m, lower=True).sum()"),
                 ("solve_triangular", f"lambda m: {la}.solve_triangular(m, {_B}).sum()"),
                 ("cho_solve", f"lambda m: {la}.cho_solve(({la}.cholesky(m, lower=True), True), {_B}).sum()"),
                 ("solve-pos", f"lambda m: {la}.solve(m, {_B}, assume_a='pos').sum()"),
                 ("expm", f"lambda m: {la}.expm(m / 10).sum()")]:
    val(f"grad-la-{name}", f"jax.grad({fn})({_A})")
for name, fn in [("cholesky", f"{la}.cholesky"), ("solve_triangular", f"lambda m: {la}.solve_triangular(m, {_B})"),
                 ("lu_factor", f"{la}.lu_factor"), ("cho_solve", f"lambda m: {la}.cho_solve((m, False), {_B})"),
                 ("block_diag", f"lambda m: {la}.block_diag(m, m[:1])"),
                 ("lu_solve", f"lambda m: {la}.lu_solve((m, jnp.arange(3, dtype=jnp.int32)), {_B})"),
                 ("solve-pos", f"lambda m: {la}.solve(m, {_B}, assume_a='pos')"), ("lu", f"{la}.lu"),
                 ("expm", f"{la}.expm")]:
    jaxpr(f"la-{name}", fn, _A)
err("la-solve-assume", f"{la}.solve({_A}, {_B}, assume_a='bad')")
err("la-solve_triangular-trans", f"{la}.solve_triangular({_A}, {_B}, trans=3)")
err("la-block_diag-3d", f"{la}.block_diag(jnp.ones((1, 1, 1)))")
err("la-expm-shape", f"{la}.expm(jnp.ones((2, 3)))")
err("la-expm-int", f"{la}.expm(jnp.ones((2, 2), jnp.int32))")
err("la-eigh-b", f"{la}.eigh({_A}, {_A})")
err("la-qr-mode", f"{la}.qr({_A}, mode='bad')")
err("la-cholesky-shape", f"{la}.cholesky(jnp.ones((2, 3)))")

# -- multivariate, dirichlet, pareto; schur and hessenberg
_M = "jnp.array([[1.0, 0.5], [0.2, -0.3], [2.0, 1.0]], dtype=jnp.float32)"
_COV = "jnp.array([[2.0, 0.3], [0.3, 1.0]], dtype=jnp.float32)"
val("st-mvn-logpdf", f"{st}.multivariate_normal.logpdf({_M}, jnp.array([0.5, 0.]), {_COV})")
val("st-mvn-pdf", f"{st}.multivariate_normal.pdf({_M}[0], jnp.zeros(2), {_COV})")
val("st-mvn-scalar-cov", f"{st}.multivariate_normal.logpdf({_M}, jnp.zeros(2), 2.0)")
val("st-mvn-scalar", f"{st}.multivariate_normal.logpdf({_S}, 0.5, 2.0)")
val("st-dirichlet-logpdf", f"{st}.dirichlet.logpdf(jnp.array([0.2, 0.3, 0.5]), jnp.array([1., 2., 3.]))")
val("st-dirichlet-implied", f"{st}.dirichlet.pdf(jnp.array([[0.2, 0.5], [0.3, 0.6]]), jnp.array([1., 2., 3.]))")
val("st-dirichlet-off", f"{st}.dirichlet.logpdf(jnp.array([0.2, 0.3, 0.6]), jnp.array([1., 2., 3.]))")
for fn in ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]:
    val(f"st-pareto-{fn}", f"{st}.pareto.{fn}(jnp.array([0.5, 1., 1.5, 3., 10.]), 2.5)")
val("st-pareto-ppf", f"{st}.pareto.ppf({_P}, 2.5, 0.5, 2.)")
jaxpr("st-mvn-logpdf", f"lambda x: {st}.multivariate_normal.logpdf(x, jnp.zeros(2), {_COV})", f"{_M}")
jaxpr("st-pareto-logpdf", f"lambda x: {st}.pareto.logpdf(x, 2.5)", f"{_P}[:2]")
err("st-mvn-shape", f"{st}.multivariate_normal.logpdf({_M}, jnp.zeros(2), jnp.eye(3))")
err("st-mvn-singular", f"{st}.multivariate_normal.logpdf({_M}, jnp.zeros(2), {_COV}, allow_singular=True)")
err("st-dirichlet-alpha", f"{st}.dirichlet.logpdf(jnp.ones(2) / 2, jnp.ones((2, 2)))")
err("st-dirichlet-x", f"{st}.dirichlet.logpdf(jnp.ones(5) / 5, jnp.ones(2))")
_NS = f"({_A} + jnp.triu(jnp.ones((3, 3)), 1))"
val("la-hessenberg", f"jnp.abs({la}.hessenberg({_NS}))")
val("la-hessenberg-q", f"(lambda hq: hq[1] @ hq[0] @ hq[1].T)({la}.hessenberg({_NS}, calc_q=True))")
val("la-schur", f"(lambda tz: tz[1] @ tz[0] @ tz[1].T)({la}.schur({_NS}))")
val("la-schur-complex-dtype", f"{la}.schur({_NS}, output='complex')[0].dtype.name")
jaxpr("la-hessenberg", f"lambda m: {la}.hessenberg(m, calc_q=True)", _A)
jaxpr("la-schur", f"{la}.schur", _A)
err("la-schur-output", f"{la}.schur({_A}, output='bad')")
val("sp-poch", f"jax.scipy.special.poch({_X}, jnp.array([0., 1., 2.5, -0.5, 3.]))")
val("grad-sp-poch-z", f"jax.grad(lambda z: jax.scipy.special.poch(z, 2.5).sum())({_X})")
val("grad-sp-poch-m", f"jax.grad(lambda m: jax.scipy.special.poch(2.0, m).sum())({_X})")
jaxpr("sp-poch", "lambda z: jax.scipy.special.poch(z, 2.0)", f"{_X}[:2]")
