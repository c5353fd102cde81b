"""The store records the backend each model ran on and exports it as the table's ``backend`` column."""

from survey.data.store import Store


def test_backend_column_from_the_models_record(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        for model in ("a", "b"):
            store.record(("st", model, "m", "p", "0", 0), status="ok", response="Yes", answer=1)
        store.record_backend("st", "a", "mistral")
        store.record_backend("st", "a", "dashscope")  # the latest run wins
        store.record_backend("other", "b", "local")  # another study's model of the same name
        df = store.to_long_table("st")
        assert dict(zip(df.model, df.backend, strict=True)) == {"a": "dashscope", "b": None}
        assert store.backends() == {("st", "a"): "dashscope", ("other", "b"): "local"}
    with Store(tmp_path / "s.sqlite") as again:  # kept across opens
        assert again.backends()[("st", "a")] == "dashscope"
