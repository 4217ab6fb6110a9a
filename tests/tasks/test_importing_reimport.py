"""Re-importing an unchanged task file writes nothing and reports 0 updated (item 7g); timing: benchmarks/."""

from __future__ import annotations

import sqlite3

from fieldstudio.store.models import Media
from fieldstudio.tasks.importing import import_tasks

N = 2000


def _write(path, rows: int, changed: int | None = None) -> None:
    lines = ["task_id,query,ground_truth,category,inputs"]
    for i in range(rows):
        query = f"How many pallets in bay {i}?" + (" (recounted)" if i == changed else "")
        inputs = "aisle.jpg;clip.mp4#t=1.5,4" if i % 2 else "../../escape.jpg;aisle.jpg"
        lines.append(f"t{i:05d},{query},{i % 7},{i % 3}.1,{inputs}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _rowids(project) -> list[tuple]:
    con = sqlite3.connect(project.path)
    try:
        return con.execute("SELECT t.rowid, i.rowid FROM task t LEFT JOIN task_input i ON i.task_id = t.id "
                           "ORDER BY t.external_id, i.position").fetchall()
    finally:
        con.close()


def test_unchanged_rows_are_skipped_and_changed_ones_updated(project, tmp_path):
    with project.write() as s:
        s.add(Media(kind="image", path="photos/aisle.jpg", file_name="aisle.jpg"))
    f = tmp_path / "tasks.csv"
    _write(f, N)
    first = import_tasks(project, [f])
    assert (first.created, first.updated, first.unchanged) == (N, 0, 0)
    before = _rowids(project)
    # odd tasks store aisle.jpg and clip.mp4 (no such media yet); even ones aisle.jpg only (the escaping
    # name is rejected, never stored)
    assert len(before) == N // 2 * 2 + N // 2
    again = import_tasks(project, [f])
    assert (again.created, again.updated, again.unchanged) == (0, 0, N)
    assert sum(again.tasks_per_category.values()) == N and len(again.missing_media) == N
    assert _rowids(project) == before  # no task or input row was rewritten
    _write(f, N, changed=1234)
    third = import_tasks(project, [f])
    assert (third.created, third.updated, third.unchanged) == (0, 1, N - 1)


def test_the_bulk_inserted_tasks_are_logged_once_and_updates_through_the_orm(project, tmp_path, monkeypatch):
    """New tasks go in by bulk insert (issue 37): each still gets one change-log "insert" and its stamps, and a
    later changed row one "update" and version 2, over several batches."""
    from fieldstudio.store.changes import changes_since
    from fieldstudio.tasks import importing

    monkeypatch.setattr(importing, "BATCH", 300)
    f = tmp_path / "tasks.csv"
    _write(f, 1000)
    import_tasks(project, [f])
    _write(f, 1000, changed=777)
    import_tasks(project, [f])
    with project.read() as s:
        log = changes_since(s, 0)
    con = sqlite3.connect(project.path)
    try:
        ids = dict(con.execute("SELECT external_id, id FROM task"))
        versions = dict(con.execute("SELECT external_id, version FROM task WHERE version != 1"))
        stamped = con.execute("SELECT count(*) FROM task WHERE updated_by = ? AND updated_at IS NOT NULL",
                              (project.user,)).fetchone()[0]
        inputs = con.execute("SELECT count(*) FROM task_input").fetchone()[0]
    finally:
        con.close()
    assert [(c.row_id, c.action) for c in log[:1000]] == [(ids[f"t{i:05d}"], "insert") for i in range(1000)]
    assert [(c.row_id, c.action) for c in log[1000:]] == [(ids["t00777"], "update")]
    assert versions == {"t00777": 2} and stamped == 1000 and inputs == 1500
