"""The TOML of the small shoe study several tests run: shipped shoppers asked about sneakers and boots."""


def shoe_study_toml(name: str, store: str, *, replicates: int, personas: int, paraphrases: int) -> str:
    """Everything but the [[models]] entries: ``personas`` shoppers, ``paraphrases`` of each message."""
    return f"""
name = "{name}"
store = "{store}"
replicates = {replicates}
[personas]
set = "shoppers"
count = {personas}
[[messages]]
id = "sneakers"
perturbations = "sneakers"
count = {paraphrases}
[[messages]]
id = "boots"
perturbations = "boots"
count = {paraphrases}
"""
