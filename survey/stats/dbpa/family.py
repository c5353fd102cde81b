"""Families of DBPA tests (Rauba, Wei & van der Schaar: many perturbations, TPR/FPR, alignment) and
the message comparison of a survey. No I/O.

- ``dbpa_family``: many perturbations (or models) against one base set of outputs, with
  Bonferroni, Holm or Benjamini-Hochberg adjustment (survey.stats.across_messages.adjust_pvalues).
- ``roc_from_pvalues``: TPR/FPR/AUC for user-labelled control and target perturbations
  (section 4.2 of the DBPA paper): "change detected" when p < alpha; AUC is the trapezoid over all thresholds.
- ``dbpa_alignment``: alignment with a reference model, i.e. ``dbpa_family`` with the reference's
  outputs as the base.
- ``compare_messages_dbpa``: message A vs B over personas x perturbations with whole perturbations
  as the permutation units, plus ``per_persona_dbpa`` (A vs B inside each persona, adjusted).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from survey.data.pairing import natural_key
from survey.errors import SurveyError
from survey.stats.dbpa.permutation import DBPAResult, dbpa_test, dbpa_units
from survey.stats.multiplicity import ADJUSTMENTS as CORRECTIONS
from survey.stats.multiplicity import adjust_pvalues  # Bonferroni, Holm, BH; checked against statsmodels

__all__ = ["CORRECTIONS", "FamilyResult", "RocResult", "adjust_pvalues", "compare_messages_dbpa",
           "dbpa_alignment", "dbpa_family", "per_persona_dbpa", "roc_from_pvalues"]


@dataclass
class FamilyResult:
    names: list[str]
    results: list[DBPAResult]
    adjusted: np.ndarray
    correction: str
    alpha: float
    roles: list[str | None] = field(default_factory=list)  # "control" / "target" / None
    roc: RocResult | None = None

    @property
    def rejected(self) -> np.ndarray:
        return self.adjusted < self.alpha

    def to_dict(self) -> dict:
        items = []
        for i, (name, r) in enumerate(zip(self.names, self.results, strict=True)):
            d = {"name": name, **r.to_dict(), "pvalue_adjusted": float(self.adjusted[i]),
                 "rejected": bool(self.rejected[i])}
            if self.roles and self.roles[i]:
                d["role"] = self.roles[i]
            items.append(d)
        out = {"correction": self.correction, "alpha": self.alpha, "tests": items}
        if self.roc is not None:
            out["roc"] = self.roc.to_dict()
        return out


def dbpa_family(base, others: dict, omega: str = "js", correction: str = "holm", alpha: float = 0.05,
                n_resamples: int = 1000, seed=None, roles: dict | None = None, progress=None,
                **options) -> FamilyResult:
    """One DBPA per entry of ``others`` ({name: embeddings}) against ``base`` (P0 = within base).

    Each test gets its own independent random stream (spawned from ``seed``). With ``roles``
    ({name: "control" | "target"}) the result also carries TPR/FPR/AUC of the raw p-values.
    """
    if not others:
        raise SurveyError("a family needs at least one perturbation (or model) to compare with the base")
    if not 0 < alpha < 1:
        raise SurveyError(f"alpha must be in (0, 1); got {alpha}")
    seeds = np.random.SeedSequence(seed).spawn(len(others))
    names, results = [], []
    for i, (name, emb) in enumerate(others.items()):
        results.append(dbpa_test(base, emb, omega=omega, n_resamples=n_resamples, seed=seeds[i], **options))
        names.append(str(name))
        if progress:
            progress(i + 1, len(others))
    adjusted = adjust_pvalues([r.pvalue for r in results], correction)
    role_list: list[str | None] = [None] * len(names)
    roc = None
    if roles:
        bad = {r for r in roles.values() if r not in ("control", "target")}
        if bad:
            raise SurveyError(f"roles must be 'control' or 'target'; got {', '.join(sorted(map(str, bad)))}")
        role_list = [roles.get(n) for n in names]
        pc = [r.pvalue for r, role in zip(results, role_list, strict=True) if role == "control"]
        pt = [r.pvalue for r, role in zip(results, role_list, strict=True) if role == "target"]
        if pc and pt:
            roc = roc_from_pvalues(pc, pt, alpha=alpha)
    return FamilyResult(names, results, adjusted, correction, alpha, role_list, roc)


def dbpa_alignment(reference, models: dict, **options) -> FamilyResult:
    """Alignment with a reference model (the DBPA paper's section 4.3): the same prompt answered by the reference
    (P0 = within the reference's outputs) and by each model in ``models`` ({name: embeddings}).
    A small p says the model's answers differ in meaning from the reference's."""
    return dbpa_family(reference, models, **options)


@dataclass
class RocResult:
    fpr: np.ndarray  # the ROC curve's vertices as alpha sweeps [0, 1]
    tpr: np.ndarray
    thresholds: np.ndarray  # alpha at each vertex ("change detected" when p < alpha)
    auc: float
    alpha: float
    fpr_at_alpha: float
    tpr_at_alpha: float
    n_control: int
    n_target: int

    def to_dict(self) -> dict:
        return {"auc": self.auc, "alpha": self.alpha, "fpr_at_alpha": self.fpr_at_alpha,
                "tpr_at_alpha": self.tpr_at_alpha, "n_control": self.n_control, "n_target": self.n_target,
                "curve": {"fpr": self.fpr.tolist(), "tpr": self.tpr.tolist(),
                          "alpha": [float(t) if np.isfinite(t) else None for t in self.thresholds]}}


def roc_from_pvalues(p_control, p_target, alpha: float = 0.05) -> RocResult:
    """FPR(a) = share of control p < a, TPR(a) = share of target p < a, over every threshold a.

    The vertices are the points just above each distinct p-value (plus a = 0); AUC is the
    trapezoid under them, which equals the ROC AUC of the score -p (ties count one half).
    """
    pc, pt = np.asarray(p_control, float), np.asarray(p_target, float)
    if len(pc) == 0 or len(pt) == 0:
        raise SurveyError("TPR/FPR need at least one control and one target perturbation")
    cuts = np.unique(np.concatenate([pc, pt]))
    fpr = np.concatenate([[0.0], (pc[None, :] <= cuts[:, None]).mean(axis=1)])
    tpr = np.concatenate([[0.0], (pt[None, :] <= cuts[:, None]).mean(axis=1)])
    thresholds = np.concatenate([[0.0], np.nextafter(cuts, np.inf)])
    auc = float(np.trapezoid(tpr, fpr))
    return RocResult(fpr, tpr, thresholds, auc, alpha, float((pc < alpha).mean()), float((pt < alpha).mean()),
                     len(pc), len(pt))


# --- the survey's message comparison -----------------------------------------------------------

def _units_of(perturbation, is_a) -> np.ndarray:
    """Perturbation ids of A and B may coincide ("p01"); a unit is (message, perturbation)."""
    return np.array([("A" if a else "B") + "\x1f" + str(p) for p, a in zip(perturbation, is_a, strict=True)])


def compare_messages_dbpa(emb, is_a, perturbation, omega: str = "js", unit: str = "perturbation",
                          scheme: str = "relabel", n_resamples: int = 1000, seed=None,
                          **options) -> DBPAResult:
    """A vs B (P0 = within A) over personas x perturbations.

    ``unit="perturbation"`` moves whole perturbations (valid when a paraphrase shifts every
    persona at once); ``scheme="swap"`` pairs perturbation j of A with perturbation j of B in
    natural order of their ids, "b2" before "b10" (the sign-flip analogue; survey.data.pairing).
    ``unit="output"`` relabels single outputs: oversized under shared perturbation effects,
    offered for comparison only.
    """
    is_a = np.asarray(is_a, dtype=bool)
    units = _units_of(perturbation, is_a)
    if unit == "output":
        return dbpa_units(emb, is_a, units, omega=omega, scheme="subset", n_resamples=n_resamples,
                          seed=seed, **options)
    if unit != "perturbation":
        raise SurveyError(f"unit must be 'perturbation' or 'output'; got '{unit}'")
    pairs = None
    if scheme == "swap":
        ua = sorted(dict.fromkeys(units[is_a]), key=natural_key)
        ub = sorted(dict.fromkeys(units[~is_a]), key=natural_key)
        pairs = list(zip(ua, ub, strict=False))
    return dbpa_units(emb, is_a, units, omega=omega, scheme=scheme, n_resamples=n_resamples, seed=seed,
                      pairs=pairs, **options)


def per_persona_dbpa(emb, is_a, perturbation, persona, omega: str = "js", correction: str = "holm",
                     alpha: float = 0.05, n_resamples: int = 1000, seed=None, progress=None,
                     **options) -> FamilyResult:
    """A vs B inside each persona (units = that persona's perturbations), adjusted across personas.

    Personas with fewer than 2 outputs of A or 1 of B are skipped (named in the error if none is left).
    """
    emb = np.asarray(emb)
    is_a = np.asarray(is_a, dtype=bool)
    perturbation = np.asarray(perturbation)
    persona = np.asarray(persona).astype(str)
    names = list(dict.fromkeys(persona.tolist()))
    seeds = np.random.SeedSequence(seed).spawn(len(names))
    kept, results = [], []
    for i, name in enumerate(names):
        m = persona == name
        if (is_a[m]).sum() >= 2 and (~is_a[m]).sum() >= 1:
            results.append(compare_messages_dbpa(emb[m], is_a[m], perturbation[m], omega=omega,
                                                 n_resamples=n_resamples, seed=seeds[i], **options))
            kept.append(name)
        if progress:
            progress(i + 1, len(names))
    if not results:
        raise SurveyError("no persona has at least 2 outputs of A and 1 of B")
    adjusted = adjust_pvalues([r.pvalue for r in results], correction)
    return FamilyResult(kept, results, adjusted, correction, alpha)
