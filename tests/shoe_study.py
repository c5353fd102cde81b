"""The TOML of the small shoe study several tests run: shipped shoppers asked about sneakers and boots."""


def shoe_messages_toml(paraphrases: int = 6) -> str:
    """The study's two [[messages]] (sneakers and boots, ``paraphrases`` shipped paraphrases each)."""
    return f"""
[[messages]]
id = "sneakers"
perturbations = "sneakers"
count = {paraphrases}

[[messages]]
id = "boots"
perturbations = "boots"
count = {paraphrases}

"""


def shoe_study_toml(name: str, store: str, *, replicates: int, personas: int, paraphrases: int) -> str:
    """Everything but the [[models]] entries: ``personas`` shoppers, ``paraphrases`` of each message."""
    return f"""
name = "{name}"
store = "{store}"
replicates = {replicates}
[personas]
set = "shoppers"
count = {personas}
""" + shoe_messages_toml(paraphrases)
