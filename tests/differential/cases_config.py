"""Differential cases for config flags and their context managers: strict
dtype promotion, transfer guards, tracer-leak checking, key-reuse checking,
high-dynamic-range gumbel, 64-bit narrowing warnings and empty-array reprs."""

CASES = []


def case(name, code):
    CASES.append((name, code))


# -- jax_numpy_dtype_promotion
# JAX names the dtypes in set order, which varies with the hash seed: the
# cases record the names sorted.
_NORM = """def norm(e):
    head, sep, tail = str(e).partition(") have")
    names = sorted(head.partition("(")[2].split(", ")) if sep else []
    return [type(e).__name__, names, tail]
"""
_STRICT = _NORM + ("try:\n    with jax.numpy_dtype_promotion('strict'):\n        result = {}\n"
                   "except Exception as e:\n    result = norm(e)")
for name, expr in {
    "f32+i32": "jnp.ones(3, jnp.float32) + jnp.ones(3, jnp.int32)",
    "f32+f16": "jnp.ones(3, jnp.float32) + jnp.ones(3, jnp.float16)",
    "i8+i16": "jnp.ones(3, jnp.int8) + jnp.ones(3, jnp.int16)",
    "u8+i8": "jnp.ones(3, jnp.uint8) * jnp.ones(3, jnp.int8)",
    "bool+i32": "jnp.ones(3, bool) + jnp.ones(3, jnp.int32)",
    "f32+f32": "jnp.ones(3, jnp.float32) + jnp.ones(3, jnp.float32)",
    "f32+int": "jnp.ones(3, jnp.float32) + 1",
    "f16+float": "jnp.ones(3, jnp.float16) * 2.5",
    "i8+int": "jnp.ones(3, jnp.int8) + 3",
    "c64+float": "jnp.ones(3, jnp.complex64) + 2.0",
    "f32+complex": "jnp.ones(3, jnp.float32) + 2j",
    "int+float": "jnp.add(1, 2.5)",
    "weak+f32": "jnp.asarray(1.0) + jnp.ones(2, jnp.float32)",
    "np-f64+f32": "jnp.ones(3, jnp.float32) + np.float64(1)",
    "result_type": "jnp.result_type(jnp.float32, jnp.int32)",
    "result_type-same": "jnp.result_type(jnp.float32, jnp.float32)",
    "promote_types": "jnp.promote_types('float32', 'float16')",
    "promote_types-int": "jnp.promote_types('int8', int)",
    "jit": "jax.jit(lambda a, b: a * b)(jnp.ones(2, jnp.int32), jnp.ones(2, jnp.float32))",
}.items():
    case(f"strict-{name}", _STRICT.format(expr))
case("strict-int32+float", _NORM + "x = jnp.ones(3, jnp.int32)\ntry:\n"
     "    with jax.numpy_dtype_promotion('strict'):\n        result = x + 1.0\n"
     "except Exception as e:\n    result = norm(e)")
case("strict-after-standard", _NORM + "x = jnp.ones(3, jnp.int32)\ny = x * 1.0\ntry:\n"
     "    with jax.numpy_dtype_promotion('strict'):\n        result = x * 1.0\n"
     "except Exception as e:\n    result = norm(e)")
case("standard-after-strict", "x = jnp.ones(3, jnp.int8)\n"
     "with jax.numpy_dtype_promotion('strict'):\n    y = x * 2\nresult = x * 2.0")
case("strict-restored", "with jax.numpy_dtype_promotion('strict'):\n    pass\n"
     "result = jnp.ones(2, jnp.float32) + jnp.ones(2, jnp.int32)")
case("promotion-flag", "result = jax.config.jax_numpy_dtype_promotion")
case("promotion-update", "jax.config.update('jax_numpy_dtype_promotion', 'strict')\n"
     "try:\n    result = jax.config.jax_numpy_dtype_promotion\nfinally:\n"
     "    jax.config.update('jax_numpy_dtype_promotion', 'standard')")
case("promotion-bad", "jax.config.update('jax_numpy_dtype_promotion', 'loose')")

# -- default_device
case("default-device", "with jax.default_device(jax.devices('cpu')[0]):\n"
     "    result = [jnp.ones(2).device, jax.jit(lambda x: x + 1)(1.0).device, "
     "jax.device_put(np.ones(2)).device]")
case("default-device-name", "with jax.default_device('cpu'):\n"
     "    result = [jax.config.jax_default_device, jnp.arange(3).device]")
case("default-device-values", "with jax.default_device(jax.devices('cpu')[0]):\n"
     "    result = jnp.arange(4.0) * 2")
case("default-device-bad", "with jax.default_device('foo'):\n    result = jnp.ones(2)")
case("default-device-bad-type", "jax.config.update('jax_default_device', 3)")
case("default-device-flag", "result = jax.config.jax_default_device")

