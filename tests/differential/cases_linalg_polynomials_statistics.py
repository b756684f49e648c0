"""Differential cases for the linear-algebra and numerical breadth of jnp
(H-linalg): ``jnp.linalg`` (eig, cond, tensor solves, array-API spellings,
decomposition options), ``lax.linalg`` (eig, schur, hessenberg, tridiagonal,
tridiagonal_solve, Householder pieces, pivots), window functions,
polynomials, statistics, histograms, vector products, ``vectorize``,
``einsum_path`` and periodic ``interp``. ``jaxpr-*`` cases compare printed
jaxprs as text; ``val-*`` cases values, dtype, shape and weak type; complex
or tuple results are reduced to one real array so they compare on values."""

_A = "jnp.array([[4., 1., 2.], [1., -3., 0.5], [2., 0.5, 1.]], dtype=jnp.float32)"
_N = "(jnp.arange(9., dtype=jnp.float32).reshape(3, 3) + jnp.eye(3))"
_R = "jnp.array([[0., -2.], [1., 0.]], dtype=jnp.float32)"
_V = "jnp.arange(3., dtype=jnp.float32)"
_X = "jnp.array([[0., 1., 2., 4.], [1., 3., 2., 0.], [2., 2., 5., 1.]], dtype=jnp.float32)"
_P = "jnp.array([1., -6., 11., -6.], dtype=jnp.float32)"
_C = f"({_A} + 1j * {_N})"

CASES = []


def jaxpr(name, fn, *args):
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})({', '.join(args)})"))


def val(name, code):
    CASES.append((f"val-{name}", f"result = {code}"))


def both(name, fn, *args):
    jaxpr(name, fn, *args)
    val(name, f"({fn})({', '.join(args)})")


def ri(expr):
    """A complex result as a real (2, ...) array: real and imaginary parts."""
    return f"(lambda z: jnp.stack([jnp.real(z), jnp.imag(z)]))({expr})"


