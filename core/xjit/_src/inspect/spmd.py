"""How a jitted function runs over many devices: each argument's and
output's sharding with every device's shard (``xjit.inspect.sharding``),
and the collectives XLA's partitioner put into the compiled program
(``xjit.inspect.collectives``).

The shardings are the compiled program's own: what its inputs are laid
out by before a call and what its outputs came back as, for the latest
traced signature. The collectives are read from the compiled program's
HLO text (``compiled.as_text()``), after partitioning, where shapes are
per device: an instruction's result size is what each device holds once
the collective is done.
"""
from __future__ import annotations

import dataclasses
import math
import os
import re

import numpy as np

from xjit._src import dtypes, tree_util
from xjit._src.inspect import events
from xjit._src.inspect.device_profile import _parse_hlo

# XLA's collective opcodes; an asynchronous one is split into ``-start`` and
# ``-done`` (the start is listed under the plain name, the done skipped)
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
               "collective-permute", "collective-broadcast", "ragged-all-to-all")
_ARRAY_TYPE = re.compile(r"\b([a-z]+\d*(?:e\d+m\d+\w*)?)\[([\d,]*)\]")
_GROUPS = re.compile(r"\b(replica_groups=(?:mesh\[[^\]]*\] \{[^}]*\}|\{(?:[^{}]|\{[^{}]*\})*\}|"
                     r"\[[^\]]*\]<=\[[^\]]*\](?:T\([\d,]*\))?)|source_target_pairs=\{(?:[^{}]|"
                     r"\{[^{}]*\})*\}|dimensions=\{[\d,]*\})")
_BITS = {"pred": 8, "s4": 4, "u4": 4, "s8": 8, "u8": 8, "s16": 16, "u16": 16, "f16": 16,
         "bf16": 16, "s32": 32, "u32": 32, "f32": 32, "s64": 64, "u64": 64, "f64": 64,
         "c64": 64, "c128": 128}


@dataclasses.dataclass(frozen=True)
class Shard:
    """One device's part of a value: its slice of the global array."""
    device: int                 # the device id
    index: tuple                # one (start, stop) per dimension
    shape: tuple


@dataclasses.dataclass(frozen=True)
class ValueSharding:
    """How one argument or output of a jitted call is laid out."""
    path: str                   # "x", "params['w']", "out[0]"
    shape: tuple                # global
    dtype: str
    spec: str                   # the PartitionSpec, as printed
    axes: tuple                 # per dimension, the mesh axes it is split over
    replicated: bool            # every device holds all of it
    shard_shape: tuple
    shards: tuple               # Shard per device, in the mesh's order

    @property
    def type(self) -> str:
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"


@dataclasses.dataclass(frozen=True)
class Collective:
    """One collective of a compiled program. ``bytes`` is what each device
    holds of its result (for an all-gather, the gathered array; for a
    reduce-scatter, the scattered part); ``operand_bytes`` what each
    device sends in."""
    kind: str                   # "all-reduce", "all-gather", ...
    name: str                   # the HLO instruction
    shape: str                  # its per-device result type, e.g. "f32[4,3]"
    bytes: int
    operand_bytes: int
    groups: str                 # replica_groups= / source_target_pairs= as XLA prints it
    axes: tuple                 # the mesh axes it communicates over (when known)
    op_name: str | None         # "jit(f)/reduce_sum#2": the equation it came from
    filename: str | None
    lineno: int | None

    @property
    def primitive(self) -> str | None:
        """The jaxpr primitive(s) it implements (``reduce_sum``, ``psum``...);
        XLA's combiner merges several into one (``(reduce_sum#3:dot_general#10)``)."""
        if not self.op_name:
            return None
        names = re.split(r"[:;]", self.op_name.rsplit("/", 1)[-1].strip("()"))
        return ", ".join(dict.fromkeys(n.split("#", 1)[0] for n in names if n))


@dataclasses.dataclass
class ShardingInfo:
    """The SPMD program of a jitted function's latest traced signature."""
    fun_name: str
    mesh: tuple                 # ((axis name, size), ...)
    devices: tuple              # device ids in the mesh's order
    platform: str
    args: list                  # ValueSharding per argument leaf
    outs: list                  # ValueSharding per output leaf
    collectives: list           # Collective per instruction, in program order

    @property
    def mesh_text(self) -> str:
        return "Mesh(" + ", ".join(f"'{n}': {s}" for n, s in self.mesh) + ")"

    def __repr__(self):
        return "\n".join(sharding_lines(self))


