"""The out-of-bounds index checks of ``checkify`` (``index_checks``).

JAX 0.10.2 checks the start indices of ``dynamic_slice``,
``dynamic_update_slice``, ``gather`` and of the scatters ``scatter``,
``scatter-add``, ``-mul``, ``-min`` and ``-max`` (not ``scatter-sub``), in
every ``GatherScatterMode``: a clipped, filled or dropped index is reported
all the same. Each primitive is one check site whose payload is an int32
``[index, axis, axis size]`` of the first out-of-bounds index in the indices'
row-major order (index vectors are their last axis); all of them are one
error effect, so a batched error reduces them together, as JAX does.

The bounds are those of the start index the primitive reads, after
``jnp``/``lax`` have made negative indices positive:
``0 <= start <= dim - window`` (the window being the slice size, the update's
size, or the scatter's update window), computed in the dtypes JAX computes
them in, wraparounds of narrow index dtypes included. Where JAX 0.10.2 fails
while building the check, this module raises what it raises.
"""
from __future__ import annotations

import numpy as np

from . import core

SCATTER_PRIMS = frozenset({"scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max"})
INDEX_PRIMS = frozenset({"dynamic_slice", "dynamic_update_slice", "gather"}) | SCATTER_PRIMS


def oob_message(operand_shape):
    """The message of an OOB site of an operand of ``operand_shape``, made
    from its payload (JAX's text, trailing space included)."""
    shape = tuple(int(d) for d in operand_shape)

    def render(payload):
        index, axis, size = (int(v) for v in np.asarray(payload))
        return (f"out-of-bounds indexing for array of shape {shape}: index {index} is out of "
                f"bounds for axis {axis} with size {size}. ")
    return render


def oob_site(name, params, ins):
    """``(failed, payload, operand shape)`` of the index primitive ``name``
    applied to ``ins``; ``failed`` is a boolean scalar."""
    from xjit import numpy as jnp
    from xjit._src.lax import lax
    if name == "dynamic_slice":
        operand, *starts = ins
        shape = _shape(operand)
        idx = _stacked(starts, shape, jnp)
        end = jnp.add(idx, np.array(params["slice_sizes"], dtype=idx.dtype))
        mask = jnp.logical_or(jnp.less(idx, 0), jnp.greater(end, np.array(shape, idx.dtype)))
        dims = tuple(range(len(shape)))
    elif name == "dynamic_update_slice":
        operand, update, *starts = ins
        shape = _shape(operand)
        idx = _stacked(starts, shape, jnp)
        # the sizes are int64 NumPy arrays: the sum is in their promoted type
        end = jnp.add(idx, np.array(_shape(update)))
        mask = jnp.logical_or(jnp.less(idx, 0), jnp.greater(end, np.array(shape)))
        dims = tuple(range(len(shape)))
    elif name == "gather":
        operand, idx = ins
        shape, dn = _shape(operand), params["dimension_numbers"]
        dims = tuple(int(d) for d in dn.start_index_map)
        if not dims:  # JAX indexes the operand's dims with an empty (float) NumPy array
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        sizes = params["slice_sizes"]
        # JAX casts the bound to the indices' dtype, wrapping in a narrow one
        bound = np.array([shape[d] - sizes[d] for d in dims], np.int64).astype(
            _dtype(idx))
        mask = jnp.logical_or(jnp.less(idx, 0), jnp.greater(idx, bound))
    else:
        operand, idx, updates = ins
        shape, dn = _shape(operand), params["dimension_numbers"]
        if tuple(dn.operand_batching_dims):
            # JAX 0.10.2 pairs the operand's dims that are not inserted with
            # update_window_dims, batching dims included, and runs past them
            raise IndexError("tuple index out of range")
        window, windows = iter(dn.update_window_dims), {}
        for d in range(len(shape)):
            windows[d] = 1 if d in dn.inserted_window_dims else _shape(updates)[next(window)]
        dims = tuple(int(d) for d in dn.scatter_dims_to_operand_dims)
        bound = np.array([shape[d] - windows[d] for d in dims], np.int64)
        bound = np.minimum(bound, np.iinfo(_dtype(idx)).max).astype(_dtype(idx))
        mask = jnp.logical_or(jnp.less(idx, 0), jnp.greater(idx, bound))
    if int(np.prod(_shape(mask))) == 0:  # JAX's argmin of no index
        raise ValueError("attempt to get argmin of an empty sequence")
    flat = jnp.argmax(jnp.ravel(mask))  # the first out-of-bounds index (0 if none)
    at = flat % _shape(mask)[-1]
    payload = jnp.stack([
        lax.convert_element_type(jnp.ravel(idx)[flat], np.int32),
        jnp.asarray(np.array(dims, np.int32))[at],
        jnp.asarray(np.array([shape[d] for d in dims], np.int32))[at]])
    return jnp.any(mask), payload, shape


def _shape(x):
    return tuple(core.aval_of(x).shape)


def _dtype(x):
    return np.dtype(core.aval_of(x).dtype)


def _stacked(starts, shape, jnp):
    """The start indices as one vector (JAX's ``jnp.array`` of them); an
    operand with no axes has none, where JAX fails taking their argmin."""
    if not shape:
        raise ValueError("attempt to get argmin of an empty sequence")
    return jnp.array(starts)
