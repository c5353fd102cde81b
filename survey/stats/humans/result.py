"""The result of a human comparison: levels, effects, dispersion and the PPI estimate per model, with what
validity needs said in words. A short repr and HTML (survey.common.display) and strict JSON (``to_dict``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from survey.common.display import Display
from survey.common.formatting import finite
from survey.stats.ppi import RESTS_ON

DESIGNS = {"within": "within-subjects (each respondent saw both messages)",
           "between": "between-subjects (each respondent saw one message)"}
VALIDITY = ("Conclusions about people rest on the humans: they must be a random sample of the target population "
            "(and the personas drawn from, or weighted to, the same population), and the models' predictions must "
            "be fixed before the human answers are used (no prompt, template or model tuned on these humans).")


@dataclass(repr=False)
class HumanFidelity(Display):
    a: str
    b: str
    design: str  # "within" or "between"
    scale: str
    unit: str
    human_effect: object  # PPIResult with lambda = 0: the humans alone
    levels: list  # {"model", "message", "segment", "fidelity": LevelFidelity}
    effects: list  # {"model", "fidelity": EffectFidelity}
    dispersion: list  # {"model", "message", "ratio": DispersionRatio}
    ppi: dict  # model -> PPIResult about the human effect
    humans: dict  # the human file's summary (survey.data.humans.Humans.summary)
    personas: dict  # the personas used: models, population personas, rendered respondents
    by: str | None = None
    confidence: float = 0.95
    notes: list = field(default_factory=list)
    left_out: list = field(default_factory=list)

    @property
    def basis(self) -> str:
        return basis_words(self.humans, self.personas, self.a, self.b, self.design)

    @property
    def validity(self) -> str:
        return VALIDITY

    def verdicts(self) -> list[str]:
        """One plain sentence per model: do its personas match people?"""
        out = []
        for e in self.effects:
            m, ef = e["model"], e["fidelity"]
            lv = [x["fidelity"] for x in self.levels if x["model"] == m and x["segment"] == "all"]
            over = sum(1 for x in lv if x.jsd > x.distances["jsd"]["noise_floor"] * 2)
            worse = sum(1 for x in lv if x.jsd > x.distances["jsd"]["baselines"].get("uniform", float("inf")))
            if ef.sign_agrees is None:  # one of the effects is exactly 0: there is no direction to compare
                zero = "the humans show" if ef.human_effect == 0 else "the personas show"
                direction = (f"the personas' effect ({ef.persona_effect:+.3f}) and the humans' "
                             f"({ef.human_effect:+.3f}) cannot be compared in direction: {zero} none")
            else:
                way = "the same direction as" if ef.sign_agrees else "the opposite direction to"
                direction = (f"the personas' effect ({ef.persona_effect:+.3f}) points in {way} the humans' "
                             f"({ef.human_effect:+.3f})")
            p_text = (f"difference p = {ef.pvalue:.3g}" if np.isfinite(ef.pvalue) else
                      "no difference p-value: every human gave the same answer")
            text = (f"{m}: {direction} ({p_text}); their answer levels are farther from "
                    f"people than twice the human noise floor for {over} of {len(lv)} messages")
            if worse:
                text += f", and farther than a uniform guess for {worse}"
            p = self.ppi.get(m)
            if p is not None:
                text += f". Using its predictions, the human effect is {p.estimate:+.3f} (CI {p.ci[0]:+.3f} to {p.ci[1]:+.3f})"
                if np.isfinite(p.width_ratio) and np.isfinite(p.effective_n):
                    text += (f", {p.width_ratio:.2f} times the humans-only width: the model is worth "
                             f"{p.effective_n - p.n:+.1f} humans")
                else:  # every human gave the same answer: no humans-only width to compare with
                    text += ": the humans' answers have no spread, so what the model is worth cannot be said"
            out.append(text + ".")
        return out

    def display_parts(self):
        h = self.human_effect
        title = (f"Fidelity to people, {self.a} vs {self.b} ({self.design}-subjects): human effect {h.estimate:+.4g} "
                 f"({self.confidence:.0%} CI {h.ci[0]:+.4g} to {h.ci[1]:+.4g})")
        rows = []
        for e in self.effects:
            m, ef = e["model"], e["fidelity"]
            lv = [x["fidelity"] for x in self.levels if x["model"] == m and x["segment"] == "all"]
            p = self.ppi.get(m)
            rows.append({"model": m, "persona effect": ef.persona_effect, "signs agree": ef.sign_agrees,
                         "difference p": finite(ef.pvalue), "mean JSD": sum(x.jsd for x in lv) / max(len(lv), 1),
                         "noise floor": sum(x.distances["jsd"]["noise_floor"] for x in lv) / max(len(lv), 1),
                         "PPI effect": p.estimate if p else None, "PPI CI": p.ci if p else None})
        return title, rows, [self.basis, self.validity, *self.notes]

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "design": self.design, "design_text": DESIGNS[self.design],
                "scale": self.scale, "unit": self.unit, "confidence": self.confidence, "by": self.by,
                "humans": self.humans, "personas": self.personas, "basis": self.basis,
                "human_effect": self.human_effect.to_dict(),
                "levels": [{"model": x["model"], "message": x["message"], "segment": x["segment"],
                            **x["fidelity"].to_dict()} for x in self.levels],
                "effects": [{"model": e["model"], **e["fidelity"].to_dict(),
                             **({"persona_ci": [finite(x) for x in e["persona_ci"]]} if "persona_ci" in e else {})}
                            for e in self.effects],
                "dispersion": [{"model": d["model"], "message": d["message"], **d["ratio"].to_dict()}
                               for d in self.dispersion],
                "ppi": {m: p.to_dict() for m, p in self.ppi.items()},
                "verdicts": self.verdicts(), "validity": self.validity, "ppi_rests_on": RESTS_ON,
                "notes": list(self.notes), "left_out": list(self.left_out)}


def basis_words(humans: dict, personas: dict, a: str, b: str, design: str) -> str:
    """What a comparison with people rests on, in one sentence: the humans compared (of how many, from which
    file, in which design) and the personas beside them."""
    n = humans.get("compared", humans["respondents"])
    who = (f"{n} respondents" if n == humans["respondents"]
           else f"{n} of {humans['respondents']} respondents (those shown {a} or {b})")
    return (f"humans: {who} in {humans['path'] or 'a table'} ({DESIGNS[design]}); personas: {personas['personas']} "
            f"of the study's persona set and {personas['rendered_humans']} rendered from the respondents' attributes")
