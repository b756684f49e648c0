"""The ahead-of-time stages: ``jit(f).trace(...)`` -> ``Traced`` ->
``.lower()`` -> ``Lowered`` -> ``.compile()`` -> ``Compiled``.

Each stage shares the ``TraceEntry`` of the jitted function's cache, so
compiling ahead of time also warms the cache used by ordinary calls."""
from __future__ import annotations

import functools
import time
import typing

import numpy as np
from jaxlib import _jax

from xjit._src import compiler, dispatch, sharding_in_types, tree_util
from .array import ArrayImpl
from . import core


class ShapeDtypeStruct:
    """A shape, dtype and weak type standing in for an array."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, *, weak_type=False, sharding=None):
        self.shape = tuple(shape)
        # extended dtypes (PRNG key types: eval_shape of a key) are kept as they are
        self.dtype = dtype if getattr(dtype, "extended", False) else np.dtype(dtype)
        self.weak_type = weak_type
        self.sharding = sharding

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))

    @property
    def aval(self):
        """Its type: the sharding's Explicit mesh axes included, as ``jax.typeof`` shows."""
        return core.ShapedArray(self.shape, self.dtype, self.weak_type,
                                sharding=sharding_in_types.type_sharding(self.sharding))

    @classmethod
    def like(cls, x):
        """The shape, dtype and weak type of ``x`` (an array, a Python or NumPy
        value, a tracer or another ShapeDtypeStruct)."""
        if isinstance(x, ShapeDtypeStruct):
            return cls(x.shape, x.dtype, weak_type=x.weak_type, sharding=x.sharding)
        try:
            aval = core.aval_of(x)
        except TypeError:
            raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type,
                   sharding=getattr(aval, "_sharding", None))

    def update(self, *, shape=None, dtype=None, weak_type=None, sharding=None):
        """A copy with the given fields replaced."""
        return ShapeDtypeStruct(self.shape if shape is None else shape,
                                self.dtype if dtype is None else dtype,
                                weak_type=self.weak_type if weak_type is None else weak_type,
                                sharding=self.sharding if sharding is None else sharding)

    def __repr__(self):
        wt = ", weak_type=True" if self.weak_type else ""
        sh = f", sharding={self.sharding}" if self.sharding is not None else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sh}{wt})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))



def _type_sharding(aval):
    """The sharding ``out_info`` reports: the type's when its mesh's axes are
    all Explicit; None otherwise (no mesh, or any Auto axis: XLA decides), as
    JAX's."""
    sharding = getattr(aval, "sharding", None)
    if sharding is None or not sharding.mesh.axis_names:
        return None
    return sharding if sharding.mesh.are_all_axes_explicit else None


class Traced:
    def __init__(self, jitted, entry, in_tree):
        self._jitted, self._entry, self._in_tree = jitted, entry, in_tree

    @property
    def jaxpr(self) -> core.ClosedJaxpr:
        return self._entry.closed

    @property
    def out_info(self):
        return tree_util.tree_unflatten(
            self._entry.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type,
                                                    sharding=_type_sharding(a))
                                   for a in self._entry.closed.out_avals])

    @property
    def in_avals(self):
        return tree_util.tree_unflatten(self._in_tree, self._entry.in_avals)

    def lower(self, *, lowering_platforms=None):
        e = self._entry
        if lowering_platforms is not None:
            platform = _lowering_platform(lowering_platforms)
            if platform != dispatch.backend.default_backend():
                return ForeignLowered(e.name, e.lower_text(platform), platform)
        if e.text is None:
            t0 = time.perf_counter()
            e.text = e.lower_text()
            e.lower_s = time.perf_counter() - t0
        return Lowered(self._jitted, e, self._in_tree)


def _lowering_platform(platforms):
    platforms = tuple(platforms)
    if len(platforms) != 1:
        raise NotImplementedError(
            f"lowering for several platforms at once is not supported, got {platforms}")
    p = str(platforms[0]).lower()
    p = "gpu" if p in ("cuda", "gpu") else p
    if p not in ("cpu", "gpu"):
        raise ValueError(f"Unknown platform {platforms[0]!r}: xjit lowers for 'cpu' and 'cuda'")
    return p


