"""What a report view is: the per-kind part of the report (survey.reporting.views)."""

from __future__ import annotations

from survey.common.formatting import fmt
from survey.stats import ab_tests


class ReportView:
    """One kind's part of the page. ``kind``: the AnalysisView.kind it renders; ``template``: its partial;
    ``reading``: how the reading guide says what each persona did; ``reading_template``: an optional
    partial with more of the guide."""

    kind: str
    template: str
    reading: str = "answered many paraphrases (perturbations) of each message"
    reading_template: str | None = None
    # in a study of more than two messages, whether each pair also gets its own section below the set's (False
    # where a pair's section would repeat the set's table: pick one of k, best-worst scaling)
    per_pair_sections: bool = True
    exact_title: str = "The same tests on the model's exact scores"
    exact_intro: str = ("These models report the exact probability of every answer in every persona × paraphrase "
                        "cell, so the tests can run on it directly, without replicate noise.")

    def headline(self, r, view, alpha: float, completeness=None) -> str:
        raise NotImplementedError

    def section(self, r, df, view, texts: dict | None, fits: dict) -> dict:
        raise NotImplementedError

    def warnings(self, r, view, alpha: float) -> list[str]:
        return []

    def humans_sections(self, res) -> list:
        """The report's "Does it match people?" section(s) of the kind's own comparison with people (its
        manifest's ``humans`` part): by default its tables, this view's figure of it and its notes."""
        from survey.reporting.humans import kind_sections

        return kind_sections(res, self)

    def humans_figure(self, res) -> tuple | None:
        """(matplotlib Figure, caption) of the kind's own comparison with people, or None: the default section
        then shows the comparison's tables alone."""
        return None

    def exact_table(self, results: list) -> dict:
        """The exact-mode table: effect, interval and every test's p-value per model and pair."""
        rows = []
        for c in results:
            lo, hi = c.effect.ci
            rows.append([c.model, f"{c.a} vs {c.b}", f"{c.effect.estimate:+.4f}", f"[{lo:+.4f}, {hi:+.4f}]",
                         *(fmt(r.pvalue) for r in c.tests.values())])
        names = list(results[0].tests) if results else ab_tests.names()
        return {"columns": ["model", "messages", "effect", "CI",
                            *(f"{ab_tests.label(t)} p" + (" (valid)" if ab_tests.get(t).valid_when_rho_positive else "")
                              for t in names)], "rows": rows}


def significant(r, alpha: float) -> bool:
    """Whether the deciding test rejects: the sign-flip test at alpha, or the sequential test's own decision."""
    seq = r.sequential
    return seq.rejects if seq is not None else r.decision.pvalue <= alpha


def decision_words(r) -> str:
    """The deciding test and its p-value, for headlines: the sign-flip test, or the sequential test the study
    stopped by (survey.stats.sequential_decision)."""
    d = r.decision
    if r.sequential is not None:
        return f"{d.method} test the study stopped by: {d.decision}, p = {d.pvalue:.3g}"
    return f"sign-flip permutation test, p = {d.pvalue:.3g}"


def interval_words(effect) -> str:
    """How the effect's interval was found, for people: "(sign-flip inversion (exact))" read as jargon."""
    if effect.exact:
        return "the interval inverts the sign-flip test exactly"
    return "the interval inverts the sign-flip test over random sign flips (its ends are approximate)"


def not_at(r, alpha: float) -> str:
    """How a headline says the deciding test did not reject: above alpha, or the sequential test's decision."""
    return f"; no rejection at α = {alpha}" if r.sequential is not None else f", above α = {alpha}"


def test_rows(r) -> list[dict]:
    return [{"name": ab_tests.label(name), "statistic": fmt(t.statistic), "pvalue": fmt(t.pvalue),
             "note": ab_tests.get(name).note(t)} for name, t in r.tests.items()]


def persona_test_warnings(r, alpha: float, what: str = "paraphrase") -> list[str]:
    """The tests that assume independent personas calling a result significant that the deciding test does not."""
    out = []
    for name, res in r.tests.items():
        spec = ab_tests.get(name) if name in ab_tests.names() else None
        if spec is not None and not spec.valid_when_rho_positive and res.pvalue <= alpha < r.decision.pvalue:
            out.append(f"{r.model}: the {spec.label} test calls this significant (p = {res.pvalue:.3g}), but it "
                       f"treats personas as independent while each {what} shifts every persona at once; "
                       f"it is not valid here. Rely on the {ab_tests.label('sign_flip')} test.")
    return out


def design_words(r) -> str:
    """The design behind one comparison, for a view's section: personas, perturbations, pairs and replicates."""
    return (f"{r.n_personas} personas; perturbations " + ", ".join(f"{k}: {v}" for k, v in r.n_perturbations.items())
            + f" ({r.n_paired} pairs); r = {r.replicates} replicates.")
