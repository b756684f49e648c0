"""``dot_general`` with operands of different dtypes, as JAX 0.10.2 takes them.

The product's type is the operand type XLA ranks higher (complex, then
exponent range, mantissa, bit width, signed over unsigned), so bool meets
anything, int8 x int32 is int32 and int32 x float16 is float16; two types of
equal rank (float8_e5m2 and float8_e5m2fnuz) are refused, as is an integer
``preferred_element_type`` narrower than the product. The lowering converts
both operands to the result type. Each case is compared with what JAX
returned or raised (``dot_mixed_dtypes.json``, written by
``scripts/record_dot_mixed_dtypes.py``): values, dtypes and weak types over a
grid of pairs (64-bit ones under x64), printed jaxprs and lowerings, and
gradients in every composition order, whose cotangents keep each operand's
own dtype.
"""
import itertools

import recorded

PRELUDE = '''
DN = (((1,), (0,)), ((), ()))
FA = np.array([[0.3, -1.7, 2.5], [1.1, 0.6, -0.9]])
FB = np.array([[1.3, -0.4], [0.7, 2.2], [-1.5, 0.8]])
IA = np.array([[1, 2, 0], [3, 1, 2]])
IB = np.array([[2, 1], [0, 3], [1, 1]])

def arg(f, i, dtype):
    """Fractional values for inexact types, small counts for the others."""
    dtype = np.dtype(dtype)
    return jnp.asarray((i if dtype.kind in "biu" else f).astype(dtype))

def operands(lt, rt):
    """The pair, and the pair stacked with its double (for vmap)."""
    a, b = arg(FA, IA, lt), arg(FB, IB, rt)
    return (a, b), (jnp.stack([a, a + a]), jnp.stack([b, b + b]))

def prod(a, b, **kw):
    return lax.dot_general(a, b, DN, **kw)

def prod_to_f32(a, b):
    return lax.dot_general(a, b, DN, preferred_element_type=jnp.float32)

def prod_bf16_algorithm(a, b):
    return lax.dot_general(a, b, DN, precision="BF16_BF16_F32")

def loss(a, b, **kw):
    return jnp.sum(jnp.sin(prod(a, b, **kw)).astype(jnp.float32))

def dot(lt, rt, **kw):
    return prod(*operands(lt, rt)[0], **kw)

def x64(thunk):
    with jax.enable_x64(True):
        return thunk()

def grads(order, lt, rt, n, **kw):
    f, g = partial(loss, **kw), partial(prod, **kw)
    (a, b), (sa, sb) = operands(lt, rt)
    return {
        "grad": lambda: jax.grad(f, n)(a, b),
        "jit_grad": lambda: jax.jit(jax.grad(f, n))(a, b),
        "grad_jit": lambda: jax.grad(jax.jit(f), n)(a, b),
        "vmap_grad": lambda: jax.vmap(jax.grad(f, n))(sa, sb),
        "vmap_grad_lhs": lambda: jax.vmap(jax.grad(f, n), (0, None))(sa, b),
        "vmap_grad_rhs": lambda: jax.vmap(jax.grad(f, n), (None, 0))(a, sb),
        "grad_vmap": lambda: jax.grad(lambda x, y: jax.vmap(f)(x, y).sum(), n)(sa, sb),
        "grad_vmap_lhs": lambda: jax.grad(lambda x, y: jax.vmap(f, (0, None))(x, y).sum(),
                                          n)(sa, b),
        "jit_vmap_grad": lambda: jax.jit(jax.vmap(jax.grad(f, n)))(sa, sb),
        "jacfwd": lambda: jax.jacfwd(g, n)(a, b),
        "jacrev": lambda: jax.jacrev(g, n)(a, b),
        "vmap_jacrev": lambda: jax.vmap(jax.jacrev(g, n))(sa, sb),
        "jvp": lambda: (jax.jvp(g, (a, b), (a, b)) if n == (0, 1) else
                        jax.jvp(lambda x: g(x, b), (a,), (a,)) if n == 0 else
                        jax.jvp(lambda y: g(a, y), (b,), (b,))),
        "vjp": lambda: jax.vjp(g, a, b)[1](jnp.ones((2, 2), g(a, b).dtype)),
    }[order]()

def jaxpr(fn, lt, rt, batched=False):
    return str(jax.make_jaxpr(fn)(*operands(lt, rt)[batched]))

def lowered(fn, lt, rt):
    return jax.jit(fn).lower(*operands(lt, rt)[0]).as_text()
'''

DTYPES = ["bool", "int8", "uint8", "int32", "uint32", "float16", "bfloat16", "float32",
          "complex64"]
X64_DTYPES = ["int32", "int64", "uint64", "float16", "bfloat16", "float32", "float64",
              "complex128"]
FP8 = [("float8_e4m3fn", "float8_e5m2"), ("float8_e5m2", "float8_e4m3fn"),
       ("float8_e4m3fn", "float32"), ("bfloat16", "float8_e5m2"), ("int8", "float8_e4m3fn")]

