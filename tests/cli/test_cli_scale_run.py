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
