"""Environmental failures in one line (issue 36 item 5): a full disk, a refused permission, a read-only medium, a
PostgreSQL server gone; secrets masked; a bug is not hidden."""

from __future__ import annotations

import errno
import sqlite3
import subprocess
import sys

import pytest
from sqlalchemy.exc import OperationalError

from fieldstudio.store.failures import one_line


def _wrapped(message: str) -> OperationalError:
    return OperationalError("INSERT INTO media ...", {}, sqlite3.OperationalError(message))


@pytest.mark.parametrize("exc, expected", [
    (_wrapped("database or disk is full"),
     "p.fieldstudio: the disk is full (database or disk is full); nothing more was saved"),
    (_wrapped("attempt to write a readonly database"), "p.fieldstudio: is read-only; nothing was changed"),
    (OSError(errno.ENOSPC, "No space left on device", "/media/out.csv"),
     "/media/out.csv: no space left on the device (disk full)"),
    (PermissionError(errno.EACCES, "Permission denied", "/root/x.json"), "/root/x.json: permission denied"),
    (OSError(errno.EROFS, "Read-only file system", "/cd/p.fieldstudio"), "/cd/p.fieldstudio: the medium is read-only"),
])
def test_known_failures_are_one_line(exc, expected):
    assert one_line(exc, "p.fieldstudio") == expected


def test_a_server_gone_names_the_server_without_its_password():
    exc = OperationalError("SELECT 1", {}, Exception(
        "terminating connection due to administrator command\nserver closed the connection unexpectedly"))
    message = one_line(exc, "postgresql+psycopg://ann:s3cret@db:5432/site")
    assert message.startswith("postgresql+psycopg://ann:***@db:5432/site: the PostgreSQL server went away or cannot "
                              "be reached (terminating connection due to administrator command server closed")
    assert "s3cret" not in message and "\n" not in message


def test_a_bug_is_not_turned_into_a_message():
    assert one_line(KeyError("x")) is None and one_line(ValueError("bad")) is None


def test_the_command_line_prints_one_line_and_exits_2_on_a_full_disk(tmp_path):
    """`add` into a project whose writes fail as SQLite fails on a full disk (SQLITE_FULL, injected in the child by
    a sitecustomize that makes every INSERT INTO media raise it)."""
    project = tmp_path / "p.fieldstudio"
    subprocess.run([sys.executable, "-m", "fieldstudio", "new", str(project)], check=True, capture_output=True)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import sqlite3\n"
        "from sqlalchemy import event\nfrom sqlalchemy.engine import Engine\n"
        "@event.listens_for(Engine, 'before_cursor_execute')\n"
        "def full(conn, cursor, statement, *args):\n"
        "    if statement.lstrip().upper().startswith('INSERT INTO MEDIA'):\n"
        "        raise sqlite3.OperationalError('database or disk is full')\n")
    from tests.conftest import SAMPLE
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "fieldstudio", "add", str(project), str(SAMPLE / "images")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (f"error: {project}: the disk is full (database or disk is full); "
                                                    "nothing more was saved")
