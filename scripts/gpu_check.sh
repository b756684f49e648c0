#!/usr/bin/env bash
# Run xjit on a CUDA machine through jaxlib's CUDA PJRT plugin (used with the
# `device` tool when a GPU is lent): which client and devices it finds, a jitted
# computation, and the core test files. Results go to $OUT when it is set.
set -uo pipefail
OUT="${OUT:-/tmp/xjit-gpu}"; mkdir -p "$OUT"
export PYTHONPATH="$PWD/core:$PWD/widgets:$PWD/kernel_ext${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-python3}"
{
  nvidia-smi -L
  "$PY" -c "import jaxlib, numpy; print('jaxlib', jaxlib.__version__, 'numpy', numpy.__version__)"
  "$PY" - <<'PYEOF'
import time, numpy as np
import xjit as jax, xjit.numpy as jnp
from xjit._src import backend as _b
print("backend:", jax.default_backend(), jax.devices(), "gpu error:", _b.last_gpu_error)
x = jnp.arange(1 << 20, dtype=jnp.float32)
f = jax.jit(lambda x: jnp.sum(jnp.sin(x) ** 2 + jnp.cos(x) ** 2))
print("sum(sin^2+cos^2) =", float(f(x)), "expected", float(1 << 20))
a = jnp.ones((2048, 2048)); t = time.perf_counter()
for _ in range(10): b = (a @ a).block_until_ready()
print("matmul 2048^2 x10: %.2f ms each" % ((time.perf_counter() - t) * 100))
print(jax.jit(lambda x: x * 2).lower(1.0).compile().as_text()[:200])
PYEOF
  "$PY" -m pytest ${GPU_TESTS:-tests/test_differential_core.py tests/test_seeds.py tests/test_dtypes.py tests/test_tree_util.py} -q -p no:cacheprovider --timeout=500 2>&1 | grep -E "^FAILED|passed|failed" | tail -40
} 2>&1 | tee "$OUT/gpu_check.log"
