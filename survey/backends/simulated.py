"""Simulated respondents, offline and free: Yes/No answers from the Beta-logit model of Helm & Priebe
(2026) (survey.stats.beta_logit), rating-scale answers from the ordinal model (survey.kinds.ordinal.model)
and forced choices from the choice model (survey.kinds.choice.model); the question's response type
picks the model.

Every random quantity is a pure function of (seed, ids), never of call order: p_i hashes
(seed, persona), u_j (seed, message, perturbation), v_ij (seed, message, perturbation, persona) and
the Yes/No draw adds the replicate. Free text to be rated by semantic similarity (``ssr``) says in
words (``simulated_words``) a score drawn from the ordinal model. So an interrupted and resumed run, at any concurrency, gives
exactly the table an uninterrupted run would have given.

Options (the study's ``[models.options]``): mu, kappa (Yes/No persona Beta), sigma, rho (paraphrase
effects, every model), ``tau`` (rating scales: persona s.d. on the latent scale, default 1; forced
choice: s.d. of a persona's pull towards the first-shown option, default 0), ``cuts`` (rating scales:
K-1 increasing cut points, default logit(c/K)), ``position`` (forced choice: share choosing the
first-shown option between equals, default 0.5), ``deltas`` (a logit shift per message id, e.g.
{boots = 0.5}: more Yes, higher scores, chosen more often), ``positions`` (pick one of k: a logit
shift per position, e.g. [0.4, 0, 0]; ``tau`` then pulls each persona towards the first), ``seed`` (else the model's seed, else 0),
``invalid_rate`` (share of replies that are no answer), ``latency`` (seconds per call) and
``direction_bias`` (rating scales asked in both directions: a logit shift towards the end of the
scale as shown that means "yes", so +b raises forward answers and lowers reversed ones mapped back).

Every reply carries the cell's exact expected score as p_yes (P(Yes) for Yes/No, the mean score of a
rating, the expected position 2 - P(first) of a choice) and, beyond Yes/No, its distribution in
extra["distribution"].
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy.special import expit, logit

from survey.backends.base import BackendError, Capabilities, Query, Reply
from survey.backends.provider import parse_options
from survey.common.names import DEFAULT_QUESTION
from survey.errors import SurveyError
from survey.kinds.ordinal.model import OrdinalParams, category_probabilities, make_ordinal_params
from survey.stats.beta_logit import ModelParams

NO_ANSWER = "?"  # an invalid reply on a rating or choice question: no label, no number


class SimulatedOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mu: float = Field(0.5, gt=0, lt=1)
    kappa: float = Field(4.0, gt=0)
    sigma: float = Field(1.0, ge=0)
    rho: float = Field(0.3, ge=0, le=1)
    tau: float | None = Field(None, ge=0, allow_inf_nan=False, description="rating scales: persona s.d. on "
                              "the latent scale (default 1); choice: s.d. of a persona's first-position pull "
                              "(default 0)")
    cuts: list[float] | None = Field(None, description="rating scales: K-1 increasing cut points on the latent "
                                     "logit scale; default logit(c/K), every point equally likely at 0")
    position: float = Field(0.5, gt=0, lt=1, description="forced choice: share choosing the first-shown "
                            "option when both are equally good (0.5: no position bias)")
    positions: list[float] | None = Field(None, description="pick one of k: a logit shift per position 1..k "
                                          "(position bias); default none")
    deltas: dict[str, float] = Field(default_factory=dict, description="logit shift per message id")
    seed: int | None = None
    invalid_rate: float = Field(0.0, ge=0, le=1)
    latency: float = Field(0.0, ge=0)
    direction_bias: float = Field(0.0, allow_inf_nan=False, description="rating scales asked in both directions: "
                                  "logit shift towards the shown scale's agreeing end (acquiescence); 0: none")

    def check_question(self, rtype) -> None:
        """Options that do not fit the study's question are refused before anything is sent: cuts of the wrong
        number or order once failed every query (50 failed rows, exit 1), tau and cuts on a Yes/No study were
        silently ignored."""
        view = rtype.view
        shows = "options" in getattr(rtype, "slots", ())
        options = getattr(rtype, "n_options", len(rtype.labels))
        if self.positions is not None and (not shows or len(self.positions) != options):
            raise SurveyError("simulated backend options: positions gives one logit shift per position of a pick-one-"
                              f"of-k or best-worst question ({options if shows else 'none on ' + rtype.scale}); got "
                              f"{len(self.positions)}")
        if view.ordered:
            try:
                make_ordinal_params(points=rtype.points, low=rtype.low, tau=1.0 if self.tau is None else self.tau,
                                    sigma=self.sigma, rho=self.rho, cuts=None if self.cuts is None else tuple(self.cuts))
            except SurveyError as exc:
                raise SurveyError(f"simulated backend options on the {rtype.scale} scale: {exc}") from None
            return
        given = [k for k in ("tau", "cuts") if getattr(self, k) is not None
                 and not (k == "tau" and (not view.per_message or rtype.simulated_reply is not None))]
        if given and view.points:
            raise SurveyError(f"simulated backend options: {' and '.join(given)} apply to rating scales"
                              f"{' (tau also to forced choice)' if 'tau' in given else ''}; this study asks "
                              f"{rtype.scale}: remove them")

    def check_questions(self, rtypes: list) -> None:
        """check_question for a study of several questions: each option is checked on the questions it applies to
        (positions on those that show options, tau and cuts on rating scales), and refused when it applies to none."""
        if len(rtypes) == 1:
            self.check_question(rtypes[0])
            return
        applies = {"positions": lambda r: "options" in getattr(r, "slots", ()),
                   "cuts": lambda r: r.view.ordered,
                   "tau": lambda r: r.view.ordered or not r.view.per_message}
        for rtype in rtypes:
            drop = {k: None for k, fits in applies.items() if getattr(self, k) is not None and not fits(rtype)}
            self.model_copy(update=drop).check_question(rtype)
        for key, fits in applies.items():
            if getattr(self, key) is not None and not any(fits(r) for r in rtypes):
                self.check_question(rtypes[0])  # refused as on a study of that one question

    def check_messages(self, messages: list[str]) -> None:
        """A delta for a message the study does not have (a typo) would be ignored: refuse it."""
        unknown = sorted(set(self.deltas) - set(messages))
        if unknown:
            raise SurveyError(f"simulated backend options: deltas: unknown message(s) {', '.join(unknown)}; "
                              f"the study's messages are {', '.join(messages)}")


def _rng(*parts) -> np.random.Generator:
    """A generator seeded by a stable hash of the parts (Python's hash() is salted per process)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


class SimulatedBackend:
    name = "simulated"
    capabilities = Capabilities(paid=False, needs_model_id=False, conversation=True)
    options_model = SimulatedOptions  # checked by a dry run without creating the backend
    allowed_params: frozenset[str] = frozenset()  # nothing to pass on: any params would be ignored

    def __init__(self, model_id: str = "", **options):
        self.options = o = parse_options(SimulatedOptions, "simulated", options)
        self.params = ModelParams(mu=o.mu, kappa=o.kappa, sigma=o.sigma, rho=o.rho)
        self.model_id = model_id or "beta-logit"
        self._base: dict[tuple, float] = {}
        self._shared: dict[tuple, float] = {}

    def cell_probability(self, seed: int, persona: str, message: str, perturbation: str) -> float:
        """p_ij: the true P(Yes) of a (persona, perturbation) cell."""
        p = self.params
        if (seed, persona) not in self._base:
            draw = _rng(seed, "persona", persona).beta(p.a, p.b)
            self._base[(seed, persona)] = float(logit(min(max(draw, 1e-12), 1 - 1e-12)))
        shift = self.options.deltas.get(message, 0.0)
        return float(expit(self._base[(seed, persona)] + shift + self._shared_shift(seed, message, perturbation)
                           + self._persona_shift(seed, persona, message, perturbation)))

    def _shared_shift(self, seed: int, message: str, perturbation: str) -> float:
        """u_j: the paraphrase's shift shared by every persona, N(0, rho sigma^2)."""
        key = (seed, message, perturbation)
        if key not in self._shared:
            self._shared[key] = float(_rng(seed, "u", message, perturbation).normal(
                0.0, self.params.sigma * math.sqrt(self.params.rho)))
        return self._shared[key]

    def _persona_shift(self, seed: int, persona: str, message: str, perturbation: str) -> float:
        """v_ij: the paraphrase's shift for this persona only, N(0, (1 - rho) sigma^2)."""
        sd = self.params.sigma * math.sqrt(1 - self.params.rho)
        return float(_rng(seed, "v", message, perturbation, persona).normal(0.0, sd))

    def utility(self, seed: int, persona: str, message: str, perturbation: str) -> float:
        """delta_message + u_j + v_ij: the paraphrase's location for this persona on the latent logit
        scale (rating scales add the persona's eta_i; forced choice compares two of them)."""
        return (self.options.deltas.get(message, 0.0) + self._shared_shift(seed, message, perturbation)
                + self._persona_shift(seed, persona, message, perturbation))

    def ordinal_params(self, rtype) -> OrdinalParams:
        """The ordinal model on the question's scale; cuts that do not fit it stop the query."""
        o = self.options
        try:
            return make_ordinal_params(points=rtype.points, low=rtype.low, tau=1.0 if o.tau is None else o.tau,
                                       sigma=o.sigma, rho=o.rho, cuts=None if o.cuts is None else tuple(o.cuts))
        except SurveyError as exc:
            raise BackendError(f"simulated backend options on the {rtype.scale} scale: {exc}", retryable=False,
                               code="bad_options") from exc

    def rating_probabilities(self, seed: int, query: Query) -> dict[int, float]:
        """P(score) of the query's cell: category_probabilities at lambda = eta_i + delta + u_j + v_ij."""
        rtype = query.response_type
        params = self.ordinal_params(rtype)
        eta = float(_rng(seed, "eta", query.persona).normal(0.0, params.tau))
        lam = eta + self.utility(seed, query.persona, query.message, query.perturbation)
        # acquiescence pulls towards the end shown as "would buy": the high scores forward, the low ones reversed
        lam += self.options.direction_bias * (-1.0 if rtype.direction == "reversed" else 1.0)
        probs = category_probabilities(params, np.array(lam))
        return {int(s): float(p) for s, p in zip(params.scores, probs, strict=True)}

    def choice_probabilities(self, seed: int, query: Query) -> dict[int, float]:
        """P(position) of a forced choice (survey.kinds.choice.model): logit P(first) = logit(position)
        + eta_i + U_first - U_second, each paraphrase's utility the same whichever position shows it."""
        if query.second is None or query.second_perturbation is None:
            raise BackendError("simulated backend: a forced-choice query needs the message shown second",
                               retryable=False, code="bad_query")
        o = self.options
        eta = float(_rng(seed, "position", query.persona).normal(0.0, o.tau or 0.0))
        gap = (self.utility(seed, query.persona, query.message, query.perturbation)
               - self.utility(seed, query.persona, query.second, str(query.second_perturbation)))
        first = float(expit(logit(o.position) + eta + gap))
        return {1: first, 2: 1.0 - first}

    def pick_probabilities(self, seed: int, query: Query) -> dict[int, float]:
        """P(position) of a pick one of k: a multinomial logit over the positions, position t's logit the
        paraphrase's utility (delta + u_j + v_ij, the same wherever it is shown) plus ``positions[t]``; the
        persona's pull eta_i ~ N(0, tau^2) adds to the first position, as in forced choice."""
        o, k = self.options, len(query.options)
        shifts = np.zeros(k) if o.positions is None else np.asarray(o.positions, dtype=float)
        if len(shifts) != k:
            raise BackendError(f"simulated backend: positions has {len(shifts)} shifts for {k} options",
                               retryable=False, code="bad_options")
        eta = float(_rng(seed, "position", query.persona).normal(0.0, o.tau or 0.0))
        logits = shifts + np.array([self.utility(seed, query.persona, m, str(p)) for m, p in query.options])
        logits[0] += eta
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        return {t + 1: float(p) for t, p in enumerate(probs)}

    async def complete(self, query: Query) -> Reply:
        if self.options.latency:
            await asyncio.sleep(self.options.latency)
        seed = self.options.seed if self.options.seed is not None else (query.seed or 0)
        rtype = query.response_type
        if rtype.rated_text:  # free text that the run rates afterwards (ssr): words for a drawn score
            return self._rated_text(seed, query, rtype)
        if rtype.simulated_reply is not None:
            return self._located(seed, query, rtype)
        if getattr(rtype, "best_worst", False):
            return self._best_worst(seed, query, rtype)
        if getattr(rtype, "simulated_answer", None) is not None and query.options is not None:
            return self._own_answer(seed, query, rtype)
        if rtype.elicit == "distribution":
            return self._stated(seed, query, rtype)
        if rtype.ordered or rtype.simulated_as_score or query.options is not None:
            return self._scored(seed, query, rtype)
        p = self.cell_probability(seed, query.persona, query.message, query.perturbation)
        u_invalid, u_yes = _rng(seed, "y", query.message, query.perturbation, query.persona,
                                *_draw(query)).random(2)
        text = "Maybe" if u_invalid < self.options.invalid_rate else ("Yes" if u_yes < p else "No")
        logprobs = None
        if query.logprobs:
            logprobs = {"Yes": math.log(max(p, 1e-300)), "No": math.log(max(1 - p, 1e-300))}
        return Reply(text=text, model_id=f"simulated/{self.model_id}",
                     prompt_tokens=(len(query.system) + len(query.user)) // 4, completion_tokens=1,
                     logprobs=logprobs, p_yes=p)

    def _distribution(self, seed: int, query: Query, rtype) -> dict[int, float]:
        """The cell's true distribution over scores (Yes/No: P(Yes) and P(No))."""
        if rtype.ordered:
            return self.rating_probabilities(seed, query)
        if query.options is not None:
            return self.pick_probabilities(seed, query)
        if rtype.simulated_as_score:
            return self.choice_probabilities(seed, query)
        p = self.cell_probability(seed, query.persona, query.message, query.perturbation)
        return {1: p, 0: 1.0 - p}

    def _stated(self, seed: int, query: Query, rtype) -> Reply:
        """A stated distribution (elicit = "distribution"): the cell's true one as JSON, each probability
        rounded to three decimals as a model writes them (the sum is then off 1 by rounding, which the parser
        renormalises); ``invalid_rate`` of the replies state probabilities that sum to 2 (invalid)."""
        dist = self._distribution(seed, query, rtype)
        u_invalid = _rng(seed, "y", query.message, query.perturbation, query.persona, query.second,
                         query.second_perturbation, *_draw(query)).random()
        scale = 2.0 if u_invalid < self.options.invalid_rate else 1.0
        text = json.dumps({rtype.labels[s]: round(scale * p, 3) for s, p in dist.items()})
        return Reply(text=text, model_id=f"simulated/{self.model_id}",
                     prompt_tokens=(len(query.system) + len(query.user)) // 4, completion_tokens=len(text) // 3)

    def _scored(self, seed: int, query: Query, rtype) -> Reply:
        """A rating or a forced choice: the score drawn from the cell's distribution, stored with it."""
        dist = self._distribution(seed, query, rtype)
        u_invalid, u = _rng(seed, "y", query.message, query.perturbation, query.persona, query.second,
                            query.second_perturbation, *_draw(query)).random(2)
        text = NO_ANSWER if u_invalid < self.options.invalid_rate else rtype.labels[rtype.draw(dist, u)]
        logprobs = None
        if query.logprobs:
            logprobs = {rtype.labels[s]: math.log(max(p, 1e-300)) for s, p in dist.items()}
        return Reply(text=text, model_id=f"simulated/{self.model_id}",
                     prompt_tokens=(len(query.system) + len(query.user)) // 4, completion_tokens=1,
                     logprobs=logprobs, p_yes=sum(s * p for s, p in dist.items()),
                     extra={"distribution": dist})

    def _best_worst(self, seed: int, query: Query, rtype) -> Reply:
        """Best-worst scaling: the best drawn from pick_probabilities (utilities and position shifts), the worst
        from the others by a multinomial logit on minus the utilities plus the same position shifts."""
        best_dist = self.pick_probabilities(seed, query)
        rng = _rng(seed, "y", query.message, query.perturbation, query.persona, query.options, *_draw(query))
        u_invalid, u_best, u_worst = rng.random(3)
        best = min(int(np.searchsorted(np.cumsum(list(best_dist.values())), u_best, side="right")), len(best_dist) - 1)
        o = self.options
        shifts = np.zeros(len(query.options)) if o.positions is None else np.asarray(o.positions, dtype=float)
        logits = shifts - np.array([self.utility(seed, query.persona, m, str(p)) for m, p in query.options])
        logits[best] = -np.inf
        worst_dist = np.exp(logits - logits.max())
        worst_dist /= worst_dist.sum()
        worst = min(int(np.searchsorted(np.cumsum(worst_dist), u_worst, side="right")), len(worst_dist) - 1)
        text = NO_ANSWER if u_invalid < o.invalid_rate else f"{best + 1} {worst + 1}"
        return Reply(text=text, model_id=f"simulated/{self.model_id}",
                     prompt_tokens=(len(query.system) + len(query.user)) // 4, completion_tokens=2)

    def _own_answer(self, seed: int, query: Query, rtype) -> Reply:
        """A kind that draws its own reply from the options shown (a ranking: survey.kinds.rank.parsing): given each
        position's logit, as pick_probabilities has them (utility, position shift, the persona's pull to 1)."""
        logits = np.log(np.maximum(list(self.pick_probabilities(seed, query).values()), 1e-300))
        rng = _rng(seed, "y", query.message, query.perturbation, query.persona, query.options, *_draw(query))
        text = NO_ANSWER if rng.random() < self.options.invalid_rate else rtype.simulated_answer(logits, rng)
        return Reply(text=text, model_id=f"simulated/{self.model_id}",
                     prompt_tokens=(len(query.system) + len(query.user)) // 4, completion_tokens=len(text.split()))

    def _located(self, seed: int, query: Query, rtype) -> Reply:
        """A type that says its own reply (a number, the options ticked) from the cell's latent location
        eta_i + delta + u_j + v_ij, eta_i ~ N(0, tau^2) (tau default 1): ResponseType.simulated_reply."""
        tau = 1.0 if self.options.tau is None else self.options.tau
        location = float(_rng(seed, "eta", query.persona).normal(0.0, tau)) + self.utility(
            seed, query.persona, query.message, query.perturbation)
        rng = _rng(seed, "y", query.message, query.perturbation, query.persona, query.replicate)
        text = NO_ANSWER if rng.random() < self.options.invalid_rate else rtype.simulated_reply(location, rng)
        return Reply(text=text, model_id=f"simulated/{self.model_id}",
                     prompt_tokens=(len(query.system) + len(query.user)) // 4, completion_tokens=len(text) // 4 + 1)

    def _rated_text(self, seed: int, query: Query, rtype) -> Reply:
        """A free-text reply for semantic-similarity rating: a score drawn from the ordinal model on the view's
        points, said in words from simulated_words (the score is kept in extra["simulated_score"] to check the
        rating against; it is not an answer)."""
        view = rtype.view
        params = self.ordinal_params(rtype)
        eta = float(_rng(seed, "eta", query.persona).normal(0.0, params.tau))
        lam = eta + self.utility(seed, query.persona, query.message, query.perturbation)
        probs = category_probabilities(params, np.array(lam))
        rng = _rng(seed, "y", query.message, query.perturbation, query.persona, *_draw(query))
        u_invalid, u = rng.random(2)
        score = int(params.scores[min(int(np.searchsorted(np.cumsum(probs), u, side="right")), len(probs) - 1)])
        text = "" if u_invalid < self.options.invalid_rate else simulated_words(score, view.low, view.high, rng)
        return Reply(text=text, model_id=f"simulated/{self.model_id}",
                     prompt_tokens=(len(query.system) + len(query.user)) // 4, completion_tokens=len(text) // 4,
                     extra={"simulated_score": score})

    async def aclose(self) -> None:
        return None


# Replies of simulated respondents in words, from "would not buy" (0) to "would buy" (4): an opening and a
# reason each, so that replies of one level differ in wording as a model's do. Public: the semantic-similarity
# rating's benchmark and tests rate them against their known level (worded_replies).
REPLY_OPENINGS = (
    ("No, I would not buy this.", "Not for me, I'd never buy it.", "I definitely wouldn't purchase this."),
    ("Probably not, I doubt I'd buy it.", "I'm unlikely to buy this.", "I don't think I would purchase it."),
    ("Maybe, I'm undecided.", "I might or might not buy it.", "I'm on the fence about buying this."),
    ("Yes, I'd probably buy it.", "I'm fairly likely to buy this.", "I think I would purchase it."),
    ("Yes, I would definitely buy this!", "I'd buy it right away.", "Absolutely, I would purchase it."),
)
REPLY_REASONS = (
    ("It does nothing for me.", "I have no use for it.", "It's not my style at all."),
    ("It doesn't really appeal to me.", "The price seems too high for what it is.", "I'm not convinced I need it."),
    ("It depends on the price.", "I'd want to see more first.", "It has good and bad points."),
    ("It sounds useful.", "It seems like good value.", "It fits what I'm looking for."),
    ("It's exactly what I want.", "I love it.", "It's perfect for me."),
)


def simulated_words(score: int, low: int, high: int, rng: np.random.Generator) -> str:
    """A short free-text reply that says ``score`` on the low..high scale in words."""
    level = int(round(4 * (score - low) / max(high - low, 1)))
    return f"{REPLY_OPENINGS[level][rng.integers(3)]} {REPLY_REASONS[level][rng.integers(3)]}"


def worded_replies(level: int) -> list[str]:
    """Every reply simulated_words can give at ``level`` (0: would not buy .. 4: would buy), opening by reason."""
    return [f"{o} {r}" for o in REPLY_OPENINGS[level] for r in REPLY_REASONS[level]]


def _draw(query: Query) -> tuple:
    """What a reply's random draw is keyed by besides its cell: the replicate, and the question when the study
    names several (their answers then share each cell's latent appeal but not the draw)."""
    return (query.replicate,) if query.question == DEFAULT_QUESTION else (query.replicate, query.question)
