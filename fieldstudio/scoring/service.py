"""Scoring answers stored in a project: the one service behind ``fieldstudio score`` and the GUI's Score button.

``score_answers`` runs one named, versioned scorer from :data:`fieldstudio.scoring.scorers.REGISTRY` over the
answers of some runs (all runs by default) and writes one ``Score`` row per answer, in one short write
transaction per batch. ``override_score`` records a person's correction as a new row chained to the one it
replaces (``Score.overrides_id``) with a reason; ``current_scores`` returns the value in force for every
(answer, scorer); ``score_history`` walks a chain.

Rules (DESIGN.md "Scoring", benchmarks.md §1.4-§4.2, §5 pitfalls 4, 6, 14, 18):

* Without a judge only what the deterministic matchers decide is scored; every other answer gets a row
  with ``value`` None and an explanation saying why ("needs a judge: ..."), never a guess.
* An answer whose model call failed (``Answer.error`` set and no text) is stored unscored with the error,
  and counted in ``ScoringReport.failed_answers``: a failed request says nothing about the model.
* Scoring again recomputes every answer. A row a person set (``author`` not None) is never touched. A
  judged value is not replaced by an unscored result from a run without a judge when the answer and the
  reference are unchanged (``judge["inputs_sha256"]``). Unchanged rows are not rewritten.
* The judge (an optional model profile) is asked through fieldstudio's own prompt templates
  (``scoring.scorers.judge``); each reply is cached in ``ResponseCache`` under a hash of the judge's model,
  endpoint, temperature, seed, token limit and prompt, so scoring again costs nothing. ``Score.judge``
  holds the judge model, its parameters, the raw reply text, the tokens and the cost in USD; never a key.
* Per-task inputs: ``Task.eval_func`` (else derived from ``answer_type``), ``Task.tolerances`` for
  fwa-paper (``alpha``, ``r_th``, ``T_th``; the ``params`` argument wins), ``ground_truth_extra``
  (``extra_answers`` for llm-match, ``reasoning_answer`` for eqa-reasoning, ``fields`` for documentation),
  ``Task.extra["reasoning_status"]``; per answer, ``Answer.parsed`` (``direct_answer``,
  ``reasoning_answer``, ``verdict``, ``fields``) else ``Answer.raw_text``.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import itertools
import json
import math
import operator
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pandas as pd
from sqlalchemy import select

from fieldstudio.core import matchers
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.scoring.scorers import REGISTRY, ScoreResult, acceptability, documentation, fwa_official
from fieldstudio.scoring.scorers import get as get_scorer
from fieldstudio.scoring.scorers import unscored
from fieldstudio.scoring.judging import JUDGE_MAX_TOKENS, JudgeCaller, load_judge
from fieldstudio.scoring.store import (PlainInserts, ScoreWriter, StoredScore, heads, in_list, raw_rows,
                                              score_rows, stamp_reader)
from fieldstudio.store.models import Answer, Run, Score, Task, utcnow
from fieldstudio.store.project import Project

__all__ = ["ScoringError", "ScoringReport", "score_answers", "score_one", "override_score", "current_scores",
           "score_history", "promote_answer_to_ground_truth", "JudgeCaller", "DETERMINISTIC_BATCH", "JUDGE_BATCH",
           "JUDGE_MAX_TOKENS", "resolve_runs", "scorer_description", "eval_func_of", "check_params", "SCORER_PARAMS"]

DETERMINISTIC_BATCH = 10_000
"""Answers scored per write transaction without a judge."""
JUDGE_BATCH = 20
"""Answers scored per write transaction with a judge (each may wait for a model call)."""
MEMO_SIZE = 200_000
"""Distinct (task reference, answer text) results remembered by one ``score_answers`` call."""

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
_UNIT_SCALE = {"fwa-official", "fwa-paper", "acceptability", "documentation"}


class ScoringError(FieldstudioError):
    """Scoring cannot start or go on (unknown scorer, no such run, judge unusable); nothing half-written."""


@dataclass
class ScoringReport:
    """What ``score_answers`` did.

    ``answers``: answers considered; ``scored``: rows with a value; ``unscored``: rows without (reasons
    counted in ``unscored_reasons``, shortened to their first clause); ``failed_answers``: answers whose
    model call failed; ``kept_overrides``: answers left alone because a person set their score;
    ``kept_judged``: judged values kept by a run without a judge; ``written``: rows inserted or updated;
    ``judge_calls`` / ``judge_cache_hits``: model requests made / answered from the cache;
    ``judge_cost_usd``: cost of the requests made (None when unknown for any of them, see
    ``judge_cost_complete``); ``per_run``: run id -> (scored, unscored).
    """

    scorer: str
    version: str
    answers: int = 0
    scored: int = 0
    unscored: int = 0
    failed_answers: int = 0
    kept_overrides: int = 0
    kept_judged: int = 0
    written: int = 0
    judge: str | None = None
    judge_calls: int = 0
    judge_cache_hits: int = 0
    judge_cost_usd: float | None = None
    judge_cost_complete: bool = True
    cancelled: bool = False
    unscored_reasons: Counter = field(default_factory=Counter)
    per_run: dict[str, list[int]] = field(default_factory=dict)


# ---------------------------------------------------------------- inputs of one answer
class TaskInputs(NamedTuple):
    """The task columns a scorer reads."""

    id: str
    external_id: str | None
    source: str
    query: str
    answer_type: str
    ground_truth: str | None
    ground_truth_extra: dict | None
    eval_func: str | None
    tolerances: dict | None
    extra: dict | None


class AnswerInputs(NamedTuple):
    """The answer columns a scorer reads."""

    id: str
    run_id: str
    task_id: str
    raw_text: str | None
    parsed: dict | None
    error: str | None


_TYPE_EVAL = {"json_report": "json_match", "distance": "numerical_match", "time": "numerical_match",
              "time_range": "numerical_match", "count": "numerical_match"}


def eval_func_of(task: TaskInputs) -> str:
    """The task's FieldWorkArena ``eval_func``, or one derived from its answer type (fuzzy_match otherwise)."""
    if task.eval_func in fwa_official.EVAL_FUNCS:
        return task.eval_func
    return _TYPE_EVAL.get(task.answer_type, "fuzzy_match")