# -- jnp.linalg: new names
both("la-cross", "jnp.linalg.cross", _V, f"{_V} + 1")
both("la-outer", "jnp.linalg.outer", _V, f"{_V} * 2")
both("la-vecdot", "jnp.linalg.vecdot", _N, _A)
both("la-tensordot", "jnp.linalg.tensordot", _N, _A)
both("la-matrix_transpose", "jnp.linalg.matrix_transpose", _N)
both("la-matmul", "jnp.linalg.matmul", _N, _A)
both("la-trace", "jnp.linalg.trace", _N)
val("la-trace-offset", f"jnp.linalg.trace({_N}, offset=1)")
val("la-diagonal", f"jnp.linalg.diagonal({_N}, offset=-1)")
val("la-multi_dot", f"jnp.linalg.multi_dot([{_V}, {_N}, {_A}, {_V} + 1])")
val("la-multi_dot-mats", f"jnp.linalg.multi_dot([jnp.ones((2, 3)), {_N}, jnp.ones((3, 4)), jnp.ones((4, 2))])")
both("la-cond", "jnp.linalg.cond", _N)
val("la-cond-1", f"jnp.linalg.cond({_N}, 1)")
val("la-cond-inf", f"jnp.linalg.cond({_N}, jnp.inf)")
val("la-cond-fro", f"jnp.linalg.cond({_N}, 'fro')")
val("la-cond-m2", f"jnp.linalg.cond({_N}, -2)")
val("la-cond-singular", "jnp.linalg.cond(jnp.array([[1., 2.], [2., 4.]]), 1)")
val("la-cond-int", "jnp.linalg.cond(jnp.array([[1, 2], [3, 4]]))")
jaxpr("la-eig", "jnp.linalg.eig", _A)
val("la-eig", ri(f"jnp.concatenate([jnp.linalg.eig({_A})[0][None], jnp.linalg.eig({_A})[1]])"))
val("la-eig-vals", ri(f"jnp.linalg.eig({_N}).eigenvalues"))
val("la-eig-vecs", f"jnp.abs(jnp.linalg.eig({_N}).eigenvectors)")
val("la-eig-complex-pair", ri(f"jnp.linalg.eig({_R})[0]"))
val("la-eig-complex-vecs", f"jnp.abs(jnp.linalg.eig({_R})[1])")
val("la-eig-int", ri("jnp.linalg.eig(jnp.array([[2, 0], [0, 3]]))[0]"))
val("la-eig-batched", ri(f"jnp.linalg.eigvals(jnp.stack([{_N}, 2 * {_N}]))"))
val("la-eig-c128", ri(f"jnp.linalg.eigvals({_C})"))
both("la-eigvals", "jnp.linalg.eigvals", _N)
val("la-eig-residual", f"(lambda w, v: jnp.abs({_N} @ v - v * w).max() < 1e-4)(*jnp.linalg.eig({_N}))")
val("la-tensorinv", f"jnp.linalg.tensorinv({_N}.reshape(9, 1, 1).reshape(3, 3), 1)")
val("la-tensorinv-4d", "jnp.linalg.tensorinv((jnp.eye(6) * 2 + 0.1).reshape(2, 3, 6), 2)")
val("la-tensorsolve", f"jnp.linalg.tensorsolve({_N}, {_V})")
val("la-tensorsolve-axes", "jnp.linalg.tensorsolve((jnp.eye(6) * 2 + 0.1).reshape(6, 2, 3), jnp.arange(6.), axes=(0,))")
# existing jnp.linalg functions: options and their jaxprs
both("la-svd", "jnp.linalg.svd", _A)
both("la-svdvals", "jnp.linalg.svdvals", _A)
val("la-svd-hermitian-s", f"jnp.linalg.svd({_A}, hermitian=True)[1]")
val("la-svd-hermitian-abs-u", f"jnp.abs(jnp.linalg.svd({_A}, hermitian=True)[0])")
val("la-svd-hermitian-recon", f"(lambda u, s, vh: (u * s) @ vh)(*jnp.linalg.svd({_A}, hermitian=True))")
val("la-svd-hermitian-novec", f"jnp.linalg.svd({_A}, hermitian=True, compute_uv=False)")
both("la-eigh", "jnp.linalg.eigh", _A)
val("la-eigh-U", f"jnp.linalg.eigh(jnp.triu({_A}) + 5 * jnp.tril({_A}, -1), UPLO='U', symmetrize_input=False)[0]")
val("la-eigh-L", f"jnp.linalg.eigh(jnp.triu({_A}) + 5 * jnp.tril({_A}, -1), UPLO='L', symmetrize_input=False)[0]")
both("la-eigvalsh", "jnp.linalg.eigvalsh", _A)
both("la-qr", "jnp.linalg.qr", _N)
both("la-qr-raw", "lambda a: jnp.linalg.qr(a, mode='raw')", "jnp.arange(6., dtype=jnp.float32).reshape(3, 2) + jnp.eye(3, 2)")
val("la-qr-raw-h", "jnp.linalg.qr(jnp.arange(6., dtype=jnp.float32).reshape(3, 2) + jnp.eye(3, 2), mode='raw')[0]")
val("la-qr-raw-tau", "jnp.linalg.qr(jnp.arange(6., dtype=jnp.float32).reshape(3, 2) + jnp.eye(3, 2), mode='raw')[1]")
both("la-cholesky", "jnp.linalg.cholesky", f"{_A} + 5 * jnp.eye(3)")
val("la-cholesky-upper", f"jnp.linalg.cholesky({_A} + 5 * jnp.eye(3), upper=True)")
both("la-matrix_rank", "jnp.linalg.matrix_rank", _A)
val("la-matrix_rank-rtol", f"jnp.linalg.matrix_rank({_A}, 0.5)")
val("la-matrix_rank-tol", f"jnp.linalg.matrix_rank({_A}, tol=0.5)")
val("la-matrix_rank-herm", f"jnp.linalg.matrix_rank({_A}, hermitian=True)")
val("la-matrix_rank-1d", "jnp.linalg.matrix_rank(jnp.array([0., 1.]))")
val("la-matrix_rank-batched", "jnp.linalg.matrix_rank(jnp.stack([jnp.eye(3), jnp.ones((3, 3))]))")
both("la-norm", "jnp.linalg.norm", _A)
for _ord in ("1", "-1", "2", "-2", "jnp.inf", "-jnp.inf", "'fro'", "'nuc'"):
    val(f"la-norm-mat-{_ord}", f"jnp.linalg.norm({_A}, ord={_ord})")
for _ord in ("0", "1", "3", "0.5", "jnp.inf", "-jnp.inf", "-1"):
    val(f"la-norm-vec-{_ord}", f"jnp.linalg.norm({_V}, ord={_ord})")
val("la-norm-keepdims", f"jnp.linalg.norm({_A}, keepdims=True)")
val("la-norm-axis", f"jnp.linalg.norm({_A}, axis=0)")
both("la-matrix_power-3", "lambda a: jnp.linalg.matrix_power(a, 3)", _A)
both("la-matrix_power-5", "lambda a: jnp.linalg.matrix_power(a, 5)", _A)
val("la-matrix_power-0", f"jnp.linalg.matrix_power({_A}, 0)")
val("la-matrix_power-neg", f"jnp.linalg.matrix_power({_N}, -2)")
val("la-pinv", f"jnp.linalg.pinv({_N}[:, :2])")
val("la-lstsq", f"jnp.linalg.lstsq({_N}[:, :2], {_V})[0]")
# errors
val("la-cross-err", "jnp.linalg.cross(jnp.ones(2), jnp.ones(2))")
val("la-outer-err", "jnp.linalg.outer(jnp.ones((2, 2)), jnp.ones(2))")
val("la-mt-err", "jnp.linalg.matrix_transpose(jnp.ones(2))")
val("la-vecdot-err", "jnp.linalg.vecdot(jnp.ones(2), jnp.ones(3))")
val("la-diagonal-err", "jnp.linalg.diagonal(jnp.ones(2))")
val("la-multi_dot-err", "jnp.linalg.multi_dot([jnp.ones(2), jnp.ones((2, 3, 1)), jnp.ones(3)])")
val("la-cond-empty", "jnp.linalg.cond(jnp.ones((0, 0)))")
val("la-cond-nonsquare", "jnp.linalg.cond(jnp.ones((2, 3)), 1)")
val("la-tensorinv-err", "jnp.linalg.tensorinv(jnp.ones((2, 3)), 1)")
val("la-tensorinv-ind", "jnp.linalg.tensorinv(jnp.ones((4, 2, 2)), 0)")
val("la-tensorsolve-err", "jnp.linalg.tensorsolve(jnp.ones((2, 3)), jnp.ones(2))")
val("la-eig-nonsquare", "jnp.linalg.eig(jnp.ones((2, 3)))")
val("la-eig-list", "jnp.linalg.eig([[1., 2.], [3., 4.]])")
val("la-qr-mode", "jnp.linalg.qr(jnp.ones((2, 2)), mode='bogus')")
val("la-eigh-uplo", "jnp.linalg.eigh(jnp.ones((2, 2)), UPLO='X')")
val("la-matrix_rank-both", "jnp.linalg.matrix_rank(jnp.ones((2, 2)), 0.1, tol=0.1)")
val("la-matrix_power-float", "jnp.linalg.matrix_power(jnp.ones((2, 2)), 1.5)")

