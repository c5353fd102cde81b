"""The report's study summary: the cost column is decided by the backend the table records for each
model (the store's ``backend`` column), never guessed from model ids."""

import pandas as pd

from survey.reporting.summary import study_summary
from survey.stats.beta_logit import simulate


def table(**columns):
    df = simulate(3, 2, 2, seed=1)
    return df.assign(**columns)


def cost(df):
    (row,) = study_summary(df)
    return row["cost"]


def test_cost_from_the_recorded_backend():
    tokens = {"prompt_tokens": 1000, "completion_tokens": 10}
    n = len(table())
    assert cost(table(backend="simulated", model_id="simulated/beta-logit")) == "0"
    assert cost(table(backend="local", model_id="mistral-small-looking-name.gguf", **tokens)) == "0"
    expected = n * (1000 * 0.10 + 10 * 0.30) / 1e6
    assert cost(table(backend="mistral", model_id="mistral-small-2506", **tokens)) == f"{expected:.4f} (list price)"
    # only the rows of batch jobs get the provider's batch discount
    df = table(backend="mistral", model_id="mistral-small-2506", **tokens)
    df["batch_job"] = ["job-1"] * (n // 2) + [None] * (n - n // 2)
    assert cost(df) == f"{expected * 0.75:.4f} (list price)"


def test_cost_unknown_when_the_table_does_not_say():
    assert cost(table()) == "unknown"  # no backend column: a CSV from elsewhere
    assert cost(table(model_id="smollm2-looking-id")) == "unknown"  # ids are not guessed from
    assert cost(table(backend=None, model_id="simulated/x")) == "unknown"  # a store from before the record
    assert cost(table(backend="retired-backend", model_id="x")) == "unknown"  # not registered here
    assert cost(table(backend="dashscope", model_id="qwen-new-model", prompt_tokens=5)) == "unknown"  # no price
    mixed = table(backend="mistral", model_id="mistral-small-2506")
    mixed.loc[0, "backend"] = "dashscope"
    assert cost(mixed) == "unknown"


def test_models_are_priced_separately():
    a = table(backend="simulated", model_id="sim")
    b = table(model="qwen", backend="dashscope", model_id="qwen3-8b", prompt_tokens=100, completion_tokens=1)
    rows = study_summary(pd.concat([a, b], ignore_index=True))
    assert [(r["model"], r["cost"].split(" ")[0]) for r in rows] == [
        ("simulated", "0"), ("qwen", f"{len(b) * (100 * 0.18 + 0.70) / 1e6:.4f}")]
