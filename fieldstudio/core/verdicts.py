"""Accept/reject verdicts and their confusion counts: the statistics under the acceptability scorer and agreement.

Positive class = "accept". TP: predicted accept, reference accept; FP (false accept): predicted accept,
reference reject; FN (miss): predicted reject, reference accept; TN: both reject. Gray-zone references
and predictions without a verdict are excluded and counted; a zero denominator gives None
("undefined"), never 0. Source of the reading: RealityBench (arXiv 2610.14397), benchmarks.md §4.1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

_ACCEPT = {"accept", "accepted", "acceptable", "yes", "pass", "ok", "true", "1"}
_REJECT = {"reject", "rejected", "not acceptable", "unacceptable", "no", "fail", "false", "0"}


def normalise_verdict(verdict: object) -> str | None:
    """"accept", "reject", or None (unsure, gray zone, no verdict, anything else)."""
    if verdict is None or isinstance(verdict, float) and verdict != verdict:
        return None
    v = str(verdict).strip().lower().rstrip(".")
    return "accept" if v in _ACCEPT else "reject" if v in _REJECT else None


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


@dataclass(frozen=True)
class AcceptabilityMetrics:
    """Confusion counts (accept positive), the excluded counts and the derived rates (None = undefined)."""

    tp: int
    fp: int
    fn: int
    tn: int
    gray_excluded: int
    no_verdict: int

    @property
    def n(self) -> int:
        """Items in the confusion matrix."""
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None or p + r == 0:
            return None if p is None or r is None else 0.0
        return 2 * p * r / (p + r)

    @property
    def false_accept_rate(self) -> float | None:
        return _ratio(self.fp, self.fp + self.tn)

    @property
    def miss_rate(self) -> float | None:
        return _ratio(self.fn, self.tp + self.fn)

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.tp + self.tn, self.n)


def acceptability_metrics(pairs: Iterable[tuple[object, object]]) -> AcceptabilityMetrics:
    """Metrics from (model verdict, reference verdict) pairs.

    A gray-zone reference excludes the item (counted in ``gray_excluded``) whatever the model said;
    otherwise a model reply without verdict is counted in ``no_verdict``.
    """
    tp = fp = fn = tn = gray = none = 0
    for predicted, reference in pairs:
        ref, pred = normalise_verdict(reference), normalise_verdict(predicted)
        if ref is None:
            gray += 1
        elif pred is None:
            none += 1
        elif pred == "accept":
            tp, fp = (tp + 1, fp) if ref == "accept" else (tp, fp + 1)
        else:
            fn, tn = (fn + 1, tn) if ref == "accept" else (fn, tn + 1)
    return AcceptabilityMetrics(tp, fp, fn, tn, gray, none)
