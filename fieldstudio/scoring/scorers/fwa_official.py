"""FieldWorkArena's evaluator as its code computes it: "fwa-official" and "fwa-logic+fs-prompt".

Source (read, not copied): ``FujitsuResearch/FieldWorkArena@8ebe8dae:tools/evaluation/metrics/automatic/
automatic_evaluation.py`` (the offline evaluator) and its leaderboard copy
``ast-fri/FieldWorkArena-GreenAgent:src/fieldworkarena/agent/metrics/automatic/automatic_evaluation.py``;
aggregation from ``tools/evaluation/FWA_evaluator.py`` and ``calc_category.py`` (benchmarks.md §1.3-§1.6).

* "fwa-official" sends the benchmark's own prompt, read at run time from the user's copy of the file
  (``scoring.official``), with its system message and settings; "fwa-logic+fs-prompt" applies the same
  rules to replies to fieldstudio's own prompts (not comparable with published tables). Both need a
  judge; judge-free scoring is "fs-match" (``scorers.fs_match``), which is not the official evaluator.
* fuzzy_match / json_match: the reply, lower-cased, containing "partially correct" or "incorrect"
  scores 0.0; otherwise it must contain "correct" (1.0); anything else 0.0. json_match returns 0.0 for
  the reference ``"[ ]"`` whatever the judge says.
* numerical_match: the greedy ``{...}`` span of the reply is parsed as JSON; ``correctness ==
  "incorrect"`` (exact, case-sensitive) gates the score to 0; otherwise each numerical value is scored
  by type (number: ``int(t) == int(s)``; time and length: the stepped ladders) and
  score = 0.5 + 0.5 x mean. Where the code raises (no lowercase ``correctness`` key, an entry without
  ``teacher``/``student``, empty ``numerical_values``, a missing ``type`` in the leaderboard copy) the
  task scores 0.0 with an ``error``, as the leaderboard records it; the offline copy takes a missing
  ``type`` from the entry before it (its variable keeps the last value).
* A failed or empty judge reply scores 0.0 (the code's call returns "" on an error), marked "judge
  failed": the service does not cache it, and the next scoring asks again.
* A task is correct when score > 0.5.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fieldstudio.benchmarks.fieldworkarena import SUBCATEGORY_BUCKETS, category_of
from fieldstudio.scoring.scorers.judge import THREE_LEVEL_PROMPTS, Ask, ask_numbers, ask_three_level
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs
from fieldstudio.tasks.formats.fieldworkarena import bucket_of, official_log_text

__all__ = ["NAME", "VERSION", "DESCRIPTION", "FS_PROMPT_NAME", "FS_PROMPT_VERSION", "FS_PROMPT_DESCRIPTION",
           "official_prediction", "official_arguments", "EVAL_FUNCS", "EMPTY_JSON_REFERENCE", "score", "score_fs_prompt", "verdict_score",
           "numerical_reply_score", "numerical_values_score", "distance_step", "time_step", "official_time_seconds",
           "category_of", "CategorySummary", "aggregate_by_category", "SUBCATEGORY_BUCKETS", "bucket_of",
           "aggregate_by_bucket", "eval_func_of", "fwa_arguments", "INFO", "FS_PROMPT_INFO"]

NAME = "fwa-official"
VERSION = "2.1"  # 2.1: the judge reads the answer as the evaluator reads it back from its log
DESCRIPTION = ("FieldWorkArena as its official evaluator computes it, with its own judge prompt and settings read "
               "from the located evaluator file: verdict gate, stepped ladders, 0.5 + 0.5 x mean, correct when > 0.5")
FS_PROMPT_NAME = "fwa-logic+fs-prompt"
FS_PROMPT_VERSION = "1.1"  # 1.1: the answer as the evaluator reads it back from its log
FS_PROMPT_DESCRIPTION = ("FieldWorkArena's decision rules over fieldstudio's own judge prompts (not the benchmark's "
                         "prompt: not comparable with published tables)")
EVAL_FUNCS = ("fuzzy_match", "json_match", "numerical_match")
EMPTY_JSON_REFERENCE = "[ ]"
"""json_match's reference that scores 0.0 in the official code (the ground truth files write "[]")."""


