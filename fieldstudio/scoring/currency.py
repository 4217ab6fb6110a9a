"""Which answers already have a current score, decided in SQL: one join of the answer, its task and its score
on the hashes each keeps (issue 37 item 4).

A score row stands when it judged this answer, this ground truth and this scorer (``scoring.staleness``). The
answer and the task carry the hashes of what a score judges (``answer.content_sha256``, ``task.truth_sha256``,
kept by every write: ``store.content_hashes``), so the rows that stand are found by comparing columns, without
reading or hashing the answers in Python: re-scoring 100,000 unchanged answers reads a few aggregate rows.

The SQL takes only the plain case, and leaves every other answer to the scoring's Python check
(``ScoreCheck.stands``), which decides it exactly as before: an answer is *current by its columns* when it has
exactly one row of the scorer (so no person's override and no chain), a machine row, whose three hashes and
version equal the answer's, the task's and the scoring's, and (with a judge) that holds a value without a
"judge_failed" mark in its judge record or records a failed model call. An answer or task whose hash is NULL
(written before ``0009_content_hashes`` by a path that did not know it) is never current here. What the SQL
takes is a subset of what the Python check keeps: the scoring's result is the same, only faster.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from fieldstudio.scoring.scoring_report import ScoringReport, reason_head
from fieldstudio.scoring.staleness import FAILED_CALL
from fieldstudio.scoring.store import StoredScore, in_list, pending_sql, raw_rows, sent_only, stale_reasons

__all__ = ["Selection", "count_answers", "count_never_sent", "count_current", "current_answer_ids", "to_score",
           "stale_reasons_in_force", "current_by_scorer"]


@dataclass(frozen=True)
class Selection:
    """The answers one scoring covers and what a row that stands must match.

    ``run_ids``: None for every run; ``scorer``, ``version``: the scorer's name and registered version;
    ``scorer_now``: ``staleness.scorer_sha`` of the scoring (parameters and official source included), or None
    for a reader, which cannot know the parameters and does not compare them (``staleness.stale_reason``);
    ``judged``: the scoring has a judge (an undecided or judge-failed row is then scored again)."""

    scorer: str
    version: str
    scorer_now: str | None
    run_ids: tuple[str, ...] | None
    judged: bool

    @classmethod
    def for_reading(cls, scorer: str, version: str) -> Selection:
        """What a reader of the scores in force compares: the answer, the ground truth and the version."""
        return cls(scorer, version, None, None, judged=False)


def _current_sql(sel: Selection, *, few: bool = False) -> tuple[str, list]:
    """The SQL condition "score row ``s`` of answer ``a`` (task ``t``) is current by its columns", with its
    parameters. Exactly one row of the scorer for the answer is tested with one list of the answers that have
    several, made once per query (a correlated test per row cost a fifth of the query over every answer). The
    list is grouped from the answers with several rows of any scorer (``ix_score_answer_id`` alone, without
    reading a row), whose rows alone are then read for their scorer: grouping every row of the scorer read each
    row (0.04 s of CPU at 100,000 answers, a fifth of a re-scoring that changes nothing; now 0.02 s); with one
    scorer that list is empty. With ``few`` (a query over a range of answer ids) the answer's other rows are looked up in
    ``ix_score_answer_id`` instead: the list grouped the whole score table for every range."""
    sql = ("s.scorer = ? AND s.author IS NULL AND s.scorer_version = ? "
           + ("AND s.scorer_sha256 = ? " if sel.scorer_now is not None else "")
           + "AND s.answer_sha256 = a.content_sha256 AND s.truth_sha256 = t.truth_sha256 "
           + ("AND NOT EXISTS (SELECT 1 FROM score o WHERE o.answer_id = s.answer_id AND o.scorer = ? "
              "AND o.id <> s.id)" if few else
              "AND s.answer_id NOT IN (SELECT answer_id FROM score WHERE scorer = ? AND answer_id IN "
              "(SELECT answer_id FROM score GROUP BY answer_id HAVING count(*) > 1) GROUP BY answer_id "
              "HAVING count(*) > 1)"))
    params: list = [sel.scorer, sel.version, *([sel.scorer_now] if sel.scorer_now is not None else []), sel.scorer]
    if sel.judged:
        # a value the judge gave (a judge record without a failure mark; LIKE is conservative: a reply that
        # merely mentions the mark goes to the Python check), or a failed model call, which stays unscorable
        sql += (" AND ((s.value IS NOT NULL AND (s.judge IS NULL OR CAST(s.judge AS TEXT) NOT LIKE ?)) "
                "OR (s.value IS NULL AND substr(s.explanation, 1, ?) = ?))")
        params += ["%judge_failed%", len(FAILED_CALL), FAILED_CALL]
    return sql, params


def _in_runs(sel: Selection, *, from_index: bool = False) -> tuple[str, tuple]:
    """The filter on answer ``a`` of the scoring: its runs, and only answers that were sent (``store.sent_only``).

    ``from_index``: for a query that reads of ``a`` only what ``ix_answer_content`` holds (id, hash, run, task).
    "Sent" tests the answer's text and error, which are in its row, not in that index: tested per row, it made
    SQLite look up every answer's row (2.2 s of 2.3 at 100,000 answers on two loaded cores, where the rest of
    the query took 0.1 s). The never-sent answers are then listed once instead, by one scan of the answer
    table (0.07 s at 100,000; the list is empty unless a run stopped early), and ``a.id`` is tested against it.
    """
    clause, params = in_list("a.run_id", sel.run_ids)
    if from_index:
        return clause + f" AND a.id NOT IN (SELECT p.id FROM answer p WHERE {pending_sql('p')})", params
    return clause + sent_only("a"), params


def count_answers(session: Session, sel: Selection) -> int:
    """The number of answers the scoring covers."""
    clause, params = _in_runs(sel)
    return raw_rows(session, "SELECT count(*) FROM answer a WHERE 1 = 1" + clause, params)[0][0]


def count_never_sent(session: Session, run_ids: Sequence[str] | None) -> int:
    """The number of pending answers of ``run_ids`` (None: every run), which the scoring leaves out: never sent."""
    clause, params = in_list("a.run_id", run_ids)
    return raw_rows(session, "SELECT count(*) FROM answer a WHERE " + pending_sql("a") + clause, params)[0][0]


def count_current(session: Session, sel: Selection, report: ScoringReport) -> int:
    """Count the answers whose score is current by its columns into ``report`` as the scoring counts a row that
    stands (``current``, ``scored`` or ``unscored`` with its reason, ``failed_answers``, ``per_run``); returns
    how many.

    One pass over the scorer's rows in the score table's order, each joined to its answer and its task through
    the indexes that hold their ids and hashes (``ix_answer_content``, ``ix_task_truth``: no read of their rows);
    SQLite is told that order (CROSS JOIN), the one with a single index lookup per table and row (about 1 µs a
    row on a slow machine, 0.1 s at 100,000). The rows come back as (run, unscored,
    explanation when unscored) and are counted in Python: SQL's GROUP BY sorted 100,000 rows to do the same."""
    current, params = _current_sql(sel)
    clause, run_params = _in_runs(sel, from_index=True)
    rows = raw_rows(session, "SELECT a.run_id, CASE WHEN s.value IS NULL THEN s.explanation ELSE NULL END, "
                             "CASE WHEN s.value IS NULL THEN 1 ELSE 0 END "
                             "FROM score s CROSS JOIN answer a CROSS JOIN task t "
                             "WHERE a.id = s.answer_id AND t.id = a.task_id AND " + current + clause,
                    (*params, *run_params))
    for (run_id, explanation, unscored), n in Counter(rows).items():
        counts = report.per_run.setdefault(run_id, [0, 0])
        if unscored:
            report.unscored += n
            counts[1] += n
            report.unscored_reasons[reason_head(explanation or "")] += n
            if (explanation or "").startswith(FAILED_CALL):
                report.failed_answers += n
        else:
            report.scored += n
            counts[0] += n
    report.current += len(rows)
    return len(rows)


