"""Are the effects of message A over B equal across models? (docs/comparing.md)

Data: D_kj = mean_i(theta_ij^A - theta_ij^B) for model k and perturbation pair j, the unit the
sign-flip test already uses per model. Effect T_k = mean_j D_kj. H0: E[T_1] = ... = E[T_K].

Shared perturbations (the usual case: one study, several models). The models then answer the
SAME paraphrases, so D_1j..D_Kj are correlated through the shared shift u_j; personas inside a
pair are correlated too (rho > 0). The pairs j, however, are independent given the personas, so
the unit of resampling is the whole vector D_.j. Statistic: the between-model variance of the
per-model effects, S = sum_k (T_k - T_bar)^2 / (K - 1), which only depends on the centred
contrasts c_j = D_.j - mean_k(D_kj). Under H0 each c_j has mean zero, and under the global null
(every model indifferent) swapping the A and B perturbation of pair j turns c_j into -c_j exactly,
so flipping the sign of whole contrast vectors, one sign per pair, is exact. With a common effect
delta != 0 it is asymptotically exact: the sign-flip distribution of sum_j eps_j c_j has
covariance sum_j c_j c_j', which estimates the true covariance of the contrasts whatever each
model's variance and whatever the cross-model correlation.

Why not permute the model labels within each pair (the obvious alternative): that is exact only
if the K entries of D_.j are exchangeable, i.e. the models are identically distributed. Real
models differ hugely in base rate and spread (Helm & Priebe 2026, Table 1), and equal effects do not make
them exchangeable; in simulation (docs/comparing.md: 4 models with unequal spreads, 1000 runs)
label permutation rejected 7.6% at alpha = 5%, the sign-flip test 4.4%.

Independent perturbations (each model had its own paraphrases): the T_k are independent, each a
mean of its own m_k independent pair differences, so Welch's heteroscedastic one-way ANOVA on the
D_kj (units = perturbation pairs, never personas) is valid approximately (normal theory; it is
asymptotically valid as every m_k grows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from survey.common.formatting import finite
from survey.errors import SurveyError

# What "the effects differ across models" rejects: said wherever the flag is shown.
HETEROGENEITY_NULL = ("equal effects on the probability scale (every model's mean P(Yes|A) − P(Yes|B) the "
                      "same); equal effects on the logit scale can differ here when base rates differ")

EXACT_MAX_M = 17  # 2^(m-1) sign vectors (eps and -eps give the same S): 65536 at m = 17


@dataclass
class HeterogeneityResult:
    statistic: float  # between-model variance of the effects (sign-flip) or Welch's F
    pvalue: float
    method: str  # "sign-flip (shared perturbations)" or "welch anova (independent perturbations)"
    shared: bool
    n_models: int
    n_pairs: int | dict  # shared pairs used, or pairs per model when independent
    effects: dict  # model -> effect on the pairs used
    exact: bool
    n_resamples: int
    note: str = ""
    df: tuple | None = None  # Welch's (df1, df2)
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    # a family of parts (a checkbox's options): each part's test across the models, Holm across the parts; the
    # statistic, p-value (Holm-adjusted) and effects above are the deciding part's
    parts: list[dict] | None = None
    part: str | None = None
    part_word: str = "option"

    def to_dict(self) -> dict:
        out = {"statistic": finite(self.statistic), "pvalue": finite(self.pvalue), "method": self.method,
               "shared_perturbations": self.shared, "n_models": self.n_models, "n_pairs": self.n_pairs,
               "effects": {k: finite(v) for k, v in self.effects.items()}, "exact": self.exact,
               "n_resamples": self.n_resamples, "df": None if self.df is None else list(self.df),
               "note": self.note, "null": HETEROGENEITY_NULL}
        if self.parts is not None:
            w = self.part_word
            out.update({w: self.part, f"per_{w}": [{k: finite(v) if isinstance(v, float) else v for k, v in x.items()}
                                                   for x in self.parts], "adjustment": f"holm over the {w}s",
                        "statistic_meaning": (f"on each {w}: " + (
                            "the difference of the two models' effects" if self.n_models == 2 else
                            "the sum over models of (effect − mean effect)^2") if self.shared else
                                              f"Welch's F on each {w}")})
        return out

    def in_words(self) -> str:
        """The p-value as a sentence reads it: "p = 0.14", or for a family "p = 0.14 (the smallest Holm p over the
        4 options, option 'stylish')"."""
        if self.parts is None:
            return f"p = {self.pvalue:.3g}"
        return (f"p = {self.pvalue:.3g}, the smallest Holm p over the {len(self.parts)} {self.part_word}s, "
                f"{self.part_word} '{self.part}'")



