"""What %%xjit costs on an already-compiled cell, and how soon its panel is
on screen.

1. Kernel time, in a real kernel (jupyter_client, as JupyterLab talks to
   it): the time from sending ``execute_request`` to its ``execute_reply``
   for a cell calling a compiled function whose body is a 1-, 50- or
   200-step Python loop, plain and under ``%%xjit`` (median of N, the two
   interleaved). The difference is what the magic adds per cell (target
   <= 10 ms). The panel output's size is reported too. The same cells are
   also timed in CPU time in an in-process shell, which other jobs on a
   shared machine hardly change.
2. Time to panel (``--browser``): JupyterLab in headless Chromium runs the
   same ``%%xjit`` cell; measured in the page from the moment the cell's
   prompt shows its new number (the kernel's reply arrived) to the moment
   the panel is in the output area (target <= 300 ms; negative: the panel
   was on screen before the reply).
3. ``--profile``: cProfile of one %%xjit cell in an IPython shell, top 15.

    .venv/bin/python bench/notebook_overhead.py [--trials 15] [--browser] [--profile]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pathlib
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
STEPS = (1, 50, 200)


def _define(steps: int) -> str:
    return (f"@jax.jit\ndef loop{steps}(x):\n    for i in range({steps}):\n"
            f"        x = jnp.sin(x) * 1.01 + i\n    return x\nx = jnp.ones(8)\nloop{steps}(x)\n")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "kernel_ext"), str(ROOT / "widgets"),
                                         str(ROOT / "core"), env.get("PYTHONPATH", "")])
    return env


# -- 1. kernel time ---------------------------------------------------------------
def _execute(kc, code):
    """Seconds from execute_request to execute_reply, and the iopub outputs."""
    msg = kc.session.msg("execute_request", dict(code=code, silent=False, store_history=True,
                                                 user_expressions={}, allow_stdin=False,
                                                 stop_on_error=True))
    t0 = time.perf_counter()
    kc.shell_channel.send(msg)
    while True:
        reply = kc.get_shell_msg(timeout=120)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            break
    elapsed = time.perf_counter() - t0
    outputs = []
    while True:
        try:
            m = kc.get_iopub_msg(timeout=0.5)
        except queue.Empty:
            break
        if m["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
            outputs.append(m)
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"cell failed: {reply['content']}")
    return elapsed, outputs


def kernel_time(trials: int):
    import jupyter_client
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(env=_env())
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    try:
        _execute(kc, "%load_ext xjit\nimport xjit as jax, xjit.numpy as jnp")
        rows = []
        for steps in STEPS:
            _execute(kc, _define(steps))
            call = f"loop{steps}(x)"
            _execute(kc, f"%%xjit\n{call}")  # the panel's first build (lint, profile)
            plain, magic, html_bytes = [], [], 0
            for _ in range(trials):
                plain.append(_execute(kc, call)[0])
                t, outs = _execute(kc, f"%%xjit\n{call}")
                magic.append(t)
                html_bytes = sum(len(o["content"]["data"].get("text/html", ""))
                                 for o in outs if o["msg_type"] == "display_data")
            rows.append((steps, statistics.median(plain), statistics.median(magic), html_bytes))
        return rows
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


# -- 2. time to panel -----------------------------------------------------------------
def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_MEASURE_JS = """
async ([index, timeout]) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cell = panel.content.widgets[index];
  const before = cell.model.executionCount;
  panel.content.activeCellIndex = index;
  const t0 = performance.now();
  window.jupyterapp.commands.execute('notebook:run-cell');
  let reply = null, shown = null;
  while (performance.now() - t0 < timeout && (reply === null || shown === null)) {
    await new Promise(r => requestAnimationFrame(r));
    const now = performance.now();
    if (reply === null && cell.model.executionCount !== before && cell.model.executionCount !== null)
      reply = now;
    const out = cell.node.querySelector('.jp-OutputArea-output .xjit-panel');
    if (shown === null && out && out.getBoundingClientRect().height > 0) shown = now;
  }
  return {reply: reply - t0, shown: shown - t0};
}
"""


def time_to_panel(trials: int):
    import nbformat
    from playwright.sync_api import sync_playwright
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="xjit-bench-"))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("%load_ext xjit\nimport xjit as jax, xjit.numpy as jnp")]
    for steps in STEPS:
        nb.cells += [nbformat.v4.new_code_cell(_define(steps)),
                     nbformat.v4.new_code_cell(f"%%xjit\nloop{steps}(x)")]
    nbformat.write(nb, str(tmp / "bench.ipynb"))
    port, token = _free_port(), "xjit-bench"
    env = _env()
    env.update(JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    log = open(tmp / "server.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={tmp}", "--LabApp.expose_app_in_browser=True", "--LabApp.news_url="],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(tmp))
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(120_000)
            page.goto(f"{url}/lab/tree/bench.ipynb?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell")
            page.wait_for_function(
                "() => { const w = window.jupyterapp.shell.currentWidget;"
                " const k = w && w.sessionContext.session && w.sessionContext.session.kernel;"
                " return !!k && k.status === 'idle'; }")
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(
                f"() => document.querySelectorAll('.jp-OutputArea-output .xjit-panel').length"
                f" >= {len(STEPS)}")
            rows = []
            for i, steps in enumerate(STEPS):
                index = 2 + 2 * i
                got = [page.evaluate(_MEASURE_JS, [index, 60_000]) for _ in range(trials)]
                rows.append((steps, statistics.median(g["shown"] - g["reply"] for g in got),
                             statistics.median(g["shown"] for g in got)))
            browser.close()
        return rows
    finally:
        try:
            urllib.request.urlopen(urllib.request.Request(
                f"{url}/api/shutdown", method="POST",
                headers={"Authorization": f"token {token}"}), timeout=10)
            proc.wait(timeout=20)
        except Exception:
            proc.kill()
        log.close()


# -- 1b. CPU time ----------------------------------------------------------------------
def cpu_time(trials: int):
    """The same cells in an in-process IPython shell, timed in CPU seconds of
    this process (``time.process_time``): what the magic itself computes,
    unlike wall time hardly changed by other jobs on the machine."""
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "xjit")
    ip.run_cell("import xjit as jax, xjit.numpy as jnp")
    rows = []
    for steps in STEPS:
        with contextlib.redirect_stdout(io.StringIO()):
            ip.run_cell(_define(steps))
        call = f"y = loop{steps}(x)"

        def timed(code):
            with contextlib.redirect_stdout(io.StringIO()):  # the shell prints the panel's text
                t0 = time.process_time()
                r = ip.run_cell(code)
                elapsed = time.process_time() - t0
            if r.error_in_exec is not None:
                raise r.error_in_exec
            return elapsed

        timed(f"%%xjit\n{call}")  # the panel's first build
        plain, magic = [], []
        for _ in range(trials):
            plain.append(timed(call))
            magic.append(timed(f"%%xjit\n{call}"))
        rows.append((steps, statistics.median(plain), statistics.median(magic)))
    return rows


# -- 3. profile ---------------------------------------------------------------------
def profile_cell(steps: int = 200):
    import cProfile
    import io
    import pstats
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "xjit")
    ip.run_cell("import xjit as jax, xjit.numpy as jnp\n" + _define(steps))
    ip.run_cell(f"%%xjit --quiet\nloop{steps}(x)")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(20):
        ip.run_cell(f"%%xjit --quiet\nloop{steps}(x);")
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(15)
    return out.getvalue()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=15)
    ap.add_argument("--browser", action="store_true", help="also measure time to panel")
    ap.add_argument("--profile", action="store_true", help="cProfile one %%xjit cell")
    ap.add_argument("--cpu-only", action="store_true", help="only the in-process CPU times")
    ap.add_argument("--json", help="write the numbers here")
    args = ap.parse_args(argv)
    result = {"kernel": [], "cpu": [], "browser": []}
    print("kernel time per cell (execute_request -> execute_reply, median):")
    print(f"{'loop steps':>10} {'plain':>10} {'%%xjit':>10} {'added':>10} {'panel html':>11}")
    for steps, plain, magic, size in ([] if args.cpu_only else kernel_time(args.trials)):
        print(f"{steps:>10} {plain * 1e3:>8.2f}ms {magic * 1e3:>8.2f}ms "
              f"{(magic - plain) * 1e3:>+8.2f}ms {size / 1024:>8.1f}KiB")
        result["kernel"].append(dict(steps=steps, plain_s=plain, xjit_s=magic, html_bytes=size))
    print("kernel CPU time per cell (in-process IPython shell, process_time, median):")
    print(f"{'loop steps':>10} {'plain':>10} {'%%xjit':>10} {'added':>10}")
    for steps, plain, magic in cpu_time(args.trials):
        print(f"{steps:>10} {plain * 1e3:>8.2f}ms {magic * 1e3:>8.2f}ms {(magic - plain) * 1e3:>+8.2f}ms")
        result["cpu"].append(dict(steps=steps, plain_s=plain, xjit_s=magic))
    if args.browser:
        print("time to panel in JupyterLab (headless Chromium, median):")
        print(f"{'loop steps':>10} {'after reply':>12} {'after run':>10}")
        for steps, after_reply, after_run in time_to_panel(max(3, args.trials // 3)):
            print(f"{steps:>10} {after_reply:>10.0f}ms {after_run:>8.0f}ms")
            result["browser"].append(dict(steps=steps, after_reply_ms=after_reply,
                                          after_run_ms=after_run))
    if args.profile:
        print(profile_cell())
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
