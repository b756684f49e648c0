"""The fused eager path of jnp functions (``xjit._src.eager``) gives exactly
what the plain op-by-op path gives: same values, dtypes, weak types and
errors, for every function that uses it, over dtype and weak-type mixes.
(Values compare with ``==``, NaNs equal: XLA's simplifier may turn
``x * False`` into a select giving +0.0 where the op-by-op path gives -0.0;
JAX, whose jnp functions are inlined jits, gives +0.0 too.)"""
import warnings

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit._src import dispatch, eager

FUSED = sorted(n for n in dir(jnp) if hasattr(getattr(jnp, n), "__wrapped_eager__"))


def _operands():
    return {
        "f32": jnp.array([0.5, -1.25, 3.0, 0.0], dtype=jnp.float32),
        "i32": jnp.array([3, -2, 7, 1], dtype=jnp.int32),
        "u8": jnp.array([3, 2, 7, 1], dtype=jnp.uint8),
        "bool": jnp.array([True, False, True, True]),
        "f16": jnp.array([0.5, 1.5, 2.0, 4.0], dtype=jnp.float16),
        "c64": jnp.array([1 + 2j, -1j, 0.5, 2], dtype=jnp.complex64),
        "weak": jnp.asarray(2.5),
        "float": 1.5,
        "int": 3,
        "true": True,
    }


def _outcome(fn, *args, **kw):
    """(kind, payload) of a call: its results as host arrays, or its error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(*args, **kw)
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            return "error", (type(e), str(e))
    leaves = out if isinstance(out, tuple) else (out,)
    return "ok", [(np.asarray(x).dtype, _Values(np.asarray(x)), x.shape, x.weak_type)
                  for x in leaves]


class _Values:
    def __init__(self, a):
        self.a = a

    def __eq__(self, other):
        return np.array_equal(self.a, other.a, equal_nan=self.a.dtype.kind in "fc")

    def __repr__(self):
        return repr(self.a)


def _check_same(fn, *args, **kw):
    plain = _outcome(fn.__wrapped_eager__, *args, **kw)
    for _ in range(3):  # the first call runs the plain path, later ones the fused one
        assert _outcome(fn, *args, **kw) == plain


def test_fused_functions_exist():
    for name in ("sin", "exp", "add", "multiply", "sum", "max", "logical_and"):
        assert name in FUSED


@pytest.mark.parametrize("name", FUSED)
def test_same_as_plain_path(name):
    fn = getattr(jnp, name)
    ops = _operands()
    try:
        fn.__wrapped_eager__(ops["f32"], ops["f32"])
        binary = True
    except TypeError:
        binary = False
    keys = list(ops)
    if binary:
        for a in ("f32", "i32", "u8", "bool", "f16", "c64", "weak", "float", "int"):
            for b in ("f32", "i32", "float", "int"):
                if isinstance(ops[a], (int, float, bool)) and isinstance(ops[b], (int, float, bool)):
                    continue
                _check_same(fn, ops[a], ops[b])
    else:
        for a in keys:
            if not isinstance(ops[a], (int, float, bool)):
                _check_same(fn, ops[a])


@pytest.mark.parametrize("kw", [{}, {"axis": 0}, {"keepdims": True}, {"dtype": jnp.float32},
                                {"axis": (0,), "keepdims": True}, {"initial": 2.0}])
def test_reductions_with_options(kw):
    x = jnp.arange(12.0).reshape(3, 4)
    for fn in (jnp.sum, jnp.prod, jnp.max, jnp.min, jnp.any, jnp.all):
        _check_same(fn, x, **kw)


def test_static_positional_axis_is_not_an_operand():
    x = jnp.arange(6.0).reshape(2, 3)
    for _ in range(3):
        np.testing.assert_array_equal(jnp.sum(x, 1), [3.0, 12.0])
        np.testing.assert_array_equal(jnp.sum(x, 0), [3.0, 5.0, 7.0])


def test_array_where_takes_the_plain_path():
    x = jnp.arange(4.0)
    w = jnp.array([True, False, True, False])
    for _ in range(3):
        assert float(jnp.sum(x, where=w)) == 2.0


def test_second_call_runs_one_executable():
    x = jnp.arange(5.0, dtype=jnp.float32) + 0.25
    f = jnp.sin
    f(x), f(x)  # the second call compiles the fused executable
    before = dispatch.CompileStats.compiles
    out = f(x)
    assert dispatch.CompileStats.compiles == before
    np.testing.assert_array_equal(np.asarray(out), np.sin(np.arange(5, dtype=np.float32) + 0.25))


def test_python_int_out_of_range_keeps_the_plain_error():
    x = jnp.array([1, 2], dtype=jnp.int8)
    for _ in range(3):
        with pytest.raises(OverflowError, match="Python int 300 too large to convert to int8"):
            jnp.add(x, 300)


def test_errors_repeat_on_every_call():
    for _ in range(3):
        with pytest.raises(TypeError):
            jnp.sin("a")
        with pytest.raises(TypeError):
            jnp.add(jnp.ones(3), [1, 2, 3])


def test_debug_nans_attributes_every_call():
    x = jnp.array([-1.0, 1.0])
    jnp.log(x), jnp.log(x)
    with jax.debug_nans(True):
        for _ in range(2):
            with pytest.raises(FloatingPointError):
                jnp.log(x)


def test_under_a_trace_the_function_is_inlined():
    x = jnp.arange(3.0)
    jnp.sin(x), jnp.sin(x)
    assert str(jax.make_jaxpr(jnp.sin)(x)) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }")


def test_deleted_input_raises_like_the_plain_path():
    f = jax.jit(lambda a: a, donate_argnums=0)
    x = jnp.arange(3.0)
    jnp.exp(x), jnp.exp(x)
    y = jnp.arange(3.0)
    f(y)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Array has been deleted"):
            jnp.exp(y)


def test_x64_flag_is_part_of_the_signature():
    for _ in range(2):
        assert jnp.add(jnp.ones(2, jnp.int32), 1).dtype == np.int32
    with jax.enable_x64(True):
        for _ in range(3):
            assert jnp.multiply(jnp.ones(2), 2.0).dtype == np.float64
    assert jnp.multiply(jnp.ones(2), 2.0).dtype == np.float32


def test_key_avals_reads_scalar_entries():
    a = jnp.ones(2).aval
    key = ((), a, float, jnp.asarray(1.0).aval, ((), ()))
    assert eager.key_avals(key, 2) == [a, jnp.asarray(1.0).aval]
