"""NaN/Inf checking: find the first operation that produced a NaN (or Inf)
from finite inputs and raise ``FloatingPointError`` at the user's line.

Eager operations are checked one by one. A jitted function whose output holds
a NaN is replayed de-optimised (``jax_disable_jit``), so the check fires at
the primitive that created it, inside the user's own Python frame. The
exception's traceback is rewritten to end in that frame, so ``pdb.post_mortem``
(and IPython's ``%debug``) open where the user can ``p x``.
"""
from __future__ import annotations

import sys
import types

import numpy as np

from xjit._src import core, dispatch, dtypes
from xjit._src.config import config
from xjit._src.inspect import events
from xjit._src import traceback_util
from xjit._src.traceback_util import filter_traceback


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


def _value_str(v) -> str:
    v = np.asarray(v)
    return repr(v.item()) if v.ndim == 0 else _summary(v)


def check_primitive(prim, params, args, outs):
    """Called after each eager primitive while the checks are on."""
    if _probing.on:
        return
    if _watch.line is not None:
        _check_derivative(prim, params, args)
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
    src = core.eqn_source.get()
    frame = core.user_frame()
    backward = src is not None and (_in_backward_pass() or _in_derivative_of_jvp_rule(prim))
    msg = f"{word} encountered in {prim.name}" + (" (backward pass)" if backward else "")
    where = (f"{src.filename}:{src.lineno} ({src.function})" if src is not None else
             f"{frame.f_code.co_filename}:{frame.f_lineno} ({frame.f_code.co_name})"
             if frame is not None else "unknown")
    err = _error(msg, prim, params, args, where, src, frame)
    if backward:  # the replay re-runs the forward pass and stops at this line
        err.xjit_forward_line = (src.filename, src.lineno)
    _raise_in(err, frame)


def _error(msg, prim, params, args, where, src, frame):
    names = "abcdefghijklmnopqrstuvwxyz"
    inputs = "\n".join(f"    {names[i] if i < 26 else i} = {_summary(a)}" for i, a in enumerate(args))
    eqn = _eqn_text(prim, params, args)
    detail = f"\n  equation: {eqn}\n  inputs:\n{inputs}\n  created at: {where}"
    if events.state.active:
        events.emit(events.Event("nan", events.now(), prim.name, 0, details={
            "primitive": prim.name, "message": msg, "eqn": eqn,
            "filename": src.filename if src else (frame and frame.f_code.co_filename),
            "lineno": src.lineno if src else (frame and frame.f_lineno)}))
    return FloatingPointError(msg + detail)


def _raise_in(err, frame):
    """Raise ``err`` with a traceback ending in the user's ``frame``, whose
    tracer locals are first replaced by their concrete values (so
    ``%debug`` can ``p x[0]``)."""
    if frame is not None:
        _concretize_locals(frame)
        err = err.with_traceback(types.TracebackType(None, frame, frame.f_lasti, frame.f_lineno))
    raise err


def _in_backward_pass():
    from xjit._src.interpreters import ad
    code = ad.backward_pass.__code__
    f = sys._getframe(2)
    while f is not None:
        if f.f_code is code:
            return True
        f = f.f_back
    return False


def _in_derivative_of_jvp_rule(prim):
    """True while a primitive's JVP rule, linearizing for ``grad``, computes
    its derivative with ``prim`` (a different primitive): an inf or NaN made
    there (``0.5 / sqrt(0)`` in sqrt's rule) is born in the gradient, at the
    forward line, exactly like one made by the backward pass; the rule's own
    primitive computes the primal output, which is a forward value."""
    from xjit._src.interpreters import ad
    code = ad.JVPTrace.process_primitive.__code__
    f = sys._getframe(2)
    while f is not None:
        if f.f_code is code:  # the innermost rule decides
            trace, rule_prim = f.f_locals.get("self"), f.f_locals.get("primitive")
            return (getattr(trace, "linearizing", False) and rule_prim in ad.jvp_rules
                    and rule_prim is not prim)
        f = f.f_back
    return False


# -- the forward line of a gradient NaN: while re-running the function, each
# primitive applied at that line has its derivative probed; the first whose
# derivative is not finite (from finite inputs) stops the replay there.


class _Watch:
    line = None  # (filename, lineno) while stopping at a forward line
    kind = "nan"


ANY_LINE = ("", -1)  # every line: the NaN's own line made no non-finite derivative


class _Probing:
    on = False


_watch, _probing = _Watch(), _Probing()


