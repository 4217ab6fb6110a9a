"""The store on both back ends (issue 22): the migration chain, portable types, refused stale edits and the
change log other windows poll. Every test runs on SQLite and on PostgreSQL (the ``backend`` parameter)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import inspect, select

from fieldstudio.annotations import edits
from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.changes import EditConflict, changes_since, last_seq
from fieldstudio.store.models import Annotation, FrameIndexRow, Media, ProjectSetting
from fieldstudio.store.project import Project, _alembic_config
from fieldstudio.store.schema_revisions import head_revision
from fieldstudio.tasks import task_records as tasks


BEFORE = "0005_label_kinds_attributes"
"""The revision before 0006_shared_projects."""


def _media(project: Project, **kw) -> str:
    with project.write() as s:
        m = Media(kind="image", path="/nowhere/a.jpg", file_name="a.jpg", width=640, height=480, **kw)
        s.add(m)
        s.flush()
        return m.id


def _columns(project: Project, table: str) -> dict[str, str]:
    with project.engine.connect() as conn:
        return {c["name"]: str(c["type"]) for c in inspect(conn).get_columns(table)}


def test_migration_chain_up_down_and_up_again(project, backend):
    """head -> the revision before ours -> base (every downgrade) -> head (every upgrade) on one database."""
    from alembic import command

    assert project.schema_revision() == head_revision()
    assert {"version", "updated_by"} <= set(_columns(project, "annotation"))
    cfg = _alembic_config()
    with project.engine.connect() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, BEFORE)
        conn.commit()
    assert project.schema_revision() == BEFORE
    assert "version" not in _columns(project, "annotation")
    with project.engine.connect() as conn:
        assert not inspect(conn).has_table("change_log")
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
        conn.commit()
        assert not inspect(conn).has_table("media")
        command.upgrade(cfg, "head")
        conn.commit()
    assert project.schema_revision() == head_revision()
    cols = _columns(project, "frame_index")
    # PostgreSQL's INTEGER is 32-bit: PTS become BIGINT; SQLite's INTEGER is 64-bit already
    assert cols["pts"] == ("BIGINT" if backend == "postgresql" else "INTEGER")


def test_an_old_schema_is_migrated_on_open(backend_ref, backend):
    """A project left at the revision before 0006_shared_projects (as an older fieldstudio made it) opens at
    the head revision with its data."""
    from alembic import command

    with Project.create(backend_ref) as p:
        mid = _media(p)
        cfg = _alembic_config()
        with p.engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, BEFORE)
            conn.commit()
    with Project.open(backend_ref) as p:
        assert p.migrated_from == BEFORE
        assert p.schema_revision() == head_revision()
        assert (p.backup_path is not None) == (backend == "sqlite")  # PostgreSQL migrates in one transaction
        with p.read() as s:
            assert s.get(Media, mid).file_name == "a.jpg"


def test_portable_types_round_trip(project):
    """Text UUID keys, JSON values, aware UTC times and 64-bit PTS and sizes read back as written."""
    big_pts = 3 * 2**31 + 7           # past a 32-bit INTEGER: 6.6 h of video at a 1/90000 time base is 2^31
    size = 5 * 2**30                  # a 5 GiB video file
    when = datetime(2026, 12, 1, 23, 59, 58, 123456, tzinfo=timezone.utc)
    with project.write() as s:
        m = Media(kind="video", path="/v.mp4", file_name="v.mp4", size_bytes=size, width=4, height=4,
                  time_base_num=1, time_base_den=90000, added_at=when, extra={"ünï": [1, 2.5, None, "x"]})
        s.add(m)
        s.flush()
        s.add(FrameIndexRow(media_id=m.id, frame_index=0, pts=big_pts, keyframe=True))
        s.merge(ProjectSetting(key="colours", value={"person": "#ff0000", "n": 3}))
        mid = m.id
    with project.read() as s:
        m = s.get(Media, mid)
        assert len(mid) == 32 and int(mid, 16) >= 0
        assert m.size_bytes == size
        assert m.extra == {"ünï": [1, 2.5, None, "x"]}
        assert m.added_at.replace(tzinfo=m.added_at.tzinfo or timezone.utc) == when
        assert s.get(FrameIndexRow, (mid, 0)).pts == big_pts
    assert project.setting("colours") == {"person": "#ff0000", "n": 3}


def test_an_edit_from_a_stale_read_is_refused_naming_who_and_when(project, backend_ref, monkeypatch):
    """Two users read one box; Bo moves it first; Ann's move, made from her older read, is refused."""
    mid = _media(project)
    box = ann.add_box(project, mid, (10, 10, 50, 50))
    ann_read = ann.get_annotation(project, box)
    assert ann_read.version == 1
    monkeypatch.setenv("FIELDSTUDIO_USER", "bo")
    with Project.open(project.location) as bo:            # a second connection, another user
        before = datetime.now(timezone.utc)
        edit = edits.MoveBox(bo, box, (20, 20, 50, 50), expected_version=ann_read.version)
        edit.do()
    after_bo = ann.get_annotation(project, box)
    assert (after_bo.version, after_bo.updated_by, after_bo.geometry) == (2, "bo", [20.0, 20.0, 70.0, 70.0])
    stale = edits.MoveBox(project, box, (99, 99, 10, 10), expected_version=ann_read.version)
    with pytest.raises(EditConflict) as caught:
        stale.do()
    assert caught.value.who == "bo"
    assert before - timedelta(seconds=1) <= caught.value.when <= datetime.now(timezone.utc)
    assert "changed by bo at " in str(caught.value)
    assert ann.get_annotation(project, box).geometry == [20.0, 20.0, 70.0, 70.0]   # nothing was changed
    fresh = edits.MoveBox(project, box, (30, 30, 10, 10), expected_version=after_bo.version)
    fresh.do()
    assert ann.get_annotation(project, box).version == 3
    fresh.undo()                                          # own undo is not a conflict
    assert ann.get_annotation(project, box).geometry == [20.0, 20.0, 70.0, 70.0]
    with pytest.raises(EditConflict):                     # a stale delete is refused too
        edits.DeleteAnnotations(project, [box], expected={box: 1}).do()
    assert not ann.get_annotation(project, box).deleted


