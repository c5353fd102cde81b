"""DBPA of message A vs B on free-text answers, per model: rows -> embeddings -> permutation tests."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from survey.common.threads import one_blas_thread
from survey.data.table import pick_messages, require_models
from survey.errors import SurveyError
from survey.freetext.inputs import default_cache_path, embed, make_embedder, text_rows
from survey.freetext.options import DBPAOptions
from survey.stats.dbpa.family import FamilyResult, compare_messages_dbpa, per_persona_dbpa
from survey.stats.dbpa.permutation import DBPAResult


@dataclass
class ModelDBPA:
    """One model's A vs B: a DBPAResult per omega, and optionally the per-persona family."""

    model: str
    a: str
    b: str
    unit: str
    scheme: str  # "subset" when single outputs are relabeled
    outputs: dict[str, int]
    perturbations: dict[str, int]
    dropped_empty: int
    tests: dict[str, DBPAResult]
    per_persona: FamilyResult | None = None

    def to_dict(self) -> dict:
        out = {"model": self.model, "a": self.a, "b": self.b, "unit": self.unit, "scheme": self.scheme,
               "outputs": self.outputs, "perturbations": self.perturbations,
               "dropped_empty": self.dropped_empty, "tests": {o: r.to_dict() for o, r in self.tests.items()}}
        if self.per_persona is not None:
            out["per_persona"] = self.per_persona.to_dict()
        return out


@dataclass
class MessagesDBPA:
    """What ``dbpa`` returns: one ``ModelDBPA`` per model, the embedder used and the settings."""

    source: str | None
    embedder: str
    a: str
    b: str
    options: DBPAOptions
    models: list[ModelDBPA] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"source": self.source, "embedder": self.embedder,
                "results": [m.to_dict() for m in self.models]}

    def write_plots(self, path: str | Path = "dbpa.png") -> list[Path]:
        """One PNG per model (P0/P1 histograms, each omega's null distribution); with several models the
        model's name is appended to the file name."""
        from survey.plots.dbpa import dbpa_figure

        written = []
        for m in self.models:
            out = plot_path(path, m.model if len(self.models) > 1 else None)
            title = f"{m.model}: {self.a} vs {self.b} ({m.unit}-level permutations)"
            dbpa_figure(list(m.tests.values()), title=title, labels=(self.a, self.b)).savefig(out, dpi=110)
            written.append(out)
        return written


def plot_path(path: str | Path, suffix: str | None = None) -> Path:
    """``path`` with ``-suffix`` before its extension (made file-name safe); its folder is created."""
    path = Path(path)
    if suffix:
        path = path.with_name(f"{path.stem}-{re.sub(r'[^A-Za-z0-9._-]+', '_', suffix)}{path.suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _limit_per_unit(df: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    return (df.sample(frac=1.0, random_state=seed).groupby(["model", "message", "perturbation"], sort=False)
            .head(n).sort_index())


def dbpa(source: str | Path | pd.DataFrame, a: str | None = None, b: str | None = None, *,
         models: list[str] | None = None, study: str | None = None, options: DBPAOptions | dict | None = None,
         progress=None) -> MessagesDBPA:
    """DBPA of message A vs B for each model, on the ``response`` column of a long table, store or DataFrame.

    With two messages A and B default to them (or to the one not named). Rows with an empty response are
    left out and counted per model. ``progress(done, total)`` follows the embedding. Example::

        res = survey.freetext.dbpa("store.sqlite", "sneakers", "boots",
                                   options={"omegas": ["js", "energy-cosine"], "per_persona": True})
        res.models[0].tests["js"].pvalue; res.to_dict(); res.write_plots("dbpa.png")
    """
    opts = DBPAOptions.of(options)
    embedder = make_embedder(opts)
    df, dropped = text_rows(source, study)
    a, b = pick_messages(df, a, b)
    all_models = require_models(df, models or [])
    df = df[df["message"].isin([a, b]) & df["model"].isin(models or all_models)]
    if opts.max_per_unit is not None:
        df = _limit_per_unit(df, opts.max_per_unit, opts.seed)
    emb = embed(df["response"].tolist(), embedder, opts, default_cache_path(source), progress)
    out = MessagesDBPA(None if isinstance(source, pd.DataFrame) else str(source), embedder.name, a, b, opts)
    with one_blas_thread():  # small products: threads only contend on 2 shared cores
        for model in [m for m in all_models if m in set(df["model"])]:
            m = (df["model"] == model).to_numpy()
            out.models.append(_one_model(df[m], emb[m], model, a, b, int(dropped.get(model, 0)), opts))
    return out


def _one_model(sub: pd.DataFrame, emb, model: str, a: str, b: str, dropped: int,
               opts: DBPAOptions) -> ModelDBPA:
    is_a = (sub["message"] == a).to_numpy()
    if is_a.sum() < 2 or (~is_a).sum() < 1:
        raise SurveyError(f"model '{model}': DBPA needs at least 2 text answers for {a} and 1 for {b}")
    perturbation = sub["perturbation"].to_numpy()
    tests = compare_messages_dbpa(emb, is_a, perturbation, omega=opts.omegas, unit=opts.unit,
                                  scheme=opts.scheme, **opts.test_options())
    per_persona = None
    if opts.per_persona:
        per_persona = per_persona_dbpa(emb, is_a, perturbation, sub["persona"].to_numpy(),
                                       omega=opts.omegas[0], correction=opts.correction, alpha=opts.alpha,
                                       scheme=opts.scheme, **opts.test_options())
    units = sub["perturbation"]
    return ModelDBPA(model, a, b, opts.unit, opts.scheme if opts.unit == "perturbation" else "subset",
                     {a: int(is_a.sum()), b: int((~is_a).sum())},
                     {a: int(units[is_a].nunique()), b: int(units[~is_a].nunique())}, dropped, tests, per_persona)