def _signs_exact(m: int) -> np.ndarray:
    """All 2^(m-1) sign vectors with eps_1 = +1 (the other half mirrors them)."""
    codes = np.arange(2 ** (m - 1), dtype=np.int64)[:, None]
    bits = (codes >> np.arange(m - 1)) & 1
    return np.hstack([np.ones((len(codes), 1)), 1.0 - 2.0 * bits])


def sign_flip_heterogeneity(D, models: list[str] | None = None, n_resamples: int = 9999, seed=0,
                            method: str = "auto", chunk: int = 8192) -> HeterogeneityResult:
    """Test equal effects across models sharing perturbation pairs: D is (K models, m pairs), no NaN.

    Exact (all sign vectors) when m <= 17 or ``method="exact"``; otherwise p = (1 + count) / (1 + B)
    over B random sign vectors (a valid p-value).
    """
    D = np.asarray(D, dtype=float)
    if D.ndim != 2 or D.shape[0] < 2:
        raise SurveyError("the heterogeneity test needs a (models x pairs) matrix with at least 2 models")
    if np.isnan(D).any():
        raise SurveyError("the heterogeneity test needs every model's difference on every shared pair")
    K, m = D.shape
    if m < 2:
        raise SurveyError("the heterogeneity test needs at least 2 shared perturbation pairs")
    if method not in ("auto", "exact", "monte-carlo"):
        raise SurveyError(f"method must be auto, exact or monte-carlo; got '{method}'")
    models = models or [f"model {k + 1}" for k in range(K)]
    C = D - D.mean(axis=0, keepdims=True)  # centred contrasts c_j (columns)
    obs = float((C.sum(axis=1) ** 2).sum())
    scale = float(np.abs(C).sum()) ** 2
    gamma = 1e-9 * scale  # exact ties (theta are fractions of r) must count as ties
    exact = method == "exact" or (method == "auto" and m <= EXACT_MAX_M)
    if exact and m > 24:
        raise SurveyError(f"an exact heterogeneity test with m = {m} pairs would take too long; use monte-carlo")
    if exact:
        signs, plus = _signs_exact(m), 0
    else:
        rng = np.random.default_rng(seed)
        signs, plus = (rng.integers(0, 2, size=(int(n_resamples), m)) * 2 - 1).astype(float), 1
    null = np.empty(len(signs))
    for start in range(0, len(signs), chunk):
        null[start:start + chunk] = ((signs[start:start + chunk] @ C.T) ** 2).sum(axis=1)
    count = int(np.count_nonzero(null >= obs - gamma))
    pvalue = (count + plus) / (len(signs) + plus)
    to_var = 1.0 / (m * m * (K - 1))  # sum_k (T_k - T_bar)^2 / (K - 1) = S_raw / (m^2 (K - 1))
    return HeterogeneityResult(
        statistic=obs * to_var, pvalue=float(min(pvalue, 1.0)), method="sign-flip (shared perturbations)",
        shared=True, n_models=K, n_pairs=m, effects=dict(zip(models, D.mean(axis=1).tolist(), strict=True)),
        exact=exact, n_resamples=len(signs) * (2 if exact else 1), null_distribution=null * to_var)


