"""`survey dbpa --family FILE`: one base set of outputs against many perturbations or models.

The file (YAML or JSON; docs/dbpa.md) names the base outputs and each comparison either by a
selection of rows of a long table/store (``select: {message: ..., model: ...}``) or by inline
``texts``. Designs: ``perturbations`` (many perturbations vs the base prompt, adjusted),
``control-target`` (roles give TPR/FPR/AUC, seeds/002 §4.2) and ``alignment`` (the base is a
reference model's outputs, the comparisons are models answering the same prompt).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import click
import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from survey.cli.common import echo_json, print_table
from survey.cli.dbpa_inputs import embed_column, open_cache, parse_range, plot_path, text_rows
from survey.errors import SurveyError, pydantic_message
from survey.stats.dbpa.family import CORRECTIONS, dbpa_family
from survey.stats.dbpa.omega import OMEGAS

_COLUMNS = ("model", "message", "perturbation", "persona", "replicate")
Scalar = str | int


class Outputs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    select: dict[str, Scalar | list[Scalar]] | None = None
    texts: list[str] | None = None

    @field_validator("texts", mode="before")
    @classmethod
    def _strings(cls, v):
        if isinstance(v, list) and any(not isinstance(t, str) for t in v):
            bad = next(t for t in v if not isinstance(t, str))
            raise ValueError(f"every text must be a string, got {bad!r}; quote texts in YAML "
                             "(yes, no, on, off and numbers are read as booleans or numbers)")
        return v

    @model_validator(mode="after")
    def _one_source(self):
        if (self.select is None) == (self.texts is None):
            raise ValueError("give exactly one of 'select' (rows of the source table) or 'texts'")
        bad = [k for k in (self.select or {}) if k not in _COLUMNS]
        if bad:
            raise ValueError(f"select keys must be among {', '.join(_COLUMNS)}; got {', '.join(bad)}")
        return self


class Comparison(Outputs):
    name: str = Field(min_length=1)
    role: Literal["control", "target"] | None = None


class FamilyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    design: Literal["perturbations", "control-target", "alignment"] = "perturbations"
    source: str | None = None
    study: str | None = None
    base: Outputs
    comparisons: list[Comparison] = Field(min_length=1)
    omega: Literal[OMEGAS] = "js"  # type: ignore[valid-type]
    embedder: Literal["minilm", "mistral-embed", "dashscope"] = "minilm"
    permutations: int = Field(1000, ge=1)
    correction: Literal[CORRECTIONS] = "holm"  # type: ignore[valid-type]
    alpha: float = Field(0.05, gt=0, lt=1)
    bins: int = Field(30, ge=2)
    hist_range: str | tuple[float, float] = "pooled"
    seed: int = 0

    @field_validator("comparisons")
    @classmethod
    def _unique(cls, v):
        names = [c.name for c in v]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"comparison names must be unique; repeated: {', '.join(dup)}")
        return v

    @model_validator(mode="after")
    def _roles(self):
        if self.design == "control-target":
            roles = {c.role for c in self.comparisons}
            if None in roles or roles != {"control", "target"}:
                raise ValueError("design control-target needs a role (control or target) on every comparison, "
                                 "and at least one of each")
        needs_source = self.base.select is not None or any(c.select is not None for c in self.comparisons)
        if needs_source and not self.source:
            raise ValueError("'select' needs a 'source' (a long table or store, relative to this file)")
        return self


def load_family(path: Path) -> FamilyFile:
    if not path.exists():
        raise SurveyError(f"{path}: no such family file")
    try:
        raw = json.loads(path.read_text()) if path.suffix.lower() == ".json" else yaml.safe_load(path.read_text())
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise SurveyError(f"{path}: not valid {'JSON' if path.suffix.lower() == '.json' else 'YAML'} ({exc})") from exc
    if not isinstance(raw, dict):
        raise SurveyError(f"{path}: a family file is a mapping with base, comparisons, ... (docs/dbpa.md)")
    try:
        return FamilyFile.model_validate(raw)
    except ValidationError as exc:
        raise SurveyError(pydantic_message(exc, str(path))) from exc


def _select(df, sel: dict, what: str) -> list[str]:
    mask = np.ones(len(df), dtype=bool)
    for col, val in sel.items():
        vals = [str(v) for v in (val if isinstance(val, list) else [val])]
        mask &= df[col].astype(str).isin(vals).to_numpy()
    texts = df.loc[mask, "response"].tolist()
    if not texts:
        raise SurveyError(f"{what}: the selection {sel} matches no row with a text response")
    return texts


def run_family(path: Path, *, study, omegas, embedder, embed_url, n_perm, bins, hist_range, cache_path, no_cache,
               seed, plot, no_plot, as_json, correction, alpha) -> None:
    fam_file = load_family(path)
    if omegas and len(omegas) > 1:
        raise SurveyError("a family runs one omega; give --omega once (or set 'omega' in the file)")
    # Command-line options, when given, override the file.
    omega = omegas[0] if omegas else fam_file.omega
    embedder = embedder or fam_file.embedder
    n_perm = fam_file.permutations if n_perm is None else n_perm
    bins = fam_file.bins if bins is None else bins
    hist_range = parse_range(hist_range) if hist_range else (
        parse_range(fam_file.hist_range) if isinstance(fam_file.hist_range, str) else fam_file.hist_range)
    seed = fam_file.seed if seed is None else seed
    correction = correction or fam_file.correction
    alpha = fam_file.alpha if alpha is None else alpha
    source, df, store = None, None, False
    if fam_file.source:
        source = (path.parent / fam_file.source).resolve()
        df, _, store = text_rows(source, study or fam_file.study)
    groups = {"base": fam_file.base, **{c.name: c for c in fam_file.comparisons}}
    texts = {name: (o.texts if o.texts is not None else _select(df, o.select, f"{path}: {name}"))
             for name, o in groups.items()}
    flat = [t for ts in texts.values() for t in ts]
    if cache_path is None and source is None:
        cache_path = path.with_name(path.name + ".embeddings.sqlite")
    with open_cache(source, store, cache_path, no_cache) as cache:
        emb, emb_name = embed_column(flat, embedder, embed_url, cache, quiet=as_json)
    parts, start = {}, 0
    for name, ts in texts.items():
        parts[name] = emb[start:start + len(ts)]
        start += len(ts)
    base = parts.pop("base")
    roles = {c.name: c.role for c in fam_file.comparisons if c.role}
    fam = dbpa_family(base, parts, omega=omega, correction=correction, alpha=alpha, n_resamples=n_perm, seed=seed,
                      roles=roles or None, bins=bins, hist_range=hist_range)
    base_label = "reference" if fam_file.design == "alignment" else "base"
    written = []
    if not no_plot:
        from survey.plots.dbpa import family_figure, family_tests_figure

        overview = plot_path(plot, str(path.with_name(path.stem + ".dbpa.png")))
        family_figure(fam, base=base_label, title=f"{path.name}: {fam_file.design}, omega {omega}").savefig(
            overview, dpi=110)
        tests = overview.with_name(overview.stem + "-tests" + overview.suffix)
        family_tests_figure(fam, base=base_label).savefig(tests, dpi=90)
        written += [str(overview), str(tests)]
    if as_json:
        echo_json({"family": str(path), "design": fam_file.design, "embedder": emb_name,
                   "outputs": {n: len(t) for n, t in texts.items()}, **fam.to_dict(), "plots": written})
        return
    click.echo(f"{path.name}: {fam_file.design}, {len(fam.names)} comparison(s) vs {base_label} "
               f"({len(base)} outputs), omega {omega}, embedder {emb_name}, B = {n_perm}")
    print_table(f"DBPA family ({correction}-adjusted, alpha {alpha:g})",
                ["name", "role", "outputs", "statistic", "p", "p adjusted", "rejected"],
                [[n, r or "", len(texts[n]), res.statistic, res.pvalue, adj, str(rej)]
                 for n, r, res, adj, rej in zip(fam.names, fam.roles, fam.results, fam.adjusted, fam.rejected,
                                                strict=True)])
    if fam.roc is not None:
        click.echo(f"TPR/FPR at alpha {alpha:g} (raw p): TPR {fam.roc.tpr_at_alpha:.3f}, "
                   f"FPR {fam.roc.fpr_at_alpha:.3f}; AUC over all thresholds {fam.roc.auc:.3f}")
    for p in written:
        click.echo(f"plot: {p}")
