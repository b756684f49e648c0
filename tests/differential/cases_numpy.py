"""Differential cases for the jnp/lax surface: printed jaxprs (``jaxpr-*``,
compared as text) and eager results (``val-*``, compared on values, dtype,
shape and weak type) of creation, elementwise, reduction, shape, product and
indexing functions. Functions still being built elsewhere (gather/scatter
indexing, sorting, control flow, linalg) are left out."""

_F = "jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)"
_I = "jnp.arange(6, dtype=jnp.int32).reshape(2, 3)"
_B = "jnp.array([[True, False, True], [False, True, True]])"
_U = "jnp.arange(6, dtype=jnp.uint8).reshape(2, 3)"
_H = "jnp.arange(6, dtype=jnp.float16).reshape(2, 3)"
_BF = "jnp.arange(6, dtype=jnp.bfloat16).reshape(2, 3)"
_C = "(jnp.arange(6.0).reshape(2, 3) + 1j)"

CASES = []


def both(name, fn, *args):
    """A jaxpr case and an eager-value case of ``fn(*args)``."""
    a = ", ".join(args)
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})({a})"))
    CASES.append((f"val-{name}", f"result = ({fn})({a})"))


def jaxpr(name, fn, *args):
    CASES.append((f"jaxpr-{name}", f"result = jax.make_jaxpr({fn})({', '.join(args)})"))


def val(name, code):
    CASES.append((f"val-{name}", f"result = {code}"))


# Creation, inside a trace (constants) and eagerly.
_CREATE = {
    "zeros": "jnp.zeros((2, 3))", "zeros-int": "jnp.zeros(3, jnp.int32)",
    "ones-bool": "jnp.ones((2,), bool)", "full": "jnp.full((2, 2), 7)",
    "full-float": "jnp.full(3, 1.5, dtype=jnp.float16)", "eye": "jnp.eye(3)",
    "eye-k": "jnp.eye(2, 4, k=-1, dtype=jnp.int32)", "identity": "jnp.identity(2)",
    "arange": "jnp.arange(5)", "arange-step": "jnp.arange(1, 10, 3)",
    "arange-float": "jnp.arange(0.5, 3.0, 0.5)", "linspace": "jnp.linspace(0.0, 1.0, 5)",
    "linspace-noend": "jnp.linspace(2, 4, 4, endpoint=False)",
    "linspace-int": "jnp.linspace(0, 10, 6, dtype=jnp.int32)",
    "array-list": "jnp.array([1, 2, 3])", "array-nested": "jnp.array([[1.0, 2.0], [3.0, 4.0]])",
    "array-mixed": "jnp.array([1, 2.5, True])", "array-dtype": "jnp.array([1, 2], dtype=jnp.uint8)",
    "asarray-np": "jnp.asarray(np.arange(4, dtype=np.int16))", "array-scalar": "jnp.array(3)",
    "empty": "jnp.empty((2, 1))",
}
for name, code in _CREATE.items():
    jaxpr(f"create-{name}", f"lambda x: {code}", "1.0")
    val(f"create-{name}", code)
_LIKE = ["jnp.zeros_like", "jnp.ones_like", "lambda x: jnp.full_like(x, 3)",
         "lambda x: jnp.zeros_like(x, dtype=jnp.int8)", "lambda x: jnp.full_like(x, 2.5, shape=(4,))",
         "lambda x: jnp.array(x, copy=True)", "lambda x: jnp.asarray(x)",
         "lambda x: jnp.array(x, dtype=jnp.int32)", "lambda x: jnp.array([x, x])",
         "lambda x: jnp.array([x, 1.0])", "lambda x: jnp.empty_like(x)"]
for i, fn in enumerate(_LIKE):
    both(f"like-{i}", fn, _F)
both("like-weak", "lambda x: jnp.zeros_like(x)", "2.0")
both("like-array-weak", "lambda x: jnp.array(x)", "2.0")