class _Raises(Exception):
    """Where the official code raises: the task scores 0 with this message."""


# ---------------------------------------------------------------- the code's rules
def verdict_score(reply: str) -> float:
    """fuzzy_match / json_match decision rule by substring (§1.4): 0.0 for "partially correct" or
    "incorrect" anywhere in the lower-cased reply, 1.0 if "correct" occurs, else 0.0 (failed assert)."""
    r = str(reply).lower()
    if "partially correct" in r or "incorrect" in r:
        return 0.0
    return 1.0 if "correct" in r else 0.0


def distance_step(ratio: float) -> float:
    """Stepped distance score for ratio = |pred - ref| / ref (§1.4 ladder; float ``<=`` as in the code)."""
    for limit, step in ((0.1, 1.0), (0.2, 0.8), (0.3, 0.6), (0.4, 0.4), (0.5, 0.2)):
        if ratio <= limit:
            return step
    return 0.0


def time_step(diff_s: float) -> float:
    """Stepped time score for diff_s = |pred - ref| in seconds (§1.4 ladder)."""
    for limit, step in ((1, 1.0), (5, 0.8), (10, 0.6), (30, 0.4), (60, 0.2)):
        if diff_s <= limit:
            return step
    return 0.0


def official_time_seconds(value: Any) -> float:
    """'hh:mm:ss', 'mm:ss' or 'ss' -> seconds; raises ValueError for anything else (e.g. "N/A")."""
    parts = str(value).strip().split(":")
    if not 1 <= len(parts) <= 3:
        raise ValueError(f"not a time: {value!r}")
    seconds = 0.0
    for p in parts:
        seconds = seconds * 60 + float(p)
    return seconds


_NO_KIND = object()
"""No entry read yet: the offline copy's ``value_type`` is still unbound."""


def _entry_kind(entry: Any, previous: Any, variant: str) -> Any:
    """The entry's type as the code reads it; raises _Raises where the code would raise."""
    if not isinstance(entry, Mapping):
        raise _Raises(f"a numerical_values entry is not an object ({entry!r})")
    for key in ("teacher", "student"):
        if key not in entry:
            raise _Raises(f"a numerical_values entry has no {key!r} key")
    if "type" in entry:
        return entry["type"]
    if variant == "leaderboard":
        raise _Raises("a numerical_values entry has no 'type' key")
    teacher = entry["teacher"]              # the offline copy: `if 'type' in value_t: value_t['type']`
    if not isinstance(teacher, (str, list, dict)):
        raise _Raises("a numerical_values entry has no 'type' key and a teacher value that is not text")
    if "type" in teacher:
        if not isinstance(teacher, dict):
            raise _Raises("a numerical_values entry has no 'type' key")
        return teacher["type"]
    if previous is _NO_KIND:           # a "type": null before it is a kind the code carries on with
        raise _Raises("the first numerical_values entry has no 'type' key")
    return previous


def _time_value(value: Any) -> Any:
    """A time as both copies read it: text through convert_to_seconds, any other value as it is (a number or a
    boolean subtracts; None, a list or an object raises TypeError there, which the code swallows)."""
    return official_time_seconds(value) if isinstance(value, str) else value


def _entry_score(kind: Any, teacher: Any, student: Any) -> float:
    """One entry's step; a value that does not parse scores 0 (the code swallows those errors). ``int`` and
    ``float`` read booleans as 1 and 0, as Python does in the code."""
    try:
        if kind == "number":
            return 1.0 if int(teacher) == int(student) else 0.0
        if kind == "time":
            return time_step(abs(_time_value(student) - _time_value(teacher)))
        if kind == "length":
            ref = float(teacher)
            return distance_step(abs(float(student) - ref) / ref)
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        return 0.0
    return 0.0


def numerical_values_score(values: Mapping[str, Any], variant: str = "leaderboard") -> tuple[float, list[float]]:
    """(S_n, per-entry steps): the mean of the entry scores. Raises ZeroDivisionError when empty and
    _Raises for an entry the code cannot read (see the module docstring)."""
    steps: list[float] = []
    kind: Any = _NO_KIND
    for entry in values.values():
        kind = _entry_kind(entry, kind, variant)
        steps.append(_entry_score(kind, entry["teacher"], entry["student"]))
    return sum(steps) / len(steps), steps


