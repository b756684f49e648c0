"""Running a fuzz program in one namespace (xjit or jax) under each
transformation, recording what came out, and comparing two recordings.

A recording is JSON: ``{"error": class name, "message": ...}`` or
``{"leaves": [{"dtype", "shape", "weak", "data"}, ...]}`` (the output pytree's
leaves; data flat, NaN and infinities spelled as strings, complex numbers as
``[re, im]`` pairs). Values compare with a tolerance set by the dtype: exact
for booleans and integers, a few units in the last place for floats (more for
linalg, whose algorithms may round differently).
"""
from __future__ import annotations

import math
import types
import warnings

import numpy as np

from . import programs

MODES = ("eager", "jit", "grad", "vmap")
KINDS = ("agree", "wrong_value", "weak_type", "raises_xjit_only", "raises_jax_only",
         "exception_class", "skipped")


def namespace(name):
    """``jax``/``jnp``/``lax`` of the real JAX (``"jax"``) or of xjit."""
    if name == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax
    else:
        import xjit as jax
        import xjit.numpy as jnp
        from xjit import lax
    return types.SimpleNamespace(name=name, jax=jax, jnp=jnp, lax=lax)


def _is_float_arg(arg):
    if "py" in arg:
        return isinstance(arg["py"], float)
    return arg["dtype"] in ("float16", "bfloat16", "float32", "float64")


def applicable(prog, mode):
    if mode == "grad":
        return programs.grad_ok(prog) and _is_float_arg(prog["args"][0])
    if mode == "vmap":
        return "vmap_alt" in prog
    return True


def transformed(ns, prog, mode):
    """The program's function under ``mode`` and the arguments to call it with."""
    f = programs.build(ns, prog)
    args = [programs.materialize(a) for a in prog["args"]]
    if mode == "eager":
        return f, args
    if mode == "jit":
        return ns.jax.jit(f), args
    if mode == "grad":
        def scalar(*xs):
            leaves = ns.jax.tree_util.tree_leaves(f(*xs))
            return sum(ns.jnp.sum(ns.jnp.real(leaf)) for leaf in leaves)
        return ns.jax.grad(scalar), args
    if mode == "vmap":
        alt = programs.materialize(prog["vmap_alt"])
        batched = np.stack([args[0], alt])
        in_axes = (0,) + (None,) * (len(args) - 1)
        return ns.jax.vmap(f, in_axes=in_axes), [batched] + args[1:]
    raise ValueError(mode)


def _encode(v):
    if isinstance(v, complex):
        return [_encode(v.real), _encode(v.imag)]
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def record_leaf(x):
    a = np.asarray(x)
    dt = a.dtype
    if dt.kind == "c":
        data = [_encode(complex(v)) for v in a.ravel().tolist()]
    elif dt.kind in "biu":
        data = a.ravel().tolist()
    else:
        data = [_encode(float(v)) for v in a.astype(np.float64).ravel().tolist()]
    return {"dtype": str(dt), "shape": list(a.shape),
            "weak": bool(getattr(x, "weak_type", False)), "data": data}


def run(ns, prog, mode):
    """The recording of ``prog`` under ``mode`` in namespace ``ns``."""
    if not applicable(prog, mode):
        return {"skipped": True}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn, args = transformed(ns, prog, mode)
            out = fn(*args)
            leaves = ns.jax.tree_util.tree_leaves(out)
            if not all(hasattr(leaf, "dtype") for leaf in leaves):
                leaves = [ns.jnp.asarray(leaf) for leaf in leaves]
            return {"leaves": [record_leaf(leaf) for leaf in leaves]}
    except Exception as e:  # noqa: BLE001 - every exception is a result to compare
        return {"error": type(e).__name__, "message": str(e)[:300]}


_RTOL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-5, "complex64": 2e-5,
         "float64": 1e-12, "complex128": 1e-12}


def _decode(v):
    if isinstance(v, list):
        return complex(_decode(v[0]), _decode(v[1]))
    return float(v) if isinstance(v, str) else v


def _close(dtype, want, got, loose):
    if dtype not in _RTOL:
        return want == got
    rtol = _RTOL[dtype] * (100 if loose else 1)
    w = np.array([_decode(v) for v in want], dtype=np.complex128).ravel()
    g = np.array([_decode(v) for v in got], dtype=np.complex128).ravel()
    scale = max(1.0, float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)))
    for part in (np.real, np.imag):
        a, b = part(w), part(g)
        if not np.array_equal(np.isnan(a), np.isnan(b)):
            return False
        fin = np.isfinite(a) & np.isfinite(b)
        inf_a, inf_b = np.where(np.isnan(a), 0, a), np.where(np.isnan(b), 0, b)
        if not np.array_equal(inf_a[~fin], inf_b[~fin]):
            return False
        if not np.all(np.abs(a[fin] - b[fin]) <= rtol * np.abs(a[fin]) + rtol * 1e-2 * scale):
            return False
    return True


def compare(want, got, prog=None):
    """How the xjit recording ``got`` differs from JAX's ``want``: one of KINDS,
    and a short detail."""
    if "skipped" in want or "skipped" in got:
        return "skipped", ""
    if "error" in want and "error" in got:
        if want["error"] == got["error"]:
            return "agree", ""
        return "exception_class", f"jax {want['error']}, xjit {got['error']}: {got['message'][:120]}"
    if "error" in want:
        return "raises_jax_only", f"jax {want['error']}: {want['message'][:120]}"
    if "error" in got:
        return "raises_xjit_only", f"xjit {got['error']}: {got['message'][:120]}"
    wl, gl = want["leaves"], got["leaves"]
    if len(wl) != len(gl):
        return "wrong_value", f"{len(gl)} outputs, jax has {len(wl)}"
    loose = prog is not None and prog["op"] == "linalg"
    weak = ""
    for i, (w, g) in enumerate(zip(wl, gl)):
        if (w["dtype"], w["shape"]) != (g["dtype"], g["shape"]):
            return "wrong_value", (f"out {i}: xjit {g['dtype']}{g['shape']}, "
                                   f"jax {w['dtype']}{w['shape']}")
        if not _close(w["dtype"], w["data"], g["data"], loose):
            return "wrong_value", f"out {i}: xjit {g['data'][:6]}, jax {w['data'][:6]}"
        if w["weak"] != g["weak"]:
            weak = f"out {i}: weak_type xjit {g['weak']}, jax {w['weak']}"
    return ("weak_type", weak) if weak else ("agree", "")
