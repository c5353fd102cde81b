"""The engine sends a backend that reuses shared prompt prefixes (Capabilities.prompt_order: the local model)
its queries sorted by prompt, so equal prompts (respondents with the same attributes) come together and hit
its cache of recent prompts, and neighbours share the longest prefixes; other backends get the design's order."""

from __future__ import annotations

import pytest
from test_engine import engine, run

from survey.backends.base import Capabilities, Query, Reply
from survey.collect.engine import ModelRun
from survey.data.store import Store


class Recording:
    name = "recording"

    def __init__(self, prompt_order: bool):
        self.capabilities = Capabilities(paid=False, needs_model_id=False, prompt_order=prompt_order)
        self.sent = []

    async def complete(self, q: Query) -> Reply:
        self.sent.append((q.system, q.user, q.replicate))
        return Reply(text="Yes")

    async def aclose(self):
        pass


def far_apart_duplicates() -> list[Query]:
    """Persona-major queries where personas 0 and 40 render alike: 80 other prompts lie between them."""
    systems = [f"persona {i % 40}" if i in (0, 40) else f"persona {i}" for i in range(41)]
    return [Query("st", "m", "A", f"A-{j}", f"P{i}", k, system=system, user=f"question {j}")
            for i, system in enumerate(systems) for j in range(2) for k in range(2)]


@pytest.mark.parametrize("prompt_order", [True, False])
def test_the_engine_sends_a_prefix_reusing_backend_its_queries_sorted_by_prompt(tmp_path, prompt_order):
    qs = far_apart_duplicates()
    backend = Recording(prompt_order)
    with Store(tmp_path / "s.sqlite") as store:
        rep = run(engine(store), ModelRun("st", "m", backend, qs, concurrency=1)).models["m"]
    assert rep.stored == len(qs) and sorted(backend.sent) == sorted((q.system, q.user, q.replicate) for q in qs)
    if prompt_order:
        prompts = [(system, user) for system, user, _ in backend.sent]
        assert prompts == sorted(prompts)  # equal prompts adjacent: personas 0 and 40 together
        assert backend.sent[:8] == [("persona 0", f"question {j}", k) for j in range(2) for _ in range(2)
                                    for k in range(2)]  # each persona's replicates in order
    else:
        assert backend.sent == [(q.system, q.user, q.replicate) for q in qs]  # the design's order
