"""Differential cases for the engine core: eager values, dtypes and weak
types of elementwise ops, reductions and shape ops; printed jaxprs; reprs;
errors."""

_DTYPES = ["float32", "int32", "bool", "uint8", "float16", "bfloat16"]
_VALUES = {
    "float32": "jnp.array([[-1.5, 0.0, 2.25], [3.0, -4.0, 0.5]], dtype=jnp.float32)",
    "int32": "jnp.array([[-3, 0, 2], [7, -4, 5]], dtype=jnp.int32)",
    "bool": "jnp.array([[True, False, True], [False, False, True]])",
    "uint8": "jnp.array([[3, 0, 2], [250, 4, 5]], dtype=jnp.uint8)",
    "float16": "jnp.array([[-1.5, 0.0, 2.25], [3.0, -4.0, 0.5]], dtype=jnp.float16)",
    "bfloat16": "jnp.array([[-1.5, 0.0, 2.25], [3.0, -4.0, 0.5]], dtype=jnp.bfloat16)",
}
_UNARY = ["jnp.negative", "jnp.abs", "jnp.sign", "jnp.sin", "jnp.cos", "jnp.tanh", "jnp.exp",
          "jnp.log1p", "jnp.sqrt", "jnp.floor", "jnp.ceil", "jnp.square", "jnp.isnan",
          "jnp.isfinite", "jnp.logical_not", "jnp.round", "jnp.arctan", "jnp.expm1"]
_BINARY = ["jnp.add", "jnp.subtract", "jnp.multiply", "jnp.true_divide", "jnp.maximum",
           "jnp.minimum", "jnp.equal", "jnp.less", "jnp.greater_equal", "jnp.floor_divide",
           "jnp.remainder", "jnp.power", "jnp.logical_and"]
_OTHERS = ["1", "2.5", "True", "np.float32(2)", "np.int8(3)", "jnp.array(2.0)",
           "jnp.ones(3, jnp.int32)"]
_REDUCE = ["jnp.sum", "jnp.prod", "jnp.max", "jnp.min", "jnp.mean", "jnp.argmax", "jnp.argmin",
           "jnp.all", "jnp.any", "jnp.var", "jnp.std"]

CASES = []
for dt in _DTYPES:
    v = _VALUES[dt]
    for f in _UNARY:
        CASES.append((f"{f}-{dt}", f"result = {f}({v})"))
    for f in _BINARY:
        CASES.append((f"{f}-{dt}-self", f"x = {v}\nresult = {f}(x, x[::-1])"))
        for o in _OTHERS:
            CASES.append((f"{f}-{dt}-{o}", f"result = {f}({v}, {o})"))
    for f in _REDUCE:
        CASES.append((f"{f}-{dt}-all", f"result = {f}({v})"))
        CASES.append((f"{f}-{dt}-ax0", f"result = {f}({v}, axis=0)"))
        CASES.append((f"{f}-{dt}-ax1", f"result = {f}({v}, axis=-1)"))

_JAXPRS = {
    "mul-add": "lambda x, y: x * 2 + y", "sin-sum": "lambda x: jnp.sum(jnp.sin(x))",
    "transpose-dot": "lambda x: jnp.dot(x, x.T)", "where": "lambda x: jnp.where(x > 0, x, 0)",
    "index": "lambda x: x[0] + x[1:, 2]", "reshape": "lambda x: x.reshape(-1)",
    "mean": "lambda x: x.mean(axis=0)", "astype": "lambda x: x.astype(jnp.int8)",
    "zeros": "lambda x: (jnp.zeros(3), jnp.ones((2, 2)), jnp.arange(5))",
    "linspace": "lambda x: jnp.linspace(0, 1, 5)", "consts": "lambda x: x + np.arange(3.0)[0]",
    "floordiv": "lambda x: x // 2", "mod": "lambda x: x % 3", "pow": "lambda x: x ** 3",
    "matmul": "lambda x: x @ x.T", "argmax": "lambda x: jnp.argmax(x, axis=1)",
    "max": "lambda x: jnp.max(x, axis=0)", "neg-abs": "lambda x: -jnp.abs(x)",
    "identity": "lambda x: (x, x, 1)", "broadcast": "lambda x: x + jnp.ones((4, 2, 3))",
    "expand": "lambda x: jnp.expand_dims(x, 0)", "concat": "lambda x: jnp.concatenate([x, x])",
    "stack": "lambda x: jnp.stack([x, x])", "compare": "lambda x: (x == 1) & (x < 3)",
    "clip": "lambda x: jnp.clip(x, 0, 1)", "squeeze": "lambda x: x[None, :, None].squeeze()",
    "slice-step": "lambda x: x[::-1, ::2]", "many-vars": "lambda x: sum(x * i for i in range(30))",
}
for name, fn in _JAXPRS.items():
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})(jnp.ones((2, 3)))"))
for name, fn in [("weak", "lambda x, y: x * 2 + y"), ("int-float", "lambda x: x + 1.5"),
                 ("nested-jit", "lambda x: jax.jit(lambda y: y + 1)(x) * 2"),
                 ("nested-twice", "lambda x: (lambda g: g(x) + g(x))(jax.jit(lambda y: y * y))")]:
    CASES.append((f"jaxpr-scalar-{name}", f"result = jax.make_jaxpr({fn})(3.0, 2) "
                  if "y:" in fn and "jit" not in fn else f"result = jax.make_jaxpr({fn})(3)"))

