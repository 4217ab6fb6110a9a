"""One session for a user action (``Project.unit_of_work``) and the write-ahead log kept while a project is open.

A unit of work is one connection and one commit whatever reads and writes it holds; a write inside it that fails
is rolled back to where it began (a savepoint), and what the unit stored is committed once, seen by others only
then. SQLite deletes a file's write-ahead log when the file's last connection closes: a project keeps one idle
connection so short writes do not pay that each time; after ``close()`` the project is one file again."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sqlalchemy import event

from fieldstudio.core.errors import ProjectReadOnly
from fieldstudio.store.models import ProjectSetting
from fieldstudio.store.project import Project


def _count_connections_and_commits(project: Project) -> dict[str, int]:
    seen = {"connections": 0, "commits": 0}
    for engine in (project.engine, project.read_engine):
        event.listen(engine, "connect", lambda *_a: seen.__setitem__("connections", seen["connections"] + 1))
        event.listen(engine, "commit", lambda *_a: seen.__setitem__("commits", seen["commits"] + 1))
    return seen


def _stored(path, key):  # read by sqlite3 itself, outside the project's engines
    con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        row = con.execute("SELECT value FROM project_setting WHERE key = ?", (key,)).fetchone()
    finally:
        con.close()
    return None if row is None else row[0]


def test_a_unit_of_work_is_one_connection_and_one_commit_and_a_failed_inner_write_leaves_nothing(tmp_path):
    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as project:
        seen = _count_connections_and_commits(project)
        with project.unit_of_work() as s:
            with project.write() as inner:
                assert inner is s
                inner.add(ProjectSetting(key="kept", value=1))
            with pytest.raises(ValueError), project.write() as inner:
                inner.add(ProjectSetting(key="dropped", value=2))
                inner.flush()
                raise ValueError("refused")
            with project.read() as r:             # the unit's reads see its own writes, not the dropped one
                assert r.get(ProjectSetting, "kept").value == 1 and r.get(ProjectSetting, "dropped") is None
            assert _stored(path, "kept") is None  # not committed yet: another connection does not see it
            with project.unit_of_work() as nested:  # a unit inside a unit is the same unit
                assert nested is s
        assert seen == {"connections": 1, "commits": 1}
        assert _stored(path, "kept") == 1 and _stored(path, "dropped") is None
        assert project.setting("kept") == 1


def test_a_unit_of_work_without_savepoints_writes_none_and_an_error_ending_it_stores_nothing(tmp_path):
    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as project:
        statements: list[str] = []
        event.listen(project.engine, "before_cursor_execute",
                     lambda _c, _cur, statement, *_a: statements.append(statement))
        with project.unit_of_work(savepoints=False) as s:
            with project.write() as inner:
                assert inner is s
                inner.add(ProjectSetting(key="first", value=1))
            with project.write() as inner:
                inner.add(ProjectSetting(key="second", value=2))
        assert not [q for q in statements if "SAVEPOINT" in q.upper()]
        assert project.setting("first") == 1 and project.setting("second") == 2
        with pytest.raises(ValueError), project.unit_of_work(savepoints=False):
            with project.write() as inner:
                inner.add(ProjectSetting(key="third", value=3))
                inner.flush()
            raise ValueError("refused after the write")
        assert _stored(path, "third") is None
        with project.unit_of_work(), project.write() as inner:  # the next unit on this thread has savepoints again
            inner.add(ProjectSetting(key="fourth", value=4))
        assert any("SAVEPOINT" in q.upper() for q in statements)


def test_an_error_ending_a_unit_of_work_stores_nothing_and_other_threads_keep_their_own_sessions(tmp_path):
    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as project:
        other: list[object] = []
        with pytest.raises(RuntimeError), project.unit_of_work() as s:
            project.set_setting("a", 1)
            worker = threading.Thread(target=lambda: other.append(project.setting("a", "absent")))
            worker.start()
            worker.join()
            assert project.setting("a") == 1 and s is not None
            raise RuntimeError("the key press failed")
        # the worker read in its own session: the unit's uncommitted write was not visible to it
        assert other == ["absent"]
        assert project.setting("a") is None and _stored(path, "a") is None


def test_a_read_only_project_refuses_a_unit_of_work(tmp_path):
    path = tmp_path / "p.fieldstudio"
    Project.create(path).close()
    path.chmod(0o444)
    try:
        with Project.open(path) as project:
            assert project.read_only
            with pytest.raises(ProjectReadOnly), project.unit_of_work():
                pass
    finally:
        path.chmod(0o644)


def test_the_write_ahead_log_stays_while_the_project_is_open_and_is_folded_back_on_close(tmp_path):
    path = tmp_path / "p.fieldstudio"
    wal = tmp_path / "p.fieldstudio-wal"
    project = Project.create(path)
    for n in range(3):
        project.set_setting(f"k{n}", n)
        # without a connection held, the write's own connection was the last one and SQLite deleted the log
        assert wal.exists()
    project.close()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["p.fieldstudio"]
    assert [_stored(path, f"k{n}") for n in range(3)] == [0, 1, 2]


def test_the_file_alone_holds_each_write_about_a_second_after_it(tmp_path):
    """The log is folded back off the write (a timer after the last write), so the file copied alone, without its
    log, holds the write once that timer has run."""
    import shutil
    import time

    from fieldstudio.store import project as project_module

    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as project:
        project.set_setting("marker", 41)
        project.set_setting("marker", 42)
        copied = tmp_path / "alone" / "copy.fieldstudio"
        copied.parent.mkdir()
        deadline = time.monotonic() + project_module.CHECKPOINT_AFTER_S + 10
        while True:
            shutil.copyfile(path, copied)        # the file alone, as a user's file manager copies it
            if _stored(copied, "marker") == 42 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert _stored(copied, "marker") == 42
        assert (tmp_path / "p.fieldstudio-wal").exists()   # still open: the log stays, folded back


def test_a_closed_project_is_let_go_with_its_engines_and_its_watched_file_is_closed(tmp_path):
    import gc
    import os
    import weakref

    from fieldstudio.store.data_version import data_version

    project = Project.create(tmp_path / "p.fieldstudio")
    with project.write() as s:   # the listener that stamps changes with the user runs
        s.add(ProjectSetting(key="k", value="v"))
    del s   # the session names its engine
    assert data_version(project) is not None   # Compare's watching connection on the file
    kept = [weakref.ref(project), weakref.ref(project.engine), weakref.ref(project.read_engine)]
    project.close()
    del project
    gc.collect()
    assert [k() for k in kept] == [None, None, None]   # the listener held it for the process's life
    held = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}")]
    assert not [h for h in held if h.startswith(str(tmp_path))]
