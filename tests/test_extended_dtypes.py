"""Extended dtypes: key arrays' dtype is a ``jax.dtypes.ExtendedDType`` whose
scalar type sits under ``jax.dtypes.prng_key`` and ``jax.dtypes.extended``
(as JAX 0.10.2 answers these queries)."""
import dataclasses

import numpy as np

import xjit as jax
import xjit.numpy as jnp
from xjit._src import dtypes as internal_dtypes


def test_key_dtype_queries():
    k = jax.random.key(0)
    assert jnp.issubdtype(k.dtype, jax.dtypes.prng_key)
    assert jnp.issubdtype(k.dtype, jax.dtypes.extended)
    assert jax.dtypes.issubdtype(k.dtype, np.generic)
    assert jnp.issubdtype(k.dtype, k.dtype)
    assert not jnp.issubdtype(k.dtype, jnp.floating)
    assert not jnp.issubdtype(jnp.float32, jax.dtypes.extended)
    assert jnp.issubdtype(jax.dtypes.prng_key, jax.dtypes.extended)
    assert isinstance(k.dtype, internal_dtypes.ExtendedDType)


def test_library_defined_extended_dtype():
    class meta_scalar(jax.dtypes.extended):
        pass

    @dataclasses.dataclass(frozen=True)
    class MetaDType(internal_dtypes.ExtendedDType):  # as flax's fp8 meta dtype is written
        float_dtype: object
        type: type = meta_scalar

    dt = MetaDType(jnp.float32)
    assert jnp.issubdtype(dt, meta_scalar) and jnp.issubdtype(dt, jax.dtypes.extended)
    assert not jnp.issubdtype(dt, jax.dtypes.prng_key)
    assert not jnp.issubdtype(jnp.float32, dt)


def test_supports_inf():
    got = [internal_dtypes.supports_inf(t) for t in (
        jnp.float32, jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.int32, jnp.bfloat16,
        jnp.float8_e4m3fnuz, jnp.float8_e4m3b11fnuz)]
    assert got == [True, False, True, False, True, False, False]
