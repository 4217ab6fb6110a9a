"""Angles and stopwatches in the annotation exports (issue 32 item 3): the CSV's own columns (degrees, plane,
calibration; start/end frames, PTS, seconds), CVAT's one-frame polyline with attributes read back as an angle
and its one-point track from start to end frame read back as a stopwatch (once), COCO leaving both out, and `annotations list` reading them.

Times come from the hand-written frame table of ``tests/support/annotation_fixtures.py`` (time base 1/90000 s):
frame 3 = 13800 ticks, frame 7 = 28800 ticks, so the stopwatch from 3 to 7 reads 15000 / 90000 = 0.166667 s.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import cv2
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fieldstudio.annotations import angles, stopwatch
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.core.calibration import order_floor_corners
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media, hand_pts

QUAD = [(120, 460), (560, 450), (470, 250), (200, 255)]
ARMS = [[300.0, 300.0], [400.0, 400.0], [520.0, 380.0]]      # arm end, vertex, arm end


def _floor_degrees(points) -> float:
    """The angle at the middle point after OpenCV's perspectiveTransform onto the 4 m x 6 m floor rectangle."""
    stored_h = cv2.getPerspectiveTransform(np.float32(order_floor_corners(QUAD)),
                                           np.float32([(0, 0), (4, 0), (4, 6), (0, 6)]))
    a, v, b = cv2.perspectiveTransform(np.float32([points]), stored_h)[0].astype(float)
    u, w = a - v, b - v
    return math.degrees(math.acos(float(u @ w) / (np.linalg.norm(u) * np.linalg.norm(w))))


@pytest.fixture
def measured(project):
    add_test_media(project)
    cal.save_calibration(project, "floor", QUAD, media_id=VIDEO_ID, width_m=4.0, depth_m=6.0)
    angle = angles.add_angle(project, VIDEO_ID, *ARMS, frame_index=5)
    watch = stopwatch.add_stopwatch(project, VIDEO_ID, 7, 3)
    return project, angle, watch


def test_csv_gives_angles_and_stopwatches_their_own_columns(measured, tmp_path):
    p, angle, watch = measured
    export_annotations(p, "csv", tmp_path / "a.csv")
    df = pd.read_csv(tmp_path / "a.csv").set_index("annotation_id")
    row = df.loc[angle]
    assert row.kind == "angle" and row.start_frame == 5 and row.plane == "floor"
    assert row.degrees == pytest.approx(_floor_degrees(ARMS), abs=1e-3)
    image = math.degrees(math.acos((-100 * 120 + -100 * -20) / (math.hypot(100, 100) * math.hypot(120, 20))))
    assert row.image_degrees == pytest.approx(image, abs=1e-4)          # by hand: the arms (-100,-100), (120,-20)
    assert row.vertices == "300.00,300.00;400.00,400.00;520.00,380.00" and "floor plane" in row.measured_how
    sw = df.loc[watch]
    assert (sw.kind, sw.start_frame, sw.end_frame) == ("stopwatch", 3, 7)
    assert (sw.start_pts, sw.end_pts) == (hand_pts(3), hand_pts(7)) == (13800, 28800)
    assert sw.duration_s == pytest.approx(15000 / 90000, abs=1e-6)
    assert sw.measured_how == "0.167 s, 4 frames (frame 3 to 7)"


def test_cvat_keeps_an_angle_and_a_stopwatch_and_reads_them_back_once(measured, tmp_path):
    p, angle, _watch = measured
    report = export_annotations(p, "cvat", tmp_path / "cvat")
    (path,) = report.files
    root = ET.parse(path).getroot()
    (line, after) = root.findall("track/polyline")
    assert (line.get("frame"), after.get("outside")) == ("5", "1")
    attrs = {a.get("name"): a.text for a in line.findall("attribute")}
    assert attrs["fieldstudio_kind"] == "angle" and attrs["plane"] == "floor"
    assert float(attrs["degrees"]) == pytest.approx(_floor_degrees(ARMS), abs=1e-3)
    # CVAT has no time interval: the stopwatch is a one-point track shown from frame 3 to 7, keyed on both
    (watch_track,) = [t for t in root.findall("track") if t.find("points") is not None]
    rows = [(int(e.get("frame")), e.get("keyframe"), e.get("outside")) for e in watch_track.findall("points")]
    assert rows == [(3, "1", "0"), (4, "0", "0"), (5, "0", "0"), (6, "0", "0"), (7, "1", "0"), (8, "1", "1")]
    watch_attrs = {a.get("name"): a.text for a in watch_track.find("points").findall("attribute")}
    assert watch_attrs == {"fieldstudio_kind": "stopwatch", "seconds": f"{15000 / 90000:.6f}"}
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    cal.save_calibration(target, "floor", QUAD, media_id=VIDEO_ID, width_m=4.0, depth_m=6.0)
    back = import_annotations(target, path, "cvat")
    assert not back.problems
    (copy,) = ann.list_annotations(target, kinds=["angle"])
    assert copy.geometry == ARMS and copy.frame_index == 5 and copy.attributes is None
    assert angles.measure_angle(target, copy.id).degrees == pytest.approx(_floor_degrees(ARMS), abs=1e-3)
    assert not ann.list_annotations(target, kinds=["polyline"])
    (watch,) = ann.list_annotations(target, kinds=["stopwatch"])
    reading = stopwatch.reading_of(watch)
    assert (reading.start_frame, reading.end_frame) == (3, 7) and reading.seconds == pytest.approx(15000 / 90000)
    assert not ann.list_annotations(target, kinds=["points"])
    again = import_annotations(target, path, "cvat")
    assert again.marks == 0                                             # a second import adds nothing
    assert [len(ann.list_annotations(target, kinds=[k])) for k in ("angle", "stopwatch")] == [1, 1]


def test_coco_leaves_them_out_and_annotations_list_reads_them(measured, tmp_path, monkeypatch):
    from fieldstudio.cli.app import app

    p, angle, watch = measured
    ann.add_box(p, VIDEO_ID, (10, 10, 50, 40), frame_index=5)
    export_annotations(p, "coco", tmp_path / "coco.json")
    coco = json.loads((tmp_path / "coco.json").read_text())
    assert [a["fieldstudio_kind"] if "fieldstudio_kind" in a else "box" for a in coco["annotations"]] == ["box"]
    monkeypatch.setenv("COLUMNS", "250")
    res = CliRunner().invoke(app, ["annotations", "list", str(p.path), "--json"])
    rows = {r["id"]: r for r in json.loads(res.output)}
    assert rows[angle]["measurement"]["plane"] == "floor"
    assert rows[angle]["measurement"]["degrees"] == pytest.approx(_floor_degrees(ARMS), abs=1e-3)
    assert rows[watch]["measurement"]["seconds"] == pytest.approx(15000 / 90000)
    assert rows[watch]["measurement"]["frames"] == 4
    text = CliRunner().invoke(app, ["annotations", "list", str(p.path), "--kind", "stopwatch"]).output
    assert "0.167 s, 4 frames (frame 3 to 7)" in text
