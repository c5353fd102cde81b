"""Forced choice between messages A and B: the preference test and the position-bias test (ours).

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for
generative surveying", note that their sign-flip test extends to any response with a paraphrase-level
summary, and name joint presentation as future work. Here one prompt shows paraphrase A_j and B_j
of pair j and asks which the persona prefers. Language models prefer positions, so every (persona,
pair) is asked in both orders o in {AB, BA}, r times each.

With c_ijo the share of persona i's valid replies that chose A (in order AB choosing A is choosing
the first-shown option, in BA the second):

* **Preference**: D_j = mean_o mean_i (c_ijo - 1/2), the order-averaged share choosing A, centred.
  Under H0 (no preference, A_j and B_j exchangeable) swapping A_j and B_j maps c_ijAB to 1 - c_ijBA
  and c_ijBA to 1 - c_ijAB, i.e. D_j to -D_j: the D_j are symmetric about 0 whatever the position
  bias and whatever share rho of the paraphrase variance is common to all personas, and the
  sign-flip test of survey.stats.permutation applies unchanged. The one quantity reported, under one
  name, is the **preference for A** = share choosing A - share choosing B, both orders averaged
  = 2 mean_j D_j, in [-1, 1] (0: no preference); it is the test's statistic, the effect, and what
  analyze, compare and the report show. Its interval is the exact one of survey.stats.effect.
  ``share`` (= (1 + preference) / 2) and ``ci`` keep the share form for scripts.
* **Position bias**: P_j = mean_o mean_i ([chose first] - 1/2) = (mean_i c_ijAB - mean_i c_ijBA) / 2,
  tested for b = 1/2 (b = mean_j P_j + 1/2, the share choosing the first-shown option) by the same
  sign flips; reported like the preference, as share first - share second = 2 mean_j P_j. A large b
  means the model reads position, not content. The test is about these personas: a persona's own
  pull towards a position is not averaged over other personas.

The persona mean is taken per order and then the orders are averaged (mean_o mean_i rather than
mean_i mean_o): the two agree when every cell has valid replies, and with missing cells each order
still weighs 1/2, so the position bias still cancels. A pair with no valid reply in one order is
left out of both tests (``pairs_left_out``).

The per-persona sign and Wilcoxon tests on d_i = mean_j mean_o (c_ijo - 1/2) are given for
comparison only: they treat personas as independent, which a paraphrase that shifts everyone breaks.
The counts come from a long table in survey.kinds.choice.table.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from survey.common.display import Display
from survey.common.formatting import finite
from survey.common.options import options_from
from survey.errors import SurveyError
from survey.stats.classic import TestResult, sign_test, wilcoxon_test
from survey.stats.comparison import persona_mean
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.kinds.base import CompareOptions
from survey.stats.permutation import cannot_reject_note, sign_flip_pvalues, sign_flip_test

POSITION_WARNING = 0.2  # |b - 1/2| above this: most replies follow the position, whatever the content
PREFERENCE_NOTE = ("valid for any rho and any position bias: under H0 A and B are exchangeable, so each "
                   "pair's order-averaged preference is symmetric about 0, and averaging the two orders "
                   "cancels the position bias")
PERSONA_NOTE = "INVALID when rho > 0: treats personas as independent; for comparison only"
# The one quantity a forced choice reports (analyze, compare, the report), and its name.
PREFERENCE_QUANTITY = "share choosing {a} − share choosing {b}, both orders averaged"
POSITION_QUANTITY = "share choosing the first-shown option − the second-shown"


def preference_name(a: str, b: str) -> str:
    """The preference's name with its definition: "preference for A (share choosing A − share choosing B, ...)"."""
    return f"preference for {a} ({PREFERENCE_QUANTITY.format(a=a, b=b)})"


@dataclass
class ChoiceTest:
    """One sign-flip test on pair-level shares: the preference for A, or the pull of the first position."""

    name: str  # "preference" or "position_bias"
    statistic: float  # share choosing A - share choosing B (position: first - second) = 2 mean_j (share_j - 1/2)
    pvalue: float
    exact: bool
    method: str
    alternative: str
    share: float  # share choosing A (preference) or the first-shown option (position bias)
    ci: tuple[float, float]  # of share, by sign-flip inversion
    confidence: float
    n_pairs: int
    what: str  # what the statistic measures, for people: "share choosing A − share choosing B"

    @property
    def difference(self) -> float:
        """The statistic (an alias kept for scripts): A minus B in shares, first minus second (position)."""
        return self.statistic

    @property
    def difference_ci(self) -> tuple[float, float]:
        return (2 * self.ci[0] - 1, 2 * self.ci[1] - 1)

    def to_dict(self) -> dict:
        # "estimate"/"estimate_ci" are the one quantity; "statistic", "difference"/"difference_ci" (the same
        # numbers) and "share"/"ci" (its share form, (1 + estimate) / 2) are aliases kept for scripts.
        return {"quantity": self.what, "estimate": self.statistic, "estimate_ci": list(self.difference_ci),
                "statistic": self.statistic, "pvalue": self.pvalue, "exact": self.exact, "method": self.method,
                "alternative": self.alternative, "share": self.share, "ci": list(self.ci),
                "difference": self.difference, "difference_ci": list(self.difference_ci),
                "confidence": self.confidence, "n_pairs": self.n_pairs, "what": self.what}


