"""FieldWorkArena's evaluator as its code computes it ("fwa-official", code-compatible mode).

Source: ``FujitsuResearch/FieldWorkArena@8ebe8dae:tools/evaluation/metrics/automatic/automatic_evaluation.py``
(the GreenAgent copy behaves the same), aggregation from ``tools/evaluation/FWA_evaluator.py`` and
``tools/evaluation/calc_category.py``, as documented in benchmarks.md §1.3, §1.4 and §1.6:

* fuzzy_match / json_match: the judge reply, lower-cased, containing "partially correct" or
  "incorrect" scores 0.0; otherwise it must contain "correct" (1.0); anything else 0.0.
* numerical_match: the greedy ``{...}`` span of the reply is parsed as JSON; ``correctness ==
  "incorrect"`` (exact, case-sensitive) gates the score to 0; otherwise each numerical value is scored
  by type (number: ``int(t) == int(s)``; time and length: the stepped ladders) and
  score = 0.5 + 0.5 x mean. Empty ``numerical_values`` raises ZeroDivisionError in the original; here it
  scores 0.0 with an ``error`` message, as GreenAgent records it.
* A task is correct when score > 0.5.

Without a judge, deterministic matchers decide what they can (a pure yes/no, count, length, time or
time-range reference; a JSON report) and every other answer is returned unscored (value None).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fieldstudio.core import matchers
from fieldstudio.scoring.scorers.judge import Ask, ask_numbers, ask_three_level
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.tasks.formats.fieldworkarena import SUBCATEGORY_BUCKETS, bucket_of

__all__ = ["NAME", "VERSION", "DESCRIPTION", "score", "verdict_score", "numerical_reply_score",
           "numerical_values_score", "distance_step", "time_step", "official_time_seconds", "category_of",
           "CategorySummary", "aggregate_by_category", "SUBCATEGORY_BUCKETS", "bucket_of", "aggregate_by_bucket"]

NAME = "fwa-official"
VERSION = "1.0"
DESCRIPTION = ("FieldWorkArena as its official evaluator computes it: judge verdict gate, stepped time and "
               "distance ladders, 0.5 + 0.5 x mean, correct when score > 0.5")
EVAL_FUNCS = ("fuzzy_match", "json_match", "numerical_match")


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


def _entry_score(entry: Mapping[str, Any]) -> float:
    """One numerical_values entry; KeyError for a missing "type" propagates (uncaught in the code)."""
    kind = entry["type"]
    teacher, student = entry.get("teacher"), entry.get("student")
    try:
        if kind == "number":
            return 1.0 if int(teacher) == int(student) else 0.0
        if kind == "time":
            return time_step(abs(official_time_seconds(student) - official_time_seconds(teacher)))
        if kind == "length":
            ref = float(teacher)
            return distance_step(abs(float(student) - ref) / ref)
    except (ValueError, TypeError, ZeroDivisionError):
        return 0.0
    return 0.0


def numerical_values_score(values: Mapping[str, Mapping[str, Any]]) -> tuple[float, list[float]]:
    """(S_n, per-entry steps): the mean of the entry scores. Raises ZeroDivisionError when empty, as the code does."""
    steps = [_entry_score(v) for v in values.values()]
    return sum(steps) / len(steps), steps


def numerical_reply_score(reply: str) -> tuple[float, dict[str, Any]]:
    """Score a numerical_match judge reply as the code does (§1.4). Returns (score, details);
    details["error"] is set where the original would have crashed (score 0.0 then)."""
    m = re.search(r"\{.*\}", str(reply), re.DOTALL)
    if not m:
        return 0.0, {"problem": "no JSON object in the judge reply"}
    try:
        obj = json.loads(m.group())
    except ValueError:
        return 0.0, {"problem": "judge JSON does not decode"}
    if not isinstance(obj, dict):
        return 0.0, {"problem": "judge JSON is not an object"}
    correctness = obj.get("correctness")
    if correctness == "incorrect":
        return 0.0, {"correctness": correctness, "gate": "closed"}
    values = obj.get("numerical_values")
    if not isinstance(values, dict):
        return 0.0, {"correctness": correctness, "error": "numerical_values missing: the official code raises"}
    try:
        s_n, steps = numerical_values_score(values)
    except ZeroDivisionError:
        return 0.0, {"correctness": correctness,
                     "error": "empty numerical_values: the official code raises ZeroDivisionError"}
    except (KeyError, TypeError, AttributeError) as exc:
        return 0.0, {"correctness": correctness, "error": f"malformed numerical_values entry ({exc!r}): the official code raises"}
    return 0.5 + 0.5 * s_n, {"correctness": correctness, "gate": "open", "s_n": s_n, "steps": steps}


# ---------------------------------------------------------------- without a judge
_FILLER = set("the it is are was were its it's about approximately around roughly nearly from to and between at "
              "a an of there total answer distance time duration length height width count number in".split())


def _residual_words(text: str) -> list[str]:
    """Words left in ``text`` once values, units and filler are removed: empty means a 'pure' value answer."""
    t = str(text).lower()
    for rx in (matchers._FT_IN_RE, matchers._LENGTH_RE, matchers._CLOCK_RE):
        t = rx.sub(" ", t)
    t = re.sub(r"\d+(?:\.\d+)?\s*(?:h|hrs?|hours?|min|mins|minutes?|s|secs?|seconds?)\b", " ", t)
    t = matchers._NUMBER_WORD_RE.sub(" ", t)
    words = re.findall(r"[a-z]+", t)
    return [w for w in words if w not in _FILLER and w not in matchers._YES and w not in matchers._NO]


@functools.lru_cache(maxsize=8192)
def reference_kind(reference: str) -> str | None:
    """'range', 'time', 'length', 'count' or 'yesno' when the reference is nothing but such a value.

    Cached per reference text: scoring many answers to one task parses its reference once."""
    if _residual_words(reference):
        return None
    if matchers.parse_time_range_s(reference):
        return "range"
    if matchers.parse_time_s(reference) is not None:
        return "time"
    if matchers.parse_length_m(reference) is not None:
        return "length"
    if matchers.parse_count(reference) is not None and not re.search(r"\d\.\d", reference):
        return "count"
    if matchers.parse_yes_no(reference) is not None and len(re.findall(r"[a-z]+", reference.lower())) == 1:
        return "yesno"
    return None


@functools.lru_cache(maxsize=8192)
def _reference_polarity(reference: str) -> bool | None:
    """The yes/no of a reference that starts with yes or no (None otherwise); cached per reference text."""
    if not re.match(r"\W*(yes|no)\b", reference, re.I):
        return None
    return matchers.parse_yes_no(reference)


def polarity_conflict(reference: str, prediction: str) -> bool:
    """True when a reference starting with yes/no and the prediction answer yes/no the other way round."""
    ref = _reference_polarity(reference)
    if ref is None:
        return False
    pred = matchers.parse_yes_no(prediction)
    return pred is not None and ref != pred


def match_by_kind(kind: str, reference: str, prediction: str) -> matchers.MatchResult:
    return {"range": matchers.match_time_range, "time": matchers.match_time, "length": matchers.match_length,
            "count": matchers.match_count, "yesno": matchers.match_yes_no}[kind](prediction, reference)


def _numerical_steps(kind: str, m: matchers.MatchResult) -> list[float]:
    """Official per-entry steps computed from deterministically parsed values (time in s, length in m)."""
    if kind == "range":
        return [time_step(abs(m.value[0] - m.reference[0])), time_step(abs(m.value[1] - m.reference[1]))]
    if kind == "time":
        return [time_step(abs(m.value - m.reference))]
    if kind == "length":
        ref = float(m.reference)
        return [distance_step(abs(float(m.value) - ref) / ref)] if ref else [0.0]
    return [1.0 if m.value == m.reference else 0.0]


def _without_judge(reference: str, prediction: str, eval_func: str) -> ScoreResult:
    if eval_func == "json_match":
        outside = re.sub(r"```(?:json)?|\{.*\}|\[.*\]", " ", str(prediction), flags=re.S)  # the words around the report
        why = matchers.ambiguity(outside)
        if why is not None:
            return unscored(NAME, VERSION, f"needs a judge: the words around the report are {why}", stage="matcher")
        m = matchers.match_json_report(prediction, reference)
        if m.matched is None:
            return unscored(NAME, VERSION, f"needs a judge: {m.explanation}", stage="matcher")
        value = 1.0 if m.matched else 0.0
        return ScoreResult(NAME, VERSION, value, value > 0.5, m.explanation, details={"stage": "matcher", "matcher": "json_report"})
    if polarity_conflict(reference, prediction):
        return ScoreResult(NAME, VERSION, 0.0, False, "the prediction answers yes/no the other way round",
                           details={"stage": "matcher", "matcher": "yes_no"})
    kind = reference_kind(reference)
    if kind is None:
        return unscored(NAME, VERSION, "needs a judge: the reference is not a plain value a matcher can compare",
                        stage="matcher")
    why = matchers.ambiguity(prediction, exact=kind in ("count", "yesno") or eval_func != "numerical_match",
                             allow_range=kind == "range")
    if why is not None:
        return unscored(NAME, VERSION, f"needs a judge: the answer is {why}", stage="matcher", matcher=kind)
    m = match_by_kind(kind, reference, prediction)
    if m.matched is None:
        return unscored(NAME, VERSION, f"needs a judge: {m.explanation}", stage="matcher", matcher=kind)
    if eval_func == "numerical_match" and kind != "yesno":
        steps = _numerical_steps(kind, m)
        s_n = sum(steps) / len(steps)
        value = 0.5 + 0.5 * s_n
        return ScoreResult(NAME, VERSION, value, value > 0.5,
                           f"{m.explanation}; S_n = {s_n:g} from the official ladder (gate open: the reference has no "
                           "non-numerical part)", details={"stage": "matcher", "matcher": kind, "s_n": s_n, "steps": steps})
    value = 1.0 if m.matched else 0.0
    return ScoreResult(NAME, VERSION, value, value > 0.5, m.explanation, details={"stage": "matcher", "matcher": kind})


# ---------------------------------------------------------------- the scorer
def score(reference: str, prediction: str | None, eval_func: str, *, question: str = "",
          judge: Ask | None = None) -> ScoreResult:
    """Score one FieldWorkArena answer as the official evaluator does.

    Args:
        reference: the ground-truth text (second conversation turn); a JSON string for json_match.
        prediction: the model's answer text (None or empty scores 0.0 only through the judge; without a
            judge it is unscored unless a matcher decides).
        eval_func: "fuzzy_match", "json_match" or "numerical_match" (the task's ``eval_func``).
        question: the query text, sent to the judge.
        judge: ``ask(prompt) -> reply`` for the judge model, or None for matchers only.
    Returns:
        ScoreResult with value in [0, 1] (or None when unscored), correct = value > 0.5, the judge's raw
        reply in ``judge_raw``, and ``error`` where the original code would have raised.
    """
    if eval_func not in EVAL_FUNCS:
        return unscored(NAME, VERSION, f"unknown eval_func {eval_func!r}: no task in FieldWorkArena uses it")
    prediction = "" if prediction is None else str(prediction)
    if judge is None:
        return _without_judge(reference, prediction, eval_func)
    try:
        if eval_func == "numerical_match":
            reply = ask_numbers(judge, question, reference, prediction)
            value, details = numerical_reply_score(reply.raw)
        else:
            reply = ask_three_level(judge, question, reference, prediction, json_report=eval_func == "json_match")
            value, details = verdict_score(reply.raw), {}
    except Exception as exc:                      # the judge call itself failed: no score, say why
        return unscored(NAME, VERSION, f"judge call failed: {exc}", stage="judge")
    details.update(stage="judge", strict_verdict=reply.verdict, parse_problem=reply.problem)
    explanation = (f"judge reply {reply.raw.strip()[:80]!r} -> {value:g}" if eval_func != "numerical_match"
                   else f"gate {details.get('gate', 'n/a')}, S_n {details.get('s_n', 'n/a')} -> {value:g}")
    return ScoreResult(NAME, VERSION, value, value > 0.5, explanation, judge_raw=reply.raw,
                       error=details.get("error"), details=details)


# ---------------------------------------------------------------- aggregation
def category_of(task_id: str) -> str:
    """Task category as FWA_evaluator computes it: the id without its last five characters (``id[:-5]``);
    a leading "fieldworkarena." is removed first. "2.1.2126" -> "2.1" (benchmarks.md §5 pitfall 1)."""
    tid = str(task_id)
    return (tid[len("fieldworkarena."):] if tid.startswith("fieldworkarena.") else tid)[:-5]


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
