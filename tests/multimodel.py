"""Test helper: several models answering the same survey, with perturbation shifts shared across models.

Model k follows the Beta-logit model of Helm & Priebe (2026) with its own (mu, kappa, sigma, rho, delta). The
shared perturbation shift of perturbation j is correlated across models:

    u_jk = sigma_k sqrt(rho_k) (sqrt(lam) s_j + sqrt(1 - lam) w_jk),   s_j, w_jk ~ N(0, 1)

so lam = 1 means every model reacts to a paraphrase in the same way, lam = 0 means independently.
Persona base rates and persona-specific shifts are drawn per model (model-specific noise).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit, logit


def draw_probabilities(params: list[dict], n: int, m: int, lam: float, rng) -> list[tuple]:
    """[(p^A (n, m), p^B (n, m)) per model] with shifts shared across models through ``lam``."""
    s = {msg: rng.normal(size=m) for msg in "AB"}
    out = []
    for pr in params:
        mu, kappa = pr.get("mu", 0.5), pr.get("kappa", 4.0)
        sigma, rho, delta = pr.get("sigma", 1.0), pr.get("rho", 0.3), pr.get("delta", 0.0)
        base = logit(np.clip(rng.beta(mu * kappa, (1 - mu) * kappa, size=(n, 1)), 1e-9, 1 - 1e-9))
        probs = []
        for msg, shift in (("A", 0.0), ("B", delta)):
            u = sigma * np.sqrt(rho) * (np.sqrt(lam) * s[msg] + np.sqrt(1 - lam) * rng.normal(size=m))
            v = rng.normal(0.0, sigma * np.sqrt(1 - rho), size=(n, m))
            probs.append(expit(base + shift + u[None, :] + v))
        out.append(tuple(probs))
    return out


def simulate_differences(params: list[dict], n: int, m: int, r: int, lam: float, rng) -> np.ndarray:
    """(K, m) matrix D_kj = mean_i(theta_ij^A - theta_ij^B) of model k, perturbation pair j."""
    rows = []
    for pa, pb in draw_probabilities(params, n, m, lam, rng):
        rows.append((rng.binomial(r, pa) - rng.binomial(r, pb)).mean(axis=0) / r)
    return np.array(rows)


def simulate_models(params: dict, n: int = 20, m: int = 8, r: int = 3, lam: float = 0.7, seed=0,
                    p_yes: bool = False) -> pd.DataFrame:
    """Long table for models {name: params}; perturbation and persona labels are shared by all models.

    ``p_yes`` adds the exact-mode column p_yes (the true cell probability) to every row.
    """
    rng = np.random.default_rng(seed)
    names = list(params)
    frames = []
    for name, (pa, pb) in zip(names, draw_probabilities([params[k] for k in names], n, m, lam, rng),
                              strict=True):
        for msg, p in (("A", pa), ("B", pb)):
            ii, jj, kk = np.meshgrid(np.arange(n), np.arange(m), np.arange(r), indexing="ij")
            pij = p[ii.ravel(), jj.ravel()]
            frame = pd.DataFrame({
                "model": name, "message": msg,
                "perturbation": [f"{msg}-{j + 1:02d}" for j in jj.ravel()],
                "persona": [f"P{i + 1:03d}" for i in ii.ravel()],
                "replicate": kk.ravel(), "answer": (rng.random(len(pij)) < pij).astype(int),
            })
            if p_yes:
                frame["p_yes"] = pij
            frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    out["answer"] = out["answer"].astype("Int8")
    return out
