"""The score store: writing score rows fast, reading them, and counting the scores an answer's change makes stale.

Writing: one short transaction per batch over one held connection, executemany on SQLite. Used by
``fieldstudio.scoring.service``. The ORM's per-row work (bind processing, UUID objects) costs more
than scoring itself on 100,000 deterministic answers, so rows are written with plain ``executemany`` and
values converted exactly as the column types would (checked against the portable Core path in the tests).
"""

from __future__ import annotations

import itertools
import json
import operator
import os
import sqlite3
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import bindparam, func, insert, literal_column, null, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from fieldstudio.core.errors import ProjectReadOnly
from fieldstudio.scoring.scorers.scorer_info import TaskInputs
from fieldstudio.scoring.staleness import Judged, answer_sha, stale_reason, truth_sha
from fieldstudio.store import portable
from fieldstudio.store.models import Answer, JudgeRequest, ResponseCache, Score, Task, utcnow
from fieldstudio.store.project import Project


def insert_transferred_scores(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """In the caller's write session, add score rows moved from another project with their ids and hashes
    (``reproducibility.transfer``); a row that overrides another goes in after the one it overrides."""
    from fieldstudio.store.bulk_insert import insert_rows

    plain = [r for r in rows if not r.get("overrides_id")]
    overriding = sorted((r for r in rows if r.get("overrides_id")), key=lambda r: r["created_at"])
    insert_rows(session, Score, plain)
    for row in overriding:   # one by one: an override may override an override
        insert_rows(session, Score, [row])

__all__ = ["ScoreWriter", "PlainInserts", "StoredScore", "score_rows", "raw_rows", "heads", "in_list", "stamp_reader",
           "uuid7_hex_many", "stale_scores_of", "count_scores", "ROW_FIELDS",
           "insert_transferred_scores", "FAST_SQLITE_WRITES", "WRITE_CACHE_KIB", "sent_only", "pending_sql"]

FAST_SQLITE_WRITES = True
"""Write score rows to SQLite with the DB-API's executemany (False: SQLAlchemy Core, as for PostgreSQL)."""
WRITE_CACHE_KIB = 16384
"""SQLite page cache of a scoring write transaction (KiB): the score table's random UUID keys touch index
pages all over the file, and the default 2 MB cache makes 100,000 inserts several times slower. 16 MB holds
both score indexes of 100,000 answers (about 9 MB); the rows themselves are appended, so a larger cache only
kept them: 64 MB added ~50 MB to the peak memory of `fieldstudio score` at 100,000 answers, at the same speed."""


class ScoreWriter:
    """Writes score rows batch by batch over one held connection: each ``write`` is one short
    ``BEGIN IMMEDIATE`` transaction (the engine's begin event), committed at once.

    Holding the connection keeps SQLite's page cache warm between batches and avoids the checkpoint and
    WAL deletion SQLite runs whenever the last connection to a file closes, which ``project.write()``
    (a new connection per transaction) pays for every batch. The held connection turns SQLite's automatic
    checkpoint off (``PRAGMA wal_autocheckpoint=0``, a per-connection setting) and runs one passive
    checkpoint when it is done: with the default, every batch of 10,000 rows grows the WAL past 1,000
    pages, so every commit also checkpointed (two fsyncs) pages the next batch dirties again; the WAL
    instead grows to the size of the pages changed (tens of MB for 100,000 rows) until that one checkpoint.
    Commits stay one per batch, durable as before (``synchronous=NORMAL`` in WAL mode). See
    https://www.sqlite.org/wal.html#application_initiated_checkpoints. Use as a context manager::

        with ScoreWriter(project) as writer:
            writer.write("fs-match", now, inserts, updates, {}, scorer_sha)

    Raises ProjectReadOnly when the project cannot be written (on entering, or on the first write).
    """

    def __init__(self, project: Project) -> None:
        self.project = project
        self._conn = None

    def __enter__(self) -> ScoreWriter:
        if self.project.read_only:
            raise ProjectReadOnly(f"{self.project.path}: is read-only; nothing was changed")
        if FAST_SQLITE_WRITES and self.project.engine.dialect.name == "sqlite":
            self._conn = self.project.engine.connect()
            _pragma(self._conn, "PRAGMA wal_autocheckpoint=0")   # DB-API: Connection.exec_driver_sql would autobegin
        return self

    def __exit__(self, *exc: object) -> None:
        if self._conn is not None:
            try:
                if self._conn.in_transaction():
                    self._conn.rollback()
                _pragma(self._conn, "PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error:
                pass                                 # busy: the next connection's checkpoint does it
            finally:
                self._conn.close()
                self._conn = None

    def write(self, scorer: str, created_at: datetime, inserts: Sequence[tuple] | PlainInserts, updates: Sequence[tuple],
              pending: Mapping[str, dict[str, Any]], scorer_sha: str | None = None, *,
              judge_requests: Sequence[Mapping[str, Any]] = ()) -> None:
        """One write transaction.

        Args:
            scorer: the ``Score.scorer`` of every inserted row.
            created_at: the ``Score.created_at`` of every inserted or updated row.
            inserts: (answer_id, scorer_version, value, correct, explanation, judge, answer_sha256, truth_sha256,
                judged_truth) per new row (``ROW_FIELDS``); ``correct`` a bool or None, ``judge`` a dict or None
                (SQL NULL); or a ``PlainInserts`` (no judge, in answer-id order). Ids are new UUID7 hex strings
                (``uuid7_hex_many``).
            updates: (score_id, scorer_version, ... judged_truth) per changed row, the same fields after the id.
            pending: new judge cache entries (cache key -> response); existing keys are left alone.
            scorer_sha: the ``Score.scorer_sha256`` of every inserted or updated row (``staleness.scorer_sha``).
            judge_requests: the judge requests that reached their endpoint (``JudgeCaller.take_sent``), appended
                as ``JudgeRequest`` rows of `scorer`.
        """
        if not (inserts or updates or pending or judge_requests):
            return
        sent = [{**r, "scorer": scorer} for r in judge_requests]
        if self._conn is None:
            with self.project.write() as s:
                _write_core(s, scorer, scorer_sha, created_at,
                            inserts.rows() if isinstance(inserts, PlainInserts) else inserts, updates)
                for key, response in pending.items():
                    if s.get(ResponseCache, key) is None:
                        s.add(ResponseCache(key=key, response=response))
                s.add_all(JudgeRequest(**r) for r in sent)
            return
        try:
            with self._conn.begin():
                self._conn.exec_driver_sql(f"PRAGMA cache_size=-{WRITE_CACHE_KIB}")   # random-key index inserts
                _write_sqlite(self._conn, scorer, scorer_sha, created_at, inserts, updates)
                if pending:
                    self._conn.execute(portable.insert_ignoring_duplicates(ResponseCache, "sqlite"),
                                       [{"key": k, "response": v, "created_at": utcnow()} for k, v in pending.items()])
                if sent:
                    self._conn.execute(insert(JudgeRequest), sent)
        except OperationalError as exc:
            if "readonly" in str(exc).lower() or "read-only" in str(exc).lower():
                raise ProjectReadOnly(f"{self.project.path}: cannot be written ({exc.orig})") from exc
            raise


def _pragma(conn, sql: str) -> None:
    """Run a PRAGMA on the DB-API connection under ``conn`` (autocommit: outside any transaction)."""
    cursor = conn.connection.cursor()
    try:
        cursor.execute(sql)
        cursor.fetchall()
    finally:
        cursor.close()


ROW_FIELDS = ("answer_id", "scorer_version", "value", "correct", "explanation", "judge", "answer_sha256",
              "truth_sha256", "judged_truth")
"""The fields of an insert tuple of ``ScoreWriter.write`` (an update tuple has the score id first instead)."""


class PlainInserts:
    """New score rows without a judge as columns, in answer-id order: what deterministic scoring writes
    (``ScoreWriter.write`` takes it where it takes row tuples). Columns are equally long sequences:
    ``answer_ids``, ``versions``, ``values`` (float or None), ``correct`` (bool or None), ``explanations``,
    ``answer_shas``, ``truth_shas``, ``judged_truths`` (what each row judged, ``scoring.staleness``).
    Passed to ``executemany`` zipped with the new ids, without building a tuple per row in Python."""

    __slots__ = ("answer_ids", "versions", "values", "correct", "explanations", "answer_shas", "truth_shas",
                 "judged_truths")

    def __init__(self, answer_ids: Sequence[str], versions: Sequence[str], values: Sequence[float | None],
                 correct: Sequence[bool | None], explanations: Sequence[str | None], answer_shas: Sequence[str],
                 truth_shas: Sequence[str], judged_truths: Sequence[str | None]) -> None:
        self.answer_ids, self.versions, self.values = answer_ids, versions, values
        self.correct, self.explanations = correct, explanations
        self.answer_shas, self.truth_shas, self.judged_truths = answer_shas, truth_shas, judged_truths

    def __len__(self) -> int:
        return len(self.answer_ids)

    def rows(self) -> list[tuple]:
        """The insert tuples (``ROW_FIELDS``, judge None)."""
        return list(zip(self.answer_ids, self.versions, self.values, self.correct, self.explanations,
                        itertools.repeat(None), self.answer_shas, self.truth_shas, self.judged_truths))


_FIRST = operator.itemgetter(0)
_INSERT_SQL = ("INSERT INTO score (id, answer_id, scorer, scorer_version, value, correct, explanation, judge, "
               "created_at, answer_sha256, truth_sha256, judged_truth, scorer_sha256) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_PLAIN_SQL = ("INSERT INTO score (id, answer_id, scorer_version, value, correct, explanation, answer_sha256, "
                     "truth_sha256, judged_truth, scorer, created_at, scorer_sha256) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, {scorer}, {created_at}, {scorer_sha})")
_UPDATE_SQL = ("UPDATE score SET scorer_version = ?, value = ?, correct = ?, explanation = ?, judge = ?, "
               "answer_sha256 = ?, truth_sha256 = ?, judged_truth = ?, scorer_sha256 = ?, created_at = ? WHERE id = ?")


def _write_sqlite(conn, scorer: str, scorer_sha: str | None, created_at: datetime,  # noqa: ANN001
                  inserts: Sequence[tuple], updates: Sequence[tuple]) -> None:
    """The DB-API's executemany with values converted as the column types would (100,000 rows in about a
    second on a slow 2-core machine, where the ORM's per-row bind processing takes several): booleans as
    0/1 (sqlite3 binds Python's True/False as the integers 1/0, as SQLAlchemy's Boolean does), JSON as
    text or SQL NULL, the timestamp converted once by the column type's own bind processor.

    Rows without a judge (every deterministic row) go through a statement with the scorer name and the
    timestamp as SQL literals and no judge column (SQL NULL): three fewer parameters to bind per row, and
    the parameter tuples are built by ``zip`` in C."""
    column_type = Score.__table__.c.created_at.type.dialect_impl(conn.dialect)
    to_db = column_type.bind_processor(conn.dialect) or (lambda v: v)
    stamp = to_db(created_at)
    cursor = conn.connection.cursor()            # the DB-API cursor: no per-statement SQLAlchemy context
    plain_sql = _INSERT_PLAIN_SQL.format(scorer=_literal(scorer), created_at=_literal(stamp),
                                         scorer_sha="NULL" if scorer_sha is None else _literal(scorer_sha))
    if isinstance(inserts, PlainInserts):        # in answer order: the foreign key check and the answer_id
        if len(inserts):                         # index walk their B-trees in order, and the ascending ids
            cursor.executemany(plain_sql, zip(uuid7_hex_many(len(inserts)), inserts.answer_ids, inserts.versions,
                                              inserts.values, inserts.correct, inserts.explanations,
                                              inserts.answer_shas, inserts.truth_shas, inserts.judged_truths))
    elif inserts:                                # append to the key's index
        ordered = sorted(inserts, key=_FIRST)
        ids = uuid7_hex_many(len(ordered))
        plain = [r for r in ordered if r[5] is None]
        if plain:
            answer_ids, versions, values, correct, explanations, _, a_shas, t_shas, truths = zip(*plain)
            cursor.executemany(plain_sql, zip(ids, answer_ids, versions, values, correct, explanations, a_shas,
                                              t_shas, truths))
        judged = [r for r in ordered if r[5] is not None]
        if judged:
            cursor.executemany(_INSERT_SQL, [(i, a, scorer, v, val, c, e, json.dumps(j), stamp, ash, tsh, gt,
                                              scorer_sha)
                                             for i, (a, v, val, c, e, j, ash, tsh, gt)
                                             in zip(ids[len(plain):], judged)])
    if updates:
        cursor.executemany(_UPDATE_SQL, [(v, val, c, e, None if j is None else json.dumps(j), ash, tsh, gt,
                                          scorer_sha, stamp, b) for b, v, val, c, e, j, ash, tsh, gt in updates])
    cursor.close()


def _literal(value: Any) -> str:
    """An SQL string literal (quotes doubled, SQL-92 §5.3), for values fieldstudio itself makes."""
    if not isinstance(value, str):
        raise TypeError(f"not a string: {value!r}")
    return "'" + value.replace("'", "''") + "'"


def _write_core(s, scorer: str, scorer_sha: str | None, created_at: datetime,  # noqa: ANN001
                inserts: Sequence[tuple], updates: Sequence[tuple]) -> None:
    """Portable path (PostgreSQL): Core executemany; rows without a judge leave the JSON column SQL NULL."""
    t = Score.__table__
    ins = [{"id": i, "answer_id": a, "scorer": scorer, "scorer_version": v, "value": val, "correct": c,
            "explanation": e, "judge": j, "created_at": created_at, "answer_sha256": ash, "truth_sha256": tsh,
            "judged_truth": gt, "scorer_sha256": scorer_sha}
           for i, (a, v, val, c, e, j, ash, tsh, gt) in zip(uuid7_hex_many(len(inserts)), sorted(inserts, key=_FIRST))]
    upd = [{"b_id": b, "scorer_version": v, "value": val, "correct": c, "explanation": e, "judge": j,
            "created_at": created_at, "answer_sha256": ash, "truth_sha256": tsh, "judged_truth": gt,
            "scorer_sha256": scorer_sha} for b, v, val, c, e, j, ash, tsh, gt in updates]
    for with_judge in (True, False):
        rows = [r for r in ins if (r["judge"] is not None) == with_judge]
        if rows:
            s.execute(t.insert(), rows if with_judge else [{k: v for k, v in r.items() if k != "judge"} for r in rows])
        rows = [r for r in upd if (r["judge"] is not None) == with_judge]
        if rows:
            s.execute(update(t).where(t.c.id == bindparam("b_id")).values(
                scorer_version=bindparam("scorer_version"), value=bindparam("value"), correct=bindparam("correct"),
                explanation=bindparam("explanation"), created_at=bindparam("created_at"),
                answer_sha256=bindparam("answer_sha256"), truth_sha256=bindparam("truth_sha256"),
                judged_truth=bindparam("judged_truth"), scorer_sha256=bindparam("scorer_sha256"),
                judge=bindparam("judge") if with_judge else null()),
                rows if with_judge else [{k: v for k, v in r.items() if k != "judge"} for r in rows])


def uuid7_hex_many(n: int) -> list[str]:
    """``n`` new time-ordered UUIDs (version 7, RFC 9562 §5.7) as 32 hex characters each, in ascending order.

    Layout: 48-bit Unix time in milliseconds (big-endian), version nibble 7, then an 18-bit counter 0, 1,
    2 ... in the 12 bits of ``rand_a`` and the 6 leftmost bits of ``rand_b`` after the variant bits 10
    (RFC 9562 §6.2, "Fixed Bit-Length Dedicated Counter"), then 56 random bits; the ``n`` ids of one call
    share the millisecond, so the counter puts them in order without sorting, and ids drawn by a later call
    (a later millisecond) sort after them. Score rows use them: a primary-key index over random UUID4 keys
    is dirtied all over by every batch of inserts, one over UUID7 keys only at its end, which makes writing
    100,000 score rows about a third faster (benchmarks/bench_scoring.py). They are still RFC UUIDs (56
    random bits each beside the time), so rows from several machines merge by id as before. More than
    2^18 ids in one call are drawn in several calls' worth of milliseconds.
    """
    if n <= 0:
        return []
    if n > _UUID7_COUNTER:
        out = uuid7_hex_many(_UUID7_COUNTER)
        while len(out) < n:
            time.sleep(0.001)                       # a later millisecond: the next part sorts after
            out += uuid7_hex_many(min(_UUID7_COUNTER, n - len(out)))
        return out
    raw = np.frombuffer(os.urandom(16 * n), dtype=np.uint8).reshape(n, 16).copy()
    raw[:, :6] = np.frombuffer((time.time_ns() // 1_000_000).to_bytes(6, "big"), dtype=np.uint8)
    counter = np.arange(n, dtype=np.uint32)
    raw[:, 6] = 0x70 | (counter >> 14)
    raw[:, 7] = (counter >> 6) & 0xFF
    raw[:, 8] = 0x80 | (counter & 0x3F)
    text = raw.tobytes().hex()
    return [text[i:i + 32] for i in range(0, 32 * n, 32)]


_UUID7_COUNTER = 1 << 18


# ---------------------------------------------------------------- reading
class StoredScore(NamedTuple):
    """One score row as read by ``score_rows``, with its answer's run and task. ``correct`` is a bool or
    None, ``judge`` a dict or None, ``created_at`` the stored text (ISO order; ``stamp_reader`` converts it)."""

    id: str
    answer_id: str
    scorer: str
    scorer_version: str
    value: float | None
    correct: bool | None
    explanation: str | None
    judge: dict | None
    author: str | None
    reason: str | None
    overrides_id: str | None
    created_at: Any
    run_id: str
    task_id: str
    answer_sha256: str | None = None
    truth_sha256: str | None = None
    scorer_sha256: str | None = None
    judged_truth: str | None = None

    @property
    def judged(self) -> Judged:
        """What the row judged (``scoring.staleness.Judged``)."""
        return Judged(self.answer_sha256, self.truth_sha256, self.scorer_sha256, self.judged_truth)


def in_list(column: str, values: Sequence[Any] | None) -> tuple[str, tuple]:
    """(`` AND column IN (?, ...)``, params) for a raw SQL filter; ('', ()) when ``values`` is None."""
    if values is None:
        return "", ()
    values = tuple(values)
    return (f" AND {column} IN ({', '.join('?' * len(values))})", values) if values else (" AND 1 = 0", ())


def sent_only(alias: str = "a") -> str:
    """The raw SQL filter `` AND <the answer was sent>`` for answer table ``alias``: it holds a reply (an empty one
    too) or the error of a failed call, or it was imported (an imported null prediction is the benchmark's "no
    prediction"). A *pending* answer of a model run (both NULL: a run stopped by the privacy gate, a face model that
    did not load, a lost connection, or not reached yet) was never asked, so it is not scored and the summaries
    count its task as missing for that run, not as a "no prediction" 0; resuming the run sends it."""
    return f" AND NOT {pending_sql(alias)}"


def pending_sql(alias: str = "a") -> str:
    """The raw SQL condition "answer ``alias`` is a model run's pending answer, never sent" (see ``sent_only``)."""
    return (f"({alias}.raw_text IS NULL AND {alias}.error IS NULL "
            f"AND {alias}.run_id IN (SELECT id FROM run WHERE kind = 'model'))")


def score_rows(session, scorer: str | None, run_ids: Sequence[str] | None, *,  # noqa: ANN001
               with_answers: bool = True, answer_ids_between: tuple[str, str] | None = None,
               answer_ids: Sequence[str] | None = None) -> list[StoredScore]:
    """Every score row of ``scorer`` (all when None) over the answers of ``run_ids`` (all when None), read
    with one Core query through the DB-API (``portable.plain_rows``: the ORM's per-row result processing took
    most of the time on 100,000 rows).

    ``with_answers=False`` skips the join with the answer table (its random primary-key lookups cost more
    than reading the scores): ``run_id`` and ``task_id`` are then None and ``run_ids`` must be None.
    ``answer_ids_between`` (first, last) keeps the rows of the answer ids in that closed range (a chunk of a
    streamed scoring); ``answer_ids`` keeps those of the answer ids given (at most 500: one ``IN`` list).
    """
    t, a = Score.__table__, Answer.__table__
    cols = (t.c.id, t.c.answer_id, t.c.scorer, t.c.scorer_version, t.c.value, t.c.correct, t.c.explanation,
            t.c.judge, t.c.author, t.c.reason, t.c.overrides_id, t.c.created_at)
    hashes = (t.c.answer_sha256, t.c.truth_sha256, t.c.scorer_sha256, t.c.judged_truth)
    if with_answers:
        q = select(*cols, a.c.run_id, a.c.task_id, *hashes).join_from(t, a, a.c.id == t.c.answer_id)
    elif run_ids is not None:
        raise ValueError("score_rows: run_ids need the join with the answer table")
    else:
        q = select(*cols, literal_column("NULL").label("run_id"), literal_column("NULL").label("task_id"), *hashes)
    if scorer is not None:
        q = q.where(t.c.scorer == scorer)
    if run_ids is not None:
        q = q.where(a.c.run_id.in_(list(run_ids)))
    if answer_ids_between is not None:
        q = q.where(t.c.answer_id.between(*answer_ids_between))
    if answer_ids is not None:
        q = q.where(t.c.answer_id.in_(list(answer_ids)))
    rows = portable.plain_rows(session, q)
    loads = json.loads
    return [StoredScore(r[0], r[1], r[2], r[3], r[4], None if r[5] is None else bool(r[5]), r[6],
                        None if r[7] is None else loads(r[7]), r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15],
                        r[16], r[17]) for r in rows]


raw_rows = portable.raw_rows


def heads(rows: Sequence[StoredScore]) -> dict[tuple[str, str], StoredScore]:
    """(answer_id, scorer) -> the row in force: a row no other row overrides, the newest (a person's row at
    equal times). A person's override replaces the machine row it overrides (``overrides_id``), so it is in
    force until the scoring writes a newer row beside it, which it does only once the person's verdict is
    stale (``scoring.staleness``)."""
    replaced = {r.overrides_id for r in rows if r.overrides_id}
    out: dict[tuple[str, str], StoredScore] = {}
    for r in rows:
        if r.id in replaced:
            continue
        key = (r.answer_id, r.scorer)
        old = out.get(key)
        if old is None or (r.created_at, r.author is not None) > (old.created_at, old.author is not None):
            out[key] = r
    return out


def stamp_reader(session) -> Any:  # noqa: ANN001
    """The ``Score.created_at`` column type's result processor (stored text -> datetime), or identity."""
    dialect = session.connection().dialect
    proc = Score.__table__.c.created_at.type.dialect_impl(dialect).result_processor(dialect, None)
    return proc or (lambda v: v)


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def hashes_now(session: Session, answer_id: str) -> dict[str, Any]:
    """The hash columns of a score a person sets now on ``answer_id`` (``answer_sha256``, ``truth_sha256``,
    ``judged_truth``): the person judged the answer and the ground truth as they are now. Empty when the answer
    is unknown (the caller raises)."""
    answer = session.get(Answer, answer_id)
    if answer is None:
        return {}
    task = session.get(Task, answer.task_id)
    inputs = TaskInputs(task.id, task.external_id, task.source, task.query, task.answer_type, task.ground_truth,
                        task.ground_truth_extra, task.eval_func, task.tolerances, task.extra)
    parsed = None if answer.parsed is None else json.dumps(answer.parsed)
    return {"answer_sha256": answer_sha(answer.raw_text, parsed, answer.error), "truth_sha256": truth_sha(inputs),
            "judged_truth": task.ground_truth}


def stale_reasons(session: Session, rows: Sequence[StoredScore]) -> dict[str, str]:
    """score id -> why it is stale (``staleness.stale_reason``), for the stale ones among ``rows`` (the rows in
    force a reader is about to show), compared with the answers and tasks as they are now and the scorers'
    registered versions. Reads the answers and tasks of ``rows`` (500 ids per query)."""
    from fieldstudio.scoring.scorers import REGISTRY        # the registry imports every scorer: only when read

    if not rows:
        return {}
    answer_ids = sorted({r.answer_id for r in rows})
    answers: dict[str, tuple] = {}
    for k in range(0, len(answer_ids), 500):
        clause, params = in_list("id", answer_ids[k:k + 500])
        for r in raw_rows(session, "SELECT id, task_id, raw_text, parsed, error FROM answer WHERE 1 = 1" + clause,
                          params):
            answers[r[0]] = r
    task_ids = sorted({a[1] for a in answers.values()})
    tasks: dict[str, TaskInputs] = {}
    for k in range(0, len(task_ids), 500):
        clause, params = in_list("id", task_ids[k:k + 500])
        for r in raw_rows(session, "SELECT id, external_id, source, query, answer_type, ground_truth, "
                                   "ground_truth_extra, eval_func, tolerances, extra FROM task WHERE 1 = 1" + clause,
                          params):
            tasks[r[0]] = TaskInputs(*r[:6], _json(r[6]), r[7], _json(r[8]), _json(r[9]))
    truths: dict[str, tuple[str, str | None]] = {}
    out: dict[str, str] = {}
    for row in rows:
        answer = answers.get(row.answer_id)
        if answer is None:
            continue
        task = tasks[answer[1]]
        if task.id not in truths:
            truths[task.id] = (truth_sha(task), task.ground_truth)
        t_sha, reference = truths[task.id]
        info = REGISTRY.get(row.scorer)
        reason = stale_reason(row.judged, answer_now=answer_sha(answer[2], answer[3], answer[4]), truth_now=t_sha,
                              reference_now=reference, scorer=row.scorer, version=row.scorer_version,
                              version_now=None if info is None else info.version, by_person=row.author is not None)
        if reason is not None:
            out[row.id] = reason
    return out


# ---------------------------------------------------------------- invalidating
def stale_scores_of(session: Session, answer_ids: Sequence[str]) -> int:
    """The number of scores in force (one per answer and scorer) of ``answer_ids``, read in the caller's
    transaction: the scores a changed answer text makes stale. Nothing is removed: each row keeps the hash of
    the text it judged (``Score.answer_sha256``), so readers show it stale with the reason and scoring again
    replaces exactly those (``scoring.staleness``); the history of a person's overrides stays. The answer
    import calls it through its ``replaced`` callback (``scoring.imported_answers``)."""
    ids = list(answer_ids)
    total = 0
    for k in range(0, len(ids), 500):                 # SQLite's bound-parameter limit
        part = ids[k:k + 500]
        replaced = select(Score.overrides_id).where(Score.overrides_id.is_not(None), Score.answer_id.in_(part))
        total += session.scalar(select(func.count()).select_from(Score).where(
            Score.answer_id.in_(part), Score.id.not_in(replaced))) or 0
    return total


def count_scores(project: Project) -> int:
    """Number of score rows in the project (every scorer, overrides and the rows they replace included)."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Score)) or 0


def count_stale_scores(project: Project) -> int:
    """Number of scores in force (one per answer and scorer, ``heads``) that are stale: their answer, ground truth
    or scorer changed since they were made (``stale_reasons``). Reads every score row and the answers and tasks
    they judged."""
    with project.read() as s:
        return len(stale_reasons(s, list(heads(score_rows(s, None, None)).values())))
