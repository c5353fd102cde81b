"""The one interface every backend implements. The engine knows only this file.

A backend turns one Query (a rendered persona system prompt + question) into one Reply, or raises
BackendError saying whether a retry can help. Batch-capable backends also implement BatchBackend.
A backend class states what it is (free or paid, batch, list prices...) in its ``capabilities``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Capabilities:
    """What a backend class declares about itself (``capabilities = Capabilities(...)`` on the class).

    Everything outside the backend (study validation, cost estimates, confirmation, batch checks,
    option paths, the report's cost column) asks this instead of knowing backend names. Declare it
    in a module that imports its SDK lazily, so reading it stays cheap.
    """

    paid: bool = True  # queries cost money: runs ask before sending and estimate a price
    needs_model_id: bool = True  # a study's model entry must name the provider's model id
    batch: bool = False  # implements BatchBackend (submit_batch, batch_status, fetch_batch)
    # approximate list prices, USD per 1M tokens (input, output), by model-id prefix; longest prefix wins
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    batch_discount: float = 1.0  # multiplier on list prices for batch jobs (Mistral bills half)
    path_options: tuple[str, ...] = ()  # options naming files: resolved against the study file's folder
    # Work is reused between consecutive queries with a common prompt prefix (an in-process model's KV cache
    # and its cache of the last prompts): the engine sends such a backend's queries sorted by prompt, so
    # equal prompts (respondents with the same attributes) come together and neighbours share the most.
    prompt_order: bool = False
    # takes a conversation (Query.history: earlier questions and the model's answers) as a message list, so a
    # study can ask its questions with flow = "conversation"
    conversation: bool = False

    def __post_init__(self):
        object.__setattr__(self, "prices", MappingProxyType(dict(self.prices)))
        object.__setattr__(self, "path_options", tuple(self.path_options))

    def list_price(self, model_id: str, *, batch: bool = False) -> tuple[float, float] | None:
        """(input, output) USD per 1M tokens for this model id, or None when no prefix matches."""
        if not self.paid:
            return (0.0, 0.0)
        match = max((k for k in self.prices if model_id.startswith(k)), key=len, default=None)
        if match is None:
            return None
        factor = self.batch_discount if batch else 1.0
        return tuple(x * factor for x in self.prices[match])


def capabilities_of(backend, options: Mapping | None = None) -> Capabilities:
    """The declared capabilities of a backend class or instance; undeclared ones get the cautious
    defaults (paid, needs a model id, no batch, no prices).

    A class whose nature depends on a model's options (the openai backend: a vLLM server on your own
    machine is free and has no Batch API, OpenAI is paid) also defines the classmethod
    ``capabilities_for(options) -> Capabilities``; it answers when ``options`` are given.
    """
    declare = getattr(backend, "capabilities_for", None)
    caps = declare(dict(options)) if options is not None and callable(declare) else \
        getattr(backend, "capabilities", None)
    if caps is None:
        return Capabilities()
    if not isinstance(caps, Capabilities):
        raise TypeError(f"{backend!r}: capabilities must be a survey.backends.base.Capabilities, "
                        f"not {type(caps).__name__}")
    return caps


@dataclass(frozen=True)
class Query:
    """One query: the key of its row in the store plus everything needed to send it."""

    study: str
    model: str  # the study's name for the model entry (a store key), not necessarily the provider id
    message: str
    perturbation: str
    persona: str
    replicate: int
    system: str  # rendered persona system prompt
    user: str  # rendered question containing the perturbation text
    model_id: str = ""  # provider model id, e.g. "ministral-8b-2512"
    temperature: float = 1.0
    max_tokens: int = 1
    seed: int | None = None
    logprobs: bool = False
    top_logprobs: int = 0
    params: dict[str, Any] = field(default_factory=dict, hash=False)  # extra provider parameters
    # the question's response type (survey.responses): its labels are what a backend that reads
    # first-token probabilities (local) scores
    scale: str = "binary"
    # the type itself when the study configures it (e.g. a Likert scale with its own words); else the
    # scale name's type
    response: Any = field(default=None, compare=False, hash=False, repr=False)
    # forced choice: the message and paraphrase shown second (``message``/``perturbation`` are shown first)
    second: str | None = None
    second_perturbation: str | None = None
    # a balanced scale (question order = "both"): "forward" or "reversed", the direction this replicate is asked in
    direction: str | None = None
    # pick one of k: ((message, perturbation), ...) in the order shown; ``message``/``perturbation`` are the first
    options: tuple[tuple[str, str], ...] | None = None
    # several questions per study: the question's id (part of the row key) and, in a conversation, its 0-based
    # position and the earlier turns ((question asked, model's reply), ...) the backend puts before ``user``
    question: str = "q"
    position: int | None = None
    history: tuple[tuple[str, str], ...] = field(default=(), compare=False, hash=False, repr=False)

    @property
    def chat_messages(self) -> list[dict[str, str]]:
        """The query as a chat message list: the system prompt, the conversation so far (if any), the question."""
        msgs = [{"role": "system", "content": self.system}] if self.system else []
        for asked, replied in self.history:
            msgs += [{"role": "user", "content": asked}, {"role": "assistant", "content": replied}]
        return msgs + [{"role": "user", "content": self.user}]

    @property
    def response_type(self):
        from survey.responses import response_type

        return self.response if self.response is not None else response_type(self.scale)

    @property
    def shown(self) -> dict[str, str]:
        """What a query showed beyond its message, for the store: the option shown second (forced choice), the
        options in the order shown (pick one of k) and the scale's direction (a balanced scale); empty otherwise."""
        out = {} if self.direction is None else {"direction": self.direction}
        if self.options is not None:  # pick one of k: every option, in the order shown
            out.update(shown=[m for m, _ in self.options], shown_perturbations=[str(p) for _, p in self.options])
        if self.second is None:
            return out
        return {**out, "second": self.second, "second_perturbation": str(self.second_perturbation)}

    @property
    def key(self) -> tuple:
        """The row key: (study, model, message, perturbation, persona, replicate, question)."""
        return (self.study, self.model, self.message, self.perturbation, self.persona, self.replicate, self.question)

    @property
    def provider_seed(self) -> int | None:
        """The seed to send for this row: derived from (seed, row key), so each replicate gets its own.

        ``seed`` is the study's model-level seed. Sending it unchanged for every replicate would make a
        provider that honours seeds return the same sample r times, and replicates must be independent.
        """
        if self.seed is None:
            return None
        blob = "\x1f".join(str(k) for k in (self.seed, *self.id_key)).encode()
        return int.from_bytes(hashlib.sha256(blob).digest()[:4], "little") & 0x7FFFFFFF

    @property
    def id_key(self) -> tuple:
        """The row key without the default question "q" (see ``id_key``)."""
        return id_key(self.key)

    @property
    def custom_id(self) -> str:
        """A stable id for batch files: the row key joined with a separator that ids never contain."""
        return "\x1f".join(str(k) for k in self.id_key)


