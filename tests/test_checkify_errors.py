"""checkify's error API as JAX 0.10.2 has it: check_error (raising, and
re-staging inside checkify), debug_check, init_error, ErrorCategory, and
JaxRuntimeError being a ValueError (chex relies on that)."""
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit.experimental import checkify


def positive(x):
    checkify.check(x > 0, "x must be positive {x}", x=x)
    return x


def test_check_error_raises_the_failure():
    assert issubclass(checkify.JaxRuntimeError, ValueError)
    err, _ = checkify.checkify(positive)(jnp.float32(-1.0))
    with pytest.raises(checkify.JaxRuntimeError, match=r"x must be positive -1.0 \(`check` failed\)"):
        checkify.check_error(err)
    checkify.check_error(checkify.checkify(positive)(jnp.float32(1.0))[0])
    assert checkify.init_error.get() is None
    with pytest.raises(ValueError, match="Cannot abstractly evaluate a checkify.check"):
        jax.jit(checkify.check_error)(err)


def test_check_error_inside_checkify_joins_the_outer_error():
    def outer(x):
        inner_err, _ = checkify.checkify(positive)(x)
        checkify.check_error(inner_err)
        return x * 2

    for f in (outer, jax.jit(outer)):
        err, y = checkify.checkify(f)(jnp.float32(-2.0))
        assert str(err) == "Error(x must be positive -2.0 (`check` failed))"
        assert float(y) == -4.0


def test_debug_check_counts_only_under_checkify():
    checkify.debug_check(False, "ignored {}", jnp.int32(3))
    assert jax.jit(lambda x: checkify.debug_check(x > 0, "neg"))(-1.0) is None
    err, _ = checkify.checkify(lambda x: checkify.debug_check(x > 0, "neg {}", x))(
        jnp.float32(-1.0))
    assert err.get() == "neg -1.0 (`check` failed)"


def test_error_categories():
    assert checkify.user_checks <= checkify.all_checks
    assert checkify.float_checks == checkify.nan_checks | checkify.div_checks
    for category in checkify.all_checks:
        assert isinstance(category, type)


def test_checkified_jit_stays_one_computation():
    # The checked body of a jitted callee is itself jitted: one compile, reused.
    from xjit._src.dispatch import CompileStats
    f = checkify.checkify(jax.jit(lambda x: positive(jnp.sin(x) + 2.0) * 3.0))
    f(jnp.float32(0.5))
    before = CompileStats.compiles
    for v in (0.25, 1.5, 2.0):
        err, _ = f(jnp.float32(v))
        assert err.get() is None
    assert CompileStats.compiles == before
