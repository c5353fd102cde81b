"""Generate personas and paraphrases with any configured model, through the Backend interface only.

Each round asks the model for a JSON list, validates every item (invalid ones are reported and
dropped), removes duplicates (reported with the reason), and asks again for what is still missing,
listing what it already has, until `count` items are kept or `max_attempts` requests were made.
No file I/O here: the CLI writes the result.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from survey.backends.base import Backend, BackendError, Query
from survey.common.options import options_from
from survey.errors import SurveyError, pydantic_message
from survey.registry import Persona
from survey.registry.dedup import NEAR_THRESHOLD, Deduplicator, Removal, normalise

MAX_PER_REQUEST = 50  # items asked for in one reply: long lists get truncated or drift off-format
SHOWN_EXISTING = 60  # kept items listed in the prompt so the model avoids them; bounds prompt length
MAX_RETRY_WAIT = 30.0
MAX_TEXT = 300

# What each known persona attribute should look like; unknown attributes only need a short value.
ATTRIBUTE_RULES: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "age": ("an integer from 18 to 90", None),
    "gender": ("male, female or non-binary", None),
    "occupation": ("a job title such as Nurse, or Retired <job>, or Student", None),
    "income": ("low, medium or high", ("low", "medium", "high")),
    "marital_status": ("single, married, divorced or widowed", ("single", "married", "divorced", "widowed")),
}

Progress = Callable[[int, int, int], None]  # (kept so far, wanted, requests made)


@dataclass
class Invalid:
    """Something the model produced that was dropped before de-duplication, and why."""

    raw: str
    reason: str
    attempt: int

    def to_dict(self) -> dict:
        return {"raw": self.raw, "reason": self.reason, "attempt": self.attempt}


@dataclass
class GenerationResult:
    kept: list[Any]  # paraphrase texts, or Persona objects
    requested: int
    attempts: int = 0
    removed: list[Removal] = field(default_factory=list)
    invalid: list[Invalid] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    interrupted: bool = False  # stopped by Ctrl-C; `kept` holds everything received until then

    @property
    def complete(self) -> bool:
        return len(self.kept) >= self.requested

    def to_dict(self) -> dict:
        return {"requested": self.requested, "kept": len(self.kept), "complete": self.complete,
                "attempts": self.attempts, "interrupted": self.interrupted, "removed": [r.to_dict() for r in self.removed],
                "invalid": [i.to_dict() for i in self.invalid],
                "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens}}


# ---- parsing model replies -------------------------------------------------------------------------

_FENCE = re.compile(r"```[a-zA-Z]*\n?|```")
_LIST_MARKER = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•])\s+")


def _json_items(reply: str, opener: str, closer: str) -> list | None:
    """The JSON array in a reply (prose or code fences around it tolerated), or None."""
    text = _FENCE.sub("", reply)
    start, end = text.find(opener), text.rfind(closer)
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start:end + 1])
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict):  # {"paraphrases": [...]} or a single object
        lists = [v for v in data.values() if isinstance(v, list)]
        return lists[0] if len(lists) == 1 else [data]
    return data if isinstance(data, list) else None


def parse_paraphrases(reply: str, attempt: int) -> tuple[list[str], list[Invalid]]:
    """Texts from a reply: a JSON array of strings, else a numbered or bulleted list; the rest is invalid."""
    items = _json_items(reply, "[", "]")
    texts, invalid = [], []
    if items is None:  # fall back to list lines; prose lines ("Sure! Here are...") are not paraphrases
        items = []
        for line in _FENCE.sub("", reply).splitlines():
            if not line.strip():
                continue
            if _LIST_MARKER.match(line):
                items.append(_LIST_MARKER.sub("", line, count=1))
            else:
                invalid.append(Invalid(line.strip(), "not a JSON string or a list item", attempt))
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            item = item["text"]
        if not isinstance(item, str):
            invalid.append(Invalid(json.dumps(item, ensure_ascii=False), "not a string", attempt))
            continue
        text = " ".join(item.split()).strip().strip('"').strip()
        if not normalise(text):
            invalid.append(Invalid(item, "empty", attempt))
        elif len(text) > MAX_TEXT:
            invalid.append(Invalid(item, f"longer than {MAX_TEXT} characters", attempt))
        elif text.endswith(":"):
            invalid.append(Invalid(item, "a heading, not a paraphrase", attempt))
        else:
            texts.append(text)
    if not texts and not invalid and reply.strip():
        invalid.append(Invalid(reply.strip()[:500], "no list found in the reply", attempt))
    return texts, invalid


def _clean_attribute(name: str, value: Any) -> Any:
    """Coerce a model's value to the attribute's rule, or raise ValueError saying what was expected."""
    rule, choices = ATTRIBUTE_RULES.get(name, ("a short value", None))
    if name == "age":
        try:
            age = int(str(value).strip()) if not isinstance(value, bool) else None
        except ValueError:
            age = None
        if age is None or not 18 <= age <= 100:
            raise ValueError(f"{name} must be {rule}, got {value!r}")
        return age
    if not isinstance(value, str | int | float) or isinstance(value, bool) or not str(value).strip():
        raise ValueError(f"{name} must be {rule}, got {value!r}")
    value = " ".join(str(value).split())
    if choices:
        value = value.lower()
        if value not in choices:
            raise ValueError(f"{name} must be {rule}, got {value!r}")
    if len(value) > 80:
        raise ValueError(f"{name} is too long for {rule}")
    return value


def parse_personas(reply: str, attributes: list[str], attempt: int) -> tuple[list[dict], list[Invalid]]:
    """Attribute records from a reply: a JSON array of objects, else one JSON object per line."""
    items = _json_items(reply, "[", "]")
    invalid: list[Invalid] = []
    if items is None:
        items = []
        for line in _FENCE.sub("", reply).splitlines():
            line = _LIST_MARKER.sub("", line).strip().rstrip(",")
            if not line:
                continue
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError:
                invalid.append(Invalid(line, "not a JSON object", attempt))
    records = []
    for item in items:
        raw = json.dumps(item, ensure_ascii=False) if not isinstance(item, str) else item
        if not isinstance(item, dict):
            invalid.append(Invalid(raw, "not a JSON object", attempt))
            continue
        missing = [a for a in attributes if a not in item]
        if missing:
            invalid.append(Invalid(raw, f"missing {', '.join(missing)}", attempt))
            continue
        try:
            records.append({a: _clean_attribute(a, item[a]) for a in attributes})
        except ValueError as exc:
            invalid.append(Invalid(raw, str(exc), attempt))
    if not records and not invalid and reply.strip():
        invalid.append(Invalid(reply.strip()[:500], "no list found in the reply", attempt))
    return records, invalid


# ---- prompts ---------------------------------------------------------------------------------------

def paraphrase_prompt(message: str, k: int, existing: list[str]) -> tuple[str, str]:
    system = ("You write paraphrases for a survey experiment. Reply with a JSON array of strings and "
              "nothing else.")
    user = (f'Write {k} different paraphrases of this sentence: "{message}"\n'
            "Each must mean exactly the same thing (same speaker, intent and product) while varying "
            "vocabulary, formality and sentence structure. Do not add details, opinions or reasons.")
    if existing:
        shown = "\n".join(f"- {t}" for t in existing[-SHOWN_EXISTING:])
        user += f"\nDo not repeat or lightly reword any of these:\n{shown}"
    return system, user


def persona_prompt(population: str, attributes: list[str], k: int, existing: list[dict]) -> tuple[str, str]:
    system = ("You create realistic, diverse synthetic survey respondents. Reply with a JSON array of "
              "objects and nothing else.")
    keys = "\n".join(f"- {a}: {ATTRIBUTE_RULES.get(a, ('a short value', None))[0]}" for a in attributes)
    user = (f"Create {k} distinct {population} personas. Each is a JSON object with exactly these keys:\n"
            f"{keys}\nCover a realistic spread of every attribute; no two personas may be identical.")
    if existing:
        shown = "\n".join(json.dumps(r, ensure_ascii=False) for r in existing[-SHOWN_EXISTING:])
        user += f"\nThese exist already; do not repeat them:\n{shown}"
    return system, user


# ---- the generation loop ---------------------------------------------------------------------------

async def _ask(backend: Backend, query: Query, result: GenerationResult, attempt: int) -> str | None:
    """One request; retryable failures are reported and waited out, others stop generation."""
    try:
        reply = await backend.complete(query)
    except BackendError as exc:
        if not exc.retryable:
            raise SurveyError(f"the model refused the request ({exc}); check --model, the API key and "
                              "--param values") from None
        result.invalid.append(Invalid("", f"request failed, will retry: {exc}", attempt))
        await asyncio.sleep(min(exc.retry_after if exc.retry_after is not None else 2.0 ** attempt,
                                MAX_RETRY_WAIT))
        return None
    result.prompt_tokens += reply.prompt_tokens or 0
    result.completion_tokens += reply.completion_tokens or 0
    if not reply.text:
        result.invalid.append(Invalid("", "empty reply", attempt))
        return None
    return reply.text


def _query(kind: str, model: str, model_id: str, system: str, user: str, attempt: int,
           temperature: float, max_tokens: int, seed: int | None, params: dict | None) -> Query:
    # A new seed per attempt: a seeded provider would otherwise repeat the same reply every round.
    return Query(study="generate", model=model, message=kind, perturbation="", persona="", replicate=attempt,
                 system=system, user=user, model_id=model_id, temperature=temperature, max_tokens=max_tokens,
                 seed=None if seed is None else seed + attempt - 1, params=dict(params or {}))


async def _rounds(result: GenerationResult, kept: Callable[[], int], max_attempts: int,
                  one_round: Callable[[int], Awaitable[None]], on_progress: Progress | None) -> None:
    """Request rounds until enough is kept or the attempts run out."""
    attempt = 0
    try:
        while kept() < result.requested and attempt < max_attempts:
            attempt += 1
            await one_round(attempt)
            result.attempts = attempt
            if on_progress:
                on_progress(kept(), result.requested, attempt)
    except asyncio.CancelledError:
        # Ctrl-C (asyncio.run cancels the task): keep what was already paid for; the CLI writes it and
        # reports the interruption instead of discarding every reply.
        result.attempts, result.interrupted = attempt, True


@dataclass(frozen=True)
class GenerationOptions:
    """How a generator asks its model, checked once: the sampling ``temperature``, ``max_tokens`` per reply, a
    ``seed`` (a new one per attempt, derived from it), at most ``max_attempts`` requests, and extra provider
    ``params``. Every generator takes one as ``options`` or its fields as keywords."""

    temperature: float = 1.0
    max_tokens: int = 4096
    seed: int | None = None
    max_attempts: int = 10
    params: dict | None = None

    def __post_init__(self):
        if self.max_attempts < 1:
            raise SurveyError("--count and --max-attempts must be at least 1")
        if self.max_tokens < 1 or self.temperature < 0:
            raise SurveyError(f"--max-tokens must be at least 1 and --temperature at least 0; got "
                              f"{self.max_tokens} and {self.temperature}")


PERSONA_GENERATION = GenerationOptions(max_tokens=8192)  # a persona set's replies are long


async def generate_paraphrases(backend: Backend, message: str, count: int, *, model_id: str = "",
                               model: str = "", threshold: float = NEAR_THRESHOLD, include_message: bool = True,
                               on_progress: Progress | None = None, options: GenerationOptions | None = None,
                               **keywords) -> GenerationResult:
    """Up to `count` distinct paraphrases of `message` (the message itself first, as in the paper); how the
    model is asked is a GenerationOptions (``options``, or its fields as keywords)."""
    o = options_from(GenerationOptions, options, keywords, where="generate_paraphrases")
    temperature, max_tokens, seed, max_attempts, params = o.temperature, o.max_tokens, o.seed, o.max_attempts, o.params
    if count < 1 or max_attempts < 1:
        raise SurveyError("--count and --max-attempts must be at least 1")
    message = " ".join(message.split())
    if not normalise(message):
        raise SurveyError("--message is empty; give the sentence to paraphrase")
    result = GenerationResult(kept=[], requested=count)
    dedup = Deduplicator(threshold=threshold, existing=() if include_message else (message,))
    if include_message:
        dedup.offer(message)
    async def one_round(attempt: int) -> None:
        want = min(count - len(dedup.kept) + 2, MAX_PER_REQUEST)  # a little extra covers duplicates
        system, user = paraphrase_prompt(message, want, dedup.kept)
        text = await _ask(backend, _query("paraphrases", model, model_id, system, user, attempt, temperature,
                                          max_tokens, seed, params), result, attempt)
        if text is not None:
            texts, invalid = parse_paraphrases(text, attempt)
            result.invalid += invalid
            for t in texts:
                if len(dedup.kept) >= count:
                    break
                dedup.offer(t)

    await _rounds(result, lambda: len(dedup.kept), max_attempts, one_round, on_progress)
    result.kept, result.removed = dedup.kept[:count], dedup.removed
    return result


async def generate_personas(backend: Backend, count: int, attributes: list[str], *, model_id: str = "",
                            model: str = "", population: str = "shopper", on_progress: Progress | None = None,
                            options: GenerationOptions | None = None, **keywords) -> GenerationResult:
    """Up to `count` distinct personas with exactly `attributes`, ids "0", "1", ... in order of arrival.

    Two personas are duplicates when all their attributes are equal after normalisation. How the model is
    asked is a GenerationOptions (``options``, or its fields as keywords; by default PERSONA_GENERATION).
    """
    o = options_from(GenerationOptions, options or PERSONA_GENERATION, keywords, where="generate_personas")
    temperature, max_tokens, seed, max_attempts, params = o.temperature, o.max_tokens, o.seed, o.max_attempts, o.params
    if count < 1 or max_attempts < 1:
        raise SurveyError("--count and --max-attempts must be at least 1")
    if not attributes:
        raise SurveyError("the template names no persona attributes; use placeholders such as {age}")
    result = GenerationResult(kept=[], requested=count)
    seen: dict[tuple, str] = {}
    records: list[dict] = []
    async def one_round(attempt: int) -> None:
        want = min(count - len(records) + 2, MAX_PER_REQUEST)
        system, user = persona_prompt(population, attributes, want, records)
        text = await _ask(backend, _query("personas", model, model_id, system, user, attempt, temperature,
                                          max_tokens, seed, params), result, attempt)
        if text is not None:
            found, invalid = parse_personas(text, attributes, attempt)
            result.invalid += invalid
            for rec in found:
                if len(records) >= count:
                    break
                key = tuple(normalise(str(rec[a])) for a in attributes)
                shown = json.dumps(rec, ensure_ascii=False)
                if key in seen:
                    result.removed.append(Removal(shown, "exact", seen[key], 1.0))
                    continue
                seen[key] = shown
                records.append(rec)

    await _rounds(result, lambda: len(records), max_attempts, one_round, on_progress)
    try:
        result.kept = [Persona(id=str(i), **rec) for i, rec in enumerate(records)]
    except ValidationError as exc:  # cannot happen after _clean_attribute, but never write a bad set
        raise SurveyError(pydantic_message(exc, "generated persona")) from None
    return result
