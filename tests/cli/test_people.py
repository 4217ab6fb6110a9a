"""`fieldstudio detect-people` (issue 34 item 3) on the shared data's worker clip: proposals printed for a frame range
every N frames, stored with --accept (then not proposed again), JSON, and a range outside the video refused."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from fieldstudio.cli.app import app
from fieldstudio.core.box_overlap import box_iou
from tests.support.people_frames import MARKED_PEOPLE, NO_HOG_REASON, WORKER_CLIP, hog_available, worker_photo
from tests.support.shared_data import SHARED_DATA

pytestmark = pytest.mark.skipif(not hog_available(), reason=NO_HOG_REASON)


def test_detect_people_range_accept_json(tmp_path, wide_console):
    clip = tmp_path / "worker.mp4"
    shutil.copy(SHARED_DATA / "media" / WORKER_CLIP, clip)
    project = str(tmp_path / "p.fieldstudio")
    runner = CliRunner()
    assert runner.invoke(app, ["new", project]).exit_code == 0
    assert runner.invoke(app, ["add", project, str(clip)]).exit_code == 0
    shown = runner.invoke(app, ["detect-people", project, "worker.mp4", "--frames", "15-45", "--every", "15"])
    assert shown.exit_code == 0, shown.output
    assert "on 3 frame(s) (opencv-hog " in shown.output and "  frame 45: x=" in shown.output
    stored = runner.invoke(app, ["detect-people", project, "worker.mp4", "--frames", "45", "--accept", "--json"])
    assert stored.exit_code == 0, stored.output
    record = json.loads(stored.output)
    assert record["frames_read"] == [45] and record["stored"] == len(record["proposals"]) >= 1
    best = max(record["proposals"], key=lambda x: x["score"])
    assert box_iou(best["box"], MARKED_PEOPLE[(WORKER_CLIP, 45)][0]) >= 0.5
    listed = runner.invoke(app, ["annotations", "list", project]).output
    assert "frame 45" in listed and "box person" in listed
    again = runner.invoke(app, ["detect-people", project, "worker.mp4", "--frames", "45", "--accept"])
    assert again.exit_code == 0 and "0 people proposed" in again.output          # nothing new: not a failure
    assert f"{record['stored']} already boxed, 0 new" in again.output and "stored 0 box(es)" in again.output
    for bad in (["--min-score", "nan"], ["--min-score", "inf"]):
        refused = runner.invoke(app, ["detect-people", project, "worker.mp4", *bad])
        assert refused.exit_code == 2 and "must be a number" in refused.output
    outside = runner.invoke(app, ["detect-people", project, "worker.mp4", "--frames", "60-99"])
    assert outside.exit_code == 2 and "not within the video's 0-70" in outside.output


def test_detect_people_on_a_photo_refuses_frames(tmp_path):
    project = str(tmp_path / "p.fieldstudio")
    runner = CliRunner()
    assert runner.invoke(app, ["new", project]).exit_code == 0
    photo = worker_photo(tmp_path)
    assert runner.invoke(app, ["add", project, str(photo)]).exit_code == 0
    refused = runner.invoke(app, ["detect-people", project, photo.name, "--frames", "0-5"])
    assert refused.exit_code == 2 and "is a photo: it has no frames to choose" in refused.output
    assert runner.invoke(app, ["detect-people", project, photo.name]).exit_code == 0
