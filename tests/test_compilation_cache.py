"""The persistent compilation cache: a second process loads the programs the
first one compiled, with the same results; a damaged entry is compiled again."""
import os
import subprocess
import sys

PROGRAM = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%(name)s %(message)s")
import xjit; xjit.install_as_jax()
import jax, jax.numpy as jnp
from jax.experimental.compilation_cache import compilation_cache as cc
cc.set_cache_dir(sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
@jax.jit
def f(x):
    return jnp.tanh(x @ x.T).sum(axis=0) * 3
print(f(jnp.arange(12.0).reshape(3, 4) / 10).tolist())
"""


def _run(directory):
    out = subprocess.run([sys.executable, "-c", PROGRAM, str(directory)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    hits = [ln for ln in out.stderr.splitlines() if "persistent compilation cache hit" in ln]
    warnings = [ln for ln in out.stderr.splitlines() if "could not load" in ln]
    return out.stdout, hits, warnings


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    first, hits, _ = _run(tmp_path)
    entries = sorted(os.listdir(tmp_path))
    assert entries and not hits  # everything compiled, and written
    second, hits, _ = _run(tmp_path)
    assert second == first
    assert len(hits) == len(entries) and sorted(os.listdir(tmp_path)) == entries


def test_a_damaged_entry_is_compiled_again(tmp_path):
    first, _, _ = _run(tmp_path)
    for name in os.listdir(tmp_path):
        (tmp_path / name).write_bytes(b"not an executable")
    again, hits, warnings = _run(tmp_path)
    assert again == first and not hits and warnings


def test_cache_flags_and_reset():
    import xjit as jax
    from xjit.experimental.compilation_cache import compilation_cache as cc
    try:
        cc.set_cache_dir("/nonexistent/xjit-cache")
        assert jax.config.jax_compilation_cache_dir == "/nonexistent/xjit-cache"
        assert jax.jit(lambda x: x + 1)(1.0) == 2.0  # nothing written: under 1 s to compile
    finally:
        cc.reset_cache()
    assert jax.config.jax_compilation_cache_dir is None
    assert jax.config.jax_persistent_cache_min_compile_time_secs == 1.0