def current_answer_ids(session: Session, sel: Selection, between: tuple[str, str] | None = None) -> set[str]:
    """The ids of the answers whose score is current by its columns (the same test as ``count_current``), among
    the answer ids in the closed range ``between`` (None: all): a reader needs no stale reason for their rows in
    force."""
    current, params = _current_sql(sel, few=between is not None)
    clause, run_params = _in_runs(sel, from_index=between is None)   # a range reads its few rows
    if between is not None:
        clause += " AND s.answer_id BETWEEN ? AND ?"
        run_params = (*run_params, *between)
    return {r[0] for r in raw_rows(session, "SELECT s.answer_id FROM score s CROSS JOIN answer a CROSS JOIN task t "
                                            "WHERE a.id = s.answer_id AND t.id = a.task_id AND " + current + clause,
                                   (*params, *run_params))}


def to_score(session: Session, sel: Selection, after: str, limit: int) -> list[tuple]:
    """The next ``limit`` answers after answer id ``after`` ("" for the first) that are not current by their
    columns, in answer-id order (keyset pagination: each call reads from where the last one stopped), as raw
    tuples (id, run_id, task_id, raw_text, parsed JSON text, error, content_sha256): the last is the answer's
    stored hash (``store.content_hashes``; None for a row written before it was kept), which a new score row
    records instead of hashing the answer again (1.4 s of a 15 s scoring of 100,000 answers)."""
    current, params = _current_sql(sel)
    clause, run_params = _in_runs(sel)
    return raw_rows(session, "SELECT a.id, a.run_id, a.task_id, a.raw_text, a.parsed, a.error, a.content_sha256 "
                             "FROM answer a "
                             "WHERE a.id > ?" + clause + " AND NOT EXISTS (SELECT 1 FROM score s CROSS JOIN task t "
                             "WHERE s.answer_id = a.id AND t.id = a.task_id AND " + current + ") "
                             "ORDER BY a.id LIMIT ?", (after, *run_params, *params, limit))


def stale_reasons_in_force(session: Session, rows: Sequence[StoredScore],
                           current: dict[str, set[str]] | None = None) -> dict[str, str]:
    """``scoring.store.stale_reasons`` of the rows in force ``rows`` (what a reader is about to show), with the
    rows current by their columns left out of its Python check: their reason is None by construction, and the
    check reads and hashes each answer it is given. ``current``: scorer -> ``current_answer_ids`` (made here,
    one query per scorer, when None; a reader going through its rows in chunks makes it once)."""
    if current is None:
        current = current_by_scorer(session, {r.scorer for r in rows})
    return stale_reasons(session, [r for r in rows if r.answer_id not in current.get(r.scorer, ())])


def current_by_scorer(session: Session, scorers: Iterable[str],
                      between: tuple[str, str] | None = None) -> dict[str, set[str]]:
    """scorer -> the answer ids (in the range ``between``, None: all) current by their columns for a reader
    (``Selection.for_reading``); a scorer this fieldstudio does not know is left out (its rows go through the
    Python check)."""
    from fieldstudio.scoring.scorers import REGISTRY        # the registry imports every scorer: only when read

    return {scorer: current_answer_ids(session, Selection.for_reading(scorer, REGISTRY[scorer].version), between)
            for scorer in sorted(set(scorers)) if scorer in REGISTRY}
