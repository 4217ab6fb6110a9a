"""Atomic file writes: a temporary file in the same folder, flushed, fsynced, then ``os.replace``d.

A crash during a write leaves the old file (or none), never a half-written one (STYLE.md §2).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A new empty temporary file beside ``path``, for writers that need a file name (SQLite's backup API).

    When the block ends without an error the file is fsynced, given the permissions any new file would
    have, and ``os.replace``s ``path``; otherwise it is removed and ``path`` is left as it was.
    """
    path = Path(path)
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
