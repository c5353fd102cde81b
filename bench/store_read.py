"""`survey analyze` on a response store against the same answers in a Parquet table, at 10 k / 100 k / 1.5 M rows.

Each size is one Yes/No study of one model: 2 messages x 25 paraphrases x P personas x R replicates (1.5 M:
1000 personas x 30 replicates), every row answered, stored as a run stores it: the reply, its first-token
log-probabilities and P(Yes), token counts, the prompt hash, the extra JSON, timestamps, the study's context,
response type and backend. The store is written with the Store's bulk API (``record_many``); the Parquet
file holds the contract columns (model, message, perturbation, persona, replicate, answer, scale).

Each case runs `survey analyze PATH --json` in a fresh interpreter, which reports its own CPU seconds
(user + system) and peak RSS (ru_maxrss); ``--repeats`` runs each (min / median / max). The import floor
(the same interpreter importing what `survey analyze` imports) is shown for reference.

Last line: the median CPU of the store over the median CPU of the Parquet table at the largest size.
Usage: python bench/store_read.py [--sizes 10000,100000,1500000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from survey.data.store import Store  # noqa: E402

MESSAGES, PARAPHRASES = ("sneakers", "boots"), 25
SHAPES = {10_000: (20, 10), 100_000: (200, 10), 1_500_000: (1000, 30)}  # rows -> (personas, replicates)

REPORT = """
import json, resource, sys
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": u.ru_utime + u.ru_stime, "rss_mb": u.ru_maxrss / 1024}), file=sys.stderr)
"""
ANALYZE = ("import contextlib, io\nfrom survey.cli import main\n"
           "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
           "    try:\n        main(['analyze', {path!r}, '--json'])\n"
           "    except SystemExit as exc:\n        assert not exc.code, out.getvalue()\n"
           "assert json.loads(out.getvalue())['results'], out.getvalue()[:500]")
FLOOR = "import survey.cli, survey.cli.analysis, survey.stats.analysis, survey.data.sources, survey.data.store"


def grid(rows: int) -> pd.DataFrame:
    """The long table of one size: every (message, paraphrase, persona, replicate), answers drawn per cell."""
    personas, reps = SHAPES.get(rows, (max(1, rows // (2 * PARAPHRASES * 10)), 10))
    m, p, s, r = np.meshgrid(np.arange(2), np.arange(PARAPHRASES), np.arange(personas), np.arange(reps),
                             indexing="ij")
    rng = np.random.default_rng(rows)
    p_yes = rng.uniform(0.1, 0.9, size=(2, PARAPHRASES, personas))[m, p, s]
    return pd.DataFrame({"model": "sim", "message": np.array(MESSAGES)[m.ravel()],
                         "perturbation": [f"p{i}" for i in p.ravel()], "persona": [f"P{i}" for i in s.ravel()],
                         "replicate": r.ravel(), "answer": (rng.random(m.size) < p_yes.ravel()).astype(int),
                         "p_yes": p_yes.ravel(), "scale": "binary"})


def context(df: pd.DataFrame) -> dict:
    personas = list(dict.fromkeys(df["persona"]))
    return {"study": "big", "replicates": int(df["replicate"].max()) + 1,
            "question": {"type": "binary", "template": "Would you buy?", "max_tokens": 1},
            "personas": {"set": "many", "path": "many.jsonl", "sha256": "0" * 64, "ids": personas},
            "messages": [{"id": msg, "set": msg, "path": f"{msg}.yaml", "sha256": "0" * 64,
                          "paraphrases": [{"id": f"p{i}", "text": f"{msg} {i}"} for i in range(PARAPHRASES)]}
                         for msg in MESSAGES],
            "models": [{"name": "sim", "backend": "openai", "model_id": "qwen3-8b", "expected_queries": len(df)}]}


def write_store(df: pd.DataFrame, path: Path) -> None:
    def rows():
        for i, (msg, pert, persona, rep, ans, p) in enumerate(zip(
                df["message"], df["perturbation"], df["persona"], df["replicate"].tolist(), df["answer"].tolist(),
                df["p_yes"].tolist(), strict=True)):
            yes = ans == 1
            yield {"key": ("big", "sim", msg, pert, persona, rep), "seq": i, "status": "ok",
                   "prompt_hash": hashlib.sha256(f"{persona}{msg}{pert}".encode()).hexdigest(),
                   "requested_model": "qwen3-8b", "reported_model": "qwen3-8b-2025", "response": "Yes" if yes else "No",
                   "answer": ans, "p_yes": p, "prompt_tokens": 61, "completion_tokens": 1,
                   "logprobs": {"Yes": round(float(np.log(p)), 6), "No": round(float(np.log1p(-p)), 6)},
                   "extra": {"response_id": f"chatcmpl-{i:012x}", "finish_reason": "length"}}

    with Store(path) as st:
        st.record_scale("big", "binary")
        st.record_backend("big", "sim", "openai")
        st.record_context("big", context(df))
        st.record_many(rows())


def run(code: str, cwd: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", "import json\n" + code + "\n" + REPORT], cwd=cwd, env=env,
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"case failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stderr.strip().splitlines()[-1])


def spread(values: list[float], fmt: str) -> str:
    return " / ".join(format(v, fmt) for v in (min(values), statistics.median(values), max(values)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1500000", help="rows per store, comma-separated")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    loads, lines, ratio = [os.getloadavg()[0]], [], None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        floor = [run(FLOOR, folder) for _ in range(args.repeats)]
        for rows in sizes:
            df = grid(rows)
            t0 = time.process_time()
            write_store(df, folder / f"s{rows}.sqlite")
            build = time.process_time() - t0
            df[["model", "message", "perturbation", "persona", "replicate", "answer", "scale"]].to_parquet(
                folder / f"t{rows}.parquet", index=False)
            cases = {}
            for kind, path in (("parquet", f"t{rows}.parquet"), ("store", f"s{rows}.sqlite")):
                cases[kind] = [run(ANALYZE.format(path=path), folder) for _ in range(args.repeats)]
                loads.append(os.getloadavg()[0])
            cpu = {k: statistics.median(r["cpu"] for r in v) for k, v in cases.items()}
            ratio = cpu["store"] / cpu["parquet"]
            lines.append(f"{len(df):>9,} rows (store written in {build:.1f} s CPU by record_many):")
            for kind, res in cases.items():
                lines.append(f"    {kind:8s} CPU {spread([r['cpu'] for r in res], '.2f')} s, peak RSS "
                             f"{spread([r['rss_mb'] for r in res], '.0f')} MB")
            lines.append(f"    store / parquet CPU (medians): {ratio:.2f}")
            (folder / f"s{rows}.sqlite").unlink()
    print(f"machine: {os.cpu_count()} cores, load average {min(loads):.2f}-{max(loads):.2f} during the runs (other "
          f"work shares the CPUs); `survey analyze PATH --json`, min / median / max of {args.repeats} fresh processes")
    print(f"import floor (what analyze imports): CPU {spread([r['cpu'] for r in floor], '.2f')} s, peak RSS "
          f"{spread([r['rss_mb'] for r in floor], '.0f')} MB")
    print("\n".join(lines))
    print(f"ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
