"""The store's record of a study collected in rounds: each model's sequential decision and its path.

survey.collect.sequential writes it after every round; survey.data.sources reads it, so that an
analysis of the store is decided by the test the study stopped by (survey.stats.analysis).
"""

from __future__ import annotations

import json

from survey.data.store import Store

_SCHEMA = """CREATE TABLE IF NOT EXISTS sequential (
    study TEXT NOT NULL, model TEXT NOT NULL, decision TEXT NOT NULL, look INTEGER, pairs INTEGER,
    result TEXT NOT NULL, PRIMARY KEY (study, model))"""


def record_path(store: Store, study: str, model: str, doc: dict) -> None:
    """Store (replace) one model's sequential result: its decision and whole path, as JSON."""
    store.db.execute(_SCHEMA)
    store.db.execute("INSERT OR REPLACE INTO sequential VALUES (?, ?, ?, ?, ?, ?)",
                     (study, model, doc["decision"], doc["look"], doc["pairs"], json.dumps(doc, default=float)))
    store.db.commit()


def read_paths(store: Store, study: str) -> dict[str, dict]:
    """model -> the stored sequential result of a study ({} when it was not collected in rounds)."""
    if not store.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sequential'").fetchone():
        return {}  # a store collected without rounds (and a read-only store gets no new table)
    rows = store.db.execute("SELECT model, result FROM sequential WHERE study = ?", (study,)).fetchall()
    return {model: json.loads(doc) for model, doc in rows}
