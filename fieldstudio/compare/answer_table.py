"""The long table a comparison reads: one row per answer of the chosen runs, with its task and its score in force.

``load_answers`` reads it (a person's override wins over the machine's score, ``scoring.store.heads``) and
``load_summary_columns`` only the columns a summary reads (``fieldstudio score``: a fraction of the memory);
``load_scope`` reads the tasks every total counts (the project's tasks of each benchmark source some answer is
for, answered or not, so a task nobody answered counts as missing); ``most_scored_scorer`` names the scorer with
the most scores and ``ratings_frame`` reads the people's ratings. ``filter_tasks`` and ``filter_answers``
narrow the table to the tasks that match (category, scenario, answer type; disagreements, wrong answers) and
``task_grid`` lays it out as tasks x sources. A source is a run; its label is the run's name (with the id's
first characters when two runs share it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sqlalchemy import func, select

from fieldstudio.ratings.rating_records import is_machine
from fieldstudio.scoring.service import resolve_runs
from fieldstudio.scoring.currency import current_by_scorer, stale_reasons_in_force
from fieldstudio.scoring.store import StoredScore, heads, in_list, raw_rows, score_rows, sent_only
from fieldstudio.store.portable import raw_row_batches
from fieldstudio.store.models import Answer, Rating, RatingItem, RatingSet, Score, Task
from fieldstudio.store.project import Project

__all__ = ["NO_GROUP", "TASK_COLUMNS", "SUMMARY_COLUMNS", "load_answers", "load_summary_columns", "load_scope", "most_scored_scorer", "ratings_frame", "task_grid",
           "filter_tasks", "filter_answers"]


NO_GROUP = "(none)"
"""Label of answers whose task has no category (sub-category, scenario)."""

#: The task part of the long table, and the columns of a scope (``load_scope``).
TASK_COLUMNS = ["task_id", "external_id", "category", "sub_category", "scenario", "answer_type", "query",
                "ground_truth"]


def load_answers(project: Project, scorer: str | None, run_ids: Sequence[str] | None = None, *,
                 texts: bool = True) -> pd.DataFrame:
    """The long table: one row per answer of the chosen runs (all when None), with its score under ``scorer``.

    Columns: task_id, external_id, category, sub_category, scenario, answer_type, query, ground_truth
    (category, sub_category and scenario are ``NO_GROUP`` when unset), run_id, source, answer_id, answer
    (raw text), error, prompt_tokens, completion_tokens, reasoning_tokens, cost_usd, latency_s (floats,
    NaN when unknown), score_id, scorer, scorer_version, value (NaN when unscored), correct (True/False/None),
    correct_value (1.0 / 0.0 / NaN), explanation, overridden, author, reason, judge_raw, judge_model (the
    judge's model id; None when no judge decided the row), judge_cost_usd, stale_reason (why the score no longer
    stands, ``scoring.staleness``: the answer, the ground truth or the scorer changed since it was judged; None
    when it stands), stale_value (the value a stale score gave, NaN otherwise).
    A stale score is not a verdict on the answer as it is now: its row has value NaN and correct None, like an
    unscored answer, so every summary, plot and report leaves it out; it is counted as stale beside the coverage.
    Sorted by source, then task. ``texts=False`` leaves the texts (query, ground_truth, answer, error) None,
    unread: what a summary needs, in a third of the memory at 100,000 answers (``fieldstudio score``).
    """
    found = _answers_in_order(project, run_ids, "t.query, t.ground_truth" if texts else "NULL, NULL",
                              "a.raw_text, a.error" if texts else "NULL, NULL")
    rows, tasks, runs = found.rows, found.tasks, found.runs
    task_of = [tasks[r[0]] for r in rows]
    columns = {name: [t[k] for t in task_of] for k, name in enumerate(TASK_COLUMNS)}
    run_of = [runs[r[1]] for r in rows]
    columns["run_id"] = [r[0] for r in run_of]
    for k, name in enumerate(("answer_id", "answer", "error", "prompt_tokens", "completion_tokens", "reasoning_tokens",
                              "cost_usd", "latency_s"), start=2):
        columns[name] = [r[k] for r in rows]
    columns["source"] = [found.source_of[r[0]] for r in run_of]
    del task_of, run_of, rows, found
    df = pd.DataFrame(columns)
    del columns
    # the scores are read once the answers' rows are freed (their strings now live in the frame): holding both
    # at once was the peak of `fieldstudio score`'s summary at 100,000 answers
    if scorer:
        with project.read() as s:
            shown = _scores_shown(s, scorer, sorted(df["answer_id"].tolist()), texts)
    else:
        shown = {}
    _tidy(df, ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cost_usd", "latency_s"))
    heads_now = [shown.get(aid) for aid in df["answer_id"].tolist()]
    reasons = [None if h is None else h.stale_reason for h in heads_now]
    nan = float("nan")
    df["score_id"] = [None if h is None else h.id for h in heads_now]
    df["scorer"] = [(scorer or "") if h is None else h.scorer for h in heads_now]
    df["scorer_version"] = [None if h is None else h.scorer_version for h in heads_now]
    old_values = np.array([nan if h is None or h.value is None else h.value for h in heads_now], dtype=float)
    is_stale = np.array([r is not None for r in reasons], dtype=bool)
    df["value"] = np.where(is_stale, nan, old_values)
    correct = [None if h is None or r is not None else h.correct for h, r in zip(heads_now, reasons)]
    df["correct"] = pd.Series(correct, index=df.index, dtype=object)
    df["correct_value"] = np.array([nan if c is None else float(c) for c in correct], dtype=float)
    df["explanation"] = [None if h is None else h.explanation for h in heads_now]
    df["overridden"] = np.array([h is not None and h.author is not None for h in heads_now], dtype=bool)
    df["author"] = [None if h is None else h.author for h in heads_now]
    df["reason"] = [None if h is None else h.reason for h in heads_now]
    df["judge_raw"] = [None if h is None else h.judge_raw for h in heads_now]
    df["judge_model"] = [None if h is None else h.judge_model for h in heads_now]
    df["judge_cost_usd"] = pd.to_numeric(pd.Series([None if h is None else h.judge_cost_usd for h in heads_now],
                                                   index=df.index, dtype=object), errors="coerce").astype(float)
    df["stale_reason"] = pd.Series(reasons, index=df.index, dtype=object)
    df["stale_value"] = np.where(is_stale, old_values, nan)
    return df


class _Found(NamedTuple):
    """The answers of a long table, sorted: ``rows`` (task_id, run_id, answer id, answer text, error,
    prompt_tokens, completion_tokens, reasoning_tokens, cost_usd, latency_s) in source, then task order;
    ``tasks``: task id -> (TASK_COLUMNS); ``runs``: run id -> (id, name); ``source_of``: run id -> source label."""

    rows: list[tuple]
    tasks: dict[str, tuple]
    runs: dict[str, tuple]
    source_of: dict[str, str]


def _tasks_and_runs(session, clause: str, params: tuple, task_texts: str) -> tuple[dict[str, tuple], dict[str, tuple]]:  # noqa: ANN001
    """(task id -> the task's TASK_COLUMNS, run id -> (id, name)) of the answers ``clause`` selects; ``task_texts``:
    the SQL of the query and ground truth columns ("NULL, NULL" to read neither).

    The task and run columns are read once per task and run, not once per answer: each answer's row then refers
    to its task's strings instead of holding copies (100,000 answers over 900 tasks held 9 copies of every task's
    texts per run)."""
    tasks = {r[0]: r for r in raw_rows(
        session, "SELECT t.id, t.external_id, t.category, t.sub_category, t.scenario, t.answer_type, " + task_texts
        + " FROM task t WHERE t.id IN (SELECT a.task_id FROM answer a WHERE 1 = 1" + clause + ")", params)}
    return tasks, {r[0]: r for r in raw_rows(session, "SELECT id, name FROM run")}


def _source_labels(runs: dict[str, tuple], present: set[str]) -> dict[str, str]:
    """run id -> its source label: the run's name, with the id's first characters when two runs of ``present``
    share it."""
    named: dict[str, int] = {}
    for run_id in present:
        named[runs[run_id][1]] = named.get(runs[run_id][1], 0) + 1
    return {run_id: f"{runs[run_id][1]} ({run_id[:6]})" if named[runs[run_id][1]] > 1 else runs[run_id][1]
            for run_id in present}


def _answers_in_order(project: Project, run_ids: Sequence[str] | None, task_texts: str, answer_texts: str) -> _Found:
    """The answers of the chosen runs (all when None) with their tasks and source labels, sorted by source, then
    external id (task id when it has none), stably in the order the answer table gives them. ``task_texts``,
    ``answer_texts``: the SQL of the two text columns read for a task (query, ground truth) and an answer (text,
    error), e.g. "NULL, NULL" to read none."""
    clause, params = in_list("a.run_id", resolve_runs(project, run_ids))
    clause += sent_only("a")             # a pending answer was never asked: its task is missing for that run
    with project.read() as s:
        tasks, runs = _tasks_and_runs(s, clause, params, task_texts)
        rows = [r for r in raw_rows(s, "SELECT a.task_id, a.run_id, a.id, " + answer_texts + ", a.prompt_tokens, "
                                       "a.completion_tokens, a.reasoning_tokens, a.cost_usd, a.latency_s "
                                       "FROM answer a WHERE 1 = 1" + clause, params)
                if r[0] in tasks and r[1] in runs]
    source_of = _source_labels(runs, {r[1] for r in rows})
    # sorted by source, then task, here (stable, as pandas' stable sort of the frame was): no copy of the frame
    rows.sort(key=lambda r: (source_of[r[1]], tasks[r[0]][1] if tasks[r[0]][1] is not None else r[0]))
    return _Found(rows, tasks, runs, source_of)


def _tidy(df: pd.DataFrame, numbers: Sequence[str]) -> None:
    """In place: the ``numbers`` columns as floats (NaN when unknown or not a number), empty groups ``NO_GROUP``,
    a missing external id the task id."""
    for c in numbers:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    for c in ("category", "sub_category", "scenario"):
        df[c] = df[c].fillna(NO_GROUP).replace("", NO_GROUP)
    df["external_id"] = df["external_id"].fillna(df["task_id"])


#: The columns of ``load_summary_columns``.
SUMMARY_COLUMNS = ["task_id", "external_id", "category", "sub_category", "scenario", "answer_type", "source", "answer",
                   "error", "prompt_tokens", "completion_tokens", "reasoning_tokens", "cost_usd", "value",
                   "correct_value", "overridden", "judge_cost_usd", "stale_reason"]

def load_summary_columns(project: Project, scorer: str, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """The columns of the long table a summary reads (``summaries.summarise`` with ``scorer`` given, the official
    figures of ``compare.official``, ``load_scope``), one row per answer in ``load_answers``' order and with its
    values: ``SUMMARY_COLUMNS``, where ``answer`` is None and ``error`` is the error of a failed model call (no
    text) and None otherwise, which is all the official figures read of them (a failed call is not answered).
    Text columns hold Python strings (object dtype), each task's and source's strings shared by its rows.

    The rest (texts, ids of answers and scores, the judge's record, people's reasons) is not read, and the
    answers are read a batch at a time: at 100,000 answers a fraction of the long table's memory (``fieldstudio
    score``'s summary, issue 37). The same summary as over ``load_answers`` (tested); the table has no
    ``scorer`` column, so pass ``scorer`` on."""
    clause, params = in_list("a.run_id", resolve_runs(project, run_ids))
    clause += sent_only("a")             # a pending answer was never asked: its task is missing for that run
    task_of: list[tuple] = []                     # per answer, in the table's order: its task's and run's rows
    run_of: list[tuple] = []
    answer_ids: list[str] = []
    read: list[list[Any]] = [[] for _ in range(5)]    # the failed call's error, tokens (3), cost
    with project.read() as s:
        tasks, runs = _tasks_and_runs(s, clause, params, "NULL, NULL")
        for batch in raw_row_batches(s, "SELECT a.task_id, a.run_id, a.id, CASE WHEN a.raw_text IS NULL THEN a.error "
                                        "END, a.prompt_tokens, a.completion_tokens, a.reasoning_tokens, a.cost_usd "
                                        "FROM answer a WHERE 1 = 1" + clause, params):
            for r in batch:
                if r[0] in tasks and r[1] in runs:
                    task_of.append(tasks[r[0]])
                    run_of.append(runs[r[1]])
                    answer_ids.append(r[2])
                    for column, value in zip(read, r[3:]):
                        column.append(value)
    source_of = _source_labels(runs, {r[0] for r in run_of})
    # the order of load_answers (source, then external id; stable): ranks of the sorted keys, one stable argsort
    source_rank = {label: k for k, label in enumerate(sorted(set(source_of.values())))}
    ext = {t[0]: t[1] if t[1] is not None else t[0] for t in tasks.values()}
    ext_rank = {key: k for k, key in enumerate(sorted(set(ext.values())))}
    order = np.argsort(np.fromiter((source_rank[source_of[r[0]]] * len(ext_rank) + ext_rank[ext[t[0]]]
                                    for t, r in zip(task_of, run_of)), dtype=np.int64, count=len(task_of)),
                       kind="stable")
    task_of = [task_of[i] for i in order]
    columns = {name: pd.Series([t[k] for t in task_of], dtype=object) for k, name in enumerate(SUMMARY_COLUMNS[:6])}
    del task_of
    columns["source"] = pd.Series([source_of[run_of[i][0]] for i in order], dtype=object)
    del run_of
    columns["answer"] = pd.Series([None] * len(order), dtype=object)
    for name, values in zip(("error", "prompt_tokens", "completion_tokens", "reasoning_tokens", "cost_usd"), read):
        columns[name] = pd.Series([values[i] for i in order], dtype=object)
    del read
    position = {answer_ids[i]: k for k, i in enumerate(order)}
    del answer_ids
    df = pd.DataFrame(columns)
    del columns
    _tidy(df, ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cost_usd"))
    nan = float("nan")
    values, correct = np.full(len(df), nan), np.full(len(df), nan)
    overridden = np.zeros(len(df), dtype=bool)
    judge_costs: list[Any] = [None] * len(df)
    reasons: list[str | None] = [None] * len(df)
    with project.read() as s:
        for answer_id, h, reason in _in_force(s, scorer, sorted(position)):
            i = position[answer_id]
            overridden[i] = h.author is not None
            judge_costs[i] = (h.judge or {}).get("cost_usd")
            if reason is not None:                # a stale score: unscored, counted as stale
                reasons[i] = reason
            else:
                values[i] = nan if h.value is None else h.value
                correct[i] = nan if h.correct is None else float(h.correct)
    df["value"] = values
    df["correct_value"] = correct
    df["overridden"] = overridden
    df["judge_cost_usd"] = pd.to_numeric(pd.Series(judge_costs, index=df.index, dtype=object),
                                         errors="coerce").astype(float)
    df["stale_reason"] = pd.Series(reasons, index=df.index, dtype=object)
    return df


class _Shown(NamedTuple):
    """What the long table shows of an answer's score in force (``scoring.store.StoredScore``'s columns it
    uses, the judge record's raw reply, model and cost, and the stale reason)."""

    id: str
    scorer: str
    scorer_version: str
    value: float | None
    correct: bool | None
    explanation: str | None
    author: str | None
    reason: str | None
    judge_raw: str | None
    judge_model: str | None
    judge_cost_usd: Any
    stale_reason: str | None


