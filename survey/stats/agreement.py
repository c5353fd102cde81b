"""Do the models give the same answers? Per-cell labels, Cohen's (weighted on rating scales) and Fleiss' kappa.

The unit is a (message, persona, perturbation) cell. Each model's label for a cell is the scale point
nearest the cell's mean score:
- "p_yes" (exact mode, where the table has the exact expected score, ``expected`` or ``p_yes``, for
  every valid row of the model): the mean expected score; for Yes/No the mean P(Yes) rounded at 0.5;
- "majority" otherwise: the mean of the cell's valid answers over replicates; for Yes/No the majority
  answer (more Yes than No: Yes; fewer: No).
A mean exactly halfway between two points is a tie (as many Yes as No), and so is a cell without a
valid answer. Ties are explicit: by default (``ties="drop"``) a tied cell has no label, so it is left
out of every pair that involves that model, and Fleiss' kappa uses only the cells where every model
has a label. ``ties="no"``/``"low"`` or ``"yes"``/``"high"`` resolve a tie to the lower or higher of
the two points (reported in the result); an unanswered cell then becomes the scale's lowest or highest
point on a two-point scale (No or Yes, as before) and stays unlabelled on a longer scale, where no
two neighbours are tied. On a rating scale the labels are scores; on forced choice the position chosen.

Kappa corrects percent agreement for the agreement expected by chance from each model's own
label rates; with imbalanced answers high percent agreement can come with kappa near 0 (Liu, Qiu,
Lasko, Karakos, Yarmohammadi & Dredze, "Statistically Significant Results On Biases and Errors of LLMs
Do Not Guarantee Generalizable Results", NeurIPS 2025 demo, Table 1). kappa >= 0.6 is the usual bar
for strong agreement between human annotators (McHugh 2012, as used by Liu et al.); they found 0.118
on average between LLM judges. No interval is
given: cells share personas and perturbations, so a naive standard error would be too small.

On a rating scale (an ordinal response type) a 4 against a 5 is a smaller disagreement than a 1
against a 5, so Cohen's kappa is weighted (Cohen 1968, "Weighted kappa: Nominal scale agreement with
provision for scaled disagreement or partial credit"): disagreement between points i and j, counted
by their rank on the scale, costs |i - j| ("linear") or (i - j)^2 ("quadratic"). The default
("auto") is quadratic on rating scales: quadratic-weighted kappa equals the intraclass correlation of
the scores up to a term of order 1/cells (Fleiss & Cohen 1973, "The equivalence of weighted kappa and
the intraclass correlation coefficient as measures of reliability"), so it reads the points as
numbers, as the mean-score tests of this package do. Choose "linear" when only the order of the
points is trusted, "none" for exact agreement only. Every point of the scale counts, also those no
model used (sklearn's ``labels=``), so the distance from 1 to 5 is 4 on a 5-point scale whatever was
answered. Yes/No and forced choice have two categories, where every weighting gives the same
(unweighted) kappa. Fleiss' kappa has no weights: on a rating scale it counts any two different
points as a disagreement (said in the notes); the mean pairwise weighted kappa is the ordinal summary.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.formatting import finite
from survey.data.table import expected_column, models_in
from survey.errors import SurveyError
from survey.responses import BINARY, DEFAULT_SCALE, response_type
from survey.stats.kinds import kind_of

SOURCES = ("auto", "majority", "p_yes", "mean", "expected")  # majority = mean, p_yes = expected (Yes/No names)
_EXACT = ("p_yes", "expected")
TIE_SIDES = {"no": "low", "yes": "high", "low": "low", "high": "high"}  # Yes/No words and rating-scale words
TIES = ("drop", *TIE_SIDES)
WEIGHTS = ("auto", "none", "linear", "quadratic")
STRONG = 0.6
REFERENCE_LLM_JUDGES = 0.118  # Liu et al. (2025): mean Cohen's kappa between LLM judges
CELL = ["message", "persona", "perturbation"]
_HALF = 1e-9  # means within this of halfway between two points are ties (scores are fractions of r)


def interpret_kappa(kappa: float | None) -> str:
    if kappa is None or not np.isfinite(kappa):
        return "undefined"
    for bound, word in ((0.0, "below chance"), (0.2, "slight"), (0.4, "fair"), (STRONG, "moderate"),
                        (0.8, "strong")):
        if kappa < bound:
            return word
    return "very strong"


def _weight_matrix(k: int, weights: str | None) -> np.ndarray:
    rank = np.arange(k, dtype=float)
    if weights in (None, "none"):
        return 1.0 - np.eye(k)
    if weights == "linear":
        return np.abs(rank[:, None] - rank[None, :])
    if weights == "quadratic":
        return (rank[:, None] - rank[None, :]) ** 2
    raise SurveyError(f"kappa weights must be one of none, linear, quadratic; got '{weights}'")


def cohen_kappa(x, y, weights: str | None = None, labels=None) -> float | None:
    """Cohen's kappa of two label vectors, unweighted or weighted ("linear", "quadratic") by the rank
    distance of the labels; equals sklearn.metrics.cohen_kappa_score(x, y, labels=labels, weights=weights).

    ``labels``: the ordered categories (default: those either rater used, sorted); pairs with a label
    outside them are left out, as sklearn does. Give a scale's every point so that unused points
    count in the distances. None when undefined: both raters give one and the same label everywhere
    (chance disagreement 0).
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) != len(y) or len(x) == 0:
        raise SurveyError("Cohen's kappa needs two label vectors of the same non-zero length")
    cats = np.unique(np.concatenate([x, y])) if labels is None else np.asarray(labels, dtype=float)
    index = {c: i for i, c in enumerate(cats.tolist())}
    ix = np.array([index.get(v, -1) for v in x.tolist()])
    iy = np.array([index.get(v, -1) for v in y.tolist()])
    keep = (ix >= 0) & (iy >= 0)
    if not keep.any():
        raise SurveyError("Cohen's kappa: no pair of labels lies within the given labels")
    k = len(cats)
    observed = np.zeros((k, k))
    np.add.at(observed, (ix[keep], iy[keep]), 1.0)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    w = _weight_matrix(k, weights)
    chance = float((w * expected).sum())
    if chance == 0.0:  # a sum of non-negative terms: exactly 0 when every label is the same one
        return None
    return 1.0 - float((w * observed).sum()) / chance


