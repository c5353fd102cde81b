"""Speed claims compare like with like: every bench/ script times in CPU seconds (bench/timing.py or
time.process_time), and its last printed line is `ratio: X` or `seconds: X` (or another named figure)."""

import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
# wall time printed beside the CPU figure (rates against a latency bound, a demo's wait), or the one script whose
# claim is about waiting (threads)
WALL_BESIDE_CPU = {"engine.py", "demo_time.py", "plan.py", "threads.py"}
HELPERS = {"timing.py", "multi_seq.py", "prefix_options.py"}  # imported by other scripts, no figure of their own


def scripts():
    return sorted(p for p in BENCH.glob("*.py") if p.name not in HELPERS)


def test_every_bench_script_times_in_cpu_seconds():
    wall = [p.name for p in scripts() if p.name not in WALL_BESIDE_CPU
            and re.search(r"time\.(perf_counter|time|monotonic)\(\)", p.read_text(encoding="utf-8"))]
    assert wall == [], f"timed in wall seconds: {wall}; use bench/timing.py (CPU, equal repeats, median)"
    best_of = [p.name for p in scripts() if "def best_of" in p.read_text(encoding="utf-8")]
    assert best_of == [], f"best-of timing (compare medians of equal repeats): {best_of}"


def test_every_bench_script_ends_with_a_named_figure():
    for p in scripts():
        prints = re.findall(r'print\(f"([a-z_]+): \{', p.read_text(encoding="utf-8"))
        assert prints and prints[-1] in {"ratio", "seconds", "accuracy"}, (p.name, prints[-1:])


def test_bench_scripts_use_only_public_names_of_the_package():
    """A benchmark measures what a user can call: it imports no private name (``_x``) from survey."""
    import ast

    private = []
    for p in sorted(BENCH.glob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("survey"):
                private += [f"{p.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert private == [], f"private names imported by bench/: {private}"