def welch_heterogeneity(groups: dict, note: str = "") -> HeterogeneityResult:
    """Welch's heteroscedastic one-way ANOVA of the pair differences, for models with their own pairs.

    ``groups``: model -> 1-d array of D_kj. Matches statsmodels.stats.oneway.anova_oneway
    (use_var="unequal"). A model whose differences are all equal has variance 0 and infinite
    weight; its variance is floored at the smallest positive variance of the others (conservative).
    """
    names = list(groups)
    xs = [np.asarray(groups[k], dtype=float) for k in names]
    xs = [x[~np.isnan(x)] for x in xs]
    if len(xs) < 2:
        raise SurveyError("the heterogeneity test needs at least 2 models")
    small = [k for k, x in zip(names, xs, strict=True) if len(x) < 2]
    if small:
        raise SurveyError(f"model(s) {', '.join(small)} have fewer than 2 valid perturbation pairs")
    K = len(xs)
    n = np.array([len(x) for x in xs], dtype=float)
    mean = np.array([x.mean() for x in xs])
    var = np.array([x.var(ddof=1) for x in xs])
    effects = dict(zip(names, mean.tolist(), strict=True))
    npairs = dict(zip(names, n.astype(int).tolist(), strict=True))
    if not np.any(var > 0):
        same = bool(np.ptp(mean) == 0)
        return HeterogeneityResult(0.0 if same else np.inf, 1.0 if same else 0.0,
                                   "welch anova (independent perturbations)", False, K, npairs, effects,
                                   False, 0, (note + " " if note else "") + "every model's differences are constant")
    if np.any(var == 0):
        var = np.where(var > 0, var, var[var > 0].min())
        note = (note + " " if note else "") + "a constant model's variance was floored (conservative)."
    w = n / var
    center = (w * mean).sum() / w.sum()
    a_term = (w * (mean - center) ** 2).sum() / (K - 1)
    tmp = ((1 - w / w.sum()) ** 2 / (n - 1)).sum()
    f_stat = a_term / (1 + 2 * (K - 2) / (K * K - 1) * tmp)
    df2 = (K * K - 1) / (3 * tmp)
    p = float(stats.f.sf(f_stat, K - 1, df2))
    return HeterogeneityResult(float(f_stat), p, "welch anova (independent perturbations)", False, K,
                               npairs, effects, False, 0, note, (K - 1, float(df2)))


def heterogeneity_by_part(per_model: list[dict], models: list[str], shared: list | None, *, part_word: str = "option",
                          n_resamples: int = 9999, seed=0, ties: str = "count") -> HeterogeneityResult:
    """Equal effects across models for a result decided by a family of tests (a checkbox: one test per option,
    Holm across the options). ``per_model``: each model's part -> {pair label: difference}. Every model is compared
    on the same part (never each on its own deciding one, which would compare models on different options):

    - ``shared`` (the pair labels every model has): per part the segments' interaction test with equal weights
      (survey.stats.segments.interaction.interaction_by_part: one sign per pair shared by every model, statistic the
      sum over models of (T_k − mean T)^2, the sign-flip heterogeneity test's up to a constant; two models: the
      sign-flip test of their difference), its ties counted or broken at random as ``ties`` says, Holm across the
      parts, the smallest adjusted p deciding;
    - ``shared`` None (models with their own paraphrases): Welch's ANOVA per part, Holm across the parts."""
    from survey.stats.multiplicity import adjust_pvalues
    from survey.stats.segments.interaction import interaction_by_part

    names = list(per_model[0])
    K = len(models)
    if shared is not None:
        parts = {p: np.array([[pm[p][lab] for lab in shared] for pm in per_model]) for p in names}
        res = interaction_by_part(parts, np.ones(K), models, part_word=part_word, n_resamples=n_resamples, seed=seed,
                                  ties=ties)
        per = [{part_word: x[part_word], "statistic": x["statistic"], "pvalue": x["pvalue"], "holm": x["holm"]}
               for x in res.parts]
        effects = dict(zip(models, parts[res.part].mean(axis=1).tolist(), strict=True))
        return HeterogeneityResult(res.statistic, res.pvalue, f"sign-flip (shared perturbations), {res.method}", True,
                                   K, len(shared), effects, res.exact, n_resamples, parts=per, part=res.part,
                                   part_word=part_word)
    tests = [welch_heterogeneity({m: list(pm[p].values()) for m, pm in zip(models, per_model, strict=True)})
             for p in names]
    raw = np.array([t.pvalue for t in tests], dtype=float)
    holm = adjust_pvalues(raw, "holm")
    best = int(np.lexsort((raw, holm))[0])
    per = [{part_word: p, "statistic": t.statistic, "pvalue": t.pvalue, "holm": float(h)}
           for p, t, h in zip(names, tests, holm, strict=True)]
    first = tests[best]
    return HeterogeneityResult(first.statistic, float(holm[best]), f"{first.method} per {part_word}, Holm-adjusted "
                               f"across the {len(names)} {part_word}s", False, K, first.n_pairs, first.effects, False, 0,
                               first.note, first.df, parts=per, part=names[best], part_word=part_word)
