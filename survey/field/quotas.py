"""Quotas from a target-margins file (the files segments and raking use, survey.registry.targets): each
level of each attribute is a cell of round(share x N) respondents (largest remainders, so the cells of an
attribute sum to N); a cell closes when that many respondents in it have completed. A numeric attribute's
levels are bins ("18-34", "55+"); a respondent outside every level of a targeted attribute has no cell."""

from __future__ import annotations

from dataclasses import dataclass

from survey.errors import SurveyError


@dataclass(frozen=True)
class Quotas:
    cells: dict[str, dict[str, int]]  # attribute -> level -> how many completes it takes
    bins: dict[str, list]  # numeric attributes: their bins (survey.stats.segments.definition.Bin)
    source: str

    @classmethod
    def from_target(cls, path, n: int, demographics) -> Quotas:
        from survey.registry.targets import numeric_bins, read_target
        from survey.stats.segments.quotas import largest_remainder

        target = read_target(path)
        asked = {d.name: d for d in demographics}
        unknown = [a for a in target.margins if a not in asked]
        if unknown:
            raise SurveyError(f"{path}: the target's attribute(s) {', '.join(unknown)} are not asked (the persona "
                              f"template asks {', '.join(asked) or 'nothing'}): quotas need an attribute people answer")
        cells, bins = {}, {}
        for attr, shares in target.margins.items():
            cells[attr] = largest_remainder(shares, n)
            found = numeric_bins(list(shares))
            if asked[attr].numeric:
                if found is None:
                    raise SurveyError(f"{path}: {attr} is a number; give its levels as bins (18-34, 55+)")
                bins[attr] = found
            else:
                odd = [lv for lv in shares if asked[attr].widget == "radio" and lv not in asked[attr].levels]
                if odd:
                    raise SurveyError(f"{path}: {attr} level(s) {', '.join(odd)} are not answers people can give "
                                      f"({', '.join(asked[attr].levels)})")
        return cls(cells, bins, str(path))

    def level(self, attr: str, value) -> str | None:
        """The cell of ``value`` for a targeted attribute (None: no cell holds it)."""
        if attr in self.bins:
            return next((b.label for b in self.bins[attr] if b.low <= float(value) <= b.high), None)
        return str(value) if str(value) in self.cells[attr] else None

    def counts(self, completed: list[dict]) -> dict[str, dict[str, int]]:
        out = {attr: dict.fromkeys(levels, 0) for attr, levels in self.cells.items()}
        for attrs in completed:
            for attr in self.cells:
                lv = self.level(attr, attrs[attr]) if attr in attrs else None
                if lv is not None:
                    out[attr][lv] += 1
        return out

    def closed_for(self, attributes: dict, completed: list[dict]) -> str | None:
        """The cell that ``attributes`` would overfill ("gender = male"), or None when there is room."""
        counts = self.counts(completed)
        for attr, levels in self.cells.items():
            lv = self.level(attr, attributes.get(attr))
            if lv is None or counts[attr][lv] >= levels[lv]:
                return f"{attr} = {lv if lv is not None else attributes.get(attr)}"
        return None

    def table(self, completed: list[dict]) -> list[dict]:
        counts = self.counts(completed)
        return [{"attribute": attr, "level": lv, "completes": counts[attr][lv], "quota": q,
                 "open": counts[attr][lv] < q} for attr, levels in self.cells.items() for lv, q in levels.items()]
