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


def test_nan_hunt_reports_the_users_line():
    path = next(p for p in DEMOS if "nan" in p.stem)
    nb = _executed(path)
    text = "\n".join(o.get("text", "") + "".join(o.get("traceback", []))
                     for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "invalid value (nan) encountered in log" in text
    assert "loss line 4" in text


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
