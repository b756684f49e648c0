"""``xjit.debug``: print, call back and stop at runtime values from inside
traced code (jit, grad, vmap), through host callbacks."""
from __future__ import annotations

import cmd
import dataclasses
import linecache
import pprint
import string
import sys
import traceback
import warnings

import numpy as np

from xjit._src import core, traceback_util, tree_util
from xjit._src.interpreters import mlir as lowering
from .array import ArrayImpl
from xjit._src.callback import debug_effect_rules, emit_callback


def _host(x):
    return np.asarray(x)


# -- debug_print


def _format(fmt, np_printoptions, in_tree, flat):
    args, kwargs = tree_util.tree_unflatten(in_tree, [_host(x) for x in flat])
    with np.printoptions(**dict(np_printoptions)):
        return fmt.format(*args, **kwargs)


debug_print_p = core.Primitive("debug_print")
debug_print_p.multiple_results = True
core.abstract_eval_rules[debug_print_p] = lambda *avals, **params: []


def _print_impl(*args, fmt, np_printoptions, in_tree, **_):
    sys.stdout.write(_format(fmt, np_printoptions, in_tree, args) + "\n")
    return []


def _print_lowering(ctx, avals_in, avals_out, *args, fmt, np_printoptions, in_tree, **_):
    def host_fn(*flat):
        _print_impl(*flat, fmt=fmt, np_printoptions=np_printoptions, in_tree=in_tree)
        return ()
    idx = ctx.module_ctx.add_host_callback(host_fn)
    return emit_callback(ctx, idx, args, avals_in, [], has_side_effect=True)


core.impl_rules[debug_print_p] = _print_impl
lowering.rules[debug_print_p] = _print_lowering
debug_effect_rules(debug_print_p)


def _printoptions():
    opts = np.get_printoptions()
    keys = ("edgeitems", "threshold", "floatmode", "precision", "suppress", "linewidth",
            "nanstr", "infstr", "sign", "formatter", "legacy", "override_repr")
    return tuple((k, opts.get(k)) for k in keys if k in opts)


def debug_print(fmt: str, *args, ordered: bool = False, partitioned: bool = False, **kwargs):
    """Print ``fmt.format(*args, **kwargs)`` with the runtime values."""
    if not isinstance(fmt, str):
        raise TypeError(f"jax.debug.print requires a format string as its first argument, got {fmt!r}")
    names = [f for _, f, _, _ in string.Formatter().parse(fmt) if f is not None]
    flat, in_tree = tree_util.tree_flatten((args, kwargs))
    flat = [x if isinstance(x, (core.Tracer, ArrayImpl)) else np.asarray(x) for x in flat]
    debug_print_p.bind(*flat, fmt=fmt, has_placeholders=bool(names), in_tree=in_tree,
                       logging_record=None, np_printoptions=_printoptions(), ordered=ordered,
                       partitioned=partitioned, static_args=())


# -- debug_callback


debug_callback_p = core.Primitive("debug_callback")
debug_callback_p.multiple_results = True
core.abstract_eval_rules[debug_callback_p] = lambda *avals, **params: []


def _callback_impl(*args, callback, **_):
    callback(*map(_host, args))
    return []


def _callback_lowering(ctx, avals_in, avals_out, *args, callback, **_):
    def host_fn(*flat):
        callback(*flat)
        return ()
    idx = ctx.module_ctx.add_host_callback(host_fn)
    return emit_callback(ctx, idx, args, avals_in, [], has_side_effect=True)


core.impl_rules[debug_callback_p] = _callback_impl
lowering.rules[debug_callback_p] = _callback_lowering
debug_effect_rules(debug_callback_p)


def debug_callback(callback, *args, ordered: bool = False, partitioned: bool = False, **kwargs):
    """Call ``callback(*args, **kwargs)`` with runtime values, for its side
    effects; its return value is ignored."""
    if not callable(callback):
        raise TypeError(f"first argument to jax.debug.callback must be callable, got {callback!r}")
    from xjit._src.callback import FlatCallback
    flat, in_tree = tree_util.tree_flatten((args, kwargs))
    flat = [x if isinstance(x, (core.Tracer, ArrayImpl)) else np.asarray(x) for x in flat]
    debug_callback_p.bind(*flat, callback=FlatCallback(callback, in_tree), ordered=ordered,
                          partitioned=partitioned)


