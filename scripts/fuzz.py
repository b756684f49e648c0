"""Differential fuzzing of xjit against JAX 0.10.2 (needs the ``compare`` extra).

    .venv/bin/python scripts/fuzz.py -n 2000              # live: N random programs
    .venv/bin/python scripts/fuzz.py -n 2000 --start 5000 # another slice of seeds
    .venv/bin/python scripts/fuzz.py --record 150         # rewrite tests/fuzz/corpus.json
    .venv/bin/python scripts/fuzz.py -n 500 --start 0 --json a.json  # a chunk of a long run
    .venv/bin/python scripts/fuzz.py --merge a.json b.json  # the chunks' summary
    .venv/bin/python scripts/fuzz.py -n 250 --start 202750 --skip 202948  # JAX hangs there

Each program runs eagerly, under jit, under grad and under vmap, in both
libraries; the summary counts runs that agree, give a wrong value (value,
dtype or shape), differ only in weak type, raise on one side only, or raise
different exception classes, and lists every mismatch with its seed
(``--show SEED`` prints one program). ``--record`` writes the corpus that
``tests/test_fuzz_corpus.py`` replays without JAX: the first N seeds plus the
hand-written regressions, with JAX's results. A seed on which JAX itself
never returns (``jnp.lcm`` of int8 -128 and -128 loops forever in JAX 0.10.2)
is given with ``--skip``: xjit runs it alone and it is reported as
``jax_hangs``, outside the agreement counts.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from fuzz import programs, runner  # noqa: E402
from fuzz.regressions import REGRESSIONS  # noqa: E402

CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus.json")


def live(n, start, modes, verbose, out=None, skip=()):
    jx, xj = runner.namespace("jax"), runner.namespace("xjit")
    counts = collections.Counter()
    mismatches = []
    t0 = time.time()
    progs = [programs.generate(s) for s in range(start, start + n)] if n else []
    progs += [dict(p, seed=p["name"]) for p in REGRESSIONS] if start == 0 else []
    for i, prog in enumerate(progs):
        for mode in modes:
            if prog["seed"] in skip:  # JAX never returns: run xjit alone, report it
                got = runner.run(xj, prog, mode)
                counts["jax_hangs"] += 1
                mismatches.append(("jax_hangs", prog["seed"], mode, programs.describe(prog),
                                   f"JAX does not terminate; xjit {str(got)[:120]}"))
                continue
            kind, detail = runner.compare(runner.run(jx, prog, mode), runner.run(xj, prog, mode),
                                          prog)
            counts[kind] += 1
            if kind not in ("agree", "skipped"):
                mismatches.append((kind, prog["seed"], mode, programs.describe(prog), detail))
                if verbose:
                    print(*mismatches[-1], flush=True)
        if (i + 1) % 500 == 0:
            print(f"... {i + 1} programs, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    print(f"\n{len(progs)} programs, {_runs(counts)} runs ({counts['skipped']} not "
          f"applicable), {time.time() - t0:.0f} s")
    print(f"{'kind':20} {'runs':>7} {'share':>8}")
    _table(counts)
    if not verbose:
        for m in sorted(mismatches, key=lambda m: (m[0], str(m[1]))):
            print(*m)
    if out:
        with open(out, "w") as f:
            json.dump({"programs": len(progs), "counts": counts, "mismatches": mismatches}, f)
    return counts


def _runs(counts):
    """Compared runs: not the inapplicable ones, nor those JAX never finished."""
    return sum(v for k, v in counts.items() if k not in ("skipped", "jax_hangs"))


def _table(counts):
    runs = _runs(counts)
    for kind in runner.KINDS[:-1]:
        print(f"{kind:20} {counts[kind]:7d} {100 * counts[kind] / max(runs, 1):7.2f}%")
    if counts["jax_hangs"]:
        print(f"{'jax_hangs':20} {counts['jax_hangs']:7d}  (not counted as runs)")


def merge(paths):
    """The summary of several ``--json`` chunks (a long run made in pieces)."""
    counts, programs_run, mismatches = collections.Counter(), 0, []
    for path in paths:
        with open(path) as f:
            chunk = json.load(f)
        counts.update(chunk["counts"])
        programs_run += chunk["programs"]
        mismatches += chunk["mismatches"]
    print(f"{programs_run} programs, {_runs(counts)} runs ({counts['skipped']} not applicable)")
    _table(counts)
    for m in sorted(mismatches, key=lambda m: (m[0], str(m[1]))):
        print(*m)


def record(n):
    jx = runner.namespace("jax")
    cases = []
    for prog in [programs.generate(s) for s in range(n)] + REGRESSIONS:
        cases.append({"prog": prog, "jax": {m: runner.run(jx, prog, m) for m in runner.MODES}})
    with open(CORPUS, "w") as f:
        json.dump({"generated_by": "scripts/fuzz.py --record", "jax": _jax_version(),
                   "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} cases to {os.path.relpath(CORPUS, ROOT)}")


def _jax_version():
    import jax
    return jax.__version__


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=200, help="random programs to run")
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--modes", default=",".join(runner.MODES))
    ap.add_argument("--record", type=int, metavar="N", help="write the corpus of N seeds")
    ap.add_argument("--show", type=int, metavar="SEED", help="print one program's JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="print mismatches as found")
    ap.add_argument("--json", metavar="FILE", help="also write counts and mismatches to FILE")
    ap.add_argument("--merge", nargs="+", metavar="FILE", help="summarize --json chunks")
    ap.add_argument("--skip", type=int, action="append", default=[], metavar="SEED",
                    help="a seed on which JAX itself does not terminate: run xjit alone")
    args = ap.parse_args()
    if args.show is not None:
        print(json.dumps(programs.generate(args.show), indent=1))
    elif args.record is not None:
        record(args.record)
    elif args.merge:
        merge(args.merge)
    else:
        live(args.n, args.start, args.modes.split(","), args.verbose, args.json, set(args.skip))


if __name__ == "__main__":
    main()
