"""Copying a whole project between back ends: a ``.fieldstudio`` file to a PostgreSQL database and back (issue 22).

Every table is copied row for row with the same ids, parents before children (the tables' foreign-key
order), in one write transaction on the destination, so a copy that fails leaves no half project behind.
Values keep their meaning across the two: times are stored as UTC (SQLite hands back naive UTC datetimes,
PostgreSQL aware ones), a JSON column's SQL NULL stays SQL NULL and a stored JSON ``null`` stays JSON
``null``. Media paths stay as they are when they are under a named media root (each machine maps the root,
``fieldstudio.media.roots``); a path relative to the source file's folder is made absolute, or relative to
the destination file's folder when the file lies below it.

`copy_project` is the command: a file destination is written as a temporary file in its folder and moved into
place only once complete (a copy that fails or is killed leaves no half project under the destination's name;
the temporaries a killed copy left are removed by the next one); a destination that exists is accepted when it
holds nothing (0 bytes, or a project without a single record: what an interrupted copy or `fieldstudio new`
leaves) and refused otherwise. A PostgreSQL destination is copied in one transaction into a database that is
new or holds an empty project.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from sqlalchemy import JSON, DateTime, MetaData, bindparam, func, select, text, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from fieldstudio.core.errors import ProjectError
from fieldstudio.store import location
from fieldstudio.store.models import Base, ChangeLog, Media, Score
from fieldstudio.store.project import Project

#: Tables an empty project holds rows in: its name and creation time, and the schema's revision.
_BOOKKEEPING_TABLES = {"project_setting", "alembic_version"}

BATCH = 5000
"""Rows read and inserted per statement."""


@dataclass
class CopyReport:
    """What ``copy_project_data`` copied: rows per table (every table, 0 included)."""

    rows: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Rows copied in all."""
        return sum(self.rows.values())


def _target_tables() -> tuple[MetaData, list]:
    """The tables in foreign-key order, JSON columns typed so that None binds as SQL NULL (``JSON.NULL``
    is then the JSON ``null``)."""
    meta = MetaData()
    tables = [t.to_metadata(meta) for t in Base.metadata.sorted_tables]
    for t in tables:
        for c in t.columns:
            if isinstance(c.type, JSON):
                c.type = JSON(none_as_null=True)
    return meta, tables


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def copy_project_data(src: Project, dst: Project, *, progress: Callable[[int, int], None] | None = None) -> CopyReport:
    """Copy every row of ``src`` into ``dst``, a project just made (nothing in it but its name and creation time,
    which are replaced by the source's). ``progress(done_tables, total_tables)``.

    Raises ProjectError when ``dst`` already holds media, tasks or annotations, or when ``src`` and ``dst`` are
    one project.
    """
    if src.location == dst.location:
        raise ProjectError(f"{src.path}: source and destination are the same project")
    with dst.read() as s:
        held = s.scalar(select(func.count()).select_from(Media))
    if held:
        raise ProjectError(f"{dst.path}: holds {held} media already; copy into a new, empty project")
    _, tables = _target_tables()
    report = CopyReport()
    dst_file = None if dst.is_shared else dst.folder
    with src.read() as rs, dst.write() as ws:
        ws.execute(text("DELETE FROM project_setting"))
        for n, table in enumerate(tables):
            json_cols = [c.name for c in table.columns if isinstance(c.type, JSON)]
            time_cols = [c.name for c in table.columns if isinstance(c.type, DateTime)]
            source = Base.metadata.tables[table.name]
            flags = [source.c[name].is_(None).label(f"_null_{name}") for name in json_cols]
            query = select(*source.columns, *flags).order_by(*source.primary_key.columns)
            count = 0
            pending: list[dict] = []
            for row in rs.execute(query).mappings():
                values = {c.name: row[c.name] for c in source.columns}
                for name in json_cols:
                    if values[name] is None and not row[f"_null_{name}"]:
                        values[name] = JSON.NULL            # a stored JSON null, not SQL NULL
                for name in time_cols:
                    values[name] = _utc(values[name])
                if table.name == "media" and values["media_root"] is None:
                    values["path"] = _moved_path(src, dst_file, values["path"])
                if table.name == "score":
                    values["overrides_id"] = None           # set below, once every score row exists
                pending.append(values)
                if len(pending) >= BATCH:
                    ws.execute(table.insert(), pending)
                    count += len(pending)
                    pending = []
            if pending:
                ws.execute(table.insert(), pending)
                count += len(pending)
            report.rows[table.name] = count
            if progress:
                progress(n + 1, len(tables))
        overrides = rs.execute(select(Score.id, Score.overrides_id).where(Score.overrides_id.is_not(None))).all()
        if overrides:
            t = Score.__table__
            ws.execute(update(t).where(t.c.id == bindparam("b_id")).values(overrides_id=bindparam("b_over")),
                       [{"b_id": i, "b_over": o} for i, o in overrides])
        _reset_counter(ws, dst)
    return report