def _fwa_paper_params(task: TaskInputs, params: Mapping[str, Any]) -> dict[str, float]:
    tol = task.tolerances or {}
    out = {"alpha": tol.get("alpha", 0.5), "r_th": tol.get("r_th", 0.5), "t_th": tol.get("T_th", tol.get("t_th", 60.0)),
           "partial_credit": tol.get("partial_credit", 0.5)}
    for key in ("alpha", "r_th", "partial_credit"):
        if key in params:
            out[key] = params[key]
    if "T_th" in params or "t_th" in params:
        out["t_th"] = params.get("T_th", params.get("t_th"))
    return {k: float(v) for k, v in out.items()}


SCORER_PARAMS: dict[str, dict[str, tuple[float, float, bool]]] = {
    "fwa-paper": {"alpha": (0.0, 1.0, True), "partial_credit": (0.0, 1.0, True), "r_th": (0.0, math.inf, False),
                  "T_th": (0.0, math.inf, False), "t_th": (0.0, math.inf, False)},
    "llm-match": {"truncate": (0.0, 1.0, True)},
}
"""Parameters each scorer takes: name -> (low, high, low included); a value must lie in the range."""


def check_params(scorer: str, params: Mapping[str, Any] | None) -> dict[str, float]:
    """The scorer parameters as floats, checked against ``SCORER_PARAMS``.

    Raises ScoringError naming the parameter for a name the scorer does not take, a value that is not a
    finite number, or one outside its range (fwa-paper: alpha and partial_credit in [0, 1], r_th and
    T_th above 0, which the distance and time terms divide by; benchmarks.md §1.5).
    """
    known = SCORER_PARAMS.get(scorer, {})
    out: dict[str, float] = {}
    for name, value in (params or {}).items():
        if name not in known:
            takes = ", ".join(known) if known else "no parameters"
            raise ScoringError(f"{scorer} has no parameter {name!r}; it takes {takes}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ScoringError(f"{scorer} parameter {name}={value!r} is not a number") from None
        low, high, low_ok = known[name]
        if not math.isfinite(number) or number > high or number < low or (number == low and not low_ok):
            bound = f"in {'[' if low_ok else '('}{low:g}, {high:g}]" if math.isfinite(high) else f"above {low:g}"
            raise ScoringError(f"{scorer} parameter {name}={value!r} must be a number {bound}")
        out[name] = number
    return out


def _verdict_of(answer: AnswerInputs) -> Any:
    parsed = answer.parsed or {}
    if parsed.get("verdict") is not None:
        return parsed["verdict"]
    text = (answer.raw_text or "").strip()
    if acceptability.normalise_verdict(text) is not None:
        return text
    first = re.match(r"\W*([A-Za-z]+)", text)                       # "Accept. The tape is visible ..."
    return first.group(1) if first else None


def _documentation_fields(task: TaskInputs, answer: AnswerInputs) -> dict[str, tuple[str, Any, Any]] | str:
    ref = (task.ground_truth_extra or {}).get("fields")
    if not isinstance(ref, Mapping) or not ref:
        return "the task has no documentation fields (ground_truth_extra['fields'])"
    pred = (answer.parsed or {}).get("fields")
    if not isinstance(pred, Mapping):
        obj = matchers.extract_json(answer.raw_text or "")
        pred = obj.get("fields", obj) if isinstance(obj, Mapping) else None
    if not isinstance(pred, Mapping):
        return "no documentation fields found in the answer (a JSON object of field: value)"
    kinds = (task.ground_truth_extra or {}).get("kinds") or {}
    out: dict[str, tuple[str, Any, Any]] = {}
    for name, spec in ref.items():
        value, kind = (spec.get("value"), spec.get("kind")) if isinstance(spec, Mapping) else (spec, None)
        kind = kind or kinds.get(name) or ("table" if isinstance(value, list) else
                                          name if name in documentation.TOLERANCES else "text")
        out[name] = (kind, pred.get(name), value)
    return out


def score_one(scorer: str, task: TaskInputs, answer: AnswerInputs, *, judge: Callable[[str], str] | None = None,
              params: Mapping[str, Any] | None = None) -> ScoreResult:
    """Score one answer of one task with the named scorer (no database access).

    Args:
        scorer: a name in ``REGISTRY``.
        task, answer: the columns the scorers read (see the module docstring for which fields are used).
        judge: ``ask(prompt) -> reply`` or None for the deterministic matchers only.
        params: scorer parameters (fwa-paper: alpha, r_th, T_th, partial_credit; llm-match: truncate).
    Returns:
        The scorer's ScoreResult (value None when it cannot decide, with the reason).
    Raises:
        KeyError for an unknown scorer name.
    """
    info = get_scorer(scorer)
    params = params or {}
    if answer.error and not (answer.raw_text or "").strip():
        return unscored(info.name, info.version, f"no answer: the model call failed ({answer.error})", failed=True)
    reference = task.ground_truth
    text = answer.raw_text
    parsed = answer.parsed or {}
    gt_extra = task.ground_truth_extra or {}
    if scorer in ("fwa-official", "fwa-paper"):
        if reference is None:
            return unscored(info.name, info.version, "the task has no ground truth")
        kwargs = _fwa_paper_params(task, params) if scorer == "fwa-paper" else {}
        return info.function(reference, text, eval_func_of(task), question=task.query, judge=judge, **kwargs)
    if scorer == "llm-match":
        if reference is None:
            return unscored(info.name, info.version, "the task has no ground truth")
        return info.function(task.query, reference, text, gt_extra.get("extra_answers"), judge=judge,
                             truncate=bool(params.get("truncate", True)))
    if scorer == "eqa-direct":
        if reference is None:
            return unscored(info.name, info.version, "the task has no ground truth")
        return info.function(task.query, reference, parsed.get("direct_answer") or text or "", judge=judge)
    if scorer == "eqa-reasoning":
        if reference is None or gt_extra.get("reasoning_answer") is None:
            return unscored(info.name, info.version, "the task has no reference reasoning answer")
        status = (task.extra or {}).get("reasoning_status")
        return info.function(task.query, reference, gt_extra["reasoning_answer"], parsed.get("direct_answer") or text or "",
                             parsed.get("reasoning_answer") or "", "" if status is None else str(status), judge=judge)
    if scorer == "acceptability":
        return info.function(_verdict_of(answer), gt_extra.get("verdict", reference))
    if scorer == "documentation":
        fields = _documentation_fields(task, answer)
        if isinstance(fields, str):
            return unscored(info.name, info.version, fields)
        return info.function(fields)
    return unscored(info.name, info.version, f"scorer {scorer!r} has no input mapping in the scoring service")


def _inputs_sha(scorer: str, task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> str:
    payload = [scorer, task.query, task.ground_truth, task.ground_truth_extra, task.eval_func, task.answer_type,
               task.tolerances, answer.raw_text, answer.parsed, dict(params)]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- runs and existing rows
def resolve_runs(project: Project, runs: Sequence[str] | None) -> list[str] | None:
    """Run ids from ids, unique id prefixes (at least 4 characters) or run names; None means every run.

    Raises NotFound naming the first reference that matches no run, ScoringError when one is ambiguous.
    """
    if not runs:
        return None
    with project.read() as s:
        rows = s.execute(select(Run.id, Run.name)).all()
    out: list[str] = []
    for ref in runs:
        hits = [r.id for r in rows if r.id == ref] or [r.id for r in rows if r.name == ref] or \
               ([r.id for r in rows if r.id.startswith(ref)] if len(ref) >= 4 else [])
        if not hits:
            raise NotFound(f"no run {ref!r} in {project.path.name}; runs: "
                           + (", ".join(f"{r.name} ({r.id[:8]})" for r in rows) or "none"))
        if len(hits) > 1:
            raise ScoringError(f"run {ref!r} is ambiguous: it names {len(hits)} runs; use the run id")
        out.extend(h for h in hits if h not in out)
    return out


def _read_inputs(project: Project, ids: Sequence[str] | None, scorer: str
                 ) -> tuple[list[tuple], dict[str, TaskInputs], dict[str, StoredScore]]:
    """(answers, tasks, in_force): the answers as raw tuples (id, run_id, task_id, raw_text, parsed JSON
    text, error) sorted by answer id, every task's inputs by id, and the score row in force per answer
    id. Raw SQL without joins: on 100,000 answers the ORM's row processing and the joins' random lookups
    cost more than the scoring. Answer-id order makes each batch of score rows a narrow range of the
    ``score.answer_id`` index and of the answer table's key (the foreign key check), so a batch's commit
    writes few pages; runs are mixed across batches (a cancelled scoring leaves part of every run)."""
    clause, params = in_list("run_id", ids)
    with project.read() as s:
        answers = raw_rows(s, "SELECT id, run_id, task_id, raw_text, parsed, error FROM answer WHERE 1" + clause,
                           params)
        answers.sort(key=operator.itemgetter(0))            # by answer id: see _read_inputs' docstring
        tasks = {}
        for r in raw_rows(s, "SELECT id, external_id, source, query, answer_type, ground_truth, "
                             "ground_truth_extra, eval_func, tolerances, extra FROM task"):
            tasks[r[0]] = TaskInputs(*r[:6], _json(r[6]), r[7], _json(r[8]), _json(r[9]))
        rows = score_rows(s, scorer, None, with_answers=False)
    if ids is not None and rows:
        wanted = {a[0] for a in answers}
        rows = [r for r in rows if r.answer_id in wanted]
    return answers, tasks, {k[0]: v for k, v in heads(rows).items()}


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


# ---------------------------------------------------------------- the service
def score_answers(project: Project, scorer_name: str, run_ids: Sequence[str] | None = None,
                  judge_profile: Any = None, *, params: Mapping[str, Any] | None = None,
                  progress: Progress = lambda done, total: None, cancelled: Cancelled = lambda: False,
                  chat: Callable[..., Any] | None = None) -> ScoringReport:
    """Score every answer of the given runs (all runs when None) with one scorer and store the scores.

    Args:
        project: an open, writable project.
        scorer_name: a name in ``fieldstudio.scoring.scorers.REGISTRY`` (e.g. "fwa-official").
        run_ids: run ids, names or id prefixes (see ``resolve_runs``); None for every run.
        judge_profile: a ``ModelProfile``, a profile name, or None for deterministic matchers only.
        params: scorer parameters (fwa-paper: alpha, r_th, T_th, partial_credit; llm-match: truncate).
        progress: ``progress(done, total)`` in answers, after every batch (every answer with a judge).
        cancelled: checked before every batch (every answer with a judge); batches already written stay.
        chat: replaces ``inference.client.chat`` (tests).
    Returns:
        ScoringReport with the counts, unscored reasons and judge calls and cost.
    Raises:
        ScoringError for an unknown scorer; NotFound for an unknown run; ProfileError for an unknown
        judge profile; the judge's ModelCallError when the judge cannot be used at all (bad key, unknown
        model): the batches scored before it are kept.

    Speed (benchmarks/bench_scoring.py): inputs are read with raw SQL, answers sharing a task and a text
    are scored once (FieldWorkArena scorers, which read nothing else) and the per-answer bookkeeping runs
    in C (``_score_new``), new ids (UUID7, ascending) come from one random draw per batch, and rows are
    written in answer-id order with executemany over one held connection (``ScoreWriter``). Without a
    judge, Python's cyclic garbage collector is paused for the call (``_gc_paused``).
    """
    try:
        info = get_scorer(scorer_name)
    except KeyError as exc:
        raise ScoringError(str(exc.args[0])) from None
    params = check_params(info.name, params)
    ids = resolve_runs(project, run_ids)
    judge = load_judge(project, judge_profile, chat)
    report = ScoringReport(info.name, info.version, judge=None if judge is None else judge.profile.name)
    with _gc_paused() if judge is None else contextlib.nullcontext():
        # what the scoring allocates is local to _score_all and freed when it returns, with the collector
        # still paused: its first pass after the pause would otherwise walk every answer tuple read
        _score_all(project, info.name, ids, judge, params, report, progress, cancelled)
    if judge is not None:
        _finish_judge(report, judge)
    report.per_run = dict(sorted(report.per_run.items()))
    return report


def _score_all(project: Project, scorer: str, ids: Sequence[str] | None, judge: JudgeCaller | None,
               params: Mapping[str, Any], report: ScoringReport, progress: Progress, cancelled: Cancelled) -> None:
    """The body of ``score_answers``: read the inputs, score and write batch by batch into ``report``."""
    answers, tasks, in_force = _read_inputs(project, ids, scorer)
    report.answers = total = len(answers)
    progress(0, total)
    batch = JUDGE_BATCH if judge is not None else DETERMINISTIC_BATCH
    memo = _Memo()
    with ScoreWriter(project) as writer:
        for start in range(0, total, batch):
            if cancelled():
                report.cancelled = True
                break
            now = utcnow()
            chunk = answers[start:start + batch]
            if judge is None:
                inserts, updates = _score_chunk(scorer, chunk, tasks, in_force, params, memo, report)
                pending: dict[str, Any] = {}
            else:
                inserts, updates = _judge_chunk(scorer, chunk, tasks, in_force, judge, params, report,
                                                cancelled, lambda i, s=start: progress(s + i + 1, total))
                pending = judge.take_pending()
            writer.write(scorer, now, inserts, updates, pending)
            report.written += len(inserts) + len(updates)
            if judge is not None and judge.fatal is not None:
                _finish_judge(report, judge)
                raise judge.fatal
            progress(min(start + len(chunk), total), total)
            if report.cancelled:
                break


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (``gc.disable``) for a block, restoring its state after.

    Reading 100,000 answer tuples and building as many score rows allocates hundreds of thousands of
    container objects, each a candidate for the collector: it ran ~900 times and took a quarter of the
    deterministic scoring time (0.5-0.9 s of 2.5 s on 100,000 answers, benchmarks/bench_scoring.py)
    while finding almost nothing to free, since those rows hold no reference cycles. Reference counting
    still frees everything as usual; only cycles wait for the collector, which runs again after the block.
    What is still alive when the block ends is walked by the collector's first pass after it (every object
    allocated meanwhile is in its youngest generation), so ``score_answers`` frees the answers before.
    Used only without a judge: a judged scoring can last minutes. The collector's switch is global to the
    process (Python documents no per-thread one), so another thread's cycles also wait for the block.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _memo_prefix(scorer: str, task: TaskInputs) -> tuple | None:
    """What a FieldWorkArena score depends on besides the answer text: the reference, the eval_func and
    (fwa-paper) the tolerances. None for the other scorers, which read more of the answer (``parsed``)."""
    if scorer not in ("fwa-official", "fwa-paper"):
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
                     None if result.value is not None else _reason_head(result.explanation),
                     result.value is None and bool(result.details.get("failed")))


