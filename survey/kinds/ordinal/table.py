"""Simulated long tables on any scale the generative models cover: Yes/No (the Beta-logit model,
survey.stats.beta_logit) and rating scales (the ordinal model, survey.kinds.ordinal.model), and the one place
that turns a scale name into the model's scores."""

from __future__ import annotations

import numpy as np
import pandas as pd

from survey.common.limits import check_seed, check_simulated_rows
from survey.errors import SurveyError
from survey.kinds.ordinal.model import (
    OrdinalParams,
    cumulative_probabilities,
    draw_locations,
    expected_score,
    make_ordinal_params,
)
from survey.responses.view import AnalysisView
from survey.stats import beta_logit

SCALE_CHOICES = "binary, likertK (scores 1..K, e.g. likert5), likertLOW-HIGH or ratingLOW-HIGH (e.g. likert0-4, rating0-10)"


def simulation_view(scale: str) -> AnalysisView:
    """The AnalysisView of a scale a simulator covers: Yes/No (the Beta-logit model) or a rating scale (the
    ordinal model); a SurveyError names the valid choices for anything else. Names are resolved by
    survey.responses, the one place that parses them (a name of too many points says so)."""
    from survey.kinds.ordinal.parsing import POINTS_MAX, points_named
    from survey.responses import response_type

    try:
        view = response_type(scale).view
    except SurveyError:
        points = points_named(scale)
        if points is not None and points > POINTS_MAX:  # a well-formed name, too wide: say that, not "unknown"
            raise SurveyError(f"scale '{scale}' has {points:,} points; a scale has at most {POINTS_MAX} "
                              f"(e.g. rating0-100)") from None
        raise SurveyError(f"unknown scale '{scale}'; choose one of {SCALE_CHOICES} (2 to 101 points)") from None
    if not view.ordered and view.points != (0, 1):
        raise SurveyError(f"scale '{scale}' has no simulation model; choose one of {SCALE_CHOICES}")
    return view


def scale_params(scale: str, *, tau=None, sigma=None, rho=None, delta=None, cuts=None) -> OrdinalParams:
    """The ordinal model's parameters for a rating scale name (see simulation_view)."""
    view = simulation_view(scale)
    if not view.ordered:
        raise SurveyError(f"scale '{scale}' uses the Beta-logit model (mu, kappa), not the ordinal one")
    low, high = int(view.low), int(view.high)
    return make_ordinal_params(points=high - low + 1, low=low, name=scale, tau=tau, sigma=sigma, rho=rho, delta=delta,
                               cuts=None if cuts is None else tuple(cuts))


def simulate_table(params: OrdinalParams, n: int, m: int, r: int, seed=None, m_b: int | None = None,
                   model: str = "simulated", messages: tuple[str, str] = ("A", "B"),
                   scale: str | None = None) -> pd.DataFrame:
    """A long table of simulated ratings, laid out like survey.stats.beta_logit.simulate's Yes/No table:
    n personas P001.., m (and m_b) perturbations A-01.. / B-01.., r replicates; ``answer`` is the score
    (Int16), ``scale`` the scale's name (default params.scale) and ``expected`` the cell's true mean score,
    as exact mode reports it."""
    beta_logit.check_design(n, m, r, m_b)
    check_seed(seed, "seed")
    m_b = m if m_b is None else m_b
    check_simulated_rows(n * (m + m_b) * r, f"{n} personas x {m} + {m_b} perturbations x {r} replicates")
    rng = np.random.default_rng(seed)
    lam_a, lam_b = draw_locations(params, n, m, m_b, rng)
    width = max(2, len(str(max(m, m_b))))
    frames = []
    for msg, lam in zip(messages, (lam_a, lam_b), strict=True):
        mm = lam.shape[1]
        # a replicate's score: low plus the number of cut points its uniform draw lies above
        f = cumulative_probabilities(params.cut_points, lam)[:, :, None, :]  # (n, mm, 1, K-1)
        y = params.low + (rng.random((n, mm, r, 1)) > f).sum(axis=-1)
        ii, jj, kk = np.meshgrid(np.arange(n), np.arange(mm), np.arange(r), indexing="ij")
        frames.append(pd.DataFrame({
            "model": model, "message": msg,
            "perturbation": np.char.add(f"{msg}-", np.char.zfill((jj.ravel() + 1).astype(str), width)),
            "persona": np.char.add("P", np.char.zfill((ii.ravel() + 1).astype(str), 3)),
            "replicate": kk.ravel(), "answer": y.ravel(), "scale": scale or params.scale,
            "expected": expected_score(params, lam)[ii.ravel(), jj.ravel()],
        }))
    out = pd.concat(frames, ignore_index=True)
    out["answer"] = out["answer"].astype("Int16")
    return out


def parse_cuts(text: str | None) -> tuple[float, ...] | None:
    """'-1.5,-0.5,0.5,1.5' -> cut points (the model checks their number and order); None stays None."""
    if text is None:
        return None
    try:
        return tuple(float(x) for x in str(text).split(","))
    except ValueError:
        raise SurveyError(f"`cuts=` takes K-1 increasing numbers separated by commas, e.g. -1.4,-0.4,0.4,1.4; "
                          f"got '{text}'") from None