def _type_bytes(text: str) -> int:
    """Bytes of every array type in an HLO type (a tuple sums its parts)."""
    total = 0
    for dtype, dims in _ARRAY_TYPE.findall(text):
        n = math.prod(int(d) for d in dims.split(",") if d)
        total += n * _BITS.get(dtype, 8) // 8
    return total


def _plain_type(text: str) -> str:
    """An HLO result type without its layouts: ``f32[2,4]{1,0}`` -> ``f32[2,4]``
    (a tuple in parentheses)."""
    parts = ", ".join(f"{d}[{s}]" for d, s in _ARRAY_TYPE.findall(text))
    return f"({parts})" if text.startswith("(") else parts


def _groups(text: str):
    """The device groups (positions in the device assignment) of a
    ``replica_groups=`` or ``source_target_pairs=`` attribute, or None where
    XLA names mesh axes instead (``mesh[...] {'axis_1'}``)."""
    body = text.split("=", 1)[1]
    iota = re.fullmatch(r"\[([\d,]*)\]<=\[([\d,]*)\](?:T\(([\d,]*)\))?", body)
    if iota:
        shape, reshape = ([int(d) for d in g.split(",") if d] for g in iota.group(1, 2))
        ids = np.arange(math.prod(reshape)).reshape(reshape)
        if iota[3]:
            ids = ids.transpose([int(d) for d in iota[3].split(",")])
        return ids.reshape(-1, shape[-1]).tolist()
    if body.startswith("mesh["):
        return None
    return [[int(d) for d in g.split(",") if d] for g in re.findall(r"\{([\d,]*)\}", body)]


def _axes(text: str, names, sizes) -> tuple:
    """The mesh axes along which the devices of a collective's groups (or
    permutation pairs) differ."""
    if not text or text.startswith("dimensions"):
        return ()
    if text.split("=", 1)[1].startswith("mesh["):
        picked = re.findall(r"'axis_(\d+)'", text.rsplit("{", 1)[-1])
        return tuple(names[int(i)] for i in picked if int(i) < len(names))
    varying = set()
    for group in _groups(text) or ():
        coords = [np.unravel_index(g, sizes) for g in group if g < math.prod(sizes)]
        varying.update(k for k in range(len(names)) if len({c[k] for c in coords}) > 1)
    return tuple(names[k] for k in sorted(varying))


def collectives(compiled, mesh=None) -> list:
    """The collectives of a compiled program, in program order: ``compiled``
    is what ``jit(f).lower(...).compile()`` returns (or its ``as_text()``);
    each names the mesh axes it communicates over, those of ``mesh`` or
    else of the mesh the compiled program's inputs are laid out on. A
    program on one device has none."""
    if mesh is None and not isinstance(compiled, str):  # the mesh its inputs are laid out on
        mesh = next((s.mesh for s in tree_util.tree_leaves(
            getattr(compiled, "input_shardings", None)) if hasattr(s, "mesh")), None)
    names = tuple(mesh.axis_names) if mesh is not None else ()
    sizes = tuple(mesh.axis_sizes) if mesh is not None else ()
    text = compiled if isinstance(compiled, str) else compiled.as_text()
    instrs, _ = _parse_hlo(text)
    out = []
    for ins in instrs.values():
        kind = ins.opcode[:-len("-start")] if ins.opcode.endswith("-start") else ins.opcode
        if kind not in COLLECTIVES:
            continue
        operand_bytes = sum(_type_bytes(instrs[o].shape) for o in ins.operands if o in instrs)
        result = ins.shape
        if ins.opcode.endswith("-start") and result.startswith("("):
            # an async start returns (operands, results[, context]): the results
            # are its second part
            parts = _ARRAY_TYPE.findall(result)
            n_in = max(len(ins.operands), 1)
            result = ", ".join(f"{d}[{s}]" for d, s in parts[n_in:2 * n_in]) or result
        groups = _GROUPS.search(ins.rest)
        groups = groups[1] if groups else ""
        filename, lineno, _ = ins.source or (None, None, None)
        out.append(Collective(kind, ins.name, _plain_type(result), _type_bytes(result),
                              operand_bytes, groups, _axes(groups, names, sizes) if names
                              else (), ins.op_name, filename, lineno))
    return out


