import pandas as pd

from survey.data.pairing import design_order, natural_key, natural_order, perturbation_order


def test_natural_order_compares_digits_as_numbers():
    assert natural_order(["b10", "b2", "b1", "B3", "b02"]) == ["B3", "b1", "b02", "b2", "b10"]
    assert sorted(["p-7", "p-007", "p-10"], key=natural_key) == ["p-007", "p-7", "p-10"]


def test_design_order_survives_missing_rows_of_any_persona():
    design = ["short", "formal", "casual", "polite"]
    rows = []
    for i, missing in enumerate(["short", "polite", None]):  # p0 lacks the first, p1 the last
        for j, pert in enumerate(design):
            if pert != missing:
                rows.append({"persona": f"p{i}", "perturbation": pert, "seq": 100 * i + j})
    df = pd.DataFrame(rows).sample(frac=1, random_state=0)
    assert design_order(df) == design
    assert perturbation_order(df.drop(columns="seq")) == ["casual", "formal", "polite", "short"]
    df.loc[df.index[0], "seq"] = None  # a row without its place: the ids decide
    assert design_order(df) is None
