"""Which model should I trust for this kind of question? Persona effects against human effects over several
experiments (a benchmark), per model.

Each experiment is one study whose personas answered the messages a human experiment showed (its
survey.stats.humans.HumanFidelity). Per model the experiments give pairs (persona effect, human effect), and
survey.stats.effect_fidelity.benchmark_fidelity summarises them the way Hewitt, Ashokkumar, Ghezae & Willer,
"Predicting Results of Social Science Experiments Using Large Language Models" (2024) score models: how often the
sign agrees (Wilson interval), Pearson's correlation (Fisher-z interval) and the calibration slope of the human on
the persona effects (t interval). What a benchmark rests on is said in every result: the effects are oriented as
each study orders its messages (A − B), so the correlation depends on that choice while sign agreement does not;
the experiments count as independent; and with a handful of experiments every interval is wide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from survey.common.display import Display
from survey.common.formatting import finite
from survey.errors import SurveyError
from survey.stats.effect_fidelity import BenchmarkFidelity, benchmark_fidelity

MIN_EXPERIMENTS = 4  # benchmark_fidelity's floor: a correlation interval needs n - 3 > 0 degrees of freedom
RESTS_ON = ("Effects are oriented as each study orders its messages (A − B): sign agreement does not depend on "
            "that choice, the correlation and slope do (when every human effect points one way, the correlation "
            "speaks of sizes only). The experiments are treated as independent draws of the kind of question "
            "asked; the human effects carry their own sampling error, which attenuates the correlation, and the "
            "persona effects theirs, which pulls the slope below 1. Sign agreement counts agreement with the "
            "observed human signs. With a handful of experiments every interval is wide: a benchmark ranks models "
            "only when their intervals separate.")


@dataclass(repr=False)
class FidelityBenchmark(Display):
    """Persona against human effects over experiments, per model (``models``: model -> BenchmarkFidelity, or
    the reason there is none in ``missing``), with one row per experiment x model in ``experiments``."""

    experiments: list  # {"experiment", "a", "b", "design", "model", "human_effect", "human_ci", "persona_effect",
    #                     "persona_ci", "difference_pvalue", "sign_agrees", "n_humans"}
    models: dict  # model -> BenchmarkFidelity
    missing: dict  # model -> why it has no summary
    unit: str
    confidence: float = 0.95
    notes: list = field(default_factory=list)
    results: dict = field(default_factory=dict)  # experiment -> its HumanFidelity (levels, PPI...)

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys(r["experiment"] for r in self.experiments))

    def verdicts(self) -> list[str]:
        """One sentence per model: do its effects rise with people's over these experiments? The correlation
        says whether they rise together, the slope how large, sign agreement whether the directions match."""
        out = []
        for model in dict.fromkeys(r["model"] for r in self.experiments):
            rows = [r for r in self.experiments if r["model"] == model]
            agree = sum(1 for r in rows if r["sign_agrees"])
            signed = sum(1 for r in rows if r["sign_agrees"] is not None)
            text = f"{model}: the personas' effect has the humans' sign in {agree} of {signed} experiments"
            b = self.models.get(model)
            if b is not None and b.sign_agreement_ci[1] < 0.5:
                text += f" (at most {b.sign_agreement_ci[1]:.0%} at {self.confidence:.0%}: its effects mostly point " \
                        "the other way from people's)"
            elif b is not None and b.sign_agreement_ci[0] > 0.5:
                text += f" (at least {b.sign_agreement_ci[0]:.0%} at {self.confidence:.0%}: mostly people's direction)"
            if b is not None:
                lo, hi = b.correlation_ci
                text += (f"; correlation with the human effects {b.correlation:+.2f} ({self.confidence:.0%} CI "
                         f"{lo:+.2f} to {hi:+.2f}), calibration slope {b.slope:+.2f} ({b.slope_ci[0]:+.2f} to "
                         f"{b.slope_ci[1]:+.2f}; 1: a persona effect of x predicts a human effect of x, above 1 the "
                         "persona effects are too small, below 1 they vary more than people's)")
                if lo > 0:
                    text += (": its effects are larger where people's are, which says nothing of their size (the "
                             "slope) nor, with effects oriented as the studies order them, much of their sign")
                elif hi < 0:
                    text += ": its effects are smaller where people's are larger"
                else:
                    text += ": these experiments cannot show that its effects rise with people's"
            else:
                text += f" ({self.missing.get(model, 'no summary')})"
            out.append(text + ".")
        return out

    def display_parts(self):
        title = (f"Benchmark of {len(self.names)} human experiments ({self.unit}): persona vs human effects per "
                 "model")
        rows = []
        for model, b in self.models.items():
            rows.append({"model": model, "experiments": b.n_experiments, "sign agreement": b.sign_agreement,
                         "correlation": b.correlation, "correlation CI": b.correlation_ci, "slope": b.slope,
                         "slope CI": b.slope_ci})
        for model, why in self.missing.items():
            rows.append({"model": model, "experiments": sum(1 for r in self.experiments if r["model"] == model),
                         "sign agreement": None, "correlation": None, "correlation CI": None, "slope": None,
                         "slope CI": None, "no summary because": why})
        return title, rows, [*self.verdicts(), RESTS_ON, *self.notes]

    def to_dict(self) -> dict:
        pair = lambda t: [finite(t[0]), finite(t[1])]  # noqa: E731
        return {"unit": self.unit, "confidence": self.confidence, "experiments": [
                    {**r, "human_effect": finite(r["human_effect"]), "human_ci": pair(r["human_ci"]),
                     "persona_effect": finite(r["persona_effect"]), "persona_ci": pair(r["persona_ci"]),
                     "difference_pvalue": finite(r["difference_pvalue"])} for r in self.experiments],
                "models": {m: b.to_dict() for m, b in self.models.items()}, "missing": dict(self.missing),
                "verdicts": self.verdicts(), "rests_on": RESTS_ON, "notes": list(self.notes)}


def fidelity_benchmark(results, *, confidence: float = 0.95) -> FidelityBenchmark:
    """Summarise per model over experiments. ``results``: experiment name -> survey.stats.humans.HumanFidelity
    (one per study; e.g. survey.fidelity on each study's store). A model needs at least 4 experiments with
    varying effects for a summary; the others are listed in ``missing`` with the reason."""
    results = dict(results)
    if len(results) < 2:
        raise SurveyError(f"a benchmark compares effects over experiments: give at least 2 (4 for a correlation "
                          f"interval); got {len(results)}")
    units = {name: r.unit for name, r in results.items()}
    if len(set(units.values())) > 1:
        raise SurveyError("the experiments measure effects on different scales ("
                          + ", ".join(f"{n}: {u}" for n, u in units.items())
                          + "): a benchmark correlates effects on one scale; benchmark each scale separately")
    rows = [r for name, res in results.items() for r in _rows(name, res)]
    models, missing = {}, {}
    for model in dict.fromkeys(r["model"] for r in rows):
        mine = [r for r in rows if r["model"] == model]
        if len(mine) < MIN_EXPERIMENTS:
            missing[model] = (f"{len(mine)} experiments; a correlation and slope need at least {MIN_EXPERIMENTS}")
            continue
        try:
            models[model] = benchmark_fidelity([r["human_effect"] for r in mine], [r["persona_effect"] for r in mine],
                                               confidence=confidence)
        except SurveyError as exc:  # e.g. a model whose effects are all 0: say why, keep the others
            missing[model] = str(exc)
    notes = [f"{m}: answered {sum(1 for r in rows if r['model'] == m)} of {len(results)} experiments"
             for m in dict.fromkeys(r["model"] for r in rows)
             if sum(1 for r in rows if r["model"] == m) < len(results)]
    notes += [f"{name}: {n}" for name, res in results.items() for n in res.notes]  # completeness, weights...
    return FidelityBenchmark(rows, models, missing, next(iter(units.values())), confidence, notes, results)


def _rows(name: str, res) -> list[dict]:
    h = res.human_effect
    out = []
    for e in res.effects:
        f = e["fidelity"]
        out.append({"experiment": name, "a": res.a, "b": res.b, "design": res.design, "model": e["model"],
                    "human_effect": float(h.estimate), "human_ci": tuple(h.ci),
                    "persona_effect": float(f.persona_effect), "persona_ci": tuple(e.get("persona_ci") or (
                        float("nan"), float("nan"))),
                    "difference_pvalue": float(f.pvalue), "sign_agrees": f.sign_agrees,
                    "n_humans": int(res.humans.get("compared", res.humans.get("respondents", 0)))})
    return out


__all__ = ["MIN_EXPERIMENTS", "RESTS_ON", "BenchmarkFidelity", "FidelityBenchmark", "fidelity_benchmark"]
