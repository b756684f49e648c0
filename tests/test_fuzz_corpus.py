"""The recorded differential-fuzz corpus (tests/fuzz/corpus.json, written by
``scripts/fuzz.py --record`` from JAX 0.10.2): random jnp/lax programs and the
regressions found by fuzzing, each run eagerly, under jit, grad and vmap, must
give JAX's values (to a dtype-aware tolerance), dtypes, shapes, weak types and
exception classes."""
import json
import os

import pytest

from fuzz import programs, runner

with open(os.path.join(os.path.dirname(__file__), "fuzz", "corpus.json")) as f:
    CORPUS = json.load(f)["cases"]

XJIT = runner.namespace("xjit")

# Differences whose root is outside jnp (lax and AD rules), each with the reason;
# a case that starts to agree fails until it is dropped from here.
KNOWN = {
    "62:eager": "JAX leaks AttributeError for a Python complex operand of lax.dynamic_slice",
    "at-min-clip-grad:grad": "JAX's scatter-min derivative ignores mode='clip'; xjit's is right "
                             "(test_indexing.py::test_scatter_min_clip_grad_follows_the_clip)",
}


def _case_id(case):
    prog = case["prog"]
    return str(prog["name"] if "name" in prog else prog["seed"])


@pytest.mark.parametrize("case", CORPUS, ids=[_case_id(c) for c in CORPUS])
def test_fuzz_case_matches_jax(case):
    prog = case["prog"]
    bad = []
    for mode in runner.MODES:
        key = f"{_case_id(case)}:{mode}"
        kind, detail = runner.compare(case["jax"][mode], runner.run(XJIT, prog, mode), prog)
        if kind in ("agree", "skipped"):
            assert key not in KNOWN, f"{key} agrees now: drop it from KNOWN"
        elif key not in KNOWN:
            bad.append(f"{mode}: {kind}: {detail}")
    assert not bad, programs.describe(prog) + "\n" + "\n".join(bad)


def test_corpus_covers_every_op_kind_and_mode():
    kinds = {c["prog"]["op"] for c in CORPUS}
    assert kinds == set(programs.OPS)
    ran = {m for c in CORPUS for m in runner.MODES if "skipped" not in c["jax"][m]}
    assert ran == set(runner.MODES)


def test_programs_are_reproducible_from_their_seed():
    for case in CORPUS[:20]:
        if "name" not in case["prog"]:
            assert programs.generate(case["prog"]["seed"]) == case["prog"]
