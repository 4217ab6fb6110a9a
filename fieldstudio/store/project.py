"""A project: one SQLite file (``*.fieldstudio``) holding media, annotations, tasks, ratings and runs.

Opening a project checks its schema revision against the migrations this fieldstudio knows:
a file from a newer fieldstudio is refused; an older one is copied aside (``name.fieldstudio.bak-<rev>``)
and migrated with Alembic. Every write is one short ``BEGIN IMMEDIATE`` transaction (``Project.write``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from fieldstudio.core.atomic import atomic_path
from fieldstudio.core.errors import ProjectError, ProjectReadOnly
from fieldstudio.store.engine import make_engine
from fieldstudio.store.models import ProjectSetting, utcnow
from fieldstudio.store.schema_revisions import (MIGRATIONS, file_revision, head_revision, known_revisions,
                                                read_only_connection)

PROJECT_SUFFIX = ".fieldstudio"
_UPGRADE_LOCK = threading.Lock()


def _alembic_config():  # noqa: ANN202 - alembic.config.Config
    # alembic is imported only to migrate: it costs a large part of a second at start-up
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


class Project:
    """An open project file.

    Use ``Project.create(path)`` or ``Project.open(path)``; close with ``close()`` or a ``with`` block.
    ``read()`` yields a session for queries; ``write()`` yields a session whose changes are committed
    in one ``BEGIN IMMEDIATE`` transaction when the block ends (rolled back on error).
    """

    def __init__(self, path: Path, *, read_only: bool):
        self.path = Path(path).resolve()
        self.read_only = read_only
        self.engine = make_engine(self.path, read_only=read_only)
        self.read_engine = make_engine(self.path, read_only=read_only, for_reads=True)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(self.read_engine, expire_on_commit=False)

    # -- opening -------------------------------------------------------------------------------------
    @classmethod
    def create(cls, path: Path | str, *, name: str | None = None, exist_ok: bool = False) -> Project:
        """Create a new project file at ``path`` and return it open.

        Raises ProjectError if the file exists (unless ``exist_ok``, which opens it instead) and
        ProjectReadOnly if its folder cannot be written.
        """
        path = Path(path)
        if path.exists():
            if exist_ok:
                return cls.open(path)
            raise ProjectError(f"{path}: already exists; open it or choose another name")
        if not path.parent.exists():
            raise ProjectError(f"{path}: folder {path.parent} does not exist")
        if not os.access(path.parent, os.W_OK):
            raise ProjectReadOnly(f"{path}: folder {path.parent} cannot be written")
        project = cls(path, read_only=False)
        project._upgrade()
        with project.write() as s:
            s.add(ProjectSetting(key="name", value=name or path.stem))
            s.add(ProjectSetting(key="created_at", value=utcnow().isoformat()))
        return project

    @classmethod
    def open(cls, path: Path | str) -> Project:
        """Open an existing project, migrating an older one after copying it aside.

        Raises ProjectError when the file is missing, is not a project, is damaged or comes from a
        newer fieldstudio. A file that cannot be written opens read-only (writes raise ProjectReadOnly).
        """
        path = Path(path)
        if path.is_dir():
            raise ProjectError(f"{path}: is a folder, not a project file")
        if not path.is_file():
            raise ProjectError(f"{path}: no such project file")
        if path.stat().st_size == 0:
            raise ProjectError(f"{path}: is empty (0 bytes), not a fieldstudio project")
        revision = file_revision(path)
        writable = _writable(path)
        if revision is not None and revision not in known_revisions():
            raise ProjectError(
                f"{path}: was written by a newer fieldstudio (schema {revision}); "
                f"this version knows schema {head_revision()}. Update fieldstudio to open it."
            )
        if revision != head_revision():
            if not writable:
                raise ProjectReadOnly(f"{path}: needs migrating from schema {revision} but cannot be written")
            backup = path.with_name(f"{path.name}.bak-{revision or 'empty'}")
            _copy_sqlite(path, backup)
            project = cls(path, read_only=False)
            project._upgrade()
            project.migrated_from = revision
            project.backup_path = backup
            return project
        return cls(path, read_only=not writable)

    migrated_from: str | None = None
    backup_path: Path | None = None

    def _upgrade(self) -> None:
        from alembic import command

        cfg = _alembic_config()
        # Alembic keeps the running migration in module globals: one upgrade at a time per process (the
        # window opens projects on a worker thread while the user may open or create another)
        with _UPGRADE_LOCK, self.engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
            conn.commit()

    def schema_revision(self) -> str | None:
        """The schema revision stored in the file."""
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    # -- sessions ------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        """A session for queries; nothing it changes is committed.

        Rows read through it stay usable after the block (the session is closed, not expired).
        Reads use a deferred ``BEGIN``, so they nest and never wait for a writer (WAL).
        """
        with self._read_sessions() as session:
            yield session

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        """One short write transaction: committed when the block ends, rolled back on error.

        Raises ProjectReadOnly when the project file cannot be written.
        """
        if self.read_only:
            raise ProjectReadOnly(f"{self.path}: is read-only; nothing was changed")
        with self._sessions() as session:
            try:
                yield session
                session.commit()
            except OperationalError as exc:
                session.rollback()
                if "readonly" in str(exc).lower() or "read-only" in str(exc).lower():
                    raise ProjectReadOnly(f"{self.path}: cannot be written ({exc.orig})") from exc
                raise
            except BaseException:
                session.rollback()
                raise

    # -- settings ------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The project's display name (defaults to the file name without suffix)."""
        with self.read() as s:
            row = s.get(ProjectSetting, "name")
            return str(row.value) if row and row.value else self.path.stem

    def setting(self, key: str, default=None):  # noqa: ANN001, ANN201 - JSON value
        """A JSON setting stored in the project, or ``default``."""
        with self.read() as s:
            row = s.execute(select(ProjectSetting).where(ProjectSetting.key == key)).scalar_one_or_none()
            return default if row is None else row.value

    def set_setting(self, key: str, value) -> None:  # noqa: ANN001 - JSON value
        """Store a JSON setting in one write transaction."""
        with self.write() as s:
            s.merge(ProjectSetting(key=key, value=value))

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` of the file: ``"ok"`` when sound."""
        with self.engine.connect() as conn:
            return conn.execute(text("PRAGMA integrity_check")).scalar_one()

    @property
    def folder(self) -> Path:
        """The folder holding the project file; media below it are stored with relative paths."""
        return self.path.parent

    def close(self) -> None:
        """Release the file (checkpoint the WAL so the single file holds everything)."""
        if not self.read_only:
            with contextlib.suppress(OperationalError), self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        self.engine.dispose()
        self.read_engine.dispose()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _writable(path: Path) -> bool:
    """True when the project file and its folder can be written.

    The file's own write bits count even for root, so a file a user marked read-only stays read-only.
    """
    mode = path.stat().st_mode
    return bool(mode & 0o222) and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _copy_sqlite(src: Path, dst: Path) -> None:
    """Copy a SQLite database consistently (including an uncheckpointed WAL) with the backup API, into a
    temporary file that then replaces ``dst`` (``core.atomic``)."""
    with atomic_path(dst) as tmp:
        source = read_only_connection(src)
        target = sqlite3.connect(tmp)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()


def copy_project(src: Path, dst: Path) -> None:
    """Copy a project file to ``dst`` (used for backups and exports)."""
    if src.resolve() == dst.resolve():
        return
    _copy_sqlite(src, dst)
    shutil.copystat(src, dst)
