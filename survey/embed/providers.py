"""Provider embedders: Mistral ``mistral-embed`` (mistralai) and DashScope ``text-embedding-v4``.

Keys come only from the environment (MISTRAL_API_KEY, DASHSCOPE_API_KEY) and are never stored.
``server_url`` / ``base_url`` exist so tests can point the real SDKs at fake servers on 127.0.0.1.
"""

from __future__ import annotations

import os
import time

import numpy as np

from survey.embed.base import EmbedError, as_matrix, batched


class MistralEmbedder:
    """mistral-embed (1024-d). The SDK retries 429/5xx with backoff (honouring Retry-After)."""

    @staticmethod
    def check_ready() -> None:
        if not os.environ.get("MISTRAL_API_KEY"):
            raise EmbedError("mistral-embed needs the environment variable MISTRAL_API_KEY")

    def __init__(self, model: str = "mistral-embed", server_url: str | None = None,
                 batch_size: int = 64, timeout_ms: int = 60_000):
        self.model = model
        self.name = f"mistral:{model}"
        self.server_url = server_url or os.environ.get("MISTRAL_SERVER_URL") or None
        self.batch_size = int(batch_size)
        self.timeout_ms = timeout_ms
        self._client = None

    def _get_client(self):
        if self._client is None:
            from mistralai.client import Mistral
            from mistralai.client.utils import BackoffStrategy, RetryConfig

            key = os.environ.get("MISTRAL_API_KEY")
            if not key:
                raise EmbedError("mistral-embed needs the environment variable MISTRAL_API_KEY")
            retry = RetryConfig("backoff", BackoffStrategy(500, 30_000, 2.0, 300_000), True)
            kwargs = {"server_url": self.server_url} if self.server_url else {}
            self._client = Mistral(api_key=key, retry_config=retry, timeout_ms=self.timeout_ms, **kwargs)
        return self._client

    def embed(self, texts: list[str]) -> np.ndarray:
        from mistralai.client import errors

        client = self._get_client()
        parts = []
        for chunk in batched(list(texts), self.batch_size):
            try:
                resp = client.embeddings.create(model=self.model, inputs=chunk)
            except errors.SDKError as exc:
                raise EmbedError(f"mistral-embed: HTTP {exc.status_code}: {str(exc)[:300]}") from exc
            except Exception as exc:  # connection errors, validation errors of the reply
                raise EmbedError(f"mistral-embed: {type(exc).__name__}: {str(exc)[:300]}") from exc
            data = sorted(resp.data, key=lambda d: d.index if d.index is not None else 0)
            parts.append(as_matrix([d.embedding for d in data], len(chunk), "mistral-embed"))
        return np.concatenate(parts) if parts else np.zeros((0, 1024), np.float32)


# DashScope codes after which waiting helps; everything else (bad key, bad parameter) is final.
_TRANSIENT = ("Throttling", "Throttling.RateQuota", "Throttling.AllocationQuota", "InternalError",
              "ServiceUnavailable")


class DashScopeEmbedder:
    """text-embedding-v4 (1024-d by default; ``dimension`` picks another size, which changes the cache key).

    dashscope's legacy calls do not raise on errors, so we check status_code and back off on throttling.
    At most 10 texts go in one call (the v4 limit).
    """

    @staticmethod
    def check_ready() -> None:
        if not os.environ.get("DASHSCOPE_API_KEY"):
            raise EmbedError("text-embedding-v4 needs the environment variable DASHSCOPE_API_KEY")

    def __init__(self, model: str = "text-embedding-v4", dimension: int | None = None,
                 base_url: str | None = None, batch_size: int = 10, max_retries: int = 6,
                 backoff: float = 1.0):
        self.model = model
        self.dimension = dimension
        self.name = f"dashscope:{model}" + (f":{dimension}" if dimension else "")
        self.base_url = base_url or os.environ.get("DASHSCOPE_BASE_URL") or None
        self.batch_size = min(int(batch_size), 10)
        self.max_retries = max_retries
        self.backoff = backoff

    def _call(self, chunk: list[str]):
        import dashscope

        # dashscope reads the environment only at import: pass the key on each call instead.
        key = os.environ.get("DASHSCOPE_API_KEY") or dashscope.api_key
        if not key:
            raise EmbedError("text-embedding-v4 needs the environment variable DASHSCOPE_API_KEY")
        kwargs = {"api_key": key, "dimension": self.dimension} if self.dimension else {"api_key": key}
        if self.base_url:  # per call, so the SDK's global base URL stays as the user set it
            kwargs["base_address"] = self.base_url
        for attempt in range(self.max_retries + 1):
            try:
                resp = dashscope.TextEmbedding.call(model=self.model, input=chunk, **kwargs)
            except Exception as exc:  # connection refused and similar
                raise EmbedError(f"{self.name}: {type(exc).__name__}: {str(exc)[:300]}") from exc
            if resp.status_code == 200:
                return resp
            transient = resp.status_code == 429 or resp.status_code >= 500 or resp.code in _TRANSIENT
            if not transient or attempt == self.max_retries:
                raise EmbedError(f"{self.name}: HTTP {resp.status_code} {resp.code}: {resp.message}")
            time.sleep(self.backoff * 2 ** attempt)
        raise AssertionError("unreachable")

    def embed(self, texts: list[str]) -> np.ndarray:
        parts = []
        for chunk in batched(list(texts), self.batch_size):
            resp = self._call(chunk)
            try:
                rows = sorted(resp.output["embeddings"], key=lambda e: e.get("text_index", 0))
                vecs = [r["embedding"] for r in rows]
            except (KeyError, TypeError) as exc:
                raise EmbedError(f"{self.name}: malformed reply, no output.embeddings ({exc})") from exc
            parts.append(as_matrix(vecs, len(chunk), self.name))
        return np.concatenate(parts) if parts else np.zeros((0, self.dimension or 1024), np.float32)
