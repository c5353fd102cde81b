"""The A/B tests of message A against message B, in one registry.

`survey analyze`, the report, `survey compare`, power planning (`survey plan`) and the validity
checks (`survey validate`) all iterate over ``AB_TESTS``; adding a test is one ``register`` call with
its two functions. Each test sees one kind of data, computed the same way by every consumer:

* ``"pairs"``: the paired perturbation differences D-bar_j = mean_i (theta_ij^A - theta_ij^B);
* ``"personas"``: the per-persona differences D-hat_i = mean_j theta_ij^A - mean_j theta_ij^B;
* ``"means"``: the per-perturbation means theta-bar_j of A and of B (two unpaired samples).

``run(*samples, alternative=, n_resamples=, seed=)`` tests one survey and returns a result with
``.statistic`` and ``.pvalue`` (and ``.to_dict()``, else those two are reported).
``batched(*samples, alternative=, n_resamples=, exact_max_m=, seed=)`` takes (S, k) arrays, row s
being survey s, and returns S p-values. Rows may hold NaN (a pair, persona or perturbation with no
valid answer). Power planning passes its samples up to a positive factor (integer sums keep ties
exact), so a batched test must be scale-invariant, as location tests are.

The sign-flip test's result key is ``"sign_flip"``. Earlier outputs called it ``"permutation"``, a
name that also fits the unpaired test; ``"permutation"`` stays an alias so that those outputs and the
scripts reading them keep working: JSON outputs carry both keys with the same content, and every
lookup by test name accepts either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from survey.common.registry import Registry
from survey.errors import SurveyError
from survey.stats.batched import sign_pvalues, wilcoxon_pvalues
from survey.stats.classic import sign_test, wilcoxon_test
from survey.stats.permutation import (
    sign_flip_pvalues,
    sign_flip_test,
    unpaired_permutation_pvalues,
    unpaired_permutation_test,
)

DATA = ("pairs", "personas", "means")
DECISION_TEST = "sign_flip"  # the test whose p-value decides: valid for any rho, the paper's test


@dataclass(frozen=True)
class ABTest:
    name: str  # result key in Python and JSON
    label: str  # for people: tables, plots, the report
    data: str  # one of DATA
    run: Callable  # one survey -> result with .statistic, .pvalue
    batched: Callable  # (S, k) arrays -> S p-values
    valid_when_rho_positive: bool  # False: assumes independent personas, oversized when paraphrases shift everyone
    color: str  # matplotlib colour in the plots
    detail: str = ""  # what else to know, shown after the validity note
    in_power: bool = True  # simulated by `survey plan`
    aliases: tuple[str, ...] = ()  # deprecated result keys

    @property
    def paired(self) -> bool:
        return self.data != "means"

    def note(self, result=None) -> str:
        """'valid for any rho' or 'INVALID when rho > 0', the detail, and exact/Monte Carlo if known."""
        parts = ["valid for any rho" if self.valid_when_rho_positive else "INVALID when rho > 0"]
        parts += [self.detail] if self.detail else []
        exact = getattr(result, "exact", None)
        parts += [] if exact is None else ["exact" if exact else "Monte Carlo"]
        return "; ".join(parts)


def _check_test(name: str, test: ABTest) -> None:
    """Its ``data`` one of DATA, and its aliases new (the registry refuses a taken name)."""
    if test.data not in DATA:
        raise SurveyError(f"test '{test.name}': data must be one of {', '.join(DATA)}; got '{test.data}'")
    clash = [x for x in test.aliases if x in AB_TESTS or x in aliases()]
    if clash or name in aliases():
        raise SurveyError(f"test name {(clash or [name])[0]!r} is already registered")


AB_TESTS = Registry("test", base=ABTest, check=_check_test)


def register(test: ABTest) -> ABTest:
    """Add a test; its name and aliases must be new, its ``data`` one of DATA."""
    if test.name in AB_TESTS:
        raise SurveyError(f"test name {test.name!r} is already registered")
    return AB_TESTS.register(test.name, test)


def unregister(name: str) -> None:
    AB_TESTS.pop(name, None)


def aliases() -> dict[str, str]:
    """deprecated name -> current name."""
    return {old: t.name for t in AB_TESTS.values() for old in t.aliases}


def canonical(name: str) -> str:
    return aliases().get(name, name)


def get(name: str) -> ABTest:
    try:
        return AB_TESTS[canonical(name)]
    except KeyError:
        raise SurveyError(f"unknown test '{name}'; the tests are {', '.join(AB_TESTS)}") from None


def label(name: str) -> str:
    """The test's label for people, or the name itself for a test this version does not know."""
    spec = AB_TESTS.get(canonical(name))
    return spec.label if spec else name


