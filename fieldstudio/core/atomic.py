"""Atomic file writes: a temporary file in the same folder, flushed, fsynced, then ``os.replace``d.

A crash during a write leaves the old file (or none), never a half-written one (STYLE.md §2). A write never
replaces a SQLite database (a project file given by mistake as an export's destination: ``report P -o P``) unless
the caller says it writes one (``project copy``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from fieldstudio.core.errors import FieldstudioError

SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database (every project file)."""


class ReplacesDatabase(FieldstudioError):
    """A file was to be written over a SQLite database (a project?) that is not meant to be replaced."""


def refuse_database_target(path: Path) -> None:
    """Raise ReplacesDatabase when ``path`` is an existing SQLite database (read from its first 16 bytes); an
    absent or unreadable file passes (the write itself then says why it fails)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError:
        return
    if head == SQLITE_MAGIC:
        raise ReplacesDatabase(f"{path} is a database (a fieldstudio project?): it is not written over; "
                               "choose another file name")


@contextlib.contextmanager
def atomic_path(path: Path, *, replaces_database: bool = False) -> Iterator[Path]:
    """A new empty temporary file beside ``path``, for writers that need a file name (SQLite's backup API).

    Raises ReplacesDatabase, before anything is written, when ``path`` is an existing SQLite database and
    ``replaces_database`` is False.

    When the block ends without an error the file is fsynced, given the permissions any new file would
    have, and ``os.replace``s ``path``; otherwise it is removed and ``path`` is left as it was.
    """
    path = Path(path)
    if not replaces_database:
        refuse_database_target(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDWR)      # fsync needs a writable handle on Windows
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        # mkstemp makes the file private (0600); an export gets the permissions any new file would
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_writer(path: Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path`` for writing; on success it replaces ``path`` atomically."""
    binary = "b" in mode
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if binary else encoding,
                                        newline=None if binary else "") as fh:
        yield fh


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it; put it straight back
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_writer(path, "wb") as fh:
        fh.write(data)


def atomic_write_text(path: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    with atomic_writer(path, "w") as fh:
        fh.write(text)