SCORE_CHUNK = 2_000
"""Answers whose score rows ``load_answers`` and ``load_summary_columns`` read at a time: only what they show of
them is kept (a score row with its hashes is ~0.7 kB in Python; 10,000 at a time added ~17 MB to the peak of
``fieldstudio score`` at 100,000 answers, at the same speed once ranges were tested by index,
``scoring.currency``)."""


def _in_force(session, scorer: str, answer_ids: Sequence[str],  # noqa: ANN001
              chunk: int = SCORE_CHUNK) -> Iterator[tuple[str, StoredScore, str | None]]:
    """(answer id, its score row in force under ``scorer``, why it is stale or None) of the ``answer_ids``
    (sorted) that have one, read ``chunk`` answers at a time by answer-id range (the rows of 100,000 answers
    held at once took more memory than the table)."""
    wanted = set(answer_ids)
    for k in range(0, len(answer_ids), chunk):
        part = answer_ids[k:k + chunk]
        rows = [r for r in score_rows(session, scorer, None, with_answers=False,
                                      answer_ids_between=(part[0], part[-1])) if r.answer_id in wanted]
        in_force = heads(rows)
        del rows
        current = current_by_scorer(session, [scorer], (part[0], part[-1]))
        stale = stale_reasons_in_force(session, list(in_force.values()), current)
        for (answer_id, _), h in in_force.items():
            yield answer_id, h, stale.get(h.id)


