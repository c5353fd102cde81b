"""A ranking (or any shown-set kind) already Holm-adjusts its pairs among themselves; in a study of several
questions the family adjusts over questions x pairs, so it must start from each pair's own (raw) p-value, not
adjust the adjusted one again (Holm of Holm: valid but needlessly conservative, and the scorecard's "p" would
not be the pair's own test)."""

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

import survey


def test_family_starts_from_each_ranked_pairs_own_pvalue():
    rank = survey.simulate(20, 10, 1, scale="rank3", deltas=[1.5, 0.0, 0.0], seed=3, messages=["A", "B", "C"])
    yes_no = survey.simulate(20, 10, 1, scale="binary", seed=4, messages=("A", "B"), model="sim")  # one model
    res = survey.analyze(pd.concat([rank.assign(question="rank"), yes_no.assign(question="yn")], ignore_index=True),
                         every_pair=True)
    ranked = [r for r in res.results if r.question == "rank"]
    assert len(ranked) == 3
    raw = [r.result.pair.raw_pvalue for r in ranked]
    assert any(r.result.pair.pvalue > p for r, p in zip(ranked, raw, strict=True))  # Holm within moved something
    assert [r.pvalue for r in ranked] == raw
    holm = multipletests([r.pvalue for r in res.results], method="holm")[1]
    np.testing.assert_allclose([r.pvalue_adjusted for r in res.results], holm)
    assert res.to_dict()["results"][0]["pvalue_adjusted"] == res.results[0].pvalue_adjusted
