"""Rank the study's k messages: one prompt shows a paraphrase of each, numbered 1..k, and asks for them in
order of preference, best first.

As in pick one of k (survey.kinds.pick.parsing), language models favour positions (Brucks & Toubia (2025),
"Prompt architecture induces methodological artifacts in large language models"), so the design
(survey.study.design) asks every persona and paraphrase set in k arrangements, the rows of a cyclic Latin
square on a random message order per set, and the analysis (survey.kinds.rank.statistics) averages over them.

**Accepted replies** (what the model said: positions, best first). The k option numbers, each once, separated by
">" (also "->", "→", "≻"), "," or ";" or white space; each number may be written "Option 2" or "#2":
"2 > 1 > 3", "2, 1, 3", "2 1 3", "Option 2 > Option 1 > Option 3". Written without separators ("213") the k
digits count too. The last place may be left implied: k - 1 different numbers name the missing one last
("2 > 1" on three options is 2 > 1 > 3): which option is last is not in doubt, and k - 1 numbers is how a
model that stops early answers. Anything after the ranking is free (a reason), unless it names an option
again.

**Invalid** (no coercion, survey.responses.hedges' rule): a number named twice ("2 > 2 > 1"), fewer than k - 1
numbers, a number outside 1..k, a tie ("2 = 1 > 3"), a joining word between two numbers ("2 or 1 > 3",
"2 and 1, then 3", "2/1/3") and a ranking followed by more options ("2 > 1 > 3, or 1 > 2 > 3").

**Answer code**: the positions in ranked order as one number, best first: "2 > 1 > 3" is 213. Labels map every
ordering's code to its canonical reply ("2 > 1 > 3"): k! labels, 5 040 for k = 7, which is why k <= 7. Scale
names: ``rankK``, e.g. ``rank4``; k = 2 is pick one of 2 (type = "pick") and is refused here.
"""

from __future__ import annotations

import itertools
import json
import re
from functools import cached_property
from types import MappingProxyType

import numpy as np

from survey.errors import SurveyError
from survey.kinds.pick.parsing import numbered_options
from survey.responses.base import ResponseType, skip_noise
from survey.responses.hedges import numbers_hedged
from survey.responses.view import AnalysisView

