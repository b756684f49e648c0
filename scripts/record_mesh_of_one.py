"""Record what JAX 0.10.2 returns for tests/test_mesh_of_one.py (needs the
`compare` extra): in this process, with one CPU device (``mesh_of_one.json``),
and in one with 8 CPU devices (``mesh_of_one_8.json``):

    .venv/bin/python scripts/record_mesh_of_one.py
"""
import os
import sys

TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
sys.path.insert(0, TESTS)
import multi_device  # noqa: E402
import recorded  # noqa: E402
import test_mesh_of_one as mod  # noqa: E402

if __name__ == "__main__":
    if "--xla_force_host_platform_device_count" in os.environ.get("XLA_FLAGS", ""):
        sys.exit("record in a process with one CPU device (unset XLA_FLAGS)")
    one = recorded.record("mesh_of_one", mod.PRELUDE, mod.CASES)
    eight = multi_device.record("mesh_of_one_8", "test_mesh_of_one", mod.CASES)
    for name, out in (("mesh_of_one", one), ("mesh_of_one_8", eight)):
        print(f"{name}: {len(out)} cases ({sum('error' in r for r in out.values())} raise in JAX)")
