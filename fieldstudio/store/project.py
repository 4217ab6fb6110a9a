"""A project: one SQLite file (``*.fieldstudio``) or one PostgreSQL database holding media, annotations,
tasks, ratings and runs.

Opening a project checks its schema revision against the migrations this fieldstudio knows:
a file from a newer fieldstudio is refused; an older one is copied aside (``name.fieldstudio.bak-<rev>``)
and migrated with Alembic. Every write is one short transaction (``Project.write``): ``BEGIN IMMEDIATE``
on SQLite, a transaction that first takes the project's advisory write lock on PostgreSQL
(``engine.WRITE_LOCK_SQL``). A shared project is named by a PostgreSQL URL (``store.location``); the same
models and migrations serve it, and a PostgreSQL migration runs in place in one transaction (PostgreSQL's
DDL is transactional, so a failed migration leaves the database as it was).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

from sqlalchemy import event, inspect, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from fieldstudio.core.atomic import atomic_path
from fieldstudio.core.errors import ProjectError, ProjectReadOnly
from fieldstudio.store import data_version, location, log_checkpoints
from fieldstudio.store.changes import current_user, stamp_changes
from fieldstudio.store.engine import make_engine, make_pg_engines
from fieldstudio.store.models import ProjectSetting, utcnow
from fieldstudio.store.schema_revisions import (MIGRATIONS, file_revision, head_revision, known_revisions,
                                                read_only_connection, sqlite_uri)

PROJECT_SUFFIX = ".fieldstudio"
#: Seconds after a project's last write before its write-ahead log is folded back into the file (``_hold_log_open``).
CHECKPOINT_AFTER_S = 1.0
_UPGRADE_LOCK = threading.Lock()


def _alembic_config():  # noqa: ANN202 - alembic.config.Config
    # alembic is imported only to migrate: it costs a large part of a second at start-up
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def _changes_stamper(project: weakref.ref[Project]) -> Callable[[Session, object, object], None]:
    """The ``before_flush`` listener of a project's write sessions: stamps the changes with its ``user``."""
    def stamp(session: Session, _context: object, _objects: object) -> None:
        alive = project()  # a session outliving its project (a worker's, after the close) writes as the login user
        stamp_changes(session, alive.user if alive is not None else current_user())
    return stamp