class ForeignLowered:
    """A program lowered for another platform than this process runs
    (``trace(...).lower(lowering_platforms=("cuda",))``): its text can be read
    or exported, not compiled here."""

    def __init__(self, name, text, platform):
        self._name, self._text, self.platform = name, text, platform

    def as_text(self, dialect=None, *, debug_info=False):
        return self._text if debug_info else _pretty_mlir(self._text)

    def compiler_ir(self, dialect=None):
        return compiler.parse_module(self._text)

    def compile(self, compiler_options=None):
        raise ValueError(f"{self._name} was lowered for platform '{self.platform}', which this "
                         f"process does not run (default backend: "
                         f"'{dispatch.backend.default_backend()}')")


class Lowered:
    # how the compiled form's arguments become the program's (pmap sets it: it
    # lowers a jit over its flat arguments); None: they are the program's own
    flat_args = None

    def __init__(self, jitted, entry, in_tree):
        self._jitted, self._entry, self._in_tree = jitted, entry, in_tree

    def as_text(self, dialect=None, *, debug_info=False):
        """The StableHLO module in MLIR's pretty form; with ``debug_info``, as
        lowered, each operation with its equation's source location."""
        return self._entry.text if debug_info else _pretty_mlir(self._entry.text)

    @property
    def args_info(self):
        return _args_info(self._entry, self._in_tree)

    def compiler_ir(self, dialect=None):
        """The lowered module: StableHLO as an MLIR module, or with ``dialect="hlo"``
        XLA's HLO (an ``XlaComputation``: ``.as_hlo_text()``), converted by jaxlib."""
        if dialect is None or dialect == "stablehlo":
            return compiler.parse_module(self._entry.text)
        if dialect == "hlo":
            return _jax.mlir.mlir_module_to_xla_computation(self._entry.text,
                                                            use_tuple_args=False)
        raise ValueError(f"unknown dialect: {dialect}")

    def compile(self, compiler_options=None):
        if compiler_options:
            compiled = Compiled(self._jitted, self._entry.compiled_with(compiler_options),
                                self._in_tree)
        else:
            self._entry.compile()
            compiled = Compiled(self._jitted, self._entry, self._in_tree)
        compiled.flat_args = self.flat_args
        return compiled

    @property
    def out_info(self):
        return Traced(self._jitted, self._entry, self._in_tree).out_info

    def cost_analysis(self):
        """XLA's cost estimates (flops, transcendentals, bytes accessed) of the
        module before optimization; ``compile().cost_analysis()`` gives them
        after. A backend reached through the PJRT C API (a GPU plugin) has no
        such analysis: NotImplementedError, as in JAX."""
        client = dispatch.backend.default_device().client
        if "PJRT C API" in client.platform_version:
            raise NotImplementedError(
                f"Lowered.cost_analysis not implemented on platform '{client.platform}'. "
                "Use compile().cost_analysis() for post-compilation cost estimates.")
        comp = _jax.mlir.mlir_module_to_xla_computation(self._entry.text, use_tuple_args=False)
        return _jax.hlo_module_cost_analysis(client, comp.get_hlo_module())


