"""The schema revisions this fieldstudio knows, and the one stored in a project file.

Plain ``sqlite3`` and the migration scripts' text only: the window reads a project's revision before
SQLAlchemy and Alembic are imported, which keeps its cold start short (issue 3).
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from pathlib import Path

from fieldstudio.core.errors import ProjectError

MIGRATIONS = Path(__file__).with_name("migrations")

_REVISION_LINE = re.compile(r"^revision(?::\s*str)?\s*=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)
_DOWN_LINE = re.compile(r"^down_revision(?::[^=]*)?\s*=\s*(None|['\"]([^'\"]+)['\"])", re.MULTILINE)


@functools.lru_cache(maxsize=1)
def _revision_graph() -> dict[str, str | None]:
    """revision -> down_revision, read from the migration scripts' ``revision =`` lines (as Alembic does)."""
    graph: dict[str, str | None] = {}
    for script in sorted((MIGRATIONS / "versions").glob("*.py")):
        text = script.read_text(encoding="utf-8")
        rev, down = _REVISION_LINE.search(text), _DOWN_LINE.search(text)
        if rev:
            graph[rev.group(1)] = down.group(2) if down else None
    return graph


def head_revision() -> str:
    """The newest schema revision this fieldstudio knows (the one no other revision points down to)."""
    graph = _revision_graph()
    heads = set(graph) - {d for d in graph.values() if d}
    if len(heads) != 1:
        raise ProjectError(f"{MIGRATIONS}: expected one head revision, found {sorted(heads)}")
    return heads.pop()


def known_revisions() -> set[str]:
    """Every schema revision this fieldstudio knows."""
    return set(_revision_graph())


def sqlite_uri(path: Path, *, read_only: bool = False) -> str:
    """The ``file:`` URI SQLite opens ``path`` by (``sqlite3.connect(uri, uri=True)``), ``mode=ro`` if asked.

    Read-only in a folder that cannot be written (a read-only medium, a folder without write permission), the
    file is also opened ``immutable=1``: SQLite then reads it without the lock files a WAL database otherwise
    creates beside it (and could not, there), which is safe because nothing can change the file meanwhile.
    Percent-encoded by ``Path.as_uri``, so a name with "#", "?" or "%" names this very file."""
    uri = Path(path).resolve().as_uri()
    if not read_only:
        return uri
    return uri + ("?mode=ro" if os.access(Path(path).resolve().parent, os.W_OK) else "?mode=ro&immutable=1")


def read_only_connection(path: Path) -> sqlite3.Connection:
    """A plain ``sqlite3`` connection opened with ``mode=ro``; raises ProjectError naming the file."""
    try:
        return sqlite3.connect(sqlite_uri(path, read_only=True), uri=True)
    except sqlite3.Error as exc:
        raise ProjectError(f"{path}: cannot be opened ({exc})") from exc


def file_revision(path: Path) -> str | None:
    """The Alembic revision stored in ``path``; None for an empty database.

    Raises ProjectError when the file cannot be opened, is another SQLite database or is damaged.
    """
    con = read_only_connection(path)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "alembic_version" not in tables:
            if tables:
                raise ProjectError(f"{path}: is an SQLite file but not a fieldstudio project")
            return None
        row = con.execute("SELECT version_num FROM alembic_version").fetchone()
        return row[0] if row else None
    except sqlite3.DatabaseError as exc:
        raise ProjectError(f"{path}: is not a fieldstudio project or is damaged ({exc})") from exc
    finally:
        con.close()
