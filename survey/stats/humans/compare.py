"""Does it match people? Levels, effects, dispersion and a valid estimate about humans, per model.

Joins a long table of persona answers with human answers to the same messages (survey.data.humans):
- **levels** per model x message (and per segment with ``by``): survey.stats.fidelity.level_fidelity (JSD and
  Wasserstein with bootstrap intervals, the human noise floor, the uniform and overall-human baselines);
- **effects** per model: the persona effect A - B with its sign-flip interval (survey.stats.analysis.analyze)
  beside the human effect with its t interval, their difference and sign agreement
  (survey.stats.effect_fidelity.effect_fidelity);
- **dispersion** per model x message: persona over human variance (survey.stats.effect_fidelity.dispersion_ratio);
- **PPI** per model: the human effect A - B by prediction-powered inference (Angelopoulos, Bates, Fannjiang,
  Jordan & Zrnic, "Prediction-powered inference", Science 2023; PPI++ power tuning, Angelopoulos, Duchi & Zrnic
  2024) when the models also answered as each respondent rendered from their attributes: within-subjects by
  survey.stats.ppi.ppi_paired_effect, between-subjects by ppi_between_effect (the same population personas
  answered both messages).
The human effect alone is PPI with lambda = 0 (the humans' own mean difference, with the same weights). Both
designs weight each respondent by the human file's ``weight`` column; the population personas are unweighted.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from survey.data.humans import Humans
from survey.data.sources import Source
from survey.data.table import models_in
from survey.errors import SurveyError
from survey.responses import response_type
from survey.stats.analysis import Analysis, analyze, reuse_or_analyze
from survey.stats.effect_fidelity import dispersion_ratio, effect_fidelity
from survey.stats.fidelity import level_fidelity
from survey.stats.humans.inputs import (
    human_counts,
    model_scores,
    paired_humans,
    persona_answers,
    population_predictions,
    require_predictions,
)
from survey.stats.humans.result import HumanFidelity
from survey.stats.kinds import CompareOptions
from survey.stats.ppi import PPIArm, PPIOptions, ppi_between_effect, ppi_paired_effect

SMALL_SEGMENT = 20  # humans below which a segment's half-split noise floor is itself mostly noise
# Yes/No: humans giving a message's rarer answer below which the normal-approximation intervals of the human
# effect and of PPI are said to be rough (bench/small_human_coverage.py, docs/humans.md: 0.67-0.94 at 95% for
# Yes-rates 0.05 vs 0.02 and 0.1 vs 0.05 at 20-30 humans an arm; the datasets with 5 or more of each answer per
# message covered 0.95 or more in every setting measured)
RARE_ANSWER = 5


def human_fidelity(source: Source, humans: Humans, a: str | None = None, b: str | None = None, *,
                   by: str | None = None, confidence: float = 0.95, n_boot: int = 1000, seed: int = 0,
                   flips: int = 9999, prior: Analysis | None = None) -> HumanFidelity:
    """Fidelity of every model of ``source`` (a survey.data.sources.Source) to ``humans``, and the PPI estimate
    of the human effect A - B. ``a``, ``b``: the messages compared (default: the two the humans saw; a study's
    declared pair is given by its callers, survey.api.fidelity); ``by``: a respondent and persona attribute
    whose levels each get their own level fidelity. ``prior``: an Analysis of the same source (a report's)
    whose persona effects are taken instead of computed again."""
    table = source.table
    scale = str(table["scale"].iloc[0]) if "scale" in table.columns else "binary"
    rtype = response_type(scale)
    _one_answer_per_message(rtype)
    if response_type(humans.scale).scale != rtype.scale:
        raise SurveyError(f"the humans answered on {humans.scale}, the personas on {rtype.scale}: compare answers "
                          "on one scale (give the human file's scale as the study's)")
    a, b = pair_in_order(source, humans, a, b)
    design = humans.design(a, b)
    if design == "mixed":
        raise SurveyError(f"some respondents saw both '{a}' and '{b}', others one: keep one design (drop the "
                          "respondents who saw one message for a within-subjects effect, or give each one answer)")
    levels = rtype.fidelity_levels()  # the points answers are compared over (a number: its tenth of the range)
    if levels is None:
        raise SurveyError(f"comparing the personas with humans is not available for {rtype.scale} questions yet; the "
                          "human file is read (survey.load_humans): compare its answers with the table's yourself")
    points, ordered = list(levels[0]), levels[1]
    at_levels = replace(humans, table=humans.table.assign(answer=rtype.fidelity_level(humans.table["answer"])))
    level_table = table.assign(answer=rtype.fidelity_level(table["answer"]))
    overall = human_counts(at_levels, a, points).sum(axis=0) + human_counts(at_levels, b, points).sum(axis=0)
    human_effect = _human_effect(humans, a, b, design, confidence)
    options = CompareOptions(alpha=1 - confidence, seed=seed, flips=flips)
    analysis = (analyze(source, a, b, options=options) if prior is None else
                reuse_or_analyze(prior, source, models_in(table), [(a, b)], options=options, recorded=True,
                                 effects_only=True))
    models = [r.model for r in analysis.results]
    levels, effects, dispersion, ppi, notes = [], [], [], {}, []
    segments = _segments(source, humans, by)
    notes += [f"{seg}: {len(resp)} humans, too few for a stable noise floor (fewer than {SMALL_SEGMENT})"
              for seg, (resp, _) in segments.items() if resp is not None and len(resp) < SMALL_SEGMENT]
    for model in models:
        scores = model_scores(table, model)
        for msg in (a, b):
            for seg, (resp, pers) in segments.items():
                h = human_counts(at_levels, msg, points, resp)
                per, groups, who = persona_answers(level_table, model, msg, points, population_only=False)
                if pers is not None:
                    keep = np.isin(who, pers)
                    per, groups = per[keep], groups[keep]
                if len(h) < 2 or len(per) == 0:
                    notes.append(f"{model}, {msg}, {seg}: too few humans or personas for a level comparison")
                    continue
                lf = level_fidelity(h, per, points, persona_groups=groups, ordered=ordered, human_overall=overall,
                                    confidence=confidence, n_boot=n_boot, seed=seed)
                levels.append({"model": model, "message": msg, "segment": seg, "fidelity": lf})
            try:
                dispersion.append({"model": model, "message": msg, "ratio": dispersion_ratio(
                    scores.scores[msg].dropna().to_numpy(), humans.answers(msg)["answer"].to_numpy(float),
                    confidence=confidence, n_boot=n_boot, seed=seed)})
            except SurveyError as exc:  # e.g. every human gave one answer to this message: valid data, no ratio
                notes.append(f"{model}, {msg}: no dispersion ratio ({exc})")
        r = analysis[model]
        effects.append({"model": model, "persona_ci": tuple(r.effect.ci), "fidelity": _without_unknown_spread(
            effect_fidelity(human_effect.estimate, human_effect.se, float(r.effect.estimate), tuple(r.effect.ci),
                            confidence=confidence, persona_confidence=r.effect.confidence or confidence))})
        if scores.rendered.empty:  # counts or ask = false: said once below, not once per model
            continue
        try:
            ppi[model] = _ppi(scores, humans, a, b, design, confidence)
        except SurveyError as exc:
            notes.append(f"{model}: no PPI estimate ({exc})")
    notes += (_cautions(ppi.values()) + ([NO_SPREAD] if human_effect.se == 0 else [])
              + rare_answer_notes(humans, a, b, rtype.scale, confidence))
    if not ppi and not any(model_scores(table, m).rendered.size for m in models):
        notes.append("no prediction-powered estimate: the models never answered as a respondent (a study asks about "
                     "them with ask = true, the default, which needs the respondents' attributes; counts give levels "
                     "and effects only)")
    return HumanFidelity(a=a, b=b, design=design, scale=rtype.scale, unit=rtype.view.effect_unit,
                         human_effect=human_effect, levels=levels, effects=effects, dispersion=dispersion, ppi=ppi,
                         humans=_human_summary(humans, a, b), personas=_persona_summary(table, models), by=by,
                         confidence=confidence, notes=_basis_notes(source, humans) + notes,
                         left_out=list(analysis.left_out))


NO_SPREAD = ("every human gave the same answer (or the same paired difference): the human effect's s.e. is estimated as "
             "0, so its interval has zero width and leaves out their sampling error; the human − persona difference "
             "gets no interval and no p-value (it would rest on the personas' s.e. alone); more humans are needed")


def _without_unknown_spread(ef):
    """The human − persona comparison without interval and p-value when the humans' s.e. is 0 (no spread among
    a sample of humans is no evidence that their effect is known exactly)."""
    if ef.human_se > 0:
        return ef
    nan = float("nan")
    return replace(ef, ci=(nan, nan), statistic=nan, pvalue=nan, note=f"{ef.note}; {NO_SPREAD}")


def _human_summary(humans: Humans, a: str, b: str) -> dict:
    """The human file's summary, with how many respondents the comparison of ``a`` and ``b`` rests on."""
    t = humans.table
    return {**humans.summary(), "compared": int(t.loc[t["message"].isin([a, b]), "respondent"].nunique())}