def _check_derivative(prim, params, args):
    frame = core.user_frame()
    if frame is None or (_watch.line is not ANY_LINE
                         and (frame.f_code.co_filename, frame.f_lineno) != _watch.line):
        return
    idx = [i for i, a in enumerate(args) if dtypes.is_inexact(core.aval_of(a).dtype)]
    if not idx or any(_bad_kind(_host(args[i])) for i in idx):
        return
    from xjit._src.ad_api import jvp

    def at(*xs):
        full = list(args)
        for i, x in zip(idx, xs):
            full[i] = x
        return prim.bind(*full, **params)

    _probing.on = True
    try:
        with core.set_current_trace(core.eval_trace):
            _, tangent = jvp(at, [args[i] for i in idx],
                             [np.ones(core.aval_of(args[i]).shape, core.aval_of(args[i]).dtype)
                              for i in idx])
        tangents = tangent if isinstance(tangent, (list, tuple)) else [tangent]
        bad = next((k for k in ("nan", "inf") for t in tangents
                    if (np.isnan if k == "nan" else np.isinf)(_host(t)).any()), None)
    except Exception:  # a probe that cannot run stops nothing
        bad = None
    finally:
        _probing.on = False
    if bad is None:
        return
    named = ", ".join(f"{_local_name(frame, args[i]) or 'abcdefgh'[k % 8]} = "
                      f"{_value_str(args[i])}" for k, i in enumerate(idx))
    word = "invalid value (nan)" if _watch.kind == "nan" else "invalid value (inf)"
    msg = (f"{word} in the gradient of {prim.name} at {named} (backward pass): its derivative "
           f"there is {bad}")
    where = f"{frame.f_code.co_filename}:{frame.f_lineno} ({frame.f_code.co_name})"
    _raise_in(_error(msg, prim, params, args, where, None, frame), frame)


def _local_name(frame, value):
    for k, v in frame.f_locals.items():
        if v is value or _concrete(v) is value:
            return k
    return None


def _concrete(v):
    """``v`` with JVP/batch tracers replaced by the values they carry."""
    if isinstance(v, core.Tracer):
        while isinstance(v, core.Tracer):
            inner = getattr(v, "primal", None)
            if inner is None:
                inner = getattr(v, "val", None)
            if inner is None:
                return v
            v = inner
        return v
    if type(v) in (list, tuple, dict):
        from xjit._src import tree_util
        leaves, tree = tree_util.tree_flatten(v)
        if any(isinstance(x, core.Tracer) for x in leaves):
            return tree_util.tree_unflatten(tree, [_concrete(x) for x in leaves])
    return v


def _concretize_locals(frame):
    import ctypes
    loc = frame.f_locals
    changed = False
    for k, v in list(loc.items()):
        c = _concrete(v)
        if c is not v:
            loc[k] = c
            changed = True
    if changed:
        ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))


def stop_at_forward_line(fun, args, kwargs, err):
    """Re-run ``fun`` eagerly and raise at the forward line named by a
    backward-pass error ``err``, if a primitive there has a non-finite
    derivative. If none has, the NaN is an infinite derivative made on
    another line meeting a zero (``sqrt`` of a sum of squares at 0): stop at
    the first primitive of the forward pass whose derivative is not finite.
    Raises the backward pass's error again if there is none."""
    _watch.kind = "inf" if "(inf)" in str(err) else "nan"
    try:
        for line in (err.xjit_forward_line, ANY_LINE):
            _watch.line = line
            try:
                with config.override("jax_disable_jit", True):
                    fun(*args, **kwargs)
            except FloatingPointError as again:  # the backward pass's NaN again: look wider
                if line is ANY_LINE or getattr(again, "xjit_forward_line", None) is None:
                    raise
    finally:
        _watch.line = None


def replay_deoptimized(fun, args, kwargs, what="nan"):
    """Re-run a jitted function op by op; the per-op check raises at the line
    that produced the NaN. Returns normally if the replay finds nothing."""
    print(f"Invalid {what} value encountered in the output of a jax.jit function. "
          "Calling the de-optimized version.")
    try:
        with config.override("jax_disable_jit", True):
            fun(*args, **kwargs)
    except FloatingPointError as e:
        if getattr(e, "xjit_forward_line", None) and _watch.line is None:
            try:
                stop_at_forward_line(fun, args, kwargs, e)
            except FloatingPointError as stopped:
                e = stopped
        raise e.with_traceback(filter_traceback(e.__traceback__)) from None


def _replay_at_boundary(fun, args, kwargs, err):
    """An eager ``grad`` (outermost entry point) hit a backward-pass NaN:
    re-run it to stop at the forward line."""
    if getattr(err, "xjit_forward_line", None) and _watch.line is None:
        stop_at_forward_line(fun, args, kwargs, err)


traceback_util.register_replay(_replay_at_boundary)


dispatch.check_nans = check_primitive
