"""xjit: a JAX-compatible tracing and compilation engine on jaxlib.

``import xjit as jax; import xjit.numpy as jnp``.
"""
import os as _os

# Quiet the C++ runtime's INFO logs (device discovery), as JAX does.
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

from xjit._src import core as _core

_core.register_internal_dir(_os.path.dirname(__file__) + _os.sep)

from xjit._src.config import config  # noqa: E402
from xjit._src.array import Array  # noqa: E402
from xjit._src.pjit import jit, make_jaxpr  # noqa: E402
from xjit._src.interpreters.batching import vmap  # noqa: E402
from xjit._src.ad_api import (  # noqa: E402
    grad, hessian, jacfwd, jacrev, jvp, linearize, value_and_grad, vjp)
from xjit._src.custom_derivatives import custom_jvp, custom_vjp  # noqa: E402
from xjit._src.ad_checkpoint import checkpoint, checkpoint_policies, remat  # noqa: E402
from xjit._src.api import (  # noqa: E402
    ShapeDtypeStruct, block_until_ready, default_backend, device_count, device_get, device_put,
    devices, eval_shape, local_device_count, local_devices, process_count, process_index, typeof)
from xjit._src.xla_bridge import Device  # noqa: E402
from xjit import errors, lax, numpy, tree, tree_util  # noqa: E402,F401
from xjit import debug, experimental, nn  # noqa: E402,F401
from xjit import inspect, monitoring  # noqa: E402,F401  (inspect observes jit from here on)
from xjit import random  # noqa: E402,F401
from xjit._src import key_reuse as _key_reuse  # noqa: E402,F401  (jax_debug_key_reuse)
from xjit._src.callback import pure_callback  # noqa: E402,F401
from xjit._src.config import (  # noqa: E402
    debug_infs, debug_nans, default_matmul_precision, disable_jit, enable_x64,
    explain_cache_misses, log_compiles, numpy_rank_promotion)
from xjit._src.config import (  # noqa: E402,F401
    check_tracer_leaks, checking_leaks, debug_key_reuse, default_device, numpy_dtype_promotion,
    transfer_guard, transfer_guard_device_to_device, transfer_guard_device_to_host,
    transfer_guard_host_to_device)
from xjit._src.api_transforms import (  # noqa: E402,F401
    closure_convert, custom_gradient, ensure_compile_time_eval, jacobian, linear_transpose)
from xjit._src.api import (  # noqa: E402,F401
    clear_caches, copy_to_host_async, effects_barrier, host_count, host_id, host_ids, live_arrays,
    named_call, named_scope, print_environment_info, process_indices)
from xjit._src.dtypes import float0  # noqa: E402,F401
from xjit import custom_batching, custom_derivatives, dtypes, typing, version  # noqa: E402,F401
from xjit import scipy  # noqa: E402,F401
from xjit import distributed, dlpack, image, lib, ops, profiler, sharding  # noqa: E402,F401
from xjit._src.sharding import PartitionSpec as P, make_mesh  # noqa: E402,F401

from xjit import api_util, core, interpreters, stages  # noqa: E402,F401
from xjit._src.jax_takeover import install_as_jax  # noqa: E402,F401
from xjit._src.pmap import pmap  # noqa: E402,F401
from xjit._src.shard_map import shard_map  # noqa: E402,F401
from xjit._src.mesh import set_mesh  # noqa: E402,F401
from xjit._src.sharding import NamedSharding, reshard  # noqa: E402,F401
from xjit._src.sharded_array import (  # noqa: E402,F401
    make_array_from_callback, make_array_from_process_local_data,
    make_array_from_single_device_arrays)
from xjit import ref  # noqa: E402,F401
from xjit.ref import Ref, empty_ref, free_ref, freeze, new_ref  # noqa: E402,F401

__version__ = "0.10.2"
__version_info__ = (0, 10, 2)


def load_ipython_extension(ipython):
    """``%load_ext xjit``: register the %%xjit magics and start the channel
    that feeds the JupyterLab panel (the notebook layer lives outside core)."""
    from xjit_kernel_ext import load_ipython_extension as _start_channel
    from xjit_kernel_ext.magics import load as _load_magics
    from xjit._src.jax_takeover import notebook_takeover
    notebook_takeover()  # `import jax` gives xjit from here on (opt out: XJIT_NO_JAX_TAKEOVER=1)
    _load_magics(ipython)
    _start_channel(ipython)
