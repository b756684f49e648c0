"""``jax.debug.visualize_array_sharding``: a picture of which devices hold
which block of a 1-D or 2-D array, drawn with ``rich`` as JAX draws it.

Each block of the array is a cell sized in proportion to the block (a
2-D array is drawn about 10 rows high, columns 2.5 characters per row to
look square), labelled with the platform and the ids of the devices holding
it. On a terminal with colours the cells are filled from matplotlib's
``tab20b`` map (when matplotlib is installed); elsewhere they are boxed.
"""
from __future__ import annotations

import importlib.util

import numpy as np

from xjit._src import core


def _block(index, shape):
    """The block number along each dimension of the slices ``index``."""
    out = []
    for s, n in zip(index, shape):
        if isinstance(s, int):
            s = slice(s, s + 1)
        out.append(0 if s.start is None else s.start // (s.stop - s.start))
    return tuple(out)


def _extent(s, n):
    """The fraction of a dimension of size ``n`` that slice ``s`` covers."""
    if isinstance(s, int):
        return 1 / n
    return (n if s.stop is None else s.stop - (s.start or 0)) / n


def _colors(color_map, count):
    """``count`` colours from ``color_map``, neighbours far apart on it."""
    values = np.linspace(0, 1, count)
    k = 0
    for _ in range(count):
        yield color_map(values[k])
        k = (k + count // 2 + (count % 2 == 0)) % count


def _hex(rgb):
    return "#" + "".join(f"{int(c * 255):02X}" for c in rgb[:3])


def _text_on(bg):
    r, g, b = (int(bg[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if r * 0.299 + g * 0.587 + b * 0.114 > 186 else "#ffffff"


def visualize_sharding(shape, sharding, *, use_color=True, scale=1.0, min_width=9,
                       max_width=80, color_map=None):
    """Print the picture of ``sharding`` laying out an array of ``shape``."""
    if importlib.util.find_spec("rich") is None:
        raise ValueError("`visualize_sharding` requires `rich` to be installed.")
    import rich.align
    import rich.box
    import rich.console
    import rich.padding
    import rich.style
    import rich.table
    shape = tuple(shape)
    if len(shape) not in (1, 2):
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    console = rich.console.Console(width=max_width)
    use_color = use_color and console.color_system is not None
    if use_color and color_map is None:
        if importlib.util.find_spec("matplotlib") is None:
            use_color = False
        else:
            import matplotlib
            color_map = matplotlib.colormaps["tab20b"]
    rows = int(10 * scale)
    cols = int(rows * (shape[1] if len(shape) == 2 else 1) / shape[0])
    platform = next(iter(sharding.device_set)).platform.upper()
    cells: dict = {}  # (row, col) -> (device ids, width fraction, height fraction or None)
    for device, index in sharding.devices_indices_map(shape).items():
        block = _block(index, shape)
        if len(shape) == 1:
            block, size = (0, *block), (_extent(index[0], shape[0]), None)
        else:
            size = (_extent(index[1], shape[1]), _extent(index[0], shape[0]))
        ids, _, _ = cells.setdefault(block, (set(), *size))
        ids.add(device.id)
    n_rows = 1 + max(r for r, _ in cells)
    n_cols = 1 + max(c for _, c in cells)
    colors = _colors(color_map, n_rows * n_cols) if use_color else None
    table = rich.table.Table(show_header=False, show_lines=not use_color, padding=0,
                             highlight=not use_color, pad_edge=False,
                             box=None if use_color else rich.box.SQUARE)
    for r in range(n_rows):
        row = []
        for c in range(n_cols):
            ids, width, height = cells[r, c]
            label = f"{platform} " + ",".join(map(str, sorted(ids)))
            width = min(max(int(width * cols * 2.5), min_width), max_width)
            height = 1 if height is None else int(height * rows)
            left, extra = divmod(width - len(label) - 2, 2)
            top, extra_v = divmod(height - 2, 2)
            pad = [top, left + extra, top + extra_v, left]  # top, right, bottom, left
            style = rich.style.Style()
            if use_color:
                bg = _hex(next(colors))
                style = rich.style.Style(bgcolor=bg, color=_text_on(bg))
                pad = [p + 1 for p in pad]
            row.append(rich.padding.Padding(
                rich.align.Align(label, "center", vertical="middle"),
                tuple(max(p, 0) for p in pad), style=style))
        table.add_row(*row)
    console.print(table, end="\n\n")


def inspect_array_sharding(value, *, callback):
    """``callback(sharding)`` for each array of the pytree ``value``."""
    from xjit._src import tree_util
    for leaf in tree_util.tree_leaves(value):
        if isinstance(leaf, core.Tracer):
            raise NotImplementedError("xjit inspects the sharding of concrete arrays only; "
                                      "call inspect_array_sharding outside jit")
        callback(leaf.sharding)


def visualize_array_sharding(arr, **kwargs):
    """Print the picture of concrete array ``arr``'s sharding."""
    inspect_array_sharding(arr, callback=lambda s: visualize_sharding(arr.shape, s, **kwargs))
