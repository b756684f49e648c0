#!/usr/bin/env bash
# Run xjit on a CUDA machine through jaxlib's CUDA PJRT plugin (used with the
# `device` tool when a GPU is lent): which client and devices it finds, the
# battery of scripts/gpu_check.py under xjit and under the machine's own JAX,
# compared, a device profile, and (with GPU_TESTS) test files. Results go to
# $OUT when it is set.
set -uo pipefail
OUT="${OUT:-/tmp/xjit-gpu}"; mkdir -p "$OUT"
PY="${PYTHON:-python3}"
XJIT_PATH="$PWD/core:$PWD/widgets:$PWD/kernel_ext"
{
  nvidia-smi -L
  "$PY" -c "import jaxlib, numpy; print('jaxlib', jaxlib.__version__, 'numpy', numpy.__version__)"
  PYTHONPATH="$XJIT_PATH" "$PY" - <<'PYEOF'
import xjit as jax, xjit.numpy as jnp, xjit.inspect
from xjit._src import xla_bridge
import os
from xjit._src import profiler
print("backend:", jax.default_backend(), jax.devices(), "gpu error:", xla_bridge.last_gpu_error,
      "kernels:", xla_bridge.cuda_kernels_error or "registered")
def f(x):
    y = jnp.sin(x) @ x
    return jnp.tanh(y).sum()
x = jnp.ones((1024, 1024))
p = xjit.inspect.device_profile(f, x)
print(str(p)[:1500])
jf = jax.jit(f); jf(x).block_until_ready()
with open(os.path.join(os.environ.get("OUT", "/tmp"), "xspace.pb"), "wb") as fh:
    fh.write(profiler.collect_xspace(lambda: jf(x).block_until_ready()))
PYEOF
  PYTHONPATH="$XJIT_PATH" timeout 300 "$PY" scripts/gpu_check.py run xjit "$OUT/xjit.npz"
  timeout 300 "$PY" scripts/gpu_check.py run jax "$OUT/jax.npz"
  "$PY" scripts/gpu_check.py compare "$OUT/xjit.npz" "$OUT/jax.npz"
  if [ -n "${GPU_TESTS:-}" ]; then
    PYTHONPATH="$XJIT_PATH" "$PY" -m pytest $GPU_TESTS -q -p no:cacheprovider --timeout=300 2>&1 |
      grep -E "^FAILED|passed|failed" | tail -40
  fi
} 2>&1 | tee "$OUT/gpu_check.log"