def _scores_shown(session, scorer: str, answer_ids: Sequence[str], texts: bool) -> dict[str, _Shown]:  # noqa: ANN001
    """answer id -> what the long table shows of its score in force under ``scorer`` (``answer_ids`` sorted;
    ``_in_force``); ``texts=False`` drops the explanation, reason and judge reply."""
    out: dict[str, _Shown] = {}
    same: dict[str, str] = {}                    # one string object per scorer name and version
    for answer_id, h, reason in _in_force(session, scorer, answer_ids):
        judge = h.judge or {}
        out[answer_id] = _Shown(h.id, same.setdefault(h.scorer, h.scorer),
                                same.setdefault(h.scorer_version, h.scorer_version), h.value, h.correct,
                                h.explanation if texts else None, h.author, h.reason if texts else None,
                                judge.get("raw") if texts else None, judge.get("model") if judge else None,
                                judge.get("cost_usd"), reason)
    return out


def load_scope(project: Project, answers: pd.DataFrame) -> pd.DataFrame:
    """The tasks a comparison's totals cover: every task of the project whose benchmark source
    (``Task.source``, e.g. ``fieldworkarena``) is the source of a task some answer of ``answers`` is for.

    A source answering 300 of 886 FieldWorkArena tasks is thus measured over 886, the 586 unanswered tasks
    count as missing (0 in a FieldWorkArena headline), while tasks of another benchmark held in the same
    project stay out. Columns: those of the long table's task part (task_id, external_id, category,
    sub_category, scenario, answer_type, query, ground_truth; groups ``NO_GROUP`` when unset), one row per
    task. Empty (same columns) when ``answers`` is empty. Narrow it with ``filter_tasks`` under the same
    filters as the answers."""
    if answers.empty:
        return pd.DataFrame(columns=TASK_COLUMNS)
    ids = [str(t) for t in answers["task_id"].drop_duplicates()]
    with project.read() as s:
        benches: set[str] = set()
        for k in range(0, len(ids), 500):           # SQLite's bound-parameter limit
            benches.update(b for (b,) in s.execute(select(Task.source).where(Task.id.in_(ids[k:k + 500]))))
        rows = s.execute(select(Task.id, Task.external_id, Task.category, Task.sub_category, Task.scenario,
                                Task.answer_type, Task.query, Task.ground_truth)
                         .where(Task.source.in_(sorted(benches)))).all()
    df = pd.DataFrame.from_records([tuple(r) for r in rows], columns=TASK_COLUMNS)
    for c in ("category", "sub_category", "scenario"):
        df[c] = df[c].fillna(NO_GROUP).replace("", NO_GROUP)
    df["external_id"] = df["external_id"].fillna(df["task_id"])
    return df


