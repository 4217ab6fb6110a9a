"""What an environmental failure means to a user, in one line: a full disk, a refused permission, a read-only
medium, a PostgreSQL server that cannot be reached or went away during a command.

The command line's entry point asks `one_line` about an exception no command handled; a known kind becomes
``<file or server>: <reason>`` (exit 2) instead of a traceback, which goes to the log. Secrets are masked.
"""

from __future__ import annotations

import errno
import sys

from fieldstudio.core.masking import mask_in_text

_SERVER_GONE = ("server closed the connection", "terminating connection", "the database system is shutting down",
                "the database system is starting up", "connection refused", "could not connect",
                "connection to server", "no connection to the server", "ssl syscall", "connection timed out",
                "connection is closed", "connection already closed", "consuming input failed",
                "server conn crashed", "broken pipe", "connection is lost")
_OS_REASONS = {errno.ENOSPC: "no space left on the device (disk full)", errno.EACCES: "permission denied",
               errno.EPERM: "operation not permitted", errno.EROFS: "the medium is read-only",
               errno.EDQUOT: "the disk quota is used up", errno.EIO: "input/output error (a failing disk or medium?)"}


def _lost_connection(e: BaseException) -> bool:
    """psycopg's own word that the connection is gone (an OperationalError on a closed connection), whatever its
    message says: a server stopped in the middle of a COPY reports it in words no list foresees."""
    psycopg = sys.modules.get("psycopg")
    orig = getattr(e, "orig", e)
    if psycopg is None or not isinstance(orig, psycopg.OperationalError):
        return False
    connection = getattr(getattr(e, "connection", None), "driver_connection", None)
    return bool(getattr(connection, "closed", False)) or getattr(e, "connection_invalidated", False)


def one_line(exc: BaseException, where: str | None = None) -> str | None:
    """``<where>: <reason>`` for a failure of the disk, the file system or the database server; None for anything
    else (a bug: its traceback should be seen). `where` names the project (a file or URL) when the failure
    itself names nothing."""
    chain = _chain(exc)
    for e in chain:
        if isinstance(e, OSError) and not _is_database_error(e):
            name = e.filename if isinstance(e.filename, str) else where
            reason = _OS_REASONS.get(e.errno or -1) or (e.strerror or type(e).__name__)
            return mask_in_text(f"{name or 'fieldstudio'}: {reason}")
    for e in chain:
        if _is_database_error(e):
            text = " ".join(str(getattr(e, "orig", None) or e).split())
            lowered = text.lower()
            place = where or "the project"
            if "database or disk is full" in lowered or "no space left" in lowered:
                return mask_in_text(f"{place}: the disk is full (database or disk is full); nothing more was saved")
            if "readonly database" in lowered or "read-only" in lowered:
                return mask_in_text(f"{place}: is read-only; nothing was changed")
            if any(sign in lowered for sign in _SERVER_GONE) or _lost_connection(e):
                return mask_in_text(f"{place}: the PostgreSQL server went away or cannot be reached "
                                    f"({_first_sentence(text)}); what was committed is kept, run the command again "
                                    "when the server is back")
            return mask_in_text(f"{place}: the database failed ({_first_sentence(text)})")
    return None


def short_reason(exc: BaseException) -> str:
    """A database error's own reason on one line, without the SQL statement and parameters SQLAlchemy appends."""
    return _first_sentence(" ".join(str(getattr(exc, "orig", None) or exc).split()))


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    while exc is not None and exc not in out and len(out) < 10:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return out


def _is_database_error(exc: BaseException) -> bool:
    names = {f"{c.__module__}.{c.__name__}" for c in type(exc).__mro__}
    return any(n.startswith(("sqlalchemy.exc.", "sqlite3.", "psycopg.", "psycopg2.")) and
               n.rsplit(".", 1)[1] in ("OperationalError", "DBAPIError", "InterfaceError", "DatabaseError")
               for n in names)


def _first_sentence(text: str, limit: int = 160) -> str:
    first = text.split("[SQL:")[0].strip().rstrip(".")
    return first[:limit] + ("…" if len(first) > limit else "")
