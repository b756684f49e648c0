"""Differential cases for the derivative rules of max/min pooling
(select_and_gather_add / select_and_scatter_add), generic reduce_window,
the cumulative reductions and the lax.linalg decompositions: printed jaxprs
(``jaxpr-*``, compared as text), gradient values (``val-*``) and errors.

Linear-algebra values (``val-linalg-*``) are compared with a looser tolerance
by the test, since LAPACK and XLA's dot kernels may round differently."""

CASES = []

_X = "jnp.array([[0.3, -1.2, 2.0, 0.7, 1.1], [1.5, 0.2, -0.4, 2.2, -1.0], " \
     "[0.9, 1.9, -2.1, 0.0, 0.4], [-0.6, 1.3, 0.8, -1.7, 2.5]], jnp.float32)"
_V = "jnp.array([1.0, 3.0, 2.0, 5.0, 0.5], jnp.float32)"
_W = "jnp.arange(5.0, dtype=jnp.float32)"


def jaxpr(name, code):
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({code})"))


def val(name, code):
    CASES.append((f"val-{name}", f"result = {code}"))


# -- max/min pooling
_POOLS = {
    "max-same": "lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 2), 'SAME')",
    "max-valid": "lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 3), (2, 1), 'VALID')",
    "min-same": "lambda x: lax.reduce_window(x, jnp.inf, lax.min, (3, 2), (1, 1), 'SAME')",
    "max-pad": "lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "
               "((1, 0), (0, 1)))",
    "max-basedil": "lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), 'VALID', "
                   "base_dilation=(2, 1))",
}
for name, fn in _POOLS.items():
    jaxpr(f"pool-jvp-{name}", f"lambda x, t: jax.jvp({fn}, (x,), (t,)))({_X}, {_X} * 0.5")
    jaxpr(f"pool-grad-{name}", f"jax.grad(lambda x: ({fn})(x).sum()))({_X}")
    val(f"pool-grad-{name}", f"jax.grad(lambda x: (({fn})(x) ** 2).sum())({_X})")
    val(f"pool-jvp-{name}", f"jax.jvp({fn}, ({_X},), ({_X} * 0.5,))[1]")
    val(f"pool-vmap-grad-{name}",
        f"jax.vmap(jax.grad(lambda x: (({fn})(x) ** 2).sum()))(jnp.stack([{_X}, -{_X}]))")
jaxpr("pool-vmap-grad", "jax.vmap(jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, "
      f"(2, 2), (1, 2), 'SAME').sum())))({_X}[None]")
val("pool-hvp", "jax.jvp(jax.grad(lambda x: (lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), "
    f"(1, 1), 'VALID') ** 2).sum()), ({_X},), ({_X},))[1]")
jaxpr("pool-hvp", "lambda x: jax.jvp(jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, "
      f"(2, 2), (1, 1), 'VALID').sum()), (x,), (x,)))({_X}")
val("pool-grad-windil", "jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), "
    f"(1, 1), 'VALID', window_dilation=(1, 2)).sum())({_X})")
val("pool-jvp-windil", "jax.jvp(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), "
    f"(1, 1), 'VALID', window_dilation=(1, 2)), ({_X},), ({_X},))[1]")

# -- generic reduce_window: forward mode works, reverse mode cannot split it
_GEN = "lambda x: lax.reduce_window(x, 0.0, lambda a, b: a * b + 1.0, (2, 2), (1, 2), 'SAME')"
jaxpr("generic-rw-jvp", f"lambda x, t: jax.jvp({_GEN}, (x,), (t,)))({_X}, {_X}")
val("generic-rw-jvp", f"jax.jvp({_GEN}, ({_X},), ({_X} * 0.5,))[1]")
val("generic-rw-grad", f"jax.grad(lambda x: ({_GEN})(x).sum())({_X})")
val("generic-rw-vmap", f"jax.vmap({_GEN})(jnp.stack([{_X}, {_X} * 2]))")
jaxpr("generic-rw-vmap", f"jax.vmap({_GEN}))(jnp.stack([{_X}, {_X} * 2])")

