"""The Python API guide (docs/python-api.md) runs in a real Jupyter kernel (nbclient + ipykernel), and what the cells
show stays small: typing ``run`` in a cell once wrote 4.75 MB (every query) into the notebook, and
``survey.report(...)`` returned a 12.8 kB dict that Jupyter printed. Progress must not ask for
ipywidgets."""

from __future__ import annotations

import json

import pytest
from test_readme_python_api import readme_python_blocks

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

SHOWN = ["plan", "run", "res", "sim", "res.completeness", "source", "fit", "power", "check", "in_code",
         "survey.estimate(fake, 'A', bootstrap=10)", "survey.report(source, out='reports/again')"]


def test_the_readme_in_a_kernel_shows_short_outputs(tmp_path):
    cells = [nbformat.v4.new_code_cell(code) for code in readme_python_blocks()]
    cells += [nbformat.v4.new_code_cell(name) for name in SHOWN]
    cells.append(nbformat.v4.new_code_cell(  # a progress bar in a kernel: text, no widget, no warning
        "from survey.common.progress import progress_bar\nwith progress_bar('counting', 3, True) as bar:\n"
        "    bar(); bar(); bar()"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    sizes = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = json.dumps(out)
            sizes[cell.source[:40]] = sizes.get(cell.source[:40], 0) + len(text)
            assert out.get("output_type") != "error", out
            assert "IProgress" not in text and "ipywidgets" not in text, text[:300]
    shown = {c.source: c for c in nb.cells[-len(SHOWN) - 1:-1]}
    for name, cell in shown.items():
        data = next((o["data"] for o in cell.outputs if o.get("output_type") == "execute_result"), None)
        assert data is not None, f"{name} shows nothing"
        assert len(data.get("text/plain", "")) <= 1000, (name, len(data["text/plain"]))
        assert len(json.dumps(data)) <= 20_000, (name, len(json.dumps(data)))
    assert sum(sizes.values()) < 200_000, sizes
