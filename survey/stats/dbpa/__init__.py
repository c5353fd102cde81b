"""DBPA (Rauba, Wei & van der Schaar, "Statistical Hypothesis Testing for Auditing Robustness in Language
Models"): semantic permutation tests on embedded free text, families of them, and their distances ω."""
from survey.stats.dbpa.family import (
    FamilyResult,
    RocResult,
    compare_messages_dbpa,
    dbpa_alignment,
    dbpa_family,
    per_persona_dbpa,
    roc_from_pvalues,
)
from survey.stats.dbpa.permutation import DBPAResult, cosine_similarity_matrix, dbpa_test, dbpa_units

__all__ = [
    "DBPAResult", "FamilyResult", "RocResult", "compare_messages_dbpa", "cosine_similarity_matrix",
    "dbpa_alignment", "dbpa_family", "dbpa_test", "dbpa_units", "per_persona_dbpa", "roc_from_pvalues",
]
