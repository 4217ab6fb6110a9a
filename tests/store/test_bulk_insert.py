"""Bulk inserts of new rows (issue 37 item 1): ``bulk_insert.insert_rows`` and ``changes.insert_tracked`` write
what the ORM's flush would (SQL NULL for a None JSON value, the row stamps, one change-log row each, the order
given), on SQLite and on PostgreSQL (the ``backend`` parameter)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, text

from fieldstudio.store.bulk_insert import insert_rows
from fieldstudio.store.changes import changes_since, insert_tracked
from fieldstudio.store.models import Rating, Task, TaskInput, new_id, utcnow
from fieldstudio.tasks import task_records


def _task(n: int, extra: dict | None, when) -> dict:
    return {"id": new_id(), "source": "csv", "external_id": f"t{n}", "query": f"q{n}", "ground_truth": f"g{n}",
            "ground_truth_extra": extra, "extra": {"n": n}, "missing_media": False, "created_at": when}


def test_insert_tracked_stamps_logs_and_keeps_the_order_given(project, backend):
    start = utcnow()
    # interleaved None and non-None JSON values: the rows must not be regrouped out of order
    rows = [_task(n, None if n % 2 else {"k": n}, start + timedelta(microseconds=i))
            for i, n in enumerate((5, 2, 9, 4, 7))]
    with project.write() as s:
        insert_tracked(s, Task, rows)
        insert_rows(s, TaskInput, [{"task_id": rows[0]["id"], "position": 0, "name": "a.mp4", "media_id": None,
                                    "start_s": 1.0, "end_s": 5.0}])
    assert [t.external_id for t in task_records.list_tasks(project)] == ["t5", "t2", "t9", "t4", "t7"]
    with project.read() as s:
        stored = {r.external_id: r for r in s.scalars(select(Task))}
        nulls = dict(s.execute(text("SELECT external_id, ground_truth_extra IS NULL FROM task")).all())
        changes = changes_since(s, 0)
        inputs = s.execute(select(TaskInput.task_id, TaskInput.name, TaskInput.start_s, TaskInput.end_s)).all()
        if backend == "sqlite":  # the file order of tasks made in the same microsecond (task_records.insertion_order)
            by_rowid = s.scalars(text("SELECT external_id FROM task ORDER BY rowid")).all()
            assert by_rowid == ["t5", "t2", "t9", "t4", "t7"]
    # SQL NULL (not the JSON text null) exactly where the value was None
    assert {k: bool(v) for k, v in nulls.items()} == {"t5": True, "t2": False, "t9": True, "t4": False, "t7": True}
    assert stored["t2"].ground_truth_extra == {"k": 2} and stored["t9"].extra == {"n": 9}
    assert {(r.version, r.updated_by) for r in stored.values()} == {(1, project.user)}
    assert all(r.updated_at is not None for r in stored.values())
    assert [(c.table, c.row_id, c.action, c.by) for c in changes] == \
        [("task", r["id"], "insert", project.user) for r in rows]
    assert inputs == [(rows[0]["id"], "a.mp4", 1.0, 5.0)]


def test_a_bulk_inserted_task_is_edited_like_any_other(project):
    row = _task(1, None, utcnow())
    with project.write() as s:
        insert_tracked(s, Task, [row])
    with project.write() as s:
        task = s.get(Task, row["id"])
        task.query = "changed"
    with project.read() as s:
        task = s.get(Task, row["id"])
        assert (task.query, task.version) == ("changed", 2)
        assert [c.action for c in changes_since(s, 0)] == ["insert", "update"]


def test_insert_tracked_refuses_ratings_and_rows_without_an_id(project):
    with project.write() as s:
        with pytest.raises(ValueError, match="not Rating"):
            insert_tracked(s, Rating, [{"id": new_id()}])
        with pytest.raises(ValueError, match="id made before the insert"):
            insert_tracked(s, Task, [{"source": "csv", "external_id": "x", "query": "q"}])
    assert task_records.count_tasks(project) == 0
