"""Results held between the run that discovers a colocated function's output
specs and the call that hands them back (as JAX's ``func_backend``)."""
from __future__ import annotations

import threading


class _ResultStore:
    """uid -> output leaves of one synchronous run, taken back exactly once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._storage: dict[int, list] = {}

    def push(self, uid: int, out) -> None:
        with self._lock:
            if uid in self._storage:
                raise ValueError(f"uid {uid} already exists")
            self._storage[uid] = out

    def pop(self, uid: int):
        with self._lock:
            if uid not in self._storage:
                raise ValueError(f"uid {uid} does not exist")
            return self._storage.pop(uid)


SINGLETON_RESULT_STORE = _ResultStore()
