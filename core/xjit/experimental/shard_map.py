"""``jax.experimental.shard_map``: only the legacy ``shard_map`` (mesh and
specs positional, ``check_rep`` for ``check_vma``, every mesh axis manual),
which older notebooks still import; asking for it warns, as in JAX 0.10.2."""
import warnings as _warnings


def _shard_map(f, mesh, in_specs, out_specs, check_rep=True):
    """Please use `jax.shard_map`. `jax.experimental.shard_map.shard_map`
    has been deprecated."""
    from xjit._src.shard_map import shard_map
    return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                     axis_names=frozenset(), check_vma=check_rep)


def __getattr__(name):
    if name == "shard_map":
        _warnings.warn("jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map "
                       "instead.", DeprecationWarning, stacklevel=2)
        return _shard_map
    raise AttributeError(f"module 'jax.experimental.shard_map' has no attribute {name!r}")
