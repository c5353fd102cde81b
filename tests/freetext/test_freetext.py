"""survey.freetext from Python: the same results as `survey dbpa`, options that validate and override a
family file's settings, and families given as a mapping."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from survey.cli import main
from survey.errors import SurveyError
from survey.freetext import DBPAOptions, FamilyComparison, FamilyFile, dbpa, dbpa_family, parse_hist_range

LIKE = ["I love these sneakers.", "Great shoes, count me in!", "Looks comfortable, I'd try them."]
DISLIKE = ["Boots are too heavy for me.", "I don't need new boots.", "Not interested, too expensive."]


def _table() -> pd.DataFrame:
    rows = []
    for msg, pool in (("sneakers", LIKE), ("boots", DISLIKE)):
        for j in range(3):
            for i in range(2):
                rows.append(dict(model="m1", message=msg, perturbation=f"p{j}", persona=f"s{i}", replicate=0,
                                 answer="", response=pool[(i + j) % 3]))
    rows[0]["response"] = "  "  # an empty answer is left out and counted
    return pd.DataFrame(rows)


def test_dbpa_on_a_dataframe_matches_the_command(tmp_path, capsys):
    df = _table()
    res = dbpa(df, options=DBPAOptions(omegas=["js", "mean-diff"], per_persona=True))
    (m,) = res.models
    assert (res.a, res.b, res.source, res.embedder) == ("sneakers", "boots", None, "minilm")
    assert m.outputs == {"sneakers": 5, "boots": 6} and m.dropped_empty == 1
    assert m.tests["js"].exact and m.tests["js"].n_resamples == 20  # C(6, 3) relabelings of perturbations
    assert m.tests["mean-diff"].pvalue <= 2 / 20 and sorted(m.per_persona.names) == ["s0", "s1"]
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    main(["dbpa", str(path), "--omega", "js", "--omega", "mean-diff", "--per-persona", "--no-plot", "--no-cache",
          "--json"])
    cli = json.loads(capsys.readouterr().out)
    assert cli == {**json.loads(json.dumps({**res.to_dict(), "source": str(path)})), "plots": []}
    written = res.write_plots(tmp_path / "plots" / "d.png")
    assert written == [tmp_path / "plots" / "d.png"] and written[0].read_bytes()[:4] == b"\x89PNG"


def test_dbpa_selects_models_and_names_unknown_ones():
    df = pd.concat([_table(), _table().assign(model="m2")])
    assert [m.model for m in dbpa(df, "boots", models=["m2"], options={"n_resamples": 10}).models] == ["m2"]
    with pytest.raises(SurveyError, match="model 'zz' is not in the table; it has m1, m2"):
        dbpa(df, models=["zz"])


def test_options_validate_and_none_means_not_given():
    assert DBPAOptions.of(bins=None, seed=3).model_fields_set == {"seed"}
    assert DBPAOptions.of(hist_range="-1,1").hist_range == (-1.0, 1.0)
    assert DBPAOptions.of({"omegas": ["ks"]}, alpha=0.1).omegas == ["ks"]
    with pytest.raises(SurveyError, match="^bins: "):
        DBPAOptions.of(bins=1)
    with pytest.raises(SurveyError, match="hist_range must be pooled, all-pairs or LO,HI"):
        DBPAOptions.of(hist_range="0.5")
    with pytest.raises(SurveyError, match="--range LO,HI needs finite LO < HI"):
        parse_hist_range("1,0", "--range")
    with pytest.raises(SurveyError, match="omegas"):
        DBPAOptions.of(omegas=["cosine"])


def test_family_from_a_mapping_with_option_overrides():
    spec = {"design": "control-target", "permutations": 200, "omega": "energy-cosine",
            "base": {"texts": LIKE * 2},
            "comparisons": [{"name": "same", "role": "control", "texts": LIKE},
                            {"name": "other", "role": "target", "texts": DISLIKE}]}
    fam = dbpa_family(spec, {"n_resamples": 50, "seed": 1})
    assert fam.options.n_resamples == 50 and fam.options.omegas == ["energy-cosine"]  # given vs the file's
    assert fam.outputs == {"base": 6, "same": 3, "other": 3} and fam.path is None
    assert fam.family.names == ["same", "other"] and fam.family.roc is not None
    assert fam.to_dict()["design"] == "control-target" and fam.to_dict()["family"] is None
    assert isinstance(FamilyFile.model_validate(spec).comparisons[0], FamilyComparison)
    with pytest.raises(SurveyError, match="a family runs one omega"):
        dbpa_family(spec, DBPAOptions(omegas=["js", "ks"]))
    with pytest.raises(SurveyError, match="family: comparisons"):
        dbpa_family({**spec, "comparisons": []})


def test_dbpa_refuses_a_forced_choice_table():
    # Its replies ("1", "2") name a position of two messages shown together: grouped by the first-shown
    # message they would compare orders of presentation, not messages (once a p-value came out of it).
    import numpy as np

    from survey.kinds.choice.model import choice_table, simulate_choice_counts

    counts = simulate_choice_counts(4, 3, 2, np.random.default_rng(1))
    df = choice_table(counts, 2, messages=("sneakers", "boots")).assign(response=lambda d: d["answer"].astype(str))
    with pytest.raises(SurveyError, match="messages shown together"):
        dbpa(df, options=DBPAOptions(cache=False))
