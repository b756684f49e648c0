"""custom_jvp / custom_vjp rules kept in every composition order.

Each rule below gives a derivative that differs from the derivative of its
function, so a transformation that drops the rule (differentiating the
function instead) gives a different number. Every function is run under
grad/vmap/jit/jacfwd/jacrev/hessian/jvp/linearize nested both ways and
compared with what JAX 0.10.2 returned (``custom_rules_compositions.json``,
written by ``scripts/record_higher_order.py``), as are the ``nn`` functions
JAX defines with custom rules and the ones built on them.
"""
import pytest

import recorded

PRELUDE = '''
X = jnp.array([-1.5, 0.0, 0.5, 2.0, 6.0])
T = jnp.array([1.0, -2.0, 0.5, 3.0, 1.0])
X2 = jnp.stack([X, 2.0 * X - 1.0])
Y = jnp.array([0.5, -1.0, 2.0, 1.5, 3.0])
SymbolicZero = jax.custom_derivatives.SymbolicZero

@jax.custom_jvp
def cj(x):
    return jnp.sin(x)
cj.defjvp(lambda p, t: (cj(p[0]), 2.0 * t[0] * jnp.cos(p[0]) + 0.5 * t[0]))

@jax.custom_jvp
def cj2(x, y):
    return x * y
@cj2.defjvp
def cj2_jvp(p, t):
    (x, y), (tx, ty) = p, t
    return cj2(x, y), 3.0 * tx * y + 5.0 * x * ty

@partial(jax.custom_jvp, nondiff_argnums=(0,))
def cj_nd(fn, x):
    return fn(x)
@cj_nd.defjvp
def cj_nd_jvp(fn, p, t):
    return cj_nd(fn, p[0]), 7.0 * t[0] * jnp.cos(p[0])

@jax.custom_jvp
def cj_sz(x, y):
    return x * y
def cj_sz_jvp(p, t):
    (x, y), (tx, ty) = p, t
    out = 0.0 * x
    if type(tx) is not SymbolicZero:
        out = out + 2.0 * tx
    if type(ty) is not SymbolicZero:
        out = out + 10.0 * ty
    return cj_sz(x, y), out
cj_sz.defjvp(cj_sz_jvp, symbolic_zeros=True)

@jax.custom_jvp
def cj_tree(d):
    return {"p": d["a"] * d["b"], "s": jnp.sin(d["a"])}
@cj_tree.defjvp
def cj_tree_jvp(p, t):
    d, td = p[0], t[0]
    return cj_tree(d), {"p": 2.0 * td["a"] + td["b"], "s": -td["a"]}

def cj_closure(x, y):
    @jax.custom_jvp
    def h(x):
        return jnp.sin(x) * y
    h.defjvp(lambda p, t: (h(p[0]), 3.0 * t[0] * y))
    return h(x)

@jax.custom_jvp
def lin(x):
    return x * 2.0
lin.defjvp(lambda p, t: (lin(p[0]), lin(t[0])))

@jax.custom_jvp
def cj_lin(x):  # its rule applies a custom_jvp function to the tangent
    return jnp.sin(x)
cj_lin.defjvp(lambda p, t: (cj_lin(p[0]), lin(t[0]) * jnp.cos(p[0])))

@jax.custom_vjp
def cv(x):
    return jnp.sin(x)
cv.defvjp(lambda x: (cv(x), jnp.cos(x)), lambda c, g: (3.0 * c * g,))

@jax.custom_vjp
def cv2(x, y):
    return x * y
cv2.defvjp(lambda x, y: (cv2(x, y), (x, y)), lambda r, g: (3.0 * g * r[1], 5.0 * g * r[0]))

@partial(jax.custom_vjp, nondiff_argnums=(0,))
def cv_nd(fn, x):
    return fn(x)
cv_nd.defvjp(lambda fn, x: (cv_nd(fn, x), x), lambda fn, r, g: (7.0 * g * jnp.cos(r),))

@jax.custom_vjp
def cv_sz(x, y):
    return x * y
def cv_sz_fwd(x, y):
    return cv_sz(x.value, y.value), (x.value, y.value, x.perturbed, y.perturbed)
def cv_sz_bwd(r, g):
    x, y, px, py = r
    return (2.0 * g * y if px else None, 10.0 * g * x if py else None)
cv_sz.defvjp(cv_sz_fwd, cv_sz_bwd, symbolic_zeros=True)

@jax.custom_vjp
def cv_tree(d):
    return {"p": d["a"] * d["b"], "s": jnp.sin(d["a"])}
def cv_tree_bwd(r, g):
    a, b = r
    return ({"a": 2.0 * g["p"] - g["s"], "b": None},)
cv_tree.defvjp(lambda d: (cv_tree(d), (d["a"], d["b"])), cv_tree_bwd)

@jax.custom_vjp
def cv_zero_ct(x):
    return (x * 2.0, jnp.cos(x))
cv_zero_ct.defvjp(lambda x: (cv_zero_ct(x), x), lambda r, g: (4.0 * g[0] + 0.0 * r,))

def cv_closure(x, y):
    @jax.custom_vjp
    def h(x):
        return jnp.sin(x) * 2.0
    h.defvjp(lambda x: (h(x), x), lambda r, g: (3.0 * g * y,))
    return h(x)

def s(f):
    return lambda *a: jnp.sum(f(*a))

# the tutorial's behaviours: which of function and rule runs, in what order,
# on what values
calls = []

@jax.custom_jvp
def logged(x):
    calls.append("f")
    return x * 2.0
@logged.defjvp
def logged_jvp(p, t):
    calls.append("jvp")
    if p[0] > 0:  # concrete outside jit
        return logged(p[0]), 3.0 * t[0]
    return logged(p[0]), -1.0 * t[0]

@jax.custom_vjp
def vlogged(x):
    calls.append("f")
    return x * 2.0
def vlogged_fwd(x):
    calls.append("fwd")
    return vlogged(x), x
def vlogged_bwd(r, g):
    calls.append("bwd")
    return (g * 5.0 if r > 0 else -g,)
vlogged.defvjp(vlogged_fwd, vlogged_bwd)

# rules that break their contract, and keyword arguments
@jax.custom_jvp
def bad_pair(x):
    return x
bad_pair.defjvp(lambda p, t: p[0])

@jax.custom_jvp
def bad_dtype(x):
    return x
bad_dtype.defjvp(lambda p, t: (p[0], t[0].astype(jnp.float16)))

@jax.custom_jvp
def bad_tree(x):
    return x
bad_tree.defjvp(lambda p, t: ((p[0],), (t[0],)))

@jax.custom_vjp
def bad_bwd(x, y):
    return x * y
bad_bwd.defvjp(lambda x, y: (x * y, None), lambda r, g: (g,))

@jax.custom_vjp
def bad_fwd(x):
    return x
bad_fwd.defvjp(lambda x: x, lambda r, g: (g,))

@jax.custom_jvp
def kw(x, y=2.0):
    return x * y
kw.defjvp(lambda p, t: (kw(*p), 3.0 * t[0] * p[1] + t[1] * p[0]))

def trail(thunk):
    calls.clear()
    out = thunk()
    return str(calls) + " " + repr(out)
'''

