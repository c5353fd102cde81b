"""The report's "Does it match people?" section: the personas beside human answers to the same messages,
from survey.stats.humans (nothing is computed here): levels, effects, dispersion, the prediction-powered
estimate about the humans, a plain verdict per model and what validity needs."""

from __future__ import annotations

import math

from survey.common.formatting import fmt, yes_no
from survey.responses import response_type
from survey.stats.humans.in_words import level_in_words, ppi_in_words

TITLE = "Does it match people?"


def _ci(ci) -> str:
    return f"{fmt(ci[0], 3)} to {fmt(ci[1], 3)}"


def distance(x) -> str:
    """A distance (JSD, Wasserstein) with three decimals, however small: one format per column, where fmt's
    significant digits below 0.001 put 4.28e-06 beside 0.003."""
    return "—" if x is None or not math.isfinite(x) else f"{x:.3f}"


def distance_ci(value, ci) -> str:
    return f"{distance(value)} ({distance(ci[0])} to {distance(ci[1])})"


def _matches(res, model: str) -> bool:
    """A model matches people here when its effect has the humans' sign and its difference from theirs is not
    significant, and every message's answer levels lie within twice the human noise floor."""
    e = next(x["fidelity"] for x in res.effects if x["model"] == model)
    lv = [x["fidelity"] for x in res.levels if x["model"] == model and x["segment"] == "all"]
    close = all(x.jsd <= 2 * x.distances["jsd"]["noise_floor"] for x in lv)
    return bool(e.sign_agrees) and e.pvalue > 1 - res.confidence and close


def finding(res) -> str:
    """The headline in words; a poor match is a finding about the models, not a failure of the study."""
    poor = [e["model"] for e in res.effects if not _matches(res, e["model"])]
    good = [e["model"] for e in res.effects if e["model"] not in poor]
    text = []
    if poor:
        text.append(f"{', '.join(poor)} {'matches' if len(poor) == 1 else 'match'} these people poorly: "
                    "answer levels farther from the humans than two random halves of the humans are from each "
                    "other, or an effect of the wrong sign or size. That is a finding about the models (models, "
                    "small ones above all, are known to answer too uniformly and to miss who answers what), not a "
                    "failure of the study: the persona tests remain valid statements about the models"
                    + (", and the prediction-powered estimate below remains a valid statement about people, only no "
                       "narrower than the humans' own." if res.ppi else
                       "; the humans' own effect is the statement about people."))
    if good:
        n = res.humans.get("compared", res.humans.get("respondents"))
        widths = [e["fidelity"].ci[1] - e["fidelity"].ci[0] for e in res.effects if e["model"] in good]
        widest = max((w for w in widths if math.isfinite(w)), default=None)
        span = (f"the effect difference's interval spans up to {widest:.2f}" if widest is not None else
                "every human gave the same answer, so the effect difference has no interval")
        text.append(f"{', '.join(good)} {'matches' if len(good) == 1 else 'match'} these people within the noise of "
                    f"the human sample on every comparison made here; with {n} humans that noise is wide ({span}), "
                    "so only large mismatches could show.")
    return " ".join(text)


