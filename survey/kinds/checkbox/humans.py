"""Checkbox answers beside people's, one option at a time.

Whether a respondent ticked option i is a Yes/No answer (bit i of the answer's bit set). So each option is
compared as a Yes/No question: the personas' long table and the human answers are each mapped to that option's
0/1 indicator and handed to the per-message comparison of survey.stats.humans (human_fidelity: levels with the
human noise floor, the persona effect A - B beside the human one, the dispersion ratio, and the
prediction-powered estimate of the human effect, Angelopoulos et al., "Prediction-powered inference"). Nothing
is computed here that that comparison computes.

The options are compared one at a time: each option's intervals are at the stated confidence on their own.
Beside them, ``simultaneous`` holds the human effect and the prediction-powered effect at confidence
1 - (1 - confidence) / k for k options (Bonferroni), so that all k intervals of a model cover their options'
human effects together with at least the stated confidence.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from survey.common.display import Display
from survey.common.formatting import finite
from survey.errors import SurveyError
from survey.kinds.checkbox.parsing import CheckboxScale
from survey.kinds.checkbox.statistics import option_rows
from survey.responses import response_type
from survey.stats.analysis_results import Analysis
from survey.stats.humans import HumanFidelity, human_fidelity
from survey.stats.humans.compare import pair_in_order, ppi_about_humans
from survey.stats.humans.result import DESIGNS, VALIDITY, basis_words

OPTION_SCALE = "binary"  # an option's indicator: 1 ticked, 0 not
ONE_AT_A_TIME = ("The options are compared one at a time, each as a Yes/No question (ticked or not): each option's "
                 "intervals and p-values are at the stated confidence on their own, with no adjustment across the "
                 "options. The simultaneous intervals (Bonferroni over the {k} options, each at {each:.4g}) cover "
                 "all {k} human effects of a model together with at least {conf:.0%} confidence.")


@dataclass(repr=False)
class CheckboxFidelity(Display):
    """Per option of a checkbox question, the comparison with people (a HumanFidelity on the option's indicator),
    plus what it rests on. ``per_option``: {"option", "fidelity": HumanFidelity, "simultaneous": {"confidence",
    "human_effect": PPIResult, "ppi": {model: PPIResult}}} in the question's order."""

    a: str
    b: str
    design: str
    scale: str
    options: list
    per_option: list
    humans: dict
    personas: dict
    by: str | None = None
    confidence: float = 0.95
    notes: list = field(default_factory=list)

    @property
    def simultaneous_confidence(self) -> float:
        return 1 - (1 - self.confidence) / len(self.options)

    @property
    def multiplicity(self) -> str:
        return ONE_AT_A_TIME.format(k=len(self.options), each=self.simultaneous_confidence, conf=self.confidence)

    @property
    def basis(self) -> str:
        return (basis_words(self.humans, self.personas, self.a, self.b, self.design)
                + f"; {len(self.options)} options of a {self.scale} question, each compared as ticked or not")

    @property
    def validity(self) -> str:
        return VALIDITY

    def fidelity(self, option: str) -> HumanFidelity:
        """The comparison of one option, by its text."""
        for o in self.per_option:
            if o["option"] == option:
                return o["fidelity"]
        raise SurveyError(f"no option '{option}'; the options are {', '.join(self.options)}")

    def rows(self) -> list[dict]:
        """One row per option and model: the humans' and the personas' shares ticking it under A and B (the level
        comparison's, unweighted), the effects A - B, and the prediction-powered human effect."""
        out = []
        for o in self.per_option:
            f, sim = o["fidelity"], o["simultaneous"]
            for e in f.effects:
                m, ef = e["model"], e["fidelity"]
                shares = {msg: _ticked(f, m, msg) for msg in (f.a, f.b)}
                p, ps = f.ppi.get(m), sim["ppi"].get(m)
                out.append({"option": o["option"], "model": m,
                            f"humans {f.a}": shares[f.a][0], f"humans {f.b}": shares[f.b][0],
                            f"personas {f.a}": shares[f.a][1], f"personas {f.b}": shares[f.b][1],
                            "human effect": ef.human_effect, "human CI": tuple(f.human_effect.ci),
                            "persona effect": ef.persona_effect, "persona CI": tuple(e["persona_ci"]),
                            "difference": ef.difference, "difference CI": tuple(ef.ci), "difference p": finite(ef.pvalue),
                            "signs agree": ef.sign_agrees,
                            "PPI effect": p.estimate if p else None, "PPI CI": tuple(p.ci) if p else None,
                            "simultaneous human CI": tuple(sim["human_effect"].ci),
                            "simultaneous PPI CI": tuple(ps.ci) if ps else None})
        return out

    def display_parts(self):
        title = (f"Checkbox fidelity to people, {self.a} vs {self.b} ({self.design}-subjects), {len(self.options)} "
                 "options compared one at a time")
        keep = ("option", "model", f"humans {self.a}", f"humans {self.b}", f"personas {self.a}", f"personas {self.b}",
                "human effect", "persona effect", "difference p", "PPI effect", "PPI CI")
        rows = [{k: r[k] for k in keep} for r in self.rows()]
        return title, rows, [self.basis, self.multiplicity, self.validity, *self.notes]

    def to_dict(self) -> dict:
        return {"kind": "checkbox", "a": self.a, "b": self.b, "design": self.design,
                "design_text": DESIGNS[self.design], "scale": self.scale, "options": list(self.options),
                "confidence": self.confidence, "simultaneous_confidence": self.simultaneous_confidence,
                "multiplicity": self.multiplicity, "by": self.by, "humans": self.humans, "personas": self.personas,
                "basis": self.basis, "validity": self.validity, "notes": list(self.notes),
                "per_option": [{"option": o["option"], "index": i + 1, **o["fidelity"].to_dict(),
                                "simultaneous": {"confidence": o["simultaneous"]["confidence"],
                                                 "human_effect": o["simultaneous"]["human_effect"].to_dict(),
                                                 "ppi": {m: p.to_dict() for m, p in o["simultaneous"]["ppi"].items()}}}
                               for i, o in enumerate(self.per_option)]}


def _ticked(f: HumanFidelity, model: str, message: str) -> tuple[float | None, float | None]:
    """(humans' share, personas' share) ticking the option under ``message``: the level comparison's shares over
    all humans (segment "all"; with ``by``, the segments pooled by their sizes)."""
    lv = [x["fidelity"] for x in f.levels if x["model"] == model and x["message"] == message]
    if not lv:
        return None, None
    at = list(lv[0].points).index(1)
    n = np.array([x.n_humans for x in lv], dtype=float)
    units = np.array([x.n_persona_units for x in lv], dtype=float)
    return (float(np.dot(n, [x.human[at] for x in lv]) / n.sum()),
            float(np.dot(units, [x.persona[at] for x in lv]) / units.sum()))


def option_source(source, humans, i: int):
    """(the Source, the Humans) with every answer the indicator of option i (0-based): a Yes/No question."""
    table = option_rows(source.table, i).assign(scale=OPTION_SCALE)
    table = table.drop(columns=[c for c in ("expected", "options") if c in table.columns])
    people = dataclasses.replace(humans, scale=OPTION_SCALE, table=humans.table.assign(
        answer=humans.table["answer"].astype("int64") // (1 << i) % 2))
    return dataclasses.replace(source.with_table(table), humans=people), people


def checkbox_fidelity(source, humans, a: str | None = None, b: str | None = None, *, by: str | None = None,
                      confidence: float = 0.95, n_boot: int = 1000, seed: int = 0, flips: int = 9999,
                      prior: Analysis | None = None) -> CheckboxFidelity:
    """Per option of a checkbox question, the personas of ``source`` (a Source of one question) beside ``humans``
    (survey.data.humans.Humans of the same question): survey.stats.humans.human_fidelity on the option's ticked /
    not ticked answers, with the same arguments. ``prior``: the question's Analysis (a report's), whose per-option
    persona effects are taken instead of computed again."""
    rtype = _checkbox(source)
    _same_question(rtype, humans)
    if not 0 < confidence < 1:
        raise SurveyError(f"confidence must be between 0 and 1 (0.95 for 95% intervals); got {confidence}")
    a, b = pair_in_order(source, humans, a, b)
    k = len(rtype.options)
    options = _option_names(source, rtype)
    each = 1 - (1 - confidence) / k
    per_option = []
    for i, option in enumerate(options):
        src, people = option_source(source, humans, i)
        f = human_fidelity(src, people, a, b, by=by, confidence=confidence, n_boot=n_boot, seed=seed, flips=flips,
                           prior=_option_prior(prior, i))
        sim = ppi_about_humans(src, people, a, b, confidence=each)
        per_option.append({"option": option, "fidelity": f, "simultaneous": {
            "confidence": each, "human_effect": sim["human_effect"], "ppi": sim["ppi"]}})
    first = per_option[0]["fidelity"]
    return CheckboxFidelity(a=a, b=b, design=first.design, scale=rtype.scale, options=options,
                            per_option=per_option, humans=first.humans, personas=first.personas, by=by,
                            confidence=confidence, notes=_notes(per_option))


def _notes(per_option: list) -> list[str]:
    """Each option's notes once: those every option has (what the data rest on) as they are, the others (no PPI
    estimate, no dispersion ratio for this option) named by their option."""
    every = [n for n in per_option[0]["fidelity"].notes if all(n in o["fidelity"].notes for o in per_option)]
    own = [f"{o['option']}: {n}" for o in per_option for n in o["fidelity"].notes if n not in every]
    return list(dict.fromkeys(every + own))


def _checkbox(source):
    asked = source.questions
    if len(asked) > 1:
        raise SurveyError(f"the source asks {len(asked)} questions ({', '.join(asked)}): give the rows of the checkbox "
                          "question the humans answered (source.for_question(id))")
    scales = source.table["scale"].astype(str).unique() if "scale" in source.table.columns else []
    if len(scales) != 1:
        raise SurveyError("give the rows of one checkbox question (source.for_question(id) on a study of several)")
    rtype = response_type(str(scales[0]))
    if rtype.kind != "checkbox":
        raise SurveyError(f"the table's question is {rtype.scale}, not a checkbox: compare it with "
                          "survey.stats.humans.human_fidelity")
    return rtype


def _same_question(rtype, humans) -> None:
    """The humans answered the personas' question: the same options, the same bounds, no option beyond them."""
    theirs = response_type(humans.scale)
    if not isinstance(theirs, CheckboxScale):
        raise SurveyError(f"the humans answered on {humans.scale}, the personas a {rtype.scale} question: give the "
                          "human file the study's checkbox scale")
    if theirs.k != rtype.k:
        raise SurveyError(f"the humans answered a checkbox of {theirs.k} options ({theirs.scale}), the personas one "
                          f"of {rtype.k} ({rtype.scale}): give them the same options")
    if theirs.scale != rtype.scale:
        raise SurveyError(f"the humans answered on {theirs.scale}, the personas on {rtype.scale} (other bounds on how "
                          "many options may be ticked): compare answers to the same question")
    answers = humans.table["answer"].astype("int64")
    beyond = answers[(answers < 0) | (answers >= 1 << rtype.k)]
    if len(beyond):
        raise SurveyError(f"the humans ticked an option beyond the {rtype.k} the question lists (answer "
                          f"{int(beyond.iloc[0])} as a bit set): give their answers on the study's options")


def _option_names(source, rtype) -> list[str]:
    """The options' texts as the rows name them (a run stores them), else the scale's."""
    if "options" in source.table.columns:
        named = source.table["options"].dropna()
        if len(named):
            names = str(named.iloc[0]).split("|")
            if len(names) == rtype.k:
                return names
    return list(rtype.options)


@dataclass
class _OptionEffect:
    """One option's persona effect from a checkbox result: what human_fidelity reads of a prior comparison."""

    model: str
    a: str
    b: str
    effect: object


def _option_prior(prior, i: int):
    """The prior checkbox Analysis as one of option i's Yes/No comparisons (each result's per-option marginal
    effect, at the stated confidence, which equals the Yes/No analysis of the option's indicator; the one shown
    beside the Holm decision is simultaneous over the options); None when there is none to reuse."""
    if prior is None or hasattr(prior, "by_question"):  # a prior of several questions is analysed again anyway
        return None
    results = [r for r in prior.results if hasattr(r, "per_option")]
    if len(results) != len(prior.results):
        raise SurveyError("prior: give the checkbox question's own analysis (its results per option)")
    return Analysis([_OptionEffect(r.model, r.a, r.b, r.comparisons[i].marginal) for r in results],
                    prior.left_out, prior.completeness, prior.alpha, response_type(OPTION_SCALE).view, prior.options)
