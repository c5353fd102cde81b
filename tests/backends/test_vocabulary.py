"""The vocabulary's bytes, rendered once per model file and kept in the user's cache
(survey.backends.vocabulary): the cached answers equal a fresh token-by-token scan, and a changed file
is scanned again."""

from __future__ import annotations

import os

import numpy as np
import pytest

from survey.backends import vocabulary as vocab_mod
from survey.backends.vocabulary import cache_dir, cache_key, vocabulary
from survey.responses import response_type


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(vocab_mod, "_MEMO", {})
    return tmp_path / "xdg" / "survey" / "vocab"


def _reference(pieces: list[bytes], labels) -> tuple[dict, np.ndarray]:
    """The scan as the runtime did it before the cache: one Python pass per question."""
    score_of = {label.strip().casefold(): value for value, label in labels.items()}
    found = {value: [] for value in labels}
    for tok, piece in enumerate(pieces):
        value = score_of.get(piece.decode("utf-8", "ignore").strip().casefold())
        if value is not None:
            found[value].append(tok)
    return found, np.array([p.decode("utf-8", "ignore")[:1].isalnum() for p in pieces])


TRICKY = [b"Yes", b" yes", b"\tYES\n", b"yes!", b"", b"  ", b"Ye", b"\xc3\xa9t\xc3\xa9", b"\xff No", b"\xe2\x80\x83no",
          b"NO ", b"7", b" 7", b"10", b"\xef\xac\x81", b"\xe2\x84\xaaiss", b"Definitely not", b"\xf0\x9f\x99\x82"]


def test_a_tiny_vocabulary_matches_the_token_by_token_scan(cache, tmp_path):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF tiny")
    for name in ("binary", "rating0-10", "choice"):
        labels = response_type(name).labels
        vocab = vocabulary(model, len(TRICKY), TRICKY.__getitem__)
        found, continues = _reference(TRICKY, labels)
        assert {v: ids.tolist() for v, ids in vocab.label_tokens(labels).items()} == found
        assert vocab.continues().tolist() == continues.tolist()
        assert [vocab.piece(i) for i in range(len(TRICKY))] == TRICKY
    # unicode whitespace and case folding: an em-space before "no", the Kelvin sign in "Kiss"
    got = vocab.label_tokens({0: "No", 1: "kiss"})
    assert got[0].tolist() == [8, 9, 10] and got[1].tolist() == [15]


def test_the_cache_is_read_back_and_a_changed_file_is_scanned_again(cache, tmp_path):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF tiny")
    calls = []

    def piece(tok: int) -> bytes:
        calls.append(tok)
        return TRICKY[tok]

    first = vocabulary(model, len(TRICKY), piece)
    assert len(calls) == len(TRICKY) and (cache / f"{cache_key(model)}.npz").is_file()
    assert cache == cache_dir()
    vocab_mod._MEMO.clear()
    again = vocabulary(model, len(TRICKY), piece)  # from the disk: nothing rendered
    assert len(calls) == len(TRICKY)
    assert again.data.tobytes() == first.data.tobytes() and again.continues().tolist() == first.continues().tolist()
    labels = response_type("binary").labels
    assert {v: ids.tolist() for v, ids in again.label_tokens(labels).items()} == \
        {v: ids.tolist() for v, ids in first.label_tokens(labels).items()}

    old_key = cache_key(model)
    st = model.stat()
    os.utime(model, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched: a new key, a new scan
    assert cache_key(model) != old_key
    vocab_mod._MEMO.clear()
    vocabulary(model, len(TRICKY), piece)
    assert len(calls) == 2 * len(TRICKY)
    model.write_bytes(b"GGUF tiny, rewritten")  # another size
    vocab_mod._MEMO.clear()
    vocabulary(model, len(TRICKY), piece)
    assert len(calls) == 3 * len(TRICKY)


def test_a_broken_or_foreign_cache_file_is_rescanned(cache, tmp_path):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF tiny")
    cache.mkdir(parents=True)
    (cache / f"{cache_key(model)}.npz").write_bytes(b"not a zip")
    vocab = vocabulary(model, len(TRICKY), TRICKY.__getitem__)
    assert vocab.piece(0) == b"Yes"
    vocab_mod._MEMO.clear()
    assert vocabulary(model, len(TRICKY), TRICKY.__getitem__).piece(1) == b" yes"  # the rewritten file reads


def test_xdg_cache_home_is_honoured_and_a_relative_one_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "survey" / "vocab"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    assert str(cache_dir()) == os.path.expanduser("~/.cache/survey/vocab")


def test_smollm2_cached_answers_equal_a_fresh_scan(cache):
    pytest.importorskip("llama_cpp")
    from survey.backends.llama_runtime import LlamaRuntime
    from survey.backends.local_models import smollm2_path

    rt = LlamaRuntime(smollm2_path(), n_threads=1)
    try:
        pieces = [rt.piece(tok) for tok in range(rt.n_vocab)]
        rt.vocabulary()  # scanned and written
        vocab_mod._MEMO.clear()
        cached = rt.vocabulary()  # read back
        assert cached.file is not None and cached.file.parent == cache
        for name in ("binary", "likert5", "rating0-10", "choice"):
            labels = response_type(name).labels
            found, continues = _reference(pieces, labels)
            assert {v: ids.tolist() for v, ids in cached.label_tokens(labels).items()} == found
            assert np.array_equal(cached.continues(), continues)
        vocab_mod._MEMO.clear()
        again = rt.vocabulary()  # the label sets' answers now come from the cache as well
        labels = response_type("binary").labels
        assert {v: ids.tolist() for v, ids in again.label_tokens(labels).items()} == _reference(pieces, labels)[0]
    finally:
        rt.llm.close()
