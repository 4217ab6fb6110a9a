"""Scoring without a judge: the deterministic path of ``score_answers``, built for 100,000 answers.

Answers sharing a task (or a copy of its reference) and a text are scored once (``Memo``), a first scoring
takes a column-wise fast path (``score_new``), and the cyclic garbage collector is paused for the call
(``core.garbage_collection.gc_paused``, in the service); benchmarks/bench_scoring.py measures this path.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from fieldstudio.scoring.inputs import AnswerInputs, TaskInputs, eval_func_of, inputs_sha, json_or_none, score_one
from fieldstudio.scoring.scoring_report import ScoringReport, reason_head
from fieldstudio.scoring.scorers import ScoreResult
from fieldstudio.scoring.staleness import FAILED_CALL, ScoreCheck, answer_sha
from fieldstudio.scoring.store import PlainInserts, StoredScore

__all__ = ["MEMO_SIZE", "ResultRow", "Memo", "score_chunk", "score_new", "count_current"]

MEMO_SIZE = 200_000
"""Distinct (task reference, answer text) results remembered by one ``score_answers`` call."""


def _memo_prefix(scorer: str, task: TaskInputs) -> tuple | None:
    """What a FieldWorkArena score depends on besides the answer text: the reference, the eval_func and
    (fwa-paper) the tolerances. None for the other scorers, which read more of the answer (``parsed``)."""
    if scorer not in ("fs-match", "fwa-paper"):
        return None
    return (task.ground_truth, eval_func_of(task), json.dumps(task.tolerances, sort_keys=True)
            if scorer == "fwa-paper" and task.tolerances else None)


class ResultRow(NamedTuple):
    """One deterministic result as the scoring writes and counts it: the score row's columns
    (``scorer_version`` to ``judge``, in ``ScoreWriter.write``'s order), whether it holds a value, the head
    of its unscored reason (None when scored) and whether the model call had failed."""

    scorer_version: str
    value: float | None
    correct: bool | None
    explanation: str
    judge: dict | None
    scored: bool
    reason: str | None
    failed: bool


def _row_of(result: ScoreResult) -> ResultRow:
    """The ResultRow of a scorer's result."""
    explanation = result.explanation if not result.error else f"{result.explanation} (error: {result.error})"
    return ResultRow(result.version, result.value, None if result.correct is None else bool(result.correct),
                     explanation, None, result.value is not None,
                     None if result.value is not None else reason_head(result.explanation),
                     result.value is None and bool(result.details.get("failed")))


class Memo:
    """Deterministic results of one ``score_answers`` call, on two levels: (task id, answer text, error)
    -> row, filled from (task's memo prefix, answer text, error) -> row, so an answer repeated for one task,
    or the same answer to copies of one task (same reference, eval_func and tolerances), is scored once.
    Only FieldWorkArena scorers are memoised (the others read ``Answer.parsed`` too); at most MEMO_SIZE
    entries per level."""

    def __init__(self) -> None:
        self.by_task: dict[tuple, ResultRow] = {}
        self.by_reference: dict[tuple, ResultRow] = {}
        self.prefixes: dict[str, tuple | None] = {}     # task id -> its memo prefix (None: no memo)

    def row(self, scorer: str, answer: tuple, tasks: Mapping[str, TaskInputs],
            params: Mapping[str, Any]) -> ResultRow:
        """The ResultRow of one raw answer tuple (id, run_id, task_id, raw_text, parsed, error)."""
        aid, run_id, task_id, raw_text, parsed, error = answer
        row = self.by_task.get((task_id, raw_text, error))
        if row is not None:
            return row
        prefix = self.prefixes.get(task_id, ())
        if prefix == ():
            prefix = self.prefixes[task_id] = _memo_prefix(scorer, tasks[task_id])
        if prefix is None:
            return _row_of(score_one(scorer, tasks[task_id], AnswerInputs(aid, run_id, task_id, raw_text,
                                                                          json_or_none(parsed), error), params=params))
        key = (prefix, raw_text, error)
        row = self.by_reference.get(key)
        if row is None:
            row = _row_of(score_one(scorer, tasks[task_id], AnswerInputs(aid, run_id, task_id, raw_text,
                                                                         json_or_none(parsed), error), params=params))
            if len(self.by_reference) < MEMO_SIZE:
                self.by_reference[key] = row
        if len(self.by_task) < MEMO_SIZE:
            self.by_task[(task_id, raw_text, error)] = row
        return row


def count_current(old: StoredScore, counts: list[int], report: ScoringReport) -> None:
    """Count a row that stands (``ScoreCheck.stands``) as the scoring would have counted it."""
    report.current += 1
    if old.author is not None:
        report.kept_overrides += 1
    elif old.value is not None:
        report.scored += 1
        counts[0] += 1
    else:
        report.unscored += 1
        counts[1] += 1
        report.unscored_reasons[reason_head(old.explanation or "")] += 1
        report.failed_answers += (old.explanation or "").startswith(FAILED_CALL)


def score_chunk(scorer: str, chunk: Sequence[tuple], tasks: Mapping[str, TaskInputs],
                in_force: Mapping[str, StoredScore], params: Mapping[str, Any], memo: Memo,
                report: ScoringReport, check: ScoreCheck, stored_shas: Sequence[str | None] | None = None
                ) -> tuple[list[tuple] | PlainInserts, list[tuple]]:
    """Deterministic scoring of raw answer tuples: (inserts, updates) in ``ScoreWriter.write``'s shape.

    ``stored_shas``: each answer's ``answer.content_sha256`` as stored (None where it is not kept), in the
    chunk's order; an answer without one (or every answer, when not given) is hashed here (``answer_sha``).

    Answers without a score row in force (a first scoring) take a fast path: the memo is looked up for all
    of them at C speed (``map`` over key tuples) and only the misses are scored; the counts come from one
    ``Counter`` pass. Answers with a row in force go one by one: a row that stands (``check.stands``: it
    judged this answer, this ground truth and this scorer) is not scored again (``report.current``); a stale
    one is (``report.stale``), a person's stale verdict by a new row beside it (its history stays); judged
    values are kept over "needs a judge", unchanged rows not rewritten."""
    if not chunk:
        return [], []
    olds = list(map(in_force.get, (a[0] for a in chunk))) if in_force else None
    shas = _answer_shas(chunk, stored_shas)
    if olds is None or olds.count(None) == len(olds):
        return score_new(scorer, chunk, tasks, params, memo, report, check, shas), []
    inserts: list[tuple] = []
    updates: list[tuple] = []
    reasons = report.unscored_reasons
    scored = unscored = failed = 0
    version, scorer_now, truth = check.version, check.scorer_now, check.truth
    for answer, old, a_sha in zip(chunk, olds, shas):
        aid, run_id, task_id, raw_text, parsed, error = answer
        counts = report.per_run.setdefault(run_id, [0, 0])
        task = tasks[task_id]
        if old is not None:
            # the common case first, without building a reason: a machine row that judged all three as now
            if (old.author is None and old.answer_sha256 == a_sha and old.scorer_sha256 == scorer_now
                    and old.scorer_version == version and old.truth_sha256 == truth(task)[0]) \
                    or check.stands(old, a_sha, task):
                count_current(old, counts, report)
                continue
            report.stale += check.reason(old, a_sha, task) is not None
            if old.author is not None:
                old = None                       # a person's stale verdict: a new row, newer, takes over
        t_sha, reference = check.truth(task)
        row = memo.row(scorer, answer, tasks, params)
        if not row.scored and old is not None and old.value is not None and old.judge:
            inputs = AnswerInputs(aid, run_id, task_id, raw_text, json_or_none(parsed), error)
            if old.judge.get("inputs_sha256") == inputs_sha(scorer, task, inputs, params):
                report.kept_judged += 1          # keep a judged value over "needs a judge"
                scored += 1
                counts[0] += 1
                continue
        if row.scored:
            scored += 1
            counts[0] += 1
        else:
            unscored += 1
            counts[1] += 1
            reasons[row.reason] += 1
            failed += row.failed
        if old is None:
            inserts.append((aid, row.scorer_version, row.value, row.correct, row.explanation, None, a_sha, t_sha,
                            reference))
        elif (old.scorer_version, old.value, old.correct, old.explanation, old.judge, old.answer_sha256,
              old.truth_sha256, old.judged_truth, old.scorer_sha256) != (*row[:5], a_sha, t_sha, reference,
                                                                          check.scorer_now):
            updates.append((old.id, row.scorer_version, row.value, row.correct, row.explanation, None, a_sha, t_sha,
                            reference))
    report.scored += scored
    report.unscored += unscored
    report.failed_answers += failed
    return inserts, updates


def _answer_shas(chunk: Sequence[tuple], stored: Sequence[str | None] | None) -> list[str]:
    """``answer_sha`` of each raw answer tuple of ``chunk``: the stored hash where there is one (the same
    function made it when the answer was written, ``store.content_hashes``), else computed."""
    if stored is None:
        return [answer_sha(*a[3:6]) for a in chunk]
    shas = list(stored)
    if None in shas:
        for i, sha in enumerate(shas):
            if sha is None:
                shas[i] = answer_sha(*chunk[i][3:6])
    return shas


def score_new(scorer: str, chunk: Sequence[tuple], tasks: Mapping[str, TaskInputs], params: Mapping[str, Any],
              memo: Memo, report: ScoringReport, check: ScoreCheck,
              answer_shas: Sequence[str] | None = None) -> PlainInserts:
    """``score_chunk`` for answers without a score row: every one becomes an insert (columns, in the
    chunk's answer-id order). ``answer_shas``: each answer's ``answer_sha`` (computed here when None)."""
    aids, run_ids, task_ids, texts, parsed, errors = zip(*chunk)     # columns; every pass below runs in C
    if answer_shas is None:
        answer_shas = list(map(answer_sha, texts, parsed, errors))
    truth_of = {t: check.truth(tasks[t]) for t in set(task_ids)}          # once per task, then C lookups
    truth_shas, references = zip(*map(truth_of.__getitem__, task_ids))
    rows = list(map(memo.by_task.get, zip(task_ids, texts, errors)))
    if None in rows:
        for i, row in enumerate(rows):
            if row is None:
                rows[i] = memo.row(scorer, chunk[i], tasks, params)
    versions, values, correct, explanations, _, flags, reasons, failed = zip(*rows)   # ResultRow's fields
    n_scored = flags.count(True)
    scored_by_run = Counter(itertools.compress(run_ids, flags)) if n_scored else {}
    for run_id, n in Counter(run_ids).items():
        counts = report.per_run.setdefault(run_id, [0, 0])
        ok = scored_by_run.get(run_id, 0)
        counts[0] += ok
        counts[1] += n - ok
    report.scored += n_scored
    report.unscored += len(rows) - n_scored
    if n_scored < len(rows):
        counted = Counter(reasons)
        counted.pop(None, None)                  # scored rows have no reason
        report.unscored_reasons.update(counted)
        report.failed_answers += sum(failed)     # only unscored rows can be failed calls
    return PlainInserts(aids, versions, values, correct, explanations, answer_shas, truth_shas, references)
