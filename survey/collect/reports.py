"""What a run did, per model and in all: stored replies, invalid answers, failures and their errors, batch
jobs, and whether the run was interrupted (survey.collect.engine fills them in)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from survey.responses import BINARY


@dataclass
class ModelReport:
    model: str
    planned: int = 0
    skipped: int = 0  # already stored when the run started
    calls: int = 0  # requests made, retries included
    stored: int = 0
    scale: str = BINARY.scale  # the response type: scored replies are valid or invalid, free text is text
    valid: int = 0
    invalid: int = 0
    text: int = 0  # replies of a free-text question: the text is the datum, neither valid nor invalid
    failed: int = 0
    retries: int = 0
    errors: Counter = field(default_factory=Counter)  # (code, message) -> rows
    batch_jobs: list[str] = field(default_factory=list)
    unanswered: int = 0  # batch queries a finished job did not answer (a rerun submits them)
    stopped: str | None = None

    def to_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k != "errors"}
        d["errors"] = [{"code": c, "error": m, "rows": n} for (c, m), n in self.errors.most_common()]
        return d


@dataclass
class RunReport:
    models: dict[str, ModelReport] = field(default_factory=dict)
    interrupted: bool = False
    signal: str | None = None  # what interrupted the run: "SIGINT" (Ctrl-C) or "SIGTERM"
    seconds: float = 0.0

    @property
    def stored(self) -> int:
        return sum(m.stored for m in self.models.values())

    @property
    def failed(self) -> int:
        return sum(m.failed for m in self.models.values())

    @property
    def incomplete(self) -> bool:
        """Something is still owed: interrupted, failed rows, unanswered batch queries or a stopped model."""
        return self.interrupted or bool(self.failed) or any(m.unanswered or m.stopped for m in self.models.values())

    def add(self, later: RunReport) -> RunReport:
        """This report followed by ``later`` (a study bought in rounds runs the engine once per round): counts
        and seconds add up, a model's last stop, errors and batch jobs are kept."""
        out = RunReport(dict(self.models), self.interrupted or later.interrupted, later.signal or self.signal,
                        self.seconds + later.seconds)
        for name, m in later.models.items():
            prev = out.models.get(name)
            if prev is None:
                out.models[name] = m
                continue
            merged = ModelReport(name, scale=m.scale, stopped=m.stopped or prev.stopped, unanswered=m.unanswered,
                                 batch_jobs=prev.batch_jobs + [j for j in m.batch_jobs if j not in prev.batch_jobs],
                                 errors=prev.errors + m.errors, skipped=prev.skipped)
            for k in ("planned", "calls", "stored", "valid", "invalid", "text", "failed", "retries"):
                setattr(merged, k, getattr(prev, k) + getattr(m, k))
            out.models[name] = merged
        return out

    def to_dict(self) -> dict:
        return {"interrupted": self.interrupted, "signal": self.signal, "seconds": round(self.seconds, 3),
                "stored": self.stored,
                "failed": self.failed, "models": [m.to_dict() for m in self.models.values()]}
