"""Which rules every primitive has, and the gaps that are meant.

For every primitive defined in xjit (the module-level ``*_p`` objects of
``xjit._src``), the rule registries must hold an abstract eval, a lowering, a
JVP, a batching rule, and a transpose where JAX 0.10.2 registers one; a
missing rule must be on an allow-list below, with the reason. The
elementwise batching rule must follow the primitive's arity (the lax
function's signature), so a binary op can never get the unary rule. The rules
filled to close gaps are checked against values recorded from JAX 0.10.2 in
every composition order of jit, grad and vmap (``test_recorded_values_match_jax``
re-derives the records with the oracle).
"""
import importlib
import inspect
import pkgutil
import sys

import numpy as np
import pytest

import xjit
import xjit as jax
import xjit.numpy as jnp
from xjit._src import core
from xjit._src.interpreters import ad, batching, mlir

# -- intended gaps, by rule: name -> why

NO_JVP = {
    "empty_ref": "no operands, so nothing is ever differentiated",
    "custom_lin": "internal to linearize: it appears only in linear jaxprs, which are "
                  "transposed, never differentiated again",
    "pmax": "JAX 0.10.2 registers no JVP for pmax either",
    "pmin": "JAX 0.10.2 registers no JVP for pmin either",
    "nextafter": "JAX 0.10.2 registers no JVP (grad raises NotImplementedError there too)",
    "population_count": "JAX 0.10.2 registers no JVP for it (an integer op: grad raises there too)",
    "clz": "JAX 0.10.2 registers no JVP for it (an integer op: grad raises there too)",
    "zeta": "JAX 0.10.2 registers no JVP (the derivative in x has no closed form there)",
    "igamma_grad_a": "JAX 0.10.2 registers no JVP (it is itself a derivative)",
    "geqrf": "JAX 0.10.2 registers no JVP (differentiate qr instead)",
    "householder_product": "JAX 0.10.2 registers no JVP",
    "ormqr": "JAX 0.10.2 registers no JVP",
    "schur": "JAX 0.10.2 registers no JVP",
    "hessenberg": "JAX 0.10.2 registers no JVP",
    "tridiagonal": "JAX 0.10.2 registers no JVP",
    "lu_pivots_to_permutation": "JAX 0.10.2 registers no JVP (integer output)",
    "cholesky_update": "JAX 0.10.2 registers no JVP",
    "symmetric_product": "JAX 0.10.2 registers no JVP",
    "random_clone": "JAX 0.10.2 registers no JVP; keys have float0 tangents, so the JVP "
                    "interpreter never asks for one",
    **{name: "a call primitive: its bind evaluates the body in place under jvp, vmap and "
              "linearize, so the body's primitives' rules apply" for name in ("call", "closed_call")},
}
NO_BATCHING = {
    **{name: "a call primitive: its bind evaluates the body in place under vmap"
       for name in ("call", "closed_call")},
    "iota": "no operands, so nothing is ever batched",
    "empty": "no operands, so nothing is ever batched",
    "empty_ref": "no operands, so nothing is ever batched",
    "rng_uniform": "JAX 0.10.2 registers none: XLA's stateful generator has no per-example form",
    "cholesky_update": "JAX 0.10.2 declares it supports_batching=False",
    "linear_call": "JAX 0.10.2 registers no batching rule for linear_call either",
}
NO_LOWERING = {
    "call": "its bind calls the function in place under every trace, so it is never staged",
    **{name: "a state primitive: refs are discharged into values before lowering, as JAX's "
              "discharge_state does" for name in ("new_ref", "get", "swap", "addupdate",
                                                  "freeze", "empty_ref", "free_ref")},
    "check": "checkify functionalizes checks before staging; a bare check under jit raises "
             "JAX's 'not functionalized' error at abstract evaluation",
}
NO_TRANSPOSE = {
    "debug_print": "its JVP passes primals only, so it never appears in a linear jaxpr",
    "debug_callback": "its JVP passes primals only, so it never appears in a linear jaxpr",
    "pure_callback": "its JVP raises JAX's error, so it never reaches transposition",
    "io_callback": "its JVP raises JAX's error, so it never reaches transposition",
}
# Primitives JAX 0.10.2 transposes (its ad.primitive_transposes, by name).
JAX_TRANSPOSED = {
    "add", "add_any", "all_gather", "all_to_all", "broadcast_in_dim", "complex",
    "concatenate", "conj", "conv_general_dilated", "convert_element_type", "copy", "cumsum",
    "custom_lin", "custom_linear_solve", "debug_callback", "debug_print", "div", "dot_general",
    "dynamic_update_slice", "fft", "gather", "imag", "io_callback", "mul", "neg",
    "optimization_barrier", "pad", "pbroadcast", "ppermute", "psum", "pure_callback", "real",
    "reduce_precision", "reduce_scatter", "reduce_sum", "reduce_window_sum", "reshape", "rev",
    "scatter", "scatter-add", "scatter-mul", "scatter-sub", "select_and_gather_add",
    "select_and_scatter_add", "select_n", "split", "squeeze", "stack", "sub", "tile",
    "transpose", "triangular_solve", "tridiagonal_solve", "unstack", "while",
}


