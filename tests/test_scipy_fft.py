"""``xjit.scipy.fft`` (dct, dctn, idct, idctn) against stored JAX 0.10.2
behaviour (tests/differential/cases_scipy_fft.py: values, dtypes, jit, vmap,
grad, printed jaxprs, errors), plus its public names and signatures and
``import jax.scipy.fft`` under the takeover."""
import inspect
import os
import subprocess
import sys
import textwrap

import numpy as np
import xjit
import xjit.numpy as jnp
from util import differential_cases, differential_tests

CASES = differential_cases("scipy_fft")

# Printed-jaxpr differences that come from jnp.fft, not xjit.scipy.fft (the
# values of the same calls agree).
KNOWN = {
    "jaxpr-dct-axis0": "jnp.fft.fft over a non-last axis transposes inside its jit; JAX's "
                       "transposes around it (numpy/fft.py)",
    "jaxpr-idctn": "the same jnp.fft.ifft transpose placement for the axis-0 pass "
                   "(numpy/fft.py)",
    "jaxpr-grad-dct": "the transpose of jnp.fft.fft binds fft bare; JAX's wraps it in a "
                      "jit named fft (numpy/fft.py)",
}

test_matches_jax, test_stored_expectations_match_live_jax = differential_tests(
    "scipy_fft", CASES, KNOWN, every=10)

# JAX 0.10.2's: sorted(public names of jax.scipy.fft) and inspect.signature.
NAMES = ["dct", "dctn", "idct", "idctn"]
SIGNATURES = {
    "dct": "(x: 'Array', type: 'int' = 2, n: 'int | None' = None, axis: 'int' = -1, "
           "norm: 'str | None' = None) -> 'Array'",
    "idct": "(x: 'Array', type: 'int' = 2, n: 'int | None' = None, axis: 'int' = -1, "
            "norm: 'str | None' = None) -> 'Array'",
    "dctn": "(x: 'Array', type: 'int' = 2, s: 'Sequence[int] | None' = None, "
            "axes: 'Sequence[int] | None' = None, norm: 'str | None' = None) -> 'Array'",
    "idctn": "(x: 'Array', type: 'int' = 2, s: 'Sequence[int] | None' = None, "
             "axes: 'Sequence[int] | None' = None, norm: 'str | None' = None) -> 'Array'",
}


def test_public_names_and_signatures():
    fft = xjit.scipy.fft  # attribute access after a plain `import xjit`
    assert sorted(n for n in dir(fft) if not n.startswith("_")) == NAMES
    for name, sig in SIGNATURES.items():
        assert str(inspect.signature(getattr(fft, name))) == sig, name


def test_inverses_round_trip():
    """idct undoes dct for both norms, and idctn undoes dctn over any axes."""
    x = jnp.asarray(np.random.default_rng(0).normal(size=(3, 4, 5)), jnp.float32)
    f = xjit.scipy.fft
    for norm in (None, "ortho"):
        np.testing.assert_allclose(f.idct(f.dct(x, norm=norm), norm=norm), x, atol=2e-5)
        for axes in [None, (0, 2), (1,), (2, 0, 1)]:
            back = f.idctn(f.dctn(x, axes=axes, norm=norm), axes=axes, norm=norm)
            np.testing.assert_allclose(back, x, atol=2e-5)


def test_import_under_takeover():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (os.path.join(root, "core"), os.environ.get("PYTHONPATH")) if p))
    env.pop("XJIT_NO_JAX_TAKEOVER", None)
    code = textwrap.dedent("""
        import xjit
        xjit.install_as_jax()
        import jax.scipy.fft
        from jax.scipy.fft import dct, idct
        import jax.numpy as jnp
        assert jax.scipy.fft is xjit.scipy.fft and dct is xjit.scipy.fft.dct
        print(jnp.round(idct(dct(jnp.arange(4.0))), 4))
    """)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "[0. 1. 2. 3.]"