# -- breakpoint


@dataclasses.dataclass
class DebuggerFrame:
    """One Python frame as the debugger shows it: its locals with every
    traced value replaced by the runtime value."""
    filename: str
    lineno: int
    function: str
    locals: dict
    globals: dict


def _user_frames(frame, filter_frames: bool, num_frames: int | None) -> list:
    """The breakpoint's frame and its callers, innermost first, without
    xjit's own frames (``filter_frames``), up to the script's or notebook
    cell's top level (what runs that is the interpreter or the kernel)."""
    out = []
    while frame is not None and (num_frames is None or len(out) < num_frames):
        if not filter_frames or traceback_util.include_frame(frame):
            out.append(frame)
            if frame.f_code.co_name == "<module>":
                break
        frame = frame.f_back
    return out


def _usable(tracer) -> bool:
    """Whether the traced computation can take ``tracer`` as an operand: it
    belongs to the current trace or one below it, and that trace is alive."""
    t = core.trace_ctx.trace
    while t is not None:
        if t is tracer._trace:
            return t.is_valid()
        t = t.parent
    return False


class _Unavailable:
    """A caller's traced value that belongs to no trace running here."""

    def __repr__(self):
        return "<traced value of another transformation>"


def _split_locals(f_locals, flat):
    """Locals as (static values, {name: (treedef, leaves with None where a
    traced leaf goes)}); the traced leaves are appended to ``flat``."""
    statics, traced = {}, {}
    for name, val in f_locals.items():
        try:
            with warnings.catch_warnings():  # e.g. a generator is a leaf, with a warning
                warnings.simplefilter("ignore")
                leaves, tree = tree_util.tree_flatten(val)
        except Exception:  # a container that cannot be flattened stays as it is
            statics[name] = val
            continue
        if not any(isinstance(x, core.Tracer) for x in leaves):
            statics[name] = val
            continue
        kept = []
        for x in leaves:
            if isinstance(x, core.Tracer) and _usable(x):
                flat.append(x)
                kept.append(None)
            else:
                kept.append(_Unavailable() if isinstance(x, core.Tracer) else x)
        traced[name] = (tree, kept)
    return statics, traced


def _concrete_locals(statics, traced, values) -> dict:
    env = dict(statics)
    it = iter(values)
    for name, (tree, kept) in traced.items():
        env[name] = tree_util.tree_unflatten(tree, [next(it) if x is None else x for x in kept])
    return env