def _basis_notes(source: Source, humans: Humans) -> list[str]:
    """What every comparison with people rests on beyond its numbers: the store's completeness and weights."""
    completeness = source.completeness
    notes = [w[0].upper() + w[1:] for w in completeness.warnings()] if completeness is not None else []
    if humans.summary().get("weighted"):
        notes.append("the humans carry weights: the human effect and the PPI estimates use them; the answer levels "
                     "and the dispersion ratio are unweighted")
    return notes


def ppi_about_humans(source: Source, humans: Humans, a: str | None = None, b: str | None = None, *,
                     confidence: float = 0.95) -> dict:
    """Only the statements about people: the design, the humans-alone effect and, per model whose store holds
    predictions for the respondents, the PPI effect (what `survey analyze --humans` adds)."""
    table = source.table
    _one_answer_per_message(response_type(str(table["scale"].iloc[0]) if "scale" in table.columns else "binary"))
    a, b = pair_in_order(source, humans, a, b)
    design = humans.design(a, b)
    if design == "mixed":
        raise SurveyError(f"some respondents saw both '{a}' and '{b}', others one: keep one design")
    out = {"a": a, "b": b, "design": design, "human_effect": _human_effect(humans, a, b, design, confidence),
           "ppi": {}, "notes": []}
    for model in pd.unique(table["model"].astype(str)):
        try:
            out["ppi"][model] = _ppi(model_scores(table, model), humans, a, b, design, confidence)
        except SurveyError as exc:
            out["notes"].append(f"{model}: no PPI estimate ({exc})")
    out["notes"] += _cautions(out["ppi"].values()) + rare_answer_notes(humans, a, b, humans.scale, confidence)
    return out


