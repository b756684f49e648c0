"""Top-level API helpers: device placement, shape structs, eval_shape."""
from __future__ import annotations

import numpy as np

from . import backend, core, dtypes, tree_util
from .array import ArrayImpl
from .dispatch import device_put as _device_put_one


class ShapeDtypeStruct:
    """A shape, dtype and weak type standing in for an array."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, *, weak_type=False, sharding=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type
        self.sharding = sharding

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))

    @property
    def aval(self):
        return core.ShapedArray(self.shape, self.dtype, self.weak_type)

    def __repr__(self):
        wt = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{wt})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


def device_put(x, device=None, *, donate=False, may_alias=None):
    return tree_util.tree_map(lambda v: _device_put_one(v, device), x)


def device_get(x):
    def get(v):
        if isinstance(v, ArrayImpl):
            return np.asarray(v)
        return v
    return tree_util.tree_map(get, x)


def block_until_ready(x):
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, ArrayImpl):
            leaf.block_until_ready()
    return x


def eval_shape(fun, *args, **kwargs):
    from .jit import JitFunction
    return JitFunction(fun).eval_shape(*args, **kwargs)


devices = backend.devices
local_devices = backend.local_devices
device_count = backend.device_count
default_backend = backend.default_backend


def local_device_count(backend_name=None):
    return backend.device_count(backend_name)


def process_index():
    return 0


def process_count():
    return 1


def typeof(x):
    return core.aval_of(x)


def is_weakly_typed(x):
    return dtypes.is_weakly_typed(x)
