"""`fieldstudio tasks ground-truth` (a polygon's area, a zone check over frames, a count of skeletons) and
`fieldstudio zone` (the zone check frame by frame): the task editor's links from the command line, usage errors
on one line with exit 2."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import labels as lab
from fieldstudio.cli.app import app
from fieldstudio.tasks import task_records as ts
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID

ZONE = [[100, 300], [400, 290], [420, 420], [90, 430]]


def test_area_zone_and_skeleton_links_from_the_command_line(media_project, wide_console):
    """Scale 1 m over 100 px on the photo: the 150 x 60 px rectangle is 0.90 m². The track's ground point goes from
    (30, 280) on frame 10 to (330, 380) on frame 20 (outside, then inside the zone)."""
    p = media_project
    path = str(p.path)
    cal.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0)
    spill = ann.add_shape(p, PHOTO_ID, "polygon", [[10, 10], [160, 10], [160, 70], [10, 70]])
    zone = ann.add_shape(p, VIDEO_ID, "polygon", ZONE, frame_index=10)
    worker = lab.create_label(p, "worker")
    ann.add_box(p, VIDEO_ID, (0, 180, 60, 100), worker, frame_index=10, track_id=1)
    ann.add_box(p, VIDEO_ID, (300, 280, 60, 100), worker, frame_index=20, track_id=1)
    ann.add_skeleton(p, VIDEO_ID, [[300 + i, 200 + 5 * i] for i in range(17)], frame_index=4)
    ids = {name: ts.create_task(p, query=q, external_id=name)
           for name, q in (("A1", "How large is the spill?"), ("Z1", "Was the worker in the zone?"),
                           ("Z2", "Was he in it all the time?"), ("S1", "How many people are posed?"))}
    runner = CliRunner()
    res = runner.invoke(app, ["tasks", "ground-truth", path, "A1", "--from-polygon", spill])
    assert res.exit_code == 0, res.output
    assert "A1: ground truth '0.90 m²' (area) from polygon: 0.9000 m² (scale: 1.00 m" in res.output
    task = ts.get_task(p, ids["A1"])
    assert (task.ground_truth, task.answer_type) == ("0.90 m²", "area")
    for name, extra in (("Z1", []), ("Z2", ["--all"])):
        res = runner.invoke(app, ["tasks", "ground-truth", path, name, "--zone", zone, "--subject", "box",
                                  "--track", "1", "--from-frame", "12", "--to-frame", "25", *extra])
        assert res.exit_code == 0, res.output
    assert (ts.get_task(p, ids["Z1"]).ground_truth, ts.get_task(p, ids["Z2"]).ground_truth) == ("yes", "no")
    res = runner.invoke(app, ["tasks", "ground-truth", path, "S1", "--count-skeletons", "walk.mp4"])
    assert res.exit_code == 0 and ts.get_task(p, ids["S1"]).ground_truth == "1"
    res = runner.invoke(app, ["zone", path, zone, "--subject", "box", "--track", "1", "--from-frame", "12",
                              "--to-frame", "25", "--json"])
    rows = json.loads(res.output)
    assert res.exit_code == 0 and [r["frame"] for r in rows] == list(range(12, 21))
    assert rows[0]["inside"] is False and rows[-1]["inside"] is True
    res = runner.invoke(app, ["zone", path, zone, "--subject", "box", "--track", "1", "--from-frame", "12",
                              "--to-frame", "25"])
    assert "inside on any frame: yes; on every frame: no" in res.output
    res = runner.invoke(app, ["tasks", "ground-truth", path, "A1", "--unlink"])
    assert res.exit_code == 0 and "unlinked; the ground truth stays '0.90 m²'" in res.output


def test_usage_errors_exit_2_on_one_line(media_project, wide_console):
    p = media_project
    path = str(p.path)
    zone = ann.add_shape(p, VIDEO_ID, "polygon", ZONE, frame_index=10)
    ts.create_task(p, query="?", external_id="T1")
    runner = CliRunner()
    for args, message in (
        (["T1"], "give one of --from-polygon ID, --zone ID, --count-skeletons MEDIA or --unlink"),
        (["T1", "--zone", zone, "--from-polygon", zone], "(got --from-polygon, --zone)"),
        (["nope", "--zone", zone], "no task 'nope' in the project"),
        (["T1", "--from-polygon", zone], "the polygon has 41000 px² only"),  # no calibration; shoelace by hand
        (["T1", "--zone", zone, "--subject", "forklift"], "unknown zone subject 'forklift'"),
        (["T1", "--zone", zone, "--label", "ghost"], "no label 'ghost' in the project"),
    ):
        res = runner.invoke(app, ["tasks", "ground-truth", path, *args])
        assert res.exit_code == 2, (args, res.output)
        assert message in res.output and res.output.count("error:") == 1, (args, res.output)
    res = runner.invoke(app, ["zone", path, zone])
    assert res.exit_code == 1 and "inside on any frame: -" in res.output     # no points mark on frame 10
