"""The numeric question's analysis: the persona x paraphrase cell mean of the numbers (or of log(1 + value), or
winsorized: the scale's ``summary``) through every A/B test of survey.stats.comparison, the sign-flip test over
paraphrase pairs deciding; the effect in the question's unit (log units for the log summary)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from survey.errors import SurveyError
from survey.kinds.numeric.parsing import TRIM, from_name, number_text
from survey.kinds.numeric.power import NumericPlan, draw_cells
from survey.stats.comparison import compare_messages, mean_interval
from survey.stats.kinds.base import Kind


def summarised_rows(df: pd.DataFrame, model: str, a: str, b: str, summary: str) -> pd.DataFrame:
    """The model's rows with ``answer`` as the cell mean averages it: log(1 + value), or winsorized at the TRIM
    quantiles of both messages' valid answers pooled (so swapping the messages leaves the cut points alone, as
    the sign-flip test's null needs)."""
    if summary == "mean":
        return df
    rows = df[df["model"] == model].copy()
    ans = rows["answer"].astype("Float64")
    if summary == "log":
        rows["answer"] = np.log1p(ans)
    else:
        pooled = ans[rows["message"].isin([a, b])].dropna().astype(float)
        lo, hi = (np.quantile(pooled, [TRIM, 1 - TRIM]) if len(pooled) else (np.nan, np.nan))
        rows["answer"] = ans.clip(lo, hi)
    return rows


def table_unit(df: pd.DataFrame) -> str | None:
    """What the number counts ("US dollars"), from the rows' ``unit`` column (a run stores the question's); None
    when the rows do not say."""
    if "unit" not in df:
        return None
    named = [str(u) for u in df["unit"].dropna() if str(u).strip()]
    return named[0] if named else None


def unit_words(df: pd.DataFrame, view) -> tuple[str, str]:
    """(what the effect is a difference of, what one unit of it is called): the question's unit where the rows
    name it, else the range ("on the 0–300 scale", never the scale's code name); log units for the log summary."""
    unit = table_unit(df)
    summary = from_name(view.scale).summary
    low, high = (number_text(x) for x in view.points)
    if summary == "log":
        return (f"{view.quantity}, value in {unit}" if unit else f"{view.quantity}, value on the {low}–{high} scale",
                "log(1 + value) units")
    if unit:
        return f"{view.quantity} in {unit}", unit
    return f"{view.quantity} on the {low}–{high} scale", f"on the {low}–{high} scale"


class Numeric(Kind):
    name = "numeric"
    weighted = True
    cell_label = "mean"

    def compare(self, df, model, a, b, view, opts):
        if opts.probabilities:
            raise SurveyError(f"scale '{view.scale}' has no exact mode (no distribution over the numbers is read): "
                              "compare the answers")
        rows = summarised_rows(df, model, a, b, from_name(view.scale).summary)
        c = compare_messages(rows, model, a, b, alternative=opts.alternative, n_resamples=opts.flips,
                             seed=opts.seed, confidence=opts.confidence, pairing=opts.pairing, weights=opts.weights)
        return replace(c, unit=unit_words(df, view)[0],
                       mean_scores={m: mean_interval(c.theta_bar[m], c.effect.confidence, view.low, view.high)
                                    for m in (a, b)})

    def measured_in(self, df, view):
        return unit_words(df, view)

    def simulate(self, view, n, m, r, *, delta=0.0, sigma=1.0, rho=0.3, tau=1.0, seed=None, m_b=None,
                 messages=("A", "B"), model="simulated", **rest):
        if rest:
            raise SurveyError(f"a numeric simulation takes delta, sigma, rho, tau; got {', '.join(rest)}")
        plan = NumericPlan(delta, view.scale, sigma, rho, tau)
        xa, xb = draw_cells(plan, n, m, m if m_b is None else m_b, r, np.random.default_rng(seed))
        frames = []
        for msg, x in zip(messages, (xa[0], xb[0]), strict=True):
            ii, jj, kk = np.meshgrid(*(np.arange(s) for s in x.shape), indexing="ij")
            frames.append(pd.DataFrame({"model": model, "message": msg,
                                        "perturbation": [f"{msg}-{j + 1:02d}" for j in jj.ravel()],
                                        "persona": [f"P{i + 1:03d}" for i in ii.ravel()], "replicate": kk.ravel(),
                                        "answer": x.ravel(), "scale": view.scale}))
        out = pd.concat(frames, ignore_index=True)
        out["answer"] = out["answer"].astype("Float64")
        return out

    def plan_params(self, view, delta, *, sigma=None, rho=None, tau=None, positions=None, messages=None):
        if positions is not None or messages is not None:
            raise SurveyError("--positions and --messages belong to pickK, maxdiffS and choice scales")
        return NumericPlan(float(delta), view.scale, sigma, rho, tau)

    def effect_words(self, view, a, b):
        return f"effect = {view.of(a)} − {view.of(b)}, in the question's unit"

    def label_words(self, view, source):
        return f"each cell's {source} number"


NUMERIC = Numeric()
