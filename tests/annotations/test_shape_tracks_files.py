"""Shape tracks in files (issue 32 item 1): CVAT for video writes a polygon or skeleton track as one ``<track>`` with
its keyframes (``keyframe="1"``), the frames between interpolated vertex by vertex (``keyframe="0"``, values worked
out by hand) and ``outside="1"`` where it is not shown; importing that file gives back the same keyframes in one
track; a foreign CVAT track whose interpolated frames differ from per-vertex interpolation keeps them as keyframes;
COCO and YOLO write the interpolated shape on every frame between keyframes (read by pycocotools)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from pycocotools.coco import COCO

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import box_tracks, shape_tracks
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.core import skeletons
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media

SQUARE = [[100.0, 100.0], [200.0, 100.0], [200.0, 200.0], [100.0, 200.0]]
MOVED = [[140.0, 120.0], [260.0, 120.0], [240.0, 240.0], [120.0, 220.0]]
TRIANGLE = [[300.0, 300.0], [400.0, 300.0], [350.0, 380.0]]
N = len(skeletons.COCO_PERSON.points)


@pytest.fixture
def tracked_project(project):
    """A polygon track (keyframes 4 and 8 alike, 12 a triangle: not interpolated from 8) and a skeleton track
    (keyframes 20 and 23, point 3 absent on the first)."""
    add_test_media(project)
    zone = lab.create_label(project, "zone")
    track = box_tracks.next_track_id(project, VIDEO_ID)
    for frame, vertices in ((4, SQUARE), (8, MOVED), (12, TRIANGLE)):
        ann.add_shape(project, VIDEO_ID, "polygon", vertices, frame_index=frame, label_id=zone, track_id=track)
    first = [[10.0 * i, 20.0] for i in range(N)]
    first[3] = None
    body = box_tracks.next_track_id(project, VIDEO_ID)
    ann.add_skeleton(project, VIDEO_ID, first, frame_index=20, track_id=body)
    ann.add_skeleton(project, VIDEO_ID, [[10.0 * i + 6, 50.0] for i in range(N)], frame_index=23, track_id=body)
    return project


def _keyframes(project: Project, kind: str) -> dict[int, list[tuple[int, list]]]:
    """{track id: [(frame, geometry), ...]} of the live keyframes of ``kind``."""
    out: dict[int, list] = {}
    for r in ann.list_annotations(project, media_id=VIDEO_ID, kinds=[kind]):
        out.setdefault(r.track_id, []).append((r.frame_index, r.geometry))
    return out


def test_cvat_writes_a_shape_track_with_its_interpolated_frames_and_reads_back_its_keyframes(tracked_project,
                                                                                              tmp_path):
    (path,) = export_annotations(tracked_project, "cvat", tmp_path / "cvat").files
    root = ET.parse(path).getroot()
    (poly_track,) = [t for t in root.findall("track") if t.find("polygon") is not None]
    rows = [(int(p.get("frame")), p.get("keyframe"), p.get("outside")) for p in poly_track.findall("polygon")]
    assert rows == [(4, "1", "0"), (5, "0", "0"), (6, "0", "0"), (7, "0", "0"), (8, "1", "0"), (9, "1", "1"),
                    (12, "1", "0"), (13, "1", "1")]
    # frame 6: t = 1/2, the midpoint of each vertex pair
    assert poly_track.find("polygon[@frame='6']").get("points") == \
        "120.00,110.00;230.00,110.00;220.00,220.00;110.00,210.00"
    (body,) = [t for t in root.findall("track") if t.find("skeleton") is not None]
    frame21 = body.find("skeleton[@frame='21']")
    assert frame21.get("keyframe") == "0"
    points = {p.get("label"): (p.get("points"), p.get("outside")) for p in frame21.findall("points")}
    assert points["left_ear"] == ("0.00,0.00", "1")               # absent on keyframe 20: absent between
    assert points["nose"] == ("2.00,30.00", "0")                  # t = 1/3: x 0 -> 6, y 20 -> 50

    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    report = import_annotations(target, path, "cvat")
    assert not report.problems
    assert list(_keyframes(target, "polygon").values()) == list(_keyframes(tracked_project, "polygon").values())
    assert list(_keyframes(target, "skeleton").values()) == list(_keyframes(tracked_project, "skeleton").values())
    again = import_annotations(target, path, "cvat")
    assert again.marks == 0 and again.already_present == 5


def test_a_foreign_cvat_track_keeps_the_frames_per_vertex_interpolation_would_not_give_back(project, tmp_path):
    add_test_media(project)
    # keyframes on 0 and 4; CVAT's own polygon interpolation put frame 2 elsewhere than the vertices' midpoints
    shapes_by_frame = {0: "0,0;100,0;100,100", 1: "5,0;105,0;105,100", 2: "30,0;130,0;130,100",
                       3: "15,0;115,0;115,100", 4: "20,0;120,0;120,100"}
    polys = "".join(f'<polygon frame="{f}" keyframe="{1 if f in (0, 4) else 0}" outside="0" occluded="0" '
                    f'points="{pts}" z_order="0"/>' for f, pts in shapes_by_frame.items())
    xml = (f'<annotations><version>1.1</version><meta><task><source>walk.mp4</source></task></meta>'
           f'<track id="3" label="zone">{polys}<polygon frame="5" keyframe="1" outside="1" occluded="0" '
           f'points="20,0;120,0;120,100" z_order="0"/></track></annotations>')
    path = tmp_path / "walk.xml"
    path.write_text(xml)
    report = import_annotations(project, path, "cvat")
    assert not report.problems
    (keys,) = _keyframes(project, "polygon").values()
    assert [f for f, _g in keys] == [0, 1, 2, 3, 4]     # 1 and 3 are off the lines 0-2 and 2-4 too
    track = ann.list_annotations(project, kinds=["polygon"])[0].track_id
    for frame, pts in shapes_by_frame.items():
        got = shape_tracks.track_shapes(project, VIDEO_ID, track)[frame].vertices
        assert [list(v) for v in got] == [[float(c) for c in p.split(",")] for p in pts.split(";")]


def test_a_cvat_track_that_leaves_and_comes_back_alike_is_two_tracks(project, tmp_path):
    add_test_media(project)
    xml = ('<annotations><meta><task><source>walk.mp4</source></task></meta><track id="1" label="zone">'
           '<polyline frame="2" keyframe="1" outside="0" points="0,0;10,10"/>'
           '<polyline frame="3" keyframe="1" outside="1" points="0,0;10,10"/>'
           '<polyline frame="7" keyframe="1" outside="0" points="5,0;15,10"/>'
           '<polyline frame="9" keyframe="1" outside="0" points="9,0;19,10"/></track></annotations>')
    (tmp_path / "walk.xml").write_text(xml)
    import_annotations(project, tmp_path / "walk.xml", "cvat")
    got = _keyframes(project, "polyline")
    assert sorted([f for f, _g in keys] for keys in got.values()) == [[2], [7, 9]]


def test_coco_and_yolo_write_the_interpolated_shape_on_each_frame_between_keyframes(tracked_project, tmp_path):
    out = tmp_path / "coco.json"
    export_annotations(tracked_project, "coco", out)
    coco = COCO(str(out))
    doc = json.loads(out.read_text())
    frames = {im["id"]: im["frame_index"] for im in doc["images"]}
    polygon_frames = sorted(frames[a["image_id"]] for a in doc["annotations"] if "segmentation" in a)
    assert polygon_frames == [4, 5, 6, 7, 8, 12]               # nothing between 8 and the triangle on 12
    (mid,) = [a for a in doc["annotations"] if "segmentation" in a and frames[a["image_id"]] == 5]
    # t = 1/4: (100 + 10, 100 + 5), (200 + 15, 105), (200 + 10, 200 + 10), (100 + 5, 200 + 5)
    assert mid["segmentation"] == [[110.0, 105.0, 215.0, 105.0, 210.0, 210.0, 105.0, 205.0]]
    assert coco.annToMask(coco.loadAnns([mid["id"]])[0]).sum() > 0
    skel_frames = sorted(frames[a["image_id"]] for a in doc["annotations"] if a.get("fieldstudio_kind") == "skeleton")
    assert skel_frames == [20, 21, 22, 23]
    export_annotations(tracked_project, "yolo", tmp_path / "yolo")
    line = (tmp_path / "yolo" / "labels" / "walk_f000005.txt").read_text().split()
    # class, then each vertex over the image size (640 x 480)
    assert [float(v) for v in line[1:]] == pytest.approx([110 / 640, 105 / 480, 215 / 640, 105 / 480,
                                                          210 / 640, 210 / 480, 105 / 640, 205 / 480], abs=5.001e-7)


@pytest.mark.parametrize("fmt, out", [("yolo", "yolo"), ("coco", "coco.json"), ("cvat", "cvat")])
def test_a_round_trip_into_the_project_holding_the_marks_adds_nothing(tracked_project, tmp_path, fmt, out):
    """The frames a track interpolates come back from YOLO and COCO as marks on each frame (and YOLO's fractions
    rounded to 6 decimals): each matches the track's own interpolated mark, so nothing is added (the last stop
    found 305 boxes added again on a YOLO round trip)."""
    p = tracked_project
    zone = lab.find_label(p, "zone").id
    walker = box_tracks.next_track_id(p, VIDEO_ID)
    ann.add_box(p, VIDEO_ID, (10.3, 20.7, 50.1, 80.9), zone, frame_index=0, track_id=walker)
    ann.add_box(p, VIDEO_ID, (110.3, 40.7, 60.1, 90.9), zone, frame_index=9, track_id=walker)
    before = len(ann.list_annotations(p))
    export_annotations(p, fmt, tmp_path / out)
    report = import_annotations(p, tmp_path / out, fmt)
    assert report.marks == 0 and report.already_present > 0, report.lines()
    assert len(ann.list_annotations(p)) == before
    held = next(line for line in report.lines() if line.startswith("already in the project"))
    assert "polygon(s)" in held and "box(es)" in held      # named by kind, not all called boxes


def test_coco_carries_shape_tracks_and_a_fresh_project_gets_the_same_tracks_back(tracked_project, tmp_path):
    """COCO shapes carry ``track_id`` and ``keyframe`` in their attributes as boxes do (the last check found 13
    loose polygons from a 2-keyframe track): the interpolated frames are marked ``keyframe: false`` and the import
    rebuilds the same keyframes in one track each, nothing loose."""
    export_annotations(tracked_project, "coco", tmp_path / "coco.json")
    doc = json.loads((tmp_path / "coco.json").read_text())
    frames = {im["id"]: im["frame_index"] for im in doc["images"]}
    polys = sorted((frames[a["image_id"]], a["attributes"]["keyframe"]) for a in doc["annotations"]
                   if a.get("fieldstudio_kind") == "polygon")
    assert polys == [(4, True), (5, False), (6, False), (7, False), (8, True), (12, True)]
    assert len({a["attributes"]["track_id"] for a in doc["annotations"] if "fieldstudio_kind" in a}) == 2
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    report = import_annotations(target, tmp_path / "coco.json", "coco")
    assert not report.problems, report.lines()
    for kind in ("polygon", "skeleton"):
        got = _keyframes(target, kind)
        assert None not in got                                  # no loose shape
        assert list(got.values()) == list(_keyframes(tracked_project, kind).values())
    again = import_annotations(target, tmp_path / "coco.json", "coco")
    assert again.marks == 0
