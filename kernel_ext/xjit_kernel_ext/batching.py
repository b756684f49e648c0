"""Coalesce engine events into a bounded number of comm messages.

A notebook cell may call a jitted function ten thousand times; one comm
message per call would flood the browser. Calls are therefore never sent one
by one: the channel reads the engine's per-function call counters when it
flushes and sends the differences (see ``CallCounter``). The rarer events
(trace, lower, compile, cache miss, NaN) are queued here, capped at
``max_events`` per batch with a ``dropped`` count for the excess. Flushes
happen at most once per ``interval`` while a cell runs, and at its end, so a
cell produces at most ``duration / interval + 2`` messages whatever it does.

Neither class does I/O; the clock is an argument, so the bounds are tested
deterministically.
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
        self._touched: set[int] = set()
        self._dropped = 0
        self.last_flush = float("-inf")

    def add_event(self, ev: dict) -> None:
        """Queue a serialized non-execute event."""
        with self._lock:
            if ev.get("fun_id"):
                self._touched.add(ev["fun_id"])
            if len(self._events) < self.max_events:
                self._events.append(ev)
            else:
                self._dropped += 1

    def pending(self) -> bool:
        return bool(self._events or self._dropped)

    def due(self) -> bool:
        """The last flush is at least ``interval`` ago."""
        return self.clock() - self.last_flush >= self.interval

    def take(self):
        """Empty the queue: ``(events, touched_fun_ids, dropped)``; marks the
        flush time."""
        with self._lock:
            out = (self._events, self._touched, self._dropped)
            self._events, self._touched, self._dropped = [], set(), 0
            self.last_flush = self.clock()
            return out


class CallCounter:
    """Turns the engine's cumulative per-function call counts into
    ``executes`` entries: how many calls since the previous flush, between
    which times, and (estimated from the latest run time) how long they took.
    Running totals since load are kept for ``state`` snapshots."""

    def __init__(self):
        self._seen: dict[int, int] = {}
        self._last_time: dict[int, float] = {}
        self.totals: dict[int, dict] = {}

    def delta(self, fun_id: int, name: str, calls: int, run_s, now: float) -> dict | None:
        before = self._seen.get(fun_id, 0)
        self._seen[fun_id] = calls
        if calls <= before:
            return None
        n = calls - before
        last_s = run_s if isinstance(run_s, float) and run_s >= 0 else None
        first = self._last_time.get(fun_id, now - (last_s or 0.0) * n)
        self._last_time[fun_id] = now
        entry = {"fun_id": fun_id, "fun_name": name, "count": n, "total_s": (last_s or 0.0) * n,
                 "last_s": last_s, "first_time": min(first, now), "last_time": now}
        tot = self.totals.get(fun_id)
        if tot is None:
            self.totals[fun_id] = dict(entry)
        else:
            tot.update(count=tot["count"] + n, total_s=tot["total_s"] + entry["total_s"],
                       last_s=last_s, last_time=now)
        return entry
