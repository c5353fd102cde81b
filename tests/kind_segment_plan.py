"""Planning by segment for a kind, walked the way a user walks it: a study file names the question and the
segments, `survey plan STUDY --interaction-delta D` (text and --json; its personas by its [segments]), `survey plan
--scale S --personas SET --by ATTR` and survey.plan_segments from Python give the power per segment and of the
interaction; the kind's simulator under the null and as the segments' effects part. Used by
tests/kinds/<kind>/test_<kind>_segment_plan.py."""

from __future__ import annotations

import json

import numpy as np
from cli_result import run_cli

import survey
from survey.stats.planning.segments import SegmentDesign, interaction_power, segment_power
from survey.stats.segments.simulation import SimSegment, simulate_segment_cells
from survey.stats.segments.validity import binomial_band

ALPHA = 0.05
NULL_SURVEYS = 1000  # one segment per survey counted: segments of one survey share the paraphrase shifts
BAND = binomial_band(ALPHA, NULL_SURVEYS)  # 99%: (0.033, 0.069) at 1 000 surveys


def study_toml(question: str) -> str:
    messages = "".join(f'[[messages]]\nid = "{m}"\nperturbations = "{m}"\ncount = 8\n\n'
                       for m in ("sneakers", "boots", "sandals"))
    return f"""name = "segment-plan"
store = "store.sqlite"
replicates = 1

[personas]
set = "shoppers"
count = 40
sample_seed = 1

{messages}[question]
{question}

[segments]
by = "gender"

[[models]]
name = "sim"
backend = "simulated"
"""


def from_study(tmp_path, question: str) -> tuple[str, str, str]:
    """(scale, persona set, segments' by) of a study file with this question, written as tmp_path/study.toml."""
    (tmp_path / "study.toml").write_text(study_toml(question))
    spec = survey.Study.from_toml(tmp_path / "study.toml").spec
    return spec.question.type, spec.personas.set, spec.segments.by


def plan_from_the_command_line(capsys, study_file, scale: str, persona_set: str, by: str, delta: str = "1.5") -> dict:
    """`survey plan STUDY` (the study's scale and its personas by its [segments]), text and --json, and the same
    scale with the persona set named (`--scale S --personas SET --by ATTR`); returns the study's JSON."""
    design = ["--delta", delta, "--pairs", "10", "--replicates", "1", "--interaction-delta", "2", "--simulations", "60",
              "--flips", "199"]
    code, out, err = run_cli(capsys, "plan", study_file, *design)
    assert code == 0, err
    assert f"parameters: {scale} (given)" in out and "each segment's effect" in out and "interaction" in out
    assert "the segments of the personas of study segment-plan by gender" in out and "female" in out
    code, out, err = run_cli(capsys, "plan", study_file, *design, "--json")
    assert code == 0, err
    doc = json.loads(out)  # the whole of stdout is one JSON document
    assert doc["model"].startswith(f"{scale} (given)") and doc["segments"] == len(doc["current"]) == 3
    assert sum(c["personas"] for c in doc["current"]) == 40  # the study's sample of 40, not the whole set
    assert {c["segment"] for c in doc["current"]} == {"female", "male", "non-binary"}
    assert 0 <= doc["per_segment"]["power"] <= 1 and doc["interaction"]["interaction_delta"] == 2.0
    code, out, err = run_cli(capsys, "plan", "--scale", scale, "--personas", persona_set, "--by", by, *design,
                             "--json")
    assert code == 0 and sum(c["personas"] for c in json.loads(out)["current"]) == 100, err  # the whole set
    return doc


def refusals(capsys, study_file, scale: str) -> None:
    """A segment attribute the personas lack, segments that disagree with the study's, too few segments, a
    budget flag, --scale beside STUDY: one line, exit 2 (with --json, only {"error": ...})."""
    for args, says in (
            ([study_file, "--by", "shoe_size"], "no persona attribute 'shoe_size'"),
            (["--scale", scale, "--personas", "shoppers", "--by", "shoe_size"], "no persona attribute 'shoe_size'"),
            ([study_file, "--segments", "2"], "--segments 2 but the segments of study 'segment-plan' (by gender) are 3"),
            ([study_file, "--personas", "shoppers", "--by", "gender"], "drop --personas"),
            ([study_file, "--scale", scale, "--segments", "3"], "--scale and STUDY both name the scale"),
            (["--scale", scale, "--segments", "1"], "at least 2 segments"),
            (["--scale", scale, "--segments", "2", "--design", "10,8,1"], "--design belongs to the budget plan"),
            (["no-such-study.toml", "--segments", "2"], "no such study file")):
        code, out, err = run_cli(capsys, "plan", *args, "--delta", "0.5")
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        code, out, err = run_cli(capsys, "plan", *args, "--delta", "0.5", "--json")
        assert code == 2 and set(json.loads(out)) == {"error"} and says in json.loads(out)["error"]


def null_cells(scale: str, model: dict, n: int = 15, m: int = 8, r: int = 2, seed: int = 7):
    """NULL_SURVEYS surveys of two segments, no effect in either (A and B exchangeable)."""
    segs = [SimSegment("s1", n, 0.0, 0.5), SimSegment("s2", n, 0.0, -0.5)]
    return simulate_segment_cells(segs, m, r, scale=scale, surveys=NULL_SURVEYS, seed=seed, **model)


def in_band(rate: float) -> bool:
    return BAND[0] <= rate <= BAND[1]


def power_table(params, segment_deltas=(0.0, 0.5, 1.0, 1.5), interaction_deltas=(0.0, 1.0, 2.0), n: int = 12,
                m: int = 10, r: int = 1, simulations: int = 200, flips: int = 199) -> dict:
    """Power of each of two segments' adjusted test by the segments' effect, and of the interaction by the
    difference of the two segments' effects (n personas per segment)."""
    model, _ = params.segment_model(None)
    design = SegmentDesign(params.scale, model, m, r, params.segment_draws(r))
    segment = {d: float(segment_power(design, [n, n], d, ALPHA, "holm", simulations, [3, 1], flips).mean())
               for d in segment_deltas}
    interaction = {d: interaction_power(design, (n, n), 0.0, d, ALPHA, simulations, [3, 2], flips)
                   for d in interaction_deltas}
    return {"segment": segment, "interaction": interaction}


def grows(powers: dict, slack: float = 0.03) -> bool:
    values = list(powers.values())
    return all(b >= a - slack for a, b in zip(values, values[1:], strict=False)) and values[-1] > values[0] + 0.3


__all__ = ["ALPHA", "BAND", "NULL_SURVEYS", "from_study", "grows", "in_band", "null_cells", "plan_from_the_command_line",
           "power_table", "refusals", "np"]
