"""Text embedders behind one interface (base.Embedder), plus a cache in the store file.

Registry names: ``minilm`` (local all-MiniLM-L6-v2 in numpy, no network), ``mistral-embed``
(mistralai), ``dashscope`` (text-embedding-v4). Providers load lazily: a missing SDK or key only
matters when that embedder is used.
"""

from __future__ import annotations

import importlib

from survey.embed.base import Embedder, EmbedError
from survey.embed.cache import EmbeddingCache, embed_texts, text_hash
from survey.errors import SurveyError

EMBEDDERS = {
    "minilm": "survey.embed.minilm:MiniLMEmbedder",
    "mistral-embed": "survey.embed.providers:MistralEmbedder",
    "dashscope": "survey.embed.providers:DashScopeEmbedder",
}


def _embedder_class(name: str) -> type:
    """The class of a registered embedder, imported; an unknown name or a module that does not import refused."""
    check_embedder_name(name)
    module, _, attr = EMBEDDERS[name].partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except ImportError as exc:
        raise SurveyError(f"embedder '{name}' is not available: {exc}") from exc
    return cls


def create_embedder(name: str, **options) -> Embedder:
    cls = _embedder_class(name)
    try:
        return cls(**options)
    except TypeError as exc:
        raise SurveyError(f"embedder '{name}': bad option ({exc})") from exc


def check_embedder_name(name: str) -> None:
    """Refuse an embedder name the registry lacks (a study option: checked when the study's design is built)."""
    if name not in EMBEDDERS:
        raise SurveyError(f"unknown embedder '{name}'; choose one of {', '.join(EMBEDDERS)}")


def check_embedder_ready(name: str) -> None:
    """Refuse, before a run sends anything, an embedder that could not rate its replies afterwards: an unknown
    name, a module that does not import, or what its class's ``check_ready()`` finds missing (the local model's
    wheel, a provider's API key). Nothing is loaded or sent."""
    cls = _embedder_class(name)
    ready = getattr(cls, "check_ready", None)
    if ready is not None:
        try:
            ready()
        except EmbedError as exc:
            raise SurveyError(f"embedder '{name}' cannot rate the replies: {exc}") from exc


__all__ = ["EMBEDDERS", "check_embedder_name", "check_embedder_ready", "EmbedError", "Embedder", "EmbeddingCache", "create_embedder", "embed_texts",
           "text_hash"]
