"""Reading what the Mistral API answers (survey.backends.mistral): a chat completion as a Reply (reasoning chunks
kept apart from the answer) and an error body as its code and message."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from survey.backends.base import Reply
from survey.backends.provider import empty_reply, first_token_logprobs

if TYPE_CHECKING:
    from mistralai.client import models


def to_reply(resp: models.ChatCompletionResponse, source: str = "the Mistral API") -> Reply:
    """Text of the first choice (reasoning chunks dropped from the answer, kept in extra), usage,
    the reported model id and the first token's top log-probabilities. A reply without any choice (a flaky
    proxy) holds no answer: a BackendError, retried."""
    if not isinstance(resp.choices, list) or not resp.choices:
        raise empty_reply(source)
    choice = resp.choices[0]
    text, reasoning = _flatten(choice.message.content if choice is not None and choice.message else None)
    usage = resp.usage
    extra: dict = {"response_id": resp.id}
    if choice is not None:
        extra["finish_reason"] = str(choice.finish_reason)
    if reasoning:
        extra["reasoning"] = reasoning
    return Reply(text=text, model_id=resp.model, prompt_tokens=usage.prompt_tokens if usage else None,
                 completion_tokens=usage.completion_tokens if usage else None,
                 logprobs=first_token_logprobs(choice), extra=extra)


def _flatten(content) -> tuple[str | None, str]:
    if content is None or isinstance(content, str):
        return content, ""
    if not isinstance(content, list):  # UNSET
        return None, ""
    from mistralai.client import models

    text, thinking = [], []
    for chunk in content:
        if isinstance(chunk, models.TextChunk):
            text.append(chunk.text)
        elif isinstance(chunk, models.ThinkChunk):
            thinking += [t.text for t in chunk.thinking if isinstance(t, models.TextChunk)]
    return "".join(text), "".join(thinking)


def error_fields(body: str | None) -> tuple[str | None, str]:
    """(code, message) from a Mistral error body: {"type", "code", "message"} or {"detail": [...]}."""
    try:
        data = json.loads(body or "")
    except ValueError:
        return None, (body or "").strip()[:300]
    if not isinstance(data, dict):
        return None, str(data)[:300]
    if isinstance(data.get("detail"), list):
        parts = [f"{'.'.join(map(str, d.get('loc', [])))}: {d.get('msg', '')}" for d in data["detail"]
                 if isinstance(d, dict)]
        return "invalid_parameter", "; ".join(parts)
    message = data.get("message") or data.get("detail") or ""
    if isinstance(message, dict):
        message = json.dumps(message)
    code = data.get("type") or (str(data["code"]) if data.get("code") is not None else None)
    return code, str(message)


__all__ = ["error_fields", "to_reply"]