def names(power: bool = False) -> tuple[str, ...]:
    """Registered test names in order; ``power``: only those that `survey plan` simulates."""
    return tuple(t.name for t in AB_TESTS.values() if t.in_power or not power)


class ByTest(dict):
    """test name -> value, in registry order. Lookups also accept the deprecated names, and a
    comparison treats them as their current names; iteration yields current names only."""

    def __getitem__(self, name):
        return super().__getitem__(canonical(name))

    def __setitem__(self, name, value):
        super().__setitem__(canonical(name), value)

    def __contains__(self, name):
        return super().__contains__(canonical(name))

    def get(self, name, default=None):
        return super().get(canonical(name), default)

    def __eq__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        return dict.__eq__(self, {canonical(k): v for k, v in other.items()})

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None


def with_aliases(values: dict) -> dict:
    """A plain dict for JSON: every test's value, followed by the same value under each deprecated name."""
    out = {}
    for name, value in values.items():
        out[name] = value
        spec = AB_TESTS.get(name)
        for old in spec.aliases if spec else ():
            out[old] = value
    return out


def canonical_keys(values: dict) -> dict:
    """The inverse, for reading JSON (old files may carry only a deprecated name): one key per test."""
    out = {}
    for key, value in values.items():
        out.setdefault(canonical(key), value)
    return out


def result_dict(result) -> dict:
    if hasattr(result, "to_dict"):
        return result.to_dict()
    return {"statistic": float(result.statistic), "pvalue": float(result.pvalue)}


def run_tests(samples: dict, alternative: str = "two-sided", n_resamples: int = 9999, seed=0) -> ByTest:
    """Every registered test on one survey; ``samples``: data kind -> tuple of arrays."""
    return ByTest({t.name: t.run(*samples[t.data], alternative=alternative, n_resamples=n_resamples, seed=seed)
                   for t in AB_TESTS.values()})


def batched_pvalues(samples: dict, tests: Iterable[str], alternative: str = "two-sided",
                    n_resamples: int = 1000, exact_max_m: int = 12, seed=None) -> ByTest:
    """p-values of the named tests on a batch of surveys; ``samples``: data kind -> tuple of (S, k) arrays."""
    out = ByTest()
    for name in tests:
        t = get(name)
        out[t.name] = np.asarray(t.batched(*samples[t.data], alternative=alternative, n_resamples=n_resamples,
                                           exact_max_m=exact_max_m, seed=seed), dtype=float)
    return out


# --- the built-in tests: adapters to the functions' own signatures ---------------------------------

def _sign_flip(d, *, alternative, n_resamples, seed):
    return sign_flip_test(d, alternative, n_resamples=n_resamples, seed=seed)


def _sign_flip_batch(D, *, alternative, n_resamples, exact_max_m, seed):
    # A pair with no valid answer is left out; a zero adds nothing to any signed sum, so it gives
    # the same exact p-value as dropping the pair.
    return sign_flip_pvalues(np.nan_to_num(D, nan=0.0), alternative, n_resamples=n_resamples,
                             exact_max_m=exact_max_m, seed=seed)


def _unpaired(x, y, *, alternative, n_resamples, seed):
    return unpaired_permutation_test(x, y, alternative, n_resamples=n_resamples, seed=seed)


def _unpaired_batch(X, Y, *, alternative, n_resamples, exact_max_m, seed):
    return unpaired_permutation_pvalues(X, Y, alternative, n_resamples=n_resamples, seed=seed)


def _sign(d, *, alternative, n_resamples, seed):
    return sign_test(d, alternative)


def _sign_batch(D, *, alternative, n_resamples, exact_max_m, seed):
    return sign_pvalues(D, alternative)


def _wilcoxon(d, *, alternative, n_resamples, seed):
    return wilcoxon_test(d, alternative)


def _wilcoxon_batch(D, *, alternative, n_resamples, exact_max_m, seed):
    return wilcoxon_pvalues(D, alternative)


register(ABTest("sign_flip", "sign-flip permutation (paraphrase pairs)", "pairs", _sign_flip, _sign_flip_batch,
                valid_when_rho_positive=True, color="#1f77b4", aliases=("permutation",)))
# Not simulated by `survey plan`: simulated surveys have m_A = m_B, where the paired sign-flip test
# is the one to plan with, and the unpaired test costs an enumeration per simulated survey.
register(ABTest("unpaired", "unpaired permutation (paraphrase means)", "means", _unpaired, _unpaired_batch,
                valid_when_rho_positive=True, color="#17becf", detail="uses all perturbations", in_power=False))
register(ABTest("sign", "sign (personas)", "personas", _sign, _sign_batch,
                valid_when_rho_positive=False, color="#d62728"))
register(ABTest("wilcoxon", "Wilcoxon signed-rank (personas)", "personas", _wilcoxon, _wilcoxon_batch,
                valid_when_rho_positive=False, color="#ff7f0e"))
