"""Map source positions to notebook cells.

The engine reports plain ``filename:lineno`` pairs. For code typed into a
notebook the filename is whatever IPython's compiler invented for the cell
(``/tmp/ipykernel_<pid>/<hash>.py`` under ipykernel, ``<ipython-input-N-...>``
in older IPython), which the panel cannot use. IPython records filename ->
execution count when it compiles a cell, and the ``pre_run_cell`` hook tells
us the cell id the front end sent with the execute request; together they
give the panel an id (or at least an ``In[N]`` number) to scroll to.

When ``pre_run_cell`` fires, IPython 9 has already incremented
``execution_count`` and older versions have not, so the hook's count is not
trusted: a cell's id is tied to the count the compiler records for it (any
count newer than those known when the cell started is the running cell), and
confirmed from ``post_run_cell``'s ``result.execution_count``.
"""
from __future__ import annotations

import re
import sys

_IPYTHON_INPUT = re.compile(r"^<ipython-input-(\d+)-")


class CellMap:
    def __init__(self, shell=None):
        self.shell = shell
        self._cell_ids: dict[int, str] = {}
        self._current: str | None = None
        self._known_max = 0

    def _fmap(self) -> dict:
        fmap = getattr(getattr(self.shell, "compile", None), "_filename_map", None)
        return fmap if isinstance(fmap, dict) else {}

    def begin_cell(self, cell_id: str | None):
        """A cell with this front-end id starts running."""
        self._current = str(cell_id) if cell_id else None
        counts = [c for c in self._fmap().values() if isinstance(c, int)]
        self._known_max = max(counts, default=0)

    def end_cell(self, execution_count: int | None):
        """The running cell finished as ``In[execution_count]``."""
        if self._current and isinstance(execution_count, int):
            self._cell_ids[execution_count] = self._current
        self._current = None

    def cell_id_of(self, count: int | None) -> str | None:
        if count is None:
            return None
        if count in self._cell_ids:
            return self._cell_ids[count]
        if self._current and count > self._known_max:
            return self._current
        return None

    def execution_count_of(self, filename: str | None) -> int | None:
        if not filename:
            return None
        fmap = self._fmap()
        if filename in fmap:
            try:
                return int(fmap[filename])
            except (TypeError, ValueError):
                return None
        m = _IPYTHON_INPUT.match(filename)
        return int(m.group(1)) if m else None

    def location(self, filename, lineno) -> dict:
        """A protocol ``location`` object for ``filename:lineno``."""
        filename = filename if isinstance(filename, str) else None
        lineno = int(lineno) if isinstance(lineno, int) and lineno >= 0 else None
        count = self.execution_count_of(filename)
        return {
            "filename": filename,
            "lineno": lineno,
            "cell_id": self.cell_id_of(count),
            "execution_count": count,
        }


def running_cell_count(shell) -> int:
    """The ``In [N]`` number of the cell being run now.

    While a cell runs, IPython has already advanced ``execution_count`` to
    the next cell's number, so code a magic compiles must not use it. The
    running cell's own code was compiled (and recorded with its number)
    just before it started: the innermost frame whose file IPython recorded
    names it. Outside any recorded frame (a magic called from a script), the
    newest recorded number is the running cell's.
    """
    fmap = getattr(getattr(shell, "compile", None), "_filename_map", None) or {}
    frame = sys._getframe(1)
    while frame is not None:
        count = fmap.get(frame.f_code.co_filename)
        if isinstance(count, int):
            return count
        frame = frame.f_back
    counts = [c for c in fmap.values() if isinstance(c, int)]
    if counts:
        return max(counts)
    return int(getattr(shell, "execution_count", 1) or 1)


class CellLabels:
    """Names a source file the way a notebook user knows it (``In [3]``),
    and places it in a cell (``locate``: its ``In [N]`` and, when the
    channel saw the front end's cell id, that id) for the click-to-line
    data attributes of ``%%xjit`` panels."""

    def __init__(self, shell, cell_map: CellMap | None = None):
        self.fmap = getattr(getattr(shell, "compile", None), "_filename_map", {}) or {}
        self.cell_map = cell_map

    def count(self, filename) -> int | None:
        count = self.fmap.get(filename) if filename else None
        if isinstance(count, int):
            return count
        m = _IPYTHON_INPUT.match(filename or "")
        return int(m.group(1)) if m else None

    def __call__(self, filename) -> str:
        count = self.count(filename)
        if count is not None:
            return f"In [{count}]"
        from xjit_widgets.render import short_file
        return short_file(filename)

    def locate(self, filename):
        count = self.count(filename)
        cell_id = self.cell_map.cell_id_of(count) if self.cell_map is not None else None
        return count, cell_id


def cell_label_for(shell, cell_map: CellMap | None = None) -> CellLabels:
    return CellLabels(shell, cell_map)