# Elementwise: every dtype kind, Python scalars, mixed dtypes.
_UN = ["jnp.negative", "jnp.abs", "jnp.sign", "jnp.exp", "jnp.log", "jnp.sqrt", "jnp.square",
       "jnp.reciprocal", "jnp.floor", "jnp.round", "jnp.isnan", "jnp.isinf", "jnp.logical_not",
       "jnp.invert", "jnp.exp2", "jnp.cbrt", "jnp.arcsinh", "jnp.real", "jnp.imag", "jnp.positive"]
_KINDS = {"f32": _F, "i32": _I, "bool": _B, "u8": _U, "f16": _H, "c64": _C}
for f in _UN:
    for k in ("f32", "i32", "bool", "c64"):
        jaxpr(f"un-{f[4:]}-{k}", f, _KINDS[k])
    val(f"un-{f[4:]}-i32", f"{f}({_I})")
val("un-sqrt-bf16", f"jnp.sqrt({_BF})")
val("un-square-u8", f"jnp.square({_U})")
val("un-exp-f16", f"jnp.exp({_H})")
_BIN = ["jnp.add", "jnp.subtract", "jnp.multiply", "jnp.divide", "jnp.floor_divide",
        "jnp.remainder", "jnp.power", "jnp.maximum", "jnp.minimum", "jnp.arctan2", "jnp.equal",
        "jnp.not_equal", "jnp.greater", "jnp.less_equal", "jnp.logical_or", "jnp.logical_xor",
        "jnp.bitwise_and", "jnp.bitwise_xor", "jnp.left_shift", "jnp.right_shift", "jnp.fmod",
        "jnp.float_power", "jnp.true_divide", "jnp.mod"]
_OTHER = {"int": "2", "float": "1.5", "bool": "True", "f16": "jnp.float16(2)",
          "i8": "jnp.int8(3)", "self": None}
for f in _BIN:
    for k, others in (("f32", ("int", "float", "self")), ("i32", ("int", "float", "self")),
                      ("u8", ("int",)), ("bool", ("self",))):
        for o in others:
            other = "x" if _OTHER[o] is None else _OTHER[o]
            jaxpr(f"bin-{f[4:]}-{k}-{o}", f"lambda x: {f}(x, {other})", _KINDS[k])
    val(f"bin-{f[4:]}-i32-int", f"{f}({_I}, 2)")
    val(f"bin-{f[4:]}-f32-i32", f"{f}({_F}, {_I} + 1)")
for o in ("f16", "i8", "bool"):
    jaxpr(f"mix-f32-{o}", f"lambda x: x * {_OTHER[o]}", _F)
    jaxpr(f"mix-i32-{o}", f"lambda x: x + {_OTHER[o]}", _I)
    val(f"mix-u8-{o}", f"{_U} + {_OTHER[o]}")
jaxpr("mix-weak-weak", "lambda x, y: x * y + 1", "2.0", "3")
jaxpr("mix-int-weakfloat", "lambda x, y: x / y", "2", "3.0")
jaxpr("mix-u8-i8", "lambda x, y: x + y", _U, "jnp.int8(1)")
jaxpr("mix-f16-bf16", "lambda x, y: x + y", _H, _BF)
jaxpr("mix-c64-f32", "lambda x, y: x * y", _C, _F)
val("mix-f16-bf16", f"{_H} + {_BF}")
val("mix-u8-i8neg", f"{_U} + jnp.int8(-1)")

# Reductions.
_RED = ["jnp.sum", "jnp.prod", "jnp.max", "jnp.min", "jnp.mean", "jnp.var", "jnp.std",
        "jnp.all", "jnp.any", "jnp.argmax", "jnp.argmin", "jnp.count_nonzero", "jnp.amax"]
