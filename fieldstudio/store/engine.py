"""SQLite engines with WAL, foreign keys, a busy timeout and ``BEGIN IMMEDIATE`` write transactions.

The recipe follows SQLAlchemy's documented pysqlite set-up for serialisable SQLite transactions; see
``../shared/reference/pitfalls.md`` §13 for why the default set-up loses updates.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from fieldstudio.store.schema_revisions import sqlite_uri

BUSY_TIMEOUT_MS = 5000


def make_engine(path: Path, *, read_only: bool = False, for_reads: bool = False) -> Engine:
    """Return an engine on the SQLite file ``path``.

    Every connection gets ``journal_mode=WAL`` (unless read-only), ``foreign_keys=ON`` and
    ``busy_timeout=5000`` ms. Every transaction starts with ``BEGIN IMMEDIATE`` so a read-then-write
    unit of work holds the write lock from its first statement. An engine ``for_reads`` uses a plain
    deferred ``BEGIN`` (in WAL mode readers never wait for the writer); a ``read_only`` one also
    opens the file with ``mode=ro``.
    """
    uri = sqlite_uri(path, read_only=read_only)
    deferred = read_only or for_reads
    # The file is opened by our own creator with the percent-encoded URI: written into an SQLAlchemy URL,
    # a name with "#", "?" or "%20" is decoded on the way and SQLite opens (and creates) another file.
    # NullPool: one short-lived connection per unit of work, so no connection outlives its thread.
    engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True), poolclass=NullPool)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):  # noqa: ANN001 - DB-API objects
        dbapi_conn.isolation_level = None  # SQLAlchemy's "begin" event issues BEGIN itself
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        if not read_only:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):  # noqa: ANN001
        conn.exec_driver_sql("BEGIN" if deferred else "BEGIN IMMEDIATE")

    return engine
