"""Small helpers with JAX's names (``jax._src.util``), which custom
interpreters written from JAX's tutorials import."""
from __future__ import annotations

import functools


def safe_zip(*args):
    """``zip`` that raises unless every argument has the same length."""
    n = len(args[0])
    for a in args[1:]:
        if len(a) != n:
            raise ValueError(f"length mismatch: {list(map(len, args))}")
    return list(zip(*args))


def safe_map(f, *args):
    """``map`` to a list that raises unless every argument has the same length."""
    args = list(map(list, args))
    n = len(args[0])
    for a in args[1:]:
        if len(a) != n:
            raise ValueError(f"length mismatch: {list(map(len, args))}")
    return list(map(f, *args))


def unzip2(pairs):
    xs, ys = [], []
    for x, y in pairs:
        xs.append(x)
        ys.append(y)
    return tuple(xs), tuple(ys)


def split_list(xs, ns):
    """``xs`` cut into pieces of lengths ``ns`` plus the rest."""
    xs, out = list(xs), []
    for n in ns:
        out.append(xs[:n])
        xs = xs[n:]
    out.append(xs)
    return out


def partition_list(bs, xs):
    """``(xs where not b, xs where b)``."""
    assert len(bs) == len(xs)
    return [x for b, x in zip(bs, xs) if not b], [x for b, x in zip(bs, xs) if b]


def merge_lists(bs, l0, l1):
    """Inverse of ``partition_list``."""
    i0, i1 = iter(l0), iter(l1)
    return [next(i1) if b else next(i0) for b in bs]


def fun_name(fun, default_name="<unnamed function>"):
    """``fun.__name__``, looking through ``functools.partial``."""
    name = getattr(fun, "__name__", None)
    if name is not None:
        return name
    return fun_name(fun.func) if isinstance(fun, functools.partial) else default_name


def fun_qual_name(fun):
    """``fun.__qualname__``, looking through ``functools.partial`` (how JAX's
    errors name a jitted function)."""
    name = getattr(fun, "__qualname__", None)
    if name is not None:
        return name
    return fun_qual_name(fun.func) if isinstance(fun, functools.partial) else fun_name(fun)


def wraps(wrapped):
    """Like ``functools.wraps`` for a transformation's result, but as JAX's
    ``util.wraps``: attributes copied in order and the first one the wrapped
    callable cannot give (an equinox Module's non-string ``__name__``) ends
    the copying instead of raising, so any callable can be transformed."""
    def wrapper(fun):
        try:
            name = fun_name(wrapped)
            fun.__dict__.update(getattr(wrapped, "__dict__", {}))
            fun.__annotations__ = getattr(wrapped, "__annotations__", {})
            fun.__name__ = name
            fun.__module__ = getattr(wrapped, "__module__", "<unknown module>")
            fun.__doc__ = getattr(wrapped, "__doc__", "") or ""
            fun.__qualname__ = getattr(wrapped, "__qualname__", fun.__name__)
            fun.__wrapped__ = wrapped
        except Exception:
            pass
        return fun
    return wrapper