for f in _RED:
    for k in ("f32", "i32", "bool"):
        jaxpr(f"red-{f[4:]}-{k}", f, _KINDS[k])
    jaxpr(f"red-{f[4:]}-ax0", f"lambda x: {f}(x, axis=0)", _F)
    jaxpr(f"red-{f[4:]}-ax-neg", f"lambda x: {f}(x, axis=-1)", _I)
    val(f"red-{f[4:]}-ax1", f"{f}({_F}, axis=1)")
    val(f"red-{f[4:]}-i32", f"{f}({_I})")
for f in ("jnp.sum", "jnp.prod", "jnp.max", "jnp.min", "jnp.mean", "jnp.var", "jnp.std",
          "jnp.all", "jnp.any"):
    jaxpr(f"red-{f[4:]}-keepdims", f"lambda x: {f}(x, axis=1, keepdims=True)", _F)
    val(f"red-{f[4:]}-keepdims", f"{f}({_I}, axis=0, keepdims=True)")
    jaxpr(f"red-{f[4:]}-tuple-axis", f"lambda x: {f}(x, axis=(0, 1))", _F)
for f in ("jnp.sum", "jnp.prod", "jnp.mean", "jnp.var", "jnp.std"):
    jaxpr(f"red-{f[4:]}-dtype", f"lambda x: {f}(x, dtype=jnp.float16)", _I)
    val(f"red-{f[4:]}-dtype", f"{f}({_I}, axis=0, dtype=jnp.float32)")
for f in ("jnp.sum", "jnp.prod", "jnp.max", "jnp.min", "jnp.mean", "jnp.all", "jnp.any"):
    init = ", initial=0" if f in ("jnp.max", "jnp.min") else ""
    jaxpr(f"red-{f[4:]}-where", f"lambda x: {f}(x, where=x > 1{init})", _F)
    val(f"red-{f[4:]}-where", f"{f}({_F}, axis=0, where={_B}{init})")
jaxpr("red-sum-u8", "jnp.sum", _U)
jaxpr("red-sum-f16", "jnp.sum", _H)
jaxpr("red-mean-f16", "jnp.mean", _H)
jaxpr("red-var-ddof", "lambda x: jnp.var(x, ddof=1)", _F)
jaxpr("red-std-ddof-axis", "lambda x: jnp.std(x, axis=0, ddof=1)", _F)
jaxpr("red-var-c64", "jnp.var", _C)
jaxpr("red-sum-initial", "lambda x: jnp.sum(x, initial=2.0)", _F)
jaxpr("red-argmax-keepdims", "lambda x: jnp.argmax(x, axis=0, keepdims=True)", _F)
val("red-var-ddof", f"jnp.var({_F}, ddof=1)")
val("red-sum-weak", "jnp.sum(2.0)")
val("red-mean-weak", "jnp.mean(3)")
val("red-method-sum", f"{_F}.sum(axis=0)")
val("red-method-mean", f"{_I}.mean()")

# Shape ops.
_SHAPE = {
    "reshape": "lambda x: jnp.reshape(x, (3, 2))", "reshape-neg": "lambda x: x.reshape(-1, 2)",
    "reshape-F": "lambda x: jnp.reshape(x, (3, 2), order='F')",
    "ravel": "jnp.ravel", "transpose": "jnp.transpose", "T": "lambda x: x.T",
    "swapaxes": "lambda x: jnp.swapaxes(x, 0, 1)", "moveaxis": "lambda x: jnp.moveaxis(x[None], 0, -1)",
    "expand": "lambda x: jnp.expand_dims(x, (0, 2))", "squeeze": "lambda x: jnp.squeeze(x[:, :1])",
    "squeeze-axis": "lambda x: jnp.squeeze(x[None], axis=0)",
    "broadcast_to": "lambda x: jnp.broadcast_to(x, (4, 2, 3))",
    "broadcast_arrays": "lambda x: jnp.broadcast_arrays(x, x[0])",
    "concat": "lambda x: jnp.concatenate([x, x], axis=1)",
    "concat-none": "lambda x: jnp.concatenate([x, x], axis=None)",
    "stack": "lambda x: jnp.stack([x, x], axis=-1)", "hstack": "lambda x: jnp.hstack([x, x])",
    "vstack": "lambda x: jnp.vstack([x[0], x[1]])", "atleast_2d": "lambda x: jnp.atleast_2d(x[0])",
    "atleast_1d": "lambda x: jnp.atleast_1d(x[0, 0])", "matrix_transpose": "jnp.matrix_transpose",
    "permute": "lambda x: jnp.permute_dims(x[None], (2, 0, 1))", "flatten": "lambda x: x.flatten()",
    "astype": "lambda x: x.astype(jnp.int8)", "astype-same": "lambda x: x.astype(x.dtype)",
    "astype-bool": "lambda x: jnp.astype(x, bool)",
}
for name, fn in _SHAPE.items():
    both(f"shape-{name}", fn, _F)
