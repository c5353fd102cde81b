"""One llama.cpp model + context, with next-token distributions that reuse the KV cache of shared prefixes.

The engine sends this backend's queries sorted by prompt (Capabilities.prompt_order), so consecutive
prompts share the persona's system prompt and the question's opening words. ``next_logits`` keeps the evaluated tokens (llama-cpp-python's
``input_ids[:n_tokens]``), drops the KV cells past the longest common prefix and evaluates only the
new suffix. A context is not thread safe: every public method holds ``self.lock``.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from survey.backends.label_paths import LabelPaths, build
from survey.backends.local_models import file_sha256
from survey.backends.local_models import smollm2_path as default_gguf_path  # noqa: F401 - public name
from survey.backends.vocabulary import Vocabulary, vocabulary
from survey.common.threads import AutoThreads
from survey.errors import SurveyError

# The prompt of a GGUF without a chat template (a base model such as Gemma-3-270M): persona text, the
# question, and an "Answer:" cue whose next token is the answer (docs/local-model.md, "The prompt").
COMPLETION_TEMPLATE = "{system}\n\n{user}\nAnswer:"
# (file sha256, labels) -> token ids per score, from the vocabulary's bytes (survey.backends.vocabulary)
_LABEL_TOKENS: dict[tuple, dict[int, np.ndarray]] = {}
# (file sha256, labels) -> the labels' token-path trie (survey.backends.label_paths)
_LABEL_PATHS: dict[tuple, LabelPaths] = {}
_CONTINUES: dict[str, np.ndarray] = {}  # file sha256 -> tokens whose text starts with a letter or digit
# Rows per group in ggml's repacked CPU matrix kernels (e.g. Q4_K: gemm over 4 activation rows, gemv
# for the rest). Reused KV cells must have been computed in the same groups as a fresh evaluation.
ROW_GROUP = 4


def check_gguf(path: Path) -> Path:
    """Fail early, naming the file, when it is missing or not a GGUF (magic bytes 'GGUF')."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise SurveyError(f"local backend option gguf: no such file '{path}'")
    with open(path, "rb") as fh:
        if fh.read(4) != b"GGUF":
            raise SurveyError(f"local backend option gguf: '{path}' is not a GGUF model file "
                              "(convert it with llama.cpp's convert_hf_to_gguf.py)")
    return path


def log_softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """float64 log-probabilities of softmax(logits / T); T = 0 puts all mass on the argmax."""
    x = logits.astype(np.float64)
    if temperature <= 0:
        out = np.full_like(x, -np.inf)
        out[int(np.argmax(x))] = 0.0
        return out
    x = x / temperature
    x -= x.max()
    return x - np.log(np.exp(x).sum())


def sample_token(logprobs: np.ndarray, rng: np.random.Generator, top_p: float = 1.0,
                 allowed: np.ndarray | None = None) -> int:
    """Draw one token id from exp(logprobs), optionally restricted to ``allowed`` ids and nucleus top_p."""
    ids = np.arange(logprobs.size) if allowed is None else np.asarray(allowed)
    p = np.exp(logprobs[ids] - logprobs[ids].max())
    if top_p < 1.0:
        order = np.argsort(-p, kind="stable")
        keep = np.cumsum(p[order]) / p.sum() - p[order] / p.sum() < top_p  # smallest set reaching top_p
        ids, p = ids[order[keep]], p[order[keep]]
    return int(ids[rng.choice(p.size, p=p / p.sum())])


