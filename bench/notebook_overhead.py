"""Cost of %%xjit on a cell that calls an already-compiled function 10,000
times, in a real IPython shell: the cell's own run time with and without the
magic (the magic observes through call counters, not per-call events), and,
separately, the time spent building the panels after the cell.

    .venv/bin/python bench/notebook_overhead.py
"""
import statistics
import time

from IPython.core.interactiveshell import InteractiveShell

N_CALLS = 10_000


def main(trials=7):
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "xjit")
    ip.run_cell("import xjit as jax, xjit.numpy as jnp\n"
                "f = jax.jit(lambda x: x * 2.0 + 1.0)\nx = jnp.ones(8)\nf(x)")
    body = f"for _ in range({N_CALLS}):\n    y = f(x)\ny.block_until_ready()"
    magics = ip.magics_manager.registry["XjitMagics"]
    plain, observed, panels = [], [], []
    for _ in range(trials):
        t = time.perf_counter()
        ip.run_cell(body)
        plain.append(time.perf_counter() - t)
        opts = {"nans": False, "repeat": 3, "lint": True, "quiet": True}
        t = time.perf_counter()
        _, fids = magics._observe(body, opts)
        observed.append(time.perf_counter() - t)
        t = time.perf_counter()
        magics._panels(fids, opts)
        panels.append(time.perf_counter() - t)
    p, o = statistics.median(plain), statistics.median(observed)
    print(f"plain cell      {p * 1e3:8.2f} ms  ({p / N_CALLS * 1e6:.2f} us/call)")
    print(f"under %%xjit     {o * 1e3:8.2f} ms  overhead {100 * (o / p - 1):+.1f}% (target <= 5%)")
    print(f"panel building  {statistics.median(panels) * 1e3:8.2f} ms after the cell (lint + profile)")


if __name__ == "__main__":
    main()
