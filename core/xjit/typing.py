"""``xjit.typing``: annotation types for array-accepting APIs."""
from __future__ import annotations

from typing import Any, Protocol, Union

import numpy as np

from xjit._src.array import Array


class SupportsDType(Protocol):
    @property
    def dtype(self) -> np.dtype: ...


ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]