def _primitives():
    """Every module-level primitive of xjit's own modules (not ones tests
    define); every module is imported first, so the set does not depend on
    what other tests happened to import."""
    for info in pkgutil.walk_packages(xjit.__path__, "xjit."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    found = {}
    for name, mod in list(sys.modules.items()):
        if name == "xjit" or name.startswith("xjit."):
            for v in list(vars(mod).values()):
                if isinstance(v, core.Primitive):
                    found[id(v)] = v
    return sorted(found.values(), key=lambda p: p.name)


PRIMS = _primitives()


def _has_jvp(p):
    return p in ad.jvp_rules or p in ad.trace_jvp_rules


def _has_batching(p):
    return p in batching.batch_rules or p in batching.axis_batch_rules


def _coverage():
    return {p.name: {"abstract_eval": p in core.abstract_eval_rules, "lowering": p in mlir.rules,
                     "jvp": _has_jvp(p), "transpose": p in ad.transpose_rules,
                     "batching": _has_batching(p)} for p in PRIMS}


def test_walk_finds_the_primitives():
    names = {p.name for p in PRIMS}
    assert len(PRIMS) > 150
    assert {"add", "scan", "jit", "gather", "psum", "random_bits", "eig", "pure_callback",
            "stop_gradient", "add_any", "custom_jvp_call"} <= names


@pytest.mark.parametrize("rule,allowed", [
    ("abstract_eval", {"call": "its bind calls the function in place, so it is never "
                               "abstractly evaluated"}), ("lowering", NO_LOWERING), ("jvp", NO_JVP),
    ("batching", NO_BATCHING)])
def test_every_primitive_has_the_rule_or_an_allowed_gap(rule, allowed):
    cov = _coverage()
    missing = sorted(n for n, rules in cov.items() if not rules[rule])
    assert [n for n in missing if n not in allowed] == [], f"{rule} missing"
    # an allow-list entry that is no longer a gap (or names no primitive) must go
    assert sorted(allowed) == missing


def test_primitives_jax_transposes_have_a_transpose_rule():
    cov = _coverage()
    missing = sorted(n for n in JAX_TRANSPOSED & set(cov) if not cov[n]["transpose"])
    assert missing == sorted(NO_TRANSPOSE)


def test_linear_jvp_rules_come_with_transposes():
    """A primitive whose tangent is the primitive itself (deflinear) can be
    transposed: every transpose rule's primitive also has a JVP."""
    assert [p.name for p in PRIMS if p in ad.transpose_rules and not _has_jvp(p)
            and p.name not in NO_JVP] == []


# -- elementwise batching follows arity

_API_NAME = {"and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
             "not": "bitwise_not", "regularized_incomplete_beta": "betainc",
             "igamma_grad_a": "igamma_grad_a", "random_gamma_grad": "random_gamma_grad"}


def _elementwise():
    from xjit._src.lax import elementwise, special
    prims = [v for m in (elementwise, special) for v in vars(m).values()
             if isinstance(v, core.Primitive)]
    return sorted({id(p): p for p in prims}.values(), key=lambda p: p.name)


@pytest.mark.parametrize("prim", _elementwise(), ids=lambda p: p.name)
def test_elementwise_batching_rule_follows_arity(prim):
    fn = getattr(jax.lax, _API_NAME.get(prim.name, prim.name))
    params = inspect.signature(fn).parameters.values()
    arity = sum(p.default is inspect.Parameter.empty and
                p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if prim.name in ("integer_pow", "reduce_precision"):  # the rest are parameters
        arity = 1
    kind = batching.batch_rules[prim].__qualname__.split(".")[0]
    assert kind == ("broadcast_batcher" if arity > 1 else "vectorized_batcher"), arity


@pytest.mark.parametrize("name", ["add", "max", "atan2", "nextafter", "pow", "rem", "zeta",
                                  "complex", "lt", "shift_left", "bitwise_and", "mulhi"])
def test_binary_ops_batch_operands_with_different_batch_axes(name):
    fn = getattr(jax.lax, name)
    ints = name in ("shift_left", "bitwise_and", "mulhi")
    x = (np.arange(6, dtype=np.int32) + 1 if ints else np.arange(6, dtype=np.float32) / 7 + .5)
    x = x.reshape(2, 3)
    y = x[::-1] + (1 if ints else np.float32(.25))
    got = jax.vmap(fn, (0, 1))(x, y.T)
    want = np.stack([np.asarray(fn(x[i], y[i])) for i in range(2)])
    np.testing.assert_array_equal(np.asarray(got), want)
    got = jax.vmap(fn, (0, None))(x, y[0])
    want = np.stack([np.asarray(fn(x[i], y[0])) for i in range(2)])
    np.testing.assert_array_equal(np.asarray(got), want)


# -- the filled gaps, against JAX 0.10.2's values

X = np.array([1., 5., 3., 2.], np.float32)
IDX = np.array([0, 0, 1, 2, 3, 3], np.int32)
U = np.array([4., 4., 5., 1., 2., 7.], np.float32)   # ties: two 4s at 0; 5 == x[1]
W = np.arange(1., 5., dtype=np.float32)
DL = np.array([0., 1., 2., .5], np.float32)
D = np.array([4., 5., 6., 7.], np.float32)
DU = np.array([1., .5, 2., 0.], np.float32)
B = np.arange(8., dtype=np.float32).reshape(4, 2) + 1
BW = np.arange(8., dtype=np.float32).reshape(4, 2)


def cases(jax, jnp):
    """name -> thunk; every filled rule in every composition order."""
    lax = jax.lax
    idx = jnp.asarray(IDX)

    def smax(x, u):
        return (x.at[idx].max(u) * W).sum()

    def smin(x, u):
        return (x.at[idx].min(u) * W).sum()

    def ssub(x, u):
        return (x.at[idx].subtract(u) ** 2).sum()

    def smul(x):
        return (x.at[idx].multiply(jnp.asarray(U)) ** 2).sum()

    solve = lax.linalg.tridiagonal_solve

    def tri(dl, d, du, b):
        return (solve(dl, d, du, b) * BW).sum()

    def bits(x):
        return (lax.bitcast_convert_type(x, jnp.int32).astype(jnp.float32) * x).sum()

    def keyed(x):
        k = jax.random.split(jax.random.fold_in(jax.random.key(0), 3))[1]
        return (jax.random.uniform(k, (4,)) * x).sum()

    x2, u2 = jnp.stack([X, X + 1]), jnp.stack([U, U * 2])
    sym = lambda a, c: lax.linalg.symmetric_product(a, c, alpha=2., beta=.5)  # noqa: E731
    a3 = jnp.arange(12., dtype=jnp.float32).reshape(3, 2, 2) / 4
    c3 = jnp.stack([jnp.eye(2), 2 * jnp.eye(2), jnp.ones((2, 2))])
    return {
        "scatter_max/grad": lambda: jax.grad(smax, (0, 1))(X, U),
        "scatter_max/jit_grad": lambda: jax.jit(jax.grad(smax, (0, 1)))(X, U),
        "scatter_max/grad_jit": lambda: jax.grad(jax.jit(smax), (0, 1))(X, U),
        "scatter_max/vmap_grad": lambda: jax.vmap(jax.grad(smax, (0, 1)))(x2, u2),
        "scatter_max/grad_vmap": lambda: jax.grad(lambda x, u: jax.vmap(smax)(x, u).sum(),
                                                  (0, 1))(x2, u2),
        "scatter_max/jvp": lambda: jax.jvp(lambda x, u: x.at[idx].max(u), (X, U),
                                           (jnp.ones(4), jnp.arange(6.)))[1],
        "scatter_min/grad": lambda: jax.grad(smin, (0, 1))(X, U),
        "scatter_min/vmap_jit_grad": lambda: jax.vmap(jax.jit(jax.grad(smin, (0, 1))))(x2, u2),
        "scatter_sub/grad": lambda: jax.grad(ssub, (0, 1))(X, U),
        "scatter_sub/vmap_grad": lambda: jax.vmap(jax.grad(ssub, (0, 1)))(x2, u2),
        "scatter_sub/linear_transpose": lambda: jax.linear_transpose(
            lambda u: jnp.asarray(X).at[idx].subtract(u), U)(W),
        "scatter_mul/grad": lambda: jax.grad(smul)(X),
        "scatter_mul/vmap_jit_grad": lambda: jax.vmap(jax.jit(jax.grad(smul)))(x2),
        "tridiagonal_solve/grad": lambda: jax.grad(tri, (0, 1, 2, 3))(DL, D, DU, B),
        "tridiagonal_solve/jit_grad": lambda: jax.jit(jax.grad(tri, (0, 1, 2, 3)))(DL, D, DU, B),
        "tridiagonal_solve/jvp": lambda: jax.jvp(lambda d, b: solve(DL, d, DU, b), (D, B),
                                                 (jnp.ones(4), jnp.ones((4, 2))))[1],
        "tridiagonal_solve/vmap_grad": lambda: jax.vmap(jax.grad(tri, (1, 3)), (None, 0, None, 0))(
            DL, jnp.stack([D, D + 1]), DU, jnp.stack([B, -B])),
        "tridiagonal_solve/grad_vmap": lambda: jax.grad(
            lambda d, b: jax.vmap(tri, (None, 0, None, 0))(DL, d, DU, b).sum(), (0, 1))(
            jnp.stack([D, D + 1]), jnp.stack([B, -B])),
        "symmetric_product/vmap": lambda: jax.vmap(sym)(a3, c3),
        "symmetric_product/vmap_jit": lambda: jax.vmap(jax.jit(sym), (0, None))(a3, c3[0]),
        "symmetric_product/jit_vmap": lambda: jax.jit(jax.vmap(sym, (None, 0)))(a3[0], c3),
        "bitcast_convert_type/grad": lambda: jax.grad(bits)(X),
        "bitcast_convert_type/vmap_jit_grad": lambda: jax.vmap(jax.jit(jax.grad(bits)))(x2),
        "random/grad": lambda: jax.grad(keyed)(X),
        "random/jit_vmap_grad": lambda: jax.jit(jax.vmap(jax.grad(keyed)))(x2),
    }



def _flat(v):
    vs = v if isinstance(v, (tuple, list)) else (v,)
    return [np.asarray(a, np.float64).round(5) for a in vs]


RECORDED = {'bitcast_convert_type/grad': [[1065353216.0, 1084227584.0, 1077936128.0, 1073741824.0]],
 'bitcast_convert_type/vmap_jit_grad': [[[1065353216.0, 1084227584.0, 1077936128.0, 1073741824.0],
                                         [1073741824.0, 1086324736.0, 1082130432.0,
                                          1077936128.0]]],
 'random/grad': [[0.84902, 0.5596, 0.37063, 0.71295]],
 'random/jit_vmap_grad': [[[0.84902, 0.5596, 0.37063, 0.71295],
                           [0.84902, 0.5596, 0.37063, 0.71295]]],
 'scatter_max/grad': [[0.0, 1.0, 3.0, 0.0], [0.5, 0.5, 1.0, 0.0, 0.0, 4.0]],
 'scatter_max/grad_jit': [[0.0, 1.0, 3.0, 0.0], [0.5, 0.5, 1.0, 0.0, 0.0, 4.0]],
 'scatter_max/grad_vmap': [[[0.0, 1.0, 3.0, 0.0], [0.0, 0.0, 3.0, 0.0]],
                           [[0.5, 0.5, 1.0, 0.0, 0.0, 4.0], [0.5, 0.5, 2.0, 0.0, 0.0, 4.0]]],
 'scatter_max/jit_grad': [[0.0, 1.0, 3.0, 0.0], [0.5, 0.5, 1.0, 0.0, 0.0, 4.0]],
 'scatter_max/jvp': [[0.5, 1.5, 1.0, 5.0]],
 'scatter_max/vmap_grad': [[[0.0, 1.0, 3.0, 0.0], [0.0, 0.0, 3.0, 0.0]],
                           [[0.5, 0.5, 1.0, 0.0, 0.0, 4.0], [0.5, 0.5, 2.0, 0.0, 0.0, 4.0]]],
 'scatter_min/grad': [[1.0, 1.0, 0.0, 2.0], [0.0, 0.0, 1.0, 3.0, 2.0, 0.0]],
 'scatter_min/vmap_jit_grad': [[[1.0, 1.0, 0.0, 2.0], [1.0, 2.0, 0.0, 4.0]],
                               [[0.0, 0.0, 1.0, 3.0, 2.0, 0.0], [0.0, 0.0, 0.0, 3.0, 0.0, 0.0]]],
 'scatter_mul/grad': [[512.0, 250.0, 6.0, 784.0]],
 'scatter_mul/vmap_jit_grad': [[[512.0, 250.0, 6.0, 784.0], [1024.0, 300.0, 8.0, 1176.0]]],
 'scatter_sub/grad': [[-14.0, 0.0, 4.0, -14.0], [14.0, 14.0, -0.0, -4.0, 14.0, 14.0]],
 'scatter_sub/linear_transpose': [[-1.0, -1.0, -2.0, -3.0, -4.0, -4.0]],
 'scatter_sub/vmap_grad': [[[-14.0, 0.0, 4.0, -14.0], [-28.0, -8.0, 4.0, -30.0]],
                           [[14.0, 14.0, -0.0, -4.0, 14.0, 14.0],
                            [28.0, 28.0, 8.0, -4.0, 30.0, 30.0]]],
 'symmetric_product/jit_vmap': [[[[0.625, 0.375], [0.375, 2.125]],
                                 [[1.125, 0.375], [0.375, 2.625]],
                                 [[0.625, 0.875], [0.875, 2.125]]]],
 'symmetric_product/vmap': [[[[0.625, 0.375], [0.375, 2.125]], [[6.125, 7.375], [7.375, 11.625]],
                             [[18.625, 22.875], [22.875, 28.125]]]],
 'symmetric_product/vmap_jit': [[[[0.625, 0.375], [0.375, 2.125]],
                                 [[5.625, 7.375], [7.375, 11.125]],
                                 [[18.625, 22.375], [22.375, 28.125]]]],
 'tridiagonal_solve/grad': [[0.0, -0.10585, -0.84245, -0.53641],
                            [-0.0551, -0.277, -0.49006, -1.54814],
                            [-0.10452, -0.16075, -1.4124, 0.0],
                            [[-0.04261, 0.18375], [0.17044, 0.26498], [0.59521, 0.74567],
                             [0.68708, 0.78695]]],
 'tridiagonal_solve/grad_vmap': [[[-0.0551, -0.277, -0.49006, -1.54814],
                                  [0.0382, 0.22822, 0.44091, 1.2258]],
                                 [[[-0.04261, 0.18375], [0.17044, 0.26498], [0.59521, 0.74567],
                                   [0.68708, 0.78695]],
                                  [[-0.03344, 0.14791], [0.1672, 0.26045], [0.51511, 0.64469],
                                   [0.62122, 0.71383]]]],
 'tridiagonal_solve/jit_grad': [[0.0, -0.10585, -0.84245, -0.53641],
                                [-0.0551, -0.277, -0.49006, -1.54814],
                                [-0.10452, -0.16075, -1.4124, 0.0],
                                [[-0.04261, 0.18375], [0.17044, 0.26498], [0.59521, 0.74567],
                                 [0.68708, 0.78695]]],
 'tridiagonal_solve/jvp': [[[0.21188, 0.16395], [0.03863, 0.01795], [0.10071, 0.10244],
                            [-0.00386, -0.02368]]],
 'tridiagonal_solve/vmap_grad': [[[-0.0551, -0.277, -0.49006, -1.54814],
                                  [0.0382, 0.22822, 0.44091, 1.2258]],
                                 [[[-0.04261, 0.18375], [0.17044, 0.26498], [0.59521, 0.74567],
                                   [0.68708, 0.78695]],
                                  [[-0.03344, 0.14791], [0.1672, 0.26045], [0.51511, 0.64469],
                                   [0.62122, 0.71383]]]]}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_filled_rules_match_recorded_jax(name):
    got = _flat(cases(jax, jnp)[name]())
    want = RECORDED[name]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-5)


@pytest.mark.compare
def test_recorded_values_match_jax():
    import jax as real_jax
    import jax.numpy as real_jnp
    for name, thunk in cases(real_jax, real_jnp).items():
        assert [a.tolist() for a in _flat(thunk())] == RECORDED[name], name
