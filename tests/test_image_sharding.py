"""xjit.image against hand-computed resampling, xjit.sharding on one device and
DLPack exchange with NumPy (JAX-recorded cases:
test_differential_image_sharding.py)."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit.image import ResizeMethod


def test_linear_upsample_matches_half_pixel_interpolation():
    x = np.array([0.0, 10.0, 20.0], np.float32)
    out = jax.image.resize(x, (6,), "linear")
    # Output centres map to input coordinates (i + 0.5) / 2 - 0.5, clamped at the edges.
    pos = np.clip((np.arange(6) + 0.5) / 2 - 0.5, 0, 2)
    np.testing.assert_allclose(out, np.interp(pos, [0, 1, 2], x), rtol=1e-6)
    assert out.dtype == np.float32 and not out.weak_type


def test_area_downsample_is_block_mean():
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    out = jax.image.resize(x, (2, 2), "area")
    np.testing.assert_allclose(out, x.reshape(2, 2, 2, 2).mean(axis=(1, 3)), rtol=1e-6)


def test_nearest_keeps_dtype_and_picks_source_pixels():
    x = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
    out = jax.image.resize(x, (6, 2), "nearest")
    assert out.dtype == np.int32
    rows = np.floor((np.arange(6) + 0.5) * 3 / 6).astype(int)
    cols = np.floor((np.arange(2) + 0.5) * 4 / 2).astype(int)
    np.testing.assert_array_equal(out, np.arange(12).reshape(3, 4)[rows][:, cols])


@pytest.mark.parametrize("method", ["linear", "cubic", "lanczos3", "lanczos5", "area",
                                    "cubic-pytorch"])
def test_same_shape_is_identity(method):
    x = np.random.RandomState(0).randn(5, 7).astype(np.float32)
    np.testing.assert_allclose(jax.image.resize(x, (5, 7), method), x, rtol=1e-6)


def test_resize_grad_matches_finite_differences():
    x = np.random.RandomState(1).randn(4, 5).astype(np.float64)

    def f(v):
        return (jax.image.resize(v, (7, 3), "cubic") ** 2).sum()
    with jax.enable_x64(True):
        g = np.asarray(jax.grad(f)(jnp.asarray(x)))
        eps = 1e-6
        num = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            d = np.zeros_like(x)
            d[idx] = eps
            num[idx] = (float(f(jnp.asarray(x + d))) - float(f(jnp.asarray(x - d)))) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


def test_method_names():
    assert ResizeMethod.from_string("bilinear") is ResizeMethod.LINEAR
    assert ResizeMethod.from_string("tricubic") is ResizeMethod.CUBIC
    assert ResizeMethod.from_string("bicubic-pytorch") is ResizeMethod.CUBIC_PYTORCH
    with pytest.raises(ValueError, match='Unknown resize method "gauss"'):
        ResizeMethod.from_string("gauss")
    with pytest.raises(ValueError, match="shape must have length"):
        jax.image.resize(jnp.ones((2, 2)), (3,), "linear")


def test_scale_and_translate_shift_by_one_pixel():
    x = np.arange(5, dtype=np.float32)
    out = jax.image.scale_and_translate(x, (5,), (0,), jnp.array([1.0]), jnp.array([1.0]),
                                        "linear")
    # Output pixel i samples input i - 1; the first one falls outside and is zero.
    np.testing.assert_allclose(out, [0, 0, 1, 2, 3], atol=1e-6)


def test_shardings_single_device():
    dev = jax.devices()[0]
    x = jnp.arange(4.0)
    single = jax.sharding.SingleDeviceSharding(dev)
    assert single == x.sharding and x.sharding == single
    mesh = jax.make_mesh((1,), ("x",))
    named = jax.sharding.NamedSharding(mesh, jax.P("x"))
    y = jax.device_put(x, named)
    assert y.sharding is named and y.sharding != single
    assert repr(y.sharding) == ("NamedSharding(mesh=Mesh('x': 1, axis_types=(Explicit,)), "
                                "spec=P('x',), memory_kind=device)")
    np.testing.assert_array_equal(jax.jit(lambda a: a * 3)(y), np.arange(4.0) * 3)
    z = jax.device_put({"a": np.ones(2, np.float32)}, single)["a"]
    assert type(z.sharding) is jax.sharding.SingleDeviceSharding
    assert isinstance(named, jax.sharding.Sharding)
    with pytest.raises(ValueError, match="Number of devices 1 must be >="):
        jax.make_mesh((2,), ("x",))
    with pytest.raises(ValueError, match="is only valid for values of rank at least 2"):
        jax.device_put(x, jax.sharding.NamedSharding(mesh, jax.P("x", None)))


def test_key_array_device_put_named():
    named = jax.sharding.NamedSharding(jax.make_mesh((1,), ("x",)), jax.P())
    k = jax.device_put(jax.random.key(3), named)
    assert k.sharding is named
    np.testing.assert_array_equal(jax.random.key_data(k), jax.random.key_data(jax.random.key(3)))


def test_dlpack_round_trip():
    x = jnp.arange(6, dtype=jnp.int32).reshape(2, 3)
    view = np.from_dlpack(x)
    np.testing.assert_array_equal(view, np.arange(6).reshape(2, 3))
    assert view.dtype == np.int32
    back = jax.dlpack.from_dlpack(view)
    assert back.dtype == np.int32 and back.shape == (2, 3)
    assert jax.dlpack.from_dlpack(x) is x
    assert tuple(x.__dlpack_device__()) == (1, 0)
    with pytest.raises(TypeError, match="must have __dlpack__"):
        jax.dlpack.from_dlpack([1, 2])
