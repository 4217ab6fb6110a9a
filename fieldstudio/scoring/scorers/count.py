"""``fs-count``: fieldstudio's own score for a count answer against the count its ground truth was derived from
(the events or tracks a linked count counts, ``tasks.ground_truth``; not any benchmark's rule).

The answer is scored only when the WHOLE answer is one whole number: up to six digits, or an English number word
from zero to twenty, an optional final period. Anything else ("3 people", "about 3", "3 or 4", "none") is left
unscored, "needs a judge", so a wrong answer is never read as a count it does not state. Value 1 when it equals
the ground truth, else 0; the explanation names what was counted (``TaskInputs.context["derived_from"]``: "3
event(s) in frames 0-29", "2 distinct object(s) (2 track(s), 0 single box(es))").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

NAME, VERSION = "fs-count", "1.0"
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_COUNT = re.compile(r"^(?:(?P<digits>\d{1,6})|(?P<word>" + "|".join(WORDS) + r"))\.?$", re.ASCII)

__all__ = ["NAME", "VERSION", "INFO", "parse_count", "score"]


def parse_count(text: str | None) -> int | None:
    """The count when the whole of ``text`` is one whole number in the module's grammar, else None."""
    if text is None:
        return None
    found = _COUNT.match(" ".join(str(text).strip().split()).lower())
    if not found:
        return None
    return int(found["digits"]) if found["digits"] is not None else WORDS.index(found["word"])


def score(reference: str, prediction: str | None, *, derived_from: str | None = None) -> ScoreResult:
    """Score one answer (module docstring); ``derived_from`` names what the ground truth counted."""
    truth = parse_count(reference)
    if truth is None:
        return unscored(NAME, VERSION, f"the ground truth {reference!r} is not one whole number")
    answer = parse_count(prediction)
    if answer is None:
        return unscored(NAME, VERSION, "needs a judge: the answer is not exactly one whole number (e.g. '3')")
    correct = answer == truth
    counted = f" ({derived_from})" if derived_from else ""
    return ScoreResult(NAME, VERSION, 1.0 if correct else 0.0, correct,
                       f"{answer} vs {truth}{counted}: {'correct' if correct else f'wrong, off by {answer - truth:+d}'}",
                       details={"answer": answer, "truth": truth})


def _inputs(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    if not task.ground_truth:
        return "the task has no ground truth"
    return Arguments((task.ground_truth, answer.raw_text), {"derived_from": (task.context or {}).get("derived_from")})


INFO = ScorerInfo(
    name=NAME, version=VERSION,
    description="fieldstudio's exact score of a count answer against the events or tracks its ground truth counts "
                "(not a benchmark's rule)",
    function=score, inputs=_inputs, threshold=None, judge_prompts=(), answer_types=("count",), needs_context=True)
"""The declaration of ``fs-count``."""
