"""Differential cases for ``jax.scipy.fft`` (dct, dctn, idct, idctn): values
and dtypes for every norm, padding and truncation, integer, bool, half,
complex and (``x64-*``) double inputs; results under jit, vmap and grad;
printed jaxprs; the errors for unsupported types, norms and shapes."""

_X = "jnp.array([[0.3, -1.2, 2.5, 0.7, -0.4], [1.1, 0.0, -2.2, 3.3, 0.9], " \
     "[-0.6, 1.8, 0.2, -1.5, 2.4]], dtype=jnp.float32)"
_V = "jnp.array([1.5, -0.25, 3.0, 0.75, -2.0, 1.25], dtype=jnp.float32)"
_C = "jnp.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0.75j], dtype=jnp.complex64)"
_T = "jnp.sin(jnp.arange(24, dtype=jnp.float32)).reshape(2, 3, 4)"
_Q = "jnp.cos(jnp.arange(48, dtype=jnp.float32)).reshape(2, 2, 3, 4)"

CASES = []
F = "jax.scipy.fft"


def val(name, code):
    CASES.append((f"val-{name}", f"result = {code}"))


def x64(name, code):
    CASES.append((f"x64-{name}", ("jax.config.update('jax_enable_x64', True)\ntry:\n"
                                  f"    result = {code}\nfinally:\n"
                                  "    jax.config.update('jax_enable_x64', False)\n")))


def jaxpr(name, fn, arg):
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})({arg})"))


def err(name, code):
    CASES.append((f"err-{name}", f"result = {code}"))


# -- values: one axis
for fn in ("dct", "idct"):
    for name, call in [
            ("", f"{F}.{fn}({_X})"), ("vec", f"{F}.{fn}({_V})"),
            ("backward", f"{F}.{fn}({_X}, norm='backward')"), ("ortho", f"{F}.{fn}({_X}, norm='ortho')"),
            ("axis0", f"{F}.{fn}({_X}, axis=0)"), ("axis0-ortho", f"{F}.{fn}({_X}, axis=0, norm='ortho')"),
            ("n-pad", f"{F}.{fn}({_X}, n=7)"), ("n-trunc", f"{F}.{fn}({_X}, n=2)"),
            ("n-pad-axis0", f"{F}.{fn}({_X}, n=4, axis=0, norm='ortho')"),
            ("n1", f"{F}.{fn}({_V}, n=1)"), ("odd", f"{F}.{fn}({_V}[:5])"),
            ("3d-axis1", f"{F}.{fn}({_T}, axis=1)"), ("type2", f"{F}.{fn}({_V}, type=2)"),
            ("int", f"{F}.{fn}(jnp.arange(6))"), ("int-n", f"{F}.{fn}(jnp.arange(6), n=8)"),
            ("bool", f"{F}.{fn}(jnp.array([True, False, True, True]))"),
            ("f16", f"{F}.{fn}({_V}.astype(jnp.float16))"),
            ("bf16", f"{F}.{fn}({_V}.astype(jnp.bfloat16))"),
            ("np-f64", f"{F}.{fn}(np.array([0.5, -1.0, 2.0, 4.0]))"),
            ("complex", f"{F}.{fn}({_C})"), ("complex-ortho", f"{F}.{fn}({_C}, norm='ortho', n=5)"),
            ("roundtrip",
             f"{F}.{'idct' if fn == 'dct' else 'dct'}({F}.{fn}({_X}, norm='ortho'), norm='ortho')")]:
        val(f"{fn}-{name}" if name else fn, call)

# -- values: several axes
for fn in ("dctn", "idctn"):
    for name, call in [
            ("", f"{F}.{fn}({_X})"), ("ortho", f"{F}.{fn}({_X}, norm='ortho')"),
            ("s1", f"{F}.{fn}({_X}, s=[2])"), ("s1-axes0", f"{F}.{fn}({_X}, s=[2], axes=[0])"),
            ("s2", f"{F}.{fn}({_X}, s=[2, 7])"), ("s-int", f"{F}.{fn}({_X}, s=4)"),
            ("s-tuple-ortho", f"{F}.{fn}({_X}, s=(4, 3), norm='ortho')"),
            ("axes-neg", f"{F}.{fn}({_X}, axes=(-1, 0))"), ("axes-int", f"{F}.{fn}({_X}, axes=0)"),
            ("3d", f"{F}.{fn}({_T})"), ("3d-ortho", f"{F}.{fn}({_T}, norm='ortho')"),
            ("3d-axes02", f"{F}.{fn}({_T}, axes=[0, 2])"), ("4d", f"{F}.{fn}({_Q})"),
            ("4d-s", f"{F}.{fn}({_Q}, s=[3, 2, 5], norm='ortho')"),
            ("axes-empty", f"{F}.{fn}({_X}, axes=())"), ("vec", f"{F}.{fn}({_V})"),
            ("int", f"{F}.{fn}(jnp.arange(12).reshape(3, 4))"),
            ("complex", f"{F}.{fn}(jnp.stack([{_C}, 2 * {_C}]))"),
            ("roundtrip", f"{F}.{'idctn' if fn == 'dctn' else 'dctn'}({F}.{fn}({_T}))")]:
        val(f"{fn}-{name}" if name else fn, call)

