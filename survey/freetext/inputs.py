"""Free-text inputs: the text rows of a long table or store, the embedding cache, and embedding."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pandas as pd

from survey.data.scale_columns import scales_in
from survey.data.sources import is_store, load_long_table
from survey.data.table import validate_table
from survey.embed import Embedder, EmbeddingCache, create_embedder, embed_texts
from survey.errors import SurveyError
from survey.freetext.options import DBPAOptions
from survey.responses import response_type


def text_rows(source: str | Path | pd.DataFrame, study: str | None = None) -> tuple[pd.DataFrame, dict]:
    """(rows with a non-empty ``response``, {model: rows left out for an empty one}) of a long table,
    a store (``study`` picks one of several) or a DataFrame in the long-table form."""
    if isinstance(source, pd.DataFrame):
        df = validate_table(source, min_perturbations=0)
    else:
        df = load_long_table(source, study=study, min_perturbations=0, provenance=True)  # the replies' text
    where = "the table" if isinstance(source, pd.DataFrame) else str(source)
    shared = [s for s in scales_in(df) if not response_type(s).view.per_message]
    if shared:  # e.g. forced choice: a reply names a position of the messages shown together
        raise SurveyError(f"{where}: its {shared[0]} replies each answer about the messages shown together, so "
                          "grouping their texts by message would compare orders of presentation, not messages; "
                          "DBPA compares free-text answers to one message at a time (`survey analyze` tests "
                          f"{shared[0]} replies)")
    if "response" not in df.columns:
        raise SurveyError(f"{where}: no 'response' column; DBPA compares free-text answers "
                          "(run the study with response mode 'text', or add the raw texts as 'response')")
    text = df["response"].astype("string").str.strip()
    empty = text.isna() | (text == "")
    dropped = df.loc[empty, "model"].value_counts().to_dict()
    df = df.loc[~empty].copy()
    if df.empty:
        raise SurveyError(f"{where}: every 'response' is empty; there is no text to compare")
    df["response"] = df["response"].astype(str)
    return df, dropped


def default_cache_path(source) -> Path | None:
    """Where embeddings of ``source`` are cached by default: a store holds them itself; a table gets
    TABLE.embeddings.sqlite beside it; a DataFrame none."""
    if source is None or isinstance(source, pd.DataFrame):
        return None
    source = Path(source)
    return source if is_store(source) else source.with_name(source.name + ".embeddings.sqlite")


def open_cache(options: DBPAOptions, default: Path | None):
    """The embedding cache: ``options.cache_path``, else ``default``; none with ``cache=False``."""
    path = options.cache_path or default
    if not options.cache or path is None:
        return contextlib.nullcontext(None)
    return EmbeddingCache(path)


def make_embedder(options: DBPAOptions) -> Embedder:
    extra = {}
    if options.embed_url:
        if options.embedder == "minilm":
            raise SurveyError("--embed-url applies to mistral-embed and dashscope, not to the local minilm")
        extra["server_url" if options.embedder == "mistral-embed" else "base_url"] = options.embed_url
    return create_embedder(options.embedder, **extra)


def embed(texts: list[str], embedder: Embedder, options: DBPAOptions, default_cache: Path | None = None,
          progress=None) -> np.ndarray:
    """Embeddings of ``texts`` (one row each), read from and added to the cache; ``progress(done, total)``."""
    with open_cache(options, default_cache) as cache:
        return embed_texts(texts, embedder, cache, progress=progress)
