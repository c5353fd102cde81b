"""`survey.fidelity(source, humans=...)`: do the personas match people? The Python entry point of
`survey fidelity`; it opens the files and hands the tables to survey.stats.humans."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from survey.errors import SurveyError


def fidelity(source, humans=None, *, a: str | None = None, b: str | None = None, study: str | None = None,
             by: str | None = None, confidence: float = 0.95, n_boot: int = 1000, seed: int = 0, flips: int = 9999,
             scale: str | None = None, question: str | None = None):
    """Do the personas match people? The comparison the study's kind has (survey.stats.humans.by_kind): levels,
    effects, dispersion and the PPI estimate about humans, per model, for a kind answered one message at a time
    (a HumanFidelity); a ranking's mean ranks, Borda scores and pairwise differences beside people's with
    Spearman's correlation (survey.kinds.rank.humans.HumanRanks).

    ``source``: a study file (its store), a store or long-table path, or a Source (survey.load_source); ``humans``: a human file path, a
    study's [humans] table as a dict (``{"file": ..., "wide": ..., "id_column": ..., "columns": {...}}``), a
    survey.data.humans.Humans, or None for the one the store's study names (``humans = ...`` in its file).
    ``a``, ``b``: the messages (default: the two the humans saw); ``by``: an attribute of both the respondents
    and the personas, whose levels each get a level comparison. ``question``: the question the humans answered, on
    a source of several.
    """
    import pandas as pd

    from survey.data.humans import Humans, load_humans
    from survey.data.sources import Source, load_source
    from survey.stats.humans.by_kind import compare_with_people

    _check_confidence(confidence)
    a_file = humans is not None and not isinstance(humans, Humans | pd.DataFrame)
    if isinstance(source, pd.DataFrame):  # a long table in memory: wrapped once, here
        from survey.data.table import validate_table

        source = Source.of(validate_table(source))
    elif not isinstance(source, Source) and Path(source).suffix == ".toml":
        source = _study_source(source)
    elif not isinstance(source, Source):
        source = load_source(Path(source), study, scale=scale, humans=humans if a_file else None)
        a_file = False  # load_source read it, checked against the table
    if a_file or isinstance(humans, pd.DataFrame):
        from survey.data.humans import validate_humans

        rtype = source.response  # the rows' own type: a checkbox's answers may name its options
        messages = sorted(set(source.table["message"].astype(str)))
        humans = (load_humans(humans, rtype, messages) if a_file
                  else validate_humans(humans, rtype, messages))
    from survey.api.analysis import one_question

    source = one_question(source, "fidelity", question)
    people = humans if isinstance(humans, Humans) else source.humans
    if people is None:
        gap = source.fielded_gap
        raise SurveyError(f"no human answers: {gap}" if gap else
                          "no human answers: give a human file (`humans=`), name one in the study file "
                          "(humans = \"answers.csv\") and run it, or field the study to people (`survey field`)")
    a, b = declared_pair(source, a, b)
    return compare_with_people(source, people, a, b, by=by, confidence=confidence, n_boot=n_boot, seed=seed,
                               flips=flips)


def about_humans(source, a: str | None = None, b: str | None = None, *, confidence: float = 0.95,
                 question: str | None = None, flips: int = 9999, seed: int = 0, prior=None):
    """Only the statements about people of a Source whose study names its humans (what `survey analyze --humans`
    adds): for a kind answered one message at a time, a dict of the design, the humans-alone effect and, per
    model whose store holds predictions for the respondents, the PPI effect
    (survey.stats.humans.compare.ppi_about_humans); for a kind with its own comparison with people (a ranking),
    that comparison's result, as survey.fidelity gives it (``prior``: an analysis of the source whose results it takes
    instead of analysing again). ``question``: the one the humans answered, on a source
    of several."""
    from survey.api.analysis import one_question
    from survey.stats.humans.by_kind import compare_with_people, per_message
    from survey.stats.humans.compare import ppi_about_humans

    _check_confidence(confidence)
    source = one_question(source, "the statements about humans", question)
    if not per_message(source):
        return compare_with_people(source, source.humans, *declared_pair(source, a, b), confidence=confidence,
                                   flips=flips, seed=seed, prior=prior)
    return ppi_about_humans(source, source.humans, *declared_pair(source, a, b), confidence=confidence)


def declared_pair(source, a: str | None, b: str | None) -> tuple[str | None, str | None]:
    """``a`` and ``b``; with neither given, the pair the source's study declared for its comparison with the
    humans (``[humans] compare = [A, B]``), when it declared one."""
    if a is None and b is None and source.study_context.humans_pair is not None:
        return source.study_context.humans_pair
    return a, b


def fidelity_benchmark(sources, *, confidence: float = 0.95, n_boot: int = 1000, seed: int = 0, flips: int = 9999,
                       progress: bool = False):
    """Which model to trust for this kind of question: persona against human effects over several experiments.

    ``sources``: the study files, stores (or Sources) of two or more studies that each name their human file
    (``humans = ...``); each is compared with its humans as survey.fidelity does (its two messages, A − B in the
    study's order) and the experiments are summarised per model by survey.stats.humans.benchmark (sign
    agreement, correlation and calibration slope with intervals; at least 4 experiments per model). Returns a
    FidelityBenchmark; ``.results`` holds each experiment's HumanFidelity.
    """
    from survey.common.progress import progress_bar
    from survey.stats.humans.benchmark import fidelity_benchmark as summarise

    _check_confidence(confidence)
    from survey.data.sources import Source

    if isinstance(sources, str | Path | Source):
        raise SurveyError("give the studies' sources as a list (e.g. [\"a.toml\", \"b.toml\", ...]), not one source")
    sources = list(sources)
    if len(sources) < 2:
        raise SurveyError(f"a benchmark needs the stores of at least 2 studies (4 for a correlation); got "
                          f"{len(sources)}: for one study use survey.fidelity")
    results = {}
    with progress_bar("experiments", total=len(sources), enabled=progress) as bar:
        for src in sources:
            src = _open(src)
            name = src.study or Path(src.path).stem
            if name in results:
                raise SurveyError(f"two sources hold the study '{name}': give each experiment once")
            if src.humans is None:
                raise SurveyError(f"{src.path}: its study names no human answers (humans = ... in the study "
                                  "file): a benchmark compares each study with its own humans")
            try:
                results[name] = fidelity(src, confidence=confidence, n_boot=n_boot, seed=seed, flips=flips)
            except SurveyError as exc:  # say which experiment: a benchmark reads several
                raise SurveyError(f"{name} ({src.path}): {exc}") from None
            if not hasattr(results[name], "effects"):  # e.g. a ranking: its comparison has no A − B effect per model
                raise SurveyError(f"{name} ({src.path}): a benchmark sets persona beside human effects A − B; this "
                                  "study's comparison with people has none (survey.fidelity shows it alone)")
            bar()
    return summarise(results, confidence=confidence)


def _check_confidence(confidence) -> None:
    if not 0 < confidence < 1:
        raise SurveyError(f"confidence must be between 0 and 1 (0.95 for 95% intervals); got {confidence}")


def _open(source):
    """A Source as it is; a study file stands for its store (``_study_source``); a path is a store or table."""
    from survey.data.sources import Source, load_source

    if isinstance(source, Source):
        return source
    return _study_source(source) if Path(source).suffix == ".toml" else load_source(Path(source))


def _study_source(path):
    """A study file stands for its store (the one `survey run` filled), as long as the study's [humans] is the
    one its run recorded: the models answered about the respondents of that file."""
    from survey.api.study import Study, open_source

    study = Study.from_toml(path)
    src = open_source(path)

    def settings(spec):  # a setting left at its default (None) reads the same as one an older run did not know
        return None if spec is None else {k: v for k, v in spec.items() if v is not None}

    now = settings(study.spec.humans.model_dump() if study.spec.humans is not None else None)
    recorded = settings(src.study_context.humans.settings if src.study_context.humans else None)
    if now != recorded:
        raise SurveyError(f"{path}: its [humans] changed since its store was filled (recorded {recorded}, now {now}): "
                          f"`survey run {path}` records it (sending only what is missing), or give the store")
    return src


@dataclass(frozen=True)
class HumansPlanOptions:
    """What a plan of humans and persona queries aims at, checked once here: the costs of one human and one
    query, the target (a CI ``half_width``, or an ``effect`` detected with ``power`` at ``alpha``), at most
    ``max_personas``; without a pilot the stated ``r``, ``sigma``, ``sigma_f`` and ``design``;
    ``queries_per_persona`` None for the default (the pilot's, or 1), 0 or less refused."""

    cost_human: float
    cost_query: float
    r: float | None = None
    sigma: float | None = None
    sigma_f: float | None = None
    design: str | None = None
    queries_per_persona: float | None = None
    half_width: float | None = None
    effect: float | None = None
    power: float = 0.8
    alpha: float = 0.05
    max_personas: int | None = None

    def __post_init__(self):
        q = self.queries_per_persona
        if q is not None and not q > 0:  # 0 is a mistake, not "the default"
            raise SurveyError(f"queries_per_persona must be positive (the queries one persona prediction takes); "
                              f"got {q}: leave it out for the default")


def plan_humans(pilot=None, *, model: str | None = None, scale: str | None = None,
                options: HumansPlanOptions | None = None, **keywords):
    """How many humans and how many persona queries? The cheapest mix for a target CI half-width or power.

    ``options``: a HumansPlanOptions, or its fields as keywords (``cost_human`` and ``cost_query`` are needed).
    Without ``pilot``: ``r`` (a stated guess of corr(human answer, model prediction)), ``sigma`` (default 0.5,
    the largest s.d. of a Yes/No answer) and ``design`` ("mean", "within" or "between"; default "mean") are
    given (``sigma_f``, the predictions' s.d., plans lambda's cap at 1), and a MixedEffectPlan returned. With
    ``pilot`` (a study file or store whose models answered as each human respondent, or a Source): r, sigma,
    the design and the queries per persona are measured there (survey.stats.humans.pilot) and a
    MixedEffectPlans returned, a dict model -> MixedEffectPlan (``model`` picks one).
    ``scale``: without a pilot, the answers' response type (default Yes/No; sigma then defaults to half its
    range, the largest s.d. of a mean's answers); a target the scale cannot hold (an effect or half-width as
    large as its range) is refused. A pilot's scale is its humans'.
    """
    from survey.common.options import options_from
    from survey.stats.planning.mixed_effect import MixedEffectPlans, MixedPlanTarget, plan_mixed_effect
    from survey.stats.planning.mixed_subjects import r_interval

    o = options_from(HumansPlanOptions, options, keywords, where="plan_humans")
    r, sigma, sigma_f, design, queries_per_persona = o.r, o.sigma, o.sigma_f, o.design, o.queries_per_persona
    target = MixedPlanTarget(cost_human=o.cost_human, cost_query=o.cost_query, half_width=o.half_width,
                             effect=o.effect, power=o.power, alpha=o.alpha, max_personas=o.max_personas)
    if pilot is None:
        if r is None:
            raise SurveyError("give r (a stated guess of the correlation between a human's answer and the model's "
                              "prediction for that human, e.g. 0.3) or a pilot study's store")
        name, width = _scale_range(scale)
        basis = f"r {r:g} stated; " + (f"sigma {width / 2:g} (default: the largest s.d. of a {name} answer)"
                                         if sigma is None else f"sigma {sigma:g} stated")
        basis += "" if sigma_f is None else f"; predictions' s.d. {sigma_f:g} stated"
        return plan_mixed_effect(design or "mean", r=r, sigma=width / 2 if sigma is None else sigma, sigma_f=sigma_f,
                                 queries_per_persona=1.0 if queries_per_persona is None else queries_per_persona,
                                 basis=basis, scale=name, target=target,
                                 scale_range=width if sigma is None or scale is not None else None)
    if scale is not None:
        raise SurveyError("scale: the pilot's humans answered on their study's scale; give either it or a pilot")
    given = [k for k, v in (("r", r), ("sigma", sigma), ("sigma_f", sigma_f), ("design", design)) if v is not None]
    if given:
        raise SurveyError(f"{', '.join(given)}: measured on the pilot; give either them or a pilot, not both")
    from survey.stats.humans.pilot import pilot_measures

    src = _open(pilot)
    if src.humans is None:
        raise SurveyError("the pilot's study names no human answers (humans = ... in its file): a pilot measures "
                          "how well the model predicts its respondents")
    measures = pilot_measures(src, src.humans, *declared_pair(src, None, None))
    if model is not None:
        if model not in measures:
            raise SurveyError(f"model '{model}' is not in the pilot; it has {', '.join(measures)}")
        measures = {model: measures[model]}
    flat = [m for m, x in measures.items() if not (math.isfinite(x.sigma) and x.sigma > 0)]
    if flat:  # else the planner blamed the costs: "costs must be numbers ... and sigma > 0"
        raise SurveyError(f"the pilot's {measures[flat[0]].n_humans} humans show no spread to plan from (sigma = "
                          f"{measures[flat[0]].sigma:g}: one answer within each message, or one human per message): "
                          "field more people, or plan without --pilot from a stated r and sigma")

    def basis(x):  # r from few humans is uncertain: its Fisher-z interval, on the humans it was measured on
        n = min((v["n"] for v in x.arms.values() if v["r"] == x.r), default=x.n_humans)
        low, high = r_interval(x.r, n)
        return (f"measured on the pilot: {x.model}, {x.n_humans} humans, r = {x.r:+.3f} (95% interval "
                f"{low:+.2f} to {high:+.2f}, Fisher's z on {n} humans), sigma = {x.sigma:.3f}, predictions' s.d. "
                f"{x.sigma_f:.3g}")

    name, width = _scale_range(src.humans.scale)
    return MixedEffectPlans({m: plan_mixed_effect(
        x.design, r=x.r, sigma=x.sigma, sigma_f=x.sigma_f, basis=basis(x), warnings=x.warnings, scale=name,
        scale_range=width, target=target,
        queries_per_persona=x.queries_per_persona if queries_per_persona is None else queries_per_persona)
        for m, x in measures.items()})


def _scale_range(scale: str | None) -> tuple[str, float]:
    """A response type's name and the distance between its lowest and highest score (Yes/No by default)."""
    from survey.responses import DEFAULT_SCALE, response_type

    rtype = response_type(scale or DEFAULT_SCALE)
    if not rtype.scored:
        raise SurveyError(f"'{rtype.scale}' answers have no score to plan a mean or an effect on")
    values = sorted(rtype.values)
    return ("Yes/No" if rtype.scale == DEFAULT_SCALE else rtype.scale), float(values[-1] - values[0])
