"""Whether a project's answers, tasks or scores changed since a moment, told without reading them (issue 37 item 4).

``TableState`` is what a kept finding compares (``scoring.currency_records``): the write generation and the row
counts of ``answer``, ``task`` and ``score``. Between two equal states nothing in those tables changed:

* an update or a delete fires the triggers of migration ``0011_score_currency``: on SQLite they delete every
  ``score_currency`` row (so a kept row is gone; the generation is always 0 there), on PostgreSQL they advance
  the sequence ``score_currency_generation`` (the generation), at once and without a lock;
* with no update or delete, an insert can only raise a row count.

``hold_writers`` makes a write transaction see a state no other writer is changing: SQLite's ``BEGIN IMMEDIATE``
(``store.engine``) already excludes them; on PostgreSQL ``LOCK TABLE ... IN SHARE MODE`` waits for the writers of
the three tables in flight to commit and holds new ones until the transaction ends.
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import text
from sqlalchemy.orm import Session

from fieldstudio.store.portable import raw_rows

__all__ = ["TableState", "table_state", "hold_writers", "WATCHED"]

WATCHED = ("answer", "task", "score")
"""The tables whose changes end a kept finding (the triggers of ``0011_score_currency``)."""


class TableState(NamedTuple):
    """The write generation (PostgreSQL's sequence; 0 on SQLite) and the row counts of the watched tables."""

    generation: int
    answer_rows: int
    task_rows: int
    score_rows: int


def table_state(session: Session) -> TableState:
    """The state of ``session``'s project now: one statement (the counts read each table's smallest index)."""
    postgres = session.get_bind().dialect.name == "postgresql"
    generation = ("(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM score_currency_generation)"
                  if postgres else "0")
    row = raw_rows(session, f"SELECT {generation}, " + ", ".join(f"(SELECT count(*) FROM {t})" for t in WATCHED))[0]
    return TableState(*(int(v) for v in row))


def hold_writers(session: Session) -> None:
    """In a write transaction: no other writer changes the watched tables until it ends (see the module)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("LOCK TABLE " + ", ".join(WATCHED) + " IN SHARE MODE"))