# -- cumulative reductions
for prim in ("cumprod", "cummax", "cummin", "cumsum", "cumlogsumexp"):
    for rev in (False, True):
        tag = f"{prim}{'-rev' if rev else ''}"
        fn = f"lambda x: lax.{prim}(x, reverse={rev})"
        val(f"cum-grad-{tag}", f"jax.grad(lambda x: (({fn})(x) * {_W}).sum())({_V})")
        val(f"cum-jvp-{tag}", f"jax.jvp({fn}, ({_V},), ({_W},))[1]")
        if prim != "cumlogsumexp":
            jaxpr(f"cum-jvp-{tag}", f"lambda x, t: jax.jvp({fn}, (x,), (t,)))({_V}, {_W}")
    val(f"cum-grad-2d-{prim}", f"jax.grad(lambda x: (lax.{prim}(x, axis=1) * {_X}).sum())"
        f"(jnp.abs({_X}) + 0.5)")
    val(f"cum-vmap-grad-{prim}", f"jax.vmap(jax.grad(lambda x: (lax.{prim}(x) * {_W}).sum()))"
        f"(jnp.abs({_X}) + 0.5)")
jaxpr("cum-grad-cumsum", f"jax.grad(lambda x: (lax.cumsum(x) * {_W}).sum()))({_V}")
jaxpr("cum-vmap-jvp-cummax", f"jax.vmap(lambda x, t: jax.jvp(lax.cummax, (x,), (t,))))"
      f"({_X}, {_X}")
val("cum-hess-cumprod", f"jax.hessian(lambda x: lax.cumprod(x).sum())({_V})")
val("cum-jnp-cumprod-grad", f"jax.grad(lambda x: jnp.cumprod(x).sum())({_V})")
val("cum-jnp-cumsum-grad", f"jax.grad(lambda x: (jnp.cumsum(x) ** 2).sum())({_V})")

# -- linear algebra
_A = "jnp.array([[2.0, 0.5, -1.0, 0.3], [0.1, 3.0, 0.4, -0.7], [-0.8, 0.6, 2.5, 0.2], " \
     "[0.4, -0.3, 0.9, 1.8]], jnp.float32)"
_S = f"({_A} @ {_A}.T + jnp.eye(4, dtype=jnp.float32))"
_R = "jnp.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [2.2, 0.1, -0.4], [-1.1, 0.7, 0.9], " \
     "[0.5, 1.5, -2.0]], jnp.float32)"
_L = f"(jnp.tril({_A}) + 2 * jnp.eye(4, dtype=jnp.float32))"
_B = "jnp.array([[1.0, -0.5], [0.2, 2.0], [1.5, 0.3], [-0.7, 1.1]], jnp.float32)"
_M16 = "jnp.arange(16.0, dtype=jnp.float32).reshape(4, 4)"
_LINALG = {
    "cholesky": (f"lambda a: (jnp.linalg.cholesky(a) * {_M16}).sum()", _S),
    "inv": ("lambda a: (jnp.linalg.inv(a) ** 2).sum()", _A),
    "solve": (f"lambda a: (jnp.linalg.solve(a, {_B}) ** 2).sum()", _A),
    "det": ("lambda a: jnp.linalg.det(a)", _A),
    "slogdet": ("lambda a: jnp.linalg.slogdet(a)[1]", _A),
    "lu": (f"lambda a: (lax.linalg.lu(a)[0] * {_M16}).sum()", _A),
    "lu-tall": ("lambda a: (lax.linalg.lu(a)[0] ** 2).sum()", _R),
    "lu-wide": ("lambda a: (lax.linalg.lu(a)[0] ** 2).sum()", f"{_R}.T"),
    "qr": ("lambda a: (jnp.linalg.qr(a)[0] * 2).sum() + (jnp.linalg.qr(a)[1] ** 2).sum()", _R),
    "qr-wide": ("lambda a: (jnp.linalg.qr(a)[0] * 2).sum() + (jnp.linalg.qr(a)[1] ** 2).sum()",
                f"{_R}.T"),
    "qr-complete": ("lambda a: (jnp.linalg.qr(a, mode='complete')[0] * "
                    "jnp.arange(25.0).reshape(5, 5)).sum()", _R),
    "eigh": ("lambda a: (jnp.linalg.eigh(a)[0] * jnp.arange(4.0)).sum() + "
             "jnp.abs(jnp.linalg.eigh(a)[1]).sum()", _S),
    "eigvalsh": ("lambda a: (jnp.linalg.eigvalsh(a) ** 2).sum()", _S),
    "svdvals": ("lambda a: (jnp.linalg.svd(a, compute_uv=False) * jnp.arange(3.0)).sum()", _R),
    "svd-reduced": ("lambda a: jnp.abs(jnp.linalg.svd(a, full_matrices=False)[0]).sum() + "
                    "jnp.abs(jnp.linalg.svd(a, full_matrices=False)[2]).sum()", _R),
    "svd-reduced-wide": ("lambda a: jnp.abs(jnp.linalg.svd(a, full_matrices=False)[0]).sum() + "
                         "jnp.abs(jnp.linalg.svd(a, full_matrices=False)[2]).sum()", f"{_R}.T"),
    "svd-square": ("lambda a: jnp.abs(jnp.linalg.svd(a)[0]).sum()", _A),
    "svd-full": ("lambda a: jnp.linalg.svd(a)[0].sum()", _R),
    "pinv": ("lambda a: (jnp.linalg.pinv(a) ** 2).sum()", _R),
    "norm-2": ("lambda a: jnp.linalg.norm(a, 2)", _R),
    "norm-nuc": ("lambda a: jnp.linalg.norm(a, 'nuc')", _R),
    "norm-fro": ("lambda a: jnp.linalg.norm(a)", _R),
    "tri-solve-a": (f"lambda a: (lax.linalg.triangular_solve(a, {_B}.T, lower=True) ** 2).sum()",
                    _L),
    "tri-solve-left-t": (f"lambda a: (lax.linalg.triangular_solve(a, {_B}, left_side=True, "
                         "lower=True, transpose_a=True) ** 2).sum()", _L),
    "tri-solve-unit": (f"lambda a: (lax.linalg.triangular_solve(a, {_B}, left_side=True, "
                       "lower=True, unit_diagonal=True) ** 2).sum()", _L),
}
for name, (fn, arg) in _LINALG.items():
    val(f"linalg-grad-{name}", f"jax.grad({fn})({arg})")
