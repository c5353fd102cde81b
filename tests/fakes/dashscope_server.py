"""A fake DashScope native API on 127.0.0.1 for the real dashscope SDK (base address ``fake.base_url``).

Routes (under /api/v1): services/aigc/text-generation/generation (chat, result_format "message") and
services/embeddings/text-embedding/text-embedding (dashscope.TextEmbedding.call).
Like the real service, a Qwen3 model called without ``enable_thinking=false`` gets a 400.

Run standalone: ``PYTHONPATH=tests python -m fakes.dashscope_server --latency 0.1``.
"""

from __future__ import annotations

import uuid

from aiohttp import web

from .common import Cell, FakeServer, Rule, answer_for, fake_embedding, serve_forever, top_tokens

_ERRORS = {  # kind -> (status, code, message), as DashScope returns them
    "rate_limit": (429, "Throttling.RateQuota", "Requests rate limit exceeded, please try again later."),
    "throttling": (429, "Throttling", "Requests throttling triggered."),
    "quota": (429, "Throttling.AllocationQuota", "Allocated quota exceeded, please increase your quota limit."),
    "server_error": (500, "InternalError", "An internal error has occured, please try again later."),
    "unavailable": (503, "ServiceUnavailable", "The service is temporarily unavailable."),
    "content_filter": (400, "DataInspectionFailed", "Input data may contain inappropriate content."),
    "bad_key": (401, "InvalidApiKey", "Invalid API-key provided."),
    "invalid_param": (400, "InvalidParameter", "Range of temperature should be [0.0, 2.0)"),
    "arrearage": (400, "Arrearage", "Access denied, please make sure your account is in good standing."),
    "free_tier_used": (403, "Throttling.AllocationQuotaFreeTierOnly", "The free tier of the model has been "
                       "exhausted."),
}

GENERATION = "/api/v1/services/aigc/text-generation/generation"
EMBEDDING = "/api/v1/services/embeddings/text-embedding/text-embedding"


class DashScopeFake(FakeServer):
    name = "dashscope"

    def __init__(self, *, embed_dim: int = 1024, **kw):
        super().__init__(**kw)
        self.embed_dim = embed_dim
        self.last_parameters: dict = {}

    @property
    def base_url(self) -> str:
        return f"{self.url}/api/v1"

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post(GENERATION, self._generation)
        app.router.add_post(EMBEDDING, self._embedding)

    def error_response(self, rule: Rule) -> web.Response:
        if rule.kind in self.PAGES:
            return super().error_response(rule)
        status, code, message = _ERRORS[rule.kind]
        headers = {"Retry-After": f"{rule.retry_after:g}"} if rule.retry_after is not None else None
        return web.json_response({"code": code, "message": message, "request_id": str(uuid.uuid4())},
                                 status=status, headers=headers)

    @staticmethod
    def without_choices(body: dict) -> dict:
        return {**body, "output": {**body["output"], "choices": []}}

    @staticmethod
    def cell_of(body: dict) -> Cell:
        msgs = (body.get("input") or {}).get("messages", [])
        system = "".join(m.get("content", "") for m in msgs if m.get("role") == "system")
        user = "".join(m.get("content", "") for m in msgs if m.get("role") == "user")
        return (body.get("model", ""), system, user, (body.get("parameters") or {}).get("seed"))

    def generation(self, body: dict, cell: Cell, text: str | None) -> dict:
        params = body.get("parameters") or {}
        answer, p_yes = answer_for(cell)
        text = answer if text is None else text
        choice: dict = {"finish_reason": "length" if params.get("max_tokens") == 1 else "stop",
                        "message": {"role": "assistant", "content": text}}
        if params.get("logprobs"):
            first = text.split()[0] if text.split() else text
            top = [{"token": t, "bytes": list(t.encode()), "logprob": lp}
                   for t, lp in top_tokens(p_yes, params.get("top_logprobs") or 0)]
            chosen = next((e["logprob"] for e in top if e["token"] == first), -5.0)
            choice["logprobs"] = {"content": [{"token": first, "bytes": list(first.encode()), "logprob": chosen,
                                               "top_logprobs": top if params.get("top_logprobs") else []}]}
        inp = (len(cell[1]) + len(cell[2])) // 4 + 8
        return {"output": {"choices": [choice]}, "usage": {"input_tokens": inp, "output_tokens": 1,
                                                           "total_tokens": inp + 1},
                "request_id": str(uuid.uuid4())}

    async def _generation(self, request: web.Request) -> web.StreamResponse:
        if (denied := self._admit(request, "chat")) is not None:
            return denied
        body = await request.json()
        params = body.get("parameters") or {}
        self.last_parameters = params
        if body.get("model", "").startswith("qwen3") and params.get("enable_thinking") is not False:
            return web.json_response({"code": "InvalidParameter", "request_id": str(uuid.uuid4()),
                                      "message": "parameter.enable_thinking must be set to false for "
                                                 "non-streaming calls"}, status=400)
        cell = self.cell_of(body)
        return await self.chat_flow(request, body, cell, lambda text: self.generation(body, cell, text),
                                    malformed=b'{"output": {"choices": [{"message": ')

    async def _embedding(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "embeddings")) is not None:
            return denied
        body = await request.json()
        texts = (body.get("input") or {}).get("texts", [])
        texts = [texts] if isinstance(texts, str) else texts
        if (rule := self.take_fault("embeddings", body, "\n".join(texts))) is not None:
            return self.error_response(rule)
        dim = (body.get("parameters") or {}).get("dimension") or self.embed_dim
        tokens = sum(len(t) // 4 + 1 for t in texts)
        return web.json_response({
            "output": {"embeddings": [{"text_index": i, "embedding": fake_embedding(t, dim)}
                                      for i, t in enumerate(texts)]},
            "usage": {"total_tokens": tokens}, "request_id": str(uuid.uuid4())})


def main() -> None:
    serve_forever(DashScopeFake, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
