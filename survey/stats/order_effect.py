"""Does a question's answer depend on where it was asked? The order effect of a conversation-flow study.

In a conversation (``flow = "conversation"``) the questions are asked one after another with the earlier
answers in context, and each row records the question's ``position`` (0-based). With ``question_order =
"random"`` the order is drawn per persona x paraphrase, independently of everything else, so each question's
place is a randomised treatment of its persona x paraphrase cells. This module compares, per model and
question, the answers when the question was asked first with those when it was asked later.

The test is Fisher's randomisation test (Fisher, "The Design of Experiments", 1935): under the null that a
question's answers do not depend on its place, the places drawn for the cells are exchangeable given the
answers, so permuting the cells' places reproduces the statistic's null distribution exactly (Monte Carlo
p-value (1 + b) / (1 + B), valid at every B). The cells are the randomisation's units: answers of one persona,
or of one paraphrase shown to every persona, are correlated, which breaks a t-test over cells, but the
randomisation test conditions on the answers and randomises only the places, so that dependence costs power,
never validity. For power the statistic reads the cell means after removing each persona's and each
paraphrase's additive level (covariance adjustment inside a randomisation test, Rosenbaum, "Covariance
adjustment in randomized experiments and observational studies", Statistical Science 2002): the adjustment
uses the answers only, never the places, so the test stays exact.

The statistic: a numeric answer (Yes/No as 1/0, a rating's score) compares the adjusted mean first minus later;
a categorical answer (which message a pick chose) the total variation distance between the two
distributions of choices. With a fixed order a question is always asked at the same place: its order effect is
confounded with the question itself and nothing compares it (``varies`` False, no number).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

UNIT = ["persona", "message", "perturbation"]  # the order is drawn per persona x paraphrase


@dataclass(frozen=True)
class OrderEffect:
    """One model's question: where it was asked (``positions``, 0-based) and, when that varied, the answers
    when asked first against later. ``first``/``later``: the mean (numeric; categorical: the shares of each
    choice) over those cells; ``difference``: first minus later (numeric; unbiased under the randomisation) or
    the total variation distance between the choices (categorical); ``pvalue``: the randomisation test (whose
    statistic reads the persona- and paraphrase-adjusted cells); ``by_position``: mean (or shares) per place."""

    model: str
    question: str
    quantity: str
    positions: tuple[int, ...]
    cells: int
    cells_first: int
    first: float | dict | None = None
    later: float | dict | None = None
    difference: float | None = None
    pvalue: float | None = None
    resamples: int = 0
    by_position: dict = field(default_factory=dict)

    @property
    def varies(self) -> bool:
        return len(self.positions) > 1

    def sentence(self) -> str:
        where = f"model {self.model}, question {self.question}"
        if not self.varies:
            place = self.positions[0] + 1 if self.positions else "?"
            return (f"{where}: always asked at place {place} of the conversation (fixed order): its answers may "
                    "depend on the questions before it, but nothing here compares another order, so the order "
                    "effect cannot be measured")
        if isinstance(self.first, dict):
            return (f"{where}: the messages chosen when asked first differ from later by {self.difference:.3f} "
                    f"(total variation distance over {self.cells} cells, {self.cells_first} asked first; "
                    f"randomisation test p = {self.pvalue:.3g})")
        return (f"{where}: {self.quantity} {self.first:.3f} when asked first, {self.later:.3f} when asked later "
                f"(first − later {self.difference:+.3f}, over {self.cells} "
                f"cells, {self.cells_first} asked first; randomisation test adjusted for persona and paraphrase, p = {self.pvalue:.3g})")

    def to_dict(self) -> dict:
        return {**asdict(self), "positions": list(self.positions), "varies": self.varies,
                "by_position": {str(k): v for k, v in self.by_position.items()}, "sentence": self.sentence()}


def row_outcomes(df: pd.DataFrame, view) -> pd.Series:
    """Each row's answer as the order effect reads it: numeric for Yes/No (1/0), rating scales and numbers, else the
    message chosen (pick: the shown message at the answered position; forced choice: first or second shown)."""
    answer = pd.to_numeric(df["answer"], errors="coerce")
    if view.per_message and view.averaged:  # Yes/No, a score, a number: the answer itself, not a category
        return answer.astype(float)
    if "shown" in df:
        return pd.Series([None if pd.isna(a) or pd.isna(s) else str(s).split("|")[int(a) - 1]
                          for a, s in zip(answer, df["shown"], strict=True)], index=df.index, dtype=object)
    if "second" in df:
        return pd.Series(np.where(answer == 1, df["message"].astype(str),
                                  np.where(answer == 2, df["second"].astype(str), None)), index=df.index, dtype=object)
    return df["answer"].where(df["answer"].notna()).astype(object)


def order_effect(df: pd.DataFrame, outcome: pd.Series, *, model: str, question: str, quantity: str,
                 n_resamples: int = 9999, seed=0) -> OrderEffect:
    """The order effect of one model's question from its rows ``df`` (columns persona, message, perturbation,
    position) and each row's ``outcome`` (row_outcomes: numeric, or a category; missing = invalid)."""
    rows = df.assign(_y=outcome.values).dropna(subset=["_y", "position"])
    rows = rows.assign(position=rows["position"].astype(int))
    positions = tuple(sorted(set(rows["position"])))
    if len(positions) < 2:
        return OrderEffect(model, question, quantity, positions, _count_cells(rows), _count_cells(rows))
    numeric = pd.api.types.is_numeric_dtype(rows["_y"])
    values = rows[["_y"]].astype(float) if numeric else pd.get_dummies(rows["_y"].astype(str), dtype=float)
    keys = [*UNIT, "position"]  # a cell asked at two places (order drawn per conversation) splits in two units
    cells = values.groupby([rows[k] for k in keys], sort=False).mean()
    place = cells.index.get_level_values("position").to_numpy()
    first = place == positions[0]
    by_position = cells.groupby(place).mean()
    adjusted = _remove_levels(cells)
    rng = np.random.default_rng(seed)
    observed = _statistic(first[None, :], adjusted, numeric)
    hits, done = 0, 0
    while done < n_resamples:  # in chunks: B x cells at once would not fit for large studies
        size = min(2000, n_resamples - done)
        drawn = rng.permuted(np.broadcast_to(first, (size, len(first))), axis=1)
        hits += int(np.count_nonzero(_statistic(drawn, adjusted, numeric) >= observed[0] - 1e-12))
        done += size
    pvalue = (1 + hits) / (1 + n_resamples)
    if numeric:
        means = cells.iloc[:, 0]
        return OrderEffect(model, question, quantity, positions, len(cells), int(first.sum()),
                           float(means[first].mean()), float(means[~first].mean()),
                           float(means[first].mean() - means[~first].mean()), pvalue, n_resamples,
                           {int(k): float(v) for k, v in by_position.iloc[:, 0].items()})
    shares = {int(k): {c: float(v) for c, v in row.items()} for k, row in by_position.iterrows()}
    return OrderEffect(model, question, "share choosing each message", positions, len(cells), int(first.sum()),
                       {c: float(v) for c, v in cells[first].mean().items()},
                       {c: float(v) for c, v in cells[~first].mean().items()},
                       float(0.5 * np.abs(cells[first].mean() - cells[~first].mean()).sum()), pvalue, n_resamples,
                       shares)