val("linalg-jvp-cholesky", f"jax.jvp(jnp.linalg.cholesky, ({_S},), ({_A} + {_A}.T,))[1]")
val("linalg-jvp-svd-u", f"jax.jvp(lambda a: jnp.linalg.svd(a, full_matrices=False), ({_R},), "
    f"({_R} * 0.5,))[1][0]")
val("linalg-jvp-qr-q", f"jax.jvp(jnp.linalg.qr, ({_R},), ({_R} * 0.5,))[1][0]")
val("linalg-jvp-eigh-v", f"jax.jvp(jnp.linalg.eigh, ({_S},), ({_A} + {_A}.T,))[1][1]")
val("linalg-jvp-lu", f"jax.jvp(lax.linalg.lu, ({_A},), ({_B} @ {_B}.T,))[1][0]")
val("linalg-vmap-grad-inv", f"jax.vmap(jax.grad(lambda a: (jnp.linalg.inv(a) ** 2).sum()))"
    f"(jnp.stack([{_A}, {_A}.T]))")
val("linalg-vmap-grad-eigh", f"jax.vmap(jax.grad(lambda a: (jnp.linalg.eigvalsh(a) ** 3).sum()))"
    f"(jnp.stack([{_S}, {_S} * 2]))")
val("linalg-vmap-tri-b", f"jax.vmap(lambda b: lax.linalg.triangular_solve({_L}, b, left_side=True,"
    f" lower=True))(jnp.stack([{_B}, {_B} * 2, -{_B}]))")
jaxpr("linalg-grad-tri-b", f"jax.grad(lambda b: lax.linalg.triangular_solve({_L}, b, "
      f"left_side=True, lower=True).sum()))({_B}")
jaxpr("linalg-jvp-tri-a", f"lambda a, t: jax.jvp(lambda a: lax.linalg.triangular_solve(a, {_B}, "
      f"left_side=True, lower=True), (a,), (t,)))({_L}, {_L}")
jaxpr("linalg-jvp-tri-right", f"lambda a, t: jax.jvp(lambda a: lax.linalg.triangular_solve(a, "
      f"{_B}.T, transpose_a=True, lower=True), (a,), (t,)))({_L}, {_L}")
jaxpr("linalg-vmap-tri-left", f"jax.vmap(lambda b: lax.linalg.triangular_solve({_L}, b, "
      f"left_side=True, lower=True)))(jnp.stack([{_B}, {_B}])")
jaxpr("linalg-vmap-tri-right", f"jax.vmap(lambda b: lax.linalg.triangular_solve({_L}, b, "
      f"lower=True)))(jnp.stack([{_B}.T, {_B}.T])")
jaxpr("linalg-vmap-both", f"jax.vmap(lambda a, b: lax.linalg.triangular_solve(a, b, "
      f"left_side=True, lower=True)))(jnp.stack([{_L}, {_L}]), jnp.stack([{_B}, {_B}])")