CASES = {f"value:{lt}:{rt}": f"dot({lt!r}, {rt!r})" for lt, rt in itertools.product(DTYPES, DTYPES)}
CASES.update({f"value_x64:{lt}:{rt}": f"x64(lambda: dot({lt!r}, {rt!r}))"
              for lt, rt in itertools.product(X64_DTYPES, X64_DTYPES)
              if "64" in lt + rt and lt != rt})
CASES.update({f"value_fp8:{lt}:{rt}": f"dot({lt!r}, {rt!r})" for lt, rt in FP8})
CASES.update({f"value_jit:{lt}:{rt}": f"jax.jit(prod)(*operands({lt!r}, {rt!r})[0])"
              for lt, rt in [("float32", "bfloat16"), ("int8", "int32"), ("bool", "float16"),
                             ("uint8", "int8"), ("float8_e4m3fn", "float8_e5m2")]})

# Gradients: (lhs, rhs, differentiated operands, keyword arguments)
GRAD_PAIRS = {
    "f32_bf16": ("float32", "bfloat16", (0, 1), ""),
    "bf16_f32": ("bfloat16", "float32", (0, 1), ""),
    "bf16_f16": ("bfloat16", "float16", (0, 1), ""),
    "f16_f32": ("float16", "float32", (0, 1), ""),
    "f32_i8": ("float32", "int8", 0, ""),
    "i32_bf16": ("int32", "bfloat16", 1, ""),
    "bf16_f16_pet_f32": ("bfloat16", "float16", (0, 1), ", preferred_element_type=jnp.float32"),
    "f32_bf16_pet_bf16": ("float32", "bfloat16", (0, 1),
                          ", preferred_element_type=jnp.bfloat16"),
}
ORDERS = ["grad", "jit_grad", "grad_jit", "vmap_grad", "vmap_grad_lhs", "vmap_grad_rhs",
          "grad_vmap", "grad_vmap_lhs", "jit_vmap_grad", "jacfwd", "jacrev", "vmap_jacrev", "jvp",
          "vjp"]
CASES.update({f"grad:{name}:{order}": f"grads({order!r}, {lt!r}, {rt!r}, {n!r}{kw})"
              for name, (lt, rt, n, kw) in GRAD_PAIRS.items() for order in ORDERS})
CASES.update({f"grad_x64:{lt}:{rt}:{order}":
              f"x64(lambda: grads({order!r}, {lt!r}, {rt!r}, (0, 1)))"
              for lt, rt in [("float64", "float32"), ("bfloat16", "float64")]
              for order in ORDERS})

