"""Types that ``vmap`` maps as one value: the vmappable registry.

By default ``vmap`` flattens its arguments into array leaves and maps each
leaf along its own axis. A type registered here is instead one leaf of
vmap's pytrees, and its own handlers say what mapping it means:

    register_vmappable(data_type, spec_type, axis_size_type,
                       to_elt, from_elt, make_iota)

``to_elt(cont, get_idx, value, spec)`` builds the per-example value seen by
the mapped function; ``cont(x, spec)`` maps an inner part ``x`` (an array,
or another vmappable) along ``spec`` and ``get_idx()`` is the batched index
of the current example (an int32 iota along the mapped axis).
``from_elt(cont, axis_size, elt, spec)`` rebuilds the batched value from
the function's per-example result; ``cont(axis_size, x, spec)`` stacks an
inner part along ``spec``. ``spec_type`` is the type of the specs that
in_axes/out_axes carry for such values (``int`` for BCOO), allowed as axis
spec leaves; ``make_iota(axis_size)``, if given, builds the index for
``axis_size_type`` sizes. As in JAX 0.10.2, ``unregister_vmappable`` keeps
the registration (it is a no-op).

This module only keeps the tables and walks values through them; the batch
trace and the handling of plain array leaves come from ``batching``.
"""
from __future__ import annotations

import operator
from functools import partial

from xjit._src import core

vmappables: dict = {}  # data type -> (spec type, axis size type)
spec_types: set = set()
to_elt_handlers: dict = {}
from_elt_handlers: dict = {}
make_iota_handlers: dict = {}


def register_vmappable(data_type, spec_type, axis_size_type, to_elt, from_elt, make_iota):
    """Have ``vmap`` map ``data_type`` values with ``to_elt``/``from_elt``
    (see the module docstring) instead of leaf by leaf."""
    vmappables[data_type] = (spec_type, axis_size_type)
    spec_types.add(spec_type)
    to_elt_handlers[data_type] = to_elt
    from_elt_handlers[data_type] = from_elt
    if make_iota:
        make_iota_handlers[axis_size_type] = make_iota


def unregister_vmappable(data_type) -> None:
    """Kept for JAX's API: JAX 0.10.2 leaves the registration in place, and
    so does xjit (a spec type shared by two registrations must stay valid)."""


def is_vmappable(x) -> bool:
    return type(x) in vmappables


def leaf_predicate():
    """The ``is_leaf`` vmap flattens with: None while nothing is registered,
    so that the common case flattens at full speed."""
    return is_vmappable if vmappables else None


def is_spec(a) -> bool:
    """Whether ``a`` may be a leaf of an in_axes/out_axes spec (None aside)."""
    return type(a) is int or type(a) in spec_types


def make_iota(axis_size):
    handler = make_iota_handlers.get(type(axis_size))
    if handler is not None:
        return handler(axis_size)
    return core.lax_ops.broadcasted_iota("int32", (int(axis_size),), 0)


def index_getter(trace, axis_size):
    """``get_idx`` for the handlers: the example index as a batched value of
    ``trace``, built (in the parent trace) on first use."""
    box = []

    def get_idx():
        if not box:
            with core.set_current_trace(trace.parent):
                iota = make_iota(axis_size)
            box.append(trace.new_tracer(iota, 0))
        return box[0]
    return get_idx


def _canonical(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def to_elt(trace, get_idx, x, spec):
    """The per-example view of ``x`` mapped along ``spec`` (run with the
    parent trace current, so a handler's operations happen outside vmap)."""
    handler = to_elt_handlers.get(type(x))
    if handler is not None:
        return handler(partial(to_elt, trace, get_idx), get_idx, x, spec)
    if spec is None:
        return x
    if type(spec) is int:
        return trace.new_tracer(x, _canonical(spec, len(core.aval_of(x).shape)))
    raise TypeError(f"vmap in_axes entry {spec!r} (of type {type(spec).__name__}) applies to a "
                    f"value of type {type(x).__name__}, which is neither an array mapped by an "
                    "int axis nor a type registered with register_vmappable")


def from_elt(trace, axis_size, leaf, i, x, spec):
    """The batched value of the per-example output ``x`` (output leaf ``i``)
    with its mapped axis at ``spec``. ``leaf(i, x, spec)`` handles a plain
    array; a handler runs with the batch trace current, as JAX runs it, so
    operations on per-example values inside it are batched."""
    handler = from_elt_handlers.get(type(x))
    if handler is None:
        return leaf(i, x, spec)

    def cont(size, elt, axis):
        return from_elt(trace, size, leaf, i, elt, axis)
    with core.set_current_trace(trace):
        return handler(cont, axis_size, x, spec)
