"""The demo notebooks run headlessly with a real kernel (nbclient): every
cell succeeds except those tagged ``raises-exception``."""
import pathlib

import pytest

nbclient = pytest.importorskip("nbclient")
import nbformat  # noqa: E402

DEMOS = sorted((pathlib.Path(__file__).resolve().parent.parent / "demos").glob("*.ipynb"))


@pytest.mark.parametrize("path", DEMOS, ids=[p.stem for p in DEMOS])
def test_demo_notebook_executes(path):
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert outputs, "the notebook produced no output"
    for cell in nb.cells:
        if cell.cell_type != "code" or "raises-exception" in cell.metadata.get("tags", []):
            continue
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        assert not errors, f"{path.name}: {cell.source[:60]!r} raised {errors[0].ename}"


def test_nan_hunt_reports_the_users_line():
    path = next(p for p in DEMOS if "nan" in p.stem)
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute()
    text = "\n".join(o.get("text", "") + "".join(o.get("traceback", []))
                     for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "invalid value (nan) encountered in log" in text
    assert "loss line 4" in text
