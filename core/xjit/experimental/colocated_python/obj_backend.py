"""The executor's store of colocated objects (as JAX's ``obj_backend``)."""
from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Callable
from typing import Any


class _ConsumableRef:
    """Holds an object strongly until first taken, weakly after: the taker
    (a method caller) then owns it, and the object dies with its callers.

    Pickling an untaken or still-alive reference makes a fresh untaken one.
    """

    __slots__ = ("strong_ref", "weak_ref", "_mutex", "__weakref__")

    def __init__(self, obj: Any) -> None:
        self.strong_ref = obj
        self.weak_ref = None
        # Reentrant: a caller's __del__ may take it during a collection that
        # happens while this lock is held.
        self._mutex = threading.RLock()

    def __call__(self):
        with self._mutex:
            if self.strong_ref is not None:
                obj, self.strong_ref = self.strong_ref, None
                self.weak_ref = weakref.ref(obj)
                return obj
            return self.weak_ref() if self.weak_ref is not None else None

    def __reduce__(self):
        with self._mutex:
            obj = self.strong_ref if self.strong_ref is not None else (
                self.weak_ref() if self.weak_ref is not None else None)
            return type(self), (obj,)


@dataclasses.dataclass(frozen=True, slots=True)
class _ObjectState:
    is_being_initialized: bool
    exc: Exception | None = None
    obj: Any = None


class _ObjectStore:
    """uid -> object, made once by the first caller; others wait for it."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._storage: dict[int, _ObjectState] = {}

    def get_or_create(self, uid: int, initializer: Callable[[], Any]) -> Any:
        with self._lock:
            if uid in self._storage:
                while self._storage[uid].is_being_initialized:
                    self._lock.wait()
                state = self._storage[uid]
                if state.exc is not None:
                    raise state.exc
                return state.obj
            self._storage[uid] = _ObjectState(is_being_initialized=True)
        try:
            obj = initializer()
        except Exception as exc:
            with self._lock:
                self._storage[uid] = _ObjectState(is_being_initialized=False, exc=exc)
                self._lock.notify_all()
            raise
        with self._lock:
            self._storage[uid] = _ObjectState(is_being_initialized=False, obj=obj)
            self._lock.notify_all()
        return obj

    def discard(self, uid: int) -> None:
        with self._lock:
            self._storage.pop(uid, None)


SINGLETON_OBJECT_STORE = _ObjectStore()