def most_scored_scorer(project: Project, run_ids: Sequence[str] | None = None) -> str | None:
    """The scorer with the most scored answers (rows with a value) over the chosen runs, then the most
    rows, or None when there is no score row: a scoring without a judge that could decide nothing (all
    "needs a judge") is not picked over one that scored answers."""
    ids = resolve_runs(project, run_ids)
    q = (select(Score.scorer, func.count(Score.value), func.count()).join(Answer, Answer.id == Score.answer_id)
         .group_by(Score.scorer))
    if ids is not None:
        q = q.where(Answer.run_id.in_(ids))
    with project.read() as s:
        counts = s.execute(q).all()
    return max(counts, key=lambda r: (r[1], r[2], r[0]))[0] if counts else None


def ratings_frame(project: Project, *, include_machine: bool = False) -> pd.DataFrame:
    """Every rating by a person: rating_id, rating_set, item_id, media_id, frame_index, rater, verdict,
    reasons, fields, item_ground_truth. Verdicts a scorer or a model filed as ratings (raters named
    ``scorer:...`` or ``model:...``, ``ratings.records.is_machine``) are left out unless ``include_machine``:
    agreement with the raters must not count a machine as a rater. Empty (same columns) when none."""
    q = (select(Rating.id, RatingSet.name, Rating.item_id, RatingItem.media_id, RatingItem.frame_index, Rating.rater,
                Rating.verdict, Rating.reasons, Rating.fields, RatingItem.ground_truth)
         .join(RatingItem, RatingItem.id == Rating.item_id).join(RatingSet, RatingSet.id == RatingItem.rating_set_id))
    with project.read() as s:
        rows = s.execute(q).all()
    if not include_machine:
        rows = [r for r in rows if not is_machine(r.rater or "")]
    return pd.DataFrame.from_records(rows, columns=["rating_id", "rating_set", "item_id", "media_id", "frame_index",
                                                    "rater", "verdict", "reasons", "fields", "item_ground_truth"])


