"""Config flags and context managers against stored JAX 0.10.2 behaviour (see
tests/differential/cases_config.py): strict dtype promotion, default_device,
transfer guards, tracer-leak and key-reuse checking, high-dynamic-range gumbel,
64-bit narrowing warnings and empty-array reprs; plus direct checks of what
the records cannot show (logging, flag restoration, hot-path caches)."""
import logging

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp

from util import differential_cases, differential_tests

CASES = differential_cases("config")


KNOWN = {}
KNOWN["leak-vmap"] = ("tracer-leak checking covers jit/make_jaxpr traces; vmap's BatchTrace "
                      "(batching.py) does not call the check yet")
KNOWN["guard-disallow-index"] = ("JAX transfers a static integer index as a scalar operand "
                                 "(guarded); xjit's indexing slices statically, so nothing moves")


test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "config", CASES, KNOWN, every=10)


def test_log_level_logs_implicit_transfers(caplog):
    x = jnp.arange(3.0)
    with caplog.at_level(logging.WARNING, logger="xjit"):
        with jax.transfer_guard("log"):
            jnp.array([1.0, 2.0])
            jax.device_put(np.ones(2))  # explicit: not logged at "log"
        with jax.transfer_guard("log_explicit"):
            jax.device_put(np.ones(4))
        with jax.transfer_guard("allow"):
            x + np.ones(3)
    msgs = [r.getMessage() for r in caplog.records if r.name == "xjit"]
    assert msgs == [
        "host-to-device transfer: aval=ShapedArray(float32[2]), dst_sharding="
        "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)",
        "host-to-device transfer: aval=ShapedArray(float32[4]), dst_sharding="
        "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"]


def test_direction_flag_overrides_global_guard():
    with jax.transfer_guard("disallow"):
        with jax.transfer_guard_host_to_device("allow"):
            assert float(jnp.ones(()) + 1) == 2.0
        with pytest.raises(jax.errors.JaxRuntimeError, match="Disallowed host-to-device"):
            jnp.ones(()) + 1


def test_jit_scalar_argument_guarded_after_cached_call():
    f = jax.jit(lambda a: a * 2)
    three = jnp.full((), 3.0)
    assert float(f(3.0)) == 6.0  # fills the jit fast path and the scalar cache
    with jax.transfer_guard("disallow"):
        with pytest.raises(jax.errors.JaxRuntimeError, match="float32\\[\\], weak_type=True"):
            f(3.0)
        assert float(f(three)) == 6.0  # an array argument needs no transfer
    assert float(f(3.0)) == 6.0


def test_default_device_places_eager_and_jit_results():
    cpu = jax.devices("cpu")[0]
    with jax.default_device(cpu):
        assert jax.config.jax_default_device is cpu
        a = jnp.arange(3.0) + 1
        b = jax.jit(lambda x: x * 2)(a)
        assert a.device == cpu and b.device == cpu
        np.testing.assert_array_equal(np.asarray(b), [2.0, 4.0, 6.0])
    assert jax.config.jax_default_device is None
    np.testing.assert_array_equal(np.asarray(jnp.arange(3.0) + 1), [1.0, 2.0, 3.0])


def test_key_reuse_jit_fast_path_still_checks():
    g = jax.jit(lambda k: jax.random.uniform(k))
    for _ in range(2):  # warm the fast path with the checker off
        g(jax.random.key(0))
    with jax.debug_key_reuse(True):
        k = jax.random.key(1)
        g(k)
        with pytest.raises(jax.errors.KeyReuseError, match="at index 0"):
            g(k)
    g(k)  # the checker is off again: reuse is allowed


_HOLDER = []


def test_checking_leaks_names_global_holder():
    def f(x):
        _HOLDER.append(x)
        return x

    with jax.checking_leaks():
        with pytest.raises(Exception, match="Leaked trace DynamicJaxprTrace") as e:
            jax.jit(f)(1.0)
    assert "is referred to by test_config_flags._HOLDER" in str(e.value)
    _HOLDER.clear()
    assert float(jax.jit(f)(2.0)) == 2.0  # off again


def test_platform_name_picks_the_default_backend():
    """``jax_platform_name`` (older than jax_platforms; notebooks still set it)
    chooses the default backend; a platform that is not here can be set, and
    raises JAX's RuntimeError when used."""
    try:
        jax.config.update("jax_platform_name", "cpu")
        assert jax.default_backend() == "cpu"
        assert (jnp.ones(2) + 1).device.platform == "cpu"
        jax.config.update("jax_platform_name", "tpu")
        with pytest.raises(RuntimeError, match="Unknown backend: 'tpu' requested, but no "
                           "platforms that are instances of tpu are present"):
            jax.device_put(np.ones(2))
    finally:
        jax.config.update("jax_platform_name", "")
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda x: x + 1)(jnp.ones(2))), [2.0, 2.0])