RANK_MIN, RANK_MAX = 3, 7  # 2 is pick one of 2; 7! = 5 040 orderings is the most the labels spell out
_NAME = re.compile(r"^rank(\d+)$")
_ITEM = re.compile(r"(?:option\s*|#\s*)?([0-9])(?!\d)(?!\.\d)", re.IGNORECASE)
_LEAD = re.compile(r"(?:my\s+)?ranking(?:\s+is)?\s*:?\s*", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*(?:->|→|≻|>|,|;)\s*|\s+")
_COMPACT = re.compile(r"([1-9]{3,7})(?!\d)")


def rank_question(k: int) -> str:
    """The default question for k options; ``{options}`` is where the numbered paraphrases go. It gives no example
    ranking: an example such as "1 > 2 > 3" would be an order to copy, a position bias the question itself made."""
    return ("Customers each described a product.\n{options}\nRank these products by how much you would personally "
            f"like to buy them, best first. Answer with the {k} option numbers only, in order, separated by '>'.")


def code_of(order) -> int:
    """The answer code of a ranking (positions 1..k, best first): 2 > 1 > 3 is 213."""
    return int("".join(str(int(t)) for t in order))


def order_of(code: int) -> list[int]:
    """The ranking (positions, best first) an answer code stands for: 213 is [2, 1, 3]."""
    return [int(c) for c in str(int(code))]


def read_ranking(text: str | None, k: int) -> list[int] | None:
    """The positions a reply ranks, best first (the module's accepted formats); None when invalid."""
    rest = skip_noise(text or "")
    lead = _LEAD.match(rest)
    rest = rest[lead.end():] if lead else rest
    compact = _COMPACT.match(rest)
    if compact and len(compact.group(1)) == k:
        order, end = [int(c) for c in compact.group(1)], compact.end()
    else:
        order, pos = [], 0
        while True:
            item = _ITEM.match(rest, pos)
            if item is None:
                return None
            order.append(int(item.group(1)))
            end = item.end()
            if len(order) == k:
                break
            sep = _SEPARATOR.match(rest, end)
            if sep is None or not _ITEM.match(rest, sep.end()):
                break
            pos = sep.end()
    if len(set(order)) != len(order) or not all(1 <= t <= k for t in order) or len(order) < k - 1:
        return None
    tail = rest[end:]
    more = _SEPARATOR.match(tail)
    if more and _ITEM.match(tail, more.end()):
        return None  # "2 > 1 > 3 > 1", "2 1 3 4": the list goes on past k
    if numbers_hedged(tail, order[-1], range(1, k + 1)) or re.match(r"\s*(?:=|/|\bor\b|\band\b)", tail, re.I):
        return None  # "2 > 1 > 3 or 1 > 2 > 3", "2 > 1 = 3": more options, or a tie
    if len(order) == k - 1:
        if re.match(r"\s*(?:->|→|≻|>|,|;)", tail):
            return None  # "2 > 1 > ": the ranking was cut, not ended
        order.append(next(t for t in range(1, k + 1) if t not in order))
    return order


class RankOrder(ResponseType):
    """k options shown in one prompt; the answer is their order, best first, coded as the positions' digits."""

    kind = "rank"
    quantity = "Borda score"
    ranged = True
    slots = ("options",)
    # where people's rankings are set beside the models' (the per-message comparison with humans does not apply)
    human_comparison = "survey.fidelity and `survey fidelity` compare a ranking with people's (the kind's own comparison)"

    def __init__(self, k: int = 3, template: str | None = None, max_tokens: int | None = None):
        if not RANK_MIN <= int(k) <= RANK_MAX:
            raise SurveyError(f"a ranking shows {RANK_MIN} to {RANK_MAX} messages; got {k}"
                              + (" (ranking two is pick one of 2: type = 'pick')" if int(k) == 2 else ""))
        self.k = int(k)
        self.n_options = self.k  # options shown per prompt
        self.scale = f"rank{self.k}"
        self.labels = MappingProxyType({code_of(o): " > ".join(map(str, o))
                                        for o in itertools.permutations(range(1, self.k + 1))})
        self.template = template or rank_question(self.k)
        self.max_tokens = max_tokens or 4 * self.k + 2

    @cached_property
    def view(self) -> AnalysisView:
        # the answers are orderings; what is compared is each message's Borda score, k - its rank, in [0, k - 1]
        return AnalysisView("rank", self.scale, self.quantity, 0, self.k - 1, tuple(self.labels),
                            MappingProxyType(dict(self.labels)), effect_quantity="Borda score {a} − Borda score {b}",
                            ranged=True, per_message=False)

    def parse(self, text: str | None) -> int | None:
        order = read_ranking(text, self.k)
        return None if order is None else code_of(order)

    def render(self, texts: list[str], template: str | None = None) -> str:
        """The question showing ``texts`` in this order (``template`` defaults to the type's)."""
        return (template or self.template).format(options=numbered_options(texts))

    def describe_values(self) -> str:
        return f"an ordering of the positions 1..{self.k}, best first (coded as its digits: 213 is 2 > 1 > 3)"

    def answer_instruction(self) -> str:
        return (f"Answer ONLY with the {self.k} option numbers in order of preference, best first, separated by "
                "'>'. Do not explain.")

    def human_answers(self, table, source: str = "humans"):
        """Human answers to a ranking (survey.data.humans): one row per respondent and message, ``answer`` the rank
        the respondent gave that message, 1 = best; every respondent ranks each of the k messages once (ranks 1..k,
        no ties). The ranks are kept as given; one clear line for the first respondent who breaks the rule."""
        ranks = table["answer"].map(lambda v: int(v) if str(v).strip().isdigit() else None)
        bad = ranks.isna() | ~ranks.isin(range(1, self.k + 1))
        if bad.any():
            line = table.index[bad][0]
            raise SurveyError(f"{source}: line {line}: a ranking's human answer is the rank given to the row's message, "
                              f"a whole number from 1 (best) to {self.k}; found {_given(table['answer'][line])}")
        messages = sorted(set(table["message"]))
        if len(messages) != self.k:
            raise SurveyError(f"{source}: a ranking of {self.k} needs every respondent's rank of each of {self.k} "
                              f"messages; the file names {len(messages)} ({', '.join(messages)})")
        for rid, rows in ranks.groupby(table["respondent"], sort=False):
            given = sorted(rows.astype(int))
            if given != list(range(1, self.k + 1)) or len(set(table.loc[rows.index, "message"])) != self.k:
                raise SurveyError(f"{source}: respondent '{rid}' gave ranks {', '.join(map(str, given))} (lines "
                                  f"{', '.join(map(str, rows.index[:8]))}); a ranking gives each of the {self.k} "
                                  f"messages one of the ranks 1 to {self.k}, each once")
        return ranks.astype("int64")

    def rows_per_message(self, rows):
        """Fielded rankings (`survey field` stores one row per ranking: ``shown`` the [message, paraphrase id] pairs
        in the order shown, ``answer`` the positions' code, 213 = 2 > 1 > 3) as a human file has them: one row per
        message shown, ``answer`` the rank the respondent gave it (1 = best), ``perturbation`` its paraphrase."""
        out = []
        for row in rows.to_dict("records"):
            shown = json.loads(row["shown"])
            for rank, position in enumerate(str(int(row["answer"])), start=1):
                message, perturbation = shown[int(position) - 1]
                out.append({**row, "message": message, "perturbation": str(perturbation), "answer": rank})
        return type(rows)(out, columns=rows.columns)

    @staticmethod
    def simulated_answer(logits: np.ndarray, rng: np.random.Generator) -> str:
        """A simulated respondent's reply from the shown options' logits: a Plackett–Luce ranking (the best by a
        multinomial logit, then the best of the rest, ...), drawn by sorting logits plus Gumbel noise."""
        order = np.argsort(-(np.asarray(logits, dtype=float) + rng.gumbel(size=len(logits))), kind="stable")
        return " > ".join(str(int(t) + 1) for t in order)


def rank_from_name(scale: str) -> RankOrder | None:
    """The type a ``rankK`` name stands for; None for any other name (a rank2 or rank8 is refused by RankOrder)."""
    match = _NAME.match(scale) if isinstance(scale, str) else None
    return RankOrder(int(match.group(1))) if match else None


def _given(value) -> str:
    """A human answer as an error names it: a blank cell (NaN once read) is "an empty answer", not "nan"."""
    blank = value is None or (isinstance(value, float) and np.isnan(value)) or not str(value).strip()
    return "an empty answer" if blank else repr(value)
