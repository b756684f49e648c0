"""Where staged operations come from (JAX's ``source_info_util``): the user's
source line of each equation (``core.SourceInfo``, found by skipping frames
of excluded paths) and the *name stack* of ``named_scope``s and
transformations the operation was staged under."""
from __future__ import annotations

import contextlib

from xjit._src import core

SourceInfo = core.SourceInfo


class Scope:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class Transform:
    """A transformation in the name stack: wraps the scope after it, ``jvp(f)``."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class NameStack:
    """Immutable stack of scopes; ``str`` joins them with ``/`` (worked out
    once: lowering names every op after it)."""

    __slots__ = ("stack", "_str")

    def __init__(self, stack=()):
        self.stack = tuple(stack)
        self._str = None

    def extend(self, name):
        names = (name,) if isinstance(name, str) else tuple(name)
        return NameStack(self.stack + tuple(Scope(n) for n in names))

    def transform(self, name):
        return NameStack(self.stack + (Transform(name),))

    def __len__(self):
        return len(self.stack)

    def __add__(self, other):
        return NameStack(self.stack + other.stack)

    def __eq__(self, other):
        return type(other) is NameStack and [(type(s), s.name) for s in self.stack] == \
            [(type(s), s.name) for s in other.stack]

    def __hash__(self):
        return hash(tuple((type(s), s.name) for s in self.stack))

    def __str__(self):
        if self._str is None:
            self._str = self._joined()
        return self._str

    def _joined(self):
        names: list = []
        for s in reversed(self.stack):
            if type(s) is Scope:
                names.insert(0, s.name)
            else:
                names[:1] = [f"{s.name}({names[0] if names else ''})"]
        return "/".join(names)

    def __repr__(self):
        return f"NameStack(stack={tuple(s.name for s in self.stack)!r})"


_EMPTY = NameStack()


def new_name_stack(name: str = "") -> NameStack:
    return NameStack().extend(name) if name else NameStack()


def current_name_stack() -> NameStack:
    """This thread's scopes (``core.name_stack``, which every new
    ``SourceInfo`` records)."""
    return core.name_stack.value or _EMPTY


@contextlib.contextmanager
def _pushed(stack):
    saved = core.name_stack.value
    core.name_stack.value = stack if len(stack) else None
    try:
        yield stack
    finally:
        core.name_stack.value = saved


def extend_name_stack(name: str):
    """Context manager adding scope ``name`` (what ``named_scope`` does)."""
    return _pushed(current_name_stack().extend(name))


def set_name_stack(name_stack: NameStack):
    return _pushed(name_stack)


def reset_name_stack():
    return _pushed(NameStack())


def transform_name_stack(name: str):
    return _pushed(current_name_stack().transform(name))


def current() -> SourceInfo | None:
    """The user frame calling into xjit now (None if there is none)."""
    f = core.user_frame()
    if f is None:
        return None
    return SourceInfo(f.f_code.co_filename, f.f_lineno, f.f_code.co_name, (), f.f_code, f.f_lasti,
                      core.name_stack.value)


def new_source_info() -> SourceInfo:
    return SourceInfo(None, None, None)


def summarize(source_info: SourceInfo | None, num_frames=1) -> str:
    if source_info is None or source_info.filename is None:
        return "unknown"
    code = source_info._code  # JAX names the function by its qualified name
    function = code.co_qualname if code is not None else source_info.function
    return f"{source_info.filename}:{source_info.lineno}:{source_info.column} ({function})"


def register_exclusion(path: str):
    """Frames of files under ``path`` are not the user's (not attributed)."""
    core.register_internal_dir(path)


@contextlib.contextmanager
def user_context(traceback, *, name_stack=None):
    """Attribute what is staged inside to ``traceback``'s frame; as there is
    one source frame per equation here, only the name stack takes effect."""
    if name_stack is None:
        yield
    else:
        with set_name_stack(name_stack):
            yield