def rare_answer_notes(humans: Humans, a: str, b: str, scale: str, confidence: float) -> list[str]:
    """For Yes/No answers, one note when fewer than RARE_ANSWER humans gave a message's rarer answer: the human
    effect's t interval and the PPI intervals are normal approximations that cover less than stated there."""
    if tuple(response_type(scale).view.points) != (0, 1):  # answers of 0 or 1 (Yes/No, a checkbox option)
        return []
    few = []
    for msg in (a, b):
        y = humans.answers(msg)["answer"].to_numpy(float)
        yes = int((y == 1).sum())
        rarer, k = ("Yes", yes) if yes <= len(y) - yes else ("No", len(y) - yes)
        if k < RARE_ANSWER:
            few.append(f"{msg}: {k} of {len(y)} humans answered {rarer}")
    if not few:
        return []
    return [f"few humans gave the rarer answer ({'; '.join(few)}; fewer than {RARE_ANSWER}): the human effect's "
            "interval and the PPI intervals are normal approximations, which can cover well below the stated "
            f"{confidence:.0%} with so few of the rarer answer (simulated at 20-30 humans per message and 95%: "
            "0.67-0.84 for Yes-rates of 0.05 against 0.02, 0.89-0.94 for 0.1 against 0.05); read them as rough, "
            "or ask more humans"]


def _one_answer_per_message(rtype) -> None:
    """Levels, effects and PPI set one answer per message beside people's; a reply about the messages shown
    together (pick one of k, best-worst, a ranking) has none: refused in one line rather than compared wrongly."""
    if not rtype.view.per_message:
        raise SurveyError(f"a {rtype.scale} reply is about the messages shown together, not one message, so levels, "
                          "effects and PPI per message do not apply"
                          + (f" ({rtype.human_comparison})" if getattr(rtype, "human_comparison", None) else ""))


def _cautions(results) -> list[str]:
    """Each distinct small-sample caution of the PPI estimates, once (the models share the humans)."""
    return list(dict.fromkeys(f"PPI: {r.caution}" for r in results if r.caution))


def pair_in_order(source: Source, humans: Humans, a: str | None = None, b: str | None = None) -> tuple[str, str]:
    """The two messages compared with the humans: ``a`` and ``b`` when given (the callers above give the pair a
    study declared, ``[humans] compare``), else the two messages both the humans and the personas saw, in the
    study's order."""
    order = list(source.study_context.messages) or list(pd.unique(source.table["message"].astype(str)))
    shared = [m for m in order if m in set(humans.messages)]  # the study's order: A first
    if not shared:
        raise SurveyError(f"the humans saw {', '.join(humans.messages)}, none of which the personas answered")
    return _pair(shared, a, b)