both("shape-stack-mixed", "lambda x, y: jnp.stack([x, y])", _F, _I)
both("shape-concat-mixed", "lambda x, y: jnp.concatenate([x, y])", _I, _B)

# Products.
_V3 = "jnp.arange(3.0)"
_M23 = _F
_M34 = "jnp.arange(12.0).reshape(3, 4)"
_B234 = "jnp.arange(24.0).reshape(2, 3, 4)"
_B245 = "jnp.arange(40.0).reshape(2, 4, 5)"
_PROD = {
    "dot-vv": ("jnp.dot", _V3, _V3), "dot-mv": ("jnp.dot", _M23, _V3),
    "dot-vm": ("jnp.dot", _V3, _M34), "dot-mm": ("jnp.dot", _M23, _M34),
    "dot-scalar": ("jnp.dot", _M23, "2.0"), "dot-3d": ("jnp.dot", _B234, "jnp.arange(8.0).reshape(4, 2)"),
    "dot-int": ("jnp.dot", _I, "jnp.arange(3, dtype=jnp.int32)"),
    "dot-mixed": ("jnp.dot", _I, _V3),
    "matmul-vv": ("jnp.matmul", _V3, _V3), "matmul-mv": ("jnp.matmul", _M23, _V3),
    "matmul-vm": ("jnp.matmul", _V3, _M34), "matmul-mm": ("jnp.matmul", _M23, _M34),
    "matmul-batched": ("jnp.matmul", _B234, _B245),
    "matmul-bcast": ("jnp.matmul", _B234, "jnp.arange(20.0).reshape(4, 5)"),
    "matmul-bcast-l": ("jnp.matmul", _M34, _B245),
    "matmul-bv": ("jnp.matmul", _B234, "jnp.arange(4.0)"),
    "matmul-vb": ("jnp.matmul", "jnp.arange(4.0)", _B245),
    "matmul-op": ("lambda a, b: a @ b", _M23, _M34),
    "vdot": ("jnp.vdot", _V3, _V3), "vdot-2d": ("jnp.vdot", _M23, _M23),
    "vdot-c": ("jnp.vdot", "jnp.arange(3.0) + 1j", "jnp.arange(3.0) - 2j"),
    "inner-vv": ("jnp.inner", _V3, _V3), "inner-mm": ("jnp.inner", _M23, _M23),
    "inner-mv": ("jnp.inner", _M23, _V3),
    "outer": ("jnp.outer", _V3, "jnp.arange(4.0)"), "outer-2d": ("jnp.outer", _M23, _V3),
    "outer-int": ("jnp.outer", "jnp.arange(3)", "jnp.arange(2)"),
    "tensordot-1": ("lambda a, b: jnp.tensordot(a, b, axes=1)", _M23, _M34),
    "tensordot-0": ("lambda a, b: jnp.tensordot(a, b, axes=0)", _V3, _V3),
    "tensordot-2": ("lambda a, b: jnp.tensordot(a, b, axes=2)", _B234, "jnp.arange(12.0).reshape(3, 4)"),
    "tensordot-pair": ("lambda a, b: jnp.tensordot(a, b, axes=([1], [0]))", _M23, _M34),
    "tensordot-pairs": ("lambda a, b: jnp.tensordot(a, b, axes=([0, 2], [0, 1]))", _B234, _B245),
}
for i, (sa, sb) in enumerate([((1, 3, 4), (2, 4, 5)), ((1, 1, 3, 4), (1, 4, 5)),
                              ((2, 1, 3, 4), (1, 2, 4, 5)), ((1, 2, 3, 4), (3, 1, 4, 5)),
                              ((1, 3, 4), (4,)), ((1, 2, 1, 3, 4), (3, 1, 1, 4, 5)),
                              ((3, 3, 4), (1, 4, 5))]):
    _PROD[f"matmul-bcast{i}"] = ("jnp.matmul", f"jnp.ones({sa}, jnp.int8)", f"jnp.ones({sb})")
