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

from fieldstudio.core.verdicts import AcceptabilityMetrics, acceptability_metrics, normalise_verdict
from fieldstudio.scoring.scorers.result import ScoreResult, unscored

__all__ = ["NAME", "VERSION", "DESCRIPTION", "normalise_verdict", "AcceptabilityMetrics", "acceptability_metrics",
           "score"]

NAME = "acceptability"
VERSION = "1.0"
DESCRIPTION = ("Proof-of-work acceptability against a reference verdict: accept is the positive class; "
               "gray-zone references and no-verdict replies are excluded and counted")

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