# -- lax.linalg
jaxpr("lax-eig", "lax.linalg.eig", _N)
val("lax-eig", ri(f"jnp.concatenate([x.reshape(-1) for x in lax.linalg.eig({_N})])"))
both("lax-eig-right", "lambda a: lax.linalg.eig(a, compute_left_eigenvectors=False)", _R)
val("lax-eig-left", f"jnp.abs(lax.linalg.eig({_N})[1])")
val("lax-eig-right-vals", f"jnp.abs(lax.linalg.eig({_N})[2])")
val("lax-eig-c64", ri(f"lax.linalg.eig({_C}.astype(jnp.complex64), compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]"))
both("lax-hessenberg", "lax.linalg.hessenberg", _N)
val("lax-hessenberg-h", f"lax.linalg.hessenberg({_N})[0]")
val("lax-hessenberg-taus", f"lax.linalg.hessenberg({_N})[1]")
both("lax-schur", "lax.linalg.schur", _A)
val("lax-schur-t", f"jnp.abs(lax.linalg.schur({_A})[0])")
val("lax-schur-recon", f"(lambda t, z: z @ t @ z.T)(*lax.linalg.schur({_N}))")
val("lax-schur-novec", f"jnp.abs(lax.linalg.schur({_A}, compute_schur_vectors=False)[0])")
both("lax-tridiagonal", "lax.linalg.tridiagonal", _A)
val("lax-tridiagonal-d", f"lax.linalg.tridiagonal({_A})[1]")
val("lax-tridiagonal-e", f"lax.linalg.tridiagonal({_A})[2]")
val("lax-tridiagonal-upper", f"lax.linalg.tridiagonal({_A}, lower=False)[1]")
_TD = "jnp.array([0., 1., 2.]), jnp.array([4., 5., 6.]), jnp.array([1., 1., 0.]), jnp.arange(6.).reshape(3, 2)"
both("lax-tridiagonal_solve", "lax.linalg.tridiagonal_solve", _TD)
val("lax-tridiagonal_solve-batched", "lax.linalg.tridiagonal_solve(jnp.ones((2, 3)), 4 * jnp.ones((2, 3)), jnp.ones((2, 3)), jnp.ones((2, 3, 1)))")
both("lax-lu_pivots_to_permutation", "lambda p: lax.linalg.lu_pivots_to_permutation(p, 5)", "jnp.array([2, 2, 3], jnp.int32)")
val("lax-lu_pivots_to_permutation-batched", "lax.linalg.lu_pivots_to_permutation(jnp.array([[1, 1], [0, 1]], jnp.int32), 3)")
_H = "jnp.linalg.qr(jnp.arange(6., dtype=jnp.float32).reshape(3, 2) + jnp.eye(3, 2), mode='raw')"
both("lax-householder_product", "lambda h, t: lax.linalg.householder_product(h.T, t)", f"*{_H}")
both("lax-ormqr", "lambda h, t: lax.linalg.ormqr(h.T, t, jnp.ones((3, 4)))", f"*{_H}")
val("lax-ormqr-right-T", f"(lambda h, t: lax.linalg.ormqr(h.T, t, jnp.ones((4, 3)), left=False, transpose=True))(*{_H})")
both("lax-lu", "lax.linalg.lu", _N)
val("lax-eig-err-shape", "lax.linalg.eig(jnp.ones((2, 3)))")
val("lax-eig-err-dtype", "lax.linalg.eig(jnp.ones((2, 2), jnp.int32))")
val("lax-eig-err-rank", "lax.linalg.eig(jnp.ones(3))")
val("lax-hessenberg-err", "lax.linalg.hessenberg(jnp.ones((2, 3)))")
val("lax-schur-err", "lax.linalg.schur(jnp.ones((2, 3)))")
val("lax-tridiagonal-err", "lax.linalg.tridiagonal(jnp.ones((2, 2), jnp.int32))")
val("lax-tridiagonal_solve-err", "lax.linalg.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(2), jnp.ones((3, 1)))")
val("lax-tridiagonal_solve-err-b", "lax.linalg.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(3), jnp.ones((4, 1)))")
val("lax-pivots-err-dtype", "lax.linalg.lu_pivots_to_permutation(jnp.ones(3), 4)")
val("lax-pivots-err-size", "lax.linalg.lu_pivots_to_permutation(jnp.ones(5, jnp.int32), 4)")

