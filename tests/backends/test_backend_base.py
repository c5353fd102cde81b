from survey.backends.base import Query


def q(**kw):
    base = dict(study="s", model="m", message="A", perturbation="p1", persona="7", replicate=0,
                system="sys", user="user", seed=11)
    return Query(**{**base, **kw})


def test_provider_seed_differs_per_replicate_and_is_reproducible():
    seeds = {q(replicate=k).provider_seed for k in range(50)}
    assert len(seeds) == 50  # one seed for every replicate would make replicates identical draws
    assert q(replicate=3).provider_seed == q(replicate=3).provider_seed
    assert q(seed=12).provider_seed != q(seed=11).provider_seed
    assert all(0 <= s < 2 ** 31 for s in seeds)
    assert q(seed=None).provider_seed is None