class _Debugger(cmd.Cmd):
    """The ``(jaxdb)`` prompt over the stopped frames, with the commands of
    JAX's ``(jdb)``: p, pp, u(p), d(own), l(ist), w(here)/bt, c(ont(inue)),
    q(uit), and any other line evaluated as an expression in the frame."""

    prompt = "(jaxdb) "

    def __init__(self, frames: list, stdin=None, stdout=None, on_frame=None):
        super().__init__(stdin=stdin or sys.stdin, stdout=stdout or sys.stdout)
        # Commands come through input() unless a stream was passed: readline in
        # a terminal, and in a Jupyter kernel an input_request on the stdin
        # channel. cmd turns EOFError from input() into "EOF".
        self.use_rawinput = stdin is None
        self.frames, self.index, self.on_frame = frames, 0, on_frame

    @property
    def frame(self) -> DebuggerFrame:
        return self.frames[self.index]

    def _say(self, text):
        self.stdout.write(text + "\n")

    def preloop(self):
        self._say("Entering jaxdb:")
        self._context()

    def _context(self, around=2):
        """``> file(line)`` and the source around it, ``->`` at the line."""
        f = self.frame
        lines = [f"> {f.filename}({f.lineno})"]
        for n in range(max(1, f.lineno - around - 1), f.lineno + around + 1):
            line = linecache.getline(f.filename, n)
            if line:
                lines.append(("->  " if n == f.lineno else "    ") + line.rstrip("\n"))
        self._say("\n".join(lines))

    def _evaluate(self, expr):
        env = dict(self.frame.globals)
        env.update(self.frame.locals)
        return eval(expr, {}, env)

    def _show(self, expr, fmt=repr):
        try:
            self._say(fmt(self._evaluate(expr)))
        except Exception:  # the user's error, and the prompt stays
            self._say("*** " + traceback.format_exception_only(*sys.exc_info()[:2])[-1].strip())

    def default(self, line):
        self._show(line)

    def do_p(self, arg):
        """p expression: evaluate it in the current frame and print its repr."""
        self._show(arg)

    def do_pp(self, arg):
        """pp expression: evaluate it in the current frame and pretty-print it."""
        self._show(arg, pprint.pformat)

    def _move(self, to, limit_message):
        if 0 <= to < len(self.frames):
            self.index = to
            if self.on_frame is not None:
                self.on_frame(self.frame)
        else:
            self._say(limit_message)
        self._context()

    def do_up(self, arg):
        """u(p): move to the caller's frame."""
        self._move(self.index + 1, "At topmost frame.")

    do_u = do_up

    def do_down(self, arg):
        """d(own): move back towards the breakpoint's frame."""
        self._move(self.index - 1, "At bottommost frame.")

    do_d = do_down

    def do_list(self, arg):
        """l(ist): the source around the current line."""
        self._context(around=5)

    do_l = do_list

    def do_where(self, arg):
        """w(here): the stack, most recent frame last ('bt' too)."""
        lines = ["Traceback:"]
        for f in reversed(self.frames):
            lines.append(f'  File "{f.filename}", line {f.lineno}')
            lines.append("    " + (linecache.getline(f.filename, f.lineno).strip() or "<no source>"))
        self._say("\n".join(lines))

    do_w = do_bt = do_where

    def do_continue(self, arg):
        """c(ont(inue)): let the program go on."""
        return True

    do_c = do_cont = do_continue

    def do_quit(self, arg):
        """q(uit): stop the program (the jitted call raises)."""
        sys.exit(0)

    do_q = do_exit = do_quit

    def do_EOF(self, arg):
        """End of input: nobody can type here, so the program goes on."""
        self._say("")
        return True

    def emptyline(self):
        return False


def _announce(kind, frame: DebuggerFrame):
    """Tell ``xjit.inspect`` subscribers (the notebook sidebar) which frame a
    breakpoint stopped in, or moved to, or that it resumed, with the
    frame's locals as reprs."""
    from xjit._src.inspect import events
    if not events.state.subscribers:
        return
    local_reprs = {k: repr(v)[:2000] for k, v in frame.locals.items()}
    events.emit(events.Event(kind, events.now(), frame.function, 0, frame.filename, frame.lineno,
                             details={"function": frame.function, "locals": local_reprs}))


def _run_debugger(frames):
    try:
        _Debugger(frames, on_frame=lambda f: _announce("breakpoint", f)).cmdloop()
    except NotImplementedError:  # IPython's StdinNotImplementedError: no input requests here
        sys.stdout.write("\n(jaxdb) this frontend cannot answer input requests; continuing\n")


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False, token=None,
               **kwargs):
    """Stop here at runtime, with the values of this frame and its callers'
    (``num_frames`` of them; xjit's own frames skipped unless
    ``filter_frames=False``), at the ``(jaxdb)`` prompt. In a notebook the
    prompt reads through Jupyter's input requests."""
    caller = sys._getframe(1)
    frames = _user_frames(caller, filter_frames, num_frames)
    if not frames:
        raise RuntimeError("xjit.debug.breakpoint found no calling frame")
    flat, layout = [], []
    for f in frames:
        # a module's locals are its globals: read live, not copied
        statics, traced = ({}, {}) if f.f_locals is f.f_globals else _split_locals(f.f_locals, flat)
        layout.append((f.f_code.co_filename, f.f_lineno, f.f_code.co_name, statics, traced,
                       f.f_globals))
    counts = [sum(x is None for _, kept in traced.values() for x in kept)
              for *_, traced, _ in layout]

    def stop(*values):
        shown, start = [], 0
        for (filename, lineno, function, statics, traced, globs), n in zip(layout, counts):
            env = _concrete_locals(statics, traced, values[start:start + n])
            shown.append(DebuggerFrame(filename, lineno, function, env, globs))
            start += n
        _announce("breakpoint", shown[0])
        try:
            _run_debugger(shown)
        finally:
            _announce("breakpoint_continue", shown[0])

    debug_callback(lambda *v: stop(*v), *flat, ordered=ordered)
