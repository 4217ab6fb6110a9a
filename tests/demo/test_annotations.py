"""The demo project's annotations: present, inside their pictures, measurable and exportable."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.demo import annotations as demo
from fieldstudio.media import library, video_index
from fieldstudio.store.project import Project
from tests.support.demo_data import ANNOTATIONS, CAMERA_GROUP


@pytest.fixture(scope="module")
def annotated_demo_media(tmp_path_factory):
    """A project with the demo's media and, added to them, its annotations: (project, the report of adding them)."""
    # the demo's media without its annotations, so that the report of adding them can be read
    from fieldstudio.core.paths import sample_data_dir
    path = tmp_path_factory.mktemp("demo") / "demo.fieldstudio"
    project = Project.create(path, name="demo media")
    added = library.add_paths(project, [sample_data_dir() / "media"])
    video_index.index_videos(project, added.media_ids)
    report = demo.add_demo_annotations(project)
    yield project, report
    project.close()


def test_demo_annotations_cover_photos_clip_ruler_segments_and_events(annotated_demo_media):
    project, report = annotated_demo_media
    assert report.missing_media == []
    counts = {kind: n for kind, n in ann.count_annotations(project).items() if n}  # the kinds the demo uses
    # what the data file holds: 3 + 5 + 3 boxes on the photos, 7 + 6 keyframes of the clip's two tracks
    # and its vest box; the floor ruler on the clip and on its frame-45 photo; 2 segments, 1 event, 5 tags
    counts = {k: n for k, n in counts.items() if n}          # the kinds the demo does not use count 0
    assert counts == dict(Counter(a["kind"] for a in ANNOTATIONS["annotations"]))
    assert counts == {"box": 3 + 5 + 3 + 7 + 6 + 1, "ruler": 2, "segment": 2, "event": 1, "tag": 5}
    assert {k: len(v) for k, v in report.ids.items()} == counts
    for r in ann.list_annotations(project, kinds=["box"]):
        m = library.find_media(project, r.media_id)
        x1, y1, x2, y2 = r.geometry
        assert 0 <= x1 < x2 <= m.width and 0 <= y1 < y2 <= m.height
    assert ann.open_segments(project) == [] and ann.overlapping_segments(project) == []


def test_demo_floor_ruler_is_calibrated_through_the_camera_group(annotated_demo_media):
    project, _ = annotated_demo_media
    clip = library.find_media(project, demo.WORKER_CLIP)
    (ruler,) = ann.list_annotations(project, media_id=clip.id, kinds=["ruler"])
    pixels, metres, how = cal.measure_ruler(project, ruler.id)
    # the image points are 153.2 px apart: (252 - 128, 126 - 216) -> hypot(124, 90)
    assert pixels == pytest.approx(153.22, abs=0.01)
    assert 4.0 < metres < 7.0 and "camera group 'worker-zone camera'" in how
    still = library.find_media(project, demo.WORKER_PHOTO)
    assert cal.calibration_for(project, still.id, "floor").camera_group == CAMERA_GROUP


def test_demo_rulers_measure_distances_and_a_mark_from_another_kinds_list_is_refused(annotated_demo_media, tmp_path):
    from fieldstudio.annotations import labels
    from fieldstudio.core.errors import ProjectError

    project, _ = annotated_demo_media
    assert {r.label_name for r in ann.list_annotations(project, kinds=["ruler"])} == {"distance"}
    assert [r.name for r in labels.list_labels(project, "ruler")] == ["distance"]
    # a file that labels a ruler with a box label is refused, and nothing of it is added
    bad = {**ANNOTATIONS, "camera_groups": [], "calibrations": [],
           "annotations": [{"media": demo.WORKER_PHOTO, "kind": "ruler", "label": "person",
                            "points": [[1.0, 1.0], [50.0, 50.0]]}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    before = ann.count_annotations(project)
    with pytest.raises(ProjectError, match="ruler .* labelled 'person', which is not in the ruler label list"):
        demo.add_annotation_file(project, path)
    assert ann.count_annotations(project) == before


def test_demo_track_interpolates_and_exports(annotated_demo_media, tmp_path):
    project, _ = annotated_demo_media
    clip = library.find_media(project, demo.WORKER_CLIP)
    boxes = box_tracks.track_boxes(project, clip.id, 1)
    assert sorted(boxes) == list(range(0, 71))
    # frame 5 halfway between the keyframes on 0 and 10 of the data file's track 1
    keys = {a["frame"]: a["box"] for a in ANNOTATIONS["annotations"]
            if a["media"] == demo.WORKER_CLIP and a["kind"] == "box" and a.get("track") == 1}
    assert boxes[5].box == pytest.approx(tuple((a + b) / 2 for a, b in zip(keys[0], keys[10])))
    # the viewer's per-frame read (keyframes around the frame only) agrees with the whole-track read
    for f in range(71):
        (shown,) = [b for b in box_tracks.boxes_on_frame(project, clip.id, f) if b.track_id == 1]
        assert shown.box == pytest.approx(boxes[f].box) and shown.keyframe == boxes[f].keyframe
    export_annotations(project, "coco", tmp_path / "c.json")
    doc = json.loads((tmp_path / "c.json").read_text())
    person = next(c["id"] for c in doc["categories"] if c["name"] == "person")
    # 3 photo people + 71 clip frames of the person track
    assert sum(a["category_id"] == person for a in doc["annotations"]) == 3 + 71
