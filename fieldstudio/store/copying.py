"""Copying a whole project between back ends: a ``.fieldstudio`` file to a PostgreSQL database and back (issue 22).

Every table is copied row for row with the same ids, parents before children (the tables' foreign-key
order), in one write transaction on the destination, so a copy that fails leaves no half project behind.
Values keep their meaning across the two: times are stored as UTC (SQLite hands back naive UTC datetimes,
PostgreSQL aware ones), a JSON column's SQL NULL stays SQL NULL and a stored JSON ``null`` stays JSON
``null``. Media paths stay as they are when they are under a named media root (each machine maps the root,
``fieldstudio.media.roots``); a path relative to the source file's folder is made absolute, or relative to
the destination file's folder when the file lies below it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from sqlalchemy import JSON, DateTime, MetaData, bindparam, func, select, text, update
from sqlalchemy.orm import Session

from fieldstudio.core.errors import ProjectError
from fieldstudio.store.models import Base, ChangeLog, Media, Score
from fieldstudio.store.project import Project

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
