"""The main thread's reads of an SQLite project share one kept connection (``Project._kept_read``).

Opening a connection was most of a small read (the viewer's read of a frame's marks, on each step and release). A
kept connection must not change what a read sees: each read still begins its own transaction, so it sees every
commit made before it (by this project or any other connection); a read nested in another, and a read on a worker
thread, still open their own; a failed read leaves nothing behind; and a closed project, closed on whichever thread,
holds no file open."""

from __future__ import annotations

import os
import sqlite3
import threading

import pytest
from sqlalchemy import event, select, text

from fieldstudio.store.models import ProjectSetting
from fieldstudio.store.project import Project


def _connects(project: Project) -> list[str]:
    seen: list[str] = []
    event.listen(project.read_engine, "connect", lambda *_a: seen.append(threading.current_thread().name))
    return seen


def _value(project: Project, key: str) -> str | None:
    with project.read() as s:
        return s.scalar(select(ProjectSetting.value).where(ProjectSetting.key == key))


def _open_files_under(folder) -> list[str]:
    held = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}")]
    return [h for h in held if h.startswith(str(folder))]


@pytest.fixture
def kept_project(tmp_path):
    p = Project.create(tmp_path / "p.fieldstudio")
    yield p
    p.close()


def test_main_thread_reads_share_one_connection_and_each_sees_every_commit_before_it(kept_project, tmp_path):
    project = kept_project
    connects = _connects(project)
    assert _value(project, "k") is None
    with project.write() as s:
        s.add(ProjectSetting(key="k", value="one"))
    assert _value(project, "k") == "one"
    # a commit by another connection (another process, or a teammate's window on the same file)
    other = sqlite3.connect(tmp_path / "p.fieldstudio")
    with other:
        other.execute("""UPDATE project_setting SET value = '"two"' WHERE key = 'k'""")
    other.close()
    assert _value(project, "k") == "two"
    assert len(connects) == 1


def test_a_nested_read_opens_its_own_connection_and_sees_commits_made_since_the_outer_began(kept_project):
    project = kept_project
    connects = _connects(project)
    with project.read() as outer:
        assert outer.scalar(select(ProjectSetting.value).where(ProjectSetting.key == "k")) is None  # snapshot taken
        with project.write() as s:
            s.add(ProjectSetting(key="k", value="v"))
        assert _value(project, "k") == "v"   # a read of its own, begun after the commit
        assert outer.scalar(select(ProjectSetting.value).where(ProjectSetting.key == "k")) is None  # its snapshot
    assert len(connects) == 2
    assert _value(project, "k") == "v" and len(connects) == 2   # the kept one again


def test_a_worker_threads_read_opens_and_closes_a_connection_of_its_own(kept_project):
    project = kept_project
    connects = _connects(project)
    _value(project, "k")
    got = []
    worker = threading.Thread(target=lambda: got.append(_value(project, "name")), name="worker")
    worker.start()
    worker.join()
    assert got == ["p"] and connects == [threading.main_thread().name, "worker"]


def test_a_failed_read_leaves_the_next_one_a_fresh_connection(kept_project):
    project = kept_project
    connects = _connects(project)
    with pytest.raises(Exception, match="no such table"), project.read() as s:
        s.execute(text("SELECT * FROM no_such_table"))
    assert _value(project, "name") == "p"
    assert len(connects) == 2


def test_a_project_closed_on_another_thread_holds_no_file_and_reads_after_it_keep_nothing(tmp_path):
    project = Project.create(tmp_path / "p.fieldstudio")
    assert _value(project, "name") == "p"   # the main thread's connection is kept
    assert _open_files_under(tmp_path)
    closer = threading.Thread(target=project.close)   # as the window closes a replaced project, on a worker
    closer.start()
    closer.join()
    assert not _open_files_under(tmp_path)
    assert _value(project, "name") == "p"   # a late read still works, and keeps nothing open afterwards
    assert not _open_files_under(tmp_path)


def test_a_close_on_another_thread_during_a_read_lets_the_read_finish_and_closes_the_file_after_it(tmp_path):
    project = Project.create(tmp_path / "p.fieldstudio")
    project.set_setting("k", "v")
    with project.read() as s:
        assert s.scalar(select(ProjectSetting.value).where(ProjectSetting.key == "k")) == "v"
        closer = threading.Thread(target=project.close)   # the window closes a replaced project on a worker
        closer.start()
        closer.join()
        # the same read goes on: its connection was left to it (closing it here broke the read)
        assert s.scalar(select(ProjectSetting.value).where(ProjectSetting.key == "k")) == "v"
    assert not _open_files_under(tmp_path)


def test_a_project_file_replaced_while_open_is_read_again_where_the_writes_go(tmp_path):
    import shutil

    path, newer = tmp_path / "p.fieldstudio", tmp_path / "newer.fieldstudio"
    with Project.create(newer) as other:
        other.set_setting("k", "new")
    with Project.create(path) as first:
        first.set_setting("k", "old")
    project = Project.open(path)
    assert _value(project, "k") == "old"   # the kept connection has the first file open
    shutil.copy(newer, tmp_path / "tmp")
    os.replace(tmp_path / "tmp", path)     # a sync tool's or a restored backup's atomic replace
    assert _value(project, "k") == "new"
    project.set_setting("k2", "written")   # writes open the file at the path: the new one
    assert _value(project, "k2") == "written"
    project.close()
