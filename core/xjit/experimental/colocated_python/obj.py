"""Colocated Python objects (as ``jax.experimental.colocated_python.obj``).

``colocated_python_class(cls)`` gives a wrapper class. Making a wrapper makes
no object yet: the first method call makes one on the host of the call's
devices (here), from the constructor arguments, and every method call runs
there on it. The object lives as long as the wrapper.
"""
from __future__ import annotations

import inspect
import random
import threading

from xjit._src import tree_util
from xjit._src.api_util import fun_signature
from xjit._src.traceback_util import api_boundary
from xjit._src.util import wraps
from xjit.experimental.colocated_python import func, obj_backend


class _InstanceRegistry:
    """uid -> the devices each wrapper's object has been used on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._storage: dict[int, set] = {}

    def new_instance(self) -> int:
        with self._lock:
            uid = random.getrandbits(63)
            while uid in self._storage:
                uid = random.getrandbits(63)
            self._storage[uid] = set()
        return uid

    def update_devices(self, uid: int, device_set: set) -> None:
        with self._lock:
            self._storage.setdefault(uid, set()).update(device_set)

    def pop_instance(self, uid: int) -> set:
        with self._lock:
            return self._storage.pop(uid, set())

    def cache_clear(self):
        with self._lock:
            self._storage = {}


SINGLETON_INSTANCE_REGISTRY = _InstanceRegistry()


def _update_instance_devices(uid, shardings) -> None:
    devices = set()
    for s in shardings:
        devices |= set(s.device_set)
    SINGLETON_INSTANCE_REGISTRY.update_devices(uid, devices)


def _make_method(cls, cls_sourceinfo, uid, init_args, init_kwargs, method_name,
                 original_method, func_maker):
    """The wrapper's method: a colocated callable whose executor side finds
    (or makes) the object and calls the method on it."""

    class MethodCallerAtBackend:
        def __init__(self):
            self._lock = threading.Lock()

        def __reduce__(self):  # the executor's copy starts without the object
            return type(self), ()

        def __call__(self, *args, **kwargs):
            with self._lock:
                if not hasattr(self, "obj"):
                    ref = obj_backend.SINGLETON_OBJECT_STORE.get_or_create(
                        uid, lambda: obj_backend._ConsumableRef(cls(*init_args, **init_kwargs)))
                    self.obj = ref()
            return getattr(self.obj, method_name)(*args, **kwargs)

        def __del__(self):
            if not hasattr(self, "obj"):
                # Nobody took the object: take (and drop) it so it is not kept.
                try:
                    obj_backend.SINGLETON_OBJECT_STORE.get_or_create(
                        uid, lambda: obj_backend._ConsumableRef(None))()
                except Exception:  # the constructor failed: nothing to drop
                    pass

    colocated = func_maker.make_callable(MethodCallerAtBackend(), cls_sourceinfo,
                                         fun_signature(original_method))

    def wrap(colocated):
        @api_boundary
        def method_wrapper(*args, **kwargs):
            arg_shardings = tuple(func._get_spec(x).sharding
                                  for x in tree_util.tree_leaves((args, kwargs)))
            if arg_shardings:
                _update_instance_devices(uid, arg_shardings)
            result = colocated(*args, **kwargs)
            if not arg_shardings:
                _update_instance_devices(uid, tuple(
                    func._get_spec(x).sharding for x in tree_util.tree_leaves(result)))
            return result

        def specialize(*args, **kwargs):
            return wrap(colocated.specialize(*args, **kwargs))

        method_wrapper = wraps(original_method)(method_wrapper)
        method_wrapper.specialize = specialize
        return method_wrapper

    return wrap(colocated)


def wrap_class(cls: type, cls_sourceinfo: str | None) -> type:
    """The wrapper class of :func:`colocated_python_class`."""

    class WrappedClass:
        @wraps(cls.__init__)
        def __init__(self, *init_args, **init_kwargs) -> None:
            uid = self._colocated_python_uid = SINGLETON_INSTANCE_REGISTRY.new_instance()
            self.func_maker = func._CachedColocatedFunctionMaker(uid)
            for name in dir(cls):
                member = getattr(cls, name)
                if not inspect.isfunction(member) or name in (
                        "__init__", "__del__", "__reduce__", "__reduce_ex__"):
                    continue
                setattr(self, name, _make_method(cls, cls_sourceinfo, uid, init_args,
                                                 init_kwargs, name, member, self.func_maker))

        def __del__(self):
            uid = self.__dict__.get("_colocated_python_uid")
            if uid is not None:
                SINGLETON_INSTANCE_REGISTRY.pop_instance(uid)

    WrappedClass.__name__ = cls.__name__
    WrappedClass.__qualname__ = getattr(cls, "__qualname__", cls.__name__)
    WrappedClass.__doc__ = cls.__doc__
    return WrappedClass


