"""Differential cases for jax.image (resize / scale_and_translate values and
dtypes for every method, errors) and the single-device jax.sharding surface
(reprs, equality, device_put placement)."""

_IMG = "jnp.sin(jnp.arange(2 * 5 * 7 * 3, dtype=jnp.float32)).reshape(2, 5, 7, 3)"
_U8 = "(jnp.arange(24, dtype=jnp.uint8) * 10).reshape(4, 6)"

CASES = []


def val(name, code):
    CASES.append((name, f"result = {code}"))


_METHODS = ["nearest", "linear", "lanczos3", "lanczos5", "cubic", "cubic-pytorch", "area"]
for _m in _METHODS:
    for _shape in [(2, 3, 4, 3), (2, 9, 11, 3), (2, 1, 13, 3)]:
        for _aa in (True, False):
            val(f"resize-{_m}-{'x'.join(map(str, _shape))}-aa{int(_aa)}",
                f"jax.image.resize({_IMG}, {_shape}, {_m!r}, antialias={_aa})")
    val(f"resize-uint8-{_m}", f"jax.image.resize({_U8}, (7, 3), {_m!r})")
    val(f"resize-int-{_m}", f"jax.image.resize(jnp.arange(12).reshape(3, 4), (5, 2), {_m!r})")
for _alias in ["bilinear", "trilinear", "triangle", "bicubic", "tricubic", "bicubic-pytorch"]:
    val(f"resize-alias-{_alias}", f"jax.image.resize({_U8}, (3, 9), {_alias!r})")
val("resize-enum", f"jax.image.resize({_U8}, (3, 9), jax.image.ResizeMethod.LANCZOS3)")
val("resize-bf16", f"jax.image.resize({_U8}.astype(jnp.bfloat16), (3, 9), 'linear')")
val("resize-f16", f"jax.image.resize({_U8}.astype(jnp.float16), (5, 3), 'cubic')")
val("resize-identity", f"jax.image.resize({_U8}, (4, 6), 'linear')")
val("resize-scalar-shape", "jax.image.resize(jnp.arange(4.0), 7, 'linear')")
val("resize-jit", f"jax.jit(lambda x: jax.image.resize(x, (8, 8), 'cubic'))({_U8})")
val("resize-vmap", f"jax.vmap(lambda x: jax.image.resize(x, (8, 9), 'lanczos3'))({_IMG}[:, :, :, 0])")
val("resize-grad", f"jax.grad(lambda x: (jax.image.resize(x, (3, 5), 'cubic') ** 2).sum())"
                   f"({_U8}.astype(jnp.float32) / 100)")
val("resize-grad-area", f"jax.grad(lambda x: (jax.image.resize(x, (9, 4), 'area') ** 3).sum())"
                        f"({_U8}.astype(jnp.float32) / 100)")
val("resize-err-rank", f"jax.image.resize({_U8}, (4,), 'linear')")
val("resize-err-method", f"jax.image.resize({_U8}, (4, 4), 'bogus')")
val("resize-err-negative", f"jax.image.resize({_U8}, (4, -1), 'linear')")
for _m in _METHODS[1:]:
    for _aa in (True, False):
        val(f"sat-{_m}-aa{int(_aa)}",
            f"jax.image.scale_and_translate({_IMG}, (2, 8, 4, 3), (1, 2), jnp.array([1.7, 0.6]), "
            f"jnp.array([0.3, -0.5]), {_m!r}, antialias={_aa})")
val("sat-int-image", f"jax.image.scale_and_translate({_U8}, (6, 6), (0, 1), jnp.array([1.5, 1.0]), "
                     "jnp.array([0.0, 0.5]), 'linear')")
val("sat-grad-scale", "jax.grad(lambda s: jax.image.scale_and_translate(jnp.arange(16.0).reshape(4, 4), "
                      "(6, 6), (0, 1), s, jnp.zeros(2), 'linear').sum())(jnp.array([1.3, 0.8]))")
val("sat-err-nearest", f"jax.image.scale_and_translate({_U8}, (4, 4), (0,), jnp.ones(1), "
                       "jnp.zeros(1), 'nearest')")
val("sat-err-rank", f"jax.image.scale_and_translate({_U8}, (4,), (0,), jnp.ones(1), jnp.zeros(1), "
                    "'linear')")

