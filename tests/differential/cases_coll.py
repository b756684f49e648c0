"""Differential cases for the named-axis collectives under ``vmap``: values,
dtypes and weak types, printed jaxprs of the batched collectives (JAX prints
them as collectives over positional axes), pytrees, nested vmaps with tuples
of names, unbatched operands, jit inside/outside, gradients, and the errors
for unbound names."""

_X = "jnp.arange(6.0, dtype=jnp.float32).reshape(3, 2)"
_V = "jnp.array([1.0, -2.0, 3.5], jnp.float32)"
_I = "jnp.array([4, 1, 7], jnp.int32)"
_B = "jnp.array([True, False, True])"
_Z = "jnp.arange(24.0, dtype=jnp.float32).reshape(2, 3, 4)"
_S = "jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3)"
_G = "jnp.arange(18.0, dtype=jnp.float32).reshape(3, 6)"

CASES = []


def vm(name, body, arg=_X, **kw):
    """``vmap(lambda v: body, axis_name='i')(arg)``: value and printed jaxpr."""
    extra = "".join(f", {k}={v}" for k, v in kw.items())
    fn = f"jax.vmap(lambda v: {body}, axis_name='i'{extra})"
    CASES.append((f"val-{name}", f"result = {fn}({arg})"))
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})({arg})"))


def case(name, code):
    CASES.append((name, code))


# -- all-reduce collectives
vm("psum", "lax.psum(v, 'i')")
vm("psum-tuple-name", "lax.psum(v, ('i',))")
vm("psum-int", "lax.psum(v, 'i')", _I)
vm("psum-bool", "lax.psum(v, 'i')", _B)
vm("pmean", "lax.pmean(v, 'i')")
vm("pmean-int", "lax.pmean(v, 'i')", _I)
vm("pmax", "lax.pmax(v, 'i')")
vm("pmin", "lax.pmin(v, 'i')")
vm("pmax-int", "lax.pmax(v, 'i')", _I)
vm("psum-inaxes1", "lax.psum(v, 'i')", _X, in_axes=1)
vm("psum-outaxes1", "lax.psum(v, 'i') * v", _X, out_axes=1)
vm("batchnorm", "(v - lax.pmean(v, 'i')) / jnp.sqrt(lax.pmean((v - lax.pmean(v, 'i')) ** 2, 'i') + 1e-5)")
vm("softmax-across", "jnp.exp(v - lax.pmax(v, 'i')) / lax.psum(jnp.exp(v - lax.pmax(v, 'i')), 'i')", _V)
vm("psum-pytree", "lax.psum({'a': v, 'b': (v[0] > 1, v * 2)}, 'i')")
vm("pmean-pytree", "lax.pmean([v, v[1]], 'i')")
vm("pmax-pytree", "lax.pmax((v, -v), 'i')")

# -- unbatched operands
vm("psum-const-int", "lax.psum(1, 'i') * v")
vm("psum-const-float", "lax.psum(2.5, 'i') * v")
vm("psum-const-array", "lax.psum(jnp.ones(2), 'i') + v")
vm("psum-const-np", "lax.psum(np.float32(2.0), 'i') + v")
vm("pmean-const", "lax.pmean(jnp.float32(4.0), 'i') + v")
vm("pmax-const", "lax.pmax(jnp.ones(2), 'i') + v")
vm("axis-size", "lax.axis_size('i') * v")
vm("axis-size-type", "lax.axis_size('i')", _X)
vm("psum-one-out", "lax.psum(1, 'i')")
case("val-psum-const-type", "out = []\n"
     "jax.vmap(lambda v: out.append(lax.psum(1, 'i')) or v, axis_name='i')(jnp.ones(3))\n"
     "result = (type(out[0]).__name__, out[0])")
case("val-psum-const-float-type", "out = []\n"
     "jax.vmap(lambda v: out.append(lax.psum(2.0, 'i')) or v, axis_name='i')(jnp.ones(3))\n"
     "result = (type(out[0]).__name__, out[0])")