_SYM = "lambda a: a @ a.T + jnp.eye(a.shape[0], dtype=a.dtype)"
jaxpr("linalg-jvp-cholesky", "lambda a, t: jax.jvp(lambda a: lax.linalg.cholesky(a, "
      f"symmetrize_input=False), (a,), (t,)))(({_SYM})({_A}), {_A}")
jaxpr("linalg-jvp-eigh", "lambda a, t: jax.jvp(lambda a: lax.linalg.eigh(a, "
      f"symmetrize_input=False), (a,), (t,)))(({_SYM})({_A}), {_A}")
jaxpr("linalg-jvp-lu", f"lambda a, t: jax.jvp(lambda a: lax.linalg.lu(a)[0], (a,), (t,)))({_A}, "
      f"{_A}")
jaxpr("linalg-jvp-svdvals", "lambda a, t: jax.jvp(lambda a: lax.linalg.svd(a, compute_uv=False),"
      f" (a,), (t,)))({_R}, {_R}")
jaxpr("linalg-jvp-qr", "lambda a, t: jax.jvp(lambda a: lax.linalg.qr(a, full_matrices=False), "
      f"(a,), (t,)))({_R}, {_R}")
jaxpr("linalg-vmap-cholesky", "jax.vmap(lambda a: lax.linalg.cholesky(a, symmetrize_input=False)"
      f")(jnp.stack([({_SYM})({_A})] * 2)")
jaxpr("cum-jvp-cumlogsumexp", f"lambda x, t: jax.jvp(lax.cumlogsumexp, (x,), (t,)))({_V}, {_W}")
val("linalg-hess-inv", f"jax.hessian(lambda a: jnp.linalg.inv(a).sum())({_A})")
val("linalg-hess-eigvalsh", f"jax.hessian(lambda a: (jnp.linalg.eigvalsh(a) ** 3).sum())({_S})")
val("linalg-hess-qr", f"jax.hessian(lambda a: (jnp.linalg.qr(a)[1] ** 3).sum())({_R})")
val("pool-hess", "jax.hessian(lambda x: (lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "
    f"'VALID') ** 3).sum())({_R})")
val("pool-rev-over-rev", "jax.grad(lambda x: (jax.grad(lambda y: (lax.reduce_window(y, -jnp.inf, "
    f"lax.max, (2, 2), (1, 1), 'VALID') ** 2).sum())(x) ** 2).sum())({_R})")
val("cum-hess-cummax", f"jax.hessian(lambda x: (lax.cummax(x, axis=1) ** 3).sum())({_R})")

# -- generic lax.reduce: the JVP of a halving tree reduction (not associative here, so the
# primal of the JVP differs from the plain reduce exactly as in JAX)
_RED = "lambda x: lax.reduce(x, 0.0, lambda a, b: a * b + 1.0, (0,))"
_RED1 = "lambda x: lax.reduce(x, 0.0, lambda a, b: a * b + 1.0, (1,))"
_X3 = "jnp.arange(15.0, dtype=jnp.float32).reshape(5, 3) / 7"
jaxpr("reduce-jvp", f"lambda x, t: jax.jvp({_RED}, (x,), (t,)))({_X3}, {_X3}")
val("reduce-jvp", f"jax.jvp({_RED}, ({_X3},), ({_X3} * 2,))")
val("reduce-jvp-axis1", f"jax.jvp({_RED1}, ({_X3},), ({_X3} * 2,))")
val("reduce-grad", f"jax.grad(lambda x: ({_RED})(x).sum())({_X3})")
val("reduce-vmap", f"jax.vmap({_RED1})(jnp.stack([{_X3}, {_X3} + 1]))")
val("reduce-variadic-grad", "jax.grad(lambda x: lax.reduce((x, x * 2), (0.0, 1.0), lambda a, b: "
    f"(a[0] + b[0], a[1] * b[1]), (1,))[1].sum())({_X3})")
val("linalg-grad-qr-pivot", "jax.grad(lambda a: (lax.linalg.qr(a, pivoting=True)[1] ** 2).sum() + "
    f"lax.linalg.qr(a, pivoting=True)[0].sum())({_R})")

# -- eig: eigenvalue derivatives, and eigenvector ones only when opted in
val("linalg-grad-eigvals", "jax.grad(lambda a: (jnp.linalg.eigvals(a).real * jnp.arange(4.0))"
    f".sum())({_A})")
