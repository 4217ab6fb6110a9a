"""1-5 judge marks: OpenEQA LLM-Match ("llm-match") and IndustryEQA ("eqa-direct", "eqa-reasoning").

Sources (benchmarks.md §2.4, §2.5, §3.1, §3.2, §3.4):

* OpenEQA ``facebookresearch/open-eqa@cfa3fce``: ``openeqa/evaluation/llm_match.py`` (a mark per item;
  ``prediction is None`` gives 0; optional ``extra_answers``) and ``evaluate-predictions.py`` (prediction
  truncated after its last period; final = mean(100 * (clip(s, 1, 5) - 1) / 4)).
* IndustryEQA ``JackYFL/IndustryEQA``: ``industryeqa/evaluation/direct_match.py`` (two marks per item, no
  preprocessing) and ``industryeqa/analyse/score2.py`` at ``ad3ab29`` (pct = (s - 1) / 4 * 100 with **no**
  clip; reasoning averaged over ``reasoning_status == "1"`` only; per type, human / no-human from the
  path, small / large; fieldstudio takes scale from the id range 1-971 / 972-1344).

Marks come from :mod:`fieldstudio.scoring.scorers.judge` with fieldstudio's own prompt. Without a judge,
answers are unscored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fieldstudio.scoring.scorers.judge import Ask, ask_mark
from fieldstudio.scoring.scorers.result import ScoreResult, unscored

__all__ = ["NAME", "VERSION", "DESCRIPTION", "DIRECT_NAME", "REASONING_NAME", "EQA_VERSION", "DIRECT_DESCRIPTION",
           "REASONING_DESCRIPTION", "openeqa_percent", "industryeqa_percent", "openeqa_truncate", "score",
           "score_eqa_direct", "score_eqa_reasoning", "openeqa_final", "EqaItemScore", "EqaSummary",
           "scale_of", "human_presence_of", "aggregate_industryeqa"]

NAME = "llm-match"
VERSION = "1.0"
DESCRIPTION = "OpenEQA LLM-Match: judge mark 1-5, clipped, 100*(s-1)/4; prediction cut after its last period"
DIRECT_NAME = "eqa-direct"
REASONING_NAME = "eqa-reasoning"
EQA_VERSION = "1.0"
DIRECT_DESCRIPTION = "IndustryEQA direct answer: judge mark 1-5, 100*(s-1)/4 without clipping"
REASONING_DESCRIPTION = ("IndustryEQA reasoning answer: judge mark 1-5 over both answers, 100*(s-1)/4 without "
                         "clipping; only items with reasoning_status \"1\"")
SMALL_MAX_ID = 971


def openeqa_percent(mark: float) -> float:
    """OpenEQA: 100 * (clip(mark, 1, 5) - 1) / 4. 5 -> 100, 3 -> 50, 0 -> 0, 6 -> 100."""
    return 100.0 * (min(5.0, max(1.0, float(mark))) - 1.0) / 4.0


def industryeqa_percent(mark: float) -> float:
    """IndustryEQA: 100 * (mark - 1) / 4 without clipping. 0 -> -25, 6 -> 125."""
    return 100.0 * (float(mark) - 1.0) / 4.0


def openeqa_truncate(prediction: str) -> tuple[str, bool]:
    """(text judged, whether a period was found): everything up to and including the last ".".

    The original slice would keep nothing for a prediction without a period (unverified whether it
    guards against this, §3.2); fieldstudio keeps the whole text then and reports False.
    """
    i = prediction.rfind(".")
    return (prediction[: i + 1], True) if i >= 0 else (prediction, False)


def score(question: str, answer: str, prediction: str | None, extra_answers: Sequence[str] | None = None, *,
          judge: Ask | None = None, truncate: bool = True) -> ScoreResult:
    """OpenEQA LLM-Match for one item: value in percent (0-100), correct None (no threshold).

    ``prediction`` None scores mark 0 -> 0 % as the original. ``truncate`` applies OpenEQA's period cut
    (OpenEQA-compatible mode); the text actually judged is in details["judged_prediction"].
    """
    if prediction is None:
        return ScoreResult(NAME, VERSION, openeqa_percent(0), None, "no prediction: mark 0 as in OpenEQA",
                           details={"mark": 0})
    judged, had_period = openeqa_truncate(prediction) if truncate else (prediction, True)
    if judge is None:
        return unscored(NAME, VERSION, "needs a judge", judged_prediction=judged)
    try:
        reply = ask_mark(judge, question, answer, judged, extra_answers)
    except Exception as exc:
        return unscored(NAME, VERSION, f"judge call failed: {exc}", judged_prediction=judged)
    details = {"mark": reply.verdict, "judged_prediction": judged, "truncated": truncate and had_period,
               "no_period": not had_period}
    if reply.verdict is None:
        return ScoreResult(NAME, VERSION, None, None, f"judge reply not parsed: {reply.problem}",
                           judge_raw=reply.raw, details=details)
    value = openeqa_percent(reply.verdict)
    return ScoreResult(NAME, VERSION, value, None, f"mark {reply.verdict} -> {value:g} %", judge_raw=reply.raw,
                       details=details)


def openeqa_final(marks: Iterable[float]) -> float | None:
    """OpenEQA's final number: mean of the clipped percentages (None for no marks)."""
    pct = [openeqa_percent(m) for m in marks]
    return sum(pct) / len(pct) if pct else None


