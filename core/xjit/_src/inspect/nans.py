"""NaN/Inf checking: find the first operation that produced a NaN (or Inf)
from finite inputs and raise ``FloatingPointError`` at the user's line.

Eager operations are checked one by one. A jitted function whose output holds
a NaN is replayed de-optimised (``jax_disable_jit``), so the check fires at
the primitive that created it, inside the user's own Python frame. The
exception's traceback is rewritten to end in that frame, so ``pdb.post_mortem``
(and IPython's ``%debug``) open where the user can ``p x``.
"""
from __future__ import annotations

import types

import numpy as np

from .. import core, dtypes
from ..config import config
from . import events


def _bad_kind(v: np.ndarray):
    if config.jax_debug_nans and np.isnan(v).any():
        return "nan"
    if config.jax_debug_infs and np.isinf(v).any():
        return "inf"
    return None


def _host(x):
    return np.asarray(x)


def _summary(v) -> str:
    v = np.asarray(v)
    if v.size <= 6:
        return np.array2string(v, separator=", ")
    finite = v[np.isfinite(v)] if dtypes.is_inexact(v.dtype) else v
    rng = f"min={finite.min():.4g} max={finite.max():.4g}" if finite.size else "no finite values"
    return (f"{v.dtype.name}{list(v.shape)} {rng} nan={int(np.isnan(v).sum()) if dtypes.is_inexact(v.dtype) else 0}"
            f" inf={int(np.isinf(v).sum()) if dtypes.is_inexact(v.dtype) else 0}")


def check_primitive(prim, params, args, outs):
    """Called after each eager primitive while the checks are on."""
    for x in outs:
        if not dtypes.is_inexact(x.aval.dtype):
            continue
        kind = _bad_kind(_host(x))
        if kind is None:
            continue
        # Only blame this op if its inputs were finite: NaNs that merely flow
        # through are attributed to the op that first made them.
        if any(dtypes.is_inexact(core.aval_of(a).dtype) and _bad_kind(_host(a)) == kind for a in args):
            continue
        raise_at_user_frame(prim, params, args, kind)


def check_jit_outputs(name, outs) -> bool:
    """True when a jitted function's outputs need a de-optimised replay."""
    for x in outs:
        if dtypes.is_inexact(x.aval.dtype) and _bad_kind(_host(x)) is not None:
            return True
    return False


def _eqn_text(prim, params, args):
    """The equation, with its inputs named a, b, ... as in the input summary."""
    from ..pretty import Context, pp_eqn, render
    in_avals = [core.aval_of(a) for a in args]
    try:
        out = prim.abstract_eval(*in_avals, **params)
    except Exception:  # printing is best effort; the error itself matters
        return prim.name
    outs = out if prim.multiple_results else [out]
    eqn = core.JaxprEqn([core.Var(a) for a in in_avals], [core.Var(a) for a in outs], prim, params)
    ctx = Context()
    for v in eqn.invars:
        ctx.name(v)
    return render(pp_eqn(eqn, ctx))


def raise_at_user_frame(prim, params, args, kind):
    word = "invalid value (nan)" if kind == "nan" else "invalid value (inf)"
    msg = f"{word} encountered in {prim.name}"
    src = core.eqn_source.get()
    frame = core.user_frame()
    where = (f"{src.filename}:{src.lineno} ({src.function})" if src is not None else
             f"{frame.f_code.co_filename}:{frame.f_lineno} ({frame.f_code.co_name})"
             if frame is not None else "unknown")
    names = "abcdefghijklmnopqrstuvwxyz"
    inputs = "\n".join(f"    {names[i] if i < 26 else i} = {_summary(a)}" for i, a in enumerate(args))
    detail = (f"\n  equation: {_eqn_text(prim, params, args)}\n  inputs:\n{inputs}\n"
              f"  created at: {where}")
    if events.state.active:
        events.emit(events.Event("nan", events.now(), prim.name, 0,
                                 details={"primitive": prim.name, "message": msg,
                                          "eqn": _eqn_text(prim, params, args),
                                          "filename": src.filename if src else (frame and frame.f_code.co_filename),
                                          "lineno": src.lineno if src else (frame and frame.f_lineno)}))
    err = FloatingPointError(msg + detail)
    if frame is not None:
        err = err.with_traceback(types.TracebackType(None, frame, frame.f_lasti, frame.f_lineno))
    raise err


def replay_deoptimized(fun, args, kwargs, what="nan"):
    """Re-run a jitted function op by op; the per-op check raises at the line
    that produced the NaN. Returns normally if the replay finds nothing."""
    print(f"Invalid {what} value encountered in the output of a jax.jit function. "
          "Calling the de-optimized version.")
    try:
        with config.override("jax_disable_jit", True):
            fun(*args, **kwargs)
    except FloatingPointError as e:
        raise e.with_traceback(filter_traceback(e.__traceback__)) from None


def filter_traceback(tb):
    """Drop xjit-internal frames (and consecutive duplicates of a frame) from a
    traceback, keeping the user's frames in order."""
    kept = []
    while tb is not None:
        f = tb.tb_frame
        if not core._is_internal(f.f_code.co_filename):
            if kept and kept[-1][0] is f:
                kept[-1] = (f, tb.tb_lasti, tb.tb_lineno)
            else:
                kept.append((f, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    new = None
    for f, lasti, lineno in reversed(kept):
        new = types.TracebackType(new, f, lasti, lineno)
    return new