def prompt_order_key(query: Query) -> tuple:
    """How a backend that reuses shared prompt prefixes (Capabilities.prompt_order) wants its queries sorted:
    by what the prompt shows in order (system prompt, then the question), so prompts sharing a prefix (a
    persona, its paraphrase, then different questions) come one after another."""
    return (query.system, query.user)


def id_key(key: tuple) -> tuple:
    """A row key without the default question "q": seeds, draws and batch ids of one-question studies stay as they
    were before studies had several questions (an open batch job still matches its queries)."""
    return tuple(key[:6]) if len(key) > 6 and key[6] == "q" else tuple(key)


@dataclass
class Reply:
    text: str | None  # raw response text, kept verbatim
    model_id: str | None = None  # the model id the provider reported (pinned version)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    logprobs: dict[str, float] | None = None  # first-token top log-probabilities, token -> logprob
    # exact mode: the cell's expected score given a valid answer (for Yes/No, P(Yes | Yes or No));
    # the table's ``expected`` column. Put the distribution over scores in extra["distribution"].
    p_yes: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # provenance the backend wants stored


class BackendError(Exception):
    """A failed call. ``retryable`` decides between backing off and recording the failure;
    ``stops_model`` says that no query of this model can succeed now (the account is out of credit or
    quota): the engine stops the model at once, keeping the query unsent rather than failed."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None,
                 code: str | None = None, retry_after: float | None = None, stops_model: bool = False):
        super().__init__(message)
        self.retryable = retryable and not stops_model
        self.status = status
        self.code = code
        self.retry_after = retry_after
        self.stops_model = stops_model


@runtime_checkable
class Backend(Protocol):
    """``complete`` one query, ``aclose`` at the end. A backend that talks to a server should also
    define ``async def preflight(self) -> None`` (see `Preflight`); without one, `preflight` is a no-op."""

    name: str

    async def complete(self, query: Query) -> Reply: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class Preflight(Protocol):
    """Part of the backend interface that backends without a server (local, simulated) leave out.

    ``preflight()`` makes one cheap request (list or retrieve the model; at worst a 1-token reply)
    before the run sends its first query. It returns when the request got any HTTP answer but a
    401, 403 or 404, and raises BackendError otherwise, with the URL it asked and what to fix in the
    message. `stops_run` decides which errors stop the run; the others are left to the engine.
    """

    async def preflight(self) -> None: ...


STOPPING_STATUS = frozenset({401, 403, 404})  # wrong key, no access, wrong URL or model id
STOPPING_CODES = frozenset({"connection", "bad_url"})  # refused, unreachable, unknown host, malformed URL
# an answer that is not the API's (an HTML page, broken JSON, the wrong shape): twice in a row, the URL is wrong
NOT_THE_API = frozenset({"malformed_response", "bad_response", "not_an_api"})


async def preflight(backend) -> None:
    """Run ``backend.preflight()`` if the backend defines one (a backend without a server has none)."""
    check = getattr(backend, "preflight", None)
    if check is not None:
        await check()


def stops_run(err: BackendError) -> bool:
    """A preflight failure that every query would repeat: no connection, a malformed URL, 401/403/404,
    an answer that is not the API's (a web page: the wrong URL), an account out of credit or quota.

    Rate limits, 5xx and slow answers are left to the engine's retries; a read timeout means the
    server is there.
    """
    return (err.stops_model or err.code in STOPPING_CODES or err.code in NOT_THE_API
            or err.status in STOPPING_STATUS)


@runtime_checkable
class BatchBackend(Protocol):
    """Provider batch jobs (the paper used Mistral's). The engine stores the job id before polling,
    so an interrupted run resumes the same job and never resubmits it."""

    async def submit_batch(self, queries: list[Query]) -> str: ...

    async def batch_status(self, job_id: str) -> str: ...  # QUEUED, RUNNING, SUCCESS, FAILED, ...

    async def fetch_batch(self, job_id: str) -> dict[str, Reply | BackendError]: ...  # custom_id -> result