def _reset_counter(session: Session, dst: Project) -> None:
    """After rows with explicit ``seq`` values, PostgreSQL's sequence must continue above them."""
    if dst.is_shared:
        top = session.scalar(select(func.max(ChangeLog.seq)))
        session.execute(text("SELECT setval(pg_get_serial_sequence('change_log', 'seq'), :v, :called)"),
                        {"v": top or 1, "called": top is not None})


def _moved_path(src: Project, dst_folder: Path | None, stored: str) -> str:
    """A media path relative to the source file's folder, as the destination stores it (see module doc)."""
    p = PurePosixPath(stored)
    if p.is_absolute() or src.is_shared:
        absolute = Path(stored)
    else:
        absolute = src.folder / Path(*p.parts)
    if dst_folder is not None:
        try:
            return absolute.relative_to(dst_folder).as_posix()
        except ValueError:
            pass
    return absolute.as_posix()


def copy_project(src: Project, dst: Path | str, *,
                 progress: Callable[[int, int], None] | None = None) -> tuple[CopyReport, str]:
    """Copy `src` into a new project at `dst` (a ``.fieldstudio`` path or a PostgreSQL URL); returns the report and
    the destination as it may be shown (a URL without its password).

    See the module's docstring for how a file destination is written. Raises ProjectError naming the destination
    when it holds records already, or cannot be written (the reason: disk full, permission denied...); nothing is
    then left under its name.
    """
    if location.is_database_url(str(dst)):
        return _copy_into_database(src, str(dst), progress)
    dst = Path(dst)
    _refuse_unless_empty(dst)
    _remove_left_temporaries(dst)
    temp = dst.with_name(f".{dst.name}.copy-{os.getpid()}")
    try:
        target = Project.create(temp)
        try:
            report = copy_project_data(src, target, progress=progress)
        finally:
            target.close()
        if [p for p in _sidecars(temp) if not p.name.endswith("-shm")]:   # a log not folded back: not whole
            raise ProjectError(f"{dst}: the copy could not be completed (its write-ahead log is still open)")
        os.replace(temp, dst)
        _sync_folder(dst.parent)
    except OperationalError as exc:
        _remove(temp)
        raise ProjectError(f"{dst}: cannot be written ({str(exc.orig).strip()})") from None
    except OSError as exc:
        _remove(temp)
        raise ProjectError(f"{dst}: cannot be written ({exc.strerror or exc})") from None
    except BaseException:
        _remove(temp)
        raise
    return report, str(dst)


def _copy_into_database(src: Project, ref: str, progress: Callable[[int, int], None] | None) -> tuple[CopyReport, str]:
    try:
        target = Project.create(ref)
    except ProjectError:
        target = Project.open(ref)               # a project already there: accepted when it holds nothing
        if not _holds_nothing(target):
            where = target.location
            target.close()
            raise ProjectError(f"{where}: the database already holds a fieldstudio project with records; copy into "
                               "a new or empty one") from None
    try:
        return copy_project_data(src, target, progress=progress), target.location
    finally:
        target.close()


def _holds_nothing(project: Project) -> bool:
    """Whether every table of `project` but its bookkeeping ones is empty."""
    _, tables = _target_tables()
    with project.read() as s:
        return all(s.scalar(select(func.count()).select_from(t)) == 0 for t in tables
                   if t.name not in _BOOKKEEPING_TABLES)


def _refuse_unless_empty(dst: Path) -> None:
    """Raises ProjectError unless `dst` is missing, 0 bytes, or an SQLite file whose tables hold nothing but an
    empty project's bookkeeping rows (read with sqlite3, read-only: an older project is not migrated for this)."""
    if not dst.exists() or (dst.is_file() and dst.stat().st_size == 0):
        return
    refusal = ProjectError(f"{dst}: exists and is not an empty project; copy into a new or empty one")
    if not dst.is_file():
        raise refusal
    try:
        with sqlite3.connect(f"file:{dst}?mode=ro", uri=True) as db:
            names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            if "project_setting" not in names:
                raise refusal
            for name in names:
                if name not in _BOOKKEEPING_TABLES and not name.startswith("sqlite_"):
                    if db.execute(f'SELECT EXISTS (SELECT 1 FROM "{name}")').fetchone()[0]:
                        raise refusal
    except sqlite3.Error:
        raise refusal from None


_SIDECARS = ("-wal", "-shm", "-journal")


def _sidecars(path: Path) -> list[Path]:
    """SQLite's files beside a database: its write-ahead log, shared memory and rollback journal."""
    return [p for p in (path.with_name(path.name + end) for end in _SIDECARS) if p.exists()]


def _remove(path: Path) -> None:
    for p in (path, *_sidecars(path)):
        try:
            p.unlink()
        except OSError:
            pass


def _remove_left_temporaries(dst: Path) -> None:
    """Remove the temporary files of earlier copies to `dst` whose process is gone (killed)."""
    for temp in dst.parent.glob(f".{dst.name}.copy-*"):
        pid = temp.name.rsplit(".copy-", 1)[1]
        if not pid.isdigit():                    # a sidecar: removed with its database below
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            _remove(temp)
        except OSError:                          # alive under another user: not ours to remove
            continue


def _sync_folder(folder: Path) -> None:
    """fsync the folder, so that the rename survives a power cut (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
