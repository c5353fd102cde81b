"""A DBPA family: one base set of outputs against many perturbations or models, adjusted for multiplicity.

The family file (YAML or JSON; docs/dbpa.md) names the base outputs and each comparison either by a
selection of rows of a long table/store (``select: {message: ..., model: ...}``) or by inline ``texts``.
Designs: ``perturbations`` (many perturbations vs the base prompt), ``control-target`` (roles give
TPR/FPR/AUC, as in section 4.2 of the DBPA paper: Rauba, Wei & van der Schaar, "Statistical Hypothesis
Testing for Auditing Robustness in Language Models") and ``alignment`` (the base is a reference model's
outputs, the comparisons are models answering the same prompt).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from survey.common.limits import Alpha, Flips, Seed
from survey.common.threads import one_blas_thread
from survey.errors import SurveyError, pydantic_message
from survey.freetext.inputs import default_cache_path, embed, make_embedder, text_rows
from survey.freetext.messages import plot_path
from survey.freetext.options import DBPAOptions, EmbedderName, HistRange, Omega
from survey.stats.dbpa.family import CORRECTIONS, FamilyResult
from survey.stats.dbpa.family import dbpa_family as family_test

_COLUMNS = ("model", "message", "perturbation", "persona", "replicate")
Scalar = str | int


class Outputs(BaseModel):
    """A set of outputs: rows of the source (``select``: column -> value or values) or inline ``texts``."""

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


class FamilyComparison(Outputs):
    """One comparison of a family: its name, outputs and (design control-target) role."""

    name: str = Field(min_length=1)
    role: Literal["control", "target"] | None = None


class FamilyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    design: Literal["perturbations", "control-target", "alignment"] = "perturbations"
    source: str | None = None
    study: str | None = None
    base: Outputs
    comparisons: list[FamilyComparison] = Field(min_length=1)
    omega: Omega = "js"
    embedder: EmbedderName = "minilm"
    permutations: Flips = 1000
    correction: Literal[CORRECTIONS] = "holm"  # type: ignore[valid-type]
    alpha: Alpha = 0.05
    bins: int = Field(30, ge=2, le=10_000)
    hist_range: HistRange = "pooled"
    seed: Seed = 0

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

    def options(self, given: DBPAOptions | dict | None = None) -> DBPAOptions:
        """The file's settings, overridden by those set in ``given``."""
        from_file = dict(omegas=[self.omega], embedder=self.embedder, n_resamples=self.permutations,
                         correction=self.correction, alpha=self.alpha, bins=self.bins,
                         hist_range=self.hist_range, seed=self.seed)
        return DBPAOptions.of({**from_file, **DBPAOptions.of(given).model_dump(exclude_unset=True)})


def load_family(path: str | Path) -> FamilyFile:
    path = Path(path)
    if not path.exists():
        raise SurveyError(f"{path}: no such family file")
    is_json = path.suffix.lower() == ".json"
    try:
        raw = json.loads(path.read_text()) if is_json else yaml.safe_load(path.read_text())
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise SurveyError(f"{path}: not valid {'JSON' if is_json else 'YAML'} ({exc})") from exc
    if not isinstance(raw, dict):
        raise SurveyError(f"{path}: a family file is a mapping with base, comparisons, ... (docs/dbpa.md)")
    return _validate(raw, str(path))


def _validate(raw, where: str) -> FamilyFile:
    try:
        return FamilyFile.model_validate(raw)
    except ValidationError as exc:
        raise SurveyError(pydantic_message(exc, where, FamilyFile)) from exc


def _select(df, sel: dict, what: str) -> list[str]:
    mask = np.ones(len(df), dtype=bool)
    for col, val in sel.items():
        vals = [str(v) for v in (val if isinstance(val, list) else [val])]
        mask &= df[col].astype(str).isin(vals).to_numpy()
    texts = df.loc[mask, "response"].tolist()
    if not texts:
        raise SurveyError(f"{what}: the selection {sel} matches no row with a text response")
    return texts


