"""Top-level API helpers: device placement, shape structs, eval_shape."""
from __future__ import annotations

import numpy as np
from jaxlib import _jax

from xjit._src import xla_bridge as backend, compiler, core, dtypes, tree_util
from .array import ArrayImpl
from .dispatch import device_put as _device_put_one
from .stages import ShapeDtypeStruct  # noqa: F401  (lives with jit's stages, which build it)
# The transformations, where JAX's ``jax._src.api`` has them (its tutorials call ``api.jit``).
from .pjit import jit, make_jaxpr  # noqa: F401
from .interpreters.batching import vmap  # noqa: F401
from .ad_api import (  # noqa: F401
    grad, hessian, jacfwd, jacrev, jvp, linearize, value_and_grad, vjp)
from .api_transforms import jacobian, linear_transpose  # noqa: F401
from .config import disable_jit  # noqa: F401
from .sharding import PartitionSpec, _named as sharding_of_spec


def device_put(x, device=None, *, donate=False, may_alias=None):
    if device is not None and not isinstance(device, (_jax.Device, _jax.Sharding, PartitionSpec)):
        from .layout import Format
        if isinstance(device, Format):  # xjit keeps XLA's default layouts: place by sharding
            device = device.sharding
        elif not tree_util.all_leaves([device]):
            # a pytree of targets, a prefix of x's (JAX's device_put(tree, sharding_tree))
            return tree_util.tree_map(
                lambda d, v: device_put(v, d, donate=donate, may_alias=may_alias), device, x,
                is_leaf=lambda d: d is None)
    if isinstance(device, PartitionSpec):  # over the mesh in context (set_mesh)
        device = sharding_of_spec(device, "device_put")
    if isinstance(device, _jax.Sharding):
        from .sharding import place  # a jax.sharding object: the array carries it
        return tree_util.tree_map(lambda v: place(v, device), x)
    return tree_util.tree_map(lambda v: _device_put_one(v, device), x)


def device_get(x):
    leaves, treedef = tree_util.tree_flatten(x)
    for v in leaves:  # start every device-to-host copy before waiting for the first
        if isinstance(v, ArrayImpl):
            v.copy_to_host_async()
    return treedef.unflatten([np.asarray(v) if isinstance(v, ArrayImpl) else v for v in leaves])


def block_until_ready(x):
    """Wait for every array in ``x`` with one jaxlib call."""
    if type(x) is ArrayImpl:
        return x.block_until_ready()
    leaves = tree_util.flatten(x)[0]
    try:
        bufs = [leaf._buf for leaf in leaves]
    except AttributeError:  # tracers or other non-array leaves among them
        bufs = [leaf._buf for leaf in leaves if isinstance(leaf, ArrayImpl)]
    try:
        _jax.batched_block_until_ready(bufs)
    except Exception:
        for leaf in leaves:  # JAX's error for a deleted array names it
            if isinstance(leaf, ArrayImpl):
                leaf.block_until_ready()
        raise
    return x


def eval_shape(fun, *args, **kwargs):
    from xjit._src.pjit import PjitFunction
    return PjitFunction(fun).eval_shape(*args, **kwargs)


devices = backend.devices
local_devices = backend.local_devices
device_count = backend.device_count
default_backend = backend.default_backend


def local_device_count(backend_name=None):
    return len(backend.local_devices(backend_name))


def process_index():
    return backend.get_client().process_index()


def process_count():
    return 1 + max(d.process_index for d in backend.devices())


def typeof(x):
    return core.aval_of(x)


def is_weakly_typed(x):
    return dtypes.is_weakly_typed(x)


# --------------------------------------------------------------------------
# Caches, live arrays, effects and environment


def clear_caches():
    """Drop every cached trace and executable (jit, eager primitives), so
    the next call of any function retraces and recompiles."""
    from xjit._src import dispatch, pjit as jit
    for per_fun in list(jit._fun_caches.values()):
        for cache, fast in per_fun.values():
            cache.clear()
            fast.clear()
    jit._jaxpr_exe_cache.clear()
    dispatch._prim_cache.clear()


def live_arrays(platform=None):
    """The arrays that are alive (not deleted) on ``platform``'s devices."""
    import gc
    wanted = set(backend.devices(platform)) if platform is not None else None
    out = []
    for obj in gc.get_objects():
        if type(obj) is ArrayImpl and not obj.is_deleted():
            if wanted is None or obj.device in wanted:
                out.append(obj)
    return out


def effects_barrier():
    """Wait until every dispatched computation (and so every callback and
    debug print it makes) has finished."""
    compiler.wait_for_callbacks()
    for x in live_arrays():
        x._buf.block_until_ready()


def copy_to_host_async(x):
    """Start copying the arrays of pytree ``x`` to the host, so a later
    ``np.asarray`` need not wait for the transfer."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, ArrayImpl):
            leaf.copy_to_host_async()
    return x


def print_environment_info(return_string=False):
    """Versions of xjit, jaxlib, NumPy and Python, and the devices in use."""
    import platform
    import sys
    import jaxlib
    from xjit.version import __version__
    devs = backend.devices()
    info = "\n".join([
        f"xjit:    {__version__}",
        f"jaxlib:  {jaxlib.__version__}",
        f"numpy:   {np.__version__}",
        f"python:  {sys.version}",
        f"device info: {devs[0].device_kind}-{len(devs)}, {len(devs)} local devices\"",
        f"process_count: {process_count()}",
        f"platform: {platform.uname()}",
    ]) + "\n"
    if return_string:
        return info
    print(info)


# --------------------------------------------------------------------------
# Names: annotations for profiles and HLO metadata (no effect on values)


def named_call(fun, *, name=None):
    """``fun`` with what it stages under the scope ``name`` (default: its
    own name), as JAX's: a ``named_scope`` around each call."""
    return named_scope(fun.__name__ if name is None else name)(fun)


class named_scope:
    """``with named_scope('block'):`` (or ``@named_scope('block')``) groups the
    operations staged inside under a name on the name stack."""

    __slots__ = ("name", "_cm")

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError("named_scope name argument must be a string.")
        self.name = name

    def __enter__(self):
        from xjit._src import source_info_util
        self._cm = source_info_util.extend_name_stack(self.name)
        self._cm.__enter__()

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        return False

    def __call__(self, fun):
        import functools

        @functools.wraps(fun)
        def scoped(*args, **kwargs):
            with named_scope(self.name):
                return fun(*args, **kwargs)
        return scoped


# --------------------------------------------------------------------------
# Processes (one process here); the host_* names are JAX's deprecated aliases


def process_indices():
    return list(range(process_count()))


def _renamed(old, new, fn):
    def alias(*args, **kwargs):
        import warnings
        warnings.warn(f"jax.{old} has been renamed to jax.{new}. This alias will eventually be "
                      "removed; please update your code.", stacklevel=2)
        return fn(*args, **kwargs)
    alias.__name__ = old
    return alias


# JAX's own messages name the old functions oddly; they are kept as JAX prints them
host_count = _renamed("process_count", "process_count", process_count)
host_id = _renamed("process_index", "process_index", process_index)
host_ids = _renamed("process_indexs", "process_indices", process_indices)
