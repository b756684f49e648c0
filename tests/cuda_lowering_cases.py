"""Programs whose CUDA lowering xjit must match JAX's, custom call by custom
call (tests/test_cuda_lowering.py; scripts/record_cuda_lowering.py records
JAX's into tests/cuda_lowering.json). Each takes the library (jax or xjit)."""
from __future__ import annotations

import re

import numpy as np


def cases(jax):
    jnp, linalg = jax.numpy, jax.lax.linalg
    f32 = lambda *s: np.ones(s, np.float32)  # noqa: E731
    return {
        "cholesky": (linalg.cholesky, f32(3, 3)),
        "cholesky_batch_complex": (linalg.cholesky, f32(2, 3, 3).astype(np.complex64)),
        "lu": (linalg.lu, f32(3, 3)),
        "lu_tall": (linalg.lu, f32(4, 3)),
        "lu_batch": (linalg.lu, f32(2, 3, 3)),
        "qr_reduced": (lambda x: jnp.linalg.qr(x), f32(4, 3)),
        "qr_complete_batch": (lambda x: jnp.linalg.qr(x, mode="complete"), f32(2, 4, 3)),
        "eigh": (jnp.linalg.eigh, f32(3, 3)),
        "eigh_batch": (jnp.linalg.eigh, f32(2, 3, 3)),
        "svd_reduced": (lambda x: jnp.linalg.svd(x, full_matrices=False), f32(4, 3)),
        "svd_full": (jnp.linalg.svd, f32(4, 3)),
        "svd_values": (lambda x: jnp.linalg.svd(x, compute_uv=False), f32(4, 3)),
        "svd_econ": (lambda x: jnp.linalg.svd(x, full_matrices=False), f32(64, 40)),
        "svd_wide_gesvd": (lambda x: jnp.linalg.svd(x, full_matrices=False), f32(3, 1100)),
        "svd_tall_gesvd_values": (lambda x: jnp.linalg.svd(x, compute_uv=False), f32(1100, 3)),
    }


def custom_calls(text):
    """[target, attributes, layouts, aliases the first operand, signature] of
    each custom call in a module's text (JAX prints FFI attributes as
    ``mhlo.backend_config``, xjit as the call's own ``backend_config``)."""
    out = []
    for line in text.splitlines():
        if "stablehlo.custom_call" not in line:
            continue
        target = re.search(r"@([\w.]+)\(", line).group(1)
        config = re.search(r"backend_config = \{([^}]*)\}", line)
        layouts = dict(re.findall(r"(operand_layouts|result_layouts) = "
                                  r"(\[(?:dense<[^>]*> : tensor<\w+>(?:, )?)*\])", line))
        out.append([target, config.group(1) if config else "", layouts,
                    "output_operand_aliases" in line, line.rsplit(" : ", 1)[1]])
    return out