def numerical_reply_score(reply: str, variant: str = "leaderboard") -> tuple[float, dict[str, Any]]:
    """Score a numerical_match judge reply as the code does (§1.4). Returns (score, details);
    details["error"] is set where the original raises (score 0.0 then, as the leaderboard records it);
    ``variant`` "offline" or "leaderboard" picks the copy's rule for an entry without "type"."""
    m = re.search(r"\{.*\}", str(reply), re.DOTALL)
    if not m:
        return 0.0, {"problem": "no JSON object in the judge reply"}
    try:
        obj = json.loads(m.group())
    except ValueError:
        return 0.0, {"problem": "judge JSON does not decode"}
    if not isinstance(obj, dict):
        return 0.0, {"problem": "judge JSON is not an object"}
    if "correctness" not in obj:
        return 0.0, {"error": "the reply has no lowercase 'correctness' key: the official code raises KeyError"}
    correctness = obj["correctness"]
    if correctness == "incorrect":
        return 0.0, {"correctness": correctness, "gate": "closed"}
    values = obj.get("numerical_values")
    if not isinstance(values, dict):
        return 0.0, {"correctness": correctness, "error": "numerical_values missing or not an object: the official "
                     "code raises"}
    try:
        s_n, steps = numerical_values_score(values, variant)
    except ZeroDivisionError:
        return 0.0, {"correctness": correctness,
                     "error": "empty numerical_values: the official code raises ZeroDivisionError"}
    except _Raises as exc:
        return 0.0, {"correctness": correctness, "error": f"{exc}: the official code raises"}
    return 0.5 + 0.5 * s_n, {"correctness": correctness, "gate": "open", "s_n": s_n, "steps": steps}


# ---------------------------------------------------------------- the scorers
def _judge_failed(name: str, version: str, why: str, raw: str | None = None) -> ScoreResult:
    """A failed or empty judge reply: 0.0 as the official evaluator scores it (its call returns "" and its
    rule then gives 0.0), marked "judge failed" so the service does not cache the reply and the next
    scoring asks again."""
    return ScoreResult(name, version, 0.0, False, f"judge failed: {why}; scored 0 as the official evaluator does, "
                       "asked again by the next score", judge_raw=raw,
                       details={"stage": "judge", "judge_failed": True})


def _judged(name: str, version: str, reference: str, eval_func: str,
            ask: Callable[[], tuple[str, dict[str, Any]]], variant: str) -> ScoreResult:
    """The official decision rules over one judge reply; ``ask()`` -> (raw reply, extra details)."""
    if eval_func not in EVAL_FUNCS:
        return unscored(name, version, f"unknown eval_func {eval_func!r}: no task in FieldWorkArena uses it")
    if eval_func == "json_match" and reference == EMPTY_JSON_REFERENCE:
        return ScoreResult(name, version, 0.0, False, 'the reference is "[ ]": json_match scores 0.0 whatever the '
                           "judge replies, as the official code does (the judge is not asked)",
                           details={"stage": "rule", "rule": "empty reference"})
    try:
        raw, extra = ask()
    except Exception as exc:                      # a failed call: the official call returns "" then
        return _judge_failed(name, version, f"the judge call failed ({exc})")
    if not str(raw).strip():
        return _judge_failed(name, version, "the judge's reply is empty", raw)
    if eval_func == "numerical_match":
        value, details = numerical_reply_score(raw, variant=variant)
        explanation = (f"gate {details.get('gate', 'n/a')}, S_n {details.get('s_n', 'n/a')} -> {value:g}"
                       + (f" ({details['problem']})" if details.get("problem") else ""))
    else:
        value, details = verdict_score(raw), {}
        # the reply as read, on one line: not repr(), whose \' and \n escapes a reader took for the judge's
        flat = " ".join(str(raw).split())
        explanation = f"judge reply “{flat[:80]}{'…' if len(flat) > 80 else ''}” -> {value:g}"
    details.update(stage="judge", **extra)
    return ScoreResult(name, version, value, value > 0.5, explanation, judge_raw=raw, error=details.get("error"),
                       details=details)


