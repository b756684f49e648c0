"""``xjit.scipy.signal``, ``ndimage``, ``integrate``, ``interpolate`` and
``cluster.vq`` against stored JAX 0.10.2 behaviour
(tests/differential/cases_scipy_signal.py: values, dtypes, jit, vmap, grad,
errors, a few printed jaxprs), plus their public names and
``import jax.scipy.signal`` (and friends) under the takeover. The cases
reach the modules as attributes of ``xjit.scipy``, which importing them here
binds."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import xjit
import xjit.numpy as jnp
import xjit.scipy.cluster.vq
import xjit.scipy.integrate
import xjit.scipy.interpolate
import xjit.scipy.ndimage
import xjit.scipy.signal
from util import differential_cases, differential_tests

CASES = differential_cases("scipy_signal")
# Printed-jaxpr differences from layers below these modules (values agree).
KNOWN = {
    "jaxpr-trapezoid": "jnp.trapezoid sums the midpoints; JAX's subtracts the end terms from "
                       "the full sum (numpy layer)",
    "jaxpr-vq": "JAX's vmap of getitem prints the gather's dimension numbers as np.int64 "
                "(batching layer)",
}

test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "scipy_signal", CASES, KNOWN, every=15)

# JAX 0.10.2's public names of each module
NAMES = {
    "signal": ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend",
               "fftconvolve", "istft", "stft", "welch"],
    "ndimage": ["map_coordinates"],
    "integrate": ["trapezoid"],
    "interpolate": ["RegularGridInterpolator"],
    "cluster": ["vq"],
    "cluster.vq": ["vq"],
}


def test_public_names():
    for mod, names in NAMES.items():
        m = xjit.scipy
        for part in mod.split("."):
            m = getattr(m, part)
        assert sorted(n for n in dir(m) if not n.startswith("_")) == names, mod


def test_stft_istft_round_trip():
    """istft inverts stft for several overlaps and segment lengths."""
    x = jnp.asarray(np.random.default_rng(1).normal(size=(3, 50)), jnp.float32)
    sig = xjit.scipy.signal
    for nperseg, noverlap in [(8, None), (10, 7), (16, 12)]:
        z = sig.stft(x, nperseg=nperseg, noverlap=noverlap)[2]
        back = sig.istft(z, nperseg=nperseg, noverlap=noverlap)[1]
        np.testing.assert_allclose(back[:, :50], x, atol=1e-5)


def test_interpolator_is_a_pytree():
    """Flattening keeps method and bounds_error as static data; rebuilding
    from new leaves gives an interpolator over the new values."""
    rgi_cls = xjit.scipy.interpolate.RegularGridInterpolator
    r = rgi_cls((jnp.arange(3.), jnp.arange(4.)), jnp.ones((3, 4)), method="nearest")
    leaves, tree = xjit.tree_util.tree_flatten(r)
    assert len(leaves) == 4  # two grid axes, values, fill value
    r2 = xjit.tree_util.tree_unflatten(tree, leaves[:2] + [leaves[2] * 3, leaves[3]])
    assert isinstance(r2, rgi_cls) and r2.method == "nearest"
    np.testing.assert_array_equal(r2(jnp.array([[1.2, 2.7]])), [3.0])
    assert np.isnan(r2(jnp.array([[5.0, 1.0]]))[0])


def test_import_jax_scipy_modules_under_takeover():
    code = textwrap.dedent("""
        import xjit; xjit.install_as_jax()
        import jax.numpy as jnp
        import jax.scipy.signal, jax.scipy.ndimage, jax.scipy.integrate
        from jax.scipy.interpolate import RegularGridInterpolator
        from jax.scipy.cluster.vq import vq
        assert jax.scipy.signal.__name__ == "xjit.scipy.signal"
        print(float(jax.scipy.integrate.trapezoid(jnp.arange(4.))),
              float(jax.scipy.ndimage.map_coordinates(jnp.arange(4.), [jnp.array([1.5])], 1)[0]),
              int(vq(jnp.array([0.9, 3.2]), jnp.array([0., 1., 3.]))[0][1]))
    """)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["4.5", "1.5", "2"]