def human_sections(res) -> list:
    """One Section from a survey.stats.humans.HumanFidelity."""
    from survey.plots.humans import human_fidelity_plot
    from survey.reporting import Section, fig_png

    h = res.human_effect
    sec = Section(TITLE)
    sec.paragraphs.append(f"{res.basis}. The humans' own effect {res.a} − {res.b} is {fmt(h.estimate, 3)} "
                          f"({res.confidence:.0%} CI {_ci(h.ci)}, {res.unit}).")
    sec.paragraphs.append(finding(res))
    sec.paragraphs += res.verdicts()
    sec.figures.append(fig_png(human_fidelity_plot(res), "Left: mean answer of the humans and of each model's "
                               "personas. Right: the effect of the humans alone, of each model's personas and, where "
                               "the models answered as each respondent, the prediction-powered estimate about the "
                               "humans (bars: intervals)."))
    # the answers and the distances in two tables: one of twelve columns needed scrolling sideways at 800 px
    labels = response_type(res.scale).fidelity_labels()
    by = ["segment"] if res.by else []
    sec.tables.append({"columns": ["model", "message", *by, "humans", "human shares", "persona shares", "in words"],
                       "rows": [_level_row(x, labels, by) for x in res.levels]})
    sec.tables.append({"columns": ["model", "message", *by, "JSD (CI)", "JSD noise floor", "JSD vs uniform",
                                   "Wasserstein (CI)", "Wasserstein noise floor"],
                       "rows": [_distance_row(x, by) for x in res.levels]})
    sec.tables.append({"columns": ["model", f"persona effect ({res.unit})", "human effect", "human − persona (CI)",
                                   "p (same effect)", "signs agree"],
                       "rows": [[e["model"], fmt(e["fidelity"].persona_effect, 3), fmt(e["fidelity"].human_effect, 3),
                                 f"{fmt(e['fidelity'].difference, 3)} ({_ci(e['fidelity'].ci)})",
                                 fmt(e["fidelity"].pvalue, 3), yes_no(e["fidelity"].sign_agrees)] for e in res.effects]})
    if res.ppi:
        sec.tables.append({"columns": ["model", "PPI human effect", "CI", "p-value", "lambda", "width vs humans alone",
                                       "effective humans", "in words"],
                           "rows": [[m, fmt(p.estimate, 3), _ci(p.ci), fmt(p.pvalue, 3),
                                     ", ".join(fmt(x, 2) for x in (p.lam if isinstance(p.lam, tuple) else (p.lam,))),
                                     fmt(p.width_ratio, 3), fmt(p.effective_n, 1), ppi_in_words(p)]
                                    for m, p in res.ppi.items()]})
    sec.tables.append({"columns": ["model", "message", "persona / human variance", "CI"],
                       "rows": [[d["model"], d["message"], fmt(d["ratio"].ratio, 3), _ci(d["ratio"].ci)]
                                for d in res.dispersion]})
    sec.paragraphs.append("How to read it: JSD (Jensen–Shannon divergence, base 2) and the Wasserstein distance compare "
                          "the answer distributions, with bootstrap intervals; the noise floor is the same distance "
                          "between two random halves of the humans, sampling noise at half the sample (a model "
                          "answering exactly like the people's population, with as many answers as there are "
                          "humans, scores about half of it in JSD, so reaching it is not matching people). A "
                          "persona's score averages its paraphrases while a human answers once, so the dispersion "
                          "ratio compares what each source shows. The prediction-powered estimate (Angelopoulos et al., "
                          "\"Prediction-powered inference\"; PPI++ power tuning by Angelopoulos, Duchi & Zrnic) uses "
                          "the model's answer for each respondent rendered as a persona, corrected by the humans' "
                          "answers: valid about people however wrong the model is, and narrower only when the model "
                          "predicts who answers what.")
    sec.paragraphs.append(f"What validity needs: {res.validity}")
    sec.paragraphs += [f"Note: {n}" for n in res.notes]
    return [sec]


def kind_sections(res, view) -> list:
    """One Section from a kind's own comparison with people (a ranking's, survey.kinds.rank.humans): what it rests
    on, its tables (survey.common.display.display_tables), the figure its kind's report view draws of it
    (``view``: a ReportView, its humans_figure), and its notes."""
    from survey.common.display import display_notes, display_tables
    from survey.reporting import Section, fig_png

    sec = Section(TITLE, paragraphs=[f"{getattr(res, 'basis', None) or res.display_parts()[0]}."])
    sec.tables += display_tables(res)
    figure = view.humans_figure(res) if view is not None else None
    if figure is not None:
        sec.figures.append(fig_png(*figure))
    sec.paragraphs += [f"Note: {n}" for n in display_notes(res)]
    return [sec]


def shares_in_labels(points, shares, labels) -> str:
    """"Yes: 51%, No: 49%": each point by the label the respondents answered with (its score when it has none)."""
    return ", ".join(f"{labels.get(p, p)}: {v:.0%}" for p, v in zip(points, shares, strict=True))


def _level_row(x, labels, by) -> list:
    f = x["fidelity"]
    return [x["model"], x["message"], *(x["segment"] for _ in by), f.n_humans,
            shares_in_labels(f.points, f.human, labels), shares_in_labels(f.points, f.persona, labels),
            level_in_words(f)]


def _distance_row(x, by) -> list:
    f = x["fidelity"]
    j, w = f.distances["jsd"], f.distances.get("wasserstein")
    return [x["model"], x["message"], *(x["segment"] for _ in by),
            distance_ci(j["value"], j["ci"]), distance(j["noise_floor"]), distance(j["baselines"]["uniform"]),
            "" if w is None else distance_ci(w["value"], w["ci"]),
            "" if w is None else distance(w["noise_floor"])]
