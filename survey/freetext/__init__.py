"""Free-text analysis: text rows, embeddings (cached), DBPA message comparison and families.

DBPA (Rauba, Wei & van der Schaar, "Statistical Hypothesis Testing for Auditing Robustness in Language
Models") asks whether the distribution of meanings of the answers changes; docs/dbpa.md. The pure
statistics live in survey.stats.dbpa; this package reads the texts, embeds them and runs the tests::

    from survey.freetext import DBPAOptions, dbpa, dbpa_family

    res = dbpa("store.sqlite", "sneakers", "boots", options=DBPAOptions(omegas=["js", "energy-cosine"]))
    res.to_dict()                      # the JSON of `survey dbpa --json` (without "plots")
    res.write_plots("dbpa.png")        # one PNG per model
    fam = dbpa_family("family.yaml", {"n_resamples": 500})   # options override the file's settings
    fam.family.adjusted, fam.to_dict(), fam.write_plots()
"""

from survey.freetext.family import FamilyComparison, FamilyDBPA, FamilyFile, dbpa_family, load_family
from survey.freetext.inputs import text_rows
from survey.freetext.messages import MessagesDBPA, ModelDBPA, dbpa
from survey.freetext.options import DBPAOptions, parse_hist_range

__all__ = ["DBPAOptions", "FamilyComparison", "FamilyDBPA", "FamilyFile", "MessagesDBPA", "ModelDBPA", "dbpa",
           "dbpa_family", "load_family", "parse_hist_range", "text_rows"]
