"""survey.stats exports every public statistic with __all__, each resolvable and documented."""

import survey.stats as stats


def test_every_export_resolves_and_has_a_docstring():
    for name in stats.__all__:
        obj = getattr(stats, name)
        assert (obj.__doc__ or "").strip(), f"survey.stats.{name} has no docstring"


def test_the_families_of_statistics_are_all_exported():
    for name in ("sign_flip_test", "unpaired_permutation_test", "sign_test", "wilcoxon_test", "effect_ci",
                 "estimate", "moment_estimate", "compare_models", "compare_all_messages", "model_agreement",
                 "sign_flip_heterogeneity", "dbpa_test", "plan", "validate", "sequential_test", "simulate",
                 "ppi_mean", "ppi_paired_effect", "ppi_between_effect", "level_fidelity", "effect_fidelity",
                 "benchmark_fidelity", "dispersion_ratio", "plan_mixed_subjects"):
        assert name in stats.__all__
