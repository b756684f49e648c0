"""Record what JAX 0.10.2 returns on 8 CPU devices for the cases of
tests/test_shard_map_vma.py (varying manual axes in shard_map) into
tests/shard_map_vma.json (needs the `compare` extra):

    .venv/bin/python scripts/record_shard_map_vma.py
"""
import os
import sys

TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
sys.path.insert(0, TESTS)
import multi_device  # noqa: E402
import test_shard_map_vma  # noqa: E402

if __name__ == "__main__":
    out = multi_device.record("shard_map_vma", "test_shard_map_vma", test_shard_map_vma.CASES)
    errors = sum("error" in r for r in out.values())
    print(f"shard_map_vma: {len(out)} cases ({errors} raise in JAX)")
