"""What one answer's score is computed from: the task and answer columns a scorer reads, read from the
project in bulk (``read_inputs``), the check of the scoring parameters against what the scorer declares,
and ``score_one``, which calls the named scorer (each scorer's module maps the columns onto its
function's arguments: ``ScorerInfo.inputs``). See ``scoring.service`` for the rules on which fields are read.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.parameters import ParameterError
from fieldstudio.scoring.scorers import REGISTRY, ScoreResult
from fieldstudio.scoring.scorers import get as get_scorer
from fieldstudio.scoring.scorers.fwa_official import eval_func_of
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, TaskInputs
from fieldstudio.scoring.store import StoredScore, heads, in_list, raw_rows, score_rows, sent_only
from fieldstudio.store.project import Project

__all__ = ["ScoringError", "TaskInputs", "AnswerInputs", "eval_func_of", "check_params", "score_one", "inputs_sha",
           "read_inputs", "read_chunk", "json_or_none"]


class ScoringError(FieldstudioError):
    """Scoring cannot start or go on (unknown scorer, no such run, judge unusable); nothing half-written."""


def check_params(scorer: str, params: Mapping[str, Any] | None) -> dict[str, float]:
    """The scorer parameters as floats, checked against the parameters the scorer declares
    (``ScorerInfo.parameters``).

    Raises ScoringError naming the parameter for a name the scorer does not take, a value that is not a
    finite number, or one outside its range (fwa-paper: alpha and partial_credit in [0, 1], r_th and
    T_th above 0, which the distance and time terms divide by; benchmarks.md §1.5).
    """
    info = REGISTRY.get(scorer)
    known = {p.name: p for p in info.parameters} if info is not None else {}
    out: dict[str, float] = {}
    for name, value in (params or {}).items():
        if name not in known:
            takes = ", ".join(known) if known else "no parameters"
            raise ScoringError(f"{scorer} has no parameter {name!r}; it takes {takes}")
        try:
            out[name] = known[name].check_number(value, scorer)
        except ParameterError as exc:
            raise ScoringError(str(exc)) from None
    return out


def score_one(scorer: str, task: TaskInputs, answer: AnswerInputs, *, judge: Callable[[str], str] | None = None,
              params: Mapping[str, Any] | None = None, source: Any = None) -> ScoreResult:
    """Score one answer of one task with the named scorer (no database access): ``ScorerInfo.score``.

    Args:
        scorer: a name in ``REGISTRY``.
        task, answer: the columns the scorers read (``scoring.service``'s docstring says which fields are used).
        judge: ``ask(prompt) -> reply`` or None for the deterministic matchers only.
        params: scorer parameters (fwa-paper: alpha, r_th, T_th, partial_credit; llm-match: truncate).
        source: the benchmark's own judge files (``scoring.official.source.OfficialSource``) for the
            official scorers; None otherwise.
    Returns:
        The scorer's ScoreResult (value None when it cannot decide, with the reason).
    Raises:
        KeyError for an unknown scorer name.
    """
    return get_scorer(scorer).score(task, answer, params, judge=judge, source=source)


def inputs_sha(scorer: str, task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any],
               source_sha: str | None = None) -> str:
    """SHA-256 of what a judged score depends on (kept in ``Score.judge["inputs_sha256"]``); ``source_sha``
    is the official source's fingerprint for the official scorers (None leaves the hash as before)."""
    payload = [scorer, task.query, task.ground_truth, task.ground_truth_extra, task.eval_func, task.answer_type,
               task.tolerances, answer.raw_text, answer.parsed, dict(params)]
    if source_sha is not None:
        payload.append(source_sha)
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode("utf-8")).hexdigest()



_TASK_SQL = ("SELECT id, external_id, source, query, answer_type, ground_truth, ground_truth_extra, eval_func, "
             "tolerances, extra FROM task")


def _task_inputs(r: tuple) -> TaskInputs:
    """The TaskInputs of a row of ``_TASK_SQL``."""
    return TaskInputs(*r[:6], json_or_none(r[6]), r[7], json_or_none(r[8]), json_or_none(r[9]))


