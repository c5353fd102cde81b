"""Offline batch files for a study (vLLM run-batch, any OpenAI Batch API): export a model's missing
queries, import the results (survey.collect.offline_batch does the work). ``study`` is a Study or the
path of a study file."""

from __future__ import annotations

from pathlib import Path

from survey.api.study import Study
from survey.collect import offline_batch
from survey.collect.offline_batch import BatchExport, BatchImport


def _study(study) -> Study:
    return study if isinstance(study, Study) else Study.from_toml(study)


def export_batch(study, model: str, out: str | Path) -> BatchExport:
    """Write the queries model ``model`` of ``study`` still owes as an OpenAI batch file (``custom_id``,
    ``method``, ``url``, ``body``); stored replies and queries held by open batch jobs are left out."""
    return offline_batch.export_batch(_study(study), model, out)


def import_batch(study, model: str, results: str | Path) -> BatchImport:
    """Store the replies of a batch results file for model ``model`` of ``study`` through the engine's
    batch path, never overwriting a stored reply; returns the counts."""
    return offline_batch.import_batch(_study(study), model, results)


__all__ = ["BatchExport", "BatchImport", "export_batch", "import_batch"]
