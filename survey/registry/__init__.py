"""Registries of plain data files that users extend without code: persona sets and perturbation sets.

    load_persona_set("shoppers")        -> PersonaSet (personas/shoppers.jsonl)
    load_perturbation_set("sneakers")   -> PerturbationSet (perturbations/sneakers.yaml)

Names resolve in ./personas or ./perturbations of the current directory first, then in the project's
shipped folders; a path to a file works too (see survey/registry/files.py and docs/registries.md).
"""

from survey.registry.files import PROJECT_ROOT, search_dirs
from survey.registry.personas import (
                       DEFAULT_TEMPLATE,
                       Persona,
                       PersonaSet,
                       list_persona_sets,
                       load_persona_set,
                       persona_set_paths,
                       read_persona_set,
                       template_fields,
)
from survey.registry.perturbations import (
                       Perturbation,
                       PerturbationSet,
                       list_perturbation_sets,
                       load_perturbation_set,
                       perturbation_set_paths,
                       read_perturbation_set,
)

__all__ = ["DEFAULT_TEMPLATE", "PROJECT_ROOT", "Persona", "PersonaSet", "Perturbation", "PerturbationSet",
           "list_persona_sets", "list_perturbation_sets", "load_persona_set", "load_perturbation_set",
           "persona_set_paths", "perturbation_set_paths", "read_persona_set", "read_perturbation_set",
           "search_dirs", "template_fields"]
