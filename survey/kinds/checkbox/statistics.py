"""Checkbox, message A vs B: per option the share of replies ticking it (the persona x paraphrase cell mean of
the option's indicator), the sign-flip test over paraphrase pairs per option (survey.stats.comparison), Holm's
adjustment across the options (survey.stats.multiplicity). The smallest Holm-adjusted p-value decides whether
the messages differ on any option (it controls the family-wise error over the options); the effect reported
with it is that option's difference of shares.

A share moves in steps of 1/(n r), so the observed sum of differences often ties with many sign-flipped sums;
counting the ties as extreme makes the test conservative (size 0.026-0.052, mean 0.038, at alpha = 0.05 at the
smallest designs). Each option's test breaks its ties at random instead (survey.stats.tie_breaking), with U
from a generator seeded by the analysis' seed, the option's index and a digest of its data, which makes its size
alpha over studies (survey.stats.tie_breaking.data_seed).

The options' effect intervals are simultaneous over the k options (Bonferroni: each at 1 - (1 - confidence)/k,
survey.stats.family.interval_levels), as the decision is adjusted over them: the deciding option's Holm p is
k times its raw p, so "not significant" (Holm p > alpha) means its raw p > alpha/k, and its interval (the
inversion of the counting sign-flip test, whose p is never below the randomised one, at level 1 - alpha/k with
the same seed) then holds 0. The one mismatch left goes the other way: at a tie the randomised p can be <= alpha
while the counting interval touches 0; and an option other than the deciding one can be a Holm win whose
Bonferroni interval holds 0 (Holm has no matching interval)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.common.formatting import percent
from survey.data.pairing import Pairing, pair_perturbations
from survey.data.table import cell_counts, first_appearance
from survey.errors import TableError
from survey.stats.comparison import Resampling, paired_differences, persona_mean, persona_weights
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.family import interval_levels
from survey.stats.multiplicity import adjust_pvalues
from survey.stats.permutation import sign_flip_test
from survey.stats.tie_breaking import TIE_WORDS, data_seed


@dataclass
class OptionComparison:
    """One option, A vs B: the share ticking it per paraphrase (theta_bar), the paired differences D-bar_j, their
    sign-flip test and the effect's interval (survey.stats.comparison's quantities, without the tests that are
    invalid when paraphrases move every persona, which planning and the decision never read)."""

    option: str
    test: object  # PermutationResult
    effect: EffectResult
    theta_bar: dict
    d_perturbation: np.ndarray
    pairing: Pairing
    n_personas: int
    replicates: int
    invalid: dict
    empty_cells: dict
    n_perturbations: dict
    marginal: EffectResult | None = None  # the interval on its own, at the stated confidence (not shown beside the
    # Holm decision): what a comparison with people, one option at a time, reads

    @property
    def decision(self):
        return self.test

    @property
    def n_paired(self) -> int:
        return int(np.isfinite(self.d_perturbation).sum())

    @property
    def means(self) -> dict:
        return {m: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for m, v in self.theta_bar.items()}

    def per_pair(self) -> dict:
        return {lab: float(d) for lab, d in zip(self.pairing.pairs, self.d_perturbation, strict=False)
                if not np.isnan(d)}


@dataclass
class OptionsTest:
    """The deciding test: the smallest Holm-adjusted sign-flip p-value over the options."""

    statistic: float
    pvalue: float
    option: str
    exact: bool
    method: str = ("sign-flip test per option over paraphrase pairs, Holm-adjusted across the options; "
                   f"{TIE_WORDS}")

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "option": self.option, "exact": self.exact,
                "method": self.method, "adjustment": "holm over the options", "ties": TIE_WORDS}


@dataclass(repr=False)
class CheckboxResult(Display):
    a: str
    b: str
    options: list[str]
    per_option: list[dict]  # option, share_a, share_b, effect (EffectResult), pvalue (raw), holm
    effect: EffectResult
    decision_test: OptionsTest
    n_personas: int
    n_paired: int
    replicates: int
    invalid: dict
    comparisons: list = field(default_factory=list, repr=False)
    scale: str = "checkbox"
    model: str = ""
    sequential: object | None = None
    segments: object | None = None
    warnings: list = field(default_factory=list)  # what makes the result doubtful (set by analyze)
    confidence: float = 0.95  # what the k intervals cover together; each is at interval_level

    @property
    def unit(self) -> str:
        """What the headline effect is a difference of: the deciding option's share, the option named (each
        result, segment and question may decide on another option)."""
        return f"share choosing '{self.decision_test.option}' (the deciding option of {len(self.options)})"

    @property
    def interval_level(self) -> float:
        """Each option's interval level: 1 - (1 - confidence)/k, Bonferroni over the k options."""
        return self.effect.confidence

    @property
    def interval_adjustment(self) -> str:
        return f"bonferroni over the {len(self.options)} options"

    @property
    def interval_words(self) -> str:
        """The intervals' level in words, for the text, the report and the notes."""
        k = len(self.options)
        if k == 1:
            return f"{percent(self.interval_level)} interval"
        return (f"{percent(self.interval_level)} intervals, simultaneous over the {k} options (Bonferroni: "
                f"1 − {1 - self.confidence:.3g}/{k} each, all {k} together at least {percent(self.confidence)}), as "
                "the decision is Holm-adjusted over them")

    @property
    def decision_tests(self) -> int:
        """How many tests the decision is adjusted over (the options): an interval beside it simultaneous with
        others (segments, pairs, questions) is at Bonferroni's level over these too."""
        return len(self.options)

    @property
    def deciding_part(self) -> str:
        """The option the headline effect is on (``part_word``): the one with the smallest Holm p."""
        return self.decision_test.option

    @property
    def decision(self) -> OptionsTest:
        return self.decision_test

    @property
    def pvalue(self) -> float:
        return self.decision_test.pvalue

    @property
    def warning(self) -> str | None:
        """What the models' comparison shows beside the result (a balanced scale's direction effect): a checkbox
        has none."""
        return None

    @property
    def tests(self) -> dict:
        return {"sign_flip": self.decision_test}

    @property
    def n_perturbations(self) -> dict:
        return dict(self.comparisons[0].n_perturbations) if self.comparisons else {}

    @property
    def empty_cells(self) -> dict:
        return dict(self.comparisons[0].empty_cells) if self.comparisons else {}

    @property
    def pairing(self):
        return self.comparisons[0].pairing if self.comparisons else None

    @property
    def d_perturbation(self) -> np.ndarray:
        return self.comparisons[self._best].d_perturbation

    @property
    def theta_bar(self) -> dict:
        return self.comparisons[self._best].theta_bar

    @property
    def _best(self) -> int:
        return self.options.index(self.decision_test.option)

    def per_pair(self) -> dict:
        return self.comparisons[self._best].per_pair()

    part_word = "option"  # the segments' interaction is tested per option (survey.stats.segments.analysis),
    interaction_ties = "random"  # its ties broken at random as each option's own test's are (size alpha)

    def model_summary(self) -> dict:
        """What a model's line across models adds: the option its effect is on."""
        return {"option": self.decision_test.option, "unit": self.unit}

    def interaction_parts(self) -> dict:
        """Option -> its per-pair differences: segments are compared option by option, Holm across the options,
        never each segment on its own deciding option (two segments could then decide on different options)."""
        return {o: c.per_pair() for o, c in zip(self.options, self.comparisons, strict=True)}

    def display_parts(self):
        rows = [{"option": o["option"], f"share {self.a}": o["share_a"], f"share {self.b}": o["share_b"],
                 "difference": o["effect"].estimate, "p": o["pvalue"], "Holm p": o["holm"]} for o in self.per_option]
        title = (f"{self.model or 'checkbox'}: {self.a} vs {self.b}; smallest Holm p = {self.pvalue:.4g} "
                 f"('{self.decision_test.option}')")
        return title, rows, [f"{self.n_personas} personas, {self.n_paired} paraphrase pairs, r = {self.replicates}",
                             f"intervals: {self.interval_words}"]

    def to_dict(self) -> dict:
        return {"model": self.model, "a": self.a, "b": self.b, "scale": self.scale, "unit": self.unit,
                "options": list(self.options),
                "per_option": [{**o, "effect": o["effect"].to_dict()} for o in self.per_option],
                "effect": self.effect.to_dict(), "tests": {"sign_flip": self.decision_test.to_dict()},
                "intervals": {"confidence": self.interval_level, "adjustment": self.interval_adjustment,
                              "family_confidence": self.confidence},
                "n_personas": self.n_personas, "n_paired": self.n_paired, "replicates": self.replicates,
                "invalid": self.invalid, "warnings": list(self.warnings)}


