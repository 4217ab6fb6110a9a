"""CVAT track ids are the project's (issue 32, a tester's finding): the window's track "#4" is ``<track id="4">``
in the CVAT export, datumaro's CVAT importer gives it ``track_id`` 4, and COCO's ``track_id`` is the same, for box
and shape tracks alike (they share a video's ids); the marks with no track id of ours are numbered on from the
largest in the file; our CVAT import keeps the file's ids. The export report says what the closing ``outside="1"``
shape means (datumaro keeps it as an annotation).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import box_tracks, stopwatch
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations.exports.cvat import OUTSIDE_NOTE
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.exports.scope import summary_text
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media
from tests.support.format_readers import datumaro_dataset

SPILL_3 = [[100.0, 120.0], [300.0, 100.0], [340.0, 260.0]]
SPILL_9 = [[110.0, 120.0], [310.0, 100.0], [350.0, 260.0]]


@pytest.fixture
def tracked_video(project):
    """The test video with track ids 1-4 issued (1 never used, as after a deleted track): box track 2 (frames 2, 6),
    polygon track 3 (3, 9), box track 4 (frames 10, 12); and, with no track id, a polygon on 5, a box on 7 and a
    stopwatch from 1 to 4."""
    add_test_media(project)
    worker, spill = (lab.create_label(project, n) for n in ("worker", "spill"))
    ids = [box_tracks.next_track_id(project, VIDEO_ID) for _ in range(4)]
    assert ids == [1, 2, 3, 4]
    ann.add_box(project, VIDEO_ID, (10, 10, 40, 30), worker, frame_index=2, track_id=2)
    ann.add_box(project, VIDEO_ID, (30, 20, 40, 40), worker, frame_index=6, track_id=2)
    ann.add_shape(project, VIDEO_ID, "polygon", SPILL_3, frame_index=3, label_id=spill, track_id=3)
    ann.add_shape(project, VIDEO_ID, "polygon", SPILL_9, frame_index=9, label_id=spill, track_id=3)
    ann.add_box(project, VIDEO_ID, (200, 200, 50, 80), worker, frame_index=10, track_id=4)
    ann.add_box(project, VIDEO_ID, (210, 200, 50, 80), worker, frame_index=12, track_id=4)
    ann.add_shape(project, VIDEO_ID, "polygon", SPILL_9, frame_index=5, label_id=spill)
    ann.add_box(project, VIDEO_ID, (400, 300, 20, 20), worker, frame_index=7)
    stopwatch.add_stopwatch(project, VIDEO_ID, 1, 4, text="walk")
    return project


def _tracks(path) -> dict[int, tuple[str, str, list[int]]]:
    """{track id: (label, first element's tag, shown frames)} of a CVAT for video file."""
    out = {}
    for t in ET.parse(path).getroot().findall("track"):
        shown = [int(e.get("frame")) for e in t if e.get("outside") == "0"]
        out[int(t.get("id"))] = (t.get("label"), t[0].tag, shown)
    return out


def test_cvat_writes_the_projects_track_ids_and_numbers_the_rest_after_the_largest(tracked_video, tmp_path):
    report = export_annotations(tracked_video, "cvat", tmp_path / "cvat")
    (path,) = report.files
    tracks = _tracks(path)
    assert {k: v for k, v in tracks.items() if k in (2, 3, 4)} == {
        2: ("worker", "box", [2, 3, 4, 5, 6]), 3: ("spill", "polygon", [3, 4, 5, 6, 7, 8, 9]),
        4: ("worker", "box", [10, 11, 12])}
    # the polygon, the stopwatch and the box outside any track: 5, 6, 7 (after the largest of ours, 4); none is 0 or 1
    assert sorted(tracks) == [2, 3, 4, 5, 6, 7]
    assert sorted(v for k, v in tracks.items() if k > 4) == [
        ("spill", "polygon", [5]), ("unlabelled", "points", [1, 2, 3, 4]), ("worker", "box", [7])]
    assert report.annotations == 6

    # COCO's track_id of every tracked box and shape (keyframes and interpolated ones) is the same id
    coco = json.loads(export_annotations(tracked_video, "coco", tmp_path / "coco.json").files[0].read_text())
    frame_of = {im["id"]: im["frame_index"] for im in coco["images"]}
    coco_ids: dict[int, set[int]] = {}
    for a in coco["annotations"]:
        if "track_id" in a["attributes"]:
            coco_ids.setdefault(a["attributes"]["track_id"], set()).add(frame_of[a["image_id"]])
    assert coco_ids == {2: set(range(2, 7)), 3: set(range(3, 10)), 4: set(range(10, 13))}


def test_datumaro_reads_the_projects_track_ids(tracked_video, tmp_path):
    export_annotations(tracked_video, "cvat", tmp_path / "cvat")
    dataset = datumaro_dataset().import_from(str(tmp_path / "cvat"), "cvat")
    names = [c.name for c in dataset.categories()[next(iter(dataset.categories()))]]
    shown: dict[int, set[int]] = {}
    for item in dataset:
        for a in item.annotations:
            if not a.attributes["outside"]:
                shown.setdefault(a.attributes["track_id"], set()).add(item.attributes["frame"])
                assert names[a.label] == ("worker" if a.type.name == "bbox" else "spill" if a.type.name == "polygon"
                                          else "unlabelled")
    assert shown == {2: set(range(2, 7)), 3: set(range(3, 10)), 4: set(range(10, 13)),
                     5: {5}, 6: {1, 2, 3, 4}, 7: {7}}    # the polygon on 5, the stopwatch, the box on 7


def test_our_cvat_import_keeps_the_files_track_ids(tracked_video, tmp_path):
    (path,) = export_annotations(tracked_video, "cvat", tmp_path / "cvat").files
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    report = import_annotations(target, path, "cvat")
    assert not report.problems
    got = {(r.kind, r.frame_index, r.track_id) for r in ann.list_annotations(target, kinds=["box", "polygon"])}
    assert got == {("box", 2, 2), ("box", 6, 2), ("polygon", 3, 3), ("polygon", 9, 3), ("box", 10, 4),
                   ("box", 12, 4), ("polygon", 5, None), ("box", 7, None)}


def test_the_export_report_says_what_the_closing_outside_shape_means(tracked_video, tmp_path):
    report = export_annotations(tracked_video, "cvat", tmp_path / "cvat")
    assert report.notes == [OUTSIDE_NOTE]
    assert summary_text(report).splitlines()[0] == "Exported 6 tracks and photo marks of 1 video(s)/photo(s) as CVAT."
    assert f"Note: {OUTSIDE_NOTE}." in summary_text(report).splitlines()
    assert 'outside="1"' in OUTSIDE_NOTE and "datumaro" in OUTSIDE_NOTE
    # no video, no CVAT track: no note (a COCO export has none either)
    assert export_annotations(tracked_video, "coco", tmp_path / "c.json").notes == []