class _Memo:
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
                                                                          _json(parsed), error), params=params))
        key = (prefix, raw_text, error)
        row = self.by_reference.get(key)
        if row is None:
            row = _row_of(score_one(scorer, tasks[task_id], AnswerInputs(aid, run_id, task_id, raw_text,
                                                                         _json(parsed), error), params=params))
            if len(self.by_reference) < MEMO_SIZE:
                self.by_reference[key] = row
        if len(self.by_task) < MEMO_SIZE:
            self.by_task[(task_id, raw_text, error)] = row
        return row


def _score_chunk(scorer: str, chunk: Sequence[tuple], tasks: Mapping[str, TaskInputs],
                 in_force: Mapping[str, StoredScore], params: Mapping[str, Any], memo: _Memo,
                 report: ScoringReport) -> tuple[list[tuple] | PlainInserts, list[tuple]]:
    """Deterministic scoring of raw answer tuples: (inserts, updates) in ``ScoreWriter.write``'s shape.

    Answers without a score row in force (a first scoring) take a fast path: the memo is looked up for all
    of them at C speed (``map`` over key tuples) and only the misses are scored; the counts come from one
    ``Counter`` pass. Answers with a row in force go one by one (overrides kept, judged values kept,
    unchanged rows not rewritten)."""
    if not chunk:
        return [], []
    olds = list(map(in_force.get, (a[0] for a in chunk))) if in_force else None
    if olds is None or olds.count(None) == len(olds):
        return _score_new(scorer, chunk, tasks, params, memo, report), []
    inserts: list[tuple] = []
    updates: list[tuple] = []
    reasons = report.unscored_reasons
    scored = unscored = failed = kept = 0
    for answer, old in zip(chunk, olds):
        aid, run_id, task_id, raw_text, parsed, error = answer
        counts = report.per_run.setdefault(run_id, [0, 0])
        if old is not None and old.author is not None:
            kept += 1
            continue
        row = memo.row(scorer, answer, tasks, params)
        if not row.scored and old is not None and old.value is not None and old.judge:
            inputs = AnswerInputs(aid, run_id, task_id, raw_text, _json(parsed), error)
            if old.judge.get("inputs_sha256") == _inputs_sha(scorer, tasks[task_id], inputs, params):
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
            inserts.append((aid, row.scorer_version, row.value, row.correct, row.explanation, None))
        elif (old.scorer_version, old.value, old.correct, old.explanation, old.judge) != row[:5]:  # the columns
            updates.append((old.id, row.scorer_version, row.value, row.correct, row.explanation, None))
    report.scored += scored
    report.unscored += unscored
    report.failed_answers += failed
    report.kept_overrides += kept
    return inserts, updates