def score(reference: str, prediction: str | None, eval_func: str, *, question: str = "",
          judge: Ask | None = None, source: Any = None) -> ScoreResult:
    """Score one FieldWorkArena answer as the official evaluator does, with its own judge prompt.

    Args:
        reference: the ground-truth text (second conversation turn); a JSON string for json_match.
        prediction: the model's answer text (None is sent as "").
        eval_func: "fuzzy_match", "json_match" or "numerical_match" (the task's ``eval_func``).
        question: the query text, filled into the prompt.
        judge: ``ask(prompt) -> reply`` for the judge model (the service sets the official system message
            and sampling settings on it).
        source: the checked ``scoring.official.source.OfficialSource`` of FieldWorkArena (its templates).
    Returns:
        ScoreResult with value in [0, 1], correct = value > 0.5, the judge's raw reply in ``judge_raw`` and
        ``error`` where the offline evaluator would have raised (scored 0 as the leaderboard copy records
        it). A failed or empty reply scores 0 with details["judge_failed"]. Without a judge or a source
        the answer is unscored with the reason (the service refuses such a scoring before it starts).
    """
    if judge is None or source is None:
        return unscored(NAME, VERSION, "fwa-official needs a judge and FieldWorkArena's own evaluator file "
                        "(fieldstudio benchmarks locate fieldworkarena DIR); fs-match scores without a judge")
    pred = "" if prediction is None else str(prediction)

    def ask() -> tuple[str, dict[str, Any]]:
        return judge(source.render(eval_func, question=question, reference=reference, pred=pred)), {}

    return _judged(NAME, VERSION, reference, eval_func, ask, source.variant)


def score_fs_prompt(reference: str, prediction: str | None, eval_func: str, *, question: str = "",
                    judge: Ask | None = None, source: Any = None) -> ScoreResult:
    """FieldWorkArena's decision rules (as :func:`score`) over replies to fieldstudio's own judge prompts
    (``resources/prompts/judge_three_level.txt``, ``judge_numbers.txt``): "fwa-logic+fs-prompt". Its
    numbers are not comparable with published FieldWorkArena tables. ``source`` is ignored."""
    if judge is None:
        return unscored(FS_PROMPT_NAME, FS_PROMPT_VERSION, "fwa-logic+fs-prompt needs a judge; fs-match scores "
                        "without one")
    pred = "" if prediction is None else str(prediction)

    def ask() -> tuple[str, dict[str, Any]]:
        if eval_func == "numerical_match":
            reply = ask_numbers(judge, question, reference, pred)
        else:
            reply = ask_three_level(judge, question, reference, pred, json_report=eval_func == "json_match")
        return reply.raw, {"strict_verdict": reply.verdict, "parse_problem": reply.problem}

    return _judged(FS_PROMPT_NAME, FS_PROMPT_VERSION, reference, eval_func, ask, "leaderboard")


# ---------------------------------------------------------------- aggregation
@dataclass(frozen=True)
class CategorySummary:
    """FWA_evaluator's per-category record (§1.6): ``task_count`` (totalTaskNum), ``correct_count``
    (score > 0.5), ``correct_rate`` (correctRate, a thresholded accuracy), ``total_score`` (sum of raw
    scores), ``score_rate`` (GreenAgent's mean raw score), ``unscored_count`` (tasks with value None,
    left out of the other fields)."""

    task_count: int
    correct_count: int
    total_score: float
    unscored_count: int = 0

    @property
    def correct_rate(self) -> float | None:
        return self.correct_count / self.task_count if self.task_count else None

    @property
    def score_rate(self) -> float | None:
        return self.total_score / self.task_count if self.task_count else None

    def official(self) -> dict[str, Any]:
        """The record with FWA_evaluator's key names; correctRate is a 4-decimal string as in the original."""
        return {"totalTaskNum": self.task_count, "correctNum": self.correct_count,
                "correctRate": f"{(self.correct_rate or 0.0):.4f}", "totalScore": self.total_score}


