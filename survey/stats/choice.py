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
  sign-flip test of survey.stats.permutation applies unchanged. The effect is the share choosing A,
  mean_j D_j + 1/2, with the exact interval of survey.stats.effect (also as the A - B difference of
  shares, twice D).
* **Position bias**: P_j = mean_o mean_i ([chose first] - 1/2) = (mean_i c_ijAB - mean_i c_ijBA) / 2,
  tested for b = 1/2 (b = mean_j P_j + 1/2, the share choosing the first-shown option) by the same
  sign flips. A large b means the model reads position, not content. The test is about these
  personas: a persona's own pull towards a position is not averaged over other personas.

The persona mean is taken per order and then the orders are averaged (mean_o mean_i rather than
mean_i mean_o): the two agree when every cell has valid replies, and with missing cells each order
still weighs 1/2, so the position bias still cancels. A pair with no valid reply in one order is
left out of both tests (``pairs_left_out``).

The per-persona sign and Wilcoxon tests on d_i = mean_j mean_o (c_ijo - 1/2) are given for
comparison only: they treat personas as independent, which a paraphrase that shifts everyone breaks.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.common.formatting import finite
from survey.common.limits import check_alpha, check_flips, check_seed
from survey.data.pairing import natural_key
from survey.errors import SurveyError, TableError
from survey.stats.classic import TestResult, sign_test, wilcoxon_test
from survey.stats.comparison import persona_mean, persona_weights
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.permutation import _check_alternative, cannot_reject_note, sign_flip_pvalues, sign_flip_test

POSITION_WARNING = 0.2  # |b - 1/2| above this: most replies follow the position, whatever the content
PREFERENCE_NOTE = ("valid for any rho and any position bias: under H0 A and B are exchangeable, so each "
                   "pair's order-averaged preference is symmetric about 0, and averaging the two orders "
                   "cancels the position bias")
PERSONA_NOTE = "INVALID when rho > 0: treats personas as independent; for comparison only"


