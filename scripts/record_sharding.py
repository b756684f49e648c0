"""Record what JAX 0.10.2 returns on 8 CPU devices for the multi-device
sharding tests (needs the `compare` extra):

    .venv/bin/python scripts/record_sharding.py
"""
import importlib
import os
import sys

TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
sys.path.insert(0, TESTS)
import multi_device  # noqa: E402

MODULES = {"sharding_multi_device": "test_sharding_multi_device",
           "shard_map_multi_device": "test_sharding_shard_map",
           "explicit_sharding": "test_explicit_sharding"}

if __name__ == "__main__":
    for name in sys.argv[1:] or MODULES:
        mod = importlib.import_module(MODULES[name])
        out = multi_device.record(name, MODULES[name], mod.CASES)
        errors = sum("error" in r for r in out.values())
        print(f"{name}: {len(out)} cases ({errors} raise in JAX)")