_PROD.update({"outer-scalar": ("jnp.outer", "jnp.arange(3)", "2.0"),
              "inner-mixed": ("jnp.inner", _I, "jnp.ones((4, 3))"),
              "inner-scalar": ("jnp.inner", "2.0", _V3),
              "vdot-c2d": ("jnp.vdot", "jnp.ones((2, 3)) + 1j", _M23),
              "dot-weak": ("jnp.dot", _I, "2.0"), "dot-weak2": ("jnp.dot", "2.0", "3")})
for name, (fn, a, b) in _PROD.items():
    both(f"prod-{name}", fn, a, b)
both("prod-precision", "lambda a, b: jnp.dot(a, b, precision=lax.Precision.HIGHEST)", _M23, _M34)
both("prod-pref", "lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32)",
     _I, "jnp.arange(12, dtype=jnp.int32).reshape(3, 4)")

# Basic indexing (static and traced integer indices, slices, None, Ellipsis).
_IDX = {
    "int": "x[1]", "neg-int": "x[-1]", "pair": "x[1, 2]", "neg-pair": "x[-2, -1]",
    "slice": "x[:, 1:3]", "neg-slice": "x[:, -3:-1]", "step": "x[::2]", "neg-step": "x[::-1]",
    "neg-step2": "x[:, ::-2]", "neg-step-bounds": "x[3:0:-2]", "empty": "x[2:1]",
    "none": "x[None]", "ellipsis": "x[..., 1]", "mixed": "x[1, None, ::2]",
    "full": "x[:]", "ellipsis-none": "x[..., None]", "out-of-range-slice": "x[:, 2:100]",
}
for name, expr in _IDX.items():
    both(f"idx-{name}", f"lambda x: {expr}", "jnp.arange(20.0).reshape(4, 5)")
for name, expr in {"traced": "x[i]", "traced-pair": "x[i, i]", "traced-slice": "x[i, 1:]",
                   "traced-col": "x[:, i]"}.items():
    both(f"idx-{name}", f"lambda x, i: {expr}", "jnp.arange(20.0).reshape(4, 5)", "2")
    both(f"idx-{name}-neg", f"lambda x, i: {expr}", "jnp.arange(20.0).reshape(4, 5)", "-1")
both("idx-traced-u8", "lambda x, i: x[i]", "jnp.arange(5.0)", "jnp.uint8(1)")
both("idx-jit-traced", "jax.jit(lambda x, i: x[i])", "jnp.arange(5.0)", "-2")
both("idx-1d-neg", "lambda x: x[-2:]", "jnp.arange(5)")

# lax.dynamic_slice / dynamic_update_slice, static and traced starts.
both("dyn-slice", "lambda x: lax.dynamic_slice(x, (1, 2), (2, 2))", "jnp.arange(20.0).reshape(4, 5)")
both("dyn-slice-neg", "lambda x: lax.dynamic_slice(x, (-1, 0), (1, 3))", "jnp.arange(20.0).reshape(4, 5)")
both("dyn-slice-traced", "lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 2))",
     "jnp.arange(20.0).reshape(4, 5)", "1")
