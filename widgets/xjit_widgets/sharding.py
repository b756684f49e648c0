"""The Sharding tab: how a jitted function ran over many devices, from an
``xjit.inspect.ShardingInfo``: the mesh, every argument's and output's
PartitionSpec with the shard each device holds, and the collectives XLA's
partitioner put into the compiled program, with their per-device sizes.

A split value's per-device shards fold under its row (eight or more
devices make a long list; a replicated value's are all alike); each
collective carries the line it came from as ``render.source_attrs``
(click-to-line), like the other tabs.
"""
from __future__ import annotations

from .render import esc, source_attrs, where
from .units import nbytes

STYLE = (".xjit-panel table.xjit-sharding td,.xjit-panel table.xjit-sharding th{padding:2px 8px;"
         "vertical-align:top;text-align:left;background:none}"
         ".xjit-panel table.xjit-sharding caption{text-align:left;font-weight:bold}"
         ".xjit-panel table.xjit-sharding td.mono{font-family:monospace;white-space:nowrap}"
         ".xjit-panel table.xjit-sharding details>summary{cursor:pointer;color:#555}")


def _type(dtype, shape) -> str:
    return f"{dtype}[{','.join(map(str, shape))}]"


def _slices(index) -> str:
    """``((0, 2), (0, 4))`` -> ``[0:2, 0:4]``."""
    return "[" + ", ".join(f"{a}:{b}" for a, b in index) + "]"


def layout(v) -> str:
    """What each device holds of a value, in words."""
    if v.replicated:
        return f"replicated: each device holds all of {_type(v.dtype, v.shape)}"
    split = [f"dim {d} over {', '.join(repr(a) for a in axes)}"
             for d, axes in enumerate(v.axes) if axes]
    return f"{'; '.join(split)}: each device holds {_type(v.dtype, v.shard_shape)}"


def header(info) -> str:
    ids = ", ".join(map(str, info.devices))
    return f"{info.mesh_text} over {len(info.devices)} {info.platform} devices (ids {ids})"


def over(c) -> str:
    """The mesh axes a collective communicates over, else XLA's groups."""
    return ", ".join(repr(a) for a in c.axes) if c.axes else (c.groups or "all devices")


def _values_html(title, values) -> str:
    rows = []
    for v in values:
        shards = "".join(f"<tr><td class='mono'>device {s.device}</td><td class='mono'>"
                         f"{esc(_slices(s.index))}</td><td class='mono'>"
                         f"{esc(_type(v.dtype, s.shape))}</td></tr>" for s in v.shards)
        rows.append(f"<tr><td class='mono'>{esc(v.path)}</td><td class='mono'>"
                    f"{esc(_type(v.dtype, v.shape))}</td><td class='mono'>{esc(v.spec)}</td>"
                    f"<td>{esc(layout(v))}" + ("" if v.replicated else  # shards all alike
                                               f"<details><summary>{len(v.shards)} shards"
                                               "</summary><table class='xjit-sharding'>"
                                               f"{shards}</table></details>") + "</td></tr>")
    return (f"<table class='xjit-sharding'><caption>{esc(title)}</caption><tr><th>value</th>"
            f"<th>global</th><th>spec</th><th>per device</th></tr>{''.join(rows)}</table>")


def _collectives_html(info, cell_label) -> str:
    if not info.collectives:
        return ("<div class='xjit-collectives'>Collectives: none (no device exchanges data "
                "with another).</div>")
    rows = "".join(
        f"<tr{source_attrs(cell_label, c.filename, c.lineno)}><td class='mono'>{esc(c.kind)}</td>"
        f"<td class='mono'>{esc(over(c))}</td><td class='mono'>{esc(c.shape)}</td>"
        f"<td>{esc(nbytes(c.bytes))}</td><td class='mono'>{esc(c.primitive or '')}</td>"
        f"<td class='xjit-loc'>"
        f"{esc(where(cell_label, c.filename, c.lineno)) if c.lineno is not None else ''}</td></tr>"
        for c in info.collectives)
    return ("<table class='xjit-sharding'><caption>Collectives in the compiled program"
            "</caption><tr><th>op</th><th>over</th><th>result per device</th><th>bytes</th>"
            f"<th>from</th><th>line</th></tr>{rows}</table>")


def sharding_html(info, cell_label) -> str:
    return (f"<style>{STYLE}</style><div>{esc(header(info))}</div>"
            + _values_html("Arguments", info.args) + _values_html("Outputs", info.outs)
            + _collectives_html(info, cell_label))


def sharding_text(info, cell_label) -> str:
    """The same as plain text."""
    out = [header(info)]
    for title, values in (("Arguments:", info.args), ("Outputs:", info.outs)):
        out.append(title)
        for v in values:
            out.append(f"  {v.path}: {_type(v.dtype, v.shape)} {v.spec}: {layout(v)}")
            if not v.replicated:
                out += [f"    device {s.device}: {_slices(s.index)}" for s in v.shards]
    if not info.collectives:
        out.append("Collectives: none")
    else:
        out.append("Collectives:")
        for c in info.collectives:
            line = f" at {where(cell_label, c.filename, c.lineno)}" if c.lineno is not None else ""
            prim = f" from {c.primitive}" if c.primitive else ""
            out.append(f"  {c.kind} over {over(c)}: {c.shape} per device "
                       f"({nbytes(c.bytes)}){prim}{line}")
    return "\n".join(out)
