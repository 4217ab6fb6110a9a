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

import re
from collections.abc import Mapping
from typing import Any

from fieldstudio.core.verdicts import AcceptabilityMetrics, acceptability_metrics, normalise_verdict
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

__all__ = ["NAME", "VERSION", "DESCRIPTION", "normalise_verdict", "AcceptabilityMetrics", "acceptability_metrics",
           "score", "verdict_of", "verdict_arguments", "INFO"]

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


def verdict_of(answer: AnswerInputs) -> Any:
    """The model's verdict: the parsed ``verdict``, else the reply when it is one word of a verdict, else
    the reply's first word ("Accept. The tape is visible ..." -> "Accept"); None for a reply without words."""
    parsed = answer.parsed or {}
    if parsed.get("verdict") is not None:
        return parsed["verdict"]
    text = (answer.raw_text or "").strip()
    if normalise_verdict(text) is not None:
        return text
    first = re.match(r"\W*([A-Za-z]+)", text)
    return first.group(1) if first else None


def verdict_arguments(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments:
    """The model's verdict and the reference one (``ground_truth_extra["verdict"]``, else the ground truth)."""
    return Arguments((verdict_of(answer), (task.ground_truth_extra or {}).get("verdict", task.ground_truth)))


INFO = ScorerInfo(name=NAME, version=VERSION, description=DESCRIPTION, function=score, inputs=verdict_arguments,
                  threshold=0.5)
"""acceptability: the model's verdict against the reference verdict."""