class Project:
    """An open project: a project file or a PostgreSQL database (``is_shared``).

    Use ``Project.create(path_or_url)`` or ``Project.open(path_or_url)``; close with ``close()`` or a ``with``
    block. ``read()`` yields a session for queries; ``write()`` yields a session whose changes are committed
    in one write transaction when the block ends (rolled back on error). ``path`` is the file, or for a
    shared project a ``location.DatabasePath`` (its ``name`` the database, ``str()`` the URL without
    password). ``user`` is the name this process's edits are recorded under (``store.changes``).
    """

    def __init__(self, path: Path | str, *, read_only: bool, url=None):  # noqa: ANN001 - sqlalchemy URL
        self.url = url
        self.user = current_user()
        if url is not None:
            self.path = location.DatabasePath.for_url(url)
            self.read_only = read_only
            self.engine, self.read_engine = make_pg_engines(url)
        else:
            self.path = Path(path).resolve()
            self.read_only = read_only
            self.engine = make_engine(self.path, read_only=read_only)
            self.read_engine = make_engine(self.path, read_only=read_only, for_reads=True)
        # SQLite: one idle connection held while the project is open (see ``_hold_log_open``)
        self._log_holder: sqlite3.Connection | None = None
        self._log_holder_lock = threading.Lock()
        self._unit = threading.local()  # this thread's open unit of work, if any (see ``unit_of_work``)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(self.read_engine, expire_on_commit=False)
        # SQLite: the main thread's reads go through one kept connection (see ``_kept_read``); None until the first
        self._main_reads: Connection | None = None
        self._main_file: tuple[int, int] | None = None  # (device, inode) of the file the kept connection has open
        self._kept_state = threading.Lock()  # guards the two flags below between the main thread and close()
        self._reading = False  # a main-thread read is using the kept connection
        self._closed = False
        # SQLAlchemy keeps a sessionmaker's listeners in a WeakKeyDictionary keyed by its Session class: a listener
        # holding this project (which holds that class) would keep the key, the project and its engines for the
        # process's life, so it holds the project weakly
        event.listen(self._sessions, "before_flush", _changes_stamper(weakref.ref(self)))

    @property
    def is_shared(self) -> bool:
        """True for a project on a PostgreSQL server."""
        return self.url is not None

    @property
    def location(self) -> str:
        """What names this project to ``Project.open`` and in the recent list: the file path, or the URL
        without its password."""
        return str(self.path)

    # -- opening -------------------------------------------------------------------------------------
    @classmethod
    def create(cls, path: Path | str, *, name: str | None = None, exist_ok: bool = False) -> Project:
        """Create a new project file at ``path`` and return it open.

        Raises ProjectError if the file exists (unless ``exist_ok``, which opens it instead) and
        ProjectReadOnly if its folder cannot be written. A PostgreSQL URL names a database that is made if
        it does not exist (the user needs the CREATEDB right for that) or must be empty.
        """
        if location.is_database_url(path):
            return cls._create_shared(str(path), name=name, exist_ok=exist_ok)
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
        A PostgreSQL URL opens the shared project in that database (ProjectError when the server cannot be
        reached, the login fails or the database holds no project).
        """
        if location.is_database_url(path):
            return cls._open_shared(str(path))
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

    @classmethod
    def _create_shared(cls, ref: str, *, name: str | None, exist_ok: bool) -> Project:
        url = location.connect_url(ref)
        public = location.public_url(url)
        _ensure_database(url)
        project = cls(ref, read_only=False, url=url)
        try:
            revision = project._shared_revision()
            tables = project._table_names()
        except BaseException:
            project.close()
            raise
        if revision is not None or tables:
            if exist_ok and revision is not None:
                project.close()
                return cls._open_shared(ref)
            project.close()
            what = "a fieldstudio project" if revision is not None else f"other tables ({', '.join(sorted(tables)[:5])})"
            raise ProjectError(f"{public}: the database already holds {what}; open it or name an empty database")
        project._upgrade()
        with project.write() as s:
            s.add(ProjectSetting(key="name", value=name or url.database))
            s.add(ProjectSetting(key="created_at", value=utcnow().isoformat()))
        return project

    @classmethod
    def _open_shared(cls, ref: str) -> Project:
        url = location.connect_url(ref)
        public = location.public_url(url)
        project = cls(ref, read_only=False, url=url)
        try:
            revision = project._shared_revision()
            if revision is None:
                raise ProjectError(f"{public}: holds no fieldstudio project (create one with `fieldstudio new {public}`)")
            if revision not in known_revisions():
                raise ProjectError(
                    f"{public}: was written by a newer fieldstudio (schema {revision}); "
                    f"this version knows schema {head_revision()}. Update fieldstudio to open it.")
            if revision != head_revision():
                project._upgrade()
                project.migrated_from = revision
        except BaseException:
            project.close()
            raise
        return project

    def _shared_revision(self) -> str | None:
        """The revision in the database (None when it has no ``alembic_version``); ProjectError naming the
        URL (without password) when the server cannot be reached or refuses the login."""
        from sqlalchemy.exc import ProgrammingError

        try:
            with self.read_engine.connect() as conn:
                # one round trip (opening is timed against SQLite): a missing table is the only expected error
                return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        except ProgrammingError as exc:
            if getattr(exc.orig, "sqlstate", None) == "42P01":   # undefined_table: an empty database
                return None
            raise ProjectError(f"{self.path}: cannot be read ({location.mask_in_text(str(exc.orig)).strip()})") from None
        except OperationalError as exc:
            raise ProjectError(f"{self.path}: cannot connect ({location.mask_in_text(str(exc.orig)).strip()})") from None

    def _table_names(self) -> list[str]:
        with self.read_engine.connect() as conn:
            return inspect(conn).get_table_names()

    def _upgrade(self) -> None:
        from alembic import command

        cfg = _alembic_config()
        # Alembic keeps the running migration in module globals: one upgrade at a time per process (the
        # window opens projects on a worker thread while the user may open or create another)
        with _UPGRADE_LOCK, self.engine.connect() as conn:
            if self.is_shared:
                # one migration at a time across processes too; a second one then finds the head and does nothing
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(hashtext('fieldstudio-migrate:' || current_database()))")
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
        Reads use a deferred ``BEGIN``, so they nest and never wait for a writer (WAL). Inside a
        ``unit_of_work`` on this thread it is that unit's session (which sees the unit's own changes).
        """
        unit = getattr(self._unit, "session", None)
        if unit is not None:
            yield unit
            return
        kept = self._kept_read()
        if kept is None:
            with self._read_sessions() as session:
                yield session
            return
        session = Session(bind=kept, expire_on_commit=False)
        done = False
        try:
            yield session
            done = True
        finally:
            session.close()  # rolls back the read's BEGIN: the next read sees every commit made since
            with self._kept_state:
                self._reading = False
                drop = not done or self._closed  # whatever failed, the next read starts from a fresh connection
            if drop:
                self._drop_kept_read()

    def _kept_read(self) -> Connection | None:
        """The connection a read on the main thread uses, kept open between reads; None elsewhere (a worker thread, a
        shared project, a read nested in another, a closed project), where a read opens a connection of its own.

        Opening an SQLite connection (the file, its log, the set-up pragmas) is ~1.2 ms on a quiet machine, most of
        a small read: the window's read of a frame's marks on each step or release was 1.6 ms of queries and 1.2 ms
        of connecting, taken beside the frame's decode. The main thread lives as long as the project; a worker's
        connection would outlive its thread. A nested read gets its own connection, so it sees what was committed
        since the outer one began, as before. A project file replaced while open (a backup restored, a sync tool's
        atomic replace) is opened again, as a fresh connection per read would: the writes go to the new file.
        ``close()`` on another thread during a read leaves the connection to that read, which closes it at its end.
        """
        if self.is_shared or threading.current_thread() is not threading.main_thread():
            return None
        with self._kept_state:
            if self._closed or self._reading:
                return None
            self._reading = True
        try:
            try:
                st = os.stat(self.path)
                file: tuple[int, int] | None = (st.st_dev, st.st_ino)
            except OSError:
                file = None
            conn = self._main_reads
            if conn is not None and (conn.closed or conn.invalidated or file != self._main_file):
                self._drop_kept_read()
                conn = None
            if conn is None and file is not None:
                conn = self._main_reads = self.read_engine.connect()
                self._main_file = file
        except BaseException:
            with self._kept_state:
                self._reading = False
            raise
        if conn is None:  # the file is gone: a connection of the read's own says why, as before
            with self._kept_state:
                self._reading = False
        return conn

    def _drop_kept_read(self) -> None:
        conn, self._main_reads = self._main_reads, None
        if conn is not None:
            with contextlib.suppress(Exception):  # closing a broken connection may fail as well; it is let go
                conn.close()

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        """One short write transaction: committed when the block ends, rolled back on error.

        Raises ProjectReadOnly when the project file cannot be written. Inside a ``unit_of_work`` on this thread
        it is a savepoint of that unit's session: released when the block ends, rolled back to on error (so an
        error caught inside the unit leaves nothing of the block), committed with the unit.
        """
        if self.read_only:
            raise ProjectReadOnly(f"{self.path}: is read-only; nothing was changed")
        unit = getattr(self._unit, "session", None)
        if unit is not None:
            if not getattr(self._unit, "savepoints", True):  # the whole unit is rolled back on any error
                yield unit
                return
            with unit.begin_nested():
                yield unit
            return
        with self._sessions() as session:
            session.info["user"] = self.user   # for the bulk inserts that bypass the flush (changes.insert_tracked)
            try:
                yield session
                session.commit()
                self._hold_log_open()
            except OperationalError as exc:
                session.rollback()
                if "readonly" in str(exc).lower() or "read-only" in str(exc).lower():
                    raise ProjectReadOnly(f"{self.path}: cannot be written ({exc.orig})") from exc
                raise
            except BaseException:
                session.rollback()
                raise

    @contextlib.contextmanager
    def unit_of_work(self, *, savepoints: bool = True) -> Iterator[Session]:
        """One write transaction for a user action made of several reads and writes (a behaviour key press: the
        overlap check, the insert and the read-back of the rows it touched): every ``read()`` and ``write()`` on
        this thread inside the block uses its one session, and the block ends with one commit (rolled back on
        error). It takes the write lock at its first statement, so what it checks cannot change before it writes.
        Nested, it is the enclosing unit. Other threads are not affected. Raises ProjectReadOnly as ``write()``.

        ``savepoints=False`` (for a caller that lets every error inside the block end the unit, never catching one
        and going on): the ``write()`` blocks inside are not savepoints, so an error caught inside the block would
        leave what its ``write()`` had done. Each savepoint costs two statements and a flush (a behaviour key press
        wrote in three of them)."""
        if getattr(self._unit, "session", None) is not None:
            with self.write() as session:
                yield session
            return
        with self.write() as session:
            self._unit.session, self._unit.savepoints = session, savepoints
            # the session's identity map is weak: rows its reads load are kept for the unit, so reading the same
            # media or frame again (the check, the insert and the read-back each do) is not another query
            kept: list[object] = []
            event.listen(session, "loaded_as_persistent", lambda _s, row: kept.append(row))
            try:
                yield session
            finally:
                self._unit.session, self._unit.savepoints = None, True

    def _hold_log_open(self) -> None:
        """Keep one idle connection on a writable project file from its first write until ``close()``, and fold the
        write-ahead log back into the file once writes pause (``CHECKPOINT_AFTER_S``).

        Sessions use a connection each (NullPool; only the main thread's reads keep one, ``_kept_read``). When the
        file's last connection closes, SQLite checkpoints the log into the file (an fsync) and deletes it, and the
        next write makes it afresh: measured at 20-40 ms of a behaviour key press (an insert and a read-back)
        against 6 ms with this connection held. The checkpoint is not given up, only moved off the write: a passive
        one after the last write of a burst (on one thread for the process, ``store.log_checkpoints``), so the
        project file alone holds every change about a second after it (a copy of the file, a crash that leaves the
        log behind). The connection only reads the schema once, so
        it holds no read snapshot that would stop a checkpoint."""
        if self.read_only or self.is_shared:
            return
        if self._log_holder is None:
            with self._log_holder_lock:
                if self._log_holder is None:
                    holder = sqlite3.connect(sqlite_uri(self.path), uri=True, check_same_thread=False)
                    # a connection opens the file's log and shared memory on its first read, not when made
                    holder.execute("SELECT count(*) FROM sqlite_master").fetchall()
                    self._log_holder = holder
        log_checkpoints.after_write(self, CHECKPOINT_AFTER_S)

    def fold_log_back(self) -> None:
        """A passive checkpoint of the write-ahead log into the file (it never waits for a writer or a reader: what
        it cannot copy now, the next one does); called by ``store.log_checkpoints`` once writes pause."""
        with self._log_holder_lock:
            if self._log_holder is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._log_holder.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

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
        """``PRAGMA integrity_check`` of the file: ``"ok"`` when sound. A shared project: ``"ok"`` when every
        table's rows can be read and counted (the server keeps its own pages consistent)."""
        if self.is_shared:
            with self.read_engine.connect() as conn:
                for table in inspect(conn).get_table_names():
                    conn.exec_driver_sql(f'SELECT count(*) FROM "{table}"').scalar()
            return "ok"
        with self.engine.connect() as conn:
            return conn.execute(text("PRAGMA integrity_check")).scalar_one()

    @property
    def folder(self) -> Path:
        """The folder holding the project file; media below it are stored with relative paths. A shared
        project has no folder of its own: the user's home folder (its media live under named media roots,
        ``fieldstudio.media.roots``)."""
        return Path.home() if self.is_shared else self.path.parent

    def close(self) -> None:
        """Release the file (checkpoint the WAL so the single file holds everything) or the server's connections."""
        with self._kept_state:
            self._closed = True
            reading = self._reading
        if not reading:  # else the read in progress on the main thread closes it when it ends
            self._drop_kept_read()
        if not self.read_only and not self.is_shared:
            with contextlib.suppress(OperationalError), self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        log_checkpoints.forget(self)
        if not self.is_shared:
            data_version.forget(self.path)
        with self._log_holder_lock:
            if self._log_holder is not None:   # the file's last connection: its log is folded back and deleted
                self._log_holder.close()
                self._log_holder = None
        if not self.is_shared:   # a shared project's pool serves the process (engine.make_pg_engines)
            self.engine.dispose()
            self.read_engine.dispose()
            # an engine is a reference cycle (its statement cache calls back into it): a project open when the
            # collector's set-aside ran (``core.garbage_collection``) keeps its engines for good; not their statements
            self.engine.clear_compiled_cache()
            self.read_engine.clear_compiled_cache()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ensure_database(url) -> None:  # noqa: ANN001 - sqlalchemy URL
    """Make the database ``url`` names unless it exists, connecting to the server's ``postgres`` database.

    Raises ProjectError (URL without password) when the server cannot be reached or the database cannot be made.
    """
    from sqlalchemy import create_engine
    from sqlalchemy.exc import DBAPIError

    public = location.public_url(url)
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT",
                          connect_args={"connect_timeout": 10, "application_name": "fieldstudio"})
    try:
        with admin.connect() as conn:
            exists = conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": url.database}).scalar()
            if not exists:
                quoted = conn.dialect.identifier_preparer.quote(url.database)
                conn.exec_driver_sql(f"CREATE DATABASE {quoted}")
    except DBAPIError as exc:
        raise ProjectError(f"{public}: cannot make the database ({location.mask_in_text(str(exc.orig)).strip()})") from None
    finally:
        admin.dispose()


def _writable(path: Path) -> bool:
    """True when the project file and its folder can be written.

    The file's own write bits count even for root, so a file a user marked read-only stays read-only.
    """
    mode = path.stat().st_mode
    return bool(mode & 0o222) and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _copy_sqlite(src: Path, dst: Path) -> None:
    """Copy a SQLite database consistently (including an uncheckpointed WAL) with the backup API, into a
    temporary file that then replaces ``dst`` (``core.atomic``)."""
    with atomic_path(dst, replaces_database=True) as tmp:
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