def _score_new(scorer: str, chunk: Sequence[tuple], tasks: Mapping[str, TaskInputs], params: Mapping[str, Any],
               memo: _Memo, report: ScoringReport) -> PlainInserts:
    """``_score_chunk`` for answers without a score row: every one becomes an insert (columns, in the
    chunk's answer-id order)."""
    aids, run_ids, task_ids, texts, _, errors = zip(*chunk)          # columns; every pass below runs in C
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
    return PlainInserts(aids, versions, values, correct, explanations)


def _judge_chunk(scorer: str, chunk: Sequence[tuple], tasks: Mapping[str, TaskInputs],
                 in_force: Mapping[str, StoredScore], judge: JudgeCaller, params: Mapping[str, Any],
                 report: ScoringReport, cancelled: Cancelled, done: Callable[[int], None]
                 ) -> tuple[list[tuple], list[tuple]]:
    """Scoring with a judge, one answer at a time (each may wait for a model call)."""
    inserts: list[tuple] = []
    updates: list[tuple] = []
    for i, (aid, run_id, task_id, raw_text, parsed, error) in enumerate(chunk):
        if i and cancelled():
            report.cancelled = True
            break
        answer = AnswerInputs(aid, run_id, task_id, raw_text, _json(parsed), error)
        row = _score_answer(scorer, tasks[task_id], answer, in_force, judge, params, report)
        if judge.fatal is not None:
            break
        if row is not None:
            old = in_force.get(aid)
            values = (row["scorer_version"], row["value"], row["correct"], row["explanation"], row["judge"])
            if old is None:
                inserts.append((aid, *values))
            elif (old.scorer_version, old.value, old.correct, old.explanation, _stable(old.judge)) != (
                    *values[:4], _stable(values[4])):
                updates.append((old.id, *values))
        done(i)
    return inserts, updates