def _summarise(values: Iterable[float | None]) -> CategorySummary:
    vals = list(values)
    scored = [v for v in vals if v is not None]
    return CategorySummary(len(scored), sum(1 for v in scored if v > 0.5), float(sum(scored)), len(vals) - len(scored))


def aggregate_by_category(scores: Mapping[str, float | None]) -> dict[str, CategorySummary]:
    """{"total": ..., "<category>": ...} from {task_id: score} (category = id[:-5]); sorted categories."""
    groups: dict[str, list[float | None]] = {}
    for tid, v in scores.items():
        groups.setdefault(category_of(tid), []).append(v)
    out = {"total": _summarise(scores.values())}
    out.update({c: _summarise(groups[c]) for c in sorted(groups)})
    return out


def aggregate_by_bucket(scores: Mapping[str, float | None], taxonomy: Mapping[str, str]) -> dict[str, CategorySummary]:
    """Per sub-category bucket from {task_id: score} and {task_id: taxonomy id} (the category_*.csv rows).

    As calc_category.py, the bucket's rate is an accuracy (score > 0.5), not a mean score. Tasks with no
    row (e.g. warehouse 4.1.0051) go to "unmapped", so bucket counts add up to the task count.
    """
    groups: dict[str, list[float | None]] = {}
    for tid, v in scores.items():
        key = tid[len("fieldworkarena."):] if tid.startswith("fieldworkarena.") else tid
        groups.setdefault(bucket_of(taxonomy.get(key)), []).append(v)
    return {b: _summarise(groups[b]) for b in sorted(groups)}


# ---------------------------------------------------------------- what it reads, and its declaration
_TYPE_EVAL = {"json_report": "json_match", "distance": "numerical_match", "time": "numerical_match",
              "time_range": "numerical_match", "count": "numerical_match"}


def eval_func_of(task: TaskInputs) -> str:
    """The task's FieldWorkArena ``eval_func``, or one derived from its answer type (fuzzy_match otherwise)."""
    if task.eval_func in EVAL_FUNCS:
        return task.eval_func
    return _TYPE_EVAL.get(task.answer_type, "fuzzy_match")


def fwa_arguments(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    """A FieldWorkArena scorer's arguments: the ground truth, the answer text, the eval_func and the question
    (the inputs of fwa-official, fwa-logic+fs-prompt and fs-match); a task without ground truth is not scored."""
    if task.ground_truth is None:
        return "the task has no ground truth"
    return Arguments((task.ground_truth, answer.raw_text, eval_func_of(task)), {"question": task.query})


def official_prediction(answer: AnswerInputs) -> str | None:
    """The answer text FWA_evaluator.py sends its judge: the log's text as it reads it back (``official_text``
    kept at import), else the answer's text through the same reading (``official_log_text``: ``<…>`` spans and
    newlines removed), as the official agent's log would carry it. None for a failed call without text."""
    official = (answer.parsed or {}).get("official_text") if isinstance(answer.parsed, dict) else None
    if isinstance(official, str):
        return official
    return None if answer.raw_text is None else official_log_text(answer.raw_text)


def official_arguments(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    """``fwa_arguments`` with the prediction the official evaluator sends (``official_prediction``): the
    inputs of the judged FieldWorkArena scorers."""
    call = fwa_arguments(task, answer, params)
    if isinstance(call, str):
        return call
    return Arguments((call.args[0], official_prediction(answer), *call.args[2:]), call.kwargs)


INFO = ScorerInfo(name=NAME, version=VERSION, description=DESCRIPTION, function=score, inputs=official_arguments,
                  needs_judge=True, benchmark="fieldworkarena", threshold=0.5, judge_prompts=THREE_LEVEL_PROMPTS)
"""fwa-official: FieldWorkArena's evaluator with its own judge prompt."""
FS_PROMPT_INFO = ScorerInfo(name=FS_PROMPT_NAME, version=FS_PROMPT_VERSION, description=FS_PROMPT_DESCRIPTION,
                            function=score_fs_prompt, inputs=official_arguments, needs_judge=True, threshold=0.5,
                            judge_prompts=THREE_LEVEL_PROMPTS)
"""fwa-logic+fs-prompt: its rules over fieldstudio's own judge prompts."""