def _pair(shared: list[str], a, b) -> tuple[str, str]:
    if a is None and b is None:
        if len(shared) < 2:
            raise SurveyError(f"the humans saw only {', '.join(shared)} of the messages the personas answered: a "
                              "comparison needs two messages both answered")
        if len(shared) > 2:
            raise SurveyError(f"the humans and personas share {len(shared)} messages ({', '.join(shared)}): name the "
                              "two to compare (`a=` and `b=`, or in the study file [humans] compare = [\"A\", "
                              "\"B\"] and run it again to record it)")
        return shared[0], shared[1]
    if a is None or b is None:
        rest = [m for m in shared if m not in (a, b)]
        if len(rest) != 1:
            raise SurveyError("name both messages (`a=` and `b=`) when more than two are shared")
        a, b = (a, rest[0]) if b is None else (rest[0], b)
    for m in (a, b):
        if m not in shared:
            raise SurveyError(f"message '{m}' was not answered by both the humans and the personas; shared: "
                              f"{', '.join(shared)}")
    return a, b


def _human_effect(humans: Humans, a: str, b: str, design: str, confidence: float):
    """The humans alone: PPI with lambda = 0 (the weighted mean difference and its t interval, Welch's between
    subjects); the zero predictions are placeholders, so the result counts no personas."""
    alpha = round(1 - confidence, 12)
    if design == "within":
        w = paired_humans(humans, a, b)
        zero = np.zeros(len(w))
        out = ppi_paired_effect(w[a].to_numpy(float), w[b].to_numpy(float), zero, zero, zero, zero,
                                w=w["weight"].to_numpy(float), options=PPIOptions(alpha=alpha, lam=0.0))
    else:
        ya, yb = humans.answers(a), humans.answers(b)
        za, zb = np.zeros(len(ya)), np.zeros(len(yb))
        out = ppi_between_effect(PPIArm(ya["answer"].to_numpy(float), za, za, w=ya["weight"].to_numpy(float)),
                                 PPIArm(yb["answer"].to_numpy(float), zb, zb, w=yb["weight"].to_numpy(float)),
                                 options=PPIOptions(alpha=alpha, lam=0.0))
    out.N = 0
    return out


def _ppi(scores, humans: Humans, a: str, b: str, design: str, confidence: float):
    alpha = round(1 - confidence, 12)
    pop = population_predictions(scores, a, b)
    if design == "within":
        w = paired_humans(humans, a, b)
        f = require_predictions(scores, list(w.index), [a, b])
        return ppi_paired_effect(w[a].to_numpy(float), w[b].to_numpy(float), f[a].to_numpy(), f[b].to_numpy(),
                                 pop[a].to_numpy(), pop[b].to_numpy(), w=w["weight"].to_numpy(float),
                                 options=PPIOptions(alpha=alpha))
    ya, yb = humans.answers(a), humans.answers(b)
    fa = require_predictions(scores, list(ya["respondent"]), [a])[a].to_numpy()
    fb = require_predictions(scores, list(yb["respondent"]), [b])[b].to_numpy()
    return ppi_between_effect(PPIArm(ya["answer"].to_numpy(float), fa, pop[a].to_numpy(), w=ya["weight"].to_numpy(float)),
                              PPIArm(yb["answer"].to_numpy(float), fb, pop[b].to_numpy(), w=yb["weight"].to_numpy(float)),
                              same_personas=True, options=PPIOptions(alpha=alpha))


def _segments(source: Source, humans: Humans, by: str | None) -> dict:
    """segment -> (respondent ids, persona ids); one segment "all" (None, None) without ``by``."""
    if not by:
        return {"all": (None, None)}
    from survey.data.attributes import persona_attributes
    from survey.stats.segments.definition import segment_by

    name = by.partition(":")[0].strip()
    if name not in humans.attributes:
        raise SurveyError(f"the human file has no attribute '{name}' (it has {', '.join(humans.attributes) or 'none'})")
    personas = persona_attributes(source)
    if name not in personas.columns:
        raise SurveyError(f"the personas have no attribute '{name}' (they have {', '.join(personas.columns)})")
    # the same definition as `survey analyze --by`: an attribute's values, or bins of a numeric one (age:18-39,40+)
    people = segment_by(humans.respondents[[name]], by).segments
    pers = segment_by(personas[[name]], by).segments
    out = {f"{name} = {level}": (people[level], pers[level]) for level in people if level in pers}
    if not out:
        raise SurveyError(f"no segment of '{by}' is shared by the humans ({', '.join(people)}) and the personas "
                          f"({', '.join(pers)})")
    return out


def _persona_summary(table: pd.DataFrame, models: list[str]) -> dict:
    ids = table["persona"].astype(str)
    rendered = ids.str.startswith("human-")
    return {"models": models, "personas": int(ids[~rendered].nunique()), "rendered_humans": int(ids[rendered].nunique())}