def fleiss_kappa(labels, categories=None) -> float | None:
    """Fleiss' kappa of an (items, raters) label matrix without missing labels (any categories).

    Equals statsmodels.stats.inter_rater.fleiss_kappa on the (items, categories) count table of
    aggregate_raters; None when every label is the same (chance agreement 1). Unweighted (nominal).
    """
    L = np.asarray(labels, dtype=float)
    if L.ndim != 2 or L.shape[1] < 2 or L.shape[0] == 0:
        raise SurveyError("Fleiss' kappa needs at least one item rated by at least 2 raters")
    n = L.shape[1]
    cats = np.unique(L) if categories is None else np.asarray(categories, dtype=float)
    counts = (L[:, :, None] == cats[None, None, :]).sum(axis=1)
    p_item = ((counts ** 2).sum(axis=1) - n) / (n * (n - 1))
    p_cat = counts.sum(axis=0) / counts.sum()
    pe = float((p_cat ** 2).sum())
    if pe >= 1.0:
        return None
    return (float(p_item.mean()) - pe) / (1 - pe)


def table_scale(df: pd.DataFrame):
    """The response type of the rows (the ``scale`` column; Yes/No without one); one scale only."""
    scales = sorted(pd.unique(df["scale"].astype(str))) if "scale" in df.columns else [DEFAULT_SCALE]
    if len(scales) != 1:
        raise SurveyError(f"agreement compares answers on one scale; these rows mix {', '.join(scales)}")
    rtype = response_type(scales[0])
    if not rtype.scored:
        raise SurveyError(f"'{rtype.scale}' replies have no score to agree on; agreement needs scored answers")
    return rtype


def nearest_point(mean: pd.Series, points: np.ndarray, tie: str | None = None) -> pd.Series:
    """The scale point nearest each mean score; NaN for a mean halfway between two points (unless
    ``tie`` is "low" or "high": the lower or higher of the two) and for a missing mean."""
    v = mean.to_numpy(dtype=float)
    hi_i = np.clip(np.searchsorted(points, v), 1, len(points) - 1)
    lo, hi = points[hi_i - 1], points[hi_i]
    d_lo, d_hi = np.abs(v - lo), np.abs(hi - v)
    out = np.where(d_lo < d_hi, lo, hi)
    halfway = np.abs(d_lo - d_hi) <= _HALF * (hi - lo)
    out = np.where(halfway, {"low": lo, "high": hi}.get(tie, np.nan), out)
    return pd.Series(np.where(np.isnan(v), np.nan, out), index=mean.index)


