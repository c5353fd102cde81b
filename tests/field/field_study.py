"""A small study to field in tests: the shipped shoppers' template (age, gender, occupation, income, marital
status), sneakers vs boots with 3 paraphrases each, the simulated model (so `survey run` fills the store
offline), and a [field] table."""

from pathlib import Path

from shoe_study import shoe_study_toml

FIELD_TABLE = """
[field]
consent = "We ask about shoes. <b>bold</b>"
completion_code = "C0DE42"
design = "{design}"
"""

MODEL = """
[[models]]
name = "sim"
backend = "simulated"
seed = 7
"""


def write_study(folder: Path, *, design: str = "between", question: str = 'type = "binary"', extra: str = "",
                name: str = "shoes", questions: str | None = None) -> Path:
    """``questions``: [[questions]] entries instead of the one [question]."""
    path = folder / f"{name}.toml"
    asked = questions if questions is not None else f"[question]\n{question}\n"
    path.write_text(shoe_study_toml(name, "store.sqlite", replicates=1, personas=10, paraphrases=3)
                    + asked + MODEL + FIELD_TABLE.format(design=design) + extra, encoding="utf-8")
    return path


ABOUT = {"demo-age": "40", "demo-gender": "female", "demo-occupation": "Nurse", "demo-income": "medium",
         "demo-marital_status": "married"}