def _mark_result(name: str, reply, details: dict) -> ScoreResult:
    details = {**details, "mark": reply.verdict}
    if reply.verdict is None:
        return ScoreResult(name, EQA_VERSION, None, None, f"judge reply not parsed: {reply.problem}",
                           judge_raw=reply.raw, details=details)
    value = industryeqa_percent(reply.verdict)
    return ScoreResult(name, EQA_VERSION, value, None, f"mark {reply.verdict} -> {value:g} %",
                       judge_raw=reply.raw, details=details)


def score_eqa_direct(question: str, direct_answer: str, generated_direct_answer: str, *,
                     judge: Ask | None = None) -> ScoreResult:
    """IndustryEQA direct score for one item, in percent (unclipped); unscored without a judge."""
    if judge is None:
        return unscored(DIRECT_NAME, EQA_VERSION, "needs a judge")
    try:
        reply = ask_mark(judge, question, direct_answer, generated_direct_answer)
    except Exception as exc:
        return unscored(DIRECT_NAME, EQA_VERSION, f"judge call failed: {exc}")
    return _mark_result(DIRECT_NAME, reply, {})


def score_eqa_reasoning(question: str, direct_answer: str, reasoning_answer: str, generated_direct_answer: str,
                        generated_reasoning_answer: str, reasoning_status: str, *,
                        judge: Ask | None = None) -> ScoreResult:
    """IndustryEQA reasoning score for one item, in percent (unclipped).

    Only items with ``reasoning_status == "1"`` are scored (compared as a string, so an int 1 also counts,
    §5 pitfall 17); others
    are unscored with that reason. The judge sees both direct answers and both reasoning answers.
    """
    if str(reasoning_status).strip() != "1":
        return unscored(REASONING_NAME, EQA_VERSION, f"not in the reasoning subset (reasoning_status {reasoning_status!r})")
    if judge is None:
        return unscored(REASONING_NAME, EQA_VERSION, "needs a judge")
    reference = f"Direct answer: {direct_answer}\nReasoning: {reasoning_answer}"
    prediction = f"Direct answer: {generated_direct_answer}\nReasoning: {generated_reasoning_answer}"
    q = (f"{question}\n(Rate the reasoning. If the assistant's direct answer contradicts the reference direct "
         "answer, the mark must be 1, or 2 at most.)")
    try:
        reply = ask_mark(judge, q, reference, prediction)
    except Exception as exc:
        return unscored(REASONING_NAME, EQA_VERSION, f"judge call failed: {exc}")
    return _mark_result(REASONING_NAME, reply, {})


# ---------------------------------------------------------------- IndustryEQA aggregation
@dataclass(frozen=True)
class EqaItemScore:
    """One IndustryEQA item: ids and attributes from the annotation, and the two judge marks (1-5;
    None when the judge failed or the item was not scored)."""

    question_id: int
    type: str
    path: str
    reasoning_status: str
    direct_mark: float | None
    reasoning_mark: float | None = None


@dataclass(frozen=True)
class EqaSummary:
    """Mean percentages (None when empty) and coverage: ``direct_scored`` / ``items`` and
    ``reasoning_scored`` / ``reasoning_items`` (items with reasoning_status "1")."""

    avg_direct: float | None
    avg_reasoning: float | None
    items: int
    direct_scored: int
    reasoning_items: int
    reasoning_scored: int


def scale_of(question_id: int) -> str:
    """"small" for ids 1-971, "large" for 972-1344 (fieldstudio's rule, §2.1 and §2.5)."""
    return "small" if int(question_id) <= SMALL_MAX_ID else "large"


def human_presence_of(path: str) -> str:
    """"no_human" if the path contains "no_human", else "human" if it contains "human", else "unknown"."""
    return "no_human" if "no_human" in path else ("human" if "human" in path else "unknown")


def _summary(items: list[EqaItemScore]) -> EqaSummary:
    direct = [industryeqa_percent(i.direct_mark) for i in items if i.direct_mark is not None]
    subset = [i for i in items if str(i.reasoning_status).strip() == "1"]
    reasoning = [industryeqa_percent(i.reasoning_mark) for i in subset if i.reasoning_mark is not None]
    return EqaSummary(sum(direct) / len(direct) if direct else None,
                      sum(reasoning) / len(reasoning) if reasoning else None,
                      len(items), len(direct), len(subset), len(reasoning))


def aggregate_industryeqa(items: Iterable[EqaItemScore]) -> dict[str, dict[str, EqaSummary]]:
    """score2.py's tables: {"all": {"all": ...}, "type": {...}, "human": {...}, "scale": {...}}.

    avg_direct is over every scored item of the group; avg_reasoning only over its reasoning-subset
    items (reasoning_status == "1"). Unscored items count in ``items`` but not in the means (coverage).
    """
    items = list(items)
    out: dict[str, dict[str, EqaSummary]] = {"all": {"all": _summary(items)}}
    for key, fn in (("type", lambda i: i.type), ("human", lambda i: human_presence_of(i.path)),
                    ("scale", lambda i: scale_of(i.question_id))):
        groups: dict[str, list[EqaItemScore]] = {}
        for i in items:
            groups.setdefault(fn(i), []).append(i)
        out[key] = {g: _summary(v) for g, v in sorted(groups.items())}
    return out