# -- sharding (one CPU device)
_MESH = "jax.make_mesh((1,), ('x',))"
_NS = f"jax.sharding.NamedSharding({_MESH}, jax.P())"
_SDS = "jax.sharding.SingleDeviceSharding(jax.devices()[0])"
val("sh-repr-default", "repr(jnp.arange(3.0).sharding)")
val("sh-repr-single", f"repr({_SDS})")
val("sh-eq-single", f"{_SDS} == jnp.arange(3.0).sharding")
val("sh-repr-named", f"repr({_NS})")
val("sh-repr-named-x", f"repr(jax.sharding.NamedSharding({_MESH}, jax.P('x', None)))")
val("sh-repr-mesh", f"repr({_MESH})")
val("sh-str-mesh", f"str({_MESH})")
val("sh-repr-mesh-auto", "repr(jax.sharding.Mesh(np.array(jax.devices()), ('x',)))")
val("sh-repr-mesh-2d", "repr(jax.make_mesh((1, 1), ('a', 'b')))")
val("sh-mesh-shape", f"dict({_MESH}.shape)")
val("sh-mesh-size", f"{_MESH}.size")
val("sh-mesh-eq", "jax.sharding.Mesh(np.array(jax.devices()), ('x',)) == "
                  "jax.sharding.Mesh(np.array(jax.devices()), ('x',))")
val("sh-pspec-repr", "repr(jax.P('x', None)), repr(jax.P()), repr(jax.P(('x', 'y'))), repr(jax.P(None))")
val("sh-pspec-eq", "jax.P('x', None) == jax.P('x', None), jax.P('x', None) == jax.P('x'), "
                   "jax.P('x') == ('x',), len(jax.P('x', None))")
val("sh-pspec-alias", "jax.P is jax.sharding.PartitionSpec")
val("sh-named-eq", f"{_NS} == {_NS}, {_NS} == {_SDS}")
val("sh-named-props", f"{_NS}.is_fully_replicated, {_NS}.num_devices, {_NS}.memory_kind, "
                      f"{_NS}.shard_shape((4, 3))")
val("sh-isinstance", f"isinstance({_NS}, jax.sharding.Sharding), "
                     "isinstance(jnp.arange(3).sharding, jax.sharding.Sharding)")
val("sh-put-named", f"repr(jax.device_put(jnp.arange(4.0), {_NS}).sharding)")
val("sh-put-named-x", f"repr(jax.device_put(jnp.arange(4.0), jax.sharding.NamedSharding({_MESH}, "
                      "jax.P('x'))).sharding)")
val("sh-put-single", f"repr(jax.device_put(jnp.arange(4.0), {_SDS}).sharding)")
val("sh-put-value", f"jax.device_put(np.arange(4.0), {_NS}) * 2")
val("sh-put-own", "repr(jax.device_put(jnp.arange(4.0), jnp.arange(2).sharding).sharding)")
val("sh-put-named-eq", f"jax.device_put(jnp.arange(4.0), {_NS}).sharding == {_NS}")
val("sh-jit-shardings", f"jax.jit(lambda a: a * 2, in_shardings={_NS}, out_shardings={_NS})"
                        "(jnp.arange(4.0))")
val("sh-err-mesh-too-big", "jax.make_mesh((2,), ('x',))")
val("sh-err-mesh-rank", "jax.sharding.Mesh(np.array(jax.devices()), ('x', 'y'))")
val("sh-err-axis", f"jax.sharding.NamedSharding({_MESH}, jax.P('y'))")
val("sh-err-dup", f"jax.sharding.NamedSharding({_MESH}, jax.P('x', 'x'))")
val("sh-err-rank", f"jax.device_put(jnp.ones(3), jax.sharding.NamedSharding({_MESH}, jax.P('x', None)))")

# -- dlpack
val("dl-numpy", "np.from_dlpack(jnp.arange(6.0).reshape(2, 3))")
val("dl-device", "tuple(int(v) for v in jnp.arange(3).__dlpack_device__())")
val("dl-from-numpy", "jax.dlpack.from_dlpack(np.arange(6, dtype=np.int16).reshape(3, 2))")
val("dl-from-f64", "jax.dlpack.from_dlpack(np.arange(3.0))")
val("dl-supported", "[jax.dlpack.is_supported_dtype(np.dtype(t)) for t in "
                    "(np.int8, np.uint64, np.float16, jnp.bfloat16, np.complex64, np.bool_, np.str_)]")
val("dl-err", "jax.dlpack.from_dlpack(3)")
