"""Where a computation runs: on the device of its committed arguments.

As in JAX, an array is *committed* when it was placed with an explicit
device or sharding (``device_put(x, device)``) or computed from a committed
argument. A computation runs where its committed arguments live (they must
agree), its uncommitted arguments are copied there, and its results are
committed iff an argument was. With no committed argument it runs on the
default device, and its results are uncommitted.

The dispatch fast paths handle the common case themselves: every argument
uncommitted on the default device carries ``xla_bridge.default_sharding``, so
one identity check per argument decides; anything else comes here.
"""
from __future__ import annotations

from jaxlib import _jax

from xjit._src import xla_bridge as backend


def device_of(buf):
    """The device a single-device buffer lives on."""
    s = buf._sharding
    return s._device if isinstance(s, _jax.SingleDeviceSharding) else s._device_assignment[0]


def run(exe, bufs, describe):
    """``exe.run`` where the committed buffers among ``bufs`` live (see ``place``)."""
    here = backend.default_sharding
    if exe.home is here:  # compiled for the default device
        for b in bufs:
            if b._sharding is not here:
                break
        else:
            return exe.run(bufs)
    exe, bufs, committed = place(exe, bufs, describe)
    return exe.run(bufs, committed)


def place(exe, bufs, describe):
    """``(executable, buffers, committed)``: ``exe``'s program on the device
    of the committed buffers among ``bufs`` (else the default device), with
    the others copied there. ``describe()`` gives ``(function name, argument
    names, avals)`` aligned with ``bufs``, for JAX's error when two committed
    buffers are on different devices."""
    device = committed_device(bufs, describe)
    committed = device is not None
    if not committed:
        device = backend.default_device()
    bufs = [b if b._committed or device_of(b) == device else backend.copy_to_device(b, device)
            for b in bufs]
    return exe.on(device), bufs, committed


def committed_device(bufs, describe):
    """The device of the committed buffers among ``bufs``, or None when none
    is committed; JAX's error (see ``place``) when they are on different devices."""
    device = first = None
    for i, b in enumerate(bufs):
        if b._committed:
            d = device_of(b)
            if device is None:
                device, first = d, i
            elif d != device:
                raise incompatible_devices(*describe(), [device_of(b) for b in bufs], first, i)
    return device


def incompatible_devices(fun_name, names, avals, devices, i, j, api_name="jit"):
    """JAX's ValueError for arguments ``i`` and ``j`` committed to different
    devices. Each device is named by the first argument on it, committed or
    not, as JAX's message does."""
    def argument(d):
        k = devices.index(d)
        name = names[k] if names is not None and k < len(names) else ""
        return (f"argument {name} of {fun_name} with shape {avals[k].str_short(False)} and "
                f"with device ids [{d.id}] on platform {d.platform.upper()}")
    return ValueError(f"Received incompatible devices for {api_name}ted computation. Got "
                      f"{argument(devices[i])} and {argument(devices[j])}")
