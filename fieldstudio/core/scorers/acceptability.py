"""Acceptability of proof-of-work frames ("acceptability"): precision, recall, F1, false-accept and miss rates.

Source: RealityBench (arXiv 2610.14397) as described in benchmarks.md §4.1 — unverified against any
code, which does not exist. fieldstudio's reading (stated in the UI and exports):

* positive class = "accept" (the work is acceptable);
* TP: model accept, truth accept; FP (false accept): model accept, truth reject;
  FN (miss): model reject, truth accept; TN: model reject, truth reject;
* precision = TP/(TP+FP); recall = TP/(TP+FN); F1 = 2PR/(P+R);
  false-accept rate = FP/(FP+TN); miss rate = FN/(TP+FN) = 1 - recall;
* items whose reference is in the gray zone ("unsure", "gray", borderline) are excluded and counted;
  model replies with no verdict ("unsure", None, anything else) are excluded and counted;
* a zero denominator gives None ("undefined"), never 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fieldstudio.core.scorers.result import ScoreResult, unscored

__all__ = ["NAME", "VERSION", "DESCRIPTION", "normalise_verdict", "AcceptabilityMetrics", "acceptability_metrics",
           "score"]

NAME = "acceptability"
VERSION = "1.0"
DESCRIPTION = ("Proof-of-work acceptability against a reference verdict: accept is the positive class; "
               "gray-zone references and no-verdict replies are excluded and counted")

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


def score(predicted_verdict: object, reference_verdict: object) -> ScoreResult:
    """Per-item agreement: 1.0 when the model's verdict equals the reference, 0.0 otherwise;
    unscored for a gray-zone reference or a reply without verdict. ``details["outcome"]`` is TP/FP/FN/TN."""
    ref, pred = normalise_verdict(reference_verdict), normalise_verdict(predicted_verdict)
    if ref is None:
        return unscored(NAME, VERSION, "reference in the gray zone: excluded")
    if pred is None:
        return unscored(NAME, VERSION, "the model gave no verdict")
    outcome = {("accept", "accept"): "TP", ("accept", "reject"): "FP",
               ("reject", "accept"): "FN", ("reject", "reject"): "TN"}[(pred, ref)]
    value = 1.0 if pred == ref else 0.0
    return ScoreResult(NAME, VERSION, value, pred == ref, f"model {pred}, reference {ref} ({outcome})",
                       details={"outcome": outcome})
