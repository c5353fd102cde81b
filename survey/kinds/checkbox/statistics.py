"""Checkbox, message A vs B: per option the share of replies ticking it (the persona x paraphrase cell mean of
the option's indicator), the sign-flip test over paraphrase pairs per option (survey.stats.comparison), Holm's
adjustment across the options (survey.stats.multiplicity). The smallest Holm-adjusted p-value decides whether
the messages differ on any option (it controls the family-wise error over the options); the effect reported
with it is that option's difference of shares."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.stats.comparison import compare_messages
from survey.stats.effect import EffectResult
from survey.stats.multiplicity import adjust_pvalues


@dataclass
class OptionsTest:
    """The deciding test: the smallest Holm-adjusted sign-flip p-value over the options."""

    statistic: float
    pvalue: float
    option: str
    exact: bool
    method: str = "sign-flip test per option over paraphrase pairs, Holm-adjusted across the options"

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "option": self.option, "exact": self.exact,
                "method": self.method, "adjustment": "holm over the options"}


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
    unit = "share choosing (per option)"

    @property
    def decision(self) -> OptionsTest:
        return self.decision_test

    @property
    def pvalue(self) -> float:
        return self.decision_test.pvalue

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

    def display_parts(self):
        rows = [{"option": o["option"], f"share {self.a}": o["share_a"], f"share {self.b}": o["share_b"],
                 "difference": o["effect"].estimate, "p": o["pvalue"], "Holm p": o["holm"]} for o in self.per_option]
        title = (f"{self.model or 'checkbox'}: {self.a} vs {self.b}; smallest Holm p = {self.pvalue:.4g} "
                 f"('{self.decision_test.option}')")
        return title, rows, [f"{self.n_personas} personas, {self.n_paired} paraphrase pairs, r = {self.replicates}"]

    def to_dict(self) -> dict:
        return {"model": self.model, "a": self.a, "b": self.b, "scale": self.scale, "unit": self.unit,
                "options": list(self.options),
                "per_option": [{**o, "effect": o["effect"].to_dict()} for o in self.per_option],
                "effect": self.effect.to_dict(), "tests": {"sign_flip": self.decision_test.to_dict()},
                "n_personas": self.n_personas, "n_paired": self.n_paired, "replicates": self.replicates,
                "invalid": self.invalid}


def option_rows(df: pd.DataFrame, i: int) -> pd.DataFrame:
    """The rows with ``answer`` the indicator of option i (0-based) ticked; invalid replies stay empty."""
    ans = df["answer"].astype("Int64")
    return df.assign(answer=((ans // (1 << i)) % 2).astype("Int16"))


def compare_checkbox(df: pd.DataFrame, model: str, a: str, b: str, options: list[str], *, alternative="two-sided",
                     n_resamples=9999, seed=0, confidence=0.95, pairing=None, weights=None) -> CheckboxResult:
    rows = df[df["model"] == model]
    comps = [compare_messages(option_rows(rows, i), model, a, b, alternative=alternative, n_resamples=n_resamples,
                              seed=seed, confidence=confidence, pairing=pairing, weights=weights)
             for i in range(len(options))]
    raw = np.array([c.decision.pvalue for c in comps], dtype=float)
    holm = adjust_pvalues(raw, "holm")
    per = [{"option": o, "share_a": c.means[a], "share_b": c.means[b], "effect": c.effect, "pvalue": float(p),
            "holm": float(h)} for o, c, p, h in zip(options, comps, raw, holm, strict=True)]
    best = int(np.nanargmin(holm)) if np.isfinite(holm).any() else 0
    first = comps[best]
    test = OptionsTest(first.decision.statistic, float(holm[best]), options[best], first.decision.exact)
    return CheckboxResult(a, b, list(options), per, first.effect, test, first.n_personas, first.n_paired,
                          first.replicates, dict(first.invalid), comps, model=model)
