"""The Python API guide (docs/python-api.md) and the README's tour run as written: in a plain script and
inside a running event loop (a Jupyter cell). They run in an empty temporary folder: `survey.init` copies the
examples there, so the code needs no checkout and the repository gets no store or report."""

import asyncio
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(page: str) -> list[str]:
    blocks = re.findall(r"^```python\n(.*?)^```", (ROOT / page).read_text(encoding="utf-8"), re.S | re.M)
    assert blocks, f"{page} has no ```python block"
    return blocks


def readme_python_blocks() -> list[str]:
    """The Python API guide's code, every block in order (the name is older than the guide)."""
    return python_blocks("docs/python-api.md")


def test_the_readme_links_the_guide():
    assert "(docs/python-api.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.fixture
def project_copy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check_outputs(ns: dict, where: Path) -> None:
    assert (where / "reports" / "sim" / "index.html").exists()
    assert (where / "survey-examples" / "sim.sqlite").exists()
    assert ns["run"].stored == ns["plan"].to_send and not ns["run"].incomplete
    assert set(ns["df"]["study"]) == {"sim-sneakers-boots"}


def test_readme_code_runs_as_a_script(project_copy):
    ns: dict = {"__name__": "__main__"}
    for code in readme_python_blocks():
        exec(compile(code, "README.md", "exec"), ns)
    check_outputs(ns, project_copy)


def test_readme_code_runs_inside_a_running_event_loop(project_copy):
    ns: dict = {"__name__": "__main__"}

    async def notebook():
        asyncio.get_running_loop()  # the code below runs while this loop is running, as in Jupyter
        for code in readme_python_blocks():
            exec(compile(code, "README.md", "exec"), ns)

    asyncio.run(notebook())
    check_outputs(ns, project_copy)


def test_the_readme_tour_runs_as_a_script(project_copy):
    ns: dict = {"__name__": "__main__"}
    for code in python_blocks("README.md"):
        exec(compile(code, "README.md", "exec"), ns)
    assert (project_copy / "reports" / "sim" / "index.html").exists()
    assert ns["run"].stored > 0 and not ns["run"].incomplete
