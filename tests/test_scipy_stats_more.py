"""The rest of ``jax.scipy.stats`` (binom, nbinom, betabinom, multinomial,
gennorm, gumbel_l/r, truncnorm, vonmises, wrapcauchy, poisson.entropy, mode,
rankdata, sem, gaussian_kde) against what JAX 0.10.2 returned
(``scipy_stats_more.json``, written by ``scripts/record_scipy_stats_more.py``).

Each value case broadcasts a function over a grid of arguments that crosses
the support's edges and invalid parameters (-inf, 0 or nan as JAX gives
them); others check dtypes and weak types (Python scalars, integer arrays,
x64), gradients, jit and vmap, and the errors JAX raises."""
import recorded

PRELUDE = '''
import importlib
st = importlib.import_module(jax.__name__ + ".scipy.stats")
f32 = np.float32

def g(*axes):
    """Arrays of the given values, each on its own axis (a broadcast grid)."""
    n = len(axes)
    return [np.asarray(v, f32).reshape((-1,) + (1,) * (n - 1 - i)) for i, v in enumerate(axes)]

def x64(thunk):
    with jax.enable_x64(True):
        return thunk()

def grad(fn, argnums, *args):
    return jax.grad(lambda *a: jnp.sum(fn(*a)), argnums)(*args)

PI = np.pi
INF = np.inf
DATA1 = np.array([0.1, 0.5, 1.3, 2.2, -0.4, 0.9], f32)
DATA2 = np.array([[0.1, 0.5, 1.3, 2.2, -0.4, 0.9], [1.0, -0.3, 0.2, 0.8, 0.0, 1.7]], f32)
W = np.array([1.0, 2.0, 0.5, 1.5, 1.0, 3.0], f32)
KEY = jax.random.key(0)

def public_names():
    """Each public name of the stats package; a module's with its functions."""
    lines = []
    for name in sorted(n for n in dir(st) if not n.startswith("_")):
        obj = getattr(st, name)
        if isinstance(obj, type(np)):
            fns = sorted(f for f in dir(obj) if not f.startswith("_") and callable(getattr(obj, f)))
            name += ": " + " ".join(fns)
        lines.append(name)
    return "\\n".join(lines)

TIES = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0], f32)
'''

GRIDS = {
    "binom": ("[-1, 0, 1, 2.5, 3, 5, 10, 11], [0, 5, 10], [0, 0.3, 1]",
              ["logpmf", "pmf"], "1.5"),
    "nbinom": ("[-1, 0, 1, 3, 7.5], [0.5, 1, 5], [0, 0.4, 1]", ["logpmf", "pmf"], "2"),
    "betabinom": ("[-1, 0, 1.7, 3, 10, 11], [-1, 0, 10], [-1, 0.5, 2], [0, 3]",
                  ["logpmf", "pmf"], "1"),
    "gennorm": ("[-3, -1, 0, 0.5, 2, INF], [0.5, 1, 2, 8]", ["logpdf", "cdf"], None),
    "gumbel_l": ("[-50, -5, -1, 0, 1, 5, 50], [0, 1.5], [-1, 0, 0.5, 2]",
                 ["logpdf", "logcdf", "logsf"], None),
    "gumbel_r": ("[-50, -5, -1, 0, 1, 5, 50], [0, 1.5], [-1, 0, 0.5, 2]",
                 ["logpdf", "logcdf", "logsf", "sf"], None),
    "vonmises": ("[-4, -PI, 0, 1, PI, 7], [-1, 0, 0.5, 2, 50, 1000]", ["logpdf"], None),
    "wrapcauchy": ("[-1, 0, 1, PI, 2 * PI, 7], [-0.1, 0, 0.3, 0.9, 1]", ["logpdf"], None),
    "truncnorm": ("[-10, -3, -1, 0, 0.5, 2, 3, 8], [-INF, -2, 0.5, 3], [-1, 1, 4, INF]",
                  ["logpdf", "logcdf", "logsf", "cdf"], None),
}

CASES = {}
for dist, (grid, fns, loc) in GRIDS.items():
    for fn in fns:
        CASES[f"grid:{dist}.{fn}"] = f"st.{dist}.{fn}(*g({grid}))"
        if loc and fn == fns[0]:
            CASES[f"grid_loc:{dist}.{fn}"] = f"st.{dist}.{fn}(*g({grid}), {loc})"