# -- windows
for _w in ("bartlett", "blackman", "hamming", "hanning"):
    jaxpr(f"win-{_w}", f"lambda: jnp.{_w}(6)")
    for _m in (0, 1, 2, 7):
        val(f"win-{_w}-{_m}", f"jnp.{_w}({_m})")
for _m, _b in ((0, 1.0), (1, 2.0), (5, 3.0), (8, 0.0), (6, 14.0)):
    val(f"win-kaiser-{_m}-{_b}", f"jnp.kaiser({_m}, {_b})")
val("win-traced", "jax.jit(jnp.hamming)(3)")

# -- polynomials
both("poly-poly", "jnp.poly", "jnp.array([1., 2., 3.])")
val("poly-poly-int", "jnp.poly(jnp.array([1, 2, 3]))")
val("poly-poly-matrix", f"jnp.poly({_A})")
val("poly-poly-empty", "jnp.poly(jnp.zeros(0))")
val("poly-poly-complex", ri("jnp.poly(jnp.array([1j, -1j]))"))
both("poly-polyadd", "jnp.polyadd", "jnp.array([1., 2., 3.])", "jnp.array([4., 5.])")
val("poly-polyadd-int", "jnp.polyadd(jnp.array([1, 2]), jnp.array([4, 5, 6]))")
val("poly-polyadd-weak", "jnp.polyadd(jnp.array([1., 2.]), 3.0)")
both("poly-polysub", "jnp.polysub", "jnp.array([1., 2., 3.])", "jnp.array([4., 5.])")
val("poly-polysub-int", "jnp.polysub(jnp.array([1, 2]), jnp.array([4, 5, 6]))")
val("poly-polymul", "jnp.polymul(jnp.array([1., 2., 3.]), jnp.array([4., 5.]))")
val("poly-polymul-int", "jnp.polymul(jnp.array([1, 2]), jnp.array([4, 5, 6]))")
val("poly-polymul-trim", "jnp.polymul(jnp.array([0., 1., 2.]), jnp.array([0., 3.]), trim_leading_zeros=True)")
val("poly-polydiv-q", "jnp.polydiv(jnp.array([1., -6., 11., -6.]), jnp.array([1., -1.]))[0]")
val("poly-polydiv-r", "jnp.polydiv(jnp.array([1., -6., 11., -5.]), jnp.array([2., -1.]))[1]")
val("poly-polydiv-int", "jnp.polydiv(jnp.array([1, 2, 3]), jnp.array([1, 1]))[0]")
val("poly-polydiv-short", "jnp.polydiv(jnp.array([1., 2.]), jnp.array([1., 1., 1.]))[0]")
both("poly-polyder", "jnp.polyder", _P)
val("poly-polyder-2", f"jnp.polyder({_P}, 2)")
val("poly-polyder-0", f"jnp.polyder({_P}, 0)")
val("poly-polyder-int", "jnp.polyder(jnp.array([1, 2, 3]))")
val("poly-polyder-neg", f"jnp.polyder({_P}, -1)")
both("poly-polyint", "jnp.polyint", _P)
val("poly-polyint-2k", f"jnp.polyint({_P}, 2, 3.)")
val("poly-polyint-karr", f"jnp.polyint({_P}, 2, jnp.array([1., 2.]))")
val("poly-polyint-int", "jnp.polyint(jnp.array([1, 2, 3]))")
val("poly-polyint-pos", f"jnp.polyint({_P}, 2)")
val("poly-polyint-neg", f"jnp.polyint({_P}, -1)")
val("poly-polyint-badk", f"jnp.polyint({_P}, 2, jnp.array([1., 2., 3.]))")
val("poly-roots", ri(f"jnp.sort(jnp.roots({_P}))"))
val("poly-roots-complex", ri("jnp.roots(jnp.array([1., 0., 1.]))"))
val("poly-roots-leading", ri("jnp.roots(jnp.array([0., 0., 1., -3., 2.]))"))
val("poly-roots-nostrip", ri("jnp.roots(jnp.array([0., 0., 1., -3., 2.]), strip_zeros=False)"))
val("poly-roots-jit", ri("jax.jit(lambda p: jnp.roots(p, strip_zeros=False))(jnp.array([0., 1., -3., 2.]))"))
val("poly-roots-int", ri("jnp.roots(jnp.array([1, -3, 2]))"))
val("poly-roots-short", ri("jnp.roots(jnp.array([3.]))"))
val("poly-roots-2d", "jnp.roots(jnp.ones((2, 2)))")
val("poly-roots-traced", "jax.jit(jnp.roots)(jnp.array([1., 2.]))")
val("poly-polyfit", "jnp.polyfit(jnp.arange(5.), jnp.arange(5.) ** 2 - 1, 2)")
val("poly-polyfit-2d", "jnp.polyfit(jnp.arange(5.), jnp.stack([jnp.arange(5.), jnp.arange(5.) ** 2], 1), 1)")
val("poly-polyfit-w", "jnp.polyfit(jnp.arange(5.), jnp.arange(5.) ** 3, 2, w=jnp.arange(1., 6.))")
val("poly-polyfit-full-resid", "jnp.polyfit(jnp.arange(5.), jnp.arange(5.) ** 2, 1, full=True)[1]")
val("poly-polyfit-full-rcond", "jnp.polyfit(jnp.arange(5.), jnp.arange(5.) ** 2, 1, full=True)[4]")
val("poly-polyfit-cov", "jnp.polyfit(jnp.arange(5.), jnp.arange(5.) ** 2, 1, cov=True)[1]")
val("poly-polyfit-cov-unscaled", "jnp.polyfit(jnp.arange(5.), jnp.arange(5.) ** 2, 1, cov='unscaled')[1]")
val("poly-polyfit-deg", "jnp.polyfit(jnp.arange(5.), jnp.arange(5.), -1)")
val("poly-polyfit-x2d", "jnp.polyfit(jnp.ones((2, 2)), jnp.ones(2), 1)")
val("poly-polyfit-len", "jnp.polyfit(jnp.arange(5.), jnp.arange(4.), 1)")