# -- transfer guards
for level in ("disallow", "disallow_explicit", "allow", "log"):
    for name, expr in {
        "jnp.array": "jnp.array([1.0, 2.0])",
        "jnp.ones": "jnp.ones(3)",
        "device_put": "jax.device_put(np.ones(3))",
        "jit-scalar": "jax.jit(lambda a: a + 1)(1.0)",
        "jit-numpy": "jax.jit(lambda a: a + 1)(np.ones(2))",
        "jit-array": "jax.jit(lambda a: a + 1)(x)",
        "add-numpy": "x + np.ones(3)",
        "add-scalar": "x * 3",
        "asarray": "np.asarray(x)",
        "float": "float(jnp.sum(x))",
        "tolist": "x.tolist()",
        "device_get": "jax.device_get(x)",
        "repr": "repr(x)",
    }.items():
        case(f"guard-{level}-{name}", f"x = jnp.arange(3.0)\nwith jax.transfer_guard('{level}'):"
             f"\n    result = {expr}")
case("guard-h2d-disallow", "x = jnp.arange(3.0)\n"
     "with jax.transfer_guard_host_to_device('disallow'):\n    result = x + np.ones(3)")
case("guard-h2d-explicit", "with jax.transfer_guard_host_to_device('disallow_explicit'):\n"
     "    result = jax.device_put(np.ones(3))")
case("guard-d2h-disallow", "x = jnp.arange(3.0)\n"
     "with jax.transfer_guard_device_to_host('disallow'):\n    result = np.asarray(x)")
case("guard-d2d-disallow", "with jax.transfer_guard_device_to_device('disallow'):\n"
     "    result = jnp.ones(2) + 1")
case("guard-global-flag", "jax.config.update('jax_transfer_guard', 'disallow')\n"
     "try:\n    result = jnp.ones(2)\nfinally:\n    jax.config.update('jax_transfer_guard', None)")
case("guard-cached-scalar", "x = jnp.arange(3.0)\ny = x * 7\n"
     "with jax.transfer_guard('disallow'):\n    result = x * 7")
case("guard-disallow-index", "x = jnp.arange(3.0)\nwith jax.transfer_guard('disallow'):\n"
     "    result = float(x[0])")
case("guard-restored", "with jax.transfer_guard('disallow'):\n    pass\nresult = jnp.ones(2) + 2")
case("guard-bad", "jax.config.update('jax_transfer_guard', 'never')")
case("guard-flags", "result = [jax.config.jax_transfer_guard, "
     "jax.config.jax_transfer_guard_host_to_device]")

# -- tracer leaks
_LEAK = """store = []
def f(x):
    store.append(x)
    return x + 1
{}"""
case("leak-jit", _LEAK.format("with jax.checking_leaks():\n    result = jax.jit(f)(1.0)"))
case("leak-make_jaxpr", _LEAK.format("with jax.checking_leaks():\n"
                                     "    result = jax.make_jaxpr(f)(1.0)"))
case("leak-flag", _LEAK.format("with jax.check_tracer_leaks(True):\n"
                               "    result = jax.jit(f)(jnp.ones(2))"))
case("leak-off", _LEAK.format("result = jax.jit(f)(2.0)"))
case("leak-none", "with jax.checking_leaks():\n"
     "    result = jax.jit(lambda x: jnp.sin(x) * 2)(1.0)")
case("leak-none-grad", "with jax.checking_leaks():\n"
     "    result = jax.grad(lambda x: jax.jit(jnp.sin)(x) * 2)(1.0)")
case("leak-nested", "store = []\ndef inner(y):\n    store.append(y)\n    return y * 2\n"
     "with jax.checking_leaks():\n    result = jax.jit(lambda x: jax.jit(inner)(x) + 1)(1.0)")
case("leak-attribute", "class Box:\n    pass\nbox = Box()\ndef f(x):\n    box.v = x * 2\n"
     "    return x\nwith jax.checking_leaks():\n    result = jax.jit(f)(1.0)")
case("leak-none-custom-vjp", """@jax.custom_vjp
def h(x, y):
    return x * y
h.defvjp(lambda x, y: (h(x, y), (x, y)), lambda r, g: (g * r[1], g * r[0]))
with jax.checking_leaks():
    result = jax.jit(jax.grad(h))(1.0, 2.0)""")
case("leak-none-cond-closure", "with jax.checking_leaks():\n    result = jax.jit("
     "lambda x: jax.lax.cond(x > 0, lambda: x, lambda: -x))(2.0)")
case("leak-none-scan", "with jax.checking_leaks():\n    result = jax.jit(lambda x: "
     "jax.lax.scan(lambda c, y: (c + y * x, c), 0.0, jnp.arange(3.0))[0])(2.0)")
case("leak-vmap", _LEAK.format("with jax.checking_leaks():\n"
                               "    result = jax.vmap(f)(jnp.ones(2))"))
case("leak-flag-value", "result = jax.config.jax_check_tracer_leaks")

