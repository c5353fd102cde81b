"""Inputs of `survey dbpa`: text rows of a table or store, the embedding cache, embedding with a
progress bar, option parsing and plot paths."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import numpy as np
import pandas as pd

from survey.common.progress import progress_bar
from survey.data.sources import is_store, load_long_table
from survey.data.table import pick_messages  # one rule for --a/--b across commands
from survey.embed import EmbeddingCache, create_embedder, embed_texts
from survey.errors import SurveyError

__all__ = ["embed_column", "open_cache", "parse_range", "pick_messages", "plot_path", "text_rows"]


def text_rows(source: Path, study: str | None) -> tuple[pd.DataFrame, dict, bool]:
    """(rows with a non-empty ``response``, {model: rows left out for an empty one}, source is a store)."""
    df = load_long_table(source, study=study, min_perturbations=0)
    if "response" not in df.columns:
        raise SurveyError(f"{source}: no 'response' column; DBPA compares free-text answers "
                          "(run the study with response mode 'text', or add the raw texts as 'response')")
    text = df["response"].astype("string").str.strip()
    empty = text.isna() | (text == "")
    dropped = df.loc[empty, "model"].value_counts().to_dict()
    df = df.loc[~empty].copy()
    if df.empty:
        raise SurveyError(f"{source}: every 'response' is empty; there is no text to compare")
    df["response"] = df["response"].astype(str)
    return df, dropped, is_store(source)


def open_cache(source: Path | None, source_is_store: bool, cache_path, no_cache: bool):
    """The embedding cache: --cache, else the store itself, else TABLE.embeddings.sqlite beside it."""
    if no_cache:
        return contextlib.nullcontext(None)
    if cache_path:
        path = Path(cache_path)
    elif source is None:
        return contextlib.nullcontext(None)
    elif source_is_store:
        path = source
    else:
        path = source.with_name(source.name + ".embeddings.sqlite")
    return EmbeddingCache(path)


def embed_column(texts: list[str], embedder: str, url: str | None, cache, quiet: bool) -> tuple[np.ndarray, str]:
    options = {}
    if url:
        if embedder == "minilm":
            raise SurveyError("--embed-url applies to mistral-embed and dashscope, not to the local minilm")
        options["server_url" if embedder == "mistral-embed" else "base_url"] = url
    emb = create_embedder(embedder, **options)
    with progress_bar(f"embedding ({emb.name})", None, not quiet) as bar:
        return embed_texts(texts, emb, cache, progress=bar.update), emb.name


def parse_range(value):
    if value in ("pooled", "all-pairs"):
        return value
    try:
        lo, hi = (float(v) for v in str(value).split(","))
    except ValueError:
        raise SurveyError(f"--range must be pooled, all-pairs or LO,HI (e.g. -1,1); got '{value}'") from None
    return (lo, hi)


def plot_path(plot, default: str, suffix: str | None = None) -> Path:
    path = Path(plot or default)
    if suffix:
        path = path.with_name(f"{path.stem}-{re.sub(r'[^A-Za-z0-9._-]+', '_', suffix)}{path.suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