def _finish_judge(report: ScoringReport, judge: JudgeCaller) -> None:
    report.judge_calls = judge.requests
    report.judge_cache_hits = judge.cache_hits
    report.judge_cost_complete = judge.cost_complete
    report.judge_cost_usd = judge.cost_usd if judge.cost_complete else None


def _score_answer(scorer: str, task: TaskInputs, answer: AnswerInputs, in_force: Mapping[str, StoredScore],
                  judge: JudgeCaller, params: Mapping[str, Any], report: ScoringReport) -> dict[str, Any] | None:
    """The column values of the answer's new or updated score row (scored with the judge), or None when the
    row in force stays."""
    counts = report.per_run.setdefault(answer.run_id, [0, 0])
    old = in_force.get(answer.id)
    if old is not None and old.author is not None:
        report.kept_overrides += 1
        return None
    sha = _inputs_sha(scorer, task, answer, params)
    judge.begin_answer()
    result = score_one(scorer, task, answer, judge=judge, params=params)
    calls = judge.calls
    judge_json = None
    if calls or result.judge_raw is not None:
        costs = [c.get("cost_usd") for c in calls]
        judge_json = {**judge.params, "raw": result.judge_raw if result.judge_raw is not None else
                      (calls[-1].get("text") if calls else None),
                      "calls": len(calls), "from_cache": bool(calls) and all(c["from_cache"] for c in calls),
                      "prompt_tokens": _sum_or_none(c.get("prompt_tokens") for c in calls),
                      "completion_tokens": _sum_or_none(c.get("completion_tokens") for c in calls),
                      "cost_usd": _sum_or_none(costs), "inputs_sha256": sha,
                      "details": _jsonable(result.details)}
        if result.error:
            judge_json["error"] = result.error
    if result.value is None and old is not None and old.value is not None and old.judge \
            and old.judge.get("inputs_sha256") == sha:          # keep a judged value over "needs a judge"
        report.kept_judged += 1
        report.scored += 1
        counts[0] += 1
        return None
    if result.value is None:
        report.unscored += 1
        counts[1] += 1
        report.unscored_reasons[_reason_head(result.explanation)] += 1
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


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