def test_a_stale_task_edit_is_refused(project):
    tid = tasks.create_task(project, query="How many pallets?", answer_type="count", ground_truth="3")
    read = tasks.get_task(project, tid)
    tasks.UpdateTask(project, tid, ground_truth="4", expected_version=read.version).do()
    with pytest.raises(EditConflict, match="task was changed by"):
        tasks.UpdateTask(project, tid, ground_truth="5", expected_version=read.version).do()
    assert tasks.get_task(project, tid).ground_truth == "4"


def test_the_change_log_shows_another_connection_s_box_and_never_a_verdict(project):
    """A second connection (another window) sees a box the first drew, by polling the change counter."""
    mid = _media(project)
    with Project.open(project.location) as other:
        with other.read() as s:
            seen = last_seq(s)
        box = ann.add_box(project, mid, (1, 2, 3, 4), author="ann")
        started = time.monotonic()
        while True:
            with other.read() as s:
                new = changes_since(s, seen)
            if new or time.monotonic() - started > 2:
                break
            time.sleep(0.05)
        assert [(c.table, c.row_id, c.media_id, c.action) for c in new] == [("annotation", box, mid, "insert")]
        assert time.monotonic() - started < 2
        with other.read() as s:
            assert s.get(Annotation, box).geometry == [1.0, 2.0, 4.0, 6.0]
        rs = ratings.create_rating_set(project, "panels", "ok?")
        ratings.add_items(project, rs.name, [mid])
        item = ratings.item_at(project, rs.name, 0)
        ratings.record_rating(project, item.id, "cy", "reject")
        with other.read() as s:
            logged = changes_since(s, new[-1].seq)
        rating_rows = [c for c in logged if c.table == "rating"]
        assert [(c.rating_set_id, c.action) for c in rating_rows] == [(rs.id, "insert")]
        assert all("reject" not in repr(c) for c in logged)          # the log never carries a verdict
        ann.delete(project, box)
        with other.read() as s:
            assert [(c.row_id, c.action) for c in changes_since(s, logged[-1].seq)] == [(box, "update")]


def test_writers_take_turns(project, backend):
    """A read-then-write unit of work (next track id) sees every earlier commit: 2 threads x 20 tracks."""
    import threading

    with project.write() as s:
        m = Media(kind="video", path="/v.mp4", file_name="v.mp4", width=64, height=64, time_base_num=1,
                  time_base_den=25, frame_count=2)
        s.add(m)
        s.flush()
        s.add_all([FrameIndexRow(media_id=m.id, frame_index=i, pts=i, keyframe=True) for i in range(2)])
        mid = m.id

    def start_tracks(frame: int) -> None:
        with Project.open(project.location) as p:
            for _ in range(20):
                track = box_tracks.next_track_id(p, mid)
                ann.add_box(p, mid, (1, 1, 5, 5), frame_index=frame, track_id=track)

    threads = [threading.Thread(target=start_tracks, args=(f,)) for f in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with project.read() as s:
        ids = list(s.scalars(select(Annotation.track_id)))
    assert len(ids) == 40 and len(set(ids)) == 40