class Compiled:
    flat_args = None  # as Lowered's

    def __init__(self, jitted, entry, in_tree):
        self._jitted, self._entry, self._in_tree = jitted, entry, in_tree
        functools.update_wrapper(self, jitted._fun)

    def as_text(self):
        return self._entry.executable.exe.get_hlo_text()

    def runtime_executable(self):
        """jaxlib's loaded executable."""
        return self._entry.executable.exe

    @property
    def args_info(self):
        return _args_info(self._entry, self._in_tree)

    def cost_analysis(self):
        try:
            return self._entry.executable.exe.cost_analysis()
        except Exception:  # not every backend reports costs
            return None

    def memory_analysis(self):
        try:
            return self._entry.executable.exe.get_compiled_memory_stats()
        except Exception:  # not every backend reports memory stats
            return None

    @property
    def out_info(self):
        return Traced(self._jitted, self._entry, self._in_tree).out_info

    def __call__(self, *args, **kwargs):
        # the static arguments were fixed when tracing: a call passes the others only
        if self.flat_args is not None:
            args, kwargs = tuple(self.flat_args(args, kwargs)), {}
        leaves, treedef = tree_util.tree_flatten((args, kwargs))
        if treedef != self._in_tree:
            raise TypeError("Function compiled with input pytree does not match the input pytree "
                            f"it was called with: expected {self._in_tree}, got {treedef}")
        if any(isinstance(x, core.Tracer) for x in leaves):
            bad = next(type(x) for x in leaves if isinstance(x, core.Tracer))
            raise TypeError("Cannot apply JAX transformations to a function lowered and compiled "
                            f"for a particular signature. Detected argument of Tracer type {bad}.")
        avals = [core.aval_of(x) for x in leaves]
        mismatches = [f"Argument {self._arg_name(i, len(args), kwargs)} compiled with "
                      f"{want.str_short(False)} and called with {got.str_short(False)}"
                      for i, (got, want) in enumerate(zip(avals, self._entry.in_avals))
                      if got.shape != want.shape or got.dtype != want.dtype]
        if mismatches:
            raise TypeError(
                "Argument types differ from the types for which this computation was compiled. "
                "Perhaps you are calling the compiled executable with a different enable_x64 "
                "mode than when it was AOT compiled? The mismatches are:\n"
                + "\n".join(mismatches[:5]))
        e = self._entry
        kept = zip(leaves, e.in_avals) if e.float0 is None else zip(
            e.float0.kept(leaves), e.float0.kept(e.in_avals))
        outs = e.run([x._buf if type(x) is ArrayImpl else dispatch.to_buffer(x, a) for x, a in kept])
        return tree_util.tree_unflatten(self._entry.out_tree, outs)


    def _arg_name(self, i, num_args, kwargs):
        """The parameter name of leaf ``i`` where each argument is one array (as
        JAX quotes it), else its position among the leaves."""
        if num_args + len(kwargs) != len(self._entry.in_avals):
            return str(i)
        if i >= num_args:
            return repr(list(kwargs)[i - num_args])
        static = set(getattr(self._jitted, "_static_argnums", ()))
        try:
            params = [p for k, p in enumerate(self._jitted._sig.parameters) if k not in static]
            return repr(params[i])
        except (AttributeError, IndexError, TypeError):
            return str(i)


def _pretty_mlir(text):
    return str(compiler.parse_module(text))


CompilerOptions = dict  # option name -> str | bool (what ``Lowered.compile`` accepts)


class ArgInfo:
    """An argument of a lowered computation: its abstract value and whether
    it is donated."""

    __slots__ = ("_aval", "donated")

    def __init__(self, _aval, donated):
        self._aval, self.donated = _aval, donated

    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)

    def __eq__(self, other):
        return type(other) is ArgInfo and (self._aval, self.donated) == (other._aval, other.donated)

    def __hash__(self):
        return hash((self._aval, self.donated))

    def __repr__(self):
        return f"ArgInfo(_aval={self._aval!r}, donated={self.donated})"


def _args_info(entry, in_tree):
    """The (args, kwargs) pytree of ``ArgInfo``s of a traced signature's
    dynamic arguments."""
    donated = entry.donated or (False,) * len(entry.in_avals)
    return tree_util.tree_unflatten(in_tree, [ArgInfo(a, bool(d))
                                              for a, d in zip(entry.in_avals, donated)])


@typing.runtime_checkable
class Wrapped(typing.Protocol):
    """The type of what ``jit`` returns: callable, with ``trace`` and ``lower``."""

    def __call__(self, *args, **kwargs): ...

    def trace(self, *args, **kwargs) -> Traced: ...

    def lower(self, *args, **kwargs) -> Lowered: ...