@functools.lru_cache(maxsize=4096)
def _reason_head(text: str) -> str:
    return re.split(r"[:;(]", text or "unscored", maxsplit=1)[0].strip() or "unscored"


# ---------------------------------------------------------------- reading and overriding
def current_scores(project: Project, scorer: str | None = None, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """The score in force for every (answer, scorer): one row each.

    Columns: score_id, answer_id, run_id, task_id, scorer, scorer_version, value (float, NaN when unscored),
    correct (object: True/False/None), explanation, author and reason (set on a person's override),
    overridden (True when a person set the value), judge_raw, judge_cost_usd, created_at.
    ``run_ids`` accepts ids, names or prefixes (``resolve_runs``).
    """
    ids = resolve_runs(project, run_ids)
    with project.read() as s:
        in_force = heads(score_rows(s, scorer, ids))
        to_stamp = stamp_reader(s)
    cols = ["score_id", "answer_id", "run_id", "task_id", "scorer", "scorer_version", "value", "correct",
            "explanation", "author", "reason", "overridden", "judge_raw", "judge_cost_usd", "created_at"]
    records = [(r.id, r.answer_id, r.run_id, r.task_id, r.scorer, r.scorer_version,
                float("nan") if r.value is None else float(r.value), r.correct, r.explanation, r.author, r.reason,
                r.author is not None, (r.judge or {}).get("raw"), (r.judge or {}).get("cost_usd"),
                to_stamp(r.created_at)) for r in in_force.values()]
    df = pd.DataFrame.from_records(records, columns=cols)
    df["value"] = df["value"].astype(float)
    df["correct"] = df["correct"].astype(object)
    return df.sort_values(["scorer", "run_id", "task_id"], kind="stable").reset_index(drop=True)


def override_score(project: Project, score_id: str, value: float | None, reason: str, who: str) -> str:
    """A person sets the score of an answer: a new ``Score`` row overriding ``score_id``; returns its id.

    The replaced row stays (history); the new row has ``author = who``, ``reason``, ``overrides_id =
    score_id`` and the same scorer name and version. ``correct`` is ``value > 0.5`` for scorers that
    have that threshold (FieldWorkArena, acceptability), otherwise None. ``value`` None marks the answer
    as not scorable.

    Raises:
        NotFound: no score ``score_id``.
        ScoringError: empty reason or name, a value that is not a finite number (or outside 0-1 for the
            scorers on that scale), or a score that was already overridden (override the newer row).
    """
    reason, who = (reason or "").strip(), (who or "").strip()
    if not reason:
        raise ScoringError("an override needs a reason")
    if not who:
        raise ScoringError("an override needs the name of the person who sets it")
    if value is not None:
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ScoringError(f"score {value!r} is not a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ScoringError(f"score {value!r} is not a finite number")
    with project.write() as s:
        old = s.get(Score, score_id)
        if old is None:
            raise NotFound(f"no score {score_id!r} in {project.path.name}")
        newer = s.execute(select(Score.id).where(Score.overrides_id == score_id)).scalars().first()
        if newer is not None:
            raise ScoringError(f"score {score_id} was already overridden by {newer}; override that one")
        if value is not None and old.scorer in _UNIT_SCALE and not 0.0 <= value <= 1.0:
            raise ScoringError(f"{old.scorer} scores lie between 0 and 1; {value:g} is outside")
        correct = None if value is None or old.scorer not in ("fwa-official", "fwa-paper", "acceptability") \
            else value > 0.5
        row = Score(answer_id=old.answer_id, scorer=old.scorer, scorer_version=old.scorer_version, value=value,
                    correct=correct, explanation=f"set by {who}: {reason}", author=who, reason=reason,
                    overrides_id=old.id)
        s.add(row)
        s.flush()
        return row.id


def score_history(project: Project, score_id: str) -> list[dict[str, Any]]:
    """The chain a score belongs to, oldest first: dicts with id, value, correct, explanation, author,
    reason, overrides_id, created_at, judge_raw. Raises NotFound for an unknown id."""
    with project.read() as s:
        start = s.get(Score, score_id)
        if start is None:
            raise NotFound(f"no score {score_id!r} in {project.path.name}")
        rows = {r.id: r for r in s.scalars(select(Score).where(Score.answer_id == start.answer_id,
                                                                Score.scorer == start.scorer))}
    chain = [start]
    while chain[0].overrides_id and chain[0].overrides_id in rows:
        chain.insert(0, rows[chain[0].overrides_id])
    by_parent = {r.overrides_id: r for r in rows.values() if r.overrides_id}
    while chain[-1].id in by_parent:
        chain.append(by_parent[chain[-1].id])
    return [{"id": r.id, "value": r.value, "correct": r.correct, "explanation": r.explanation, "author": r.author,
             "reason": r.reason, "overrides_id": r.overrides_id, "created_at": r.created_at,
             "judge_raw": (r.judge or {}).get("raw")} for r in chain]


def promote_answer_to_ground_truth(project: Project, answer_id: str, who: str, reason: str = "") -> str:
    """Make an answer's text the ground truth of its task; returns the task id.

    The previous ground truth is kept in ``Task.extra["ground_truth_history"]`` (list of {value, replaced_by,
    answer_id, reason, at}); scores are not recomputed (run ``score_answers`` again). Raises NotFound for an
    unknown answer and ScoringError for an answer without text or an empty ``who``.
    """
    who = (who or "").strip()
    if not who:
        raise ScoringError("promoting an answer needs the name of the person who does it")
    with project.write() as s:
        answer = s.get(Answer, answer_id)
        if answer is None:
            raise NotFound(f"no answer {answer_id!r} in {project.path.name}")
        if not (answer.raw_text or "").strip():
            raise ScoringError(f"answer {answer_id} has no text to promote")
        task = s.get(Task, answer.task_id)
        extra = dict(task.extra or {})
        history = list(extra.get("ground_truth_history") or [])
        history.append({"value": task.ground_truth, "replaced_by": who, "answer_id": answer_id, "reason": reason,
                        "at": utcnow().isoformat()})
        extra["ground_truth_history"] = history
        task.extra = extra
        task.ground_truth = answer.raw_text
        return task.id


def scorer_description(name: str) -> str:
    """'name version: description' for labels in tables, plots and exports."""
    info = REGISTRY.get(name)
    return name if info is None else f"{info.name} {info.version}: {info.description}"