@dataclass(repr=False)
class ChoiceResult(Display):
    """Forced choice between A and B: ``.preference`` decides; ``.position_bias`` says how far the
    model reads position. ``.statistic`` and ``.pvalue`` are the preference test's."""

    a: str
    b: str
    n_personas: int
    n_pairs: int  # pairs used: valid replies in both orders
    pairs_left_out: list  # pair labels (or indices) without valid replies in one order or both
    replicates: int  # most replies asked per (persona, pair, order), valid or not
    invalid: int  # replies that chose neither option
    empty_cells: int  # (persona, pair, order) cells without a valid reply
    preference: ChoiceTest
    position_bias: ChoiceTest
    persona_tests: dict[str, TestResult]  # sign and Wilcoxon on per-persona preferences: INVALID when rho > 0
    notes: list[str]
    warning: str | None  # set when the position bias is large or significant
    d_pair: np.ndarray = field(repr=False)  # preference per pair (share choosing A - 1/2), NaN if left out
    position_pair: np.ndarray = field(repr=False)  # pull of the first position per pair, NaN if left out
    d_persona: np.ndarray = field(repr=False)  # per-persona order-averaged preference
    pairs: list = field(default_factory=list)  # pair labels, e.g. (A id, B id), of d_pair's entries
    pairs_one_order: dict = field(default_factory=dict)  # (A id, B id) -> the only order asked; left out
    model: str = ""  # the model that answered (compare_choice sets it)
    sequential: object | None = None  # a stored sequential decision (analyze; never set for this kind)
    segments: object | None = None  # survey.stats.segments.SegmentAnalysis, when analyze was asked for whom
    warnings: list = field(default_factory=list)  # what makes the result doubtful, e.g. unequal invalid rates (analyze)

    # The A/B result protocol (survey.stats.results): what every kind's comparison answers alike.
    scale = "choice"
    unit = "share choosing A − share choosing B"  # what ``effect`` is a difference of

    @property
    def statistic(self) -> float:
        return self.preference.statistic

    @property
    def pvalue(self) -> float:
        return self.preference.pvalue

    @property
    def decision(self) -> ChoiceTest:
        """The deciding test: the preference test (a sign-flip test on order-averaged shares)."""
        return self.preference

    @property
    def effect(self) -> EffectResult:
        """Share choosing A - share choosing B (twice the centred preference, in [-1, 1]; positive favours A),
        with the preference test's interval."""
        pref = self.preference
        return EffectResult(pref.difference, pref.difference_ci, pref.confidence, pref.method, pref.exact,
                            direction="share choosing A - share choosing B")

    @property
    def n_paired(self) -> int:
        return self.n_pairs

    @property
    def n_perturbations(self) -> dict:
        """Pairs used and pairs left out (each pair is one paraphrase of A shown with one of B)."""
        return {"pairs": self.n_pairs, "pairs_left_out": len(self.pairs_left_out)}

    @property
    def tests(self) -> dict:
        """The preference test decides (under the sign-flip key); the per-persona tests are for comparison."""
        return {"sign_flip": self.preference, **self.persona_tests}

    def display_parts(self):
        rows = [{"test": t.name, "estimate": t.statistic, "CI": tuple(t.difference_ci), "p": t.pvalue, "what": t.what}
                for t in (self.preference, self.position_bias)]
        title = (f"{self.model or 'forced choice'}: {self.a} vs {self.b}, {preference_name(self.a, self.b)} "
                 f"{self.preference.statistic:+.3f}; p = {self.preference.pvalue:.4g}")
        notes = [f"{self.n_personas} personas, {self.n_pairs} paraphrase pairs in both orders, r = {self.replicates}"]
        return title, rows, notes + ([self.warning] if self.warning else [])

    def model_summary(self) -> dict:
        """What forced choice adds to a model's line across models: the position bias, and the share form of
        the preference (``share_a`` = (1 + effect) / 2, kept for scripts; the effect is the preference)."""
        pref = self.preference
        return {"share_a": finite(pref.share), "share_a_ci": [finite(v) for v in pref.ci],
                "position_bias": self.position_bias.to_dict(), "warning": self.warning}

    def per_pair(self) -> dict:
        """(A id, B id) -> that pair's share difference A - B, for the pairs used."""
        d = self.d_pair[~np.isnan(self.d_pair)]
        return {lab: float(2 * x) for lab, x in zip(self.pairs, d, strict=True)}

    @property
    def note(self) -> str:
        return "; ".join(self.notes)

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "n_personas": self.n_personas, "n_pairs": self.n_pairs,
                "pairs": [list(p) if isinstance(p, tuple) else p for p in self.pairs],
                "pairs_left_out": [list(p) if isinstance(p, tuple) else p for p in self.pairs_left_out],
                "pairs_one_order": [[*p, o] for p, o in self.pairs_one_order.items()],
                "replicates": self.replicates, "invalid": self.invalid, "empty_cells": self.empty_cells,
                "quantity": preference_name(self.a, self.b), "effect": self.effect.to_dict(),
                "preference": self.preference.to_dict(), "position_bias": self.position_bias.to_dict(),
                "persona_tests": {k: {**v.to_dict(), "note": PERSONA_NOTE} for k, v in self.persona_tests.items()},
                "notes": list(self.notes), "warning": self.warning}


