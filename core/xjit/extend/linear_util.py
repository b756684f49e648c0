"""``xjit.extend.linear_util``: ``WrappedFun`` and transformations over it."""
from xjit._src.linear_util import (  # noqa: F401
    Callable, StoreException, WrappedFun, cache, merge_linear_aux, transformation,
    transformation2, transformation_with_aux, transformation_with_aux2, wrap_init)
