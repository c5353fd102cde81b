"""What a plan's recommendations may ask of the paraphrase sets, and when the sign-flip test cannot reject.

A design's m is the number of paraphrases per message. The plan must not recommend more than the
sets hold without saying so: when the sets are named (``sets``) or their size given
(``max_paraphrases``) the recommendations are capped to designs within them; when the size is only
inferred from the data the plan was fitted on (a table, an estimate), the recommendations that
exceed it are flagged. Separately, at m pairs the exact sign-flip test's smallest p-value is 2/2^m
(two-sided): designs whose m cannot reach alpha are named.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from survey.data.plan_inputs import estimate_rows, pick_estimate, plan_table
from survey.errors import SurveyError
from survey.stats.permutation import cannot_reject_note, pairs_needed, smallest_pvalue


@dataclass(frozen=True)
class ParaphraseLimit:
    """The most paraphrases per message the sets hold (``m``), where that came from, and whether the
    plan's recommendations are capped to it (named sets, a given size) or only flagged (inferred)."""

    m: int
    source: str
    capped: bool

    def to_dict(self) -> dict:
        return {"max": self.m, "source": self.source, "capped": self.capped}


def paraphrase_limit(max_paraphrases: int | None = None, sets: Mapping[str, int] | None = None, from_estimate=None,
                     from_table=None, model: str | None = None, message: str | None = None,
                     study: str | None = None) -> ParaphraseLimit | None:
    """The limit from the sets or size given, else inferred from the plan's source, else None."""
    sets = {name: int(n) for name, n in (sets or {}).items() if name}
    if max_paraphrases is not None:
        if isinstance(max_paraphrases, bool) or not isinstance(max_paraphrases, int) or max_paraphrases < 2:
            raise SurveyError(f"max_paraphrases must be a whole number >= 2 (the tests pair paraphrases); "
                              f"got {max_paraphrases}")
        return ParaphraseLimit(max_paraphrases, "given", True)
    if sets:  # the sets' sizes, read by the caller (survey.registry): statistics do no I/O
        return ParaphraseLimit(min(sets.values()), _sizes(sets, "sets"), True)
    sizes = _sizes_in_source(from_estimate, from_table, model, message, study)
    return ParaphraseLimit(min(sizes.values()), _sizes(sizes, "the plan's source holds"), False) if sizes else None


def _sizes(sizes: dict[str, int], what: str) -> str:
    return f"{what} " + ", ".join(f"{k} ({v})" for k, v in sizes.items())


def _sizes_in_source(from_estimate, from_table, model, message, study) -> dict[str, int]:
    """Paraphrases per message in the data the parameters come from (message -> count)."""
    if from_table is not None:
        df, _ = plan_table(from_table, study)
        if model is not None:
            df = df[df["model"] == model]
        return {str(k): int(v) for k, v in df.groupby("message", sort=False)["perturbation"].nunique().items()}
    if from_estimate is not None and not hasattr(from_estimate, "n_perturbations"):
        rows, _ = estimate_rows(from_estimate)
        row = pick_estimate(rows, model, message, "the estimate")
        n = row.get("n_perturbations")
        return {str(row.get("message")): int(n)} if isinstance(n, (int, float)) else {}
    if from_estimate is not None:
        return {"the estimate": int(from_estimate.n_perturbations)}
    return {}


def within(results_or_rows, limit: ParaphraseLimit | None) -> list:
    """The designs (PowerResults or dicts with "m") a capped limit allows; all of them otherwise."""
    if limit is None or not limit.capped:
        return list(results_or_rows)
    return [r for r in results_or_rows if _m(r) <= limit.m]


def _m(x) -> int:
    return x["m"] if isinstance(x, dict) else x.design.m


def paraphrase_warnings(limit: ParaphraseLimit | None, best: list[dict], cheapest: dict | None) -> list[str]:
    """Recommendations that ask for more paraphrases than the sets hold (flagged, when not capped)."""
    if limit is None:
        return []
    out = []
    if limit.capped:
        return [f"recommendations are limited to m <= {limit.m} paraphrases per message ({limit.source})"]
    if cheapest is not None and cheapest["m"] > limit.m:
        out.append(f"the cheapest design needs m = {cheapest['m']} paraphrases per message, more than "
                   f"{limit.source}; write more paraphrases or pass `max_paraphrases={limit.m}` to plan within them")
    over = sorted({b["budget"] for b in best if b["m"] > limit.m})
    if over:
        out.append(f"the best strategy at budget(s) {', '.join(map(str, over))} needs more than {limit.m} "
                   f"paraphrases per message ({limit.source}); pass `max_paraphrases={limit.m}` to plan within them")
    return out


def small_m_warnings(ms: Iterable[int], alpha: float, alternative: str,
                     holm: tuple[int, str] | None = None) -> list[str]:
    """One warning for the designs whose m is too small for the sign-flip test ever to reject. ``holm``: (number
    of tests, what they are) when the deciding p-value is Holm-adjusted over a family (a checkbox's options, every
    pair of k messages): Holm's first step is Bonferroni's, so nothing rejects unless alpha / tests can."""
    tests, what = holm if holm is not None and holm[0] > 1 else (1, "")
    level = alpha / tests
    small = sorted({m for m in ms if cannot_reject_note(m, level, alternative)})
    if not small:
        return []
    if tests > 1:
        m, side = max(small), "two-sided" if alternative == "two-sided" else "one-sided"
        p = smallest_pvalue(m, alternative)
        note = (f"with m = {m} paraphrase pairs and Holm over the {tests} {what} the sign-flip test cannot reject "
                f"at alpha = {alpha:g}: its smallest {side} p-value {p:.3g} times {tests} is {p * tests:.3g}; it "
                f"needs m >= {pairs_needed(level, alternative)}")
    else:
        note = cannot_reject_note(max(small), alpha, alternative)
    return [f"{note}; designs with m = {', '.join(map(str, small))} have power 0 with it whatever the effect"]
