"""The C helpers of jit's dispatch fast path (core/xjit/_src/lib/_fastpath.c):
what they return, what they refuse, and that they leak no references."""
from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit._src import xla_bridge as backend
from xjit._src.array import ArrayImpl
from xjit._src.lib import _fastpath
from xjit._src.sharded_array import ShardedArrayImpl


def test_scan_reads_avals_and_buffers():
    xs = [jnp.arange(3.0), jnp.ones((2, 2), "int32")]
    avals, bufs, placed = _fastpath.scan(xs, backend.default_sharding)
    assert avals == [x.aval for x in xs] and all(a is x.aval for a, x in zip(avals, xs))
    assert all(b is x._buf for b, x in zip(bufs, xs))
    assert placed is False
    assert _fastpath.scan(tuple(xs), backend.default_sharding)[0] == avals
    assert _fastpath.scan([], backend.default_sharding) == ([], [], False)


def test_scan_sees_a_committed_argument():
    x = jnp.arange(3.0)
    committed = xjit.device_put(x, xjit.devices()[0])
    assert _fastpath.scan([x, committed], backend.default_sharding)[2] is True


@pytest.mark.parametrize("other", [1.5, 2, np.ones(2), "a", None])
def test_scan_declines_anything_but_arrays(other):
    assert _fastpath.scan([jnp.ones(2), other], backend.default_sharding) is None


def test_scan_declines_subclasses():
    assert issubclass(ShardedArrayImpl, ArrayImpl)
    x = jnp.ones(2)
    sub = ShardedArrayImpl(x._buf, x.aval)
    assert _fastpath.scan([sub], backend.default_sharding) is None


def test_wrap_makes_arrays():
    src = [jnp.arange(4.0), jnp.full((2,), 7, "int8")]
    out = _fastpath.wrap(ArrayImpl, [x._buf for x in src], [x.aval for x in src])
    assert [type(o) for o in out] == [ArrayImpl, ArrayImpl]
    assert out[0].tolist() == [0.0, 1.0, 2.0, 3.0] and out[1].dtype == np.int8
    assert out[1]._npy is None and repr(out[1]) == "Array([7, 7], dtype=int8)"
    sub = _fastpath.wrap(ShardedArrayImpl, [src[0]._buf], [src[0].aval])[0]
    assert type(sub) is ShardedArrayImpl


def test_wrap_refuses_bad_input():
    x = jnp.ones(2)
    with pytest.raises(TypeError, match="ArrayImpl or a subclass"):
        _fastpath.wrap(int, [x._buf], [x.aval])

    class WithSlot(ArrayImpl):
        __slots__ = ("extra",)

    with pytest.raises(TypeError, match="without new slots"):
        _fastpath.wrap(WithSlot, [x._buf], [x.aval])
    with pytest.raises(ValueError, match="as many avals as buffers"):
        _fastpath.wrap(ArrayImpl, [x._buf, x._buf], [x.aval])
    with pytest.raises(TypeError, match="takes 3 arguments"):
        _fastpath.wrap(ArrayImpl, [x._buf])
    with pytest.raises(TypeError, match="takes a class"):
        _fastpath.init(3)


def test_no_reference_leaks():
    x = jnp.arange(5.0)
    buf, aval = x._buf, x.aval
    gc.collect()
    before = sys.getrefcount(buf), sys.getrefcount(aval)
    for _ in range(1000):
        _fastpath.wrap(ArrayImpl, [buf], [aval])
        _fastpath.scan([x, x], backend.default_sharding)
        _fastpath.scan([x, 1.0], backend.default_sharding)
    gc.collect()
    assert (sys.getrefcount(buf), sys.getrefcount(aval)) == before


def test_jit_of_a_tree_goes_through_them():
    tree = {f"p{i}": jnp.full((3,), float(i)) for i in range(20)}
    f = xjit.jit(lambda t: {k: v * 2 for k, v in t.items()})
    f(tree)
    entry, leaves, bufs, placed = f._fast_tree((tree,))
    assert entry is not None and len(bufs) == 20 and placed is False
    out = f(tree)
    assert all(type(v) is ArrayImpl for v in out.values())
    assert out["p7"].tolist() == [14.0] * 3
