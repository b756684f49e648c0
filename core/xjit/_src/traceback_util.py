"""Tracebacks without xjit's own frames (``jax_traceback_filtering``).

An exception that leaves a public entry point (a jitted call, ``grad``,
``vmap``, ...) has the frames of excluded paths (xjit itself, and whatever
libraries ``register_exclusion`` names) taken out, so it reads from the
user's call down to the user's line that failed. Only the outermost entry
point filters; inner ones re-raise untouched. Modes, as in JAX:

* ``off``: tracebacks are left alone;
* ``tracebackhide``: hidden frames get ``__tracebackhide__`` (IPython skips them);
* ``remove_frames``: hidden frames are removed, and the full traceback is kept
  as the ``__cause__`` of the exception;
* ``quiet_remove_frames``: hidden frames are removed and a note says so;
* ``auto``: ``tracebackhide`` under IPython, else ``quiet_remove_frames``.
"""
from __future__ import annotations

import functools
import os
import sys
import traceback
import types

from xjit._src import core
from xjit._src.config import config

_exclude_paths: list[str] = []
_boundary_codes: set = set()  # code objects of the entry points' frames

_simplified_tb_msg = ("For simplicity, JAX has removed its internal frames from the "
                      "traceback of the following exception. Set "
                      "JAX_TRACEBACK_FILTERING=off to include these.")
_jax_message_append = (
    "The stack trace below excludes JAX-internal frames.\n"
    "The preceding is the original exception that occurred, unmodified.\n"
    "\n--------------------")


class UnfilteredStackTrace(Exception):
    """The full traceback, attached as ``__cause__`` in ``remove_frames`` mode."""


def register_exclusion(path: str) -> None:
    """Treat files under ``path`` as library code, as xjit's own: hidden from
    filtered tracebacks, and skipped when attributing an equation (or a lint
    finding) to the user's source line. Libraries built on xjit (and the
    notebook extension) register their directory."""
    path = os.path.abspath(path)
    _exclude_paths.append(path)
    core.register_internal_dir(path)
    core._internal_cache.clear()


def include_filename(filename: str) -> bool:
    return not core._is_internal(filename)


def include_frame(f: types.FrameType) -> bool:
    return include_filename(f.f_code.co_filename)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback with only the frames of included files, in order."""
    kept = []
    for f, lineno in traceback.walk_tb(tb):
        if include_frame(f):
            if kept and kept[-1][0] is f:  # a frame re-entered (an error raised at a user
                kept[-1] = (f, lineno)      # line from below it): once, innermost line
            else:
                kept.append((f, lineno))
    out = None
    for f, lineno in reversed(kept):
        out = types.TracebackType(out, f, f.f_lasti, lineno)
    return out


def _with_caller_frames(tb):
    """``tb`` extended upwards with the callers' frames, up to the module level
    (the full traceback that ``remove_frames`` keeps as the cause)."""
    out = tb
    f = tb.tb_frame.f_back
    while f is not None:
        out = types.TracebackType(out, f, f.f_lasti, f.f_lineno)
        if f.f_code.co_name == "<module>":
            break
        f = f.f_back
    return out


def _running_under_ipython() -> bool:
    ipython = sys.modules.get("IPython")
    return ipython is not None and getattr(ipython, "get_ipython", lambda: None)() is not None


def filtering_mode() -> str:
    mode = config.jax_traceback_filtering
    if mode is None or mode == "auto":
        return "tracebackhide" if _running_under_ipython() else "quiet_remove_frames"
    return mode


def _under_another_boundary(frame) -> bool:
    f = frame.f_back if frame is not None else None
    while f is not None:
        if f.f_code in _boundary_codes:
            return True
        f = f.f_back
    return False


def filter_exception(e: BaseException, boundary_frame) -> None:
    """Rewrite ``e`` in place as the entry point at ``boundary_frame`` hands it
    to the user; the caller then re-raises it with a bare ``raise``."""
    mode = filtering_mode()
    if mode == "off" or _under_another_boundary(boundary_frame) or \
            getattr(e, "_xjit_filtered", False):
        return
    tb = e.__traceback__
    if tb is None:
        return
    if mode == "tracebackhide":
        for f, _ in traceback.walk_tb(tb):
            if not include_frame(f):
                f.f_locals["__tracebackhide__"] = True
        return
    if mode not in ("remove_frames", "quiet_remove_frames"):
        raise ValueError(f"JAX_TRACEBACK_FILTERING={mode} is not a valid value.")
    e.with_traceback(filter_traceback(tb))
    _mark(e)
    if mode == "quiet_remove_frames":
        e.add_note("--------------------\n" + _simplified_tb_msg)
        return
    head = "".join(traceback.format_exception_only(type(e), e)).strip()
    full = UnfilteredStackTrace(f"{head}\n\n{_jax_message_append}")
    full.with_traceback(_with_caller_frames(tb))
    full.__cause__, full.__context__ = e.__cause__, e.__context__
    full.__suppress_context__ = e.__suppress_context__
    e.__cause__, e.__context__ = full, None


def _mark(e):
    try:
        e._xjit_filtered = True
    except AttributeError:  # exception types with __slots__
        pass


def api_boundary(fun):
    """Wrap a public entry point so exceptions leaving it are filtered."""
    @functools.wraps(fun)
    def reraise_with_filtered_traceback(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841  (IPython hides this frame)
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            frame = sys._getframe()
            if _replay is not None and isinstance(e, FloatingPointError) and \
                    not _under_another_boundary(frame):
                try:
                    _replay(fun, args, kwargs, e)
                except FloatingPointError as stopped:  # stopped at the user's forward line
                    stopped.__suppress_context__ = True
                    filter_exception(stopped, frame)
                    raise
            filter_exception(e, frame)
            raise
    _boundary_codes.add(reraise_with_filtered_traceback.__code__)
    return reraise_with_filtered_traceback


_replay = None  # NaN checking's re-run of an entry point (set by the inspect layer)


def register_replay(replay) -> None:
    """``replay(fun, args, kwargs, error)`` runs at the outermost entry point
    when a FloatingPointError leaves it; it may raise a better-placed one."""
    global _replay
    _replay = replay


def register_boundary(code) -> None:
    """Mark a code object whose frames are entry points that filter inline
    (``try: ... except Exception as e: filter_exception(e, frame); raise``),
    as jit's call does to stay free of a wrapper frame."""
    _boundary_codes.add(code)
