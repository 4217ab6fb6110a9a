"""`fieldstudio evidence P` prints what compare.evidence computes: the split per source and, with --never-saw,
each answer that never saw its evidence with the distance (frame indices and PTS by hand from the fixture
video of tests/support/annotation_fixtures.py)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.cli.app import app
from fieldstudio.store.models import Task
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media, hand_pts
from tests.support.scoring_fixtures import add_run


def _frame(index: int) -> dict:
    return {"media_id": VIDEO_ID, "frame_index": index, "pts_s": hand_pts(index) / 90000, "sha256": "0" * 64}


@pytest.fixture
def project_path(tmp_path):
    path = tmp_path / "ev.fieldstudio"
    with Project.create(path) as p:
        add_test_media(p)
        seg = ann.add_segment(p, VIDEO_ID, None, 10, end_frame=19, text="lifting")
        with p.write() as s:
            task = Task(external_id="seg-1", query="When is the lifting?", answer_type="time_range",
                        ground_truth_extra={"annotation_link": {"kind": "segment_range", "annotation_id": seg}})
            s.add(task)
            s.flush()
            task_id = task.id
        add_run(p, "sees", {task_id: {"raw_text": "x", "frames": [_frame(0), _frame(15)]}})
        add_run(p, "misses", {task_id: {"raw_text": "x", "frames": [_frame(0), _frame(5)]}})
    return path


def test_evidence_split_and_never_saw_list(project_path):
    result = CliRunner().invoke(app, ["evidence", str(project_path), "--never-saw"])
    assert result.exit_code == 0, result.output
    assert "split of no scorer (nothing scored) by evidence coverage" in result.output
    # frame 5 is the nearest sent to the span 10-19: (pts(10) - pts(5)) / 90000 s before it
    away = (hand_pts(10) - hand_pts(5)) / 90000
    assert (f"misses seg-1: never saw it: the nearest of 2 frames sent is {away:.3f} s away (ground truth at "
            "frames 10–19") in result.output


def test_evidence_json(project_path):
    result = CliRunner().invoke(app, ["evidence", str(project_path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {(r["source"], r["evidence"], r["answers"], r["scored"]) for r in data["split"]} == {
        ("misses", "never saw", 1, 0), ("sees", "saw", 1, 0)}
    assert all(r["mean"] is None for r in data["split"])
    assert {a["source"]: a["evidence"] for a in data["answers"]} == {"sees": "saw", "misses": "never saw"}
