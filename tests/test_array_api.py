"""Python array API metadata, as JAX 0.10.2 reports it."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp

I32 = {n: np.dtype(n) for n in ("int8", "int16", "int32", "uint8", "uint16", "uint32")}


def test_version_and_namespace():
    assert jnp.__array_api_version__ == "2024.12"
    x = jnp.ones(2)
    assert x.__array_namespace__() is jnp
    assert x.__array_namespace__(api_version="2024.12") is jnp
    with pytest.raises(ValueError, match=r"api_version='2020.1' is not available; available "
                                         r"versions are: \['2024.12'\]"):
        x.__array_namespace__(api_version="2020.1")
    out = jax.jit(lambda x: x.__array_namespace__().sin(x))(x)
    np.testing.assert_allclose(np.asarray(out), np.sin([1.0, 1.0]), rtol=1e-6)


def test_namespace_info():
    info = jnp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": False, "data-dependent shapes": False,
                                   "max dimensions": 64}
    assert info.default_device() is None
    assert info.devices() == [None, *jax.devices()]
    assert info.default_dtypes() == {"real floating": np.dtype("float32"),
                                     "complex floating": np.dtype("complex64"),
                                     "integral": np.dtype("int32"),
                                     "indexing": np.dtype("int32")}
    assert info.dtypes(kind="integral") == I32
    assert info.dtypes() == {**I32, "float32": np.dtype("float32"),
                             "complex64": np.dtype("complex64"), "bool": np.dtype("bool")}
    assert info.dtypes(kind=("bool", "real floating")) == {"bool": np.dtype("bool"),
                                                           "float32": np.dtype("float32")}
    with pytest.raises(KeyError):
        info.dtypes(kind="foo")
    with jax.enable_x64(True):
        assert set(info.dtypes()) == set(I32) | {"int64", "uint64", "float32", "float64",
                                                 "complex64", "complex128", "bool"}
        assert info.default_dtypes()["indexing"] == np.dtype("int64")