def read_inputs(project: Project, ids: Sequence[str] | None, scorer: str
                ) -> tuple[list[tuple], dict[str, TaskInputs], dict[str, StoredScore]]:
    """(answers, tasks, in_force): the answers that were sent (``store.sent_only``) as raw tuples (id, run_id,
    task_id, raw_text, parsed JSON text, error) sorted by answer id, every task's inputs by id, and the score
    row in force per answer id. Raw SQL without joins: on 100,000 answers the ORM's row processing and the joins'
    random lookups cost more than the scoring. Answer-id order makes each batch of score rows a narrow range of the
    ``score.answer_id`` index and of the answer table's key (the foreign key check), so a batch's commit
    writes few pages; runs are mixed across batches (a cancelled scoring leaves part of every run)."""
    clause, params = in_list("run_id", ids)
    with project.read() as s:
        answers = raw_rows(s, "SELECT id, run_id, task_id, raw_text, parsed, error FROM answer a WHERE 1 = 1" + clause
                           + sent_only("a"), params)
        answers.sort(key=operator.itemgetter(0))            # by answer id: see read_inputs' docstring
        tasks = {r[0]: _task_inputs(r) for r in raw_rows(s, _TASK_SQL)}
        rows = score_rows(s, scorer, None, with_answers=False)
    info = REGISTRY.get(scorer)
    if info is not None and info.needs_context:       # fieldstudio's own scorers: frame times, derivations
        from fieldstudio.scoring.task_context import with_context

        tasks = with_context(project, tasks, info.answer_types)
    if ids is not None and rows:
        wanted = {a[0] for a in answers}
        rows = [r for r in rows if r.answer_id in wanted]
    return answers, tasks, {k[0]: v for k, v in heads(rows).items()}


BY_IDS = 2_000
"""A chunk of at most this many answers reads its score rows by answer id (500 to a query), a longer one by
the range of its answer ids (one query, which reads the rows of other answers in between too)."""


def read_chunk(project: Project, session, scorer: str, chunk: Sequence[tuple],  # noqa: ANN001
               tasks: dict[str, TaskInputs]) -> dict[str, StoredScore]:
    """For one chunk of a streamed scoring (raw answer tuples as ``read_inputs`` gives them, in answer-id order):
    the score row in force per answer id of the chunk, and the inputs of the chunk's tasks not yet in ``tasks``
    added to it (500 ids per query; with their context for the scorers that need it, as ``read_inputs`` adds it).
    Reads the scorer's rows of the chunk's answer ids (``BY_IDS``) or of their range."""
    if not chunk:
        return {}
    wanted = {a[0] for a in chunk}
    if len(chunk) <= BY_IDS:
        # a short chunk may be a few answers spread over every answer id (one task's answers in 111 runs): its
        # range would read nearly every score row of the scorer (100,000 for 111 answers)
        ids = [a[0] for a in chunk]
        rows = [r for k in range(0, len(ids), 500)
                for r in score_rows(session, scorer, None, with_answers=False, answer_ids=ids[k:k + 500])]
    else:
        rows = [r for r in score_rows(session, scorer, None, with_answers=False,
                                      answer_ids_between=(chunk[0][0], chunk[-1][0])) if r.answer_id in wanted]
    missing = sorted({a[2] for a in chunk} - tasks.keys())
    for k in range(0, len(missing), 500):
        clause, params = in_list("id", missing[k:k + 500])
        for r in raw_rows(session, _TASK_SQL + " WHERE 1 = 1" + clause, params):
            tasks[r[0]] = _task_inputs(r)
    info = REGISTRY.get(scorer)
    if missing and info is not None and info.needs_context:       # fieldstudio's own scorers
        from fieldstudio.scoring.task_context import with_context

        tasks.update(with_context(project, {t: tasks[t] for t in missing if t in tasks}, info.answer_types))
    return {k[0]: v for k, v in heads(rows).items()}


def json_or_none(text: str | None) -> Any:
    """A JSON column's text decoded (None stays None)."""
    return None if text is None else json.loads(text)

