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
    # fielding a study to people: a web questionnaire whose answers land in the store (survey.field)
    "field": "survey.field:*",  # the package, callable: survey.field("study.toml")
    "export_instrument": "survey.field",  # the same instrument for another tool (Qualtrics)
    "open_source": "survey.api.study",
    "study_store": "survey.api.study",
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
    "QuestionsAnalysis": "survey.stats.questions",
    "QuestionResult": "survey.stats.questions",
    "one_question": "survey.api.analysis",
    "plan": "survey.stats.planning",
    "BinaryPlan": "survey.kinds.binary.power",
    "RatingPlan": "survey.kinds.ordinal.power",
    "PickPlan": "survey.kinds.pick.power",
    "MaxDiffPlan": "survey.kinds.maxdiff.power",
    "ChoicePlan": "survey.kinds.choice.power",
    "RankPlan": "survey.kinds.rank.power",
    "NumericPlan": "survey.kinds.numeric.power",
    "CheckboxPlan": "survey.kinds.checkbox.power",
    "compare_rankings_with_humans": "survey.kinds.rank.humans",  # people's rankings beside the models'
    "PlanSource": "survey.stats.planning",
    "PlanOptions": "survey.stats.planning",
    "validate": "survey.api.analysis",
    "sequential": "survey.api.analysis",
    "SequentialDesign": "survey.stats.sequential.design",
    "report": "survey.reporting.entry",
    "ReportOptions": "survey.reporting.entry",
    "CompareTableOptions": "survey.stats.table_comparison",
    # segments and target markets: who prefers which message, and in which market
    "Target": "survey.stats.segments",
    "rake": "survey.stats.segments",
    "segment_by": "survey.stats.segments",
    "read_target": "survey.registry.targets",
    # humans beside the personas: fidelity and prediction-powered inference about people
    "fidelity": "survey.api.fidelity",
    "fidelity_benchmark": "survey.api.fidelity",
    "plan_humans": "survey.api.fidelity",
    "HumansPlanOptions": "survey.api.fidelity",
    "about_humans": "survey.api.fidelity",
    "FidelityBenchmark": "survey.stats.humans.benchmark",
    "load_humans": "survey.data.humans",
    "Humans": "survey.data.humans",
    # errors
    "SurveyError": "survey.errors",
    "TableError": "survey.errors",
    # what front ends (the command line) build on: limits and their reasons, formatting, stores and set files,
    # progress, plots, the kinds' and tests' words. The command line imports survey and nothing below it.
    "RunReport": "survey.collect.engine",
    "Plan": "survey.collect.run_plan",
    "Terminated": "survey.common.event_loop",
    "fmt": "survey.common.formatting",
    "percent": "survey.common.formatting",
    "kind_part": "survey.common.kinds",
    "display_notes": "survey.common.display",
    "display_tables": "survey.common.display",
    "deciding_part": "survey.stats.multiplicity",
    "plans_segments": "survey.stats.segments.simulation",
    "HumanFidelity": "survey.stats.humans",
    "build_design": "survey.study.design",
    "to_json": "survey.common.formatting",
    "yes_no": "survey.common.formatting",
    "BOOTSTRAP_MAX": "survey.common.limits",
    "FLIPS_MAX": "survey.common.limits",
    "PARAPHRASES_MAX": "survey.common.limits",
    "PERSONAS_MAX": "survey.common.limits",
    "WHY": "survey.common.limits",
    "check_alpha": "survey.common.limits",
    "check_count": "survey.common.limits",
    "check_flips": "survey.common.limits",
    "check_seed": "survey.common.limits",
    "progress_bar": "survey.common.progress",
    "attributes_frame": "survey.data.attributes",
    "Store": "survey.data.store",
    "invalid_answers": "survey.data.table",
    "write_table": "survey.data.table",
    "read_target_file": "survey.data.targets",
    "path_error_message": "survey.errors",
    "DBPAOptions": "survey.freetext",
    "dbpa": "survey.freetext",
    "dbpa_family": "survey.freetext",
    "parse_hist_range": "survey.freetext",
    "format_size": "survey.plots.models",
    "model_effects": "survey.plots.models",
    "power_curves": "survey.plots.power",
    "pvalue_ecdfs": "survey.plots.validity",
    "load_persona_set": "survey.registry",
    "load_perturbation_set": "survey.registry",
    "persona_set_paths": "survey.registry",
    "perturbation_set_paths": "survey.registry",
    "read_persona_set": "survey.registry",
    "read_perturbation_set": "survey.registry",
    "near_duplicate_pairs": "survey.registry.dedup",
    "ID_RULE": "survey.registry.files",
    "NAME_RE": "survey.registry.files",
    "SHIPPED_ROOT": "survey.registry.files",
    "write_atomic": "survey.registry.files",
    "generate_persona_set": "survey.registry.generate_sets",
    "generate_persona_set_to_target": "survey.registry.generate_sets",
    "generate_perturbation_set": "survey.registry.generate_sets",
    "GenerationOptions": "survey.registry.generate",
    "persona_set_to_target": "survey.registry.quota_sets",
    "benchmark_report": "survey.reporting.benchmark",
    "response_type": "survey.responses",
    "ab_tests": "survey.stats.ab_tests:*",
    "STRONG": "survey.stats.agreement",
    "Comparison": "survey.stats.comparison",
    "RESTS_ON": "survey.stats.humans.benchmark",
    "DESIGNS": "survey.stats.humans.result",
    "VALIDITY": "survey.stats.humans.result",
    "level_in_words": "survey.stats.humans.in_words",
    "ppi_in_words": "survey.stats.humans.in_words",
    "kind_of": "survey.stats.kinds",
    "plan_params": "survey.stats.kinds",
    "scale_view": "survey.stats.kinds",
    "DELTA_MEANING_ORDINAL": "survey.kinds.ordinal.model",
    "parse_cuts": "survey.kinds.ordinal.table",
    "simulation_view": "survey.kinds.ordinal.table",
    "cannot_reject_note": "survey.stats.permutation",
    "PlanResult": "survey.stats.planning",
    "Validation": "survey.stats.planning",
    "humans_phrase": "survey.stats.planning.mixed_subjects:humans",
    "plan_segments": "survey.stats.planning.segments",
    "SegmentPlanOptions": "survey.stats.planning.segments",
    "CANNOT_REJECT": "survey.stats.planning.validity",
    "comparison_steps": "survey.stats.table_comparison",
    "set_files": "survey.study.context",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module 'survey' has no attribute '{name}'")
    module, _, attr = where.partition(":")  # "module:attr" exports attr under another name, "module:*" the module
    value = importlib.import_module(module) if attr == "*" else getattr(importlib.import_module(module), attr or name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