# -- key reuse
_KR = "with jax.debug_key_reuse(True):\n"
for name, body in {
    "eager-twice": "k = jax.random.key(0)\n    jax.random.normal(k)\n"
                   "    result = jax.random.uniform(k)",
    "eager-once": "k = jax.random.key(0)\n    result = jax.random.normal(k, (2,))",
    "split-twice": "k = jax.random.key(1)\n    jax.random.split(k)\n"
                   "    result = jax.random.split(k)",
    "split-then-sample": "k = jax.random.key(1)\n    jax.random.split(k)\n"
                         "    result = jax.random.bernoulli(k)",
    "subkeys": "a, b = jax.random.split(jax.random.key(2))\n    jax.random.normal(a)\n"
               "    result = jax.random.normal(b)",
    "subkey-again": "a, b = jax.random.split(jax.random.key(2))\n    jax.random.normal(a)\n"
                    "    result = jax.random.randint(a, (), 0, 4)",
    "in-jit": "result = jax.jit(lambda k: jax.random.normal(k) + jax.random.normal(k))"
              "(jax.random.key(3))",
    "in-jit-split": "def f(k):\n        a, b = jax.random.split(k)\n"
                    "        return jax.random.normal(a) + jax.random.normal(b)\n"
                    "    result = jax.jit(f)(jax.random.key(3))",
    "jit-twice": "g = jax.jit(lambda k: jax.random.normal(k))\n    k = jax.random.key(4)\n"
                 "    g(k)\n    result = g(k)",
    "jit-no-consume": "g = jax.jit(lambda k: jax.random.key_data(k))\n    k = jax.random.key(4)\n"
                      "    g(k)\n    result = g(k)",
    "raw-key": "k = jax.random.PRNGKey(5)\n    jax.random.normal(k)\n"
               "    result = jax.random.normal(k)",
    "fold_in": "k = jax.random.key(6)\n    jax.random.fold_in(k, 1)\n"
               "    result = jax.random.fold_in(k, 2)",
    "clone": "k = jax.random.key(7)\n    jax.random.normal(jax.random.clone(k))\n"
             "    result = jax.random.normal(k)",
    "clone-twice": "k = jax.random.key(7)\n    jax.random.normal(jax.random.clone(k))\n"
                   "    jax.random.normal(k)\n    result = jax.random.normal(k)",
    "vmap": "result = jax.vmap(jax.random.normal)(jax.random.split(jax.random.key(8), 3))",
    "grad": "result = jax.grad(lambda x, k: x * jax.random.normal(k) + x * "
            "jax.random.normal(k))(1.0, jax.random.key(9))",
}.items():
    case(f"keyreuse-{name}", _KR + "    " + body)
case("keyreuse-off", "k = jax.random.key(0)\njax.random.normal(k)\nresult = jax.random.normal(k)")
case("keyreuse-flag", "result = jax.config.jax_debug_key_reuse")

# -- jax_high_dynamic_range_gumbel
_HDR = ("jax.config.update('jax_high_dynamic_range_gumbel', True)\ntry:\n    result = {}\n"
        "finally:\n    jax.config.update('jax_high_dynamic_range_gumbel', False)")
case("hdr-gumbel", _HDR.format("jax.random.gumbel(jax.random.key(0), (4,))"))
case("hdr-gumbel-low", _HDR.format("jax.random.gumbel(jax.random.key(0), (4,), mode='low')"))
case("hdr-categorical", _HDR.format("jax.random.categorical(jax.random.key(1), "
                                    "jnp.zeros((3, 5)))"))
case("hdr-choice", _HDR.format("jax.random.choice(jax.random.key(2), 6, (3,), replace=False)"))
case("hdr-off-gumbel", "result = jax.random.gumbel(jax.random.key(0), (4,))")
case("hdr-flag", "result = jax.config.jax_high_dynamic_range_gumbel")

# -- 64-bit narrowing warnings (the sequence of messages)
_WARN = ("import warnings\nwith warnings.catch_warnings(record=True) as w:\n"
         "    warnings.simplefilter('always')\n    {}\nresult = [str(x.message) for x in w]")
for name, expr in {
    "float64": "jnp.float64(1.5)", "uint64": "jnp.uint64(5)", "int64": "jnp.int64(5)",
    "convert": "jax.lax.convert_element_type(jnp.ones(3), jnp.float64)",
    "sum": "jnp.sum(jnp.ones(3), dtype=jnp.float64)",
    "array": "jnp.array([1, 2], dtype=jnp.float64)",
    "asarray": "jnp.asarray([1, 2], dtype=jnp.int64)",
    "zeros": "jnp.zeros(2, dtype=jnp.float64)",
    "astype": "jnp.ones(2).astype(jnp.float64)",
    "float32": "jnp.float32(1.5)",
}.items():
    case(f"warn64-{name}", _WARN.format(expr))

# -- empty array reprs
for name, expr in {
    "int": "jnp.array([], dtype=jnp.int32)", "float": "jnp.zeros((0,))",
    "2d": "jnp.zeros((0, 3))", "2d-trailing": "jnp.zeros((3, 0))",
    "weak": "jnp.zeros((0,), dtype=int) * 1.0", "bool": "jnp.ones((0, 2), bool)",
    "3d": "jnp.zeros((2, 0, 2), jnp.int8)", "asarray": "jnp.asarray([])",
}.items():
    case(f"empty-repr-{name}", f"x = {expr}\nresult = [repr(x), str(x)]")