val("linalg-grad-eigvecs-optin", "jax.grad(lambda a: (jnp.abs(lax.linalg.eig(a, "
    "enable_eigvec_derivs=True)[2]) ** 2 * jnp.arange(16.0).reshape(4, 4)).sum())"
    f"({_A})")
val("linalg-grad-eigvecs-error", f"jax.grad(lambda a: jnp.linalg.eig(a)[1].real.sum())({_A})")
val("generic-rw-grad-of-jit", f"jax.grad(lambda x: jax.jit({_GEN})(x).sum())({_X})")


# -- Jacobians: the basis traced as jnp.eye traces it, split (not sliced) into
# blocks per leaf, converted where JAX converts (printed jaxprs are JAX's)
_P = "{'w': jnp.ones((3, 2)) * 0.5, 'b': jnp.arange(2.0)}"
_JACS = {
    "fwd": "jax.jacfwd(lambda x: jnp.sin(x) * 2)",
    "rev": "jax.jacrev(lambda x: jnp.sin(x) * 2)",
    "hess": "jax.hessian(lambda x: jnp.sin(x).sum())",
    "fwd-argnums": "jax.jacfwd(lambda x, y: (x * y, x + 1.0), argnums=(0, 1))",
    "rev-argnums": "jax.jacrev(lambda x, y: (x * y, x + 1.0), argnums=(0, 1))",
    "fwd-aux": "jax.jacfwd(lambda x: (jnp.sin(x) * 2, x.sum()), has_aux=True)",
    "rev-aux": "jax.jacrev(lambda x: (jnp.sin(x) * 2, x.sum()), has_aux=True)",
    "rev-tree": "jax.jacrev(lambda p: {'a': p['w'] @ p['b'], 'b': jnp.tanh(p['b']).sum()})",
    "rev-f16": "jax.jacrev(lambda x: x * 2)",
}
_JAC_ARGS = {"fwd-argnums": f"{_W}[:2], jnp.ones(2)", "rev-argnums": f"{_W}[:2], jnp.ones(2)",
             "rev-tree": _P, "rev-f16": "jnp.ones(2, jnp.float16)"}
for name, fn in _JACS.items():
    args = _JAC_ARGS.get(name, _V)
    jaxpr(f"jac-{name}", f"{fn})({args}")
    val(f"jac-{name}", f"{fn}({args})")
val("jac-fwd-bfloat16-arg", "jax.jacfwd(lambda x, y: x * y.astype(jnp.float32), argnums=(0, 1))("
    "jnp.ones(2), jnp.ones(2, jnp.bfloat16))")
val("jac-rev-int-arg", "jax.jacrev(lambda x, n: x * n, allow_int=True, argnums=(0, 1))("
    "jnp.ones(2), jnp.arange(2))")
val("jac-rev-int-arg-weak", "jax.jacrev(lambda x, n: x * n, allow_int=True, argnums=(0, 1))(2.0, 3)")
val("jac-fwd-scalar-weak", "jax.jacfwd(lambda x: x * 3.0)(2.0)")
val("jac-hess-tree", f"jax.hessian(lambda p: jnp.tanh(p['b']).sum() + (p['w'] ** 2).sum())({_P})")

# -- complex parts: abs's JVP in the complex domain, real/imag transposed with a
# scalar zero (JAX's rules; printed as JAX prints them)
jaxpr("jac-rev-abs-complex", "jax.jacrev(lambda x: jnp.abs(x.astype(jnp.complex64) * (1 + 1j))))"
      "(jnp.arange(2.0)")
jaxpr("grad-imag", "jax.grad(lambda x: jnp.imag(x.astype(jnp.complex64) * (2 + 1j)).sum()))"
      f"({_V}")
val("grad-abs-complex", "jax.grad(lambda z: jnp.abs(z * (1 + 2j)).sum(), holomorphic=False)("
    "jnp.array([1 + 1j, 0j, -2 + 0.5j], jnp.complex64))")

# -- add_any under vmap: the first operand's batch axis moves to the second's
jaxpr("jac-fwd-matmul-tree", "jax.jacfwd(lambda p: p['w'] @ p['b']))"
      f"({{'w': jnp.ones((3, 2)) * 0.5, 'b': {_W}[:2]}}")
jaxpr("vmap-add-any-unbatched", "jax.vmap(lambda x: jax.grad(lambda a, b: (a * b).sum() + "
      "(a * 2.0).sum())(x, 3.0)))(jnp.ones((4, 2))")