@dataclass
class FamilyDBPA:
    """What ``dbpa_family`` returns: the adjusted family of tests, the outputs per set and the settings."""

    path: Path | None  # the family file, if read from one
    design: str
    embedder: str
    outputs: dict[str, int]  # "base" and each comparison -> number of outputs
    options: DBPAOptions
    family: FamilyResult

    @property
    def base_label(self) -> str:
        return "reference" if self.design == "alignment" else "base"

    def to_dict(self) -> dict:
        return {"family": None if self.path is None else str(self.path), "design": self.design,
                "embedder": self.embedder, "outputs": self.outputs, **self.family.to_dict()}

    def write_plots(self, path: str | Path | None = None) -> list[Path]:
        """An overview (-log10 p against alpha, ROC with roles) at ``path`` (default FILE.dbpa.png) and
        PATH-tests.png with P0/P1 and the null distribution of every comparison."""
        from survey.plots.dbpa import family_figure, family_tests_figure

        name = self.path.name if self.path else "family"
        default = self.path.with_name(self.path.stem + ".dbpa.png") if self.path else Path("family.dbpa.png")
        overview = plot_path(path or default)
        title = f"{name}: {self.design}, omega {self.options.omegas[0]}"
        family_figure(self.family, base=self.base_label, title=title).savefig(overview, dpi=110)
        tests = overview.with_name(overview.stem + "-tests" + overview.suffix)
        family_tests_figure(self.family, base=self.base_label).savefig(tests, dpi=90)
        return [overview, tests]


def dbpa_family(family: str | Path | FamilyFile | dict, options: DBPAOptions | dict | None = None, *,
                study: str | None = None, base_dir: str | Path | None = None, progress=None) -> FamilyDBPA:
    """Run a DBPA family from a family file (path), or a ``FamilyFile`` / mapping of the same form.

    Settings set in ``options`` override the file's; a family runs one omega. ``select`` reads rows of
    the file's ``source``, relative to the file (or to ``base_dir``). Embeddings are cached in the store,
    beside the table, or (inline texts only) in FILE.embeddings.sqlite. ``progress(done, total)``
    follows the embedding.
    """
    path = None
    if isinstance(family, FamilyFile):
        spec = family
    elif isinstance(family, dict):
        spec = _validate(family, "family")
    else:
        path = Path(family)
        spec = load_family(path)
    given = DBPAOptions.of(options)
    if len(given.omegas) > 1:
        raise SurveyError("a family runs one omega; give --omega once (or set 'omega' in the file)")
    opts = spec.options(given)
    embedder = make_embedder(opts)
    where = Path(base_dir) if base_dir else (path.parent if path else Path.cwd())
    source = (where / spec.source).resolve() if spec.source else None
    df = text_rows(source, study or spec.study)[0] if source else None
    groups = {"base": spec.base, **{c.name: c for c in spec.comparisons}}
    texts = {name: (o.texts if o.texts is not None else _select(df, o.select, f"{path or 'family'}: {name}"))
             for name, o in groups.items()}
    cache = default_cache_path(source) or (path.with_name(path.name + ".embeddings.sqlite") if path else None)
    emb = embed([t for ts in texts.values() for t in ts], embedder, opts, cache, progress)
    parts, start = {}, 0
    for name, ts in texts.items():
        parts[name] = emb[start:start + len(ts)]
        start += len(ts)
    base = parts.pop("base")
    roles = {c.name: c.role for c in spec.comparisons if c.role}
    with one_blas_thread():  # small products: threads only contend on 2 shared cores
        fam = family_test(base, parts, omega=opts.omegas[0], correction=opts.correction, alpha=opts.alpha,
                          roles=roles or None, **opts.test_options())
    return FamilyDBPA(path, spec.design, embedder.name, {n: len(t) for n, t in texts.items()}, opts, fam)
