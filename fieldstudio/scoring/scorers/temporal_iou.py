"""``fs-tiou``: fieldstudio's own score for a time-range answer, temporal IoU against the ground-truth range
(not any benchmark's rule: FieldWorkArena's and IndustryEQA's evaluators ask a judge to read the times).

The ground truth is a time range as the task holds it (a segment linked from the supervisor's marks gives
``from 00:00:01.200 to 00:00:03.500``, PTS at millisecond precision; ``tasks.ground_truth``). The answer is scored
only when the WHOLE answer is one range in a strict grammar, in ASCII: ``[from] A to|until B``, ``A - B`` (or an
en or em dash), ``between A and B``, an optional final period; a time is ``H:MM:SS(.fff)`` or ``M:SS(.fff)``
(minutes and seconds below 60) or up to six digits of seconds with ``s``/``sec``/``second(s)``; words are set
apart by spaces. Anything else (a sentence, a negation, two ranges, two times joined by "and", one time, other
digits or letters that look alike) is left unscored with the reason, so a wrong answer is never read as a range
it does not state.

value = |A ∩ G| / |A ∪ G| in [0, 1] (two instants: 1 when equal, else 0); correct when value ≥ ``min_iou``
(default 0.5, the common threshold of temporal grounding). The explanation gives the onset and offset errors in
seconds (answer minus ground truth) and, when the task's video has a frame table (``TaskInputs.context``'s
``frame_times_s``), in frames: the index of the frame shown at the answer's time minus that at the ground truth's.
Every time is in seconds after the video's first frame, the clock of the timestamps sent with the frames, of a
typed reference and of a linked segment's ground truth (``tasks.ground_truth``).

It applies to time-range tasks only (``ScorerInfo.answer_types``): another task is "not applicable", left out of
its summaries rather than counted as a wrong answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fieldstudio.core.parameters import Parameter
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

NAME, VERSION = "fs-tiou", "1.2"
MIN_IOU = Parameter("min_iou", float, 0.5, low=0.0, high=1.0, label="correct from tIoU",
                    help="an answer is correct when its temporal IoU with the ground truth is at least this")

_TIME = (r"(?:\d{1,2}:[0-5]\d:[0-5]\d(?:\.\d{1,3})?|\d{1,3}:[0-5]\d(?:\.\d{1,3})?"
         r"|\d{1,6}(?:\.\d{1,3})? ?(?:s|sec|seconds?)\b)")
_RANGE = re.compile(rf"^(?:(?:from )?(?P<a>{_TIME})(?: (?:to|until) | ?[-–—] ?)(?P<b>{_TIME})"
                    rf"|between (?P<c>{_TIME}) and (?P<d>{_TIME}))\.?$", re.ASCII)

__all__ = ["NAME", "VERSION", "INFO", "MS_SLACK_S", "parse_range", "temporal_iou", "frame_at", "score"]

MS_SLACK_S = 0.0005
"""Times are written to the millisecond: a frame up to half a millisecond after a written time is the frame shown
then (one rule for fs-tiou's frames and for evidence spans, ``compare.evidence``)."""


def _seconds(token: str) -> float:
    token = token.strip()
    if ":" not in token:
        return float(re.match(r"\d+(?:\.\d+)?", token).group(0))
    parts = [float(p) for p in token.split(":")]
    return parts[0] * 3600 + parts[1] * 60 + parts[2] if len(parts) == 3 else parts[0] * 60 + parts[1]


def parse_range(text: str | None) -> tuple[float, float] | None:
    """(start, end) in seconds when the whole of ``text`` is one range in the module's grammar, else None.
    A range written backwards (end before start) is None: it states no interval."""
    if text is None:
        return None
    normalised = " ".join(str(text).strip().split()).lower()
    found = _RANGE.match(normalised)
    if not found:
        return None
    a, b = _seconds(found["a"] or found["c"]), _seconds(found["b"] or found["d"])
    return (a, b) if a <= b else None


def temporal_iou(answer: tuple[float, float], truth: tuple[float, float]) -> float:
    """|A ∩ G| / |A ∪ G| of two closed intervals in seconds; two equal instants give 1, disjoint ranges 0."""
    inter = max(0.0, min(answer[1], truth[1]) - max(answer[0], truth[0]))
    union = max(answer[1], truth[1]) - min(answer[0], truth[0])
    if union == 0:
        return 1.0 if answer == truth else 0.0
    return inter / union


def _clock(seconds: float) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{int(h):02d}:{int(m):02d}:{s:06.3f}"


def frame_at(frame_times_s: Sequence[float] | np.ndarray, seconds: float) -> int:
    """Index of the frame shown at ``seconds`` (the last frame whose time is at or before it; frame 0 before the
    first), in a video whose frame times are ``frame_times_s`` (increasing, seconds after the first frame).
    Times are written to the millisecond, so a frame up to half a millisecond after ``seconds`` counts as shown
    then: a linked segment's start at 0.43333 s reads back as 0.433 and still names its own frame."""
    times = np.asarray(frame_times_s, dtype=float)
    return max(0, int(np.searchsorted(times, seconds + MS_SLACK_S, side="right")) - 1)


def score(reference: str, prediction: str | None, *, min_iou: float = 0.5,
          frame_times_s: Sequence[float] | np.ndarray | None = None) -> ScoreResult:
    """Score one answer (module docstring). ``frame_times_s``: the video's frame times for the errors in frames
    (None: in seconds only). Unscored, with the reason, when the reference is no range or the answer is not exactly
    one range."""
    truth = parse_range(reference)
    if truth is None:
        return unscored(NAME, VERSION, f"the ground truth {reference!r} is not one time range")
    answer = parse_range(prediction)
    if answer is None:
        return unscored(NAME, VERSION, "needs a judge: the answer is not exactly one time range "
                                       "(e.g. '00:01:20 to 00:02:05')")
    iou = temporal_iou(answer, truth)
    details: dict[str, Any] = {"onset_error_s": answer[0] - truth[0], "offset_error_s": answer[1] - truth[1]}
    onset, offset = f"onset {answer[0] - truth[0]:+.3f} s", f"offset {answer[1] - truth[1]:+.3f} s"
    if frame_times_s is not None and len(frame_times_s):
        details["onset_error_frames"] = frame_at(frame_times_s, answer[0]) - frame_at(frame_times_s, truth[0])
        details["offset_error_frames"] = frame_at(frame_times_s, answer[1]) - frame_at(frame_times_s, truth[1])
        onset += f" ({details['onset_error_frames']:+d} frames)"
        offset += f" ({details['offset_error_frames']:+d} frames)"
    explanation = (f"tIoU {iou:.2f}: {_clock(answer[0])}–{_clock(answer[1])} (answer) vs "
                   f"{_clock(truth[0])}–{_clock(truth[1])} (ground truth), {onset}, {offset}; seconds after the "
                   f"video's first frame; correct from tIoU {min_iou:.2f}")
    return ScoreResult(NAME, VERSION, iou, iou >= min_iou, explanation, details=details)


def _inputs(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    if not task.ground_truth:
        return "the task has no ground truth"
    frames = (task.context or {}).get("frame_times_s")
    return Arguments((task.ground_truth, answer.raw_text), {"min_iou": float(params.get("min_iou", 0.5)),
                                                            "frame_times_s": frames})


INFO = ScorerInfo(
    name=NAME, version=VERSION,
    description="fieldstudio's temporal IoU of a time-range answer against the ground-truth range (not a "
                "benchmark's rule) of time-range tasks; onset and offset errors in seconds and frames",
    function=score, inputs=_inputs, threshold=None, parameters=(MIN_IOU,), judge_prompts=(),
    answer_types=("time_range",), needs_context=True)
"""The declaration of ``fs-tiou``."""