both("dyn-slice-traced-neg", "lambda x, i: lax.dynamic_slice(x, (i, i), (2, 2))",
     "jnp.arange(20.0).reshape(4, 5)", "-3")
both("dyn-slice-clamp", "lambda x: lax.dynamic_slice(x, (3,), (2,))", "jnp.arange(4.0)")
both("dyn-slice-in-dim", "lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=1)",
     "jnp.arange(20.0).reshape(4, 5)", "-2")
both("dyn-update", "lambda x, u: lax.dynamic_update_slice(x, u, (1, -1))",
     "jnp.zeros((3, 4))", "jnp.ones((1, 2))")
both("dyn-update-traced", "lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 0))",
     "jnp.zeros((3, 4))", "jnp.ones((1, 2))", "-1")

# where / clip / select / misc.
both("where-3", "lambda x: jnp.where(x > 2, x, -x)", _F)
both("where-scalars", "lambda x: jnp.where(x > 2, 1, 0)", _F)
both("where-mixed", "lambda x, y: jnp.where(x > 2, x, y)", _I, _F)
both("where-weak", "lambda x: jnp.where(x, 1.0, 2)", _B)
both("clip", "lambda x: jnp.clip(x, 1, 4)", _F)
both("clip-int", "lambda x: jnp.clip(x, 1.5)", _I)
both("clip-max", "lambda x: jnp.clip(x, max=3)", _I)
both("clip-arrays", "lambda x: jnp.clip(x, x[0], 4.0)", _F)
both("lax-clamp", "lambda x: lax.clamp(1.0, x, 3.0)", _F)
both("lax-select", "lambda x: lax.select(x > 1, x, x * 2)", _F)
both("lax-convert", "lambda x: lax.convert_element_type(x, jnp.int16)", _F)
both("lax-pad", "lambda x: lax.pad(x, 0.0, [(1, 0, 1), (0, 2, 0)])", _F)
both("lax-rev", "lambda x: lax.rev(x, (0,))", _F)
both("lax-iota", "lambda x: lax.broadcasted_iota(jnp.int32, (2, 3), 1) + x", _I)
both("lax-integer-pow", "lambda x: lax.integer_pow(x, -2)", _F)
both("lax-reduce-max", "lambda x: lax.reduce_max(x, (0,))", _F)
both("lax-slice", "lambda x: lax.slice(x, (0, 1), (2, 3), (1, 2))", _F)
both("lax-dot-general", "lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ())))", _F, _M34)
both("divmod", "lambda x: jnp.divmod(x, 4)", _I)
both("isscalar-ndim", "lambda x: x + jnp.ndim(x) + jnp.size(x)", _F)

# jit-wrapped helpers inside traces: the pjit equation and outer naming.
both("jit-identity", "lambda x: jax.jit(lambda y: y)(x)", _F)
both("jit-passthrough", "lambda x, y: jax.jit(lambda a, b: (a + b, b, a))(x, y)", _F, _F)
both("jit-passthrough2", "lambda x: jax.jit(lambda a: (a, a * 2))(x)", _F)
both("jit-passthrough3", "lambda x, y: jax.jit(lambda a, b: (b, a * 2))(x, y)", _F, _I)
both("jit-nested", "lambda x: jax.jit(lambda a: jax.jit(jnp.sum)(a) + 1)(x)", _F)
both("jit-static", "lambda x: jax.jit(lambda a, n: a * n, static_argnums=1)(x, 3)", _F)
both("jit-weak", "lambda x: jax.jit(lambda a: a + 1)(x)", "2")
both("jit-jnp-fn", "lambda x: jax.jit(jnp.var)(x) + jax.jit(jnp.dot)(x, x.T)", _F)
both("jit-pytree", "lambda x: jax.jit(lambda d: d['a'] * d['b'])({'a': x, 'b': 2.0})", _F)
both("jit-literal-arg", "lambda x: jax.jit(lambda a, b: (a, a * b))(x, 1.0)", _F)
both("jit-literal-out", "lambda x: jax.jit(lambda a, b: (a * b, a * b, b))(x, 2)", _F)
both("jit-dropped-out", "lambda x: jax.jit(lambda a: (a * 2, a * 2))(x)[1]", _F)
both("jit-repeated-out", "lambda x: jax.jit(lambda a: (a * 2,) * 2 + (a,))(x)", _F)
both("jit-repeated-arg", "lambda x: jax.jit(lambda a, b: a - b)(x, x)", _F)

