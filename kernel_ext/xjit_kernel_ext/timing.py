"""``%timeit``'s measurement for ``%xjit_time``: RUNS runs of LOOPS calls
each, LOOPS chosen (when not given) as the first of 1, 2, 5, 10, 20, ...
whose run takes at least 0.2 s, reported as mean ± std. dev. per loop."""
from __future__ import annotations

import dataclasses
import gc
import time
from typing import Callable

from xjit_widgets.units import mean_std

TARGET_S = 0.2


@dataclasses.dataclass
class TimeReport:
    per_loop: list   # seconds per loop, one entry per run
    loops: int

    @property
    def mean(self) -> float:
        return sum(self.per_loop) / len(self.per_loop)

    @property
    def std(self) -> float:
        m = self.mean
        return (sum((t - m) ** 2 for t in self.per_loop) / len(self.per_loop)) ** 0.5

    def summary(self) -> str:
        return mean_std(self.per_loop, self.loops)


def _time_loops(fn: Callable[[], object], loops: int) -> float:
    gc_was = gc.isenabled()
    gc.disable()  # as timeit does: collections would land in random runs
    try:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        return time.perf_counter() - t0
    finally:
        if gc_was:
            gc.enable()


def auto_loops(fn: Callable[[], object], target_s: float = TARGET_S) -> int:
    for power in range(10):
        for scale in (1, 2, 5):
            loops = scale * 10 ** power
            if _time_loops(fn, loops) >= target_s:
                return loops
    return loops


def time_statement(fn: Callable[[], object], loops: int | None = None, runs: int = 7) -> TimeReport:
    if loops is None:
        loops = auto_loops(fn)
    return TimeReport([_time_loops(fn, loops) / loops for _ in range(runs)], loops)