# Unary elementwise functions; each composition below applies to them.
UNARY = {
    "custom_jvp": "cj",
    "custom_jvp_nondiff": "partial(cj_nd, jnp.sin)",
    "custom_jvp_pair_x": "lambda x: cj2(x, 1.5)",
    "custom_jvp_symzero_x": "lambda x: cj_sz(x, 2.0)",
    "custom_jvp_tree": "lambda x: cj_tree({'a': x, 'b': 2.0 * x})['p']",
    "custom_jvp_linear_in_rule": "cj_lin",
    "custom_vjp": "cv",
    "custom_vjp_nondiff": "partial(cv_nd, jnp.sin)",
    "custom_vjp_pair_x": "lambda x: cv2(x, 1.5)",
    "custom_vjp_symzero_x": "lambda x: cv_sz(x, 2.0)",
    "custom_vjp_tree": "lambda x: cv_tree({'a': x, 'b': 2.0 * x})['s']",
    "custom_vjp_zero_ct": "lambda x: cv_zero_ct(x)[0]",
    "nn.relu": "jax.nn.relu",
    "nn.relu6": "lambda x: jax.nn.relu6(x * 1.0)",
    "nn.softplus": "jax.nn.softplus",
    "nn.silu": "jax.nn.silu",
    "nn.gelu": "jax.nn.gelu",
    "nn.log1mexp": "lambda x: jax.nn.log1mexp(jnp.abs(x) + 0.1)",
    "jnp.logaddexp": "lambda x: jnp.logaddexp(x, 0.5)",
}

