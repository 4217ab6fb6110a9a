"""The score store: writing score rows fast, reading them, and removing the scores an answer's change makes untrue.

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
from sqlalchemy import bindparam, delete, func, literal_column, null, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from fieldstudio.core.errors import ProjectReadOnly
from fieldstudio.store import portable
from fieldstudio.store.models import Answer, ResponseCache, Score, utcnow
from fieldstudio.store.project import Project

__all__ = ["ScoreWriter", "PlainInserts", "StoredScore", "score_rows", "raw_rows", "heads", "in_list", "stamp_reader",
           "uuid7_hex_many", "invalidate_scores", "count_scores", "FAST_SQLITE_WRITES", "WRITE_CACHE_KIB"]

FAST_SQLITE_WRITES = True
"""Write score rows to SQLite with the DB-API's executemany (False: SQLAlchemy Core, as for PostgreSQL)."""
WRITE_CACHE_KIB = 65536
"""SQLite page cache of a scoring write transaction (KiB): the score table's random UUID keys touch index
pages all over the file, and the default 2 MB cache makes 100,000 inserts several times slower."""


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
            writer.write("fs-match", now, inserts, updates, {})

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
              pending: Mapping[str, dict[str, Any]]) -> None:
        """One write transaction.

        Args:
            scorer: the ``Score.scorer`` of every inserted row.
            created_at: the ``Score.created_at`` of every inserted or updated row.
            inserts: (answer_id, scorer_version, value, correct, explanation, judge) per new row; ``correct``
                a bool or None, ``judge`` a dict or None (SQL NULL); or a ``PlainInserts`` (no judge, in
                answer-id order). Ids are new UUID7 hex strings (``uuid7_hex_many``).
            updates: (score_id, scorer_version, value, correct, explanation, judge) per changed row.
            pending: new judge cache entries (cache key -> response); existing keys are left alone.
        """
        if not (inserts or updates or pending):
            return
        if self._conn is None:
            with self.project.write() as s:
                _write_core(s, scorer, created_at, inserts.rows() if isinstance(inserts, PlainInserts) else inserts,
                            updates)
                for key, response in pending.items():
                    if s.get(ResponseCache, key) is None:
                        s.add(ResponseCache(key=key, response=response))
            return
        try:
            with self._conn.begin():
                self._conn.exec_driver_sql(f"PRAGMA cache_size=-{WRITE_CACHE_KIB}")   # random-key index inserts
                _write_sqlite(self._conn, scorer, created_at, inserts, updates)
                if pending:
                    self._conn.execute(portable.insert_ignoring_duplicates(ResponseCache, "sqlite"),
                                       [{"key": k, "response": v, "created_at": utcnow()} for k, v in pending.items()])
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


class PlainInserts:
    """New score rows without a judge as columns, in answer-id order: what deterministic scoring writes
    (``ScoreWriter.write`` takes it where it takes row tuples). Columns are equally long sequences:
    ``answer_ids``, ``versions``, ``values`` (float or None), ``correct`` (bool or None), ``explanations``.
    Passed to ``executemany`` zipped with the new ids, without building a tuple per row in Python."""

    __slots__ = ("answer_ids", "versions", "values", "correct", "explanations")

    def __init__(self, answer_ids: Sequence[str], versions: Sequence[str], values: Sequence[float | None],
                 correct: Sequence[bool | None], explanations: Sequence[str | None]) -> None:
        self.answer_ids, self.versions, self.values = answer_ids, versions, values
        self.correct, self.explanations = correct, explanations

    def __len__(self) -> int:
        return len(self.answer_ids)

    def rows(self) -> list[tuple]:
        """The (answer_id, scorer_version, value, correct, explanation, judge=None) tuples."""
        return list(zip(self.answer_ids, self.versions, self.values, self.correct, self.explanations,
                        itertools.repeat(None)))


