"""Where a project lives: a ``.fieldstudio`` SQLite file or a PostgreSQL database named by a URL.

A shared project is named by an SQLAlchemy URL such as ``postgresql+psycopg://anna@db.site:5432/survey``.
The URL given by the user may carry a password; fieldstudio never keeps it: ``public_url`` drops it
before the URL is shown, logged or written to the recent-projects list. The password itself comes
from, in this order, the URL the user typed (this process only), libpq's own sources (``PGPASSWORD``
and ``~/.pgpass``, read by libpq when no password is passed, see
https://www.postgresql.org/docs/15/libpq-pgpass.html) or the OS keyring (the optional ``keyring``
package, service ``fieldstudio-postgresql``, user ``user@host:port/db``) when it is installed.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from typing import TYPE_CHECKING

from fieldstudio.core.errors import ProjectError
from fieldstudio.core.masking import mask_in_text

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

DATABASE_SCHEMES = ("postgresql", "postgresql+psycopg", "postgres")
"""URL schemes accepted as a shared project (``postgres://`` is libpq's short form)."""

KEYRING_SERVICE = "fieldstudio-postgresql"
__all__ = ["DATABASE_SCHEMES", "KEYRING_SERVICE", "DatabasePath", "connect_url", "is_database_url", "keyring_password",
           "keyring_user", "mask_in_text", "parse_url", "project_ref", "public_url"]

_URL_START = re.compile(r"^(postgresql(\+psycopg)?|postgres)://", re.IGNORECASE)


def is_database_url(ref: str | Path) -> bool:
    """True when ``ref`` names a PostgreSQL project (a URL or a shared project's ``DatabasePath``), False for
    a project file path."""
    if isinstance(ref, DatabasePath):
        return True
    return isinstance(ref, str) and bool(_URL_START.match(ref.strip()))


def parse_url(ref: str) -> URL:
    """The SQLAlchemy URL of a shared project, on the psycopg 3 driver.

    Raises ProjectError (naming the URL without its password) when it is not a PostgreSQL URL or names no database.
    """
    # SQLAlchemy is imported here, not at the top: the window checks its argument before SQLAlchemy loads
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    text = ref.strip()
    if text.lower().startswith("postgres://"):
        text = "postgresql://" + text[len("postgres://"):]
    try:
        url = make_url(text)
    except ArgumentError as exc:
        raise ProjectError(f"{mask_in_text(ref)}: is not a database URL ({exc})") from None
    if url.get_backend_name() != "postgresql":
        raise ProjectError(f"{mask_in_text(ref)}: only PostgreSQL URLs name a shared project")
    if not url.database:
        raise ProjectError(f"{public_url(url)}: names no database (postgresql+psycopg://user@host:port/DATABASE)")
    return url.set(drivername="postgresql+psycopg")


def public_url(url: "URL | str") -> str:
    """The URL as shown and stored: without its password (``postgresql+psycopg://anna@host:5432/db``)."""
    if isinstance(url, str):
        url = parse_url(url)
    return url._replace(password=None).render_as_string(hide_password=False)  # URL.set() cannot clear a field


def keyring_password(url: URL) -> str | None:
    """The password kept for ``url`` in the OS keyring, or None (no ``keyring`` package, none stored)."""
    try:
        import keyring
    except ImportError:
        return None
    try:
        return keyring.get_password(KEYRING_SERVICE, keyring_user(url))
    except Exception:  # noqa: BLE001 - a locked or absent keyring backend means "no password there"
        return None


def keyring_user(url: URL) -> str:
    """The keyring entry name of a URL: ``user@host:port/database``."""
    return f"{url.username or ''}@{url.host or 'localhost'}:{url.port or 5432}/{url.database}"


_session_passwords: dict[str, str] = {}
"""Passwords given in a URL during this process, by the URL without them: memory only, never written."""


def connect_url(ref: str) -> "URL":
    """The URL to connect with: the one given; one without password gets the password given earlier in this
    process for the same URL, else the keyring's.

    With no password anywhere in fieldstudio's hands, libpq still reads ``PGPASSWORD`` and ``~/.pgpass``.
    """
    url = parse_url(ref)
    public = public_url(url)
    if url.password is not None:
        _session_passwords[public] = str(url.password)
        return url
    password = _session_passwords.get(public) or keyring_password(url)
    return url if password is None else url.set(password=password)


class DatabasePath(PurePosixPath):
    """Stands for a shared project where a project file's ``Path`` is used: ``name`` and ``stem`` are the
    database name, ``str()`` is the URL without password. It is no file: it has no ``exists``."""

    _public = ""

    @classmethod
    def for_url(cls, url: URL) -> DatabasePath:
        """The stand-in path of a shared project's URL."""
        p = cls(url.database or "project")
        p._public = public_url(url)
        return p

    def __str__(self) -> str:
        return self._public or super().__str__()

    def __repr__(self) -> str:
        return f"DatabasePath({self._public!r})"


def project_ref(ref: str | Path) -> str | Path:
    """A command-line or recent-list project argument as ``Project.open`` takes it: a URL stays text,
    anything else becomes a ``Path``."""
    if isinstance(ref, DatabasePath):
        return str(ref)
    return ref.strip() if is_database_url(ref) else Path(ref)
