"""The reads the fronts make through the package that owns each table (issue 35 item 3): media, runs, the change log."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs import run_records
from fieldstudio.media import inventory, library
from fieldstudio.store import change_feed
from fieldstudio.store.project import Project
from fieldstudio.tasks import task_records

IMAGES = Path(__file__).resolve().parents[2] / "sample_data" / "media" / "images"


@pytest.fixture
def project(tmp_path):
    p = Project.create(tmp_path / "p.fieldstudio")
    yield p
    p.close()


def test_media_inventory_lists_every_media_by_name(project, tmp_path):
    broken = tmp_path / "a_broken.jpg"
    broken.write_bytes(b"not a picture")
    report = library.add_paths(project, [IMAGES / "retail_grocery_Bravo-Orange-Juice_024.jpg",
                                         IMAGES / "ppe_worker_hardhat_vest_warehouse_zone_frame045.png", broken])
    assert len(report.unreadable) == 1
    names = inventory.media_names(project)
    choices = inventory.media_choices(project)
    assert [c.file_name for c in choices] == ["a_broken.jpg", "ppe_worker_hardhat_vest_warehouse_zone_frame045.png",
                                              "retail_grocery_Bravo-Orange-Juice_024.jpg"]
    assert {c.id: c.file_name for c in choices} == names and {c.kind for c in choices} == {"image"}
    assert inventory.unreadable_count(project) == 1
    assert inventory.video_summaries(project) == [] and inventory.document_summaries(project) == []
    assert inventory.media_roots_in_use(project) == []


def test_runs_are_found_by_a_prefix_and_resumed_only_over_the_same_tasks(project):
    t1 = task_records.create_task(project, query="How many?", answer_type="count", ground_truth="3")
    t2 = task_records.create_task(project, query="How far?", answer_type="distance", ground_truth="2 m")
    profile = ModelProfile(name="local", base_url="http://127.0.0.1:9/v1", model="m")
    run_id = run_records.create_run(project, profile, [t1, t2], "fieldworkarena")
    assert run_records.find_run(project, run_id[:6].upper()) == run_id
    with pytest.raises(FieldstudioError, match="no run 'abc'"):
        run_records.find_run(project, "abc")
    assert run_records.find_resumable_run(project, "local", "fieldworkarena", [t2, t1]) == run_id
    assert run_records.find_resumable_run(project, "local", "fieldworkarena", [t1]) is None
    assert run_records.find_resumable_run(project, "local", "fieldworkarena") == run_id
    assert (run_records.count_runs(project), run_records.count_answers(project)) == (1, 2)
    assert task_records.count_tasks(project) == 2


def test_the_change_feed_says_when_the_log_cannot_be_read(project, monkeypatch):
    before = change_feed.latest_change(project)
    task_id = task_records.create_task(project, query="Is the gate shut?", answer_type="yes_no")
    assert [(c.table, c.row_id, c.action) for c in change_feed.changes_after(project, before)] == [
        ("task", task_id, "insert")]

    def unreachable():
        raise OperationalError("SELECT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(project, "read", unreachable)
    with pytest.raises(change_feed.ChangeLogUnreadable, match="server closed the connection"):
        change_feed.changes_after(project, before)
