import numpy as np
import pandas as pd
import pytest

from survey.data.table import cell_counts, invalid_answers, read_table, validate_table, write_table
from survey.errors import TableError
from survey.stats.beta_logit import simulate


def small():
    return simulate(4, 3, 2, seed=1)


def test_roundtrip_csv_and_parquet(tmp_path):
    df = small()
    df.loc[3, "answer"] = pd.NA
    for name in ("t.csv", "t.parquet"):
        write_table(df, tmp_path / name)
        back = read_table(tmp_path / name)
        assert len(back) == len(df)
        assert back["answer"].isna().sum() == 1
        assert (back["answer"].fillna(-1).to_numpy() == df["answer"].fillna(-1).to_numpy()).all()


def test_csv_keeps_persona_ids_as_text(tmp_path):
    df = small()
    df["persona"] = df["persona"].str.replace("P", "0")
    write_table(df, tmp_path / "t.csv")
    assert read_table(tmp_path / "t.csv")["persona"].iloc[0].startswith("0")


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.drop(columns=["answer"]), "missing column"),
    (lambda d: d.assign(answer=d["answer"].astype(object).where(d.index != 2, "Yes")), "must be 1"),
    (lambda d: d.assign(answer=d["answer"].astype(object).where(d.index != 2, 2)), "must be 1"),
    (lambda d: pd.concat([d, d.iloc[[0]]]), "share a key"),
    (lambda d: d[d["perturbation"].isin(["A-01", "B-01", "B-02"])], "at least 2"),
    (lambda d: d.assign(replicate=d["replicate"].astype(float) + 0.5), "whole numbers"),
    (lambda d: d.assign(persona=d["persona"].where(d.index != 1, None)), "persona"),
])
def test_validation_errors(mutate, match):
    with pytest.raises(TableError, match=match):
        validate_table(mutate(small()))


def test_empty_cell_is_nan_and_reported_invalid_counted():
    df = validate_table(small())
    cell = (df["persona"] == "P001") & (df["perturbation"] == "A-02")
    df.loc[cell, "answer"] = pd.NA
    cc = cell_counts(df, "simulated", "A")
    assert np.isnan(cc.theta[0, 1])  # never silently 0
    assert cc.empty_cells == [("P001", "A-02")]
    assert cc.n_invalid == 2
    assert np.isfinite(np.delete(cc.theta.ravel(), 1)).all()


def test_cell_counts_match_manual_groupby():
    df = validate_table(simulate(6, 4, 3, seed=3))
    cc = cell_counts(df, "simulated", "B")
    manual = df[df["message"] == "B"].groupby(["persona", "perturbation"])["answer"].mean().unstack()
    assert np.allclose(cc.theta, manual.loc[cc.personas, cc.perturbations].to_numpy(dtype=float))


def test_unknown_format_and_missing_file(tmp_path):
    with pytest.raises(TableError, match="no such file"):
        read_table(tmp_path / "nope.csv")
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(TableError, match="unknown table format"):
        read_table(tmp_path / "x.json")


def test_an_optional_scale_column_checks_answers_per_response_type(tmp_path):
    df = small()
    assert "scale" not in validate_table(df).columns  # optional: without it every row is Yes/No
    df["scale"] = ""
    assert (validate_table(df)["scale"] == "binary").all()  # an empty scale is the default
    df["scale"] = "binary"
    df.loc[df["message"] == "B", "scale"] = "text"
    with pytest.raises(TableError, match="rows of scale 'text' must be empty"):
        validate_table(df)
    df.loc[df["scale"] == "text", "answer"] = pd.NA
    out = validate_table(df)
    assert out.loc[out["scale"] == "text", "answer"].isna().all()
    assert invalid_answers(out) == 0  # free text is never an invalid answer
    out.loc[0, "answer"] = pd.NA
    assert invalid_answers(out) == 1
    write_table(out, tmp_path / "t.csv")
    assert read_table(tmp_path / "t.csv")["scale"].tolist() == out["scale"].tolist()
    with pytest.raises(TableError, match="rows of scale 'binary' must be 1 \\(Yes\\), 0 \\(No\\)"):
        validate_table(out.assign(answer=out["answer"].astype(object).where(out.index != 1, 5)))
    with pytest.raises(TableError, match="column 'scale' names unknown response type\\(s\\) 'likert'"):
        validate_table(out.assign(scale=out["scale"].where(out.index != 2, "likert")))


def test_csv_errors_name_the_file_line(tmp_path):
    # the row number used to be the 0-based data index: row 3 was the file's line 5
    df = small()
    df["answer"] = df["answer"].astype(object)
    df.loc[3, "answer"] = "yes"
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    with pytest.raises(TableError) as exc:
        read_table(path)
    assert "found yes in line(s) 5 of the file (the header is line 1)" in str(exc.value)
    assert path.read_text().splitlines()[4].split(",")[5] == "yes"
    df.assign(answer=df["answer"].astype(str)).to_parquet(tmp_path / "t.parquet", index=False)
    with pytest.raises(TableError, match="data row\\(s\\) 4 \\(counting from 1\\)"):
        read_table(tmp_path / "t.parquet")
    with pytest.raises(TableError, match="in row\\(s\\) 3$"):  # a DataFrame: its own index labels
        validate_table(df)


def test_a_semicolon_separated_file_is_named_as_such(tmp_path):
    path = tmp_path / "t.csv"
    small().to_csv(path, index=False, sep=";")
    with pytest.raises(TableError, match="looks semicolon-separated.*save it as CSV with commas"):
        read_table(path)
    small().to_csv(path, index=False, sep="\t")
    with pytest.raises(TableError, match="looks tab-separated"):
        read_table(path)


def test_a_table_read_from_csv_has_a_plain_index(tmp_path):
    write_table(small(), tmp_path / "t.csv")
    assert read_table(tmp_path / "t.csv").index.equals(pd.RangeIndex(len(small())))


def test_a_study_file_given_to_load_source_is_one_true_line(tmp_path):
    """load_source reads tables and stores; a study file is refused naming what opens it (survey.open_source),
    never with a message claiming study files are accepted."""
    import survey

    study = tmp_path / "study.toml"
    study.write_text('name = "s"\n')
    for read in (survey.load_source, survey.load_long_table):
        with pytest.raises(survey.SurveyError) as info:
            read(study)
        said = str(info.value)
        assert "survey.open_source(path)" in said and "a study file, not a table or store" in said
        assert "\n" not in said and "unknown table format" not in said
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(TableError) as info:
        read_table(tmp_path / "x.json")
    assert ".toml" not in str(info.value)