def task_grid(answers: pd.DataFrame, column: str = "value") -> pd.DataFrame:
    """Tasks x sources: index task_id; columns external_id, category, ground_truth, then one column per
    source holding ``column`` (value, answer, correct, explanation, cost_usd ...). Missing answers are NaN."""
    if answers.empty:
        return pd.DataFrame(columns=["external_id", "category", "ground_truth"])
    tasks = answers.drop_duplicates("task_id").set_index("task_id")[["external_id", "category", "ground_truth"]]
    wide = answers.pivot(index="task_id", columns="source", values=column)
    wide.columns.name = None
    return tasks.join(wide).sort_values("external_id", kind="stable")


def filter_tasks(frame: pd.DataFrame, *, category: str | None = None, scenario: str | None = None,
                 answer_type: str | None = None) -> pd.DataFrame:
    """The rows of ``frame`` (the long table or a scope of ``load_scope``) whose task matches every
    column filter given (None: any); the scope of a filtered comparison is filtered with the same values."""
    df = frame
    for col, want in (("category", category), ("scenario", scenario), ("answer_type", answer_type)):
        if want is not None:
            df = df[df[col] == want]
    return df


def filter_answers(answers: pd.DataFrame, *, category: str | None = None, scenario: str | None = None,
                   answer_type: str | None = None, disagree: bool = False, wrong_only: bool = False) -> pd.DataFrame:
    """The long table restricted to tasks matching every filter.

    ``disagree``: tasks whose scored sources do not all have the same verdict (``correct``, else value);
    ``wrong_only``: tasks where at least one source is not correct (correct False, or value < 1 when the
    scorer has no verdict). Filters select whole tasks, so a task's row stays complete across sources.
    """
    df = filter_tasks(answers, category=category, scenario=scenario, answer_type=answer_type)
    if disagree or wrong_only:
        # plain lists and sets: iterating pandas' Arrow-backed text columns, and a groupby calling a Python function
        # per task, took 0.4 s of the Compare tab's load at 900 tasks x 20 sources (issue 37)
        task_ids = df["task_id"].tolist()
        verdicts: dict[str, set] = {}           # task -> the verdicts of its scored answers
        for t, c, v in zip(task_ids, df["correct"].tolist(), df["value"].tolist()):
            verdict = c if c is not None else (None if np.isnan(v) else v)
            if verdict is not None:
                verdicts.setdefault(t, set()).add(verdict)
        keep = set(task_ids)
        if disagree:
            keep &= {t for t, seen in verdicts.items() if len(seen) > 1}
        if wrong_only:
            keep &= {t for t, seen in verdicts.items()
                     if any(v is False or (not isinstance(v, bool) and v < 1) for v in seen)}
        df = df[df["task_id"].isin(keep)]
    return df