CASES.update({
    # what JAX refuses: equal-ranked types, a narrower integer preferred type
    "refused:e5m2_e5m2fnuz": "dot('float8_e5m2', 'float8_e5m2fnuz')",
    "refused:e4m3_e4m3fnuz": "dot('float8_e4m3', 'float8_e4m3fnuz')",
    "refused:jit_e5m2_e5m2fnuz": "jax.jit(prod)(*operands('float8_e5m2', 'float8_e5m2fnuz')[0])",
    "refused:pet_int16_for_int32": "dot('int8', 'int32', preferred_element_type=jnp.int16)",
    "refused:pet_bool_for_int32": "dot('int32', 'int32', preferred_element_type=jnp.bool_)",
    "refused:pet_f16_for_c64": "dot('complex64', 'float32', preferred_element_type=jnp.float16)",
    # what it takes: a narrower type for a float product, or under an algorithm
    "pet:int8_for_f32": "dot('float32', 'int8', preferred_element_type=jnp.int8)",
    "pet:bf16_for_f32": "dot('float32', 'bfloat16', preferred_element_type=jnp.bfloat16)",
    "pet:f32_for_int8_bf16": "dot('int8', 'bfloat16', preferred_element_type=jnp.float32)",
    "pet:f32_for_c64": "dot('complex64', 'bfloat16', preferred_element_type=jnp.float32)",
    "pet:int8_for_int32_algorithm": "jaxpr(partial(prod, precision='DEFAULT', "
                                    "preferred_element_type=jnp.int8), 'int32', 'int32')",
    # weak types: weak only when both operands are
    "weak:py_scalars": "lax.dot_general(2.0, 3, (((), ()), ((), ())))",
    "weak:py_float_int8": "lax.dot_general(2.0, np.int8(3), (((), ()), ((), ())))",
    "weak:py_int_int8_array": "lax.dot_general(2, arg(FA, IA, 'int8')[0], (((), ()), ((), ())))",
    "weak:weak_arrays": "lax.dot_general(jnp.asarray(2.0), jnp.asarray(3), "
                        "(((), ()), ((), ())))",
    "weak:x64_py_float_f32": "x64(lambda: lax.dot_general(2.0, arg(FA, IA, 'float32'), "
                             "(((), ()), ((), ()))))",
    "weak:numpy_arrays": "lax.dot_general(FA.astype(np.float16), IB.astype(np.int8), DN)",
    # printed jaxprs
    "jaxpr:f32_bf16": "jaxpr(prod, 'float32', 'bfloat16')",
    "jaxpr:int8_int32": "jaxpr(lax.dot, 'int8', 'int32')",
    "jaxpr:grad_f32_bf16": "jaxpr(jax.grad(lambda a, b: prod(a, b).sum(), (0, 1)), "
                           "'float32', 'bfloat16')",
    "jaxpr:grad_f32_int8": "jaxpr(jax.grad(lambda a, b: prod(a, b).sum()), 'float32', 'int8')",
    "jaxpr:grad_bf16_f16_pet": "jaxpr(jax.grad(lambda a, b: prod(a, b, preferred_element_type="
                               "jnp.float32).sum(), (0, 1)), 'bfloat16', 'float16')",
    "jaxpr:jvp_f32_bf16": "jaxpr(lambda a, b: jax.jvp(prod, (a, b), (a, b)), 'float32', "
                          "'bfloat16')",
    "jaxpr:vmap_both": "jaxpr(jax.vmap(prod), 'int8', 'float16', batched=True)",
    "jaxpr:vmap_lhs": "str(jax.make_jaxpr(jax.vmap(prod, (0, None)))("
                      "operands('int8', 'float16')[1][0], operands('int8', 'float16')[0][1]))",
    "jaxpr:x64_grad_f64_f32": "x64(lambda: jaxpr(jax.grad(lambda a, b: prod(a, b).sum(), "
                              "(0, 1)), 'float64', 'float32'))",
    # lowerings: both operands converted to the result type, one already of it
    # too; mixed float8s and algorithms as they are
    "lowered:f32_bf16": "lowered(prod, 'float32', 'bfloat16')",
    "lowered:int8_int32": "lowered(prod, 'int8', 'int32')",
    "lowered:bool_f16": "lowered(prod, 'bool', 'float16')",
    "lowered:int8_bf16_pet_f32": "lowered(prod_to_f32, 'int8', 'bfloat16')",
    "lowered:same_bf16_pet_f32": "lowered(prod_to_f32, 'bfloat16', 'bfloat16')",
    "lowered:fp8_mixed": "lowered(prod, 'float8_e4m3fn', 'float8_e5m2')",
    "lowered:bf16_f32_algorithm": "lowered(prod_bf16_algorithm, 'bfloat16', 'float32')",
    # the jnp products on mixed operands
    "jnp:matmul": "jnp.matmul(*operands('float32', 'bfloat16')[0])",
    "jnp:matmul_batched": "jnp.matmul(*operands('int8', 'float16')[1])",
    "jnp:dot": "jnp.dot(*operands('bfloat16', 'int32')[0])",
    "jnp:einsum": "jnp.einsum('ij,jk->ik', *operands('float32', 'bfloat16')[0])",
    "jnp:einsum_3": "jnp.einsum('ij,jk,kl->il', *operands('int8', 'float16')[0], "
                    "arg(FA, IA, 'bfloat16'))",
    "jnp:tensordot": "jnp.tensordot(*operands('float16', 'float32')[0], 1)",
    "jnp:inner": "jnp.inner(arg(FA, IA, 'float32'), arg(FA, IA, 'bfloat16'))",
    "jnp:vdot": "jnp.vdot(arg(FA, IA, 'complex64'), arg(FA, IA, 'float32'))",
    "jnp:vecdot": "jnp.vecdot(arg(FA, IA, 'float32'), arg(FA, IA, 'int8'))",
    "jnp:matmul_grad": "jax.grad(lambda a, b: jnp.matmul(a, b).sum(), (0, 1))("
                       "*operands('float32', 'bfloat16')[0])",
    "jnp:einsum_grad": "jax.grad(lambda a, b: jnp.einsum('ij,jk->ik', a, b).sum(), (0, 1))("
                       "*operands('bfloat16', 'float32')[0])",
    "jnp:jaxpr_matmul": "jaxpr(jnp.matmul, 'float32', 'bfloat16')",
    "jnp:jaxpr_einsum": "jaxpr(partial(jnp.einsum, 'ij,jk->ik'), 'float32', 'bfloat16')",
    "jnp:jaxpr_tensordot": "jaxpr(partial(jnp.tensordot, axes=1), 'float32', 'int8')",
    "jnp:jaxpr_einsum_pet": "str(jax.make_jaxpr(partial(jnp.einsum, 'ij,jk->ik', "
                            "preferred_element_type=jnp.float32))(*operands('int8', 'bfloat16')[0]))",
    "jnp:einsum_trace_pet": "jnp.einsum('ii', jnp.full((3, 3), 100, jnp.int8), "
                            "preferred_element_type=jnp.int32)",
    "jnp:einsum_sum_mixed": "jnp.einsum('ij,k->i', *operands('int8', 'float16')[0][:1], "
                            "arg(FA, IA, 'float16')[0])",
    "jnp:einsum_weak": "jnp.einsum('i,->i', arg(FA, IA, 'bfloat16')[0], 2.0)",
})

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
KNOWN = {}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "dot_mixed_dtypes", PRELUDE, CASES, KNOWN, every=10)
