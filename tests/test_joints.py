"""How the package's parts are joined, measured by reading its source (ast), so that the joints stay narrow:
no function outside the command line takes more than 12 parameters; no module imports a private name
(``_x``) of another; the command line imports only the public API (``survey``), its own modules and
third-party packages; entry points take a survey.data.sources.Source, never probe what they were given.

``python tests/test_joints.py`` prints the counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "survey"
MAX_PARAMETERS = 12
# what a Source or an A/B result carries: probing for it (hasattr/getattr) means a shape that is not fixed
SOURCE_ATTRIBUTES = {"table", "completeness", "context", "humans", "kind", "path", "study"}
RESULT_ATTRIBUTES = {"segments", "sequential", "direction"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path, ast.parse(path.read_text(), str(path))


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if _is_package(path) else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _parameters(fn) -> int:
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    return len([n for n in names if n not in ("self", "cls")])


def wide_functions(limit: int, *, outside_cli: bool = False) -> list[str]:
    """module:function (parameters) for every function taking more than ``limit`` parameters."""
    out = []
    for module, _path, tree in _modules():
        if outside_cli and (module == "survey.cli" or module.startswith("survey.cli.")):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _parameters(node) > limit:
                out.append(f"{module}:{node.name} ({_parameters(node)})")
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports() -> list[str]:
    """``from X import _name`` and ``X._name`` (X an imported survey module) across modules."""
    out = []
    for module, path, tree in _modules():
        aliases = {}  # local name -> imported survey module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, path, node)
                if not source.startswith("survey"):
                    continue
                for alias in node.names:
                    if _private(alias.name) and source != module:
                        out.append(f"{module}: from {source} import {alias.name}")
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("survey") and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases):
                out.append(f"{module}: {aliases[node.value.id]}.{node.attr}")
            elif (isinstance(node, ast.Attribute) and _private(node.attr)
                  and ast.unparse(node.value).startswith("survey.")):
                out.append(f"{module}: {ast.unparse(node)}")
    return sorted(set(out))


def cli_internal_imports() -> list[str]:
    """The survey modules survey.cli imports other than ``survey`` itself and survey.cli.*."""
    found = set()
    for module, path, tree in _modules():
        if not (module == "survey.cli" or module.startswith("survey.cli.")):
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, path, node)
                names = [source] if source != "survey" else [f"survey.{a.name}" for a in node.names
                                                              if _is_module(f"survey.{a.name}")]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            found |= {n for n in names if n.startswith("survey.") and not n.startswith("survey.cli")}
    return sorted(found)


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (ROOT / rel).is_dir() or (ROOT / rel).with_suffix(".py").exists()


def shape_probes() -> list[str]:
    """hasattr/getattr on what a Source or an A/B result carries, and split_source calls."""
    out = []
    for module, _path, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if (node.func.id in ("hasattr", "getattr") and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in SOURCE_ATTRIBUTES | RESULT_ATTRIBUTES):
                out.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    return out


def split_source_calls() -> list[str]:
    return [f"{module}:{node.lineno}" for module, _path, tree in _modules() for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "split_source"]


def counts() -> dict:
    return {"functions with > 8 parameters": len(wide_functions(8)),
            "functions with > 12 parameters": len(wide_functions(12)),
            "functions with > 12 parameters outside survey/cli": len(wide_functions(12, outside_cli=True)),
            "private names imported across modules": len(private_imports()),
            "internal modules the CLI imports": len(cli_internal_imports()),
            "hasattr/getattr probes on sources and results": len(shape_probes()),
            "split_source calls": len(split_source_calls())}


if __name__ == "__main__":
    for k, v in counts().items():
        print(f"{k}: {v}")


def test_no_module_imports_a_private_name_of_another():
    assert private_imports() == []


def test_the_command_line_imports_only_the_public_api():
    assert cli_internal_imports() == []


def test_every_public_name_resolves():
    import survey

    assert all(getattr(survey, name) is not None for name in survey.__all__)


# Named exceptions to the limit (none left: wide signatures travel as options objects checked once, e.g.
# PlanOptions, CompareOptions, PPIOptions, GenerationOptions, RetryPolicy). The list only shrinks: a new function
# wider than 12 parameters fails the test.
STILL_WIDE: set[str] = set()


def test_no_function_outside_the_command_line_takes_more_than_12_parameters():
    wide = {w.rsplit(" (", 1)[0] for w in wide_functions(MAX_PARAMETERS, outside_cli=True)}
    assert wide <= STILL_WIDE, sorted(wide - STILL_WIDE)


def test_no_entry_point_probes_what_it_was_given():
    assert [p for p in shape_probes() if not p.startswith("survey.cli.plan:")] == []  # (a plan result: planning's)
    assert split_source_calls() == []
