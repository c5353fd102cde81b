"""A 1.5-million-query design: `survey run --dry-run` in bounded memory, against the design held in memory.

The study (written to a temporary folder): 1000 personas x the shipped sneakers (50) and boots (25)
paraphrase sets x 20 replicates = 1 500 000 queries of one simulated model, nothing stored yet. Each
case runs in a fresh interpreter, which reports its own CPU seconds and peak RSS (ru_maxrss):

- import floor: importing what `survey run` imports (the study, the run plan; pandas and scipy come with
  them), nothing else;
- survey run --dry-run --json: the plan, counted per cell (survey.collect.design_state);
- baseline, the design held in memory as the plan used to hold it: every Query in a list, plus the
  key -> position dict (``list(design.queries(model))``, ``{q.key: i ...}``).

Last line: CPU seconds of the dry run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PERSONAS, REPLICATES = 1000, 20

STUDY = f"""name = "big"
store = "big.sqlite"
replicates = {REPLICATES}

[personas]
set = "many"

[[messages]]
id = "sneakers"
perturbations = "sneakers"

[[messages]]
id = "boots"
perturbations = "boots"

[question]
type = "binary"

[[models]]
name = "sim"
backend = "simulated"
seed = 7
"""

REPORT = """
import json, resource, sys
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": u.ru_utime + u.ru_stime, "rss_mb": u.ru_maxrss / 1024}), file=sys.stderr)
"""

CASES = {
    "import floor": "import survey.api.study, survey.collect.run_plan, survey.cli.run",
    "survey run --dry-run --json": ("import contextlib, io\nfrom survey.cli import main\n"
                                    "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
                                    "    main(['run', 'big.toml', '--dry-run', '--json'])\n"
                                    "assert json.loads(out.getvalue())['queries_per_model'] == "
                                    f"{PERSONAS * 75 * REPLICATES}"),
    "baseline: the design held in memory": (
        "from survey.study.spec import load_study\nfrom survey.study.design import build_design\n"
        "spec = load_study('big.toml')\ndesign = build_design(spec)\n"
        "queries = list(design.queries(spec.models[0]))\nseq = {q.key: i for i, q in enumerate(queries)}\n"
        f"assert len(queries) == {PERSONAS * 75 * REPLICATES}"),
}


def write_study(folder: Path) -> None:
    rows = [json.loads(line) for line in (ROOT / "personas" / "shoppers.jsonl").read_text().splitlines()]
    header, people = rows[0], rows[1:]
    (folder / "personas").mkdir()
    lines = [json.dumps(header)] + [json.dumps({**people[i % len(people)], "id": str(i)}) for i in range(PERSONAS)]
    (folder / "personas" / "many.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "big.toml").write_text(STUDY)


def run(code: str, folder: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", "import json\n" + code + "\n" + REPORT], cwd=folder, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stderr.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_study(folder)
        results = {name: run(code, folder) for name, code in CASES.items()}
    print(f"design: {PERSONAS} personas x 75 paraphrases x {REPLICATES} replicates = "
          f"{PERSONAS * 75 * REPLICATES:,} queries, one model; load average {os.getloadavg()[0]:.2f}")
    for name, r in results.items():
        print(f"{name:40s} {r['cpu']:6.2f} s CPU, peak RSS {r['rss_mb']:6.0f} MB")
    floor, dry = results["import floor"], results["survey run --dry-run --json"]
    base = results["baseline: the design held in memory"]
    print(f"above the import floor: dry run {dry['cpu'] - floor['cpu']:.2f} s, {dry['rss_mb'] - floor['rss_mb']:.0f} MB; "
          f"baseline {base['cpu'] - floor['cpu']:.2f} s, {base['rss_mb'] - floor['rss_mb']:.0f} MB")
    print(f"seconds: {dry['cpu']:.2f}")


if __name__ == "__main__":
    main()