class LlamaRuntime:
    """A loaded GGUF with its chat template, answer-label token variants and prefix-reusing evaluation."""

    def __init__(self, path: Path, *, n_ctx: int = 2048, n_threads: int | None = None, seed: int = 0,
                 chat_template: str | None = None, kv_reuse: bool = True, prompt_format: str = "auto"):
        try:
            from llama_cpp import Llama, llama_cpp
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError as exc:
            raise SurveyError(f"the local backend needs llama-cpp-python: pip install 'survey[local]' ({exc})") \
                from exc
        self.path = check_gguf(path)
        self._c = llama_cpp
        # One thread count for prompts and single tokens alike: llama-cpp-python would otherwise use every
        # core for prompt batches, and ggml's spinning thread barrier is several times slower when another
        # process holds one of those cores (measured in docs/local-model.md). Without n_threads: two when
        # two cores are free, else one, revised while the model runs (survey.common.threads.AutoThreads).
        self.auto_threads = AutoThreads() if n_threads is None else None
        self.n_threads = n_threads or self.auto_threads.threads
        try:
            self.llm = Llama(str(self.path), n_ctx=n_ctx, n_threads=self.n_threads,
                             n_threads_batch=self.n_threads, seed=seed, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise SurveyError(f"local backend option gguf: llama.cpp could not load '{self.path}': {exc}") from exc
        self.lock = threading.Lock()
        self.kv_reuse = kv_reuse
        self.n_ctx = self.llm.n_ctx()
        self.n_vocab = self.llm.n_vocab()
        self._vocab = self.llm._model.vocab
        template = chat_template or self.llm.metadata.get("tokenizer.chat_template")
        if prompt_format == "auto":  # a GGUF without a chat template is a base model: prompt it as text
            prompt_format = "chat" if template else "completion"
        self.prompt_format = prompt_format
        self.formatter = None
        if prompt_format == "chat":
            if not template:
                raise SurveyError(f"'{self.path}' has no tokenizer.chat_template in its GGUF metadata; "
                                  "set the local backend option chat_template to a Jinja chat template, or "
                                  "prompt_format = \"completion\"")
            self.formatter = Jinja2ChatFormatter(template, eos_token=self._special_text(self.llm.token_eos()),
                                                 bos_token=self._special_text(self.llm.token_bos()))
        self.sha256 = file_sha256(self.path)
        self.name = self.path.name.removesuffix(".gguf")
        self._last_logits: np.ndarray | None = None  # logits after input_ids[:n_tokens]
        self._grouped = 0  # input_ids[:_grouped] were evaluated in whole row groups (see next_logits)
        self.forward_passes = 0  # prompt evaluations (cache misses), the unit a cell should cost once
        self.decode_steps = 0  # single-token evaluations while generating free text
        self.tokens_evaluated = 0

    # -- vocabulary -------------------------------------------------------------------------------

    def _special_text(self, token: int) -> str:
        return "" if token < 0 else self._c.llama_vocab_get_text(self._vocab, token).decode("utf-8", "replace")

    def piece(self, token: int) -> bytes:
        """The bytes a token renders as. Sized buffer: llama-cpp-python's helper pads with NULs."""
        buf = ctypes.create_string_buffer(64)
        n = self._c.llama_token_to_piece(self._vocab, token, buf, 64, 0, False)
        if n < 0:  # buffer too small; n is minus the size needed
            buf = ctypes.create_string_buffer(-n)
            n = self._c.llama_token_to_piece(self._vocab, token, buf, -n, 0, False)
        return buf.raw[:n]

    def token_text(self, token: int) -> str:
        return self.piece(token).decode("utf-8", "replace")

    def label_tokens(self, labels: Mapping[int, str]) -> dict[int, np.ndarray]:
        """Per score, every token whose text, stripped of whitespace and case-folded, is its label.

        For SmolLM2 and the labels Yes/No that is 'Yes', ' Yes', 'yes', ' yes' and 'No', ' No', 'no',
        ' no', 'NO', ' NO': exactly the single tokens the response type parses as those answers.
        A score without any token gets an empty array. Computed once per model file and label set
        in a process, with numpy over the vocabulary's bytes, which are rendered once per model file
        and kept in the user's cache (survey.backends.vocabulary).
        """
        key = (self.sha256, *labels.items())
        if key not in _LABEL_TOKENS:
            _LABEL_TOKENS[key] = self.vocabulary().label_tokens(labels)
        return _LABEL_TOKENS[key]

    def vocabulary(self) -> Vocabulary:
        """Every token's bytes, from the process, the user's cache, or one scan of the vocabulary."""
        return vocabulary(self.path, self.n_vocab, self.piece)

    def label_paths(self, labels: Mapping[int, str]) -> LabelPaths:
        """The token paths that spell each label (survey.backends.label_paths): the single-token variants
        of ``label_tokens`` plus the tokenizer's spelling of the label, case-folded and capitalised,
        with and without a leading space. Kept per model file and label set for the process."""
        key = (self.sha256, *labels.items())
        if key not in _LABEL_PATHS:
            spellings = {}
            for value, label in labels.items():
                words = dict.fromkeys([label, label.casefold(), label[:1].upper() + label[1:]])
                spellings[value] = [tuple(self.llm.tokenize((space + w).encode(), add_bos=False, special=False))
                                    for w in words for space in ("", " ")]
            _LABEL_PATHS[key] = build(tuple(labels), self.label_tokens(labels), spellings, self.continues())
        return _LABEL_PATHS[key]

    def continues(self) -> np.ndarray:
        """Per token: does its text start with a letter or digit (so it would extend a number or word)?"""
        if self.sha256 not in _CONTINUES:
            _CONTINUES[self.sha256] = self.vocabulary().continues()
        return _CONTINUES[self.sha256]

    def is_end(self, token: int) -> bool:
        return bool(self._c.llama_vocab_is_eog(self._vocab, token))

    # -- prompts ----------------------------------------------------------------------------------

    def render(self, system: str, user: str) -> str:
        """The chat template with the persona as system message, the question as user message and the
        generation prompt appended. An empty system prompt is left out (the template's default applies).
        Without a chat template: COMPLETION_TEMPLATE (an empty persona leaves out its paragraph)."""
        if self.formatter is None:
            text = COMPLETION_TEMPLATE.format(system=system, user=user)
            return text if system else text.removeprefix("\n\n")
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
        return self.formatter(messages=messages).prompt

    def tokenize(self, prompt: str) -> list[int]:
        # add_bos defers to the GGUF's add_bos_token flag; parse special tokens like <|im_start|>.
        tokens = self.llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        bos = self.llm.token_bos()
        if len(tokens) > 1 and tokens[0] == bos and tokens[1] == bos:  # template already wrote BOS
            tokens = tokens[1:]
        return tokens

    # -- evaluation -------------------------------------------------------------------------------

    def _read_logits(self) -> np.ndarray:
        ptr = self.llm._ctx.get_logits_ith(-1)  # logits of the last token of the last decoded batch
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).copy()

    def next_logits(self, tokens: list[int], *, reuse: bool | None = None) -> np.ndarray:
        """Logits of the token following ``tokens``. With ``reuse`` (default: the kv_reuse setting), KV
        cells of the longest common prefix with what the context already holds are kept and only the
        rest is evaluated; ``reuse=False`` is the naive baseline (clear and evaluate everything)."""
        reuse = self.kv_reuse if reuse is None else reuse
        if not tokens:
            raise ValueError("empty prompt")
        if len(tokens) >= self.n_ctx:
            raise OverflowError(f"prompt of {len(tokens)} tokens does not fit n_ctx = {self.n_ctx}")
        llm = self.llm
        held = llm.n_tokens
        common = 0
        if reuse and held:
            limit = min(held, len(tokens))
            same = np.asarray(llm.input_ids[:limit]) == np.asarray(tokens[:limit])
            common = limit if same.all() else int(np.argmin(same))
            if common == len(tokens) == held and self._last_logits is not None:
                return self._last_logits.copy()
            # Keep only KV cells that a fresh evaluation would compute alike: llama.cpp's CPU kernels
            # take activations in groups of ROW_GROUP rows and a ragged tail (and a lone token) another
            # way, whose rounding differs; so reuse whole groups of an earlier prompt, and evaluate at
            # least two tokens, never a lone one.
            common = min(common, len(tokens) - 2, self._grouped)
            common -= common % ROW_GROUP
        if common <= 0 or not llm._ctx.kv_cache_seq_rm(-1, common, -1):
            llm.reset()  # eval() then drops every KV cell past n_tokens = 0
            common = 0
        llm.n_tokens = common
        self._last_logits = None
        self._revise_threads()
        llm.eval(tokens[common:])
        self._grouped = len(tokens) - len(tokens) % ROW_GROUP  # cells computed in whole groups
        self.forward_passes += 1
        self.tokens_evaluated += len(tokens) - common
        self._last_logits = self._read_logits()
        return self._last_logits.copy()

    def _revise_threads(self) -> None:
        """With automatic threads: take the new count when AutoThreads says the load changed."""
        n = self.auto_threads.revise() if self.auto_threads is not None else None
        if n is not None:
            self._c.llama_set_n_threads(self.llm._ctx.ctx, n, n)
            self.llm.n_threads = self.llm.n_threads_batch = self.n_threads = n

    def extend(self, token: int) -> np.ndarray:
        """Append one generated token to the context and return the next logits."""
        if self.llm.n_tokens + 1 >= self.n_ctx:
            raise OverflowError(f"generation reached n_ctx = {self.n_ctx}")
        self._last_logits = None
        self._revise_threads()
        self.llm.eval([token])
        self.decode_steps += 1
        self.tokens_evaluated += 1
        self._last_logits = self._read_logits()
        return self._last_logits.copy()

    @staticmethod
    def label_mass(logprobs: np.ndarray, tokens: Mapping[int, np.ndarray]) -> dict[int, float]:
        """Per score, the probability summed over its token variants (from ``label_tokens``)."""
        p = np.exp(logprobs)
        return {value: float(p[ids].sum()) for value, ids in tokens.items()}

    def top_logprobs(self, logprobs: np.ndarray, k: int) -> dict[str, float]:
        """Top-k tokens as text -> logprob; tokens rendering to the same text have their mass combined."""
        out: dict[str, float] = {}
        for tok in np.argsort(-logprobs, kind="stable")[:k]:
            text = self.token_text(int(tok))
            lp = float(logprobs[tok])
            out[text] = float(np.logaddexp(out[text], lp)) if text in out else lp
        return out

    def generate(self, tokens: list[int], *, max_tokens: int, temperature: float, top_p: float,
                 rng: np.random.Generator, first_allowed: np.ndarray | None = None) -> tuple[str, int, str]:
        """Sampled completion of ``tokens``: (text, completion tokens, finish reason 'stop' | 'length').
        ``first_allowed`` restricts the first token (e.g. to the answer-label variants)."""
        logits = self.next_logits(tokens)
        out: list[int] = []
        finish = "length"
        while len(out) < max_tokens:
            tok = sample_token(log_softmax(logits, temperature), rng, top_p, None if out else first_allowed)
            if self.is_end(tok):
                finish = "stop"
                break
            out.append(tok)
            if len(out) == max_tokens:
                break
            try:
                logits = self.extend(tok)
            except OverflowError:
                break
        return b"".join(self.piece(t) for t in out).decode("utf-8", "replace"), len(out), finish

    def close(self) -> None:
        close = getattr(self.llm, "close", None)
        if close is not None:
            close()