# -- axis_index
vm("axis-index", "v * lax.axis_index('i')")
vm("axis-index-alone", "lax.axis_index('i')")
vm("axis-index-int", "v + lax.axis_index('i')", _I)

# -- all_gather
vm("all-gather", "lax.all_gather(v, 'i')")
vm("all-gather-axis1", "lax.all_gather(v, 'i', axis=1)")
vm("all-gather-neg", "lax.all_gather(v, 'i', axis=-1)")
vm("all-gather-tiled", "lax.all_gather(v, 'i', tiled=True)")
vm("all-gather-unbatched", "lax.all_gather(jnp.ones(2), 'i') + v[0]")
vm("all-gather-pytree", "lax.all_gather((v, v[0]), 'i')")

# -- ppermute / pshuffle
vm("ppermute-cycle", "lax.ppermute(v, 'i', [(0, 1), (1, 2), (2, 0)])")
vm("ppermute-rev", "lax.ppermute(v, 'i', ((0, 2), (1, 1), (2, 0)))", _V)
vm("ppermute-unbatched", "lax.ppermute(jnp.ones(2), 'i', [(0, 1), (1, 2), (2, 0)]) + v")
vm("pshuffle", "lax.pshuffle(v, 'i', [2, 0, 1])")
vm("pshuffle-bad", "lax.pshuffle(v, 'i', [0, 0, 1])")

# -- psum_scatter
vm("psum-scatter", "lax.psum_scatter(v, 'i')", _S)
vm("psum-scatter-dim1", "lax.psum_scatter(jnp.stack([v, v + 1]), 'i', scatter_dimension=1)", _S)
vm("psum-scatter-tiled", "lax.psum_scatter(v, 'i', tiled=True)", _G)
vm("psum-scatter-unbatched", "lax.psum_scatter(jnp.arange(3.0), 'i') + v[0]", _S)
vm("psum-scatter-bad", "lax.psum_scatter(v, 'i')", _X)

# -- all_to_all / pswapaxes
vm("all-to-all-0-1", "lax.all_to_all(v, 'i', 0, 1)", "jnp.arange(18.0).reshape(3, 3, 2)")
vm("all-to-all-1-0", "lax.all_to_all(v, 'i', 1, 0)", "jnp.arange(18.0).reshape(3, 2, 3)")
vm("all-to-all-same", "lax.all_to_all(v, 'i', 0, 0)", "jnp.arange(18.0).reshape(3, 3, 2)")
vm("all-to-all-tiled", "lax.all_to_all(v, 'i', 0, 1, tiled=True)", "jnp.arange(36.0).reshape(3, 6, 2)")
vm("pswapaxes", "lax.pswapaxes(v, 'i', 0)", "jnp.arange(18.0).reshape(3, 3, 2)")
vm("all-to-all-bad", "lax.all_to_all(v, 'i', 0, 1)", _X)

# -- nested vmaps: tuples of names, outer names from inner vmaps
_NEST = "jax.vmap(jax.vmap(lambda v: {body}, axis_name='j'), axis_name='i')"
for _n, _b in [("psum-ij", "lax.psum(v, ('i', 'j'))"), ("psum-ji", "lax.psum(v, ('j', 'i'))"),
               ("psum-outer", "lax.psum(v, 'i')"), ("psum-inner", "lax.psum(v, 'j')"),
               ("pmean-ij", "lax.pmean(v, ('i', 'j'))"), ("pmax-outer", "lax.pmax(v, 'i')"),
               ("axis-index-ij", "lax.axis_index(('i', 'j')) + 0 * v"),
               ("axis-index-outer", "lax.axis_index('i') + 0 * v"),
               ("axis-size-ij", "lax.axis_size(('i', 'j')) * v"),
               ("all-gather-outer", "lax.all_gather(v, 'i')"),
               ("ppermute-outer", "lax.ppermute(v, 'i', [(0, 1), (1, 0)])"),
               ("psum-outer-mixed", "lax.psum(v, 'i') - lax.psum(v, 'j')")]:
    _f = _NEST.format(body=_b)
    case(f"val-nest-{_n}", f"result = {_f}({_Z})")
    case(f"jaxpr-nest-{_n}", f"result = jax.make_jaxpr({_f})({_Z})")
