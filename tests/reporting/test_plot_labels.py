"""Every plot names its y axis, and the per-paraphrase plot names each paraphrase, so a reader sees
which wording won and which lost."""

import numpy as np
import pytest

from survey.plots import survey as plots
from survey.stats.beta_logit import simulate
from survey.stats.comparison import compare_messages


@pytest.fixture(scope="module")
def comparison():
    return compare_messages(simulate(12, 5, 2, delta=0.8, seed=3), "simulated", "A", "B", n_resamples=99)


def _unlabelled(fig) -> list[str]:
    """Titles of the axes whose y axis has no label (nor shares one with a labelled axes)."""
    out = []
    for ax in fig.axes:
        if not ax.has_data() or ax.get_ylabel():
            continue
        if any(o.get_ylabel() for o in ax.get_shared_y_axes().get_siblings(ax)):
            continue
        out.append(ax.get_title() or repr(ax))
    return out


def test_every_plot_of_a_comparison_names_its_y_axis(comparison):
    for draw in (plots.perturbation_means, plots.persona_differences, plots.permutation_null):
        assert _unlabelled(draw(comparison)) == [], draw.__name__


def test_the_other_plots_name_their_y_axis():
    from survey.kinds.binary.power import BinaryPower
    from survey.plots.dbpa import dbpa_figure, family_figure
    from survey.plots.power import power_curves
    from survey.plots.validity import pvalue_ecdfs
    from survey.stats.beta_logit import ModelParams
    from survey.stats.dbpa.family import dbpa_family
    from survey.stats.dbpa.permutation import dbpa_test
    from survey.stats.planning.power import SurveySize, estimate_power
    from survey.stats.planning.validity import validity_study

    power = estimate_power(BinaryPower(ModelParams(mu=0.5, kappa=4.0, sigma=1.0, rho=0.3)), [SurveySize("1:1:1", 80, 10, 4, 1), SurveySize("1:1:1", 160, 20, 4, 1)],
                           simulations=20, flips=99)
    assert _unlabelled(power_curves(power, 0.05)) == []
    df = simulate(10, 8, 2, seed=1)
    assert _unlabelled(pvalue_ecdfs(validity_study(df, "simulated", "A", configs=[(6, 4, 2)], draws=20,
                                                   flips=99))) == []
    rng = np.random.default_rng(0)
    base, other = rng.normal(size=(20, 4)), rng.normal(size=(20, 4)) + 0.5
    assert _unlabelled(dbpa_figure(dbpa_test(base, other, n_resamples=99, seed=0))) == []
    fam = dbpa_family(base, {"shifted": other, "same": rng.normal(size=(20, 4))}, n_resamples=99, seed=0)
    assert _unlabelled(family_figure(fam)) == []


def test_the_per_paraphrase_plot_names_every_paraphrase_and_its_text(comparison):
    texts = {("A", "A-01"): "Sneakers that go the distance, built for all-day comfort."}
    fig = plots.perturbation_means(comparison, texts)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    ids = [*comparison.pairing.order_a, *comparison.pairing.order_b]
    assert len(labels) == len(ids) == 10
    for pid in ids:
        assert sum(pid in lab for lab in labels) == 1, pid
    assert any("Sneakers that go the distance" in lab for lab in labels)
    # within each message, the best wording comes first (top): x falls as the row index grows
    from matplotlib.collections import PathCollection

    dots = [coll.get_offsets() for coll in ax.collections if isinstance(coll, PathCollection)]
    assert [len(d) for d in dots] == [5, 5]
    for d in dots:
        xs = [float(x) for x, _ in sorted(d.tolist(), key=lambda xy: xy[1])]
        assert xs == sorted(xs, reverse=True)


def test_a_scale_of_many_points_gets_a_colour_bar_that_fits_not_a_legend_that_does_not():
    """A kind with 101 points (a 0-100 slider): a legend entry per point would run off the figure (matplotlib
    could not lay it out); the bars then carry a colour bar from the lowest to the highest point instead."""
    import warnings

    import numpy as np

    from survey.plots.scales import distribution_bars

    scores = list(range(101))
    rng = np.random.default_rng(0)
    shares = {m: rng.dirichlet(np.ones(101)) * 0.95 for m in ("A", "B")}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Tight layout not applied" before
        fig = distribution_bars(shares, {"A": 0.05, "B": 0.05}, scores, {s: str(s) for s in scores}, "slider")
    bars, colour = fig.axes
    assert bars.get_legend() is None
    assert [t.get_text() for t in colour.get_xticklabels()] == ["0", "100"]
    few = distribution_bars({m: rng.dirichlet(np.ones(5)) for m in "AB"}, {}, [1, 2, 3, 4, 5],
                            {s: str(s) for s in range(1, 6)}, "likert")
    assert len(few.axes) == 1 and len(few.axes[0].get_legend().get_texts()) == 5
