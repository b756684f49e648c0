"""Run snippets against an implementation (xjit, or JAX as the oracle) and
record what a user would see: the repr/str of the result, its dtype and
values, or the exception class and message.

A case is ``(name, code)``; the code runs with ``jax``, ``jnp``, ``lax``,
``np`` bound and must set ``result``. Results are compared exactly on text
(printed jaxprs, reprs, messages) and with a tolerance on values, since XLA
may round transcendental functions differently from one build to another.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re

import numpy as np
import ml_dtypes

HERE = os.path.dirname(__file__)
_ADDR = re.compile(r" at 0x[0-9a-f]+")


def _module_names(impl):
    if impl == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax
    else:
        import xjit as jax
        import xjit.numpy as jnp
        from xjit import lax
    return {"jax": jax, "jnp": jnp, "lax": lax, "np": np}


def _clean(s: str, impl: str) -> str:
    s = _ADDR.sub(" at 0x...", s)
    if impl == "jax":
        s = s.replace("jax.errors.", "xjit.errors.").replace("jax._src.errors.", "xjit.errors.")
    return s


def _describe(result, impl):
    out = {"text": _clean(str(result), impl), "repr": _clean(repr(result), impl)}
    try:
        arr = np.asarray(result)
        if arr.dtype != object:
            out["dtype"] = arr.dtype.name
            out["shape"] = list(arr.shape)
            out["values"] = arr.astype(np.float64).ravel().tolist() if arr.dtype.kind in "biuf" \
                else None
            out["weak_type"] = bool(getattr(result, "weak_type", False))
    except Exception:  # jaxprs, tuples of arrays...
        pass
    return out


def run_case(code: str, impl: str) -> dict:
    env = _module_names(impl)
    stdout = io.StringIO()
    try:
        with contextlib.redirect_stdout(stdout):
            exec(compile(code, "<case>", "exec"), env)
        rec = _describe(env["result"], impl)
    except Exception as e:  # the error is the behaviour under test
        rec = {"error": type(e).__name__, "message": _clean(str(e), impl).split("\n")[0]}
    rec["stdout"] = _clean(stdout.getvalue(), impl)
    return rec


def load(name):
    with open(os.path.join(HERE, f"expected_{name}.json")) as f:
        return json.load(f)


def _atol(dtype, values):
    """The absolute tolerance of a recorded float result: a few units in the
    last place of its largest value, since XLA's code for another CPU rounds
    sums differently (a resize's 0.0280209 next to 230 is 0.0280231 there);
    exact dtypes stay exact."""
    if dtype[0] in "biu":
        return 0.0
    eps = float(np.finfo(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype).eps)
    finite = [abs(v) for v in values if isinstance(v, (int, float)) and np.isfinite(v)]
    return max(1e-6, 8 * eps * max(finite, default=0.0))


_NUM = re.compile(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)")


def _float_arrays_text(want: dict) -> bool:
    """A result recorded as text that prints float arrays (complex arrays,
    tuples of LAPACK factors), not a jaxpr or a message."""
    text = want["text"]
    return "lambda" not in text and (
        (want.get("dtype") or "").startswith("complex") or "dtype=float" in want.get("repr", ""))


def _texts_close(got: str, want: str, dtype):
    """The same layout, numbers within the float tolerance: LAPACK's
    factorizations differ in the last places between CPUs, for JAX as for xjit
    (and NumPy then prints them with another width or in exponent form)."""
    squeeze = lambda t: re.sub(r"\s+", "", _NUM.sub("#", t))
    assert squeeze(got) == squeeze(want), f"\n--- got ---\n{got}\n--- want ---\n{want}"
    g, w = ([float(x) for x in _NUM.findall(t)] for t in (got, want))
    part = "float64" if dtype in ("complex128", "float64") else "float32"
    np.testing.assert_allclose(g, w, rtol=2e-6, atol=_atol(part, w), equal_nan=True,
                               err_msg=f"\n--- got ---\n{got}\n--- want ---\n{want}")


def compare(got: dict, want: dict, atol=None):
    """Assertion messages name the first difference; ``atol`` overrides the
    float tolerance (an ill-conditioned solve's last places vary by CPU)."""
    if "error" in want:
        assert got.get("error") == want["error"], f"expected {want['error']}: {want['message']}; got {got}"
        assert got["message"] == want["message"], (got["message"], want["message"])
        return
    assert "error" not in got, f"raised {got.get('error')}: {got.get('message')}"
    assert got.get("dtype") == want.get("dtype"), (got.get("dtype"), want.get("dtype"))
    assert got.get("shape") == want.get("shape"), (got.get("shape"), want.get("shape"))
    assert got.get("weak_type") == want.get("weak_type"), "weak_type differs"
    if want.get("values") is not None:
        np.testing.assert_allclose(got["values"], want["values"], rtol=2e-6,
                                   atol=atol or _atol(want["dtype"], want["values"]), equal_nan=True)
        if want["dtype"][0] in "biu":  # exact dtypes print exactly
            assert got["repr"] == want["repr"], (got["repr"], want["repr"])
    elif got["text"] != want["text"] and _float_arrays_text(want):
        _texts_close(got["text"], want["text"], want.get("dtype"))
    else:
        assert got["text"] == want["text"], f"\n--- got ---\n{got['text']}\n--- want ---\n{want['text']}"
    assert got["stdout"] == want["stdout"], (got["stdout"], want["stdout"])


def compare_live(name, code, expected):
    """A stored record is still what JAX does: error, dtype, shape and weak
    type always; the printed text too when no values were recorded."""
    live = run_case(code, "jax")
    for key in ("error", "dtype", "shape", "weak_type", "text"):
        if (key in expected and key != "text") or "values" not in expected:
            assert live.get(key) == expected.get(key), key


def params(cases, known=None):
    """pytest parameters for ``cases``; those named in ``known`` (name ->
    reason) are strict xfails, so a fixed divergence shows up as XPASS."""
    import pytest
    known = known or {}
    return [pytest.param(n, c, id=n, marks=pytest.mark.xfail(reason=known[n], strict=True))
            if n in known else pytest.param(n, c, id=n) for n, c in cases]


def sample(cases, every):
    """Every ``every``-th case, for the live-JAX re-checks (kept small)."""
    return params(cases[::every])


def differential_tests(name, cases, known=None, every=20, atol=None):
    """The two tests of a recorded-case file: every case against its stored
    JAX record, and a sample re-checked against live JAX (``compare`` extra).
    Assign the pair to ``test_matches_jax, test_stored_expectations_match_live_jax``."""
    import pytest
    expected = load(name)

    @pytest.mark.parametrize("name,code", params(cases, known))
    def test_matches_jax(name, code):
        compare(run_case(code, "xjit"), expected[name], (atol or {}).get(name))

    @pytest.mark.compare
    @pytest.mark.parametrize("name,code", sample(cases, every))
    def test_stored_expectations_match_live_jax(name, code):
        compare_live(name, code, expected[name])

    return test_matches_jax, test_stored_expectations_match_live_jax