case("val-nest-inner-unbatched",
     "result = jax.vmap(lambda v: jax.vmap(lambda w: lax.psum(v, 'i') * w, axis_name='j')"
     f"(jnp.ones(4)), axis_name='i')({_X})")
case("jaxpr-nest-inner-unbatched",
     "result = jax.make_jaxpr(jax.vmap(lambda v: jax.vmap(lambda w: lax.psum(v, 'i') * w, "
     f"axis_name='j')(jnp.ones(4)), axis_name='i'))({_X})")
case("val-nest-outer-in-axes-none",
     "result = jax.vmap(jax.vmap(lambda v, w: lax.psum(v, 'i') + w, in_axes=(None, 0), "
     f"axis_name='j'), in_axes=(0, None), axis_name='i')({_X}, jnp.ones(5))")

# -- jit inside / outside
vm("jit-inside", "jax.jit(lambda w: lax.psum(w, 'i'))(v)")
vm("jit-inside-pmean", "jax.jit(lambda w: w - lax.pmean(w, 'i'))(v)")
vm("jit-inside-axis-index", "jax.jit(lambda w: w * lax.axis_index('i'))(v)")
vm("jit-inside-size", "jax.jit(lambda w: w * lax.axis_size('i'))(v)")
case("val-jit-outside", f"result = jax.jit(jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i'))({_X})")
case("val-jit-outside-gather",
     f"result = jax.jit(jax.vmap(lambda v: lax.all_gather(v, 'i'), axis_name='i'))({_X})")
case("jaxpr-jit-outside",
     f"result = jax.make_jaxpr(jax.jit(jax.vmap(lambda v: lax.pmean(v, 'i'), axis_name='i')))({_X})")

# -- gradients
_GV = "jnp.array([0.5, 1.5, -2.0], jnp.float32)"
vm("grad-psum", "jax.grad(lambda w: lax.psum(w, 'i'))(v)", _GV)
vm("grad-pmean", "jax.grad(lambda w: lax.pmean(jnp.sin(w), 'i'))(v)", _GV)
vm("grad-psum-sq", "jax.grad(lambda w: lax.psum(w * w, 'i'))(v)", _GV)
vm("grad-center", "jax.grad(lambda w: (w - lax.pmean(w, 'i')) * w)(v)", _GV)
vm("grad-all-gather", "jax.grad(lambda w: (lax.all_gather(w, 'i') * jnp.arange(3.0)).sum())(v)", _GV)
vm("grad-ppermute", "jax.grad(lambda w: lax.ppermute(w, 'i', [(0, 1), (1, 2), (2, 0)]) * jnp.sin(w))(v)", _GV)
vm("grad-axis-index", "jax.grad(lambda w: w * lax.axis_index('i'))(v)", _GV)
for _n, _f in [("psum", "lax.psum(v * v, 'i')"), ("pmean", "lax.pmean(jnp.sin(v), 'i')"),
               ("center", "v - lax.pmean(v, 'i')"),
               ("gather", "lax.all_gather(v, 'i') * jnp.arange(3.0)"),
               ("ppermute", "lax.ppermute(v, 'i', [(0, 1), (1, 2), (2, 0)]) * v"),
               ("scatter", "lax.psum_scatter(jnp.stack([v, 2 * v, 3 * v]), 'i')")]:
    _fn = f"lambda x: jax.vmap(lambda v: {_f}, axis_name='i')(x).sum()"
    case(f"val-grad-outside-{_n}", f"result = jax.grad({_fn})({_GV})")
    case(f"jaxpr-grad-outside-{_n}", f"result = jax.make_jaxpr(jax.grad({_fn}))({_GV})")
