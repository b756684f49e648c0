"""``xjit.debug``: print, call back and stop at runtime values from inside
traced code (jit, grad, vmap), through host callbacks."""
from __future__ import annotations

import cmd
import linecache
import string
import sys

import numpy as np

from xjit._src import core, tree_util
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


class _Debugger(cmd.Cmd):
    """A small pdb-like prompt over one frame's runtime values."""

    prompt = "(jaxdb) "

    def __init__(self, filename, lineno, function, env, stdin=None, stdout=None):
        super().__init__(stdin=stdin or sys.stdin, stdout=stdout or sys.stdout)
        # Commands come through input() unless a stream was passed: readline in
        # a terminal, and in a Jupyter kernel an input_request on the stdin
        # channel (a kernel's sys.stdin is no tty and reads EOF at once, which
        # cmd takes as "continue"). cmd turns EOFError from input() into "EOF".
        self.use_rawinput = stdin is None
        self.filename, self.lineno, self.function, self.env = filename, lineno, function, env

    def preloop(self):
        self.stdout.write(f"Entering jaxdb:\n> {self.filename}({self.lineno}){self.function}()\n")
        self._list()

    def _list(self, around=5):
        for n in range(max(1, self.lineno - around), self.lineno + around + 1):
            line = linecache.getline(self.filename, n)
            if not line:
                continue
            mark = "->" if n == self.lineno else "  "
            self.stdout.write(f"{n:4d} {mark} {line.rstrip()}\n")

    def _eval(self, expr):
        try:
            return repr(eval(expr, self.env.get("__globals__", {}), self.env))
        except Exception as e:  # show the user's error, keep the prompt alive
            return f"*** {type(e).__name__}: {e}"

    def do_p(self, arg):
        """p expr: print the value of expr."""
        self.stdout.write(self._eval(arg) + "\n")

    do_pp = do_p

    def do_l(self, arg):
        """l: list source around the breakpoint."""
        self._list()

    do_list = do_l

    def do_w(self, arg):
        """w: show where the breakpoint is."""
        self.stdout.write(f"> {self.filename}({self.lineno}){self.function}()\n")

    do_where = do_w

    def do_c(self, arg):
        """c: continue execution."""
        return True

    do_continue = do_cont = do_c

    def do_q(self, arg):
        """q: quit (continue execution; the computation cannot be aborted midway)."""
        return True

    do_quit = do_exit = do_q

    def do_EOF(self, arg):
        return True

    def default(self, line):
        self.stdout.write(self._eval(line) + "\n")

    def emptyline(self):
        return False


def _announce(kind, filename, lineno, function, env):
    """Tell ``xjit.inspect`` subscribers (the notebook sidebar) that a
    breakpoint stopped or resumed, with the frame's locals as reprs."""
    from xjit._src.inspect import events
    if not events.state.subscribers:
        return
    local_reprs = {k: repr(v)[:2000] for k, v in env.items() if k != "__globals__"}
    events.emit(events.Event(kind, events.now(), function, 0, filename, lineno,
                             details={"function": function, "locals": local_reprs}))


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False, token=None,
               **kwargs):
    """Stop at this line at runtime and inspect the frame's values."""
    frame = core.user_frame()
    if frame is None:
        raise RuntimeError("xjit.debug.breakpoint found no calling frame")
    names, flat, statics = [], [], {}
    for name, val in frame.f_locals.items():
        if isinstance(val, (core.Tracer, ArrayImpl)):
            names.append(name)
            flat.append(val)
        else:
            statics[name] = val
    filename, lineno, function = frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
    globs = frame.f_globals

    def stop(*values):
        env = dict(statics)
        env.update(zip(names, values))
        env["__globals__"] = globs
        _announce("breakpoint", filename, lineno, function, env)
        try:
            _Debugger(filename, lineno, function, env).cmdloop()
        finally:
            _announce("breakpoint_continue", filename, lineno, function, env)

    debug_callback(lambda *v: stop(*v), *flat, ordered=ordered)
