"""The value every scorer returns: one score for one answer, with its explanation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ScoreResult", "unscored"]


@dataclass(frozen=True)
class ScoreResult:
    """One scorer's value for one answer.

    ``value`` is the score on the scorer's own scale (0-1 for FieldWorkArena and acceptability, a
    percentage for LLM-Match) or None when the answer could not be scored (``explanation`` says why;
    never a guess). ``correct`` is the scorer's own threshold (FWA: value > 0.5) or None. ``judge_raw``
    holds the judge's raw reply when a judge was asked; ``error`` a message when the official code would
    have raised; ``details`` the intermediate values (verdict, S_n, per-entry steps, matcher results).
    """

    scorer: str
    version: str
    value: float | None
    correct: bool | None
    explanation: str
    judge_raw: str | None = None
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def scored(self) -> bool:
        """True when the result carries a value."""
        return self.value is not None


def unscored(scorer: str, version: str, reason: str, **details: Any) -> ScoreResult:
    """A result with value None and the ``reason`` it could not be scored."""
    return ScoreResult(scorer, version, None, None, reason, details=dict(details))