def cell_labels(df: pd.DataFrame, models: list[str] | None = None, messages: list[str] | None = None,
                source: str = "auto", ties: str = "drop") -> tuple[pd.DataFrame, dict, dict]:
    """(labels, source per model, ties per model): labels has one row per cell, one column per model,
    values the cell's scale point (1.0 Yes, 0.0 No for Yes/No) or NaN (tie or no label)."""
    if source not in SOURCES:
        raise SurveyError(f"source must be one of {', '.join(SOURCES)}; got '{source}'")
    if ties not in TIES:
        raise SurveyError(f"ties must be one of {', '.join(TIES)}; got '{ties}'")
    models = models_in(df) if models is None else list(models)
    sub = df[df["model"].isin(models)]
    if messages is not None:
        sub = sub[sub["message"].isin(messages)]
    if sub.empty:
        raise SurveyError("no rows for these models and messages")
    rtype = table_scale(sub)
    points = np.array(sorted(rtype.values), dtype=float)
    kind = kind_of(rtype.view)
    names = (kind.exact_column, kind.cell_label)  # Yes/No: P(Yes) or the majority; scales: expected or mean
    side = TIE_SIDES.get(ties)
    cols, sources, n_ties = {}, {}, {}
    for model in models:
        rows = sub[sub["model"] == model]
        if rows.empty:
            raise SurveyError(f"model '{model}' has no rows for these messages")
        valid = rows[rows["answer"].notna()]
        expected = expected_column(valid) if len(valid) else None
        exact = expected is not None and bool(expected.notna().all())
        if source in _EXACT and not exact:
            raise SurveyError(f"model '{model}' has no exact expected score ({source}) for every valid answer "
                              f"(exact mode); use source '{names[1]}'")
        use_p = exact and source not in ("majority", "mean")
        if use_p:
            mean = expected.groupby([valid[c] for c in CELL], sort=False).mean()
        else:  # every cell of the model, also those without a valid answer (mean NaN: a tie)
            ans = rows["answer"].astype("Float64").astype(float)
            mean = ans.groupby([rows[c] for c in CELL], sort=False).mean()
        lab = nearest_point(mean, points)
        n_ties[model] = int(lab.isna().sum())
        if side is not None:
            lab = lab.fillna(nearest_point(mean, points, side))
            if len(points) == 2:  # an unanswered cell: No or Yes, as asked (no neighbours on a longer scale)
                lab = lab.fillna(points[0] if side == "low" else points[-1])
        cols[model] = lab
        sources[model] = names[0] if use_p else names[1]
    labels = pd.DataFrame(cols)  # outer join on cells: a cell one model never saw is NaN for it
    labels.index.names = CELL
    return labels, sources, n_ties


@dataclass
class PairAgreement:
    model_a: str
    model_b: str
    n_cells: int
    agreement: float  # proportion of cells with the same label
    kappa: float | None  # Cohen's kappa, weighted as the result's ``weights`` say

    def to_dict(self) -> dict:
        return {"model_a": self.model_a, "model_b": self.model_b, "n_cells": self.n_cells,
                "agreement": finite(self.agreement), "kappa": finite(self.kappa),
                "interpretation": interpret_kappa(self.kappa),
                "strong": self.kappa is not None and self.kappa >= STRONG}


@dataclass
class AgreementResult:
    models: list[str]
    sources: dict  # model -> "p_yes" | "majority" (Yes/No), "expected" | "mean" (other scales)
    ties: str
    n_ties: dict  # model -> tied (or unanswered) cells
    n_cells: int  # cells in the table (any model)
    n_cells_all: int  # cells labelled by every model (Fleiss' kappa uses these)
    pairs: list[PairAgreement]
    fleiss_kappa: float | None
    labels: pd.DataFrame = field(repr=False)
    notes: list[str] = field(default_factory=list)  # why a kappa is degenerate, in words
    scale: str = DEFAULT_SCALE
    weights: str = "none"  # of the pairwise kappas: "none", "linear" or "quadratic"

    @property
    def kappa_name(self) -> str:
        """"Cohen kappa", or "weighted kappa (quadratic)" on a rating scale."""
        return "Cohen kappa" if self.weights == "none" else f"weighted kappa ({self.weights})"

    @property
    def mean_kappa(self) -> float | None:
        ks = [p.kappa for p in self.pairs if p.kappa is not None]
        return float(np.mean(ks)) if ks else None

    def matrix(self, what: str = "kappa") -> pd.DataFrame:
        """Symmetric model x model matrix of "kappa" or "agreement" (diagonal: 1)."""
        out = pd.DataFrame(np.eye(len(self.models)), index=self.models, columns=self.models)
        for p in self.pairs:
            v = getattr(p, what)
            out.loc[p.model_a, p.model_b] = out.loc[p.model_b, p.model_a] = np.nan if v is None else v
        return out

    def to_dict(self) -> dict:
        return {"models": self.models, "sources": self.sources, "ties": self.ties, "n_ties": self.n_ties,
                "n_cells": self.n_cells, "n_cells_all_models": self.n_cells_all,
                "pairs": [p.to_dict() for p in self.pairs], "mean_pairwise_kappa": finite(self.mean_kappa),
                "fleiss_kappa": finite(self.fleiss_kappa),
                "fleiss_interpretation": interpret_kappa(self.fleiss_kappa),
                "strong_bar": STRONG, "reference_llm_judges_kappa": REFERENCE_LLM_JUDGES, "notes": self.notes,
                "scale": self.scale, "weights": self.weights, "kappa": self.kappa_name}


