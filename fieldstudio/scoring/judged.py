"""Scoring with an LLM judge: the judged path of ``score_answers``, one answer at a time (each may wait
for a model call), with the judge's reply, tokens and cost kept in ``Score.judge``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fieldstudio.scoring.inputs import AnswerInputs, TaskInputs, inputs_sha, json_or_none, score_one
from fieldstudio.scoring.judging import JudgeCaller
from fieldstudio.scoring.deterministic import count_current
from fieldstudio.scoring.scoring_report import ScoringReport, reason_head
from fieldstudio.scoring.staleness import ScoreCheck, answer_sha
from fieldstudio.scoring.store import StoredScore
from fieldstudio.core.progress import Cancelled

__all__ = ["judge_chunk", "finish_judge"]


def judge_chunk(scorer: str, chunk: Sequence[tuple], tasks: Mapping[str, TaskInputs],
                in_force: Mapping[str, StoredScore], judge: JudgeCaller, params: Mapping[str, Any],
                report: ScoringReport, cancelled: Cancelled, done: Callable[[int], None], source: Any = None,
                check: ScoreCheck | None = None) -> tuple[list[tuple], list[tuple]]:
    """Scoring with a judge, one answer at a time (each may wait for a model call); ``source`` is the
    benchmark's own judge files for an official scorer (``scoring.official.source.OfficialSource``). A row in
    force that stands (``check.stands``) is not judged again; a stale one is, a person's stale verdict by a
    new row beside it."""
    inserts: list[tuple] = []
    updates: list[tuple] = []
    for i, (aid, run_id, task_id, raw_text, parsed, error) in enumerate(chunk):
        if i and cancelled():
            report.cancelled = True
            break
        task = tasks[task_id]
        a_sha = answer_sha(raw_text, parsed, error)
        old = in_force.get(aid)
        if old is not None and check is not None:
            if check.stands(old, a_sha, task):
                count_current(old, report.per_run.setdefault(run_id, [0, 0]), report)
                done(i)
                continue
            report.stale += check.reason(old, a_sha, task) is not None
            if old.author is not None:
                old = None                       # a person's stale verdict: a new row, newer, takes over
        answer = AnswerInputs(aid, run_id, task_id, raw_text, json_or_none(parsed), error)
        row = _score_answer(scorer, task, answer, {} if old is None else {aid: old}, judge, params, report, source)
        if judge.fatal is not None:
            break
        if row is not None:
            t_sha, reference = check.truth(task) if check is not None else (None, task.ground_truth)
            values = (row["scorer_version"], row["value"], row["correct"], row["explanation"], row["judge"], a_sha,
                      t_sha, reference)
            if old is None:
                inserts.append((aid, *values))
            elif (old.scorer_version, old.value, old.correct, old.explanation, _stable(old.judge), old.answer_sha256,
                  old.truth_sha256, old.judged_truth, old.scorer_sha256) != (
                    *values[:4], _stable(values[4]), a_sha, t_sha, reference,
                    None if check is None else check.scorer_now):
                updates.append((old.id, *values))
        done(i)
    return inserts, updates


def finish_judge(report: ScoringReport, judge: JudgeCaller) -> None:
    """Copy the judge's request, cache-hit and cost counts into the report."""
    report.judge_calls = judge.requests
    report.judge_cache_hits = judge.cache_hits
    report.judge_cost_complete = judge.cost_complete
    report.judge_cost_usd = judge.cost_usd if judge.cost_complete else None


def _score_answer(scorer: str, task: TaskInputs, answer: AnswerInputs, in_force: Mapping[str, StoredScore],
                  judge: JudgeCaller, params: Mapping[str, Any], report: ScoringReport,
                  source: Any = None) -> dict[str, Any] | None:
    """The column values of the answer's new or updated score row (scored with the judge), or None when the
    row in force stays. A result marked "judge failed" is stored as the scorer computed it (0 for
    fwa-official, unscored for the others) with ``judge["judge_failed"]``, and its replies are dropped
    from the cache so the next scoring asks again."""
    counts = report.per_run.setdefault(answer.run_id, [0, 0])
    old = in_force.get(answer.id)
    if old is not None and old.author is not None:
        report.kept_overrides += 1
        return None
    sha = inputs_sha(scorer, task, answer, params, None if source is None else source.sha256)
    judge.begin_answer()
    result = score_one(scorer, task, answer, judge=judge, params=params, source=source)
    calls = judge.calls
    failed = bool(result.details.get("judge_failed"))
    if failed:
        judge.forget_answer()
        report.judge_failed += 1
    judge_json = None
    if calls or result.judge_raw is not None or failed:             # a failed call is recorded too
        costs = [c.get("cost_usd") for c in calls]
        judge_json = {**judge.params, "raw": result.judge_raw if result.judge_raw is not None else
                      (calls[-1].get("text") if calls else None),
                      "calls": len(calls), "from_cache": bool(calls) and all(c["from_cache"] for c in calls),
                      "prompt_tokens": _sum_or_none(c.get("prompt_tokens") for c in calls),
                      "completion_tokens": _sum_or_none(c.get("completion_tokens") for c in calls),
                      "cost_usd": _sum_or_none(costs), "inputs_sha256": sha,
                      "details": jsonable(result.details)}
        if result.error:
            judge_json["error"] = result.error
        if failed:
            judge_json["judge_failed"] = True
    if result.value is None and old is not None and old.value is not None and old.judge \
            and old.judge.get("inputs_sha256") == sha:          # keep a judged value over "needs a judge"
        report.kept_judged += 1
        report.scored += 1
        counts[0] += 1
        return None
    if result.value is None:
        report.unscored += 1
        counts[1] += 1
        report.unscored_reasons[reason_head(result.explanation)] += 1
        if result.details.get("failed"):
            report.failed_answers += 1
    else:
        report.scored += 1
        counts[0] += 1
    explanation = result.explanation if not result.error else f"{result.explanation} (error: {result.error})"
    return {"scorer_version": result.version, "value": result.value,
            "correct": None if result.correct is None else bool(result.correct), "explanation": explanation,
            "judge": judge_json}


def _stable(judge: Mapping[str, Any] | None) -> Any:
    """The judge record without the parts that change when the same reply comes from the cache."""
    return None if judge is None else {k: v for k, v in judge.items() if k != "from_cache"}


def _sum_or_none(values) -> float | None:
    vals = list(values)
    return None if not vals or any(v is None for v in vals) else sum(vals)


def jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))