case("val-jvp-psum", "result = jax.jvp(jax.vmap(lambda v: lax.pmean(v * v, 'i'), axis_name='i'), "
     f"({_GV},), (jnp.ones(3),))")
case("jaxpr-vjp-pmax", "result = jax.make_jaxpr(jax.vmap(jax.grad(lambda w: lax.pmax(w, 'i')), "
     f"axis_name='i'))({_GV})")

# -- errors
case("err-eager-unbound", "result = lax.psum(jnp.ones(3), 'i')")
case("err-eager-unbound-pmean", "result = lax.pmean(jnp.ones(3), 'i')")
case("err-jit-unbound", "result = jax.jit(lambda x: lax.psum(x, 'i'))(jnp.ones(3))")
case("err-jaxpr-unbound", "result = jax.make_jaxpr(lambda x: lax.psum(x, 'i'))(jnp.ones(3))")
case("err-jit-unbound-pmax", "result = jax.jit(lambda x: lax.pmax(x, 'i'))(jnp.ones(3))")
case("err-jit-unbound-pmin", "result = jax.jit(lambda x: lax.pmin(x, 'i'))(jnp.ones(3))")
case("err-eager-pmax", "result = lax.pmax(jnp.ones(3), 'i')")
case("err-eager-axis-index", "result = lax.axis_index('i')")
case("err-jit-axis-index", "result = jax.jit(lambda: lax.axis_index('i'))()")
case("err-axis-size", "result = lax.axis_size('i')")
case("err-wrong-name", f"result = jax.vmap(lambda v: lax.psum(v, 'j'), axis_name='i')({_X})")
case("err-wrong-name-jaxpr",
     f"result = jax.make_jaxpr(jax.vmap(lambda v: lax.psum(v, 'j'), axis_name='i'))({_X})")
case("err-no-name", f"result = jax.vmap(lambda v: lax.psum(v, 'i'))({_X})")
case("err-wrong-name-pmax", f"result = jax.vmap(lambda v: lax.pmax(v, 'j'), axis_name='i')({_X})")
case("err-wrong-name-gather", f"result = jax.vmap(lambda v: lax.all_gather(v, 'j'), axis_name='i')({_X})")
case("err-wrong-name-ppermute",
     f"result = jax.vmap(lambda v: lax.ppermute(v, 'j', [(0, 1)]), axis_name='i')({_X})")
case("err-jit-ppermute", "result = jax.jit(lambda x: lax.ppermute(x, 'i', [(0, 1)]))(jnp.ones(3))")
case("err-jit-all-to-all", "result = jax.jit(lambda x: lax.all_to_all(x, 'i', 0, 0))(jnp.ones(3))")
case("err-jit-gather", "result = jax.jit(lambda x: lax.all_gather(x, 'i'))(jnp.ones(3))")
case("err-after-vmap", f"jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i')({_X})\n"
     "result = lax.psum(jnp.ones(3), 'i')")
case("err-groups-positional", f"result = jax.vmap(lambda v: lax.psum(v, ('i', 0), "
     f"axis_index_groups=[[0, 1, 2]]), axis_name='i')({_X})")
case("err-groups-cover", f"result = jax.vmap(lambda v: lax.psum(v, 'i', "
     f"axis_index_groups=[[0, 1]]), axis_name='i')({_X})")
case("err-groups-vmap", f"result = jax.vmap(lambda v: lax.psum(v, 'i', "
     f"axis_index_groups=[[0, 1, 2]]), axis_name='i')({_X})")
case("err-ppermute-partial", f"result = jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1)]), "
     f"axis_name='i')({_X})")
case("err-eager-ppermute", "result = lax.ppermute(jnp.ones(3), 'i', [(0, 1)])")
case("err-eager-all-to-all", "result = lax.all_to_all(jnp.ones(3), 'i', 0, 0)")
case("err-eager-all-gather", "result = lax.all_gather(jnp.ones(3), 'i')")
case("err-eager-psum-scatter", "result = lax.psum_scatter(jnp.ones(3), 'i')")
case("err-bind-all-gather", "result = lax.all_gather_p.bind(jnp.ones(3), all_gather_dimension=0, "
     "axis_name=('i',), axis_index_groups=None, axis_size=3, tiled=False)")