for dist in ("gumbel_l", "gumbel_r"):
    CASES[f"grid:{dist}.ppf"] = (f"st.{dist}.ppf(*g([-0.1, 0, 1e-6, 0.3, 0.5, 0.99, 1, 1.1], "
                                 "[0, 1.5], [-1, 0.5, 2]))")
CASES.update({
    "grid_loc_scale:truncnorm.logpdf": "st.truncnorm.logpdf(*g([-4, 0, 1, 2.5, 9], [-1, 0], "
                                       "[1, 3], [0, 1.5], [0.5, 2]))",
    "grid_loc_scale:truncnorm.logcdf": "st.truncnorm.logcdf(*g([-4, 0, 1, 2.5, 9], [-1, 0], "
                                       "[1, 3], [0, 1.5], [0.5, 2]))",
    "grid_loc_scale:truncnorm.sf": "st.truncnorm.sf(*g([-4, 0, 1, 2.5, 9], [-1, 0], [1, 3], "
                                   "[0, 1.5], [0.5, 2]))",
    "tail:truncnorm.logcdf": "st.truncnorm.logcdf(*g([5.0, 6.0, 7.5, 20], [4.5, 5.5], [8, INF]))",
    "tail:truncnorm.logsf": "st.truncnorm.logsf(*g([-20, -7.5, -6, -5], [-INF, -8], [-5.5, -4.5]))",
    "tail:gumbel_r.logsf": "st.gumbel_r.logsf(np.array([-3, 10, 30, 80], f32))",
    "tail:gumbel_l.logcdf": "st.gumbel_l.logcdf(np.array([-80, -30, -10, 3], f32))",
    # multinomial: a row whose counts do not add up to n, integer n arrays
    "multinomial.logpmf": "st.multinomial.logpmf(np.array([[1, 2, 3], [0, 0, 6], [2, 2, 2]]), "
                          "6, np.array([0.2, 0.3, 0.5], f32))",
    "multinomial.pmf": "st.multinomial.pmf(np.array([1, 2, 3]), np.array(6), "
                       "np.array([0.2, 0.3, 0.5], f32))",
    "multinomial.logpmf_total_off": "st.multinomial.logpmf(np.array([[1, 2, 3], [0, 0, 5]]), "
                                    "6, np.array([0.2, 0.3, 0.5], f32))",
    "multinomial.logpmf_zero_p": "st.multinomial.logpmf(np.array([0, 3, 3]), 6, "
                                 "np.array([0.0, 0.5, 0.5], f32))",
    "multinomial.float_counts": "st.multinomial.logpmf(np.array([1.0, 2.0]), 3, "
                                "np.array([0.5, 0.5]))",
    "names": "public_names()",
    # poisson.entropy over its three regimes and their borders
    "poisson.entropy": "st.poisson.entropy(np.array([0, 0.1, 1, 5, 9.9, 10, 50, 99, 100, 1000], "
                       "f32))",
    "poisson.entropy_loc": "st.poisson.entropy(np.array([[2.0], [30.0]], f32), "
                           "np.array([0, 1, 2], f32))",
    "poisson.entropy_int": "st.poisson.entropy(3)",
    "poisson.entropy_x64": "x64(lambda: st.poisson.entropy(np.array([0.5, 20.0, 400.0])))",
    "poisson.entropy_list": "st.poisson.entropy([1.0, 2.0])",
    # dtypes and weak types
    "weak:binom.logpmf": "st.binom.logpmf(3, 10, 0.3)",
    "weak:betabinom.pmf": "st.betabinom.pmf(3, 10, 2.0, 3.0)",
    "weak:gumbel_r.cdf": "st.gumbel_r.cdf(0.5)",
    "weak:truncnorm.logpdf": "st.truncnorm.logpdf(0.5, -1.0, 2.0)",
    "weak:vonmises.pdf": "st.vonmises.pdf(1.0, 2.0)",
    # an integer array meeting Python floats promotes to a weak float array
    "weak_array:binom.logpmf": "st.binom.logpmf(np.array([0, 2, 3]), 3, 0.5)",
    "weak_array:gennorm.logpdf": "st.gennorm.logpdf(np.array([-1, 0, 2]), 1.5)",
    "weak_array:gennorm.cdf": "st.gennorm.cdf(np.array([-1, 0, 2]), 1.5)",
    "weak_array:vonmises.logpdf": "st.vonmises.logpdf(np.array([0, 1, 3]), 2.0)",
    "weak_array:wrapcauchy.pdf": "st.wrapcauchy.pdf(np.array([0, 1, 3]), 0.5)",
    "weak_array:gumbel_r.sf": "st.gumbel_r.sf(np.array([0, 1, 3]), 0.5)",
    "weak_array:truncnorm.logpdf": "st.truncnorm.logpdf(np.array([0, 1]), -1.0, 2.0)",
    "weak_array:betabinom.logpmf": "st.betabinom.logpmf(np.array([0, 1]), 4, 2.0, 3.0)",
    "int:nbinom.pmf": "st.nbinom.pmf(np.array([0, 1, 2, 3]), np.array(4), 0.5)",
    "int:gennorm.cdf": "st.gennorm.cdf(np.array([-2, 0, 1]), 2)",
    "int:wrapcauchy.logpdf": "st.wrapcauchy.logpdf(np.array([0, 1, 3]), 0.5)",
    "int:gumbel_l.ppf": "st.gumbel_l.ppf(np.array([0, 1]))",
    "f16:truncnorm.pdf": "st.truncnorm.pdf(np.array([0.0, 0.5], np.float16), -1, 1)",
    "bf16:gumbel_r.logpdf": "st.gumbel_r.logpdf(jnp.array([0.0, 2.0], jnp.bfloat16))",
    "x64:truncnorm.logcdf": "x64(lambda: st.truncnorm.logcdf(*[a.astype(np.float64) for a in "
                            "g([-3, 0.5, 2, 6, 7], [-INF, 5.5], [1, 8, INF])]))",
    "x64:gumbel_l.logcdf": "x64(lambda: st.gumbel_l.logcdf(np.array([-40.0, -1.0, 0.0, 3.0])))",
    "x64:binom.pmf": "x64(lambda: st.binom.pmf(np.arange(6), 5, 0.25))",
    "x64:betabinom.logpmf": "x64(lambda: st.betabinom.logpmf(np.arange(6), 5, 2.0, 0.5))",
    "x64:vonmises.logpdf": "x64(lambda: st.vonmises.logpdf(1.0, np.array([0.1, 3.0, 1e4])))",
    # gradients, jit and vmap
    "grad:binom.logpmf": "grad(st.binom.logpmf, (0, 2), np.array([1.0, 3.0], f32), 10.0, "
                         "np.array([0.3, 0.6], f32))",
    "grad:nbinom.logpmf": "grad(st.nbinom.logpmf, (1, 2), np.array([2.0, 5.0], f32), "
                          "np.array([3.0, 1.5], f32), np.array([0.4, 0.7], f32))",
    "grad:betabinom.logpmf": "grad(st.betabinom.logpmf, (2, 3), np.array([2.0, 4.0], f32), 6.0, "
                             "np.array([1.5, 2.0], f32), np.array([0.7, 3.0], f32))",
    "grad:gennorm.logpdf": "grad(st.gennorm.logpdf, (0, 1), np.array([-1.2, 0.7], f32), "
                           "np.array([1.5, 3.0], f32))",
    "grad:gennorm.cdf": "grad(st.gennorm.cdf, 0, np.array([-1.2, 0.7], f32), 1.5)",
    "grad:gumbel_l.logcdf": "grad(st.gumbel_l.logcdf, (0, 1, 2), np.array([-1.0, 2.0], f32), "
                            "0.5, 1.5)",
    "grad:gumbel_r.logsf": "grad(st.gumbel_r.logsf, (0, 2), np.array([-1.0, 2.0], f32), 0.5, "
                           "1.5)",
    "grad:gumbel_r.ppf": "grad(st.gumbel_r.ppf, (0, 2), np.array([0.2, 0.9], f32), 0.5, 1.5)",
    "grad:vonmises.logpdf": "grad(st.vonmises.logpdf, (0, 1), np.array([0.3, 2.0], f32), "
                            "np.array([0.5, 40.0], f32))",
    "grad:wrapcauchy.logpdf": "grad(st.wrapcauchy.logpdf, (0, 1), np.array([0.3, 4.0], f32), "
                              "np.array([0.2, 0.8], f32))",
    "grad:truncnorm.logpdf": "grad(st.truncnorm.logpdf, (0, 1, 2, 3, 4), "
                             "np.array([0.2, 1.5], f32), -1.0, 2.0, 0.3, 1.2)",
    "grad:truncnorm.logcdf": "grad(st.truncnorm.logcdf, (0, 1, 2), "
                             "np.array([-0.5, 0.2, 1.5], f32), -1.0, 2.0)",
    "grad:truncnorm.sf": "grad(st.truncnorm.sf, (0, 1, 2), np.array([3.2, 4.0], f32), 3.0, 5.0)",
    "grad:poisson.entropy": "grad(st.poisson.entropy, 0, np.array([0.5, 4.0, 30.0, 300.0], f32))",
    "grad:multinomial.logpmf": "grad(st.multinomial.logpmf, 2, np.array([1, 2, 3]), 6, "
                               "np.array([0.2, 0.3, 0.5], f32))",
    "jit:truncnorm.cdf": "jax.jit(st.truncnorm.cdf)(np.array([0.0, 1.0], f32), -1.0, 2.0)",
    "jit:betabinom.logpmf": "jax.jit(st.betabinom.logpmf)(np.arange(4.0, dtype=f32), 3, 1.0, 2.0)",
    "vmap:binom.pmf": "jax.vmap(st.binom.pmf, (0, None, 0))(np.array([1.0, 2.0], f32), 4.0, "
                      "np.array([0.1, 0.9], f32))",
    "vmap:truncnorm.logsf": "jax.vmap(st.truncnorm.logsf, (0, 0, None))(np.array([0.0, 1.0], f32), "
                            "np.array([-1.0, 0.5], f32), 2.0)",
    "vmap:gumbel_l.sf": "jax.vmap(jax.grad(st.gumbel_l.sf))(np.array([-1.0, 0.5], f32))",
    "vmap:multinomial.pmf": "jax.vmap(st.multinomial.pmf, (0, None, None))("
                            "np.array([[1, 2, 3], [3, 3, 0]]), 6, np.array([0.2, 0.3, 0.5], f32))",
    # mode
    "mode:ints_axis0": "st.mode(np.array([[1, 2, 2], [3, 3, 1], [1, 3, 2]]))",
    "mode:ints_axis1": "st.mode(np.array([[1, 2, 2], [3, 3, 1], [1, 3, 2]]), axis=1)",
    "mode:axis_none": "st.mode(TIES, axis=None)",
    "mode:axis_none_keepdims": "st.mode(np.ones((2, 3), f32), axis=None, keepdims=True)",
    "mode:keepdims": "st.mode(np.array([[1, 2, 2], [3, 3, 1]]), axis=-1, keepdims=True)",
    "mode:scalar": "st.mode(4.0)",
    "mode:empty": "st.mode(np.zeros((0,), f32))",
    "mode:nan": "st.mode(np.array([np.nan, 1.0, np.nan, 2.0], f32))",
    "mode:3d": "st.mode(np.arange(24).reshape(2, 3, 4) % 3, axis=1)",
    "mode:bad_policy": "st.mode(TIES, nan_policy='skip')",
    "mode:omit": "st.mode(TIES, nan_policy='omit')",
    "mode:raise": "st.mode(TIES, nan_policy='raise')",
    "mode:list": "st.mode([1, 2, 2])",
    "mode:jit": "jax.jit(lambda a: st.mode(a))(TIES)",
    # rankdata
    **{f"rankdata:{m}": f"st.rankdata(TIES, {m!r})"
       for m in ("average", "min", "max", "dense", "ordinal")},
    **{f"rankdata_axis:{m}": f"st.rankdata(TIES[:10].reshape(2, 5), {m!r}, axis=1)"
       for m in ("average", "dense")},
    "rankdata:axis0": "st.rankdata(np.array([[3, 1], [1, 1], [2, 5]]), axis=0)",
    "rankdata:2d_flat": "st.rankdata(np.array([[3, 1], [1, 1], [2, 5]]), 'max')",
    "rankdata:nan": "st.rankdata(np.array([1.0, np.nan, 0.5], f32))",
    "rankdata:ints": "st.rankdata(np.array([5, 5, 2, 7]), 'min')",
    "rankdata:bad_method": "st.rankdata(TIES, 'first')",
    "rankdata:raise": "st.rankdata(TIES, nan_policy='raise')",
    "rankdata:x64": "x64(lambda: st.rankdata(np.array([2.0, 1.0, 2.0])))",
    "rankdata:vmap": "jax.vmap(st.rankdata)(TIES[:10].reshape(2, 5))",
    # sem
    "sem:axis0": "st.sem(DATA2)",
    "sem:axis1": "st.sem(DATA2, axis=1, ddof=0)",
    "sem:axis_none": "st.sem(DATA2, axis=None)",
    "sem:keepdims": "st.sem(DATA2, axis=1, keepdims=True)",
    "sem:ints": "st.sem(np.array([1, 2, 4, 7]))",
    "sem:scalar_weak": "st.sem(np.array([1.0, 2.0, 4.0]).astype(f32))",
    "sem:omit": "st.sem(np.array([[1.0, np.nan, 3.0], [2.0, 5.0, np.nan]], f32), axis=1, "
                "nan_policy='omit')",
    "sem:propagate_nan": "st.sem(np.array([1.0, np.nan, 3.0], f32))",
    "sem:bad_policy": "st.sem(DATA1, nan_policy='raise')",
    "sem:x64": "x64(lambda: st.sem(np.array([1.0, 2.0, 4.0])))",
    "sem:grad": "jax.grad(lambda a: st.sem(a))(DATA1)",
    # gaussian_kde
    "kde:evaluate_1d": "st.gaussian_kde(DATA1).evaluate(np.array([-1.0, 0.0, 0.7, 3.0], f32))",
    "kde:call_2d": "st.gaussian_kde(DATA2)(np.array([[0.0, 1.0], [0.5, -0.5]], f32))",
    "kde:one_point_2d": "st.gaussian_kde(DATA2).pdf(np.array([0.3, 0.4], f32))",
    "kde:logpdf": "st.gaussian_kde(DATA2, weights=W).logpdf(np.array([[0.0, 9.0], [0.5, -4.0]], "
                  "f32))",
    "kde:silverman": "st.gaussian_kde(DATA1, 'silverman').pdf(np.array([0.0, 1.0], f32))",
    "kde:scalar_bw": "st.gaussian_kde(DATA1, 0.3).pdf(np.array([0.0, 1.0], f32))",
    "kde:callable_bw": "st.gaussian_kde(DATA1, lambda k: 0.5 * k.neff ** -0.2).covariance",
    "kde:fields": "jax.tree_util.tree_leaves(st.gaussian_kde(DATA2, weights=W))",
    "kde:d_n": "(st.gaussian_kde(DATA2).d, st.gaussian_kde(DATA2).n)",
    "kde:int_data": "st.gaussian_kde(np.array([1, 3, 4, 8])).covariance",
    "kde:x64": "x64(lambda: st.gaussian_kde(DATA1.astype(np.float64)).pdf(np.array([0.25])))",
    "kde:integrate_box_1d": "st.gaussian_kde(DATA1, weights=W).integrate_box_1d(-0.5, 1.0)",
    "kde:integrate_gaussian": "st.gaussian_kde(DATA2).integrate_gaussian(np.array([0.2, 0.1], "
                              "f32), np.array([[1.0, 0.2], [0.2, 0.5]], f32))",
    "kde:integrate_kde": "st.gaussian_kde(DATA2).integrate_kde(st.gaussian_kde(DATA2[:, :4] + 0.3))",
    "kde:resample": "st.gaussian_kde(DATA2, weights=W).resample(KEY, (4,))",
    "kde:resample_default": "st.gaussian_kde(DATA1).resample(KEY)",
    "kde:jit_evaluate": "jax.jit(lambda k, p: k.evaluate(p))(st.gaussian_kde(DATA1), "
                        "np.array([0.5], f32))",
    "kde:grad_logpdf": "jax.grad(lambda p: st.gaussian_kde(DATA1).logpdf(p).sum())("
                       "np.array([0.2, 1.7], f32))",
    "kde:bad_bw": "st.gaussian_kde(DATA1, 'scot')",
    "kde:one_element": "st.gaussian_kde(np.array([1.0], f32))",
    "kde:complex": "st.gaussian_kde(np.array([1.0, 2.0, 3.0], np.complex64))",
    "kde:weights_len": "st.gaussian_kde(DATA1, weights=W[:4])",
    "kde:box_2d": "st.gaussian_kde(DATA2).integrate_box_1d(0.0, 1.0)",
    "kde:integrate_box": "st.gaussian_kde(DATA1).integrate_box(0.0, 1.0)",
    "kde:set_bandwidth": "st.gaussian_kde(DATA1).set_bandwidth('scott')",
    "kde:points_dim": "st.gaussian_kde(DATA2).evaluate(np.ones((3, 2), f32))",
    "kde:gaussian_dim": "st.gaussian_kde(DATA2).integrate_gaussian(np.zeros(3, f32), "
                        "np.eye(3, dtype=f32))",
})

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
KNOWN = {}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "scipy_stats_more", PRELUDE, CASES, KNOWN, every=10)