def option_rows(df: pd.DataFrame, i: int) -> pd.DataFrame:
    """The rows with ``answer`` the indicator of option i (0-based) ticked; invalid replies stay empty."""
    ans = df["answer"].astype("Int64")
    return df.assign(answer=((ans // (1 << i)) % 2).astype("Int16"))


def option_test(d: np.ndarray, i: int, how: Resampling):
    """Option i's randomised sign-flip test on its per-pair differences ``d``: its U from the analysis' seed, the
    option's index and a digest of ``d`` (survey.stats.tie_breaking.data_seed), so the same data and seed give the
    same p and, over studies, U is the uniform draw that makes the size alpha (a U from the seed alone would be
    the same tie fraction in every study run with the default seed)."""
    return sign_flip_test(d, how.alternative, n_resamples=how.n_resamples, seed=data_seed(how.seed, i, d),
                          ties="random")


def compare_option(rows: pd.DataFrame, model: str, a: str, b: str, i: int, option: str, personas: list[str],
                   pairs: Pairing, w, how: Resampling, marginal: float | None = None) -> OptionComparison:
    """Option i (0-based), A vs B for one model (see OptionComparison); ``how`` the test's and interval's
    alternative, resamples, seed and confidence (the interval's own level: the caller's simultaneous one). The
    interval is seeded as the option's test is, so beyond the exact sizes its verdict at 0 reads the same flips."""
    sub = option_rows(rows, i)
    ca = cell_counts(sub, model, a, personas, False, pairs.order_a)
    cb = cell_counts(sub, model, b, personas, False, pairs.order_b)
    d_pert, _ = paired_differences(ca, cb, len(pairs.pairs), w)
    d = d_pert[~np.isnan(d_pert)]
    if len(d) == 0:
        raise TableError(f"model '{model}': no paraphrase pair of '{a}' and '{b}' has valid answers")
    test = option_test(d, i, how)
    # the marginal interval first: the simultaneous one (a lower alpha) is then read from its subset means; seeded
    # as the Yes/No analysis of the option's indicator is, which it equals
    own = None if marginal is None else effect_ci(d, confidence=marginal, n_resamples=how.n_resamples,
                                                  seed=how.seed, bounds=(-1.0, 1.0))
    effect = effect_ci(d, confidence=how.confidence, n_resamples=how.n_resamples, seed=data_seed(how.seed, i, d),
                       bounds=(-1.0, 1.0))
    return OptionComparison(option, test, effect, {a: persona_mean(ca.theta, w), b: persona_mean(cb.theta, w)},
                            d_pert, pairs, len(personas), max(ca.replicates, cb.replicates),
                            {a: ca.n_invalid, b: cb.n_invalid, "total": ca.n_invalid + cb.n_invalid},
                            {a: len(ca.empty_cells), b: len(cb.empty_cells)},
                            {a: len(ca.perturbations), b: len(cb.perturbations)}, own or effect)


def compare_checkbox(df: pd.DataFrame, model: str, a: str, b: str, options: list[str], *, alternative="two-sided",
                     n_resamples=9999, seed=0, confidence=0.95, pairing=None, weights=None) -> CheckboxResult:
    rows = df[df["model"] == model]
    if rows.empty:
        raise TableError(f"no rows for model '{model}'")
    personas = first_appearance(rows.loc[rows["message"].isin([a, b]), "persona"])
    pairs = pair_perturbations(rows, model, a, b, pairing)
    w = persona_weights(weights, personas)
    # every option's p is finite (compare_option refuses an option without pairs): each interval at 1 - (1 - c)/k
    level = interval_levels(np.zeros(len(options)), 1 - confidence, "holm")[0]
    how = Resampling(alternative, n_resamples, seed, level)
    comps = [compare_option(rows, model, a, b, i, o, personas, pairs, w, how, None if level == confidence else
                            confidence) for i, o in enumerate(options)]
    raw = np.array([c.decision.pvalue for c in comps], dtype=float)
    holm = adjust_pvalues(raw, "holm")
    per = [{"option": o, "share_a": c.means[a], "share_b": c.means[b], "effect": c.effect, "pvalue": float(p),
            "holm": float(h)} for o, c, p, h in zip(options, comps, raw, holm, strict=True)]
    best = int(np.nanargmin(holm)) if np.isfinite(holm).any() else 0
    first = comps[best]
    test = OptionsTest(first.decision.statistic, float(holm[best]), options[best], first.decision.exact)
    return CheckboxResult(a, b, list(options), per, first.effect, test, first.n_personas, first.n_paired,
                          first.replicates, dict(first.invalid), comps, model=model, confidence=confidence)