# Reductions of weak scalars, half floats with initial/keepdims, masks with initial.
for f in ("jnp.sum", "jnp.max", "jnp.prod", "jnp.all", "jnp.mean", "jnp.argmax", "jnp.var",
          "jnp.count_nonzero"):
    both(f"red-weak-{f[4:]}", f, "2.0")
both("red-sum-int-weak", "jnp.sum", "3")
both("red-sum-bool-scalar", "jnp.sum", "True")
both("red-sum-f16-initial", "lambda x: jnp.sum(x, axis=0, keepdims=True, initial=1)", _H)
both("red-sum-where-initial", "lambda x: jnp.sum(x, initial=2, where=x > 0)", _I)
both("red-max-keepdims-initial", "lambda x: jnp.max(x, axis=0, keepdims=True, initial=3)", _F)
both("red-argmax-keepdims-all", "lambda x: jnp.argmax(x, keepdims=True)", _F)
both("red-var-where", "lambda x: jnp.var(x, where=x > 0)", _F)
both("red-mean-where-keepdims", "lambda x: jnp.mean(x, where=x > 0, keepdims=True, axis=1)", _F)
both("red-sum-bool-dtype", "lambda x: jnp.sum(x, dtype=jnp.float32)", _B)
both("red-sum-i8", "jnp.sum", "jnp.ones((2, 3), jnp.int8)")
both("red-prod-f16", "jnp.prod", _H)
both("red-var-f16", "jnp.var", _H)
both("red-mean-dtype-f16", "lambda x: jnp.mean(x, dtype=jnp.float16)", _F)
both("red-sum-dtype-f16", "lambda x: jnp.sum(x, dtype=jnp.float16)", _H)

# More traced-index forms: static ints and slices beside a traced one, None, unsigned.
for name, expr in {"static-traced": "x[1, i]", "neg-static-traced": "x[-1, i]",
                   "none-traced": "x[None, i]", "ellipsis-traced": "x[..., i]",
                   "traced-clamped-slice": "x[i, 7:]", "strided": "x[1:4:2, :3:2]"}.items():
    both(f"idx-{name}", f"lambda x, i: {expr}", "jnp.arange(20.0).reshape(4, 5)", "2")
both("idx-traced-u8-2d", "lambda x, i: x[i]", "jnp.arange(20).reshape(4, 5)", "jnp.uint8(2)")
both("idx-traced-i8-2d", "lambda x, i: x[i]", "jnp.arange(20).reshape(4, 5)", "jnp.int8(-2)")
both("dyn-slice-i8", "lambda x, i: lax.dynamic_slice(x, (i,), (2,))", "jnp.arange(5.0)", "jnp.int8(-2)")
both("dyn-slice-u8", "lambda x, i: lax.dynamic_slice(x, (i,), (2,))", "jnp.arange(5.0)", "jnp.uint8(2)")
both("dyn-slice-arr-start", "lambda x, i: lax.dynamic_slice(x, (i, jnp.int32(-1)), (2, 2))",
     "jnp.arange(20.0).reshape(4, 5)", "jnp.int32(2)")
