"""``WrappedFun``: a Python function plus a stack of transformations to
apply when it is called, as JAX's ``linear_util`` has it. Library code
(``api_util.flatten_fun``, custom transformations written against
``jax.extend.linear_util``) composes functions this way; the engine's own
transformations take plain callables and call ``call_wrapped`` on these.

A transformation is ``gen(f, *static_args, *args, **kwargs)`` (the
``transformation2`` style) or a generator that yields the inner call's
arguments and receives its result (the ``transformation`` style). An
auxiliary output goes to a ``Store`` the caller reads after the call.
"""
from __future__ import annotations

import functools
import weakref
from typing import Callable  # noqa: F401  (re-exported: ``lu.Callable``)


class StoreException(Exception):
    pass


_EMPTY = object()


class Store:
    """A write-once box for a transformation's auxiliary output."""

    __slots__ = ("_val",)

    def __init__(self):
        self._val = _EMPTY

    def store(self, val):
        if self._val is not _EMPTY:
            raise StoreException("Store occupied")
        self._val = val

    def reset(self):
        self._val = _EMPTY

    @property
    def val(self):
        if self._val is _EMPTY:
            raise StoreException("Store empty")
        return self._val

    def __bool__(self):
        return self._val is not _EMPTY


class EqualStore(Store):
    """A store that accepts a second write of an equal value."""

    __slots__ = ()

    def store(self, val):
        if self._val is not _EMPTY:
            try:
                same = bool(self._val == val)
            except Exception:
                same = False
            if not same:
                raise StoreException("Store occupied with not-equal value")
            return
        self._val = val


class WrappedFun:
    """``f`` with ``transforms`` (outermost first) and keyword ``params``."""

    __slots__ = ("f", "f_transformed", "transforms", "stores", "params", "in_type", "debug_info")

    def __init__(self, f, f_transformed, transforms, stores, params, in_type, debug_info):
        self.f, self.f_transformed = f, f_transformed
        self.transforms, self.stores = transforms, stores
        self.params, self.in_type, self.debug_info = params, in_type, debug_info

    @property
    def __name__(self):
        return getattr(self.f, "__name__", "<unnamed wrapped function>")

    def wrap(self, gen, gen_static_args, out_store):
        inner = self.f_transformed
        call = (functools.partial(gen, inner, *gen_static_args) if out_store is None
                else functools.partial(gen, inner, out_store, *gen_static_args))
        return WrappedFun(self.f, call, ((gen, gen_static_args),) + self.transforms,
                          (out_store,) + self.stores, self.params, None, self.debug_info)

    def populate_stores(self, stores):
        for mine, theirs in zip(self.stores, stores):
            if mine is not None:
                mine.store(theirs.val)

    def call_wrapped(self, *args, **kwargs):
        return self.f_transformed(*args, **kwargs)

    def replace_debug_info(self, debug_info):
        return WrappedFun(self.f, self.f_transformed, self.transforms, self.stores, self.params,
                          self.in_type, debug_info)

    def __repr__(self):
        names = "\n".join(f"{i}   : {getattr(g, '__name__', g)}   {a}"
                          for i, (g, a) in enumerate(self.transforms))
        return f"Wrapped function:\n{names}\nCore: {self.__name__}\n"

    def __hash__(self):
        return hash((self.f, self.transforms, self.params, self.in_type))

    def __eq__(self, other):
        return (type(other) is WrappedFun and self.f == other.f
                and self.transforms == other.transforms and self.params == other.params
                and self.in_type == other.in_type)


def wrap_init(f, params=None, *, debug_info=None) -> WrappedFun:
    """``f`` as a ``WrappedFun`` with no transformations; ``params`` are
    keyword arguments passed on every call."""
    params_t = tuple(sorted((params or {}).items()))
    call = functools.partial(f, **dict(params_t)) if params_t else f
    return WrappedFun(f, call, (), (), params_t, None, debug_info)


def _curry(fn):
    return functools.partial(functools.partial, fn)


@_curry
def transformation2(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """Add ``gen(f, *static_args, *args, **kwargs)`` around ``fun``."""
    return fun.wrap(gen, gen_static_args, None)


@_curry
def transformation_with_aux2(gen, fun: WrappedFun, *gen_static_args, use_eq_store=False,
                             unk_names=False):
    """Like ``transformation2``, with ``gen(f, store, *static_args, *args)``
    writing an auxiliary output; returns ``(fun, thunk reading it)``."""
    store = EqualStore() if use_eq_store else Store()
    return fun.wrap(gen, gen_static_args, store), lambda: store.val


def _drive(gen, f, *args, **kwargs):
    it = gen(*args, **kwargs)
    inner_args, inner_kwargs = next(it)
    return it.send(f(*inner_args, **inner_kwargs))


@_curry
def transformation(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """A generator transformation: ``gen(*static_args, *args)`` yields
    ``(args, kwargs)`` for the inner call, receives its result and yields
    the outer result."""
    def call(f, *args, **kwargs):
        return _drive(gen, f, *args, **kwargs)
    call.__name__ = getattr(gen, "__name__", "transformation")
    return fun.wrap(call, gen_static_args, None)


@_curry
def transformation_with_aux(gen, fun: WrappedFun, *gen_static_args, use_eq_store=False):
    """A generator transformation whose final yield is ``(result, aux)``."""
    def call(f, store, *args, **kwargs):
        ans, aux = _drive(gen, f, *args, **kwargs)
        store.store(aux)
        return ans
    call.__name__ = getattr(gen, "__name__", "transformation_with_aux")
    store = EqualStore() if use_eq_store else Store()
    return fun.wrap(call, gen_static_args, store), lambda: store.val


def merge_linear_aux(aux1, aux2):
    """``(True, aux1())`` if the first thunk's store was written, else
    ``(False, aux2())``: the aux output of whichever branch ran."""
    try:
        return True, aux1()
    except StoreException:
        try:
            return False, aux2()
        except StoreException:
            raise StoreException("neither store occupied") from None


def cache(call: Callable):
    """Memoize ``call(fun: WrappedFun, *args)`` per ``fun`` (by equality) and args."""
    tables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(call)
    def memoized(fun: WrappedFun, *args):
        table = tables.setdefault(fun.f, {}) if _weakrefable(fun.f) else {}
        key = (fun.transforms, fun.params, fun.in_type, args)
        hit = table.get(key)
        if hit is None:
            hit = table[key] = (call(fun, *args), fun.stores)
        else:
            fun.populate_stores(hit[1])
        return hit[0]

    memoized.cache_clear = tables.clear
    return memoized


def _weakrefable(f):
    try:
        weakref.ref(f)
    except TypeError:
        return False
    return True