def resolve_weights(weights: str, rtype) -> str:
    """"auto" -> "quadratic" on a rating scale, "none" otherwise; other names are checked and kept
    (on two categories every weighting gives the unweighted kappa)."""
    if weights not in WEIGHTS:
        raise SurveyError(f"kappa weights must be one of {', '.join(WEIGHTS)}; got '{weights}'")
    if weights == "auto":
        return "quadratic" if rtype.ordered else "none"
    return weights


def model_agreement(df: pd.DataFrame, models: list[str] | None = None, messages: list[str] | None = None,
                    source: str = "auto", ties: str = "drop", weights: str = "auto") -> AgreementResult:
    """Pairwise percent agreement and Cohen's kappa (weighted on rating scales, see the module), and
    Fleiss' kappa, of the models' cell labels. ``weights``: "auto", "none", "linear" or "quadratic"."""
    if weights not in WEIGHTS:
        raise SurveyError(f"kappa weights must be one of {', '.join(WEIGHTS)}; got '{weights}'")
    labels, sources, n_ties = cell_labels(df, models, messages, source, ties)
    rows = df[df["model"].isin(labels.columns)]
    rtype = table_scale(rows if messages is None else rows[rows["message"].isin(messages)])
    weights = resolve_weights(weights, rtype)
    names = list(labels.columns)
    if len(names) < 2:
        raise SurveyError("agreement needs at least 2 models")
    points = sorted(rtype.values)  # every point counts in the weights, also those nobody answered
    pairs = []
    for ma, mb in itertools.combinations(names, 2):
        both = labels[[ma, mb]].dropna()
        if both.empty:
            pairs.append(PairAgreement(ma, mb, 0, float("nan"), None))
            continue
        x, y = both[ma].to_numpy(), both[mb].to_numpy()
        pairs.append(PairAgreement(ma, mb, len(both), float(np.mean(x == y)), cohen_kappa(x, y, weights, points)))
    full = labels.dropna()
    fk = fleiss_kappa(full.to_numpy()) if len(full) else None
    notes = _constant_label_notes(labels, rtype)
    if rtype.ordered:
        notes.append(f"Fleiss' kappa is unweighted: it counts any two different points of the {rtype.scale} scale "
                     f"as a disagreement; the pairwise {_kappa_words(weights)} read the scale's order")
    return AgreementResult(names, sources, ties, n_ties, len(labels), len(full), pairs, fk, labels, notes,
                           rtype.scale, weights)


def _kappa_words(weights: str) -> str:
    return "Cohen's kappas" if weights == "none" else f"{weights}-weighted kappas"


def _constant_label_notes(labels: pd.DataFrame, rtype=BINARY) -> list[str]:
    """A model that gives one label in every cell makes kappa degenerate: chance agreement then equals
    observed agreement (kappa = 0) or is undefined, whatever the other model does. Say so, since a kappa
    of 0 next to 0% agreement otherwise reads as a contradiction."""
    notes = []
    for model in labels.columns:
        values = labels[model].dropna().unique()
        if len(values) == 1:
            word = rtype.labels.get(int(values[0]), str(values[0]))
            notes.append(f"model '{model}' gives the same label ({word}) in every cell, so Cohen's and Fleiss' "
                         "kappa are degenerate for it (0, negative or undefined whatever the other models say); "
                         "read the percent agreement instead")
    return notes