CASES = recorded.compositions(UNARY)

CASES.update({
    # two-argument rules, differentiated in each argument, batched in either
    "custom_jvp2:grad_vmap_both": "jax.grad(s(jax.vmap(cj2)), (0, 1))(X, Y)",
    "custom_jvp2:grad_vmap_in_axes_none":
        "jax.grad(s(jax.vmap(cj2, in_axes=(0, None))), (0, 1))(X, 2.0)",
    "custom_jvp2:vmap_grad_argnums1": "jax.vmap(jax.grad(cj2, 1), in_axes=(None, 0))(2.0, Y)",
    "custom_jvp2:jacrev_both": "jax.jacrev(jax.vmap(cj2), (0, 1))(X, Y)",
    "custom_jvp2:jacfwd_both": "jax.jacfwd(jax.vmap(cj2), (0, 1))(X, Y)",
    "custom_vjp2:grad_vmap_both": "jax.grad(s(jax.vmap(cv2)), (0, 1))(X, Y)",
    "custom_vjp2:grad_vmap_in_axes_none":
        "jax.grad(s(jax.vmap(cv2, in_axes=(0, None))), (0, 1))(X, 2.0)",
    "custom_vjp2:vmap_grad_argnums1": "jax.vmap(jax.grad(cv2, 1), in_axes=(None, 0))(2.0, Y)",
    "custom_vjp2:jacrev_both": "jax.jacrev(jax.vmap(cv2), (0, 1))(X, Y)",
    "custom_jvp_symzero:grad_y": "jax.grad(s(jax.vmap(cj_sz)), 1)(X, Y)",
    "custom_jvp_symzero:jvp_both": "jax.jvp(jax.vmap(cj_sz), (X, Y), (T, T))",
    "custom_vjp_symzero:grad_y": "jax.grad(s(jax.vmap(cv_sz)), 1)(X, Y)",
    "custom_vjp_symzero:grad_both": "jax.grad(s(jax.vmap(cv_sz)), (0, 1))(X, Y)",
    "custom_jvp_tree:grad_vmap": "jax.grad(lambda a, b: jax.vmap(cj_tree)"
                                 "({'a': a, 'b': b})['s'].sum() + jax.vmap(cj_tree)"
                                 "({'a': a, 'b': b})['p'].sum(), (0, 1))(X, Y)",
    "custom_vjp_tree:grad_vmap": "jax.grad(lambda a, b: jax.vmap(cv_tree)({'a': a, 'b': b})"
                                 "['p'].sum() + jax.vmap(cv_tree)({'a': a, 'b': b})['s'].sum(),"
                                 " (0, 1))(X, Y)",
    # rules closing over vmapped values
    "custom_jvp_closure:vmap": "jax.vmap(cj_closure)(X, Y)",
    "custom_jvp_closure:grad_vmap": "jax.grad(s(jax.vmap(cj_closure)))(X, Y)",
    "custom_jvp_closure:vmap_grad": "jax.vmap(jax.grad(cj_closure))(X, Y)",
    "custom_jvp_closure:jit_grad_vmap": "jax.jit(jax.grad(s(jax.vmap(cj_closure))))(X, Y)",
    "custom_jvp_closure:grad_jit_vmap": "jax.grad(s(jax.jit(jax.vmap(cj_closure))))(X, Y)",
    "custom_jvp_closure:grad_y_error": "jax.grad(cj_closure, 1)(1.0, 2.0)",
    "custom_vjp_closure:grad_vmap": "jax.grad(s(jax.vmap(cv_closure)))(X, Y)",
    "custom_vjp_closure:vmap_grad": "jax.vmap(jax.grad(cv_closure))(X, Y)",
    "custom_vjp_closure:jit_grad_vmap": "jax.jit(jax.grad(s(jax.vmap(cv_closure))))(X, Y)",
    # nn functions over an axis
    "nn.softmax:grad_vmap": "jax.grad(lambda x: jnp.sum(jax.vmap(jax.nn.softmax)(x) * X2))(X2)",
    "nn.softmax:vmap_jacrev": "jax.vmap(jax.jacrev(jax.nn.softmax))(X2)",
    "nn.softmax:jacfwd": "jax.jacfwd(jax.nn.softmax)(X)",
    "nn.softmax:hessian": "jax.hessian(lambda x: jax.nn.softmax(x)[1])(X)",
    "nn.log_softmax:grad_vmap": "jax.grad(lambda x: jnp.sum(jax.vmap(jax.nn.log_softmax)(x)"
                                " * X2))(X2)",
    "nn.log_softmax:vmap_jacrev": "jax.vmap(jax.jacrev(jax.nn.log_softmax))(X2)",
    "nn.logsumexp:grad_vmap": "jax.grad(s(jax.vmap(jax.nn.logsumexp)))(X2)",
    "nn.logsumexp:vmap_hessian": "jax.vmap(jax.hessian(jax.nn.logsumexp))(X2)",
    "nn.logsumexp:jit_grad_vmap_b": "jax.jit(jax.grad(s(jax.vmap(lambda x: jax.nn.logsumexp("
                                    "x, b=jnp.abs(x) + 1.0)))))(X2)",
    "nn.standardize:grad_vmap": "jax.grad(lambda x: jnp.sum(jax.vmap(jax.nn.standardize)(x)"
                                " * X2))(X2)",
    "nn.glu:grad_vmap": "jax.grad(s(jax.vmap(jax.nn.glu)))(jnp.concatenate([X2, X2 + 1.0], 1))",
    "jnp.logaddexp:grad_vmap_both": "jax.grad(s(jax.vmap(jnp.logaddexp)), (0, 1))(X, Y)",
    "jnp.logaddexp2:grad_vmap_both": "jax.grad(s(jax.vmap(jnp.logaddexp2)), (0, 1))(X, Y)",
    # the batched equations print as JAX prints them
    "jaxpr:custom_jvp_vmap": "str(jax.make_jaxpr(jax.vmap(cj))(X))",
    "jaxpr:custom_vjp_vmap": "str(jax.make_jaxpr(jax.vmap(cv))(X))",
    "jaxpr:custom_jvp_vmap_jit": "str(jax.make_jaxpr(jax.vmap(jax.jit(cj)))(X))",
    "jaxpr:custom_jvp2_vmap_none": "str(jax.make_jaxpr(jax.vmap(cj2, (0, None)))(X, 2.0))",
    "jaxpr:custom_jvp_closure_vmap": "str(jax.make_jaxpr(jax.vmap(cj_closure))(X, Y))",
    "jaxpr:custom_vjp_closure_vmap": "str(jax.make_jaxpr(jax.vmap(cv_closure))(X, Y))",
    "jaxpr:relu_vmap": "str(jax.make_jaxpr(jax.vmap(jax.nn.relu))(X))",
    "jaxpr:custom_jvp_grad_vmap": "str(jax.make_jaxpr(jax.grad(s(jax.vmap(cj))))(X))",
    "jaxpr:custom_vjp_grad_vmap": "str(jax.make_jaxpr(jax.grad(s(jax.vmap(cv))))(X))",
    "jaxpr:custom_jvp_vmap_grad": "str(jax.make_jaxpr(jax.vmap(jax.grad(cj)))(X))",
    "jaxpr:custom_vjp_vmap_grad": "str(jax.make_jaxpr(jax.vmap(jax.grad(cv)))(X))",
    "jaxpr:custom_jvp_jvp_vmap": "str(jax.make_jaxpr(lambda x, t: jax.jvp(jax.vmap(cj), (x,), "
                                 "(t,)))(X, T))",
    "jaxpr:custom_vjp_vmap_jit": "str(jax.make_jaxpr(jax.vmap(jax.jit(cv)))(X))",
    "jaxpr:custom_jvp_nondiff_vmap": "str(jax.make_jaxpr(jax.vmap(partial(cj_nd, jnp.sin)))(X))",
    "jaxpr:custom_vjp_symzero_vmap": "str(jax.make_jaxpr(jax.vmap(cv_sz))(X, T))",
    # order of calls, concrete rules, Python scalars
    "tutorial:jvp_plain_float": "trail(lambda: logged(1.5))",
    "tutorial:jvp_plain_int_value": "logged(3)",
    "tutorial:jvp_grad_order": "trail(lambda: jax.grad(logged)(jnp.float32(1.5)))",
    "tutorial:jvp_grad_negative": "trail(lambda: jax.grad(logged)(jnp.float32(-1.5)))",
    "tutorial:jvp_jvp_order": "trail(lambda: jax.jvp(logged, (jnp.float32(2.0),), "
                              "(jnp.float32(1.0),)))",
    "tutorial:jvp_jit_order": "trail(lambda: jax.jit(logged)(1.5))",
    "tutorial:jvp_vmap_order": "trail(lambda: jax.vmap(logged)(X))",
    "tutorial:jvp_jit_grad_error": "jax.jit(jax.grad(logged))(1.5)",
    "tutorial:vjp_plain_float": "trail(lambda: vlogged(1.5))",
    "tutorial:vjp_grad_order": "trail(lambda: jax.grad(vlogged)(jnp.float32(1.5)))",
    "tutorial:vjp_grad_negative": "trail(lambda: jax.grad(vlogged)(jnp.float32(-1.5)))",
    "tutorial:vjp_jvp_error": "jax.jvp(vlogged, (1.0,), (1.0,))",
    # the function vjp returns is a pytree of residuals
    "tutorial:vjp_leaves": "jax.tree.leaves(jax.vjp(jnp.sin, jnp.float32(3.0))[1])",
    "tutorial:vjp_leaves_array": "jax.tree.leaves(jax.vjp(lambda x: x * jnp.sin(x), X)[1])",
    "tutorial:vjp_make_jaxpr": "str(jax.make_jaxpr(lambda x: jax.vjp(jnp.sin, x))(1.0))",
    "tutorial:vjp_make_jaxpr_two": "str(jax.make_jaxpr(lambda x, y: jax.vjp("
                                   "lambda a, b: jnp.sin(a) * b, x, y))(1.0, 2.0))",
    "tutorial:vjp_from_jit": "jax.jit(lambda x: jax.vjp(jnp.sin, x))(X)[1](T)",
    "tutorial:vjp_tree_map": "jax.tree.map(lambda r: 2.0 * r, jax.vjp(jnp.sin, X)[1])(T)",
    "tutorial:vjp_too_many_args": "jax.vjp(jnp.sin, 1.0)[1](1.0, 2.0)",
    "tutorial:shape_dtype_like": "repr([jax.ShapeDtypeStruct.like(v) for v in (X, 1.0, 3, "
                                 "np.ones((2, 3), np.int32), jnp.float32(1.0) + 1.0, "
                                 "jax.ShapeDtypeStruct((2,), jnp.float16, weak_type=True))])",
    "tutorial:shape_dtype_like_bad": "jax.ShapeDtypeStruct.like('a')",
    # errors and keyword arguments
    "errors:jvp_not_pair": "jax.grad(bad_pair)(1.0)",
    "errors:jvp_tangent_dtype": "jax.jvp(bad_dtype, (jnp.float32(1.0),), (jnp.float32(1.0),))",
    "errors:jvp_tree": "jax.jvp(bad_tree, (jnp.float32(1.0),), (jnp.float32(1.0),))",
    "errors:bwd_length": "jax.grad(bad_bwd)(1.0, 2.0)",
    "errors:fwd_not_pair": "jax.grad(bad_fwd)(1.0)",
    "errors:no_jvp": "jax.custom_jvp(lambda x: x)(1.0)",
    "errors:no_vjp": "jax.custom_vjp(lambda x: x)(1.0)",
    "errors:nondiff_tracer": "jax.jit(lambda x: cv_nd(x, x))(1.0)",
    "errors:kwargs_unknown": "kw(1.0, z=3.0)",
    "errors:vjp_closed_over_in_jit": "jax.grad(lambda x: jax.jit(lambda y: cv_closure(y, x))(1.0))"
                                     "(2.0)",
    "custom_jvp_linear:linear_transpose": "jax.linear_transpose(lin, 1.0)(3.0)",
    "kwargs:value": "kw(2.0, y=3.0)",
    "kwargs:grad": "jax.grad(lambda x, y: kw(x, y=y), (0, 1))(1.0, 3.0)",
    "kwargs:vmap_grad": "jax.vmap(jax.grad(lambda x, y: kw(x, y=y), (0, 1)))(X, Y)",
})

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
KNOWN = {
    "custom_vjp_closure:grad_vmap": "JAX rejects a bwd rule closing over a vmapped value "
                                    "(UnexpectedTracerError); xjit batches the rule in a subtrace "
                                    "that shares the vmap's tracers and returns the value of the "
                                    "vmap(grad) order",
    "custom_vjp_closure:jit_grad_vmap": "as custom_vjp_closure:grad_vmap, under jit",
}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "custom_rules_compositions", PRELUDE, CASES, KNOWN, every=40)