# -- statistics
both("stat-cov", "jnp.cov", _X)
val("stat-cov-int", "jnp.cov(jnp.array([[0, 1, 2], [2, 1, 0]]))")
val("stat-cov-1d", f"jnp.cov({_X}[0])")
val("stat-cov-y", f"jnp.cov({_X}[0], {_X}[1])")
val("stat-cov-rowvar", f"jnp.cov({_X}, rowvar=False)")
val("stat-cov-bias", f"jnp.cov({_X}, bias=True)")
val("stat-cov-ddof", f"jnp.cov({_X}, ddof=2)")
val("stat-cov-fw", f"jnp.cov({_X}, fweights=jnp.array([1, 2, 1, 3]))")
val("stat-cov-aw", f"jnp.cov({_X}, aweights=jnp.array([1., 2., 1., .5]))")
val("stat-cov-faw", f"jnp.cov({_X}, fweights=jnp.array([1, 2, 1, 3]), aweights=jnp.array([1., 2., 1., .5]))")
val("stat-cov-complex", ri(f"jnp.cov({_X} + 1j * {_X}[::-1])"))
val("stat-cov-dtype", f"jnp.cov({_X}, dtype=jnp.float16)")
val("stat-cov-empty", "jnp.cov(jnp.zeros((2, 0)))")
val("stat-cov-err-fw", f"jnp.cov({_X}, fweights=jnp.array([1., 2., 1., 3.]))")
val("stat-cov-err-3d", "jnp.cov(jnp.ones((2, 2, 2)))")
val("stat-cov-err-dtype", f"jnp.cov({_X}, dtype='int32')")
val("stat-corrcoef-err-dtype", f"jnp.corrcoef({_X}, dtype='int8')")
jaxpr("stat-corrcoef", "jnp.corrcoef", _X)
val("stat-corrcoef", f"jnp.corrcoef({_X})")
val("stat-corrcoef-int", "jnp.corrcoef(jnp.array([[0, 1, 2], [2, 1, 0]]))")
val("stat-corrcoef-1d", f"jnp.corrcoef({_X}[0])")
val("stat-corrcoef-xy", f"jnp.corrcoef({_X}[0], {_X}[2])")
val("stat-corrcoef-complex", ri(f"jnp.corrcoef({_X} + 1j * {_X}[::-1])"))
both("stat-gradient", "jnp.gradient", f"{_X}[0]")
val("stat-gradient-2d", f"jnp.stack(jnp.gradient({_X}))")
val("stat-gradient-h", f"jnp.gradient({_X}[0], 2.0)")
val("stat-gradient-coords", f"jnp.gradient({_X}[0], jnp.array([0., 1., 3., 4.]))")
both("stat-gradient-coords-jaxpr", "jnp.gradient", f"{_X}[0]", "jnp.array([0., 1., 3., 4.])")
val("stat-gradient-axis", f"jnp.gradient({_X}, axis=1)")
val("stat-gradient-axes-h", f"jnp.stack(jnp.gradient({_X}, 2.0, 0.5))")
val("stat-gradient-int", "jnp.gradient(jnp.array([1, 4, 9, 16]))")
val("stat-gradient-small", "jnp.gradient(jnp.ones(1))")
val("stat-gradient-nargs", f"jnp.gradient({_X}, 1., 2., 3.)")
val("stat-gradient-edge", f"jnp.gradient({_X}[0], edge_order=1)")
both("stat-unwrap", "jnp.unwrap", "jnp.array([0., 3., 6.5, 1., -3.])")
val("stat-unwrap-period", "jnp.unwrap(jnp.array([0, 3, 7, 1, -3]), period=6)")
val("stat-unwrap-axis", f"jnp.unwrap(2 * {_X}, axis=0, discont=4.)")
val("stat-unwrap-deg", "jnp.unwrap(jnp.array([170., -170., 175.]), period=360)")
val("stat-unwrap-complex", "jnp.unwrap(jnp.array([1j, 2j]))")
val("stat-h2", f"jnp.histogram2d({_X}[0], {_X}[1])[0]")
val("stat-h2-edges", f"jnp.histogram2d({_X}[0], {_X}[1])[1]")
val("stat-h2-density", f"jnp.histogram2d({_X}[0], {_X}[1], bins=3, density=True)[0]")
val("stat-h2-bins", f"jnp.histogram2d({_X}[0], {_X}[1], bins=[2, 3], weights=jnp.array([1., 2., 3., 4.]))[0]")
val("stat-h2-edges-arr", f"jnp.histogram2d({_X}[0], {_X}[1], bins=jnp.array([0., 1., 2., 5.]))[0]")
val("stat-hdd", f"jnp.histogramdd({_X}.T, bins=2)[0]")
val("stat-hdd-range", f"jnp.histogramdd({_X}.T, bins=2, range=[(0, 5), (0, 5), None])[0]")
val("stat-hdd-edges", f"jnp.histogramdd({_X}.T, bins=(2, 3, 4))[1][2]")
val("stat-hdd-err", f"jnp.histogramdd({_X}.T, bins=(2, 3))")
val("stat-hdd-err-w", f"jnp.histogramdd({_X}.T, weights=jnp.ones(3))")
val("stat-interp-period", "jnp.interp(jnp.array([-180., -170., -185., 185., -10., -5., 0., 365.]), jnp.array([190., -190., 350., -350.]), jnp.array([5., 10., 3., 4.]), period=360)")
val("stat-interp-period-int", "jnp.interp(jnp.arange(5), jnp.array([0, 1, 2]), jnp.array([1, 0, 3]), period=2.5)")
val("stat-interp-period-err", "jnp.interp(jnp.ones(2), jnp.ones(2), jnp.ones(2), period=jnp.ones(2))")