@dataclass
class ChoiceTest:
    """One sign-flip test on pair-level shares: the preference for A, or the pull of the first position."""

    name: str  # "preference" or "position_bias"
    statistic: float  # mean_j of the centred pair values (share - 1/2)
    pvalue: float
    exact: bool
    method: str
    alternative: str
    share: float  # share choosing A (preference) or the first-shown option (position bias)
    ci: tuple[float, float]  # of share, by sign-flip inversion
    confidence: float
    n_pairs: int
    what: str  # what share measures, for people

    @property
    def difference(self) -> float:
        """share - (1 - share): A minus B in shares (preference), first minus second (position)."""
        return round(2 * self.statistic, 12)

    @property
    def difference_ci(self) -> tuple[float, float]:
        return (2 * self.ci[0] - 1, 2 * self.ci[1] - 1)

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "exact": self.exact, "method": self.method,
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
        rows = [{"test": t.name, "share": t.share, "CI": tuple(t.ci), "p": t.pvalue, "what": t.what}
                for t in (self.preference, self.position_bias)]
        title = (f"{self.model or 'forced choice'}: {self.a} vs {self.b}, share choosing {self.a} "
                 f"{self.preference.share:.3f}; preference p = {self.preference.pvalue:.4g}")
        notes = [f"{self.n_personas} personas, {self.n_pairs} paraphrase pairs in both orders, r = {self.replicates}"]
        return title, rows, notes + ([self.warning] if self.warning else [])

    def model_summary(self) -> dict:
        """What forced choice adds to a model's line across models: the share choosing A and the position bias."""
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
    return ChoiceTest(name, test.statistic, test.pvalue, test.exact, test.method, alternative,
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


def choice_test(first_ab, valid_ab, first_ba, valid_ba, *, a: str = "A", b: str = "B",
                alternative: str = "two-sided", alpha: float = 0.05, confidence: float | None = None,
                n_resamples: int = 9999, seed=0, invalid: int = 0, replicates: int | None = None,
                pairs: list | None = None, weights=None) -> ChoiceResult:
    """The forced-choice tests of A vs B from counts per (persona i, pair j), each (n, m):

    ``first_ab`` of ``valid_ab`` valid replies chose the first-shown option when A_j was shown first;
    ``first_ba`` of ``valid_ba`` when B_j was shown first. ``alternative`` "greater" means A is
    preferred. ``invalid``: replies that chose neither option (counted, reported); ``replicates``:
    replies asked per cell (default the most valid ones seen); ``pairs``: a label per column (default
    its index). Intervals have ``confidence``, by default 1 - ``alpha``; ``alpha`` also decides when
    the position bias is called significant. ``weights``: one per persona (row); the preference and the
    position bias are then weighted means over personas (the per-persona tests stay unweighted).
    """
    _check_alternative(alternative)
    alpha, seed = check_alpha(alpha), check_seed(seed)
    check_flips(n_resamples)
    confidence = 1 - alpha if confidence is None else check_alpha(confidence, "confidence")
    f_ab, v_ab, f_ba, v_ba = _check_counts((first_ab, valid_ab, first_ba, valid_ba))
    n, m = f_ab.shape
    labels = list(range(m)) if pairs is None else list(pairs)
    if len(labels) != m:
        raise SurveyError(f"{len(labels)} pair labels for {m} pairs")
    d, pos = choice_statistics(f_ab, v_ab, f_ba, v_ba, weights)
    used = ~np.isnan(d)
    if not used.any():
        raise SurveyError(f"no pair of '{a}' and '{b}' has valid replies in both orders")
    pref = _sign_flip(d[used], "preference", f"share choosing {a}", alternative, confidence, n_resamples, seed)
    position = _sign_flip(pos[used], "position_bias", "share choosing the first-shown option", "two-sided",
                          confidence, n_resamples, seed)
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


# --- from the long table ---------------------------------------------------------------------------------

CHOICE_SCALE = "choice"
_NEEDED = ("second", "second_perturbation")


def _pair_rows(sub: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The rows of A vs B, each with its pair (A id, B id), its order ("AB": A shown first) and whether
    it chose the first-shown option; ``first`` is a probability in exact mode, else 0/1."""
    ab = sub[(sub["message"] == a) & (sub["second"] == b)]
    ba = sub[(sub["message"] == b) & (sub["second"] == a)]
    return pd.concat([
        ab.assign(a_id=ab["perturbation"], b_id=ab["second_perturbation"], order="AB"),
        ba.assign(a_id=ba["second_perturbation"], b_id=ba["perturbation"], order="BA"),
    ], ignore_index=True).astype({"a_id": str, "b_id": str})


def _check_disjoint(rows: pd.DataFrame, a: str, b: str) -> None:
    # The sign-flip test treats pairs as independent: a paraphrase in two pairs would tie them together.
    pairs = rows[["a_id", "b_id"]].drop_duplicates()
    for col, msg in (("a_id", a), ("b_id", b)):
        twice = pairs[col][pairs[col].duplicated()]
        if len(twice):
            pid = twice.iloc[0]
            partners = sorted(pairs.loc[pairs[col] == pid, "b_id" if col == "a_id" else "a_id"], key=natural_key)
            raise TableError(f"paraphrase '{pid}' of '{msg}' is paired with {', '.join(partners)}; the forced-choice "
                             "test needs each paraphrase in one pair (shown with one partner, in both orders)")


def compare_choice(df: pd.DataFrame, model: str, a: str, b: str, *, alternative: str = "two-sided",
                   alpha: float = 0.05, confidence: float | None = None, n_resamples: int = 9999, seed=0,
                   probabilities: bool = False, weights=None) -> ChoiceResult:
    """The forced-choice tests of A vs B for one model of a long table (``choice_test`` on its counts).

    A forced-choice row's ``message``/``perturbation`` are what was shown first, ``second`` and
    ``second_perturbation`` what was shown second, and ``answer`` the position chosen (1 or 2, empty
    when invalid). Pairs (A_j, B_j) come from the rows themselves, in natural order of the A ids. A pair
    asked in one order only is left out and named in ``pairs_one_order`` (averaging the orders is what
    cancels position bias); a pair without a valid reply in some order is in ``pairs_left_out``.
    ``probabilities``: use exact mode's ``expected`` position (2 - expected = P(first)) instead of answers.
    ``weights``: persona id -> weight, for a target population (survey.stats.segments.weights).
    """
    missing = [c for c in _NEEDED if c not in df.columns]
    if missing:
        raise TableError(f"missing column(s) {', '.join(missing)}: a forced-choice table names what was shown second")
    sub = df[df["model"] == model]
    if "scale" in sub.columns:
        sub = sub[sub["scale"] == CHOICE_SCALE]
    if sub.empty:
        raise TableError(f"no forced-choice rows for model '{model}'")
    rows = _pair_rows(sub, a, b)
    if rows.empty:
        shown = sorted({f"{x} vs {y}" for x, y in zip(sub["message"], sub["second"], strict=True)})
        raise TableError(f"model '{model}' has no forced-choice rows of '{a}' against '{b}'; it has {', '.join(shown)}")
    _check_disjoint(rows, a, b)
    if probabilities:
        if "expected" not in rows.columns:
            raise TableError("exact mode needs the 'expected' column")
        rows["first"] = 2 - pd.to_numeric(rows["expected"], errors="coerce")
    else:
        rows["first"] = pd.to_numeric(rows["answer"], errors="coerce").map({1: 1.0, 2: 0.0})
    orders = rows.groupby(["a_id", "b_id"])["order"].agg(lambda o: frozenset(o))
    complete = sorted((p for p, o in orders.items() if len(o) == 2), key=lambda p: (natural_key(p[0]), natural_key(p[1])))
    one_order = {p: ("A first only" if "AB" in o else "B first only")
                 for p, o in sorted(orders.items(), key=lambda x: natural_key(x[0][0])) if len(o) == 1}
    if not complete:
        raise TableError(f"model '{model}': no pair of '{a}' and '{b}' was asked in both orders")
    personas = list(pd.unique(rows["persona"]))
    used = rows.set_index(["a_id", "b_id"]).loc[complete].reset_index()
    cells = used.groupby(["order", "persona", "a_id", "b_id"])["first"].agg(["sum", "count", "size"])
    index = pd.MultiIndex.from_tuples(complete, names=["a_id", "b_id"])

    def grid(order: str, col: str) -> np.ndarray:
        part = cells.xs(order, level="order")[col].unstack(["a_id", "b_id"])
        return part.reindex(index=personas, columns=index).fillna(0).to_numpy(dtype=float)

    result = choice_test(grid("AB", "sum"), grid("AB", "count"), grid("BA", "sum"), grid("BA", "count"),
                         a=a, b=b, alternative=alternative, alpha=alpha, confidence=confidence,
                         n_resamples=n_resamples, seed=seed, invalid=int(used["first"].isna().sum()),
                         replicates=int(cells["size"].max()), pairs=complete,
                         weights=persona_weights(weights, personas))
    result.pairs_one_order = one_order
    result.model = model
    if one_order:
        result.notes.append(f"{len(one_order)} pair(s) asked in one order only were left out, since only both "
                            f"orders cancel position bias: {', '.join(f'{x}/{y}' for x, y in one_order)}")
    return result