_REPRS = ["jnp.arange(5.0)", "jnp.arange(30.0)", "jnp.arange(12).reshape(3, 4)", "jnp.array(3.0)",
          "jnp.float32(3)", "jnp.array(True)", "jnp.zeros((0, 3))", "jnp.ones(3, jnp.bfloat16)",
          "jnp.array([1 + 2j])", "jnp.arange(2000.0)", "jnp.eye(3)", "jnp.int8(-5)",
          "jnp.linspace(0, 1, 7)", "jnp.arange(12.0).reshape(3, 4) * 1000.123"]
for i, r in enumerate(_REPRS):
    CASES.append((f"repr-{i}", f"result = repr({r})"))

_ERRORS = {
    "shape-mismatch": "result = jnp.ones(3) + jnp.ones(4)",
    "lax-dtype": "result = lax.add(jnp.ones(3), jnp.ones(3, jnp.int32))",
    "lax-rank": "result = lax.add(jnp.ones(3), jnp.ones((2, 3)))",
    "sin-int": "result = lax.sin(jnp.ones(3, jnp.int32))",
    "and-float": "result = lax.bitwise_and(1.0, 2.0)",
    "setitem": "x = jnp.ones(3)\nx[0] = 1\nresult = x",
    "bool-trace": "result = jax.jit(lambda x: 1 if x > 0 else 2)(1.0)",
    "int-trace": "result = jax.jit(lambda x: int(x))(1.0)",
    "array-trace": "result = jax.jit(lambda x: np.asarray(x))(1.0)",
    "index-trace": "result = jax.jit(lambda x: list(range(x)))(3)",
    "unhashable-static": "result = jax.jit(lambda x, n: x, static_argnums=1)(1.0, np.array([1]))",
    "too-many-args": "result = jax.jit(lambda x: x)(1.0, 2.0)",
    "oob-index": "result = jnp.arange(3)[5]",
    "reshape-bad": "result = jnp.arange(6).reshape(4, 2)",
    "concat-0d": "result = jnp.concatenate([jnp.array(1.0), jnp.array(2.0)])",
    "sum-list": "result = jnp.sum([1, 2, 3])",
    "deleted": "f = jax.jit(lambda x: x * 2, donate_argnums=0)\nx = jnp.ones(3)\nf(x)\nresult = x + 1",
    "zeros-traced-shape": "result = jax.jit(lambda n: jnp.zeros(n))(3)",
}
for name, code in _ERRORS.items():
    CASES.append((f"error-{name}", code))

_MISC = {
    "jit-weak-out": "result = jax.jit(lambda x: 1)(2.0)",
    "jit-tuple": "result = jax.jit(lambda x, y: (x * y, x + 1.0))(jnp.ones(3), 2.0)[0]",
    "static": "result = jax.jit(lambda x, n: x * n, static_argnums=1)(jnp.ones(2), 3)",
    "static-name": "result = jax.jit(lambda x, n: jnp.ones(n) * x, static_argnames='n')(2.0, n=3)",
    "impure-print": "def f(x):\n    print('traced', x)\n    return x\ng = jax.jit(f)\ng(1.0)\ng(2.0)\nresult = g(jnp.ones(2))",
    "eval-shape": "result = jax.eval_shape(lambda x: x * 2, jnp.ones(3))",
    "device-get": "result = jax.device_get(jnp.arange(3))",
    "devices": "result = jax.devices()",
    "backend": "result = jax.default_backend()",
    "item": "result = jnp.array(2.5).item()",
    "tolist": "result = jnp.arange(3).tolist()",
    "format": "result = f'{jnp.float32(3.5):.2f}'",
    "len": "result = len(jnp.ones((4, 2)))",
    "iter": "result = [x for x in jnp.arange(3)]",
    "neg-index": "result = jnp.arange(10)[-3:]",
    "ellipsis": "result = jnp.ones((2, 3, 4))[..., 1].shape",
    "newaxis": "result = jnp.ones(3)[None, :, None].shape",
    "int-overflow-weak": "result = jnp.uint8(250) + 10",
    "x64-warn": "result = jnp.array([1.0], dtype=jnp.float64)",
    "eye-k": "result = jnp.eye(3, 4, k=1)",
    "arange-float": "result = jnp.arange(0.0, 1.0, 0.25)",
    "mean-int": "result = jnp.mean(jnp.arange(4))",
    "where-1arg": "result = jnp.where(jnp.array([0, 1, 2]) > 0)",
}
for name, code in _MISC.items():
    CASES.append((f"misc-{name}", code))
