"""Cases recorded from JAX 0.10.2 and replayed on xjit.

A case is ``name -> expression``; it is evaluated after a prelude of
definitions, with ``jax``, ``jnp``, ``lax``, ``np`` and ``partial`` bound.
The result (a pytree of arrays, a string, or the exception raised) is
reduced to a JSON record: leaf dtypes, shapes, weak types and values, the
tree structure, the text of a string, or the error class and first line.
``scripts/record_higher_order.py`` writes the records with the real JAX.
"""
from __future__ import annotations

import functools
import json
import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_ADDR = re.compile(r" at 0x[0-9a-f]+")


# The composition orders every unary elementwise function ``F`` is run in
# (``X``, ``X2`` (two rows of X) and ``T`` come from the prelude; ``s(f)``
# sums f's output).
COMPOSITIONS = {
    "value": "F(X)",
    "grad_vmap": "jax.grad(s(jax.vmap(F)))(X)",
    "vmap_grad": "jax.vmap(jax.grad(F))(X)",
    "jit_grad_vmap": "jax.jit(jax.grad(s(jax.vmap(F))))(X)",
    "vmap_jit_grad": "jax.vmap(jax.jit(jax.grad(F)))(X)",
    "grad_jit_vmap": "jax.grad(s(jax.jit(jax.vmap(F))))(X)",
    "grad_vmap_jit": "jax.grad(s(jax.vmap(jax.jit(F))))(X)",
    "vmap_vmap": "jax.vmap(jax.vmap(F))(X2)",
    "grad_vmap_vmap": "jax.grad(s(jax.vmap(jax.vmap(F))))(X2)",
    "vmap_vmap_grad": "jax.vmap(jax.vmap(jax.grad(F)))(X2)",
    "jacrev": "jax.jacrev(F)(X)",
    "jacrev_vmap": "jax.jacrev(jax.vmap(F))(X)",
    "jacfwd": "jax.jacfwd(F)(X)",
    "hessian": "jax.hessian(s(F))(X)",
    "grad_grad": "jax.vmap(jax.grad(jax.grad(F)))(X)",
    "jvp_vmap": "jax.jvp(jax.vmap(F), (X,), (T,))",
    "vmap_jvp": "jax.vmap(lambda x, t: jax.jvp(F, (x,), (t,)))(X, T)",
    "linearize_vmap": "jax.linearize(jax.vmap(F), X)[1](T)",
    "vjp_vmap": "jax.vjp(jax.vmap(F), X)[1](T)",
    "vmap_vjp": "jax.vmap(lambda x, t: jax.vjp(F, x)[1](t))(X, T)",
}


def compositions(functions):
    """``"name:order" -> expression`` for each function and composition order."""
    return {f"{fn}:{comp}": expr.replace("F", f"({fexpr})")
            for fn, fexpr in functions.items() for comp, expr in COMPOSITIONS.items()}


def namespace(impl):
    if impl == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax
    else:
        import xjit as jax
        import xjit.numpy as jnp
        from xjit import lax
    return {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "partial": functools.partial}


def _leaf(x):
    arr = np.asarray(x)
    rec = {"dtype": arr.dtype.name, "shape": list(arr.shape),
           "weak_type": bool(getattr(x, "weak_type", False)), "type": type(x).__name__}
    if arr.dtype.kind in "biuf":
        rec["values"] = arr.astype(np.float64).ravel().tolist()
    return rec


def _tree_text(treedef):
    return re.sub(r"PyTreeDef\((.*)\)", r"\1", str(treedef))


def describe(result, impl):
    if isinstance(result, str):
        return {"text": _ADDR.sub(" at 0x...", result)}
    tree_util = namespace(impl)["jax"].tree_util
    leaves, treedef = tree_util.tree_flatten(result)
    return {"tree": _tree_text(treedef), "leaves": [_leaf(x) for x in leaves]}


def run(prelude, expr, impl, env_cache={}):
    """The record of ``expr`` under ``impl`` ("jax" or "xjit")."""
    key = (impl, prelude)
    env = env_cache.get(key)
    if env is None:
        env = namespace(impl)
        exec(compile(prelude, "<prelude>", "exec"), env)
        env_cache[key] = env
    try:
        return describe(eval(compile(expr, "<case>", "eval"), dict(env)), impl)
    except Exception as e:  # the error is the behaviour under test
        msg = str(e).split("\n")[0]
        return {"error": type(e).__name__, "message": _ADDR.sub(" at 0x...", msg)}


def compare(got, want, rtol=1e-5, atol=1e-6):
    if "error" in want:
        assert got.get("error") == want["error"], f"expected {want}; got {got}"
        # the opening of the message; the rest may name engine internals
        assert got["message"][:60] == want["message"][:60], (got["message"], want["message"])
        return
    assert "error" not in got, f"raised {got['error']}: {got['message']}"
    if "text" in want:
        assert got.get("text") == want["text"], \
            f"\n--- got ---\n{got.get('text')}\n--- want ---\n{want['text']}"
        return
    assert got["tree"] == want["tree"], (got["tree"], want["tree"])
    for g, w in zip(got["leaves"], want["leaves"]):
        for k in ("dtype", "shape", "weak_type"):
            assert g[k] == w[k], (k, g, w)
        if w.get("type") in ("float", "int", "bool"):  # a Python scalar stays one
            assert g["type"] == w["type"], (g["type"], w["type"])
        if "values" in w:
            np.testing.assert_allclose(g["values"], w["values"], rtol=rtol, atol=atol,
                                       equal_nan=True)


def load(name):
    with open(os.path.join(HERE, f"{name}.json")) as f:
        return json.load(f)


def record(name, prelude, cases):
    out = {case: run(prelude, expr, "jax") for case, expr in cases.items()}
    with open(os.path.join(HERE, f"{name}.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    return out


def tests(name, prelude, cases, known, every):
    """The tests of a recorded-case file: each case against its record, the
    records covering the cases, and a sample re-run on the real JAX."""
    import pytest
    expected = functools.lru_cache(None)(lambda: load(name))

    @pytest.mark.parametrize("case", [pytest.param(n, marks=pytest.mark.xfail(
        reason=known[n], strict=True)) if n in known else n for n in sorted(cases)])
    def test_matches_jax(case):
        compare(run(prelude, cases[case], "xjit"), expected()[case])

    def test_every_case_recorded():
        assert sorted(expected()) == sorted(cases)

    @pytest.mark.compare
    @pytest.mark.parametrize("case", sorted(cases)[::every])
    def test_records_match_live_jax(case):
        compare(run(prelude, cases[case], "jax"), expected()[case])

    return test_matches_jax, test_every_case_recorded, test_records_match_live_jax