def _value(path, aval, sharding) -> ValueSharding:
    shape = tuple(aval.shape)
    shards = tuple(
        Shard(d.id, tuple((0 if s.start is None else s.start, n if s.stop is None else s.stop)
                          for s, n in zip(index, shape)),
              tuple((n if s.stop is None else s.stop) - (0 if s.start is None else s.start)
                    for s, n in zip(index, shape)))
        for d, index in sharding.devices_indices_map(shape).items())
    axes = tuple(tuple(a) for a in sharding._dim_axes(len(shape)))
    return ValueSharding(path, shape, dtypes.short_name(aval.dtype), str(sharding.spec), axes,
                         bool(sharding.is_fully_replicated), tuple(sharding.shard_shape(shape)),
                         shards)


def _paths(treedef, prefix=""):
    """One printed path per leaf of ``treedef``."""
    proto = tree_util.tree_unflatten(treedef, list(range(treedef.num_leaves)))
    return [prefix + tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(proto)[0]]


def _arg_paths(jf, key, n):
    treedef = key[0]
    try:
        dyn, dkw = tree_util.tree_unflatten(treedef, list(range(treedef.num_leaves)))
        names = jf._dyn_arg_names(dyn, dkw)
    except Exception:  # a signature inspect cannot bind: positions instead
        names = None
    if names is None or len(names) != n:
        return [f"args{p[len('[0]'):]}" if p.startswith("[0]") else f"kwargs{p[len('[1]'):]}"
                for p in _paths(treedef)]
    return list(names)


def _spmd_program(jf, key):
    """(trace entry, SPMD executable) of the latest call of signature ``key``
    that ran over many devices, or None."""
    found = None
    for call_key, hit in list(jf.__dict__.get("_spmd_calls", {}).items()):
        if call_key[0] == key:  # (signature, the arguments' shardings, meshes)
            found = hit[:2]  # (and the fast path's view of them)
    return found


def in_shardings(jf, key):
    """The input shardings of the SPMD program of signature ``key`` (one per
    argument leaf), or None where it ran on one device."""
    hit = _spmd_program(jf, key)
    return None if hit is None else list(hit[1].in_shardings)


def sharding(fun_id) -> ShardingInfo | None:
    """How the jitted function ``fun_id`` (an ``xjit.inspect.functions()``
    id) ran over many devices at its latest traced signature: every
    argument's and output's sharding with each device's shard, and the
    collectives of the compiled program. None when it ran on one device."""
    jf, key = events.function(fun_id), events.last_key.get(fun_id)
    if jf is None or key is None:
        return None
    hit = _spmd_program(jf, key)
    if hit is None:
        return None
    from xjit._src.pxla import SpmdCompiled
    entry, exe = hit
    mesh = exe.mesh
    arg_paths = _arg_paths(jf, key, len(exe.in_avals))
    out_paths = _paths(entry.out_tree, "out")
    args = [_value(p, a, s) for p, a, s in zip(arg_paths, exe.in_avals, exe.in_shardings)]
    outs = [_value(p, a, s) for p, a, s in zip(out_paths, exe.out_avals, exe.out_shardings)]
    devices = tuple(mesh.devices.flat)
    return ShardingInfo(jf._name, tuple(mesh.shape_tuple), tuple(d.id for d in devices),
                        devices[0].platform, args, outs,
                        collectives(SpmdCompiled(exe, entry), mesh))


def _human_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def _over(c: Collective) -> str:
    return ", ".join(repr(a) for a in c.axes) if c.axes else c.groups or "all devices"


def sharding_lines(info: ShardingInfo) -> list:
    """The plain-text report: the mesh, each value's layout, the collectives."""
    out = [f"{info.fun_name} over {info.mesh_text} on {len(info.devices)} {info.platform} "
           "devices"]
    for title, values in (("arguments", info.args), ("outputs", info.outs)):
        out.append(f"{title}:")
        for v in values:
            layout = "replicated" if v.replicated else \
                f"each device holds {v.dtype}[{','.join(map(str, v.shard_shape))}]"
            out.append(f"  {v.path}: {v.type} {v.spec}: {layout}")
    if info.collectives:
        out.append("collectives:")
        out += [f"  {c.kind} over {_over(c)}: {c.shape} ({_human_bytes(c.bytes)} per device)"
                + (f" from {c.primitive}" if c.primitive else "")
                + (f" at {os.path.basename(c.filename)}:{c.lineno}" if c.filename else "")
                for c in info.collectives]
    else:
        out.append("collectives: none")
    return out
