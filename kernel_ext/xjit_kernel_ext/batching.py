"""Coalesce the engine's event stream into a bounded number of comm messages.

A notebook cell may call a jitted function ten thousand times; sending one
comm message per call would flood the browser. Execute events are folded into
per-function counters; the rarer events (trace, lower, compile, cache miss,
NaN) are queued, capped at ``max_events`` per batch with a ``dropped`` count
for the excess. The caller flushes when ``due()`` says the interval has
passed since the previous flush, and at the end of every cell, so a cell
produces at most ``duration / interval + 2`` messages whatever it does.

This class does no I/O and takes its clock as an argument, so the bound can
be tested deterministically.
"""
from __future__ import annotations

import threading
import time
from typing import Callable


class EventBatcher:
    def __init__(self, interval: float = 0.1, max_events: int = 256,
                 clock: Callable[[], float] = time.monotonic):
        self.interval = interval
        self.max_events = max_events
        self.clock = clock
        self._lock = threading.Lock()
        self._events: list[dict] = []
        self._executes: dict[int, dict] = {}
        self._touched: set[int] = set()
        self._dropped = 0
        self._last_flush = float("-inf")

    def add_event(self, ev: dict) -> None:
        """Queue a serialized non-execute event."""
        with self._lock:
            if ev.get("fun_id"):
                self._touched.add(ev["fun_id"])
            if len(self._events) < self.max_events:
                self._events.append(ev)
            else:
                self._dropped += 1

    def add_execute(self, fun_id: int, fun_name: str, t: float, seconds) -> None:
        """Count one call of a compiled function (no allocation after the first)."""
        with self._lock:
            agg = self._executes.get(fun_id)
            s = seconds if isinstance(seconds, float) and seconds >= 0 else 0.0
            if agg is None:
                self._executes[fun_id] = {
                    "fun_id": fun_id, "fun_name": fun_name, "count": 1, "total_s": s,
                    "last_s": s, "first_time": t, "last_time": t}
                self._touched.add(fun_id)
            else:
                agg["count"] += 1
                agg["total_s"] += s
                agg["last_s"] = s
                agg["last_time"] = t

    def pending(self) -> bool:
        return bool(self._events or self._executes or self._dropped)

    def due(self) -> bool:
        """Something is queued and the last flush is at least ``interval`` ago."""
        return self.pending() and self.clock() - self._last_flush >= self.interval

    def take(self):
        """Empty the queue: ``(events, executes, touched_fun_ids, dropped)``,
        or None when nothing is pending. Marks the flush time."""
        with self._lock:
            if not self.pending():
                return None
            out = (self._events, list(self._executes.values()), self._touched, self._dropped)
            self._events, self._executes, self._touched, self._dropped = [], {}, set(), 0
            self._last_flush = self.clock()
            return out
