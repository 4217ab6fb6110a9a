"""``fs-area``: fieldstudio's own score for an area answer against the area of a polygon on a calibrated floor
(``tasks.ground_truth``'s ``polygon_area`` link; not any benchmark's rule).

The answer is scored only when the WHOLE answer is one area (``core.area_units.parse_area``: a number and an area
unit such as ``m²``, ``m2``, ``sq m``, ``square metres``, ``cm²``, ``mm²``, ``ft²``). Anything else ("about
0.8 m²", "0.78", "0.78 m" (a length), two areas, "3 x 4 m") is left unscored, "needs a judge", so a wrong answer
is never read as an area it does not state. The ground truth is read the same way (a linked polygon gives
``"0.78 m²"``). That text is rounded to the hundredth of a m², so while it is the polygon's current value the
answer is compared with the unrounded area (``context["derived_m2"]``), as ``fs-distance`` does for rulers.

Correct when |answer − ground truth| ≤ max(``tolerance_pct`` % of the ground truth, ``tolerance_m2``) (value 1,
else 0): both stated parameters, the relative one for large areas, the absolute one so that a small area is not
held to a fraction of a pixel. The explanation names the polygon and calibration the ground truth came from
(``context["derived_from"]``) and the tolerance used. While the link gives no value (the polygon's edges now cross,
it was deleted, the calibration is gone: ``context["derived_broken"]``) the answer is left unscored, "the ground
truth cannot be measured", not scored against the area stored before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fieldstudio.core.area_units import parse_area
from fieldstudio.core.parameters import Parameter
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

NAME, VERSION = "fs-area", "1.0"
TOLERANCE_PCT = Parameter(
    "tolerance_pct", float, 5.0, low=0.0, high=100.0, label="relative tolerance (%)",
    help="an answer within this % of the ground truth area is correct")
TOLERANCE_M2 = Parameter(
    "tolerance_m2", float, 0.01, low=0.0, high=1000.0, label="absolute tolerance (m²)",
    help="an answer within this many m² of the ground truth area is correct (whichever tolerance is larger)")

__all__ = ["NAME", "VERSION", "INFO", "parse_area", "score"]


def score(reference: str, prediction: str | None, *, tolerance_pct: float = 5.0, tolerance_m2: float = 0.01,
          derived_from: str | None = None, truth_m2: float | None = None) -> ScoreResult:
    """Score one answer (module docstring). ``derived_from``: what the ground truth was measured from, for the
    explanation; ``truth_m2``: the ground truth's unrounded value in m² (None: ``reference`` as written)."""
    truth = parse_area(reference)
    if truth is None:
        return unscored(NAME, VERSION, f"the ground truth {reference!r} is not one area")
    answer = parse_area(prediction)
    if answer is None:
        return unscored(NAME, VERSION, "needs a judge: the answer is not exactly one area (e.g. '0.78 m²')")
    truth_value = float(truth_m2) if truth_m2 is not None else truth[0]
    relative = truth_value * tolerance_pct / 100
    tolerance = max(relative, tolerance_m2)
    why = (f"tolerance ±{tolerance:.4f} m² = the larger of {tolerance_pct:g} % ({relative:.4f} m²) and "
           f"{tolerance_m2:g} m²")
    error = answer[0] - truth_value
    correct = abs(error) <= tolerance + 1e-12
    source = f"{derived_from}; " if derived_from else ""
    written = "" if answer[1] == "m" else f" (answer written {answer[2]!r})"
    explanation = (f"{answer[0]:.4f} m² vs {truth_value:.4f} m² ({source}{why}): "
                   f"{'correct' if correct else 'wrong'}, off by {error:+.4f} m²{written}")
    return ScoreResult(NAME, VERSION, 1.0 if correct else 0.0, correct, explanation,
                       details={"answer_m2": answer[0], "truth_m2": truth_value, "error_m2": error,
                                "tolerance_m2": tolerance})


def _inputs(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    if not task.ground_truth:
        return "the task has no ground truth"
    context = task.context or {}
    if context.get("derived_broken"):   # the stored area is no longer what its polygon gives: not scored against it
        return f"the ground truth cannot be measured: {context['derived_broken']}"
    return Arguments((task.ground_truth, answer.raw_text),
                     {"tolerance_pct": float(params.get("tolerance_pct", TOLERANCE_PCT.default)),
                      "tolerance_m2": float(params.get("tolerance_m2", TOLERANCE_M2.default)),
                      "derived_from": context.get("derived_from"),
                      "truth_m2": task.unrounded("derived_m2")})


INFO = ScorerInfo(
    name=NAME, version=VERSION,
    description="fieldstudio's score of an area answer against a calibrated polygon's area (not a benchmark's "
                "rule), within a stated relative or absolute tolerance",
    function=score, inputs=_inputs, threshold=None, parameters=(TOLERANCE_PCT, TOLERANCE_M2), judge_prompts=(),
    answer_types=("area",), needs_context=True)
"""The declaration of ``fs-area``."""