def _nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():  # an all-NaN slice is a cell or pair without valid replies: NaN is the answer
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axis)


def _shares_of_a(first_ab, valid_ab, first_ba, valid_ba) -> tuple[np.ndarray, np.ndarray]:
    """c_ijAB and c_ijBA, the shares choosing A per (..., persona, pair); NaN without valid replies."""
    f_ab, v_ab, f_ba, v_ba = (np.asarray(x, dtype=float) for x in (first_ab, valid_ab, first_ba, valid_ba))
    with np.errstate(invalid="ignore", divide="ignore"):
        c_ab = np.where(v_ab > 0, f_ab / v_ab, np.nan)
        c_ba = np.where(v_ba > 0, (v_ba - f_ba) / v_ba, np.nan)  # in BA, A is the second-shown option
    return c_ab, c_ba


def choice_statistics(first_ab, valid_ab, first_ba, valid_ba, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """(D_j, P_j) per (..., pair) from counts per (..., persona, pair): the preference for A and the pull
    of the first position, both centred at 1/2; NaN where a pair has no valid reply in some order.
    ``weights``: one per persona; the persona means are then weighted (survey.stats.segments.weights)."""
    c_ab, c_ba = _shares_of_a(first_ab, valid_ab, first_ba, valid_ba)
    s_ab, s_ba = persona_mean(c_ab, weights), persona_mean(c_ba, weights)
    # Shares are fractions of r: round so that values equal in exact arithmetic tie exactly in the tests.
    return np.round((s_ab + s_ba) / 2 - 0.5, 12), np.round((s_ab - s_ba) / 2, 12)


def persona_preferences(first_ab, valid_ab, first_ba, valid_ba) -> np.ndarray:
    """d_i = mean_j mean_o (c_ijo - 1/2) per (..., persona), over the pairs the persona answered in both orders."""
    c_ab, c_ba = _shares_of_a(first_ab, valid_ab, first_ba, valid_ba)
    return np.round(_nanmean((c_ab + c_ba) / 2 - 0.5, axis=-1), 12)


def choice_pvalues(first_ab, valid_ab, first_ba, valid_ba, alternative: str = "two-sided",
                   n_resamples: int = 1000, exact_max_m: int = 12, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """(preference p-values, position-bias p-values) for a batch: inputs (S, n, m), row s being survey s.

    The position-bias test is two-sided. A pair left out (NaN) enters as 0, which adds nothing to
    any signed sum and gives the same exact p-value as dropping it.
    """
    d, pos = choice_statistics(first_ab, valid_ab, first_ba, valid_ba)
    d, pos = np.atleast_2d(d), np.atleast_2d(pos)
    kw = dict(n_resamples=n_resamples, exact_max_m=exact_max_m, seed=seed)
    return (sign_flip_pvalues(np.nan_to_num(d, nan=0.0), alternative, **kw),
            sign_flip_pvalues(np.nan_to_num(pos, nan=0.0), "two-sided", **kw))


def _check_counts(arrays) -> tuple[np.ndarray, ...]:
    out = tuple(np.asarray(x, dtype=float) for x in arrays)
    if out[0].ndim != 2 or any(x.shape != out[0].shape for x in out):
        raise SurveyError("forced-choice counts must be four (personas x pairs) arrays of one shape; got shapes "
                          + ", ".join(str(x.shape) for x in out))
    f_ab, v_ab, f_ba, v_ba = out
    if any(np.isnan(x).any() or (x < 0).any() for x in out) or (f_ab > v_ab).any() or (f_ba > v_ba).any():
        raise SurveyError("forced-choice counts must be numbers >= 0, the chose-first counts at most "
                          "the valid counts")
    return out


def _sign_flip(values: np.ndarray, name: str, what: str, alternative: str, confidence: float,
               n_resamples: int, seed) -> ChoiceTest:
    test = sign_flip_test(values, alternative, n_resamples=n_resamples, seed=seed)
    eff = effect_ci(values, confidence=confidence, n_resamples=n_resamples, seed=seed, bounds=(-0.5, 0.5))
    return ChoiceTest(name, round(2 * test.statistic, 12), test.pvalue, test.exact, test.method, alternative,
                      round(eff.estimate + 0.5, 12), (eff.ci[0] + 0.5, eff.ci[1] + 0.5), confidence,
                      len(values), what)


def position_warning(position: ChoiceTest, alpha: float) -> str | None:
    """A sentence when the model picks by position: large (|b - 1/2| > 0.2) or significant at ``alpha``."""
    b = position.share
    side = "first" if b > 0.5 else "second"
    share = f"{max(b, 1 - b):.0%} of valid replies chose the {side}-shown option"
    if abs(b - 0.5) > POSITION_WARNING:
        return (f"position bias: {share}; the model reads position, not content. Averaging both orders keeps "
                "the preference test valid, but most replies carry no information about A and B")
    if position.pvalue <= alpha:
        return (f"position bias: {share} (p = {position.pvalue:.3g}); averaging both orders cancels it in "
                "the preference test")
    return None


def choice_test(first_ab, valid_ab, first_ba, valid_ba, *, a: str = "A", b: str = "B", invalid: int = 0,
                replicates: int | None = None, pairs: list | None = None, weights=None,
                options: CompareOptions | None = None, **keywords) -> ChoiceResult:
    """The forced-choice tests of A vs B from counts per (persona i, pair j), each (n, m):

    ``first_ab`` of ``valid_ab`` valid replies chose the first-shown option when A_j was shown first;
    ``first_ba`` of ``valid_ba`` when B_j was shown first. ``alternative`` "greater" means A is
    preferred. ``invalid``: replies that chose neither option (counted, reported); ``replicates``:
    replies asked per cell (default the most valid ones seen); ``pairs``: a label per column (default
    its index). Intervals have ``confidence``, by default 1 - ``alpha``; ``alpha`` also decides when
    the position bias is called significant. ``weights``: one per persona (row); the preference and the
    position bias are then weighted means over personas (the per-persona tests stay unweighted). How it tests
    (``alternative``, ``alpha``, ``confidence``, ``flips`` resamples, ``seed``) is a CompareOptions, given as
    ``options`` or as its fields' keywords.
    """
    o = options_from(CompareOptions, options, keywords, where="choice_test")
    alternative, alpha, confidence, n_resamples, seed = o.alternative, o.alpha, o.confidence, o.flips, o.seed
    f_ab, v_ab, f_ba, v_ba = _check_counts((first_ab, valid_ab, first_ba, valid_ba))
    n, m = f_ab.shape
    labels = list(range(m)) if pairs is None else list(pairs)
    if len(labels) != m:
        raise SurveyError(f"{len(labels)} pair labels for {m} pairs")
    d, pos = choice_statistics(f_ab, v_ab, f_ba, v_ba, weights)
    used = ~np.isnan(d)
    if not used.any():
        raise SurveyError(f"no pair of '{a}' and '{b}' has valid replies in both orders")
    pref = _sign_flip(d[used], "preference", PREFERENCE_QUANTITY.format(a=a, b=b), alternative, confidence,
                      n_resamples, seed)
    position = _sign_flip(pos[used], "position_bias", POSITION_QUANTITY, "two-sided", confidence, n_resamples, seed)
    d_pers = persona_preferences(f_ab, v_ab, f_ba, v_ba)
    persona = {"sign": sign_test(d_pers, alternative)}
    if (~np.isnan(d_pers)).any():
        persona["wilcoxon"] = wilcoxon_test(d_pers, alternative)
    notes = [f"preference test: {PREFERENCE_NOTE}"]
    small = cannot_reject_note(int(used.sum()), alpha, alternative)
    notes += [small] if small else []
    return ChoiceResult(
        a=a, b=b, n_personas=n, n_pairs=int(used.sum()), pairs_left_out=[labels[j] for j in np.flatnonzero(~used)],
        replicates=int(max(v_ab.max(), v_ba.max())) if replicates is None else int(replicates),
        invalid=int(invalid), empty_cells=int((v_ab == 0).sum() + (v_ba == 0).sum()),
        preference=pref, position_bias=position, persona_tests=persona, notes=notes,
        warning=position_warning(position, alpha), d_pair=d, position_pair=pos, d_persona=d_pers,
        pairs=[labels[j] for j in np.flatnonzero(used)])
