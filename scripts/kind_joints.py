"""Counts of the joints a new question kind passes through, measured on the source tree with ast:

* kind branches: comparisons with a kind's name, ``startswith`` one, ``isinstance`` on kind-specific classes and
  dict literals keyed by two or more kinds' names, outside the kinds' own folders;
* ``isinstance`` dispatch in planning (survey/stats/planning, survey/stats/power*.py) on parameter classes;
* import circles inside survey/stats, counting imports inside functions;
* imports inside functions, in the whole package.

    python scripts/kind_joints.py            # one line per count
    python scripts/kind_joints.py --places   # and every kind branch found

tests/test_kind_joints.py keeps the first three within their limits."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "survey"
# the kinds' names and the study file's family names of the ordinal kind
KIND_NAMES = {"binary", "ordinal", "choice", "ssr", "pick", "maxdiff", "rank", "likert", "rating", "numeric", "checkbox"}
KIND_CLASS = re.compile(r"Pick|MaxDiff|BestWorst|RankOrder|Ordinal|Rating|Binary|Choice|Semantic|Likert|SSR|Numeric|Checkbox")
# the kinds' own folders and their registry (before the kind folders: the two adapters stats/kinds and views)
OWN_FOLDERS = ("survey/kinds/", "survey/common/kinds.py", "survey/stats/kinds/", "survey/reporting/views/")


def _names(node) -> bool:
    """True when ``node`` is a kind's name as a string, or a tuple, list or set holding one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in KIND_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names(e) for e in node.elts)
    return False


def kind_branches(path: Path) -> list[tuple[int, str]]:
    """(line, what) of every branch on a kind's name or class in one module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare) and any(_names(x) for x in [node.left, *node.comparators]):
            found.append((node.lineno, "comparison"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith" \
                and node.args and _names(node.args[0]):
            found.append((node.lineno, "startswith"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                and len(node.args) == 2 and KIND_CLASS.search(ast.unparse(node.args[1])):
            found.append((node.lineno, "isinstance"))
        elif isinstance(node, ast.Dict) and sum(k is not None and _names(k) for k in node.keys) >= 2:
            found.append((node.lineno, "kind-keyed dict"))
    return found


def modules(under: Path | None = None):
    return sorted(p for p in (under or PACKAGE).rglob("*.py") if "__pycache__" not in p.parts)


def kind_branch_places() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in modules():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(OWN_FOLDERS):
            continue
        hits = kind_branches(path)
        if hits:
            out[rel] = hits
    return out


def planning_dispatch() -> list[str]:
    """isinstance tests on a parameter class in planning (a *Plan or *Params class)."""
    paths = [*modules(PACKAGE / "stats" / "planning"), *PACKAGE.glob("stats/power*.py")]
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                    and len(node.args) == 2 and re.search(r"Plan\b|Params\b|Plan\W|Params\W", ast.unparse(node.args[1]) + " "):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(under: str = "survey.stats") -> dict[str, set[str]]:
    """module -> the modules under ``under`` it imports, at module level or inside functions (``from x import y``
    counts y alone when y is a module, as grimp does)."""
    names = {_module_name(p): p for p in modules()}
    graph = {}
    for name, path in names.items():
        if not (name == under or name.startswith(under + ".")):
            continue
        is_package = path.name == "__init__.py"
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = name.split(".") if is_package else name.split(".")[:-1]
                    pkg = pkg[:len(pkg) - node.level + 1]
                    base = ".".join(pkg + ([node.module] if node.module else []))
                submodules = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in names}
                targets |= submodules
                if len(submodules) < len(node.names):  # names defined by the module itself
                    targets.add(base)
        graph[name] = {t for t in targets if t in names and (t == under or t.startswith(under + ".")) and t != name}
    return graph


def import_cycles(under: str = "survey.stats") -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    return cycles(import_graph(under))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node of ``graph`` (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def room_cycles(under: str = "survey.stats") -> list[list[str]]:
    """Circles between the rooms directly under ``under`` (its subpackages and flat modules), counting imports
    inside functions: a room that imports a room which imports it back has an arrow running back up even when no
    two files form a circle (``under``'s own ``__init__`` re-exports lazily and is left out)."""
    depth = under.count(".") + 2

    def room(module: str) -> str:
        return ".".join(module.split(".")[:depth])

    rooms: dict[str, set[str]] = {}
    for module, targets in import_graph(under).items():
        if module == under:
            continue
        rooms.setdefault(room(module), set()).update(room(t) for t in targets if t != under and room(t) != room(module))
    return cycles(rooms)


def function_local_imports() -> int:
    count = 0
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                count += sum(isinstance(n, ast.Import | ast.ImportFrom) for n in ast.walk(node))
    return count


def main() -> None:
    places = kind_branch_places()
    cycles = import_cycles()
    print(f"kind branches outside the kinds' folders: {sum(map(len, places.values()))} in {len(places)} files")
    if "--places" in sys.argv:
        for rel, hits in places.items():
            for line, what in hits:
                print(f"  {rel}:{line}: {what}")
    print(f"isinstance dispatch in planning: {len(planning_dispatch())}")
    print(f"import circles inside survey/stats (counting function-local imports): {len(cycles)} "
          f"({sum(map(len, cycles))} modules)")
    print(f"circles between the rooms of survey/stats (arrows running back up): {len(room_cycles())}")
    print(f"function-local imports: {function_local_imports()}")


if __name__ == "__main__":
    main()
