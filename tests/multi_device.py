"""Recorded cases run on 8 CPU devices.

The main pytest process has one CPU device (jaxlib fixes the count when the
client is made), so the cases of a multi-device test module run in one
subprocess started with ``--xla_force_host_platform_device_count=8``; the
records of JAX 0.10.2 are made the same way (``scripts/record_sharding.py``).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = "--xla_force_host_platform_device_count=8"

_SCRIPT = """
import importlib, json, sys
sys.path.insert(0, {here!r})
import recorded
mod = importlib.import_module({module!r})
out = {{case: recorded.run(mod.PRELUDE, mod.CASES[case], {impl!r}) for case in {cases!r}}}
sys.stdout.write("\\n@@RESULTS@@" + json.dumps(out))
"""


def run_cases(module, impl, cases, timeout=300):
    """``case -> record`` of ``cases`` of test module ``module`` under ``impl``."""
    env = {**os.environ, "XLA_FLAGS": FLAGS, "JAX_PLATFORMS": "cpu"}
    script = _SCRIPT.format(here=HERE, module=module, impl=impl, cases=sorted(cases))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=timeout)
    if "@@RESULTS@@" not in proc.stdout:
        raise RuntimeError(f"the {impl} subprocess failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.split("@@RESULTS@@", 1)[1])


def record(name, module, cases):
    out = run_cases(module, "jax", cases)
    with open(os.path.join(HERE, f"{name}.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    return out


def tests(name, module, cases, known=(), every=5):
    """The tests of a multi-device recorded-case module: each case against
    JAX's record, the records covering the cases, and a sample re-run on the
    real JAX. ``known`` maps a case to why it is expected to fail."""
    import functools

    import pytest

    import recorded
    results = functools.lru_cache(None)(lambda: run_cases(module, "xjit", cases))
    expected = functools.lru_cache(None)(lambda: recorded.load(name))
    known = dict(known)

    @pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(
        reason=known[c], strict=True)) if c in known else c for c in sorted(cases)])
    def test_matches_jax(case):
        recorded.compare(results()[case], expected()[case])

    def test_every_case_recorded():
        assert sorted(expected()) == sorted(cases)

    @pytest.mark.compare
    def test_records_match_live_jax():
        sample = sorted(cases)[::every]
        live = run_cases(module, "jax", sample)
        for case in sample:
            recorded.compare(live[case], expected()[case])

    return test_matches_jax, test_every_case_recorded, test_records_match_live_jax
