"""Size of the family of questions by simulation with known truth (survey.stats.planning.family: the Beta-logit
model per question, personas' levels correlated across questions, the paraphrase shift shared by every persona
and question with share rho): 2 000 simulated studies of 4 Yes/No questions x 1 message pair per condition.

- Holm over the 4 questions: the family-wise rejection rate under the null lies below the upper end of the
  99% binomial band of alpha (the test is exact up to ties, and questions that move together make Holm
  conservative, so the rate may lie well below alpha, never above);
- the primary question, tested alone at alpha: its size lies inside the two-sided 99% band of alpha, and the
  gate keeps the family-wise rate of primary + secondaries at alpha;
- Benjamini-Hochberg with two true effects among four: the false discovery rate lies below q."""

import numpy as np
import pytest
from scipy import stats

from survey.stats.beta_logit import make_params
from survey.stats.family import adjust
from survey.stats.planning.family import family_rates, question_pvalues

STUDIES, ALPHA = 2000, 0.05
LOW, HIGH = (stats.binom.ppf(q, STUDIES, ALPHA) / STUDIES for q in (0.005, 0.995))


def pvalues(rho: float, deltas, seed: int) -> np.ndarray:
    return question_pvalues(make_params(rho=rho, delta=0.0), deltas, 40, 12, 3, STUDIES,
                            np.random.default_rng(seed), correlation=0.5)


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_holm_family_wise_rate_and_the_primarys_size_under_the_null(rho):
    p = pvalues(rho, [0.0] * 4, 30)
    holm = family_rates(p, ALPHA, "holm")
    assert 0 < holm["any"] <= HIGH
    gated = family_rates(p, ALPHA, "holm", primary=True)
    assert LOW <= gated["adjusted"][0] <= HIGH  # the primary at alpha, unadjusted
    assert gated["any"] <= HIGH  # primary + gated secondaries: one family-wise error


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_benjamini_hochberg_controls_the_false_discovery_rate(rho):
    p = pvalues(rho, [0.0, 0.0, -1.0, -1.0], 31)
    rejected = np.array([adjust(row, "bh") for row in p]) <= ALPHA
    false = rejected[:, :2].sum(axis=1) / np.maximum(rejected.sum(axis=1), 1)
    fdr, se = false.mean(), false.std(ddof=1) / np.sqrt(STUDIES)
    assert fdr <= ALPHA + 2.576 * se
    assert rejected[:, 2:].mean() > 0.5  # the true effects are found
