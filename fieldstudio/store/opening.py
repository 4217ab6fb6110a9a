"""What a front needs from the store around opening a project, so that it never imports SQLAlchemy itself:
the ORM made ready before the first query, and the errors a damaged project file raises when a page of it is
read late (after ``Project.open`` succeeded)."""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import DatabaseError
from sqlalchemy.orm import configure_mappers

#: What reading a damaged project file raises: through SQLAlchemy, or through the plain sqlite3 reads of
#: ``store.library_rows``.
DAMAGED_DATABASE_ERRORS: tuple[type[Exception], ...] = (DatabaseError, sqlite3.DatabaseError)


def prepare_orm() -> None:
    """Import the SQLite dialect and the models and configure the mappers: what a project's first query would
    otherwise do (tens of milliseconds; the window does it on a worker). Safe to call more than once."""
    import sqlalchemy.dialects.sqlite  # noqa: F401 - loaded here rather than on the first query

    from fieldstudio.store import models  # noqa: F401 - the mappers to configure

    configure_mappers()