# -- vector products, einsum_path, vectorize
both("prod-vecdot", "jnp.vecdot", _N, _A)
val("prod-vecdot-bcast", f"jnp.vecdot({_N}, {_V})")
val("prod-vecdot-axis", f"jnp.vecdot({_N}, {_A}, axis=0)")
val("prod-vecdot-complex", ri("jnp.vecdot(jnp.array([1 + 2j, 3j]), jnp.array([2 - 1j, 1 + 1j]))"))
val("prod-vecdot-int", "jnp.vecdot(jnp.array([1, 2]), jnp.array([3, 4]))")
both("prod-matvec", "jnp.matvec", _N, _V)
val("prod-matvec-batched", f"jnp.matvec(jnp.stack([{_N}, {_A}]), {_V})")
both("prod-vecmat", "jnp.vecmat", _V, _N)
val("prod-vecmat-complex", ri("jnp.vecmat(jnp.array([1j, 2.]), jnp.array([[1., 2.], [3j, 4.]]))"))
val("prod-vecdot-err", "jnp.vecdot(jnp.ones((2, 3)), jnp.ones((3, 2)), axis=0)")
val("prod-matvec-err", "jnp.matvec(jnp.ones((2, 3)), jnp.ones(2))")
val("prod-vecmat-err", "jnp.vecmat(jnp.ones(2), jnp.ones((3, 2)))")
for _i, (_s, _ops) in enumerate([
        ("ij,jk,kl->il", "np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5))"),
        ("ij,jk,kl,lm->im", "np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5)), np.ones((5, 2))"),
        ("ij,jk,kl,lm", "np.ones((10, 2)), np.ones((2, 30)), np.ones((30, 3)), np.ones((3, 40))"),
        ("bij,bjk,bkl->bil", "np.ones((4, 2, 3)), np.ones((4, 3, 4)), np.ones((4, 4, 5))"),
        ("i,i->", "np.ones(3), np.ones(3)"), ("ij->ji", "np.ones((2, 3))")]):
    val(f"prod-einsum_path-{_i}", f"np.array(jnp.einsum_path({_s!r}, {_ops})[0], dtype=object).tolist().__repr__()")
    val(f"prod-einsum_path-noopt-{_i}", f"repr(jnp.einsum_path({_s!r}, {_ops}, optimize=False)[0])")
