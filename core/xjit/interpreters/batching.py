"""``xjit.interpreters.batching``: vmap's rule registries.

``primitive_batchers[p](batched_args, batch_dims, **params) -> (out, out_dim)``
is the table the batching interpreter consults; ``fancy_primitive_batchers``
rules also receive the axis (``rule(axis_data, args, dims, **params)``).
``register_vmappable`` makes vmap map a type as one value (BCOO does)."""
from xjit._src.interpreters import batching as _batching
from xjit._src.interpreters.batching import (  # noqa: F401
    defbroadcasting, defreducer, defvectorized, not_mapped)
from xjit._src.interpreters.batching import (  # noqa: F401
    axis_batch_rules as fancy_primitive_batchers, batch_rules as primitive_batchers)
from xjit._src.interpreters.vmappable import (  # noqa: F401
    register_vmappable, unregister_vmappable)


def broadcast(x, sz, axis, mesh_axis=None):
    """``x`` with a new axis of size ``sz`` at ``axis`` (``mesh_axis`` names a
    mesh axis to shard it over; there is one device here)."""
    return _batching.broadcast(x, sz, axis)


def bdim_at_front(x, bdim, size, mesh_axis=None):
    """``x`` with its batch axis ``bdim`` moved to the front (broadcast to
    ``size`` when it has none)."""
    return _batching.bdim_at_front(x, bdim, size)


class _AxisPrimitiveBatchers:
    """``axis_primitive_batchers[p] = rule``, JAX's older registration form
    (equinox uses it): ``rule(axis_size, axis_name, trace_type, args, dims,
    **params)``, adapted into ``fancy_primitive_batchers``. Write-only, as in JAX."""

    def __setitem__(self, prim, rule):
        def axis_rule(axis_data, vals, dims, **params):
            return rule(axis_data.size, axis_data.name, None, vals, dims, **params)
        fancy_primitive_batchers[prim] = axis_rule


axis_primitive_batchers = _AxisPrimitiveBatchers()
