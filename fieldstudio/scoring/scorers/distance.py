"""``fs-distance``: fieldstudio's own score for a distance answer against the ground truth a calibrated ruler gives
(not any benchmark's rule: FieldWorkArena's evaluator asks a judge, its paper a ratio threshold).

The answer is scored only when the WHOLE answer is one length in a strict ASCII grammar: a number (up to six
digits, up to four decimals) and a unit ``m``, ``cm``, ``mm``, ``ft`` or ``in`` (a space between them optional),
an optional final period. Anything else (a sentence, two lengths, "about 2 m", feet and inches together) is left
unscored, "needs a judge", so a wrong answer is never read as a length it does not state. The ground truth is
read the same way (a linked ruler gives ``"2.35 m"``, ``tasks.ground_truth``). That text is rounded to the
centimetre, so while it is the ruler's current value the answer is compared with the ruler's unrounded length
(``context["derived_m"]``): an exact "3.49 cm" is not off by 0.5 cm from a ground truth written "0.03 m".

Correct when |answer − ground truth| ≤ tolerance (value 1, else 0). The tolerance comes from the calibration's
independent check: twice its error (a known length measured through the calibration, ``core.calibration.
LengthCheck``; ``TaskInputs.context["check_error_m"]``), since the ruler and the check both carry that error;
without a check it is the stated default, ``default_tolerance_pct`` of the ground truth (5 %). The explanation
names the ruler and calibration the ground truth came from (``context["derived_from"]``) and the tolerance used.
While the link gives no value (the ruler was deleted, no calibration applies to it any more, an end is beyond the
floor's horizon: ``context["derived_broken"]``) the answer is left unscored, "the ground truth cannot be measured",
as ``fs-area`` does, not scored against the length stored before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fieldstudio.core.parameters import Parameter
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

NAME, VERSION = "fs-distance", "1.1"
DEFAULT_TOLERANCE_PCT = Parameter(
    "default_tolerance_pct", float, 5.0, low=0.0, high=100.0, label="tolerance without a check (%)",
    help="the tolerance, in % of the ground truth, when the ruler's calibration has no independent check")
METRES_PER = {"m": 1.0, "cm": 0.01, "mm": 0.001, "ft": 0.3048, "in": 0.0254}
_LENGTH = re.compile(r"^(?P<num>\d{1,6}(?:\.\d{1,4})?) ?(?P<unit>m|cm|mm|ft|in)\.?$", re.ASCII)

__all__ = ["NAME", "VERSION", "INFO", "parse_length", "score"]


def parse_length(text: str | None) -> tuple[float, str, str] | None:
    """(metres, unit, the length as written) when the whole of ``text`` is one length in the module's grammar,
    else None."""
    if text is None:
        return None
    written = " ".join(str(text).strip().split())
    found = _LENGTH.match(written.lower())
    if not found:
        return None
    return float(found["num"]) * METRES_PER[found["unit"]], found["unit"], written.rstrip(".")


def score(reference: str, prediction: str | None, *, default_tolerance_pct: float = 5.0,
          check_error_m: float | None = None, derived_from: str | None = None,
          truth_m: float | None = None) -> ScoreResult:
    """Score one answer (module docstring). ``check_error_m``: the calibration's independent check error (None:
    the stated default tolerance); ``derived_from``: what the ground truth was measured with, for the
    explanation; ``truth_m``: the ground truth's unrounded value in metres (None: ``reference`` as written)."""
    truth = parse_length(reference)
    if truth is None:
        return unscored(NAME, VERSION, f"the ground truth {reference!r} is not one length")
    answer = parse_length(prediction)
    if answer is None:
        return unscored(NAME, VERSION, "needs a judge: the answer is not exactly one length (e.g. '2.40 m')")
    if check_error_m is not None:
        tolerance = 2 * abs(check_error_m)
        why = f"check error {abs(check_error_m):.3f} m → tolerance ±{tolerance:.3f} m"
    else:
        tolerance = truth[0] * default_tolerance_pct / 100
        why = (f"the calibration has no independent check → stated default ±{default_tolerance_pct:g} % "
               f"= ±{tolerance:.3f} m")
    if truth_m is not None:
        truth = (float(truth_m), "m", reference)
    error = answer[0] - truth[0]
    correct = abs(error) <= tolerance + 1e-9
    source = f"{derived_from}; " if derived_from else ""
    written = "" if answer[1] == "m" else f" (answer written {answer[2]!r})"
    digits = 2 if tolerance >= 0.005 else 4      # a tolerance under half a centimetre needs the millimetres shown
    explanation = (f"{answer[0]:.{digits}f} m vs {truth[0]:.{digits}f} m ({source}{why}): "
                   f"{'correct' if correct else 'wrong'}, off by {error:+.{digits}f} m{written}")
    return ScoreResult(NAME, VERSION, 1.0 if correct else 0.0, correct, explanation,
                       details={"answer_m": answer[0], "truth_m": truth[0], "error_m": error,
                                "tolerance_m": tolerance, "tolerance_from": "check" if check_error_m is not None
                                else "default"})


def _inputs(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    if not task.ground_truth:
        return "the task has no ground truth"
    context = task.context or {}
    if context.get("derived_broken"):   # the stored length is no longer what its ruler gives: not scored against it
        return f"the ground truth cannot be measured: {context['derived_broken']}"
    return Arguments((task.ground_truth, answer.raw_text),
                     {"default_tolerance_pct": float(params.get("default_tolerance_pct", 5.0)),
                      "check_error_m": context.get("check_error_m"), "derived_from": context.get("derived_from"),
                      "truth_m": task.unrounded("derived_m")})


INFO = ScorerInfo(
    name=NAME, version=VERSION,
    description="fieldstudio's score of a distance answer against the ruler's value (not a benchmark's rule), "
                "tolerance from the calibration's check or a stated default",
    function=score, inputs=_inputs, threshold=None, parameters=(DEFAULT_TOLERANCE_PCT,), judge_prompts=(),
    answer_types=("distance",), needs_context=True)
"""The declaration of ``fs-distance``."""
