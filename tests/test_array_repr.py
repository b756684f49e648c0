"""Array reprs as JAX 0.10.2 prints them, including its line-fitting rule for
the trailing ``dtype=`` (when it does not fit after the last line JAX pads
with spaces on that same line). Expected texts recorded from JAX."""
import json
import os

import numpy as np  # noqa: F401 (used by the case expressions)
import pytest

import xjit.numpy as jnp  # noqa: F401

with open(os.path.join(os.path.dirname(__file__), "fixtures", "array_reprs.json")) as f:
    CASES = json.load(f)


@pytest.mark.parametrize("code", sorted(CASES))
def test_repr_matches_jax(code):
    assert repr(eval(code)) == CASES[code]