_M = "jnp.arange(6.).reshape(2, 3)"
both("vec-scalar", "jnp.vectorize(lambda a, b: a * b + 1)", _M, "jnp.arange(3.)")
val("vec-bcast", f"jnp.vectorize(lambda a, b: a * b + 1)({_M}[:, :1], jnp.arange(3.))")
both("vec-signature", "jnp.vectorize(jnp.dot, signature='(n),(n)->()')", _M, "jnp.arange(3.)")
val("vec-multi-out", f"jnp.concatenate([x.ravel() for x in jnp.vectorize(lambda a: (a.sum(), a * 2), signature='(n)->(),(n)')({_M})])")
val("vec-matvec", f"jnp.vectorize(jnp.matmul, signature='(n,m),(m)->(n)')({_M}[None], jnp.arange(3.))")
val("vec-excluded", f"jnp.vectorize(lambda a, k: a * k, excluded={{1}})({_M}, 3)")
val("vec-excluded-kw", f"jnp.vectorize(lambda a, k=1: a * k, excluded={{'k'}})({_M}, k=3)")
val("vec-kw-dropped", f"jnp.vectorize(lambda a, k=1: a * k)({_M}, k=3)")
val("vec-none", f"jnp.vectorize(lambda a, b: a if b is None else a + b)({_M}, None)")
val("vec-jit", f"jax.jit(jnp.vectorize(lambda a: a ** 2))({_M})")
val("vec-err-sig", f"jnp.vectorize(jnp.dot, signature='(n),(n)>()')({_M}, jnp.arange(3.))")
val("vec-err-size", f"jnp.vectorize(jnp.dot, signature='(n),(n)->()')({_M}, jnp.ones(2))")
val("vec-err-ndim", "jnp.vectorize(jnp.matmul, signature='(n,m),(m)->(n)')(jnp.ones(3), jnp.ones(3))")
val("vec-err-nout", f"jnp.vectorize(lambda a: a.sum(), signature='(n)->(),()')({_M})")
val("vec-err-outcore", f"jnp.vectorize(lambda a: a, signature='(n)->()')({_M})")
val("vec-err-nargs", f"jnp.vectorize(jnp.dot, signature='(n),(n)->()')({_M})")
val("vec-err-excluded", "jnp.vectorize(jnp.dot, excluded={-1})")
val("vec-err-excluded-type", "jnp.vectorize(jnp.dot, excluded={1.5})")

# -- lax.linalg: symmetric_product, cholesky_update, vmapped decompositions
_SA, _SC = "jnp.arange(6., dtype=jnp.float32).reshape(3, 2)", "jnp.eye(3, dtype=jnp.float32)"
both("lax-symmetric_product", "lambda a, c: lax.linalg.symmetric_product(a, c, alpha=2., beta=3.)", _SA, _SC)
both("lax-symmetric_product-sym", "lambda a, c: lax.linalg.symmetric_product(a, c, symmetrize_output=True)", _SA, _SC)
val("lax-symmetric_product-err", f"lax.linalg.symmetric_product({_SA}, jnp.ones((2, 2)))")
val("lax-symmetric_product-err-rank", f"lax.linalg.symmetric_product(jnp.ones(3), {_SC})")
_CU = "jnp.linalg.cholesky(jnp.eye(3) * 4 + 1).T, jnp.array([1., 2., 3.])"
both("lax-cholesky_update", "lax.linalg.cholesky_update", _CU)
val("lax-cholesky_update-err", "lax.linalg.cholesky_update(jnp.ones((3, 3)), jnp.ones(2))")
val("lax-qdwh", "lax.linalg.qdwh(jnp.eye(2))")
jaxpr("vmap-eigvals", "jax.vmap(jnp.linalg.eigvals)", f"jnp.stack([{_N}, {_A}])")
jaxpr("vmap-schur", "jax.vmap(lax.linalg.schur)", f"jnp.stack([{_N}, {_A}])")
jaxpr("vmap-tridiagonal_solve", "jax.vmap(lax.linalg.tridiagonal_solve, in_axes=(0, 0, 0, None))", "jnp.ones((2, 3))", "4 * jnp.ones((2, 3))", "jnp.ones((2, 3))", "jnp.ones((3, 1))")
val("vmap-tridiagonal_solve", "jax.vmap(lax.linalg.tridiagonal_solve, in_axes=(0, 0, 0, None))(jnp.ones((2, 3)), jnp.arange(4., 10.).reshape(2, 3), jnp.ones((2, 3)), jnp.ones((3, 1)))")

