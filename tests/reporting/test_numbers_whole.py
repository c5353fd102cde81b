"""A number in scientific notation never breaks at its exponent's sign in the report: in an 800 px window
a p-value of 5.475e-06 wrapped as "5.475e-" over "06" (and a JSD interval as "(4.28e-" over "06 to 0.020)")."""

import re

import survey
from survey.stats.beta_logit import simulate

SCI = r"\d(?:\.\d+)?[eE][-+]\d"


def test_numbers_with_an_exponent_stay_on_one_line(tmp_path):
    df = simulate(30, 8, 3, delta=1.5, rho=0.1, seed=3)  # a large effect: the persona tests' p-values are tiny
    survey.report(df, tmp_path / "r")
    html = (tmp_path / "r" / "index.html").read_text()
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html, flags=re.S)
    assert any(re.search(SCI, c) for c in cells)  # the case arises
    for cell in cells:
        bare = re.sub(r'<span class="num">[^<]*</span>', "", cell)
        assert not re.search(SCI, bare), cell  # every such number is inside a span that does not wrap
    assert re.search(r"\.num\s*\{\s*white-space:\s*nowrap", html)


def test_the_wrapping_keeps_escaping():
    from survey.reporting.html_env import html_environment

    out = html_environment().from_string("{{ a }} | {{ b }}").render(a="p = 5.475e-06 <b>", b=None)
    assert out == 'p = <span class="num">5.475e-06</span> &lt;b&gt; | None'