def _count_cells(rows: pd.DataFrame) -> int:
    return int(rows.groupby(UNIT).ngroups) if len(rows) else 0


def _remove_levels(cells: pd.DataFrame, sweeps: int = 20) -> np.ndarray:
    """Cell means less each persona's and each paraphrase's additive level (backfitting; exact in a full grid
    after one sweep). Reads the answers only, never the places."""
    y = cells.to_numpy(dtype=float).copy()
    index = cells.index
    persona = pd.factorize(index.get_level_values("persona"))[0]
    paraphrase = pd.factorize(pd.MultiIndex.from_arrays([index.get_level_values("message"),
                                                         index.get_level_values("perturbation")]))[0]
    for _ in range(sweeps):
        change = 0.0
        for codes in (persona, paraphrase):
            counts = np.bincount(codes)
            level = np.stack([np.bincount(codes, weights=col) / counts for col in y.T], axis=1)[codes]
            y -= level
            change = max(change, float(np.abs(level).max()))
        if change < 1e-12:
            break
    return y


def _differences(first: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per assignment (rows of ``first``): the mean of y over first cells minus over the others."""
    f = first.astype(float)
    n1 = f.sum(axis=1, keepdims=True)
    return f @ y / n1 - (1 - f) @ y / (f.shape[1] - n1)


def _statistic(first: np.ndarray, y: np.ndarray, numeric: bool) -> np.ndarray:
    d = _differences(first, y)
    return np.abs(d[:, 0]) if numeric else 0.5 * np.abs(d).sum(axis=1)


__all__ = ["OrderEffect", "order_effect", "row_outcomes"]