case("err-bind-all-to-all", "result = lax.all_to_all_p.bind(jnp.ones(3), split_axis=0, "
     "concat_axis=0, axis_name=('i',), axis_index_groups=None, tiled=False)")
case("err-bind-psum", "result = lax.psum_p.bind(jnp.ones(3), axes=('i',), axis_index_groups=None)")
case("val-bind-psum-positional", "result = lax.psum_p.bind(jnp.ones((2, 3)), axes=(1,), "
     "axis_index_groups=None)")
case("val-psum-positional", "result = lax.psum(jnp.ones((2, 3)), 1)")
case("val-psum-positional-mixed", f"result = jax.vmap(lambda v: lax.psum(v, ('i', 0)), "
     f"axis_name='i')({_X})")
case("jaxpr-psum-positional-mixed", f"result = jax.make_jaxpr(jax.vmap(lambda v: lax.psum(v, "
     f"('i', 0)), axis_name='i'))({_X})")
case("val-pmax-positional", "result = lax.pmax(jnp.arange(6.0).reshape(2, 3), 0)")
case("err-jit-cache-size",
     "f = jax.jit(lambda w: w * lax.axis_size('i'))\n"
     "a = jax.vmap(f, axis_name='i')(jnp.ones(3))\n"
     "result = jnp.concatenate([a, jax.vmap(f, axis_name='i')(jnp.ones(4))])")
case("err-jit-cache-name",
     "f = jax.jit(lambda w: lax.psum(w, 'i'))\n"
     "a = jax.vmap(f, axis_name='i')(jnp.ones(3))\n"
     "result = f(jnp.ones(3))")
case("val-pmean-tuple-nested", f"result = jax.vmap(jax.vmap(lambda v: lax.pmean(v, ('i', 'j')), "
     f"axis_name='j'), axis_name='i')({_Z})")
case("val-all-gather-int", f"result = jax.vmap(lambda v: lax.all_gather(v, 'i'), axis_name='i')({_I})")
case("val-psum-weak", "result = jax.vmap(lambda v: lax.psum(v * 2, 'i'), axis_name='i')(jnp.ones(3))")
case("val-psum-f16", "result = jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i')"
     "(jnp.ones(3, jnp.float16))")
case("val-psum-complex", "result = jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i')"
     "(jnp.array([1+2j, 3j, -1], jnp.complex64))")
case("val-vmap-of-jit-nested", f"result = jax.vmap(jax.jit(jax.vmap(lambda v: lax.psum(v, 'i') "
     f"+ lax.axis_index('j'), axis_name='j')), axis_name='i')({_Z})")

# -- collectives inside higher-order primitives whose operands are all unbatched
case("val-jit-noargs", f"result = jax.vmap(lambda v: jax.jit(lambda: lax.axis_index('i'))() + v, "
     f"axis_name='i')({_X})")
case("jaxpr-jit-const", "result = jax.make_jaxpr(jax.vmap(lambda v: jax.jit(lambda c: "
     f"lax.psum(c, 'i'))(jnp.ones(2)) + v, axis_name='i'))({_X})")
case("jaxpr-scan-unbatched", "result = jax.make_jaxpr(jax.vmap(lambda v: lax.scan(lambda c, x: "
     f"(c + lax.psum(x, 'i'), c), 0., jnp.ones(2))[0] + v, axis_name='i'))({_X})")
case("val-while-unbatched", "result = jax.vmap(lambda v: lax.while_loop(lambda c: c < 10, "
     f"lambda c: c + lax.axis_index('i') + 1, 0) + v, axis_name='i')({_X})")
case("val-cond-unbatched", "result = jax.vmap(lambda v: lax.cond(True, lambda w: lax.psum(w, 'i'), "
     f"lambda w: w, jnp.ones(2)) + v, axis_name='i')({_X})")