# -- argument checking of the decompositions and solves
for _i, _c in enumerate([
        "jnp.linalg.matrix_power(jnp.ones((2, 3)), 2)", "jnp.linalg.matrix_power(jnp.ones(3), 2)",
        "jnp.linalg.inv(jnp.ones((2, 3)))", "jnp.linalg.solve(jnp.ones((2, 3)), jnp.ones(2))",
        "jnp.linalg.solve(jnp.ones((2, 2)), jnp.ones(3))", "jnp.linalg.solve(jnp.ones((2, 2)), jnp.ones((3, 3)))",
        "jnp.linalg.solve(jnp.ones(2), jnp.ones(2))", "jnp.linalg.solve(jnp.ones((3, 2, 2)), jnp.ones((3, 2)))",
        "jnp.linalg.det(jnp.ones((2, 3)))", "jnp.linalg.slogdet(jnp.ones((2, 3)))",
        "jnp.linalg.cholesky(jnp.ones((2, 3)))", "jnp.linalg.eigh(jnp.ones((2, 3)))", "jnp.linalg.svd(jnp.ones(3))",
        "jnp.linalg.qr(jnp.ones(3))", "jnp.linalg.eigvals(jnp.ones((2, 3)))", "jnp.linalg.eig(jnp.ones(3))",
        "lax.linalg.lu(jnp.ones(3))", "lax.linalg.lu(jnp.ones((2, 2), jnp.int32))", "lax.linalg.qr(jnp.ones(3))",
        "lax.linalg.svd(jnp.ones(3))", "lax.linalg.triangular_solve(jnp.ones(3), jnp.ones(3))",
        "lax.linalg.cholesky(jnp.ones((2, 3)))", "jnp.polyfit(jnp.arange(3), jnp.arange(3), 1)",
        "jnp.polymul(1., 2.)", "jnp.polyder(jnp.ones(3), 5)", "jnp.histogram2d(jnp.ones(3), jnp.ones(4))",
        "jnp.gradient(jnp.ones((3, 3)), jnp.ones((2, 2)))", "jnp.vecdot(jnp.ones((2, 3)), jnp.ones((4, 1, 3)))",
        "jnp.hamming(3.5)", "jnp.polyadd(jnp.ones((2, 2)), jnp.ones(2))"]):
    val(f"check-{_i}", _c)
val("la-solve-batched", f"jnp.linalg.solve(jnp.stack([{_N}, {_N}.T + 2 * jnp.eye(3)]), {_V})")

# -- decomposition options: column pivoting, gesvd, index subsets, hermitian pinv
_B = "(jnp.arange(12., dtype=jnp.float32).reshape(3, 4) + jnp.eye(3, 4))"
jaxpr("lax-qr-pivoting", "lambda a: lax.linalg.qr(a, pivoting=True)", _A)
val("lax-qr-pivoting-p", f"lax.linalg.qr({_B}, pivoting=True)[2]")
val("lax-qr-pivoting-r", f"jnp.abs(lax.linalg.qr({_B}, pivoting=True)[1])")
val("lax-qr-pivoting-recon", f"(lambda q, r, p: q @ r - {_B}[:, p])(*lax.linalg.qr({_B}, pivoting=True))")
val("lax-qr-pivoting-tall", f"jnp.abs(lax.linalg.qr({_B}.T, pivoting=True, full_matrices=False)[0])")
val("lax-svd-qr-s", f"lax.linalg.svd({_B}, full_matrices=False, algorithm=lax.linalg.SvdAlgorithm.QR)[1]")
val("lax-svd-qr-u", f"jnp.abs(lax.linalg.svd({_A}, algorithm=lax.linalg.SvdAlgorithm.QR)[0])")
val("lax-svd-jacobi", f"lax.linalg.svd({_A}, algorithm=lax.linalg.SvdAlgorithm.JACOBI)")
val("la-svd-subset-full", f"jnp.linalg.svd({_A}, subset_by_index=(0, 2))")
val("la-svd-subset", f"jnp.linalg.svd({_A}, full_matrices=False, subset_by_index=(0, 2))")
val("la-svd-subset-all", f"jnp.linalg.svd({_A}, full_matrices=False, subset_by_index=(0, 3))[1]")
val("lax-eigh-subset", f"lax.linalg.eigh({_A}, subset_by_index=(0, 2))")
val("lax-eigh-subset-all", f"lax.linalg.eigh({_A}, subset_by_index=(0, 3))[1]")
val("la-pinv-hermitian", f"jnp.linalg.pinv({_N} + {_N}.T, hermitian=True)")

# -- 16-bit floats pass the type checks but have no LAPACK kernel; bool products
for _f in ("jnp.linalg.eigvals", "jnp.linalg.cond", "jnp.linalg.inv", "jnp.linalg.svd", "lax.linalg.schur"):
    val(f"f16-{_f}", f"{_f}(jnp.eye(3, dtype=jnp.float16))")
val("bf16-eigvals", "jnp.linalg.eigvals(jnp.eye(3, dtype=jnp.bfloat16))")
jaxpr("f16-eigvals", "jnp.linalg.eigvals", "jnp.eye(3, dtype=jnp.float16)")
val("bool-outer", "jnp.linalg.outer(jnp.array([True, False]), jnp.array([True, True, False]))")
jaxpr("la-matrix_rank-rtol", "lambda a: jnp.linalg.matrix_rank(a, 0.1)", _A)
jaxpr("la-cholesky-upper", "lambda a: jnp.linalg.cholesky(a, upper=True)", f"{_A} + 5 * jnp.eye(3)")
jaxpr("la-eigh-U", "lambda a: jnp.linalg.eigh(a, UPLO='U')", _A)
jaxpr("la-qr-r", "lambda a: jnp.linalg.qr(a, mode='r')", _N)
jaxpr("la-vector_norm", "jnp.linalg.vector_norm", _A)
jaxpr("la-matrix_norm", "jnp.linalg.matrix_norm", _A)
val("win-negative", "jnp.hamming(-1)")