# -- double precision
for fn, extra in [("dct", ""), ("idct", ", norm='ortho'"), ("dctn", ""), ("idctn", ", s=(4, 6)")]:
    x64(fn, f"{F}.{fn}(np.array([[0.5, -1.0, 2.0], [4.0, 0.25, -3.0]]){extra})")
x64("dct-int", f"{F}.dct(jnp.arange(5))")
x64("idctn-int", f"{F}.idctn(jnp.arange(6).reshape(2, 3))")
x64("dct-c128", f"{F}.dct(np.array([1 + 1j, 2 - 3j, 0.5j]))")
x64("dct-f32", f"{F}.dct({_V})")

# -- transformations
for fn in ("dct", "idct", "dctn", "idctn"):
    val(f"jit-{fn}", f"jax.jit({F}.{fn}, static_argnames='norm')({_X}, norm='ortho')")
    val(f"vmap-{fn}", f"jax.vmap({F}.{fn})({_T})")
    val(f"vmap1-{fn}", f"jax.vmap(lambda a: {F}.{fn}(a, norm='ortho'), in_axes=1)({_T})")
    val(f"grad-{fn}", f"jax.grad(lambda a: jnp.sin({F}.{fn}(a)).sum())({_X})")
    val(f"grad-ortho-{fn}", f"jax.grad(lambda a: ({F}.{fn}(a, norm='ortho') ** 2 * {_X}).sum())({_X})")
val("jit-dct-n", f"jax.jit(lambda a: {F}.dct(a, n=3, axis=0))({_X})")
val("vmap-dct-axis0", f"jax.vmap(lambda a: {F}.dct(a, axis=0), in_axes=2)({_T})")
val("vmap-vmap-idct", f"jax.vmap(jax.vmap({F}.idct))({_T})")
val("jacfwd-dct", f"jax.jacfwd({F}.dct)({_V})")
val("jacrev-idct", f"jax.jacrev(lambda a: {F}.idct(a, n=4))({_V})")
val("grad-dct-complex", f"jax.grad(lambda a: jnp.abs({F}.dct(a)).sum(), holomorphic=False)({_C})")
val("grad-jit-dctn-s", f"jax.grad(jax.jit(lambda a: {F}.dctn(a, s=(2, 6)).sum()))({_X})")
val("grad-idctn-3d", f"jax.grad(lambda a: jnp.cos({F}.idctn(a, axes=(0, 2))).sum())({_T})")

# -- printed jaxprs
_X2 = f"{_X}[:2, :4]"
jaxpr("dct", f"{F}.dct", _X2)
jaxpr("dct-ortho-n", f"lambda a: {F}.dct(a, n=6, norm='ortho')", _X2)
jaxpr("dct-int", f"{F}.dct", "jnp.arange(4)")
jaxpr("dct-complex", f"{F}.dct", _C)
jaxpr("dct-axis0", f"lambda a: {F}.dct(a, axis=0)", _X2)
jaxpr("dctn", f"{F}.dctn", _X2)
jaxpr("dctn-ortho", f"lambda a: {F}.dctn(a, norm='ortho')", _X2)
jaxpr("idct", f"{F}.idct", _X2)
jaxpr("idct-ortho", f"lambda a: {F}.idct(a, norm='ortho')", _X2)
jaxpr("idctn", f"{F}.idctn", _X2)
jaxpr("grad-dct", f"jax.grad(lambda a: {F}.dct(a).sum())", _V)

# -- errors
for fn in ("dct", "idct", "dctn", "idctn"):
    err(f"{fn}-type1", f"{F}.{fn}({_X}, type=1)")
    err(f"{fn}-type3", f"{F}.{fn}({_X}, type=3)")
    err(f"{fn}-norm-forward", f"{F}.{fn}({_X}, norm='forward')")
    err(f"{fn}-norm-bad", f"{F}.{fn}({_X}, norm='bad')")
    err(f"{fn}-type-before-norm", f"{F}.{fn}({_X}, type=4, norm='bad')")
    err(f"{fn}-list", f"{F}.{fn}([1.0, 2.0, 3.0])")
for fn in ("dctn", "idctn"):
    err(f"{fn}-s-long", f"{F}.{fn}({_X}, s=[2, 3, 4])")
    err(f"{fn}-axes-repeated", f"{F}.{fn}({_X}, axes=(1, -1))")
    err(f"{fn}-axes-bounds", f"{F}.{fn}({_X}, axes=(0, 2))")
    err(f"{fn}-s-float", f"{F}.{fn}({_X}, s=2.0)")
for fn in ("dct", "idct"):
    err(f"{fn}-axis-bounds", f"{F}.{fn}({_X}, axis=2)")
    err(f"{fn}-scalar", f"{F}.{fn}(1.0)")
err("dct-jit-traced-norm", f"jax.jit({F}.dct)({_X}, norm='ortho')")
