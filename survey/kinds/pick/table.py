"""Pick one of k from the long table, and its simulator (survey.kinds.pick.statistics has the tests).

A pick row's ``message``/``perturbation`` are what was shown first, ``shown`` and ``shown_perturbations``
every option by position ("sneakers|boots|sandals"), ``answer`` the position chosen (1..k, empty when
invalid) and, in exact mode, ``distribution`` the probability of each position. A paraphrase set is the
paraphrases shown together; its arrangements are the distinct orders it was shown in.

The simulator is a multinomial logit: position t of arrangement s of set j is chosen by persona i with
probability proportional to exp(beta_t + delta_a + u_ja + v_ija (+ eta_i at t = 1)), a the message
shown there, u_ja ~ N(0, rho sigma^2) shared by every persona, v_ija ~ N(0, (1 - rho) sigma^2) and
eta_i ~ N(0, tau^2) a persona's pull towards the first position; r replicates per cell.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from survey.common.options import options_from
from survey.data.pairing import natural_key
from survey.data.table import messages_in
from survey.errors import SurveyError, TableError
from survey.kinds.pick.statistics import PickResult, cell_shares, nan_sets, pick_test
from survey.stats.comparison import persona_weights
from survey.stats.kinds.base import CompareOptions

_NEEDED = ("shown", "shown_perturbations")


def pick_messages_shown(df: pd.DataFrame, model: str) -> list[str]:
    """The messages shown together to ``model``, in table order (survey.data.table.messages_in)."""
    if "shown" not in df:
        raise TableError("a pick-one-of-k table needs the 'shown' column (the messages by position)")
    seen: dict[str, None] = {}
    for v in pd.unique(df.loc[df["model"] == model, "shown"].dropna()):
        seen.update(dict.fromkeys(str(v).split("|")))
    order = {msg: i for i, msg in enumerate(messages_in(df, model))}
    return sorted(seen, key=lambda msg: order.get(msg, len(order)))


def _rows(df: pd.DataFrame, model: str, what: str = "pick-one-of-k") -> pd.DataFrame:
    missing = [c for c in _NEEDED if c not in df.columns]
    if missing:
        raise TableError(f"missing column(s) {', '.join(missing)}: a {what} table names what each position "
                         "showed")
    sub = df[(df["model"] == model) & df["shown"].notna()]
    if sub.empty:
        raise TableError(f"no {what} rows for model '{model}'")
    return sub


def _mass(sub: pd.DataFrame, k: int, probabilities: bool) -> np.ndarray:
    """Per row the mass on each position (one-hot of the answer, or exact mode's distribution); NaN rows invalid."""
    out = np.full((len(sub), k), np.nan)
    if probabilities:
        if "distribution" not in sub:
            raise TableError("exact mode needs the 'distribution' column (the probability of each position)")
        for r, text in enumerate(sub["distribution"]):
            dist = json.loads(text) if isinstance(text, str) and text else None
            if dist:
                vec = np.array([float(dist.get(str(t), 0.0)) for t in range(1, k + 1)])
                out[r] = vec / vec.sum() if vec.sum() > 0 else np.nan
        return out
    ans = pd.to_numeric(sub["answer"], errors="coerce").to_numpy(dtype=float)
    ok = ~np.isnan(ans) & (ans >= 1) & (ans <= k)
    out[ok] = 0.0
    out[np.flatnonzero(ok), ans[ok].astype(int) - 1] = 1.0
    return out


def pick_arrays(df: pd.DataFrame, model: str, probabilities: bool = False, weights=None, *, mass=None,
                what: str = "pick-one-of-k"):
    """(M, at, info) for one model: M (m, k, k) persona-mean shares per set, arrangement and message; at
    (m, k, k) the message index at each position; info the labels, counts and sets left out. ``mass``: another
    kind's per-row mass on each position, (rows, k) with NaN rows invalid (a ranking's Borda shares), in place
    of the one-hot choice; ``what`` names the kind in messages."""
    sub = _rows(df, model, what)
    messages = pick_messages_shown(df, model)
    k, index = len(messages), {msg: i for i, msg in enumerate(messages)}
    shown = [str(v).split("|") for v in sub["shown"]]
    perts = [str(v).split("|") for v in sub["shown_perturbations"]]
    if any(len(s) != k or set(s) != set(messages) for s in shown):
        raise TableError(f"model '{model}': every {what} row must show the same {k} messages ({', '.join(messages)})")
    positions = [[index[msg] for msg in s] for s in shown]
    set_label = ["|".join(dict(zip(s, p, strict=True))[msg] for msg in messages) for s, p in zip(shown, perts, strict=True)]
    frame = pd.DataFrame({"persona": sub["persona"].astype(str).to_numpy(), "set": set_label,
                          "arrangement": sub["shown"].astype(str).to_numpy()})
    personas = list(pd.unique(frame["persona"]))
    arrangements = frame.groupby("set")["arrangement"].agg(lambda a: sorted(set(a)))
    rows_of = dict(zip(frame["arrangement"], positions, strict=False))
    complete, left_out = [], []
    for label, arr in sorted(arrangements.items(), key=lambda x: natural_key(x[0])):
        grid = np.array([rows_of[a] for a in arr])
        latin = len(arr) == k and all(len(set(grid[:, t])) == k for t in range(k))
        (complete if latin else left_out).append(label)
    if not complete:
        raise TableError(f"model '{model}': no paraphrase set was asked in {k} arrangements that put every message "
                         "in every position (a Latin square)")
    mass = (mass or _mass)(sub, k, probabilities)
    n, m = len(personas), len(complete)
    chosen, valid = np.zeros((n, m, k, k)), np.zeros((n, m, k))
    at = np.array([[rows_of[a] for a in arrangements[label]] for label in complete])
    keep = frame["set"].isin(complete).to_numpy()
    j_of = {label: j for j, label in enumerate(complete)}
    s_of = {(label, a): s for label in complete for s, a in enumerate(arrangements[label])}
    i_idx = frame["persona"].map({p: i for i, p in enumerate(personas)}).to_numpy()[keep]
    j_idx = frame["set"].map(j_of).to_numpy()[keep].astype(int)
    s_idx = np.array([s_of[(lab, a)] for lab, a in zip(frame["set"][keep], frame["arrangement"][keep], strict=True)],
                     dtype=int)
    pos_mass, pos = mass[keep], np.array(positions)[keep]
    ok = ~np.isnan(pos_mass).any(axis=1)
    by_message = np.zeros_like(pos_mass)
    np.put_along_axis(by_message, pos, np.nan_to_num(pos_mass), axis=1)  # position t's mass goes to its message
    np.add.at(chosen, (i_idx[ok], j_idx[ok], s_idx[ok]), by_message[ok])
    np.add.at(valid, (i_idx[ok], j_idx[ok], s_idx[ok]), 1.0)
    M = cell_shares(chosen, valid, persona_weights(weights, personas))
    empty = nan_sets(M)
    info = {"messages": messages, "personas": personas, "sets": [c for c, e in zip(complete, empty, strict=True) if not e],
            "left_out": left_out + [c for c, e in zip(complete, empty, strict=True) if e],
            "invalid": int((~ok).sum() + np.isnan(mass[~keep]).any(axis=1).sum()),
            "replicates": int(sub.groupby(["persona", "shown", "shown_perturbations"]).size().max())}
    return M[~empty], at[~empty], info


def compare_pick(df: pd.DataFrame, model: str, a: str, b: str, *, alternative: str = "two-sided", alpha: float = 0.05,
                 confidence: float | None = None, n_resamples: int = 9999, seed=0, probabilities: bool = False,
                 weights=None) -> PickResult:
    """Pick one of k, message a vs b for one model of a long table (survey.kinds.pick.statistics.pick_test on its arrays).
    ``probabilities``: exact mode's distribution over positions instead of the answers."""
    M, at, info = pick_arrays(df, model, probabilities, weights)
    messages = info["messages"]
    for msg in (a, b):
        if msg not in messages:
            raise TableError(f"model '{model}' was not shown '{msg}'; its pick rows show {', '.join(messages)}")
    if a == b:
        raise SurveyError("a and b must name two different messages")
    if len(M) == 0:
        raise TableError(f"model '{model}': no paraphrase set has a valid reply in every arrangement")
    res = pick_test(M, at, messages.index(a), messages.index(b), messages=messages, sets=info["sets"],
                    n_personas=len(info["personas"]), replicates=info["replicates"],
                    options=CompareOptions(alternative=alternative, alpha=alpha, confidence=confidence,
                                           flips=n_resamples, seed=seed))
    res.model, res.invalid, res.sets_left_out = model, info["invalid"], info["left_out"]
    res.scale = f"pick{len(messages)}"
    if info["left_out"]:
        res.notes.append(f"{len(info['left_out'])} paraphrase set(s) left out: not asked in a full Latin square of "
                         f"arrangements, or an arrangement without a valid reply ({', '.join(info['left_out'][:5])})")
    return res


# --- simulation --------------------------------------------------------------------------------------------

def message_orders(rng: np.random.Generator, S: int, m: int, k: int, random_order: bool = True) -> np.ndarray:
    """(S, m, k): the message order of each simulated set, drawn uniformly (the study design) or the identity."""
    order = np.tile(np.arange(k), (S, m, 1))
    return rng.permuted(order, axis=-1) if random_order else order


@dataclass(frozen=True)
class PickTruth:
    """The population a pick-one-of-k simulation draws from, checked once: the messages' logit utilities
    ``deltas`` (None: all 0), the utilities' s.d. ``sigma`` and the share ``rho`` of it a paraphrase set shares,
    the positions' logit shifts ``positions`` (None: none), a persona's pull ``tau`` towards the first position
    and each reply's chance ``invalid_rate`` of being unusable."""

    deltas: object = None
    sigma: float = 1.0
    rho: float = 0.3
    positions: object = None
    tau: float = 0.0
    invalid_rate: float = 0.0

    def __post_init__(self):
        if not (self.sigma >= 0 and 0 <= self.rho <= 1 and self.tau >= 0 and 0 <= self.invalid_rate < 1):
            raise SurveyError(f"a pick simulation needs sigma >= 0, rho in [0, 1], tau >= 0 and invalid_rate in "
                              f"[0, 1); got sigma={self.sigma}, rho={self.rho}, tau={self.tau}, "
                              f"invalid_rate={self.invalid_rate}")


def simulate_pick_arrays(S: int, n: int, m: int, r: int, k: int, *, truth: PickTruth | None = None, seed=None,
                         random_order: bool = True, **keywords):
    """S simulated pick-one-of-k surveys at once: (chosen (S, n, m, k, k), valid (S, n, m, k), at (S, m, k, k)),
    each set's arrangements the rows of a cyclic Latin square on a random message order (the study design;
    ``random_order=False``: on the messages' own order in every set, to show what the random order is for).
    ``truth``: the simulated population (PickTruth), or its fields as keywords."""
    truth = options_from(PickTruth, truth, keywords, where="simulate_pick_arrays")
    deltas, sigma, rho, positions = truth.deltas, truth.sigma, truth.rho, truth.positions
    tau, invalid_rate = truth.tau, truth.invalid_rate
    rng = np.random.default_rng(seed)
    deltas = np.zeros(k) if deltas is None else np.asarray(deltas, dtype=float)
    beta = np.zeros(k) if positions is None else np.asarray(positions, dtype=float)
    order = message_orders(rng, S, m, k, random_order)
    at = order[..., (np.arange(k)[:, None] + np.arange(k)[None, :]) % k]  # (S, m, s, t)
    u = rng.normal(0, sigma * np.sqrt(rho), (S, 1, m, k))
    v = rng.normal(0, sigma * np.sqrt(1 - rho), (S, n, m, k))
    util = deltas + u + v  # (S, n, m, message)
    eta = rng.normal(0, tau, (S, n, 1, 1)) if tau else 0.0
    logits = np.take_along_axis(util[:, :, :, None, :], at[:, None], axis=-1) + beta  # (S, n, m, s, t)
    logits[..., 0] += eta  # a persona's pull towards the first position, in every arrangement
    probs = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    valid = r - rng.binomial(r, invalid_rate, probs.shape[:-1]) if invalid_rate else np.full(probs.shape[:-1], r)
    counts = rng.multinomial(valid, probs)  # by position
    chosen = np.zeros(counts.shape)
    np.put_along_axis(chosen, np.broadcast_to(at[:, None], counts.shape), counts, axis=-1)
    return chosen, valid.astype(float), at


def simulate_pick_table(n: int, m: int, r: int, messages: list[str], seed=None, **params) -> pd.DataFrame:
    """One simulated survey as a long table (the columns a pick study's store gives)."""
    k = len(messages)
    deltas = params.pop("deltas", None)
    if isinstance(deltas, dict):
        deltas = [float(deltas.get(msg, 0.0)) for msg in messages]
    rng = np.random.default_rng(seed)
    chosen, valid, at = simulate_pick_arrays(1, n, m, r, k, deltas=deltas, seed=rng, **params)
    rows = []
    for i in range(n):
        for j in range(m):
            for s in range(k):
                shown = [messages[a] for a in at[0, j, s]]
                picks = np.repeat(np.arange(k), chosen[0, i, j, s].astype(int))  # messages chosen, by message index
                answers = [int(np.flatnonzero(at[0, j, s] == a)[0]) + 1 for a in rng.permutation(picks)]
                answers += [None] * (r - len(answers))
                for rep, ans in enumerate(answers):
                    rows.append({"model": "sim", "message": shown[0], "perturbation": f"{shown[0]}-{j + 1:02d}",
                                 "persona": f"p{i:03d}", "replicate": rep, "answer": ans, "scale": f"pick{k}",
                                 "shown": "|".join(shown),
                                 "shown_perturbations": "|".join(f"{msg}-{j + 1:02d}" for msg in shown),
                                 "chosen": None if ans is None else shown[ans - 1]})
    return pd.DataFrame(rows)
