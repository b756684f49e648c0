"""The demo notebooks run headlessly with a real kernel (nbclient): every
cell succeeds except those tagged ``raises-exception``; exported to HTML as
``scripts/main.sh --headless`` does, the tour is small and shows the %%xjit
panels without any script of theirs."""
import functools
import pathlib
import re

import pytest

nbclient = pytest.importorskip("nbclient")
import nbformat  # noqa: E402

from util import load_script  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEMOS = sorted((ROOT / "demos").glob("*.ipynb"))


@functools.lru_cache(maxsize=None)
def _executed(path: pathlib.Path):
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


@pytest.mark.parametrize("path", DEMOS, ids=[p.stem for p in DEMOS])
def test_demo_notebook_executes(path):
    nb = _executed(path)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert outputs, "the notebook produced no output"
    for cell in nb.cells:
        if cell.cell_type != "code" or "raises-exception" in cell.metadata.get("tags", []):
            continue
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        assert not errors, f"{path.name}: {cell.source[:60]!r} raised {errors[0].ename}"


def _text(stem: str) -> str:
    """Every printed, raised and displayed (text/plain) output of a demo."""
    nb = _executed(next(p for p in DEMOS if stem in p.stem))
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(
        o.get("text", "") + "".join(o.get("traceback", [])) + o.get("data", {}).get("text/plain", "")
        for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])))


def test_nan_hunt_reports_the_users_line():
    text = _text("nan")
    assert "invalid value (nan) encountered in log" in text
    assert "loss line 4" in text
    # a NaN of the backward pass: at the forward line, with concrete locals
    assert "invalid value (nan) in the gradient of sqrt at sq = 0.0 (backward pass)" in text
    assert "distance line 4" in text and "diff = Array([0., 0.], dtype=float32)" in text


def test_tour_shows_each_debugger_feature():
    """Lint from the trace (the value baked in, a read through a dict, no
    re-run), no findings for a train step, the recompile history and budget,
    a filtered traceback, %xjit_time, the breakpoint (headless: reported,
    then continued) and nothing kept for dropped functions."""
    text = _text("tour")
    assert text.count("tracing with") == 1  # lint did not run the function again
    assert "global `g` is read at trace time: its value when traced (0.0) is baked in" in text
    assert "global `cfg['scale']` is read at trace time" in text
    assert "== xjit: mlp_loss" in text
    mlp = text.split("== xjit: mlp_loss", 1)[1].split("-- Lint --", 1)[1].split("--", 1)[0]
    assert mlp.strip() == "No findings."
    assert "jit(normalize) has recompiled 3 times (xjit_recompile_budget=3); what keeps " \
           "changing: x (shape)" in text
    assert "compile 6                 x: f16[5]: different input dtype at x: now f16[5] and " \
           "before f32[5]" in text
    trace = text[text.index("TypeError"):text.index("contracting dimensions")]
    assert "skipping hidden" in trace and "return jnp.dot(x, w)" in trace
    assert " ± " in text and "per loop (mean ± std. dev." in text
    assert "Entering jaxdb:" in text and "->      jax.debug.breakpoint()" in text
    assert "cannot answer input requests; continuing" in text
    assert "0 of 50 dropped jitted functions are still alive" in text


def test_loop_bloat_counts_the_loop_in_forward_code_under_value_and_grad():
    text = _text("loop")
    unrolled = text.split("== xjit: unrolled", 1)[1].split("== xjit:", 1)[0]
    assert "In [2], line 2: line 2 produced 900 equations" in unrolled  # step's line, 300 x 3
    grad_panel = text.split("== xjit: loss", 1)[1]
    # the same line, 50 steps x 3 equations: the backward pass's are not counted
    assert "In [2], line 2: line 2 produced 150 equations" in grad_panel


def test_sharding_demo_shows_shardings_and_collectives_in_the_panels():
    """The data-parallel step on 8 CPU devices: the batch split over
    ``data``, the gradients all-reduced; over a 4 x 2 mesh, all-reduces
    over each axis, and a device profile summed over the 8 devices. The
    exported page has the Sharding tab."""
    text = _text("sharding")
    dp = text.split("== xjit: train_step (", 1)[1].split("-- Sharding --", 1)[1]
    assert "Mesh('data': 8) over 8 cpu devices" in dp
    assert "  x: f32[64,32] P('data',): dim 0 over 'data': each device holds f32[8,32]" in dp
    assert "    device 7: [56:64, 0:32]" in dp
    assert "  params['w1']: f32[32,32] P(): replicated" in dp
    assert re.search(r"all-reduce over 'data': \(f32\[\], f32\[32,32\], f32\[1,32\]\) per device "
                     r"\(4.13 KiB\) from reduce_sum, dot_general at In \[\d+\], line 4", dp)
    tp = text.split("== xjit: train_step_2d", 1)[1].split("-- Sharding --", 1)[1]
    assert "all-reduce over 'model': f32[16,1] per device (64 B) from dot_general" in tp
    assert "all-reduce over 'data': " in tp
    assert "device time per run on 8 cpu devices (summed over them)" in tp.split("-- Profile --")[1]
    html = load_script("run_demos").export(_executed(next(p for p in DEMOS if "sharding" in p.stem)))
    assert html.count('class="xjit-tab xjit-tab-sharding"') == 2


def test_tour_exports_to_small_html_with_static_panels():
    """What ``main.sh --headless`` writes: under 1 MB, every %%xjit cell's
    panel present as HTML (tabs, SVG chart), no widget model or script."""
    run_demos = load_script("run_demos")
    path = next(p for p in DEMOS if "tour" in p.stem)
    nb = _executed(path)
    magic_cells = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%xjit")]
    bundles = [o["data"] for c in magic_cells for o in c.outputs if o.output_type == "display_data"]
    assert len(bundles) >= len(magic_cells)
    for data in bundles:
        assert set(data) == {"text/plain", "text/html"}
    html = run_demos.export(nb)
    assert len(html.encode()) < 1_000_000
    panels = re.findall(r'<div class="xjit-panel" id="([^"]+)">', html)
    assert len(panels) == len(bundles)
    for uid in panels:
        for tab in ("jaxpr", "lint", "timing"):
            assert f'id="{uid}-{tab}"' in html and f'for="{uid}-{tab}"' in html
    assert "widget-view+json" not in html and "plotly" not in html.lower()
    assert html.count("<svg") >= len(panels)


def test_main_sh_opens_the_tour_and_passes_allow_root_as_root(tmp_path):
    """``scripts/main.sh`` (setup and JupyterLab stubbed out) starts
    JupyterLab on the tour, with ``--allow-root`` when run as root."""
    import os
    import shutil
    import subprocess
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "main.sh", tmp_path / "scripts" / "main.sh")
    (tmp_path / "scripts" / "setup.sh").write_text("exit 0\n")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "jupyter").write_text('#!/bin/sh\necho "jupyter $*"\n')
    (bin_dir / "jupyter").chmod(0o755)
    out = subprocess.run(["bash", str(tmp_path / "scripts" / "main.sh"), "--port=9999"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    root = "--allow-root " if os.getuid() == 0 else ""
    assert out.stdout.strip() == f"jupyter lab demos/01_tour.ipynb {root}--port=9999"