case("val-scan-batched", "result = jax.vmap(lambda v: lax.scan(lambda c, x: (c + lax.psum(x, 'i'), "
     f"c), 0., v), axis_name='i')({_X})")
case("val-remat-grad", "result = jax.vmap(jax.grad(jax.checkpoint(lambda w: lax.pmean(jnp.sin(w), "
     "'i'))), axis_name='i')(jnp.array([0.5, 1.5, -2.0]))")

# -- several names at once
_A2 = "jnp.arange(72.0).reshape(2, 3, 6, 2)"
for _n, _names, _s, _c in [("ij-0-0", "('i', 'j')", 0, 0), ("ji-0-0", "('j', 'i')", 0, 0),
                           ("ij-0-1", "('i', 'j')", 0, 1), ("ij-1-0", "('i', 'j')", 1, 0)]:
    _arr = _A2 if (_s, _c) != (1, 0) else "jnp.arange(72.0).reshape(2, 3, 2, 6)"
    _f = (f"jax.vmap(jax.vmap(lambda v: lax.all_to_all(v, {_names}, {_s}, {_c}), axis_name='j'), "
          "axis_name='i')")
    case(f"val-all-to-all-{_n}", f"result = {_f}({_arr})")
    case(f"jaxpr-all-to-all-{_n}", f"result = jax.make_jaxpr({_f})({_arr})")
case("err-all-gather-2names", "result = jax.vmap(jax.vmap(lambda v: lax.all_gather(v, ('i', 'j')), "
     "axis_name='j'), axis_name='i')(jnp.ones((2, 3)))")
case("err-psum-scatter-2names", "result = jax.vmap(jax.vmap(lambda v: lax.psum_scatter(v, "
     "('i', 'j')), axis_name='j'), axis_name='i')(jnp.ones((2, 3, 6)))")
case("val-ppermute-2names", "result = jax.vmap(jax.vmap(lambda v: lax.ppermute(v, ('i', 'j'), "
     "[(0, 1), (1, 0)]), axis_name='j'), axis_name='i')(jnp.arange(4.0).reshape(2, 2))")
case("val-psum-3names", "result = jax.vmap(jax.vmap(jax.vmap(lambda v: lax.psum(v, ('k', 'i')), "
     "axis_name='k'), axis_name='j'), axis_name='i')(jnp.arange(24.0).reshape(2, 3, 4))")
case("val-psum-scatter-outer", "result = jax.vmap(jax.vmap(lambda v: lax.psum_scatter(v, 'i', "
     "tiled=True), axis_name='j'), axis_name='i')(jnp.arange(24.0).reshape(2, 3, 4))")
case("val-all-to-all-outer", "result = jax.vmap(jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 0), "
     "axis_name='j'), axis_name='i')(jnp.arange(24.0).reshape(2, 3, 2, 2))")
case("val-pmax-bool", f"result = jax.vmap(lambda v: lax.pmax(v > 2, 'i'), axis_name='i')({_X})")
case("val-psum-u8", "result = jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i')"
     "(jnp.array([200, 100], jnp.uint8))")
case("val-out-axes-none", f"result = jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i', "
     f"out_axes=None)({_X})")
case("val-psum-none-leaf", f"result = jax.vmap(lambda v: lax.psum((v, None), 'i'), "
     f"axis_name='i')({_X})")

# -- pbroadcast (JAX's batching rule hands jnp.take a list: a TypeError when batched)
vm("pbroadcast", "lax.pbroadcast(v, 'i', 1)")
vm("pbroadcast-unbatched", "lax.pbroadcast(jnp.ones(2), 'i', 1) + v")
vm("pbroadcast-bad-source", "lax.pbroadcast(jnp.ones(2), 'i', 5) + v")
case("err-jit-pbroadcast", f"result = jax.jit(lambda v: lax.pbroadcast(v, 'i', 1))({_X})")

