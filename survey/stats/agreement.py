"""Do the models give the same answers? Per-cell labels, Cohen's and Fleiss' kappa.

The unit is a (message, persona, perturbation) cell. Each model's label for a cell is
- "p_yes": where the table has the exact-mode column ``p_yes`` for every valid row of the model,
  the cell's mean P(Yes) rounded at 0.5 (above: Yes, below: No, exactly 0.5: tie);
- "majority": otherwise the majority of the cell's valid answers over replicates (more Yes than
  No: Yes; fewer: No; equal, including a cell with no valid answer: tie).
Ties are explicit: by default (``ties="drop"``) a tied cell has no label, so it is left out of
every pair that involves that model, and Fleiss' kappa uses only the cells where every model has
a label. ``ties="no"`` or ``"yes"`` resolve them instead (reported in the result).

Kappa corrects percent agreement for the agreement expected by chance from each model's own
Yes-rate; with imbalanced answers high percent agreement can come with kappa near 0 (Liu, Qiu,
Lasko, Karakos, Yarmohammadi & Dredze, "Statistically Significant Results On Biases and Errors of LLMs
Do Not Guarantee Generalizable Results", NeurIPS 2025 demo, Table 1). kappa >= 0.6 is the usual bar
for strong agreement between human annotators (McHugh 2012, as used by Liu et al.); they found 0.118
on average between LLM judges. No interval is
given: cells share personas and perturbations, so a naive standard error would be too small.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.formatting import finite
from survey.data.table import models_in
from survey.errors import SurveyError
from survey.responses import BINARY

SOURCES = ("auto", "majority", "p_yes")
LABELS = {label.casefold(): float(value) for value, label in sorted(BINARY.labels.items())}  # no: 0, yes: 1
TIES = ("drop", *LABELS)
STRONG = 0.6
REFERENCE_LLM_JUDGES = 0.118  # Liu et al. (2025): mean Cohen's kappa between LLM judges
CELL = ["message", "persona", "perturbation"]


def interpret_kappa(kappa: float | None) -> str:
    if kappa is None or not np.isfinite(kappa):
        return "undefined"
    for bound, word in ((0.0, "below chance"), (0.2, "slight"), (0.4, "fair"), (STRONG, "moderate"),
                        (0.8, "strong")):
        if kappa < bound:
            return word
    return "very strong"


def cohen_kappa(x, y) -> float | None:
    """Cohen's kappa of two binary label vectors (equals sklearn.metrics.cohen_kappa_score).

    None when undefined: both raters give one and the same label everywhere (chance agreement 1).
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) != len(y) or len(x) == 0:
        raise SurveyError("Cohen's kappa needs two label vectors of the same non-zero length")
    po = float(np.mean(x == y))
    px, py = float(x.mean()), float(y.mean())
    pe = px * py + (1 - px) * (1 - py)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


def fleiss_kappa(labels) -> float | None:
    """Fleiss' kappa of an (items, raters) binary matrix without missing labels.

    Equals statsmodels.stats.inter_rater.fleiss_kappa on the (items, 2) count table; None when
    every label is the same (chance agreement 1).
    """
    L = np.asarray(labels, dtype=float)
    if L.ndim != 2 or L.shape[1] < 2 or L.shape[0] == 0:
        raise SurveyError("Fleiss' kappa needs at least one item rated by at least 2 raters")
    n = L.shape[1]
    yes = L.sum(axis=1)
    counts = np.stack([n - yes, yes], axis=1)
    p_item = ((counts ** 2).sum(axis=1) - n) / (n * (n - 1))
    p_cat = counts.sum(axis=0) / counts.sum()
    pe = float((p_cat ** 2).sum())
    if pe >= 1.0:
        return None
    return (float(p_item.mean()) - pe) / (1 - pe)


