"""From a study spec and the registries to cells and queries.

Queries come out persona-major (persona, question, message, perturbation, replicate) for each model: the
local backend reuses the KV cache of a persona's system prompt across everything that follows it. A study
of several questions asks each in its own prompt after the same system prompt (flow = "independent") or
as the turns of one conversation per persona x paraphrase x replicate (survey.study.flow).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from survey.backends.base import Query
from survey.common.limits import STUDY_QUERIES_MAX, WHY
from survey.errors import SurveyError
from survey.study.question import QuestionSpec
from survey.study.spec import MessageSpec, ModelSpec, StudySpec


@dataclass
class MessageDesign:
    id: str
    spec: MessageSpec
    items: list[Any]  # perturbations: objects with .id and .text
    perturbation_set: Any = None  # the set they come from (.name, .source file, .sha256)


@dataclass
class QueryDesign:
    study: StudySpec
    persona_set: Any
    personas: list[Any]  # objects with .id
    messages: list[MessageDesign]
    analysis: dict | None = None  # the study's segments and target margins, checked (survey.study.segments)
    humans: Any = None  # the study's human answers (survey.data.humans.Humans), when it names them
    n_human_personas: int = 0  # personas rendered from the respondents (the last ones, ids 'human-...')

    @property
    def questions(self) -> list[QuestionSpec]:
        return self.study.questions

    @property
    def several(self) -> bool:
        """Several questions: they share one system prompt, each carrying its own answer instruction."""
        return len(self.study.questions) > 1

    @property
    def is_choice(self) -> bool:
        """The primary question is a forced choice (a question's own: cell_prompts(question=...))."""
        return _is_choice(self.study.question)

    @property
    def is_pick(self) -> bool:
        return _is_pick(self.study.question)

    @property
    def cells_per_question(self) -> int:
        """(persona, perturbation) cells across messages, per model and question; for forced choice, (persona,
        pair, order) cells, one per paraphrase shown first; for pick one of k, (persona, paraphrase set,
        arrangement) cells, one per paraphrase shown first (k arrangements per set)."""
        return len(self.personas) * sum(len(m.items) for m in self.messages)

    @property
    def n_cells(self) -> int:
        """Cells per model over every question (see cells_per_question)."""
        return self.cells_per_question * len(self.questions)

    @property
    def queries_per_model(self) -> int:
        return self.n_cells * self.study.replicates

    def max_tokens(self, model: ModelSpec, question: QuestionSpec | None = None) -> int:
        return model.max_tokens or (question or self.study.question).default_max_tokens

    def question(self, qid: str) -> QuestionSpec:
        return next(q for q in self.questions if q.id == qid)

    def system_prompt(self, persona, response=None) -> str:
        """The set's rendering, or the study's own template filled with the persona's attributes.

        Persona sets end their prompt with the Yes/No instruction of Helm & Priebe (2026). For another
        response type that sentence is replaced by the type's own ("Answer ONLY with a whole number from
        1 to 5."), or the persona would be told to answer Yes or No to a rating question. A study's own
        ``[personas] template`` is used as written.
        """
        template = self.study.personas.template
        if template is None and self.several:  # one system prompt for every question: each says how to answer
            from survey.responses import BINARY

            return self.persona_set.system_prompt(persona).replace(" " + BINARY.answer_instruction(), "").replace(
                BINARY.answer_instruction(), "")
        if template is None:
            return answer_in_kind(self.persona_set.system_prompt(persona), response or self.study.question.response)
        try:
            return template.format_map({**persona.attributes, "id": persona.id})
        except KeyError as exc:
            raise SurveyError(f"personas.template uses {{{exc.args[0]}}}, which persona '{persona.id}' lacks; "
                              f"its attributes are {', '.join(persona.attributes)}") from exc
        except (IndexError, ValueError) as exc:
            raise SurveyError(f"personas.template is not a valid template ({exc}); "
                              "write literal braces as {{ and }}") from exc

    @property
    def choice_pairs(self) -> list[tuple[Any, Any]]:
        """Forced choice: paraphrase j of the first message with paraphrase j of the second, in set order."""
        first, second = self.messages
        return list(zip(first.items, second.items, strict=False))

    def settings(self, model: ModelSpec, question: QuestionSpec | None = None) -> dict:
        """The fields every query of one model (and question) shares."""
        question = question or self.study.question
        return dict(study=self.study.name, model=model.name, model_id=model.model_id,
                    temperature=model.temperature, max_tokens=self.max_tokens(model, question), seed=model.seed,
                    logprobs=model.logprobs, top_logprobs=model.top_logprobs, params=dict(model.params),
                    scale=question.type, response=question.response, question=question.id)

    def cell_prompts(self, template: str | None = None, question: QuestionSpec | None = None,
                     response=None) -> list[tuple[str, str, str, dict]]:
        """A persona's cells of one question (default the primary) in query order, the same for every persona:
        (message, perturbation, user prompt, extra Query fields). Forced choice: each pair in both orders, keyed
        by the message shown first, the one shown second in the extra fields. ``template``, ``response``: the
        question asked another way (a reversed scale's). With several questions the user prompt ends with the
        question's answer instruction (their shared system prompt has none)."""
        question = question or self.study.question
        template = template or question.resolved_template
        rtype = response or question.response
        cells = self._cells(template, question, rtype)
        if not self.several or not rtype.answer_instruction():
            return cells
        return [(m, p, f"{user} {rtype.answer_instruction()}", extra) for m, p, user, extra in cells]

    def _cells(self, template: str, question: QuestionSpec, rtype) -> list[tuple[str, str, str, dict]]:
        if _is_pick(question):
            return self._pick_cells(template, rtype)
        if _is_choice(question):
            (ma, mb), pairs = self.messages, self.choice_pairs
            return [(first.id, str(pf.id), template.format(first=pf.text, second=ps.text),
                     {"second": second.id, "second_perturbation": str(ps.id)})
                    for (first, pf), (second, ps) in _both_orders(ma, mb, pairs)]
        return [(m.id, str(p.id), template.format(perturbation=p.text), {}) for m in self.messages for p in m.items]

    def _pick_cells(self, template: str, rtype) -> list[tuple[str, str, str, dict]]:
        """Pick one of k: paraphrase set j (the j-th paraphrase of every message) in the k arrangements of
        ``latin_rows``, keyed by the option shown first; ``options`` says what each position showed."""
        k = len(self.messages)
        out = []
        for j, items in enumerate(zip(*(m.items for m in self.messages), strict=False)):
            arrange = getattr(rtype, "arrangements", None)  # best-worst scaling: its block design
            for shown in (arrange or latin_rows)(k, self.study.name, j):
                options = tuple((self.messages[a].id, str(items[a].id)) for a in shown)
                user = rtype.render([items[a].text for a in shown], template)
                out.append((options[0][0], options[0][1], user, {"options": options}))
        return out

    def queries(self, model: ModelSpec) -> Iterator[Query]:
        """Every query of one model, persona-major (survey.study.flow), made as they are taken: a design of
        millions of queries is never held in memory."""
        from survey.study.flow import design_queries

        return design_queries(self, model)


def _both_orders(ma: MessageDesign, mb: MessageDesign, pairs) -> Iterator[tuple]:
    for pa, pb in pairs:
        yield (ma, pa), (mb, pb)
        yield (mb, pb), (ma, pa)


def latin_rows(k: int, salt: str, j: int) -> list[list[int]]:
    """The k arrangements of paraphrase set j: the rows of a cyclic Latin square (row s shows message
    order[(s + t) mod k] at position t) on a random order of the messages drawn for this set.

    Every message takes every position once per set, so averaging a message's share over the k rows
    averages over positions. The random order per set (seeded by the study name and j) makes which
    messages sit next to which a coin the analysis can rely on: with one fixed cyclic order, a pair's
    neighbours differ between their positions, and a position bias that interacts with a third message
    would no longer cancel (survey.kinds.pick.statistics)."""
    digest = hashlib.sha256(f"pick-order\x1f{salt}\x1f{j}".encode()).digest()
    order = np.random.default_rng(int.from_bytes(digest[:16], "little")).permutation(k)
    return [[int(order[(s + t) % k]) for t in range(k)] for s in range(k)]


def answer_in_kind(prompt: str, response) -> str:
    """The persona prompt with its Yes/No instruction replaced by the response type's (see system_prompt)."""
    from survey.responses import BINARY

    yes_no = BINARY.answer_instruction()
    if not response.answer_instruction() or response.answer_instruction() == yes_no or yes_no not in prompt:
        return prompt  # free text keeps the prompt it always had: stored replies' hashes stay valid
    return prompt.replace(yes_no, response.answer_instruction())


def prompt_hash(q: Query) -> str:
    """Hash of everything that shapes the reply: a changed study shows up as a changed hash."""
    blob = json.dumps([q.system, q.user, q.model_id, q.temperature, q.max_tokens, q.seed, q.logprobs,
                       q.top_logprobs, q.params], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def build_design(study: StudySpec, load_personas: Callable | None = None,
                 load_perturbations: Callable | None = None) -> QueryDesign:
    """Load the registries a study names and pick its personas and perturbations.

    Set names resolve in the study's folder, then in the shipped sets, never in the current
    directory (survey.registry.files). The loaders default to survey.registry; tests pass their own.
    """
    from survey.registry import load_persona_set, load_perturbation_set

    study_dir = study.sets_dir
    load_personas = load_personas or (lambda ref: load_persona_set(ref, study_dir))
    load_perturbations = load_perturbations or (lambda ref: load_perturbation_set(ref, study_dir))
    pset = load_personas(study.registry_ref(study.personas.set))
    personas = _pick_personas(list(pset.personas), study)
    messages = []
    for spec in study.messages:
        pert = load_perturbations(study.registry_ref(spec.perturbations))
        items = list(pert.items)
        if spec.count is not None:
            if spec.count > len(items):
                raise SurveyError(f"message '{spec.id}': count = {spec.count} but perturbation set "
                                  f"'{pert.name}' has {len(items)}; lower count or extend the set")
            items = items[:spec.count]
        _no_duplicates([str(p.id) for p in items], f"perturbation set '{pert.name}'")
        messages.append(MessageDesign(spec.id or str(pert.message), spec, items, pert))
    for question in study.questions:  # every question's needs, before anything is sent
        try:
            _check_question(study, question, messages, study_dir)
        except SurveyError as exc:
            raise SurveyError(study.about(question, str(exc))) from None
    humans = study.load_humans()
    asked = humans is not None and study.humans.ask and _predictions_used(humans, study.humans)
    rendered = _human_personas(humans, pset) if asked else []
    fielded = _fielded(study) if humans is None and study.field is not None and study.field.ask else None
    rendered = rendered or (_human_personas(fielded, pset) if fielded is not None else [])
    personas = personas + rendered
    _no_duplicates([str(p.id) for p in personas], f"persona set '{pset.name}' with the rendered humans")
    _no_duplicates([m.id for m in messages], "study messages (set id = ... to tell them apart)")
    from survey.study.segments import analysis_context

    design = QueryDesign(study, pset, personas, messages, analysis_context(study, personas), humans, len(rendered))
    if design.queries_per_model > STUDY_QUERIES_MAX:
        asked = f" x {len(study.questions)} questions" if len(study.questions) > 1 else ""
        raise SurveyError(f"the study asks {len(personas):,} personas x {sum(len(m.items) for m in messages):,} "
                          f"paraphrases{asked} x {study.replicates:,} replicates = {design.queries_per_model:,} queries per "
                          f"model; the limit is {STUDY_QUERIES_MAX:,} ({WHY['queries']}): lower replicates or counts")
    return design


def _fielded(study):
    """The respondents `survey field` stored (survey.data.fielded), to be asked about as personas; None before
    any completed (a store that does not exist yet is not created by looking)."""
    if not study.store_path.exists():
        return None
    from survey.data.fielded import fielded_humans
    from survey.responses import response_type

    people = fielded_humans(study.store_path, study.name, study.question.type)
    if people is not None and not response_type(people.scale).view.per_message:
        return None  # a ranking's respondents: their predictions would feed no PPI, so nobody pays to ask them
    return people


def _predictions_used(people, spec) -> bool:
    """Whether asking the models about each respondent buys anything: the predictions feed prediction-powered
    inference, which a reply about the messages shown together (a ranking, pick one of k) has none of. Left at
    its default, ``ask`` is then skipped (nobody pays for queries no analysis reads, and the respondents do not
    join the persona population); set to true by the user, it is refused rather than silently ignored."""
    from survey.responses import response_type

    if response_type(people.scale).view.per_message:
        return True
    if "ask" in spec.model_fields_set:
        raise SurveyError(f"[humans] ask = true asks the models about each respondent for prediction-powered "
                          f"inference, which a {people.scale} reply (about the messages shown together) has none "
                          "of: remove ask or set ask = false")
    return False


def _check_question(study: StudySpec, question: QuestionSpec, messages: list[MessageDesign], study_dir) -> None:
    if question.response.view.points:  # scored, or rated from text (ssr)
        _enough_paraphrases(messages)
    if question.response.rated_text:  # a missing anchor set or embedder, wrong points: refused before anything is sent
        from survey.embed import check_embedder_name
        from survey.registry.anchors import anchors_with_points

        check_embedder_name(question.rating["embedder"])
        view = question.response.view
        anchors_with_points(study.registry_ref(question.rating["anchors"]), study_dir, int(view.high - view.low + 1))
    if _is_choice(question):
        _choice_messages(messages)
    if _is_pick(question):
        _pick_messages(messages, question.type)


def _is_choice(question: QuestionSpec) -> bool:
    return "first" in getattr(question.response, "slots", ())


def _is_pick(question: QuestionSpec) -> bool:
    return "options" in getattr(question.response, "slots", ())


def _human_personas(humans, pset) -> list:
    """Each respondent as a persona of the set (its template filled with their attributes), so that the models'
    score for them is the prediction prediction-powered inference pairs with their answer."""
    from survey.registry.personas import Persona, template_fields

    fields = template_fields(pset.template)
    return [Persona(**{k: v for k, v in rec.items() if k == "id" or k in fields})
            for rec in humans.persona_records(fields)]


def _enough_paraphrases(messages: list[MessageDesign]) -> None:
    """A scored question's answers are tested by pairing paraphrases of two messages: one paraphrase
    gives data that analyze, report and compare refuse, so refuse it before anything is paid for."""
    for m in messages:
        if len(m.items) < 2:
            source = getattr(m.perturbation_set, "source", None) or getattr(m.perturbation_set, "name", "?")
            raise SurveyError(f"message '{m.id}' has {len(m.items)} paraphrase ({source}); the A/B tests pair "
                              "paraphrases and need at least 2 per message, so analyze, report and compare would "
                              "refuse its answers: set count >= 2 or add paraphrases to the set")


def _choice_messages(messages: list[MessageDesign]) -> None:
    """Forced choice shows paraphrase j of one message beside paraphrase j of the other: two messages,
    as many paraphrases each, or some paraphrases would be paid for and never paired."""
    if len(messages) != 2:
        raise SurveyError(f"type = 'choice' compares two messages in one prompt; the study has {len(messages)} "
                          f"({', '.join(m.id for m in messages)}): give exactly two [[messages]]")
    a, b = messages
    if len(a.items) != len(b.items):
        raise SurveyError(f"type = 'choice' pairs paraphrase j of '{a.id}' with paraphrase j of '{b.id}'; they have "
                          f"{len(a.items)} and {len(b.items)}: set the same count for both messages")


def _pick_messages(messages: list[MessageDesign], scale: str = "pick") -> None:
    """Pick one of k (a ranking, best-worst scaling) shows the j-th paraphrase of every message together: as many
    paraphrases each."""
    counts = {m.id: len(m.items) for m in messages}
    if len(set(counts.values())) > 1:
        raise SurveyError(f"type = '{scale}' shows the j-th paraphrase of every message together; the messages have "
                          + ", ".join(f"{k} ({n})" for k, n in counts.items()) + ": set the same count for all")


def _pick_personas(personas: list, study: StudySpec) -> list:
    spec = study.personas
    if spec.count is None:
        if spec.sample_seed is not None:
            raise SurveyError("personas.sample_seed needs personas.count: how many to sample")
        return personas
    if spec.count > len(personas):
        raise SurveyError(f"personas.count = {spec.count} but set '{spec.set}' has {len(personas)}; "
                          "lower count or extend the set")
    if spec.sample_seed is None:
        return personas[:spec.count]
    # A seeded sample, kept in the set's order so the same personas line up across studies.
    idx = np.sort(np.random.default_rng(spec.sample_seed).choice(len(personas), spec.count, replace=False))
    return [personas[i] for i in idx]


def _no_duplicates(ids: list[str], where: str) -> None:
    seen: set[str] = set()
    dup = {i for i in ids if i in seen or seen.add(i)}
    if dup:
        raise SurveyError(f"{where} repeats id(s) {', '.join(sorted(set(dup)))}; ids must be unique")
