"""survey: generative surveys with statistics that stay valid.

The Python API; the `survey` command line is one consumer of it:

    import survey
    survey.init("survey-examples")               # copies the example studies into ./survey-examples
    study = survey.Study.from_toml("survey-examples/sim.toml")
    plan = study.dry_run()                       # cells, queries, tokens, cost, what is stored
    run = study.run(yes=True)                    # collect what is missing (works in Jupyter too)
    df = study.table()                           # this study's long table
    res = survey.analyze(df, a="sneakers", b="boots")
    res = survey.analyze(study.load(), by="age:18-34,35-54,55+", weights=survey.read_target("margins.toml"))
    survey.report(df, out="reports/sim")

Names are imported on first use (module ``__getattr__``), so ``import survey`` stays fast.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    # the shipped example studies (and sets), copied into a folder of the user's
    "init": "survey.registry.examples",
    "InitResult": "survey.registry.examples",
    # studies: specification, running, the result of a run
    "Study": "survey.api.study",
    "StudyRun": "survey.api.study",
    "StudySpec": "survey.study.spec",
    "PersonaSpec": "survey.study.spec",
    "MessageSpec": "survey.study.spec",
    "QuestionSpec": "survey.study.spec",
    "ModelSpec": "survey.study.spec",
    "BudgetSpec": "survey.study.spec",
    # offline batch files (vLLM run-batch): export a model's missing queries, import the results
    "export_batch": "survey.api.batch",
    "import_batch": "survey.api.batch",
    # long tables
    "load_long_table": "survey.data.sources",
    "load_source": "survey.data.sources",
    "Source": "survey.data.sources",
    "validate_table": "survey.data.table",
    "simulate": "survey.stats.simulation",  # any scale a kind simulates: Yes/No (Beta-logit), rating (ordinal)
    # statistics and reports
    # (a DataFrame is wrapped into a Source once, at these doors: survey.api.analysis)
    "analyze": "survey.api.analysis",
    "estimate": "survey.api.analysis",
    "compare": "survey.api.analysis",
    "AnalyzeOptions": "survey.stats.analysis",
    "EstimateOptions": "survey.stats.analysis",
    "SegmentOptions": "survey.stats.analysis",
    "Analysis": "survey.stats.analysis",
    "plan": "survey.stats.planning",
    "BinaryPlan": "survey.kinds.binary.power",
    "RatingPlan": "survey.kinds.ordinal.power",
    "PickPlan": "survey.kinds.pick.power",
    "MaxDiffPlan": "survey.kinds.maxdiff.power",
    "ChoicePlan": "survey.kinds.choice.power",
    "PlanSource": "survey.stats.planning",
    "validate": "survey.api.analysis",
    "sequential": "survey.api.analysis",
    "SequentialDesign": "survey.stats.sequential.design",
    "report": "survey.reporting.entry",
    # segments and target markets: who prefers which message, and in which market
    "Target": "survey.stats.segments",
    "rake": "survey.stats.segments",
    "segment_by": "survey.stats.segments",
    "read_target": "survey.registry.targets",
    # humans beside the personas: fidelity and prediction-powered inference about people
    "fidelity": "survey.api.fidelity",
    "fidelity_benchmark": "survey.api.fidelity",
    "plan_humans": "survey.api.fidelity",
    "about_humans": "survey.api.fidelity",
    "FidelityBenchmark": "survey.stats.humans.benchmark",
    "load_humans": "survey.data.humans",
    "Humans": "survey.data.humans",
    # errors
    "SurveyError": "survey.errors",
    "TableError": "survey.errors",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'survey' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
