"""jaxlib's LAPACK kernels as StableHLO custom calls (CPU only): the
typed-FFI call with LAPACK's column-major layouts, and the conventions JAX
wraps around them (non-finite inputs, failed factorizations made NaN)."""
from __future__ import annotations

import functools

import numpy as np

from xjit._src.interpreters import mlir as lowering
from xjit._src.interpreters.mlir import ttype
from xjit._src.lax import lax

_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}


@functools.cache
def _register_lapack():
    from jaxlib import lapack, xla_client
    lapack._lapack.initialize()  # binds the kernels to SciPy's LAPACK
    for name, fn, api_version in lapack.registrations()["cpu"]:
        xla_client.register_custom_call_target(name, fn, platform="cpu", api_version=api_version)


def _layout(ndim, nbatch):
    """Matrices (``nbatch + 2`` axes) column-major with batch axes outermost,
    as LAPACK expects; vectors and scalars row-major."""
    if ndim != nbatch + 2:
        return row_major(ndim)
    order = [ndim - 2, ndim - 1] + list(range(ndim - 3, -1, -1))
    return f"dense<{order}> : tensor<{ndim}xindex>"


def row_major(ndim):
    order = list(range(ndim - 1, -1, -1))
    return f"dense<{order}> : tensor<{ndim}xindex>" if ndim else "dense<> : tensor<0xindex>"


def ffi_call(ctx, target, operands, in_avals, out_avals, config, layout, extra=""):
    """A typed-FFI custom call of ``target`` with attributes ``config`` and
    each operand's and result's ``layout(aval)`` (LAPACK's and cuSOLVER's)."""
    attrs = (f'call_target_name = "{target}", api_version = 4 : i32, backend_config = {{{config}}}, '
             f'operand_layouts = [{", ".join(layout(a) for a in in_avals)}], '
             f'result_layouts = [{", ".join(layout(a) for a in out_avals)}]{extra}')
    return ctx.op("stablehlo.custom_call", list(operands), [ttype(a) for a in in_avals],
                  [ttype(a) for a in out_avals], attrs=attrs)


_COMPLEX_NAMES = {"orgqr": "ungqr", "ormqr": "unmqr"}


def lapack_call(ctx, op, name, operands, in_avals, out_avals, config="", nbatch=None):
    platform = ctx.module_ctx.platforms[0]
    if platform != "cpu":
        raise NotImplementedError(f"{op} is implemented with LAPACK and only runs on CPU; no "
                                  f"lowering for platform '{platform}'")
    dt = in_avals[0].dtype
    if dt.name not in _PREFIX:  # 16-bit floats pass the type checks, as in JAX, but LAPACK
        raise NotImplementedError(KeyError(dt.type), f"Unsupported dtype {dt.name}.")
    _register_lapack()
    if dt.kind == "c":  # LAPACK names the complex (unitary) Householder routines apart
        name = _COMPLEX_NAMES.get(name, name)
    target = f"lapack_{_PREFIX[dt.name]}{name}_ffi"
    nb = in_avals[0].ndim - 2 if nbatch is None else nbatch
    return ffi_call(ctx, target, operands, in_avals, out_avals, config,
                    lambda a: _layout(a.ndim, nb))


def inline(ctx, fn, avals, args):
    """Lower ``fn`` (written with lax) inline on the given SSA values."""
    from xjit._src.interpreters.partial_eval import trace_to_jaxpr
    jaxpr, consts = trace_to_jaxpr(fn, list(avals))
    return lowering.lower_jaxpr(ctx, jaxpr, consts, list(args))


def finite_or_zeros(x):
    """``x`` with each non-finite matrix of the batch zeroed, and which were finite."""
    parts = [lax.real(x), lax.imag(x)] if x.dtype.kind == "c" else [x]
    finite = functools.reduce(lax.bitwise_and, [lax.is_finite(p) for p in parts])
    finite = lax.reduce_and(finite, (x.ndim - 2, x.ndim - 1))
    keep = lax.broadcast_in_dim(finite, x.shape, tuple(range(x.ndim - 2)))
    return [lax.select(keep, x, lax.full_like(x, 0)), finite]


def nan_if_failed(ctx, info_aval, info, vals_avals, vals):
    """JAX's convention: a batch element whose LAPACK info is nonzero is NaN."""
    def fix(info, *xs):
        ok = lax.eq(info, np.int32(0))
        outs = []
        for x in xs:
            m = lax.broadcast_in_dim(ok, x.shape, tuple(range(ok.ndim)))
            nan = complex(np.nan, np.nan) if x.dtype.kind == "c" else np.nan  # as JAX: nan+nanj
            outs.append(lax.select(m, x, lax.full_like(x, nan)))
        return outs
    return inline(ctx, fix, [info_aval, *vals_avals], [info, *vals])
