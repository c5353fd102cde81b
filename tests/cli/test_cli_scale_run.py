"""`survey run --dry-run` shows what a rating or forced-choice study will ask, before anything is sent."""

from pathlib import Path

from cli_result import run_cli

ROOT = Path(__file__).resolve().parents[2]


def study(tmp_path, question: str) -> Path:
    text = (ROOT / "studies" / "sim.toml").read_text()
    path = tmp_path / "s.toml"
    assert 'type = "binary"' in text
    path.write_text(text.replace('type = "binary"', question, 1))
    return path


def test_dry_run_shows_the_scale_and_its_prompts(tmp_path, capsys):
    code, out, err = run_cli(capsys, "run", str(study(tmp_path, 'type = "likert"')), "--dry-run")
    assert code == 0, err
    assert "question: likert5 (valid answers 1, 2, 3, 4, 5)" in out
    assert "Answer ONLY with a whole number from 1 to 5. Do not explain." in out
    assert "Answer ONLY 'Yes' or 'No'" not in out


def test_dry_run_of_a_forced_choice_shows_both_options(tmp_path, capsys):
    code, out, err = run_cli(capsys, "run", str(study(tmp_path, 'type = "choice"')), "--dry-run")
    assert code == 0, err
    assert "question: choice (valid answers 1 (the option shown first), 2 (the option shown second))" in out
    assert "Option 1: " in out and "Option 2: " in out


def test_compare_reads_a_hand_made_rating_table_with_scale(tmp_path, capsys):
    import pandas as pd

    from survey.kinds.ordinal.model import OrdinalParams
    from survey.kinds.ordinal.table import simulate_table

    table = simulate_table(OrdinalParams(points=5, sigma=1.0, rho=0.3, delta=0.5), 6, 4, 2, seed=3)
    path = tmp_path / "t.csv"
    table.drop(columns=["scale"]).to_csv(path, index=False)
    code, _, err = run_cli(capsys, "compare", str(path))
    assert code == 2 and "--scale" in err
    code, out, err = run_cli(capsys, "compare", str(path), "--scale", "likert5")
    assert code == 0, err
    assert "mean score(A) − mean score(B)" in out
    assert pd.read_csv(path)["answer"].between(1, 5).all()