def cell_labels(df: pd.DataFrame, models: list[str] | None = None, messages: list[str] | None = None,
                source: str = "auto", ties: str = "drop") -> tuple[pd.DataFrame, dict, dict]:
    """(labels, source per model, ties per model): labels has one row per cell, one column per model,
    values 1.0 (Yes), 0.0 (No) or NaN (tie or no label)."""
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
    has_p = "p_yes" in sub.columns
    cols, sources, n_ties = {}, {}, {}
    for model in models:
        rows = sub[sub["model"] == model]
        if rows.empty:
            raise SurveyError(f"model '{model}' has no rows for these messages")
        valid = rows[rows["answer"].notna()]
        exact = has_p and len(valid) > 0 and bool(pd.to_numeric(valid["p_yes"], errors="coerce").notna().all())
        if source == "p_yes" and not exact:
            raise SurveyError(f"model '{model}' has no p_yes for every valid answer (exact mode); "
                              "use source 'majority'")
        use_p = exact and source != "majority"
        if use_p:
            p = pd.to_numeric(valid["p_yes"]).groupby([valid[c] for c in CELL], sort=False).mean()
            score = np.sign(p - 0.5)
        else:
            ans = rows["answer"].astype("Float64")
            g = pd.DataFrame({"yes": (ans == 1).fillna(False).astype(int), "no": (ans == 0).fillna(False).astype(int)})
            g = g.groupby([rows[c] for c in CELL], sort=False).sum()
            score = np.sign(g["yes"] - g["no"])
        lab = score.map({1: 1.0, -1: 0.0, 0: np.nan}).astype(float)
        n_ties[model] = int(lab.isna().sum())
        if ties != "drop":
            lab = lab.fillna(LABELS[ties])
        cols[model] = lab
        sources[model] = "p_yes" if use_p else "majority"
    labels = pd.DataFrame(cols)  # outer join on cells: a cell one model never saw is NaN for it
    labels.index.names = CELL
    return labels, sources, n_ties


@dataclass
class PairAgreement:
    model_a: str
    model_b: str
    n_cells: int
    agreement: float  # proportion of cells with the same label
    kappa: float | None

    def to_dict(self) -> dict:
        return {"model_a": self.model_a, "model_b": self.model_b, "n_cells": self.n_cells,
                "agreement": finite(self.agreement), "kappa": finite(self.kappa),
                "interpretation": interpret_kappa(self.kappa),
                "strong": self.kappa is not None and self.kappa >= STRONG}


@dataclass
class AgreementResult:
    models: list[str]
    sources: dict  # model -> "p_yes" | "majority"
    ties: str
    n_ties: dict  # model -> tied (or unanswered) cells
    n_cells: int  # cells in the table (any model)
    n_cells_all: int  # cells labelled by every model (Fleiss' kappa uses these)
    pairs: list[PairAgreement]
    fleiss_kappa: float | None
    labels: pd.DataFrame = field(repr=False)
    notes: list[str] = field(default_factory=list)  # why a kappa is degenerate, in words

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
                "strong_bar": STRONG, "reference_llm_judges_kappa": REFERENCE_LLM_JUDGES, "notes": self.notes}



def model_agreement(df: pd.DataFrame, models: list[str] | None = None, messages: list[str] | None = None,
                    source: str = "auto", ties: str = "drop") -> AgreementResult:
    """Pairwise percent agreement and Cohen's kappa, and Fleiss' kappa, of the models' cell labels."""
    labels, sources, n_ties = cell_labels(df, models, messages, source, ties)
    names = list(labels.columns)
    if len(names) < 2:
        raise SurveyError("agreement needs at least 2 models")
    pairs = []
    for ma, mb in itertools.combinations(names, 2):
        both = labels[[ma, mb]].dropna()
        if both.empty:
            pairs.append(PairAgreement(ma, mb, 0, float("nan"), None))
            continue
        x, y = both[ma].to_numpy(), both[mb].to_numpy()
        pairs.append(PairAgreement(ma, mb, len(both), float(np.mean(x == y)), cohen_kappa(x, y)))
    full = labels.dropna()
    fk = fleiss_kappa(full.to_numpy()) if len(full) else None
    return AgreementResult(names, sources, ties, n_ties, len(labels), len(full), pairs, fk, labels,
                           _constant_label_notes(labels))


def _constant_label_notes(labels: pd.DataFrame) -> list[str]:
    """A model that gives one label in every cell makes kappa degenerate: chance agreement then equals
    observed agreement (kappa = 0) or is undefined, whatever the other model does. Say so, since a kappa
    of 0 next to 0% agreement otherwise reads as a contradiction."""
    notes = []
    for model in labels.columns:
        values = labels[model].dropna().unique()
        if len(values) == 1:
            word = BINARY.labels.get(int(values[0]), str(values[0]))
            notes.append(f"model '{model}' gives the same label ({word}) in every cell, so Cohen's and Fleiss' "
                         "kappa are degenerate for it (0, negative or undefined whatever the other models say); "
                         "read the percent agreement instead")
    return notes
