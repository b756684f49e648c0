"""DLPack exchange: arrays export their PJRT buffer as a DLPack capsule
(zero-copy on CPU), and any DLPack producer can be read in."""
import enum

import numpy as np
from jaxlib import _jax

from . import dtypes


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLROCM = 10


_PLATFORM_TYPES = {"cpu": DLDeviceType.kDLCPU, "cuda": DLDeviceType.kDLCUDA,
                   "gpu": DLDeviceType.kDLCUDA, "rocm": DLDeviceType.kDLROCM}

_SUPPORTED = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128, np.bool_))


def is_supported_dtype(dtype):
    """Whether arrays of ``dtype`` can cross a DLPack boundary."""
    return np.dtype(dtype) in _SUPPORTED


def dlpack_device(x):
    """``x.__dlpack_device__()``: (device type, device id)."""
    dev = x.device
    return _PLATFORM_TYPES[dev.platform], dev.id


def to_capsule(x, stream=None, max_version=None, dl_device=None, copy=None):
    """``x.__dlpack__()``: a capsule viewing ``x``'s device buffer."""
    if not is_supported_dtype(x.dtype):
        raise BufferError(f"dtype {x.dtype} is not supported by DLPack")
    if dl_device is not None and tuple(dl_device) != dlpack_device(x):
        raise BufferError(f"DLPack export to device {dl_device} is not supported")
    x.block_until_ready()
    return _jax.buffer_to_dlpack_managed_tensor(x._buf, stream=stream)


def from_dlpack(external_array, device=None, copy=None):
    """An xjit array holding the data of any object with ``__dlpack__``."""
    from .array import ArrayImpl
    from .dispatch import device_put
    if not (hasattr(external_array, "__dlpack__")
            and hasattr(external_array, "__dlpack_device__")):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                        "__dlpack_device__ methods.")
    if isinstance(external_array, ArrayImpl):  # a copy drops the weak type, as jnp.array
        out = device_put(np.array(external_array)) if copy else external_array
    else:  # the host copy takes the default dtypes (no float64 without jax_enable_x64)
        out = device_put(np.array(np.from_dlpack(external_array)))
    if device is None:
        return out
    if isinstance(device, _jax.Sharding):
        from .sharding import place
        return place(out, device)
    return device_put(out, device)