_FIRST = operator.itemgetter(0)
_INSERT_SQL = ("INSERT INTO score (id, answer_id, scorer, scorer_version, value, correct, explanation, judge, "
               "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_PLAIN_SQL = ("INSERT INTO score (id, answer_id, scorer_version, value, correct, explanation, scorer, "
                     "created_at) VALUES (?, ?, ?, ?, ?, ?, {scorer}, {created_at})")
_UPDATE_SQL = ("UPDATE score SET scorer_version = ?, value = ?, correct = ?, explanation = ?, judge = ?, "
               "created_at = ? WHERE id = ?")


def _write_sqlite(conn, scorer: str, created_at: datetime, inserts: Sequence[tuple],  # noqa: ANN001
                  updates: Sequence[tuple]) -> None:
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
    plain_sql = _INSERT_PLAIN_SQL.format(scorer=_literal(scorer), created_at=_literal(stamp))
    if isinstance(inserts, PlainInserts):        # in answer order: the foreign key check and the answer_id
        if len(inserts):                         # index walk their B-trees in order, and the ascending ids
            cursor.executemany(plain_sql, zip(uuid7_hex_many(len(inserts)), inserts.answer_ids, inserts.versions,
                                              inserts.values, inserts.correct, inserts.explanations))
    elif inserts:                                # append to the key's index
        ordered = sorted(inserts, key=_FIRST)
        ids = uuid7_hex_many(len(ordered))
        plain = [r for r in ordered if r[5] is None]
        if plain:
            answer_ids, versions, values, correct, explanations, _ = zip(*plain)
            cursor.executemany(plain_sql, zip(ids, answer_ids, versions, values, correct, explanations))
        judged = [r for r in ordered if r[5] is not None]
        if judged:
            cursor.executemany(_INSERT_SQL, [(i, a, scorer, v, val, c, e, json.dumps(j), stamp)
                                             for i, (a, v, val, c, e, j) in zip(ids[len(plain):], judged)])
    if updates:
        cursor.executemany(_UPDATE_SQL, [(v, val, c, e, None if j is None else json.dumps(j), stamp, b)
                                         for b, v, val, c, e, j in updates])
    cursor.close()


def _literal(value: Any) -> str:
    """An SQL string literal (quotes doubled, SQL-92 §5.3), for values fieldstudio itself makes."""
    if not isinstance(value, str):
        raise TypeError(f"not a string: {value!r}")
    return "'" + value.replace("'", "''") + "'"


def _write_core(s, scorer: str, created_at: datetime, inserts: Sequence[tuple],  # noqa: ANN001
                updates: Sequence[tuple]) -> None:
    """Portable path (PostgreSQL): Core executemany; rows without a judge leave the JSON column SQL NULL."""
    t = Score.__table__
    ins = [{"id": i, "answer_id": a, "scorer": scorer, "scorer_version": v, "value": val, "correct": c,
            "explanation": e, "judge": j, "created_at": created_at}
           for i, (a, v, val, c, e, j) in zip(uuid7_hex_many(len(inserts)), sorted(inserts, key=_FIRST))]
    upd = [{"b_id": b, "scorer_version": v, "value": val, "correct": c, "explanation": e, "judge": j,
            "created_at": created_at} for b, v, val, c, e, j in updates]
    for with_judge in (True, False):
        rows = [r for r in ins if (r["judge"] is not None) == with_judge]
        if rows:
            s.execute(t.insert(), rows if with_judge else [{k: v for k, v in r.items() if k != "judge"} for r in rows])
        rows = [r for r in upd if (r["judge"] is not None) == with_judge]
        if rows:
            s.execute(update(t).where(t.c.id == bindparam("b_id")).values(
                scorer_version=bindparam("scorer_version"), value=bindparam("value"), correct=bindparam("correct"),
                explanation=bindparam("explanation"), created_at=bindparam("created_at"),
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


def in_list(column: str, values: Sequence[Any] | None) -> tuple[str, tuple]:
    """(`` AND column IN (?, ...)``, params) for a raw SQL filter; ('', ()) when ``values`` is None."""
    if values is None:
        return "", ()
    values = tuple(values)
    return (f" AND {column} IN ({', '.join('?' * len(values))})", values) if values else (" AND 1 = 0", ())


def score_rows(session, scorer: str | None, run_ids: Sequence[str] | None, *,  # noqa: ANN001
               with_answers: bool = True) -> list[StoredScore]:
    """Every score row of ``scorer`` (all when None) over the answers of ``run_ids`` (all when None), read
    with one Core query through the DB-API (``portable.plain_rows``: the ORM's per-row result processing took
    most of the time on 100,000 rows).

    ``with_answers=False`` skips the join with the answer table (its random primary-key lookups cost more
    than reading the scores): ``run_id`` and ``task_id`` are then None and ``run_ids`` must be None.
    """
    t, a = Score.__table__, Answer.__table__
    cols = (t.c.id, t.c.answer_id, t.c.scorer, t.c.scorer_version, t.c.value, t.c.correct, t.c.explanation,
            t.c.judge, t.c.author, t.c.reason, t.c.overrides_id, t.c.created_at)
    if with_answers:
        q = select(*cols, a.c.run_id, a.c.task_id).join_from(t, a, a.c.id == t.c.answer_id)
    elif run_ids is not None:
        raise ValueError("score_rows: run_ids need the join with the answer table")
    else:
        q = select(*cols, literal_column("NULL").label("run_id"), literal_column("NULL").label("task_id"))
    if scorer is not None:
        q = q.where(t.c.scorer == scorer)
    if run_ids is not None:
        q = q.where(a.c.run_id.in_(list(run_ids)))
    rows = portable.plain_rows(session, q)
    loads = json.loads
    return [StoredScore(r[0], r[1], r[2], r[3], r[4], None if r[5] is None else bool(r[5]), r[6],
                        None if r[7] is None else loads(r[7]), r[8], r[9], r[10], r[11], r[12], r[13]) for r in rows]


raw_rows = portable.raw_rows


def heads(rows: Sequence[StoredScore]) -> dict[tuple[str, str], StoredScore]:
    """(answer_id, scorer) -> the row in force: a row no other row overrides; a person's row first, then newest."""
    replaced = {r.overrides_id for r in rows if r.overrides_id}
    out: dict[tuple[str, str], StoredScore] = {}
    for r in rows:
        if r.id in replaced:
            continue
        key = (r.answer_id, r.scorer)
        old = out.get(key)
        if old is None or (r.author is not None, r.created_at) > (old.author is not None, old.created_at):
            out[key] = r
    return out


def stamp_reader(session) -> Any:  # noqa: ANN001
    """The ``Score.created_at`` column type's result processor (stored text -> datetime), or identity."""
    dialect = session.connection().dialect
    proc = Score.__table__.c.created_at.type.dialect_impl(dialect).result_processor(dialect, None)
    return proc or (lambda v: v)


# ---------------------------------------------------------------- invalidating
def invalidate_scores(session: Session, answer_ids: Sequence[str]) -> int:
    """Remove every score of ``answer_ids`` (a person's overrides too) in the caller's write transaction, because
    the answers' text changed and the scores judged the earlier text: kept, they would show a verdict on words
    never judged. Returns the number of score rows removed. The answer import calls it through its ``replaced``
    callback (``scoring.imported_answers``), so the answers and their scores change in one transaction."""
    if not answer_ids:
        return 0
    return session.execute(delete(Score).where(Score.answer_id.in_(list(answer_ids)))).rowcount or 0


def count_scores(project: Project) -> int:
    """Number of score rows in the project (every scorer, overrides and the rows they replace included)."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Score)) or 0