# -- custom derivatives, higher order, printed named params inside a vmap
_CJ = ("@jax.custom_jvp\ndef f(x):\n    return lax.psum(x, 'i')\n"
       "f.defjvp(lambda p, t: (f(p[0]), 2 * lax.psum(t[0], 'i')))\n")
case("val-custom-jvp", _CJ + f"result = jax.vmap(f, axis_name='i')({_X})")
case("val-custom-jvp-grad", _CJ + "result = jax.vmap(jax.grad(f), axis_name='i')(jnp.arange(3.0))")
case("val-custom-jvp-unbatched", _CJ + f"result = jax.vmap(lambda v: f(jnp.ones(2)) + v, "
     f"axis_name='i')({_X})")
_CV = ("@jax.custom_vjp\ndef g(x):\n    return lax.pmean(x, 'i')\n"
       "g.defvjp(lambda x: (g(x), None), lambda r, ct: (3 * ct,))\n")
case("val-custom-vjp", _CV + f"result = jax.vmap(g, axis_name='i')({_X})")
case("val-custom-vjp-grad", _CV + "result = jax.vmap(jax.grad(g), axis_name='i')(jnp.arange(3.0))")
case("val-axis-size-only", "result = jax.vmap(lambda: lax.axis_index('i'), axis_size=3, "
     "axis_name='i')()")
case("val-hessian", "result = jax.vmap(jax.hessian(lambda w: lax.psum(w * w * w, 'i')), "
     "axis_name='i')(jnp.arange(3.0))")
case("val-linearize", "result = jax.linearize(jax.vmap(lambda v: lax.pmean(jnp.sin(v), 'i'), "
     "axis_name='i'), jnp.arange(3.0))[1](jnp.ones(3))")
case("val-vmap-grad-vmap", "result = jax.vmap(lambda a: jax.grad(lambda b: jax.vmap(lambda c: "
     "lax.psum(c * a, ('i', 'j')), axis_name='j')(b).sum())(jnp.arange(2.0)), "
     "axis_name='i')(jnp.arange(3.0))")
case("stdout-named-params",
     "def show(v):\n"
     "    print(jax.make_jaxpr(lambda w: (lax.psum(w, 'i'), lax.pmax(w, ('i',)), "
     "lax.axis_index('i'), lax.ppermute(w, 'i', [(0, 1)]), lax.psum_scatter(w, 'i', tiled=True), "
     "lax.all_to_all(w, 'i', 0, 0, tiled=True), lax.all_gather(w, 'i'), "
     "lax.pbroadcast(w, 'i', 0)))(jnp.ones(6)))\n"
     "    return v\n"
     "result = jax.vmap(show, axis_name='i')(jnp.ones(3))")

# -- make_jaxpr(axis_env=...): names bound without a vmap
case("jaxpr-axis-env", "result = jax.make_jaxpr(lambda x: lax.psum(x, 'i') * lax.axis_size('i') "
     "+ lax.axis_index('i'), axis_env=[('i', 4)])(jnp.ones(2))")
case("jaxpr-axis-env-gather", "result = jax.make_jaxpr(lambda x: lax.all_gather(x, 'i', tiled=True), "
     "axis_env=[('i', 4)])(jnp.ones(2))")
case("jaxpr-axis-env-two", "result = jax.make_jaxpr(lambda x: lax.pmean(x, ('i', 'j')), "
     "axis_env=[('i', 2), ('j', 3)])(jnp.ones(2))")
case("err-axis-env-other", "result = jax.make_jaxpr(lambda x: lax.psum(x, 'j'), "
     "axis_env=[('i', 4)])(jnp.ones(2))")
case("jaxpr-axis-env-jit", "result = jax.make_jaxpr(jax.jit(lambda x: lax.psum(x, 'i')), "
     "axis_env=[('i', 4)])(jnp.ones(2))")
case("jaxpr-axis-env-grad", "result = jax.make_jaxpr(jax.grad(lambda x: lax.psum(jnp.sin(x), 'i')), "
     "axis_env=[('i', 4)])(1.0)")
