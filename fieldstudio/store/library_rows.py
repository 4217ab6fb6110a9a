"""The project's name, its media rows and their thumbnails, read with plain ``sqlite3`` (a shared project: one
small SQLAlchemy engine per server, kept for the process).

The library panel reads through here so that the window can show a project's name and its media list
before SQLAlchemy and the decoders are imported: a cold start on 5,000 media stays within the viewer
issue's budget (issue 3). Every function opens its own short read-only connection, so none outlives a
call or blocks a checkpoint.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from fieldstudio.core import media_roots
from fieldstudio.core.errors import ProjectError
from fieldstudio.core.file_names import from_printable
from fieldstudio.store import location
from fieldstudio.store.schema_revisions import file_revision, head_revision, read_only_connection


@dataclass
class MediaRow:
    """What the library shows of one media (``width``/``height`` upright pixels, ``duration_s`` seconds)."""

    id: str
    file_name: str
    kind: str
    status: str
    error: str | None
    path: str
    is_vfr: bool  # 0 or 1 as read from SQLite
    rotation: int
    width: int | None
    height: int | None
    duration_s: float | None
    page_count: int | None
    media_root: str | None = None  # the named media root ``path`` is relative to (core.media_roots)
    ocr_pages: tuple[int, ...] = ()  # 1-based numbers of the scanned pages (no text layer) OCR has not read yet

    def badges(self, missing: bool) -> list[str]:
        """Short warnings shown under the name: unreadable, damaged, missing file, VFR, rotated, needs OCR."""
        out = []
        if self.status != "ok":
            out.append("unreadable")
        elif self.error:  # an ok media with an error is damaged: part of it decodes (media/damage.py)
            out.append("damaged")
        if missing:
            out.append("missing file")
        if self.is_vfr:
            out.append("VFR")
        if self.rotation:
            out.append(f"rotated {self.rotation}°")
        if self.ocr_pages:
            out.append("needs OCR")
        return out


def resolve_media_path(folder: Path, stored: str, media_root: str | None = None) -> Path:
    """The file a media's stored ``path`` names: below this machine's folder of ``media_root`` when set (raises
    core.media_roots.MediaRootError when that root is not mapped here), else relative paths are below the
    project's ``folder``. A name stored as ``\\xNN`` escapes (not valid UTF-8, core.file_names) names the
    file with those bytes."""
    stored = from_printable(stored)
    if media_root:
        return media_roots.resolve(media_root, stored)
    p = Path(stored)
    return p if p.is_absolute() else folder / p


def is_current(path: Path) -> bool:
    """True when ``path`` is a project at this fieldstudio's schema (readable here without migrating).

    Raises ProjectError when the file cannot be opened or is not a project.
    """
    if location.is_database_url(path):
        rows = _query(path, "SELECT version_num FROM alembic_version")
        return bool(rows) and rows[0][0] == head_revision()
    return file_revision(path) == head_revision()


def _query_shared(ref: str, sql: str, args: tuple) -> list[tuple]:
    """``sql`` on a shared project, over the process's pool for its database (``engine.make_pg_engines``)."""
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.orm import Session

    from fieldstudio.store.engine import make_pg_engines
    from fieldstudio.store.portable import raw_rows

    url = location.connect_url(ref)
    try:
        with Session(make_pg_engines(url)[1]) as s:
            return raw_rows(s, sql, args)
    except DBAPIError as exc:
        raise ProjectError(f"{location.public_url(url)}: cannot be read "
                           f"({location.mask_in_text(str(exc.orig)).strip()})") from None


def _query(path: Path, sql: str, args: tuple = ()) -> list[tuple]:
    if location.is_database_url(path):
        return _query_shared(str(path), sql, args)
    con = read_only_connection(path)
    try:
        return con.execute(sql, args).fetchall()
    except sqlite3.DatabaseError as exc:
        raise ProjectError(f"{path}: cannot be read ({exc})") from exc
    finally:
        con.close()


def project_name(path: Path) -> str:
    """The project's display name (its ``name`` setting, else the file name without suffix)."""
    rows = _query(path, "SELECT value FROM project_setting WHERE key = 'name'")
    value = json.loads(rows[0][0]) if rows and rows[0][0] else None
    return str(value) if value else (location.DatabasePath.for_url(location.parse_url(str(path))).stem
                                     if location.is_database_url(path) else Path(path).stem)


def media_rows(path: Path, first: int | None = None) -> list[MediaRow]:
    """Every media of the project at ``path``, sorted by file name (case-insensitive), with the scanned pages
    (``DocumentPage.needs_ocr``) of its documents that OCR has not read yet. Raises ProjectError.

    ``first``: only the first ``first`` media by the database's ``lower(file_name)`` (a window's first screenful,
    read in about a millisecond where every row of 5,000 media takes 10-15 ms). SQLite lowers ASCII letters only,
    so where names differ beyond ASCII they may not be the first ``first`` of the full list: the caller compares.
    """
    limit = "" if first is None else f" ORDER BY lower(file_name) LIMIT {int(first)}"
    rows = _query(path, "SELECT id, file_name, kind, status, error, path, CASE WHEN is_vfr THEN 1 ELSE 0 END, "
                        "COALESCE(rotation, 0), width, height, duration_s, page_count, media_root FROM media" + limit)
    out = list(itertools.starmap(MediaRow, rows))
    scanned: dict[str, list[int]] = {}
    for media_id, page in _pages_waiting_for_ocr(path):
        scanned.setdefault(media_id, []).append(page + 1)
    for r in out:
        r.ocr_pages = tuple(scanned.get(r.id, ()))
    out.sort(key=lambda r: r.file_name.casefold())
    return out


def _pages_waiting_for_ocr(path: Path) -> list[tuple]:
    """(media id, page number) of the scanned pages OCR has not read yet (schema 0010_ocr_words); a file not yet
    migrated, read here before it is opened, has no ``ocr_engine``: all its scanned pages wait."""
    try:
        return _query(path, "SELECT media_id, page_number FROM document_page WHERE needs_ocr AND ocr_engine IS NULL "
                            "ORDER BY media_id, page_number")
    except ProjectError:
        return _query(path, "SELECT media_id, page_number FROM document_page WHERE needs_ocr "
                            "ORDER BY media_id, page_number")


def thumbnail_jpeg(path: Path, media_id: str) -> bytes | None:
    """The JPEG thumbnail of a media's first frame or page, or None when it has none."""
    rows = _query(path, "SELECT jpeg FROM thumbnail WHERE media_id = ? AND frame_index = 0", (media_id,))
    return rows[0][0] if rows else None


def thumbnail_jpegs(path: Path, media_ids: list[str]) -> dict[str, bytes]:
    """The JPEG thumbnails of ``media_ids`` (first frame or page) by media id, in one query; a media without one
    is absent. The library reads a screenful this way: a connection per thumbnail cost the GUI thread a file open
    and several waits for the interpreter lock each (stalls of 130-190 ms while a worker ran, at load 7)."""
    if not media_ids:
        return {}
    marks = ", ".join("?" * len(media_ids))
    rows = _query(path, f"SELECT media_id, jpeg FROM thumbnail WHERE frame_index = 0 AND media_id IN ({marks})",
                  tuple(media_ids))
    return {media_id: jpeg for media_id, jpeg in rows if jpeg}
