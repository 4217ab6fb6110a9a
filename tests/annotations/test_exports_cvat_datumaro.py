"""CVAT for video 1.1 as CVAT writes it, read by the format's own library (issue 32 "Done when"): datumaro's CVAT
importer (``Dataset.import_from(folder, "cvat")``, datumaro 1.13.12, the ``readers`` test extra) loads our export of
a box track, a polygon, a polyline, points and a skeleton track, and gives per frame the labels, kinds, coordinates
(worked out by hand below) and track ids. datumaro 1.13 has no skeletons: it reads each point of a skeleton track as
a one-point ``points`` of the skeleton's label, in the template's order. The skeleton label is declared as CVAT
declares one (points as sub-labels with ``<parent>``, limbs in ``<svg>``), and our import reads the template back
from it, limbs included; a skeleton track written by hand in CVAT's documented layout (no ``frame`` on the points,
its end a ``<skeleton>`` whose points are all outside) imports the same way.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import box_tracks, skeleton_templates
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media
from tests.support.format_readers import datumaro_dataset

HAND = ["wrist", "thumb", "index", "middle", "little"]
HAND_LIMBS = [(0, 1), (0, 2), (0, 3), (0, 4)]
SPILL = [[100.0, 120.0], [300.0, 100.0], [340.0, 260.0], [150.0, 280.0]]
EDGE = [[10.0, 400.0], [300.0, 380.0], [630.0, 390.0]]
DOTS = [[50.0, 60.0], [70.0, 80.0]]
HAND_10 = [None, [110.0, 200.0], [120.0, 190.0], [130.0, 190.0], [140.0, 200.0]]   # the wrist absent on frame 10
HAND_14 = [[104.0, 260.0], [150.0, 220.0], [160.0, 210.0], [170.0, 210.0], [180.0, 220.0]]


@pytest.fixture
def marked_video(project):
    """The test video (640 x 480, 30 frames) with a box track (keyframes 2 and 6), a polygon and a polyline on
    frame 5, points on frame 7, and a skeleton track of label "hand" (its own 5-point template) keyed on 10 and 14."""
    add_test_media(project)
    worker, spill, hand = (lab.create_label(project, n) for n in ("worker", "spill", "hand"))
    skeleton_templates.SetSkeletonTemplate(project, hand, HAND, HAND_LIMBS).do()
    track = box_tracks.next_track_id(project, VIDEO_ID)
    ann.add_box(project, VIDEO_ID, (10, 10, 40, 30), worker, frame_index=2, track_id=track)
    ann.add_box(project, VIDEO_ID, (30, 20, 40, 40), worker, frame_index=6, track_id=track)
    ann.add_shape(project, VIDEO_ID, "polygon", SPILL, frame_index=5, label_id=spill)
    ann.add_shape(project, VIDEO_ID, "polyline", EDGE, frame_index=5, label_id=spill)
    ann.add_shape(project, VIDEO_ID, "points", DOTS, frame_index=7, label_id=worker)
    body = box_tracks.next_track_id(project, VIDEO_ID)
    ann.add_skeleton(project, VIDEO_ID, HAND_10, frame_index=10, label_id=hand, track_id=body)
    ann.add_skeleton(project, VIDEO_ID, HAND_14, frame_index=14, label_id=hand, track_id=body)
    return project


def _read_by_datumaro(folder) -> dict[int, list[tuple[str, str, list[float], dict]]]:
    """{frame: [(kind, label name, coordinates, attributes)]} as datumaro's CVAT importer reads ``folder``."""
    dataset = datumaro_dataset().import_from(str(folder), "cvat")
    names = [c.name for c in dataset.categories()[next(iter(dataset.categories()))]]
    out: dict[int, list] = defaultdict(list)
    for item in dataset:
        for a in item.annotations:
            coords = list(a.get_bbox()) if a.type.name == "bbox" else list(a.points)
            out[item.attributes["frame"]].append((a.type.name, names[a.label], coords, dict(a.attributes)))
    return out


def test_datumaro_reads_every_kind_on_its_frames_with_our_coordinates_and_tracks(marked_video, tmp_path):
    report = export_annotations(marked_video, "cvat", tmp_path / "cvat")
    assert not report.skipped
    frames = _read_by_datumaro(tmp_path / "cvat")
    shown = {f: [r for r in rows if not r[3]["outside"]] for f, rows in frames.items()}

    # the box track: keyframes 2 and 6 as drawn, frame 4 halfway (x, y, w, h): (10 + 30) / 2, (10 + 20) / 2, 40, 35
    boxes = {f: [r for r in rows if r[0] == "bbox"] for f, rows in shown.items()}
    assert [r[2] for r in boxes[2]] == [[10.0, 10.0, 40.0, 30.0]]
    assert [r[2] for r in boxes[4]] == [[20.0, 15.0, 40.0, 35.0]]
    assert [r[2] for r in boxes[6]] == [[30.0, 20.0, 40.0, 40.0]]
    assert [(r[3]["keyframe"], r[1]) for f in (2, 3, 6) for r in boxes[f]] == [(True, "worker"), (False, "worker"),
                                                                             (True, "worker")]
    assert not [r for r in frames[7] if r[0] == "bbox" and not r[3]["outside"]]      # the track left after 6
    box_track = {r[3]["track_id"] for f in range(2, 7) for r in boxes[f]}
    assert len(box_track) == 1

    # the polygon, the polyline and the points, each on its frame only (a one-frame track, outside on the next)
    assert [(r[0], r[1], r[2]) for r in shown[5] if r[0] != "bbox"] == [
        ("polygon", "spill", [c for v in SPILL for c in v]), ("polyline", "spill", [c for v in EDGE for c in v])]
    assert [(r[0], r[1], r[2]) for r in shown[7] if r[0] == "points"] == [("points", "worker", [50.0, 60.0, 70.0, 80.0])]
    assert [r[0] for r in shown.get(6, []) if r[0] in ("polygon", "polyline")] == []

    # the skeleton track: one one-point "points" per template point, in order; the wrist absent on 10 (outside),
    # frame 12 halfway between the keyframes, frame 15 the track's end (every point outside)
    def hand(f):
        return [(r[2], r[3]["outside"], r[3]["keyframe"]) for r in frames[f] if r[1] == "hand"]
    assert hand(10) == [([0.0, 0.0], True, True)] + [(p, False, True) for p in HAND_10[1:]]
    assert hand(12) == [([0.0, 0.0], True, False), ([130.0, 210.0], False, False), ([140.0, 200.0], False, False),
                        ([150.0, 200.0], False, False), ([160.0, 210.0], False, False)]
    assert hand(14) == [(p, False, True) for p in HAND_14]
    assert [outside for _p, outside, _k in hand(15)] == [True] * 5
    skeleton_track = {r[3]["track_id"] for f in range(10, 16) for r in frames[f] if r[1] == "hand"}
    assert len(skeleton_track) == 1 and skeleton_track.isdisjoint(box_track)
    track_ids = [r[3]["track_id"] for rows in frames.values() for r in rows]
    assert len(set(track_ids)) == 5                     # box track, polygon, polyline, points, skeleton track


def test_the_skeleton_label_is_declared_as_cvat_declares_it_and_imports_back_with_its_limbs(marked_video, tmp_path):
    (path,) = export_annotations(marked_video, "cvat", tmp_path / "cvat").files
    root = ET.parse(path).getroot()
    labels = {el.findtext("name"): el for el in root.findall("meta/task/labels/label")}
    assert labels["hand"].findtext("type") == "skeleton"
    assert [n for n, el in labels.items() if el.findtext("parent") == "hand"] == HAND
    drawing = ET.fromstring(f"<svg>{labels['hand'].findtext('svg')}</svg>")
    nodes = {int(c.get("data-node-id")): c.get("data-label-name") for c in drawing.iter("circle")}
    assert nodes == {i + 1: name for i, name in enumerate(HAND)}
    assert sorted((int(e.get("data-node-from")), int(e.get("data-node-to"))) for e in drawing.iter("line")) == \
        [(1, 2), (1, 3), (1, 4), (1, 5)]
    skeleton = root.find("track/skeleton[@frame='10']")
    assert sorted(skeleton.attrib) == ["frame", "keyframe", "z_order"]     # CVAT's: no outside of its own

    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    report = import_annotations(target, path, "cvat")
    assert not report.problems
    hand = lab.find_label(target, "hand")
    got = skeleton_templates.describe(target, hand.id)
    assert got["own"] and got["points"] == HAND and got["limbs"] == [list(e) for e in HAND_LIMBS]
    keys = sorted((r.frame_index, r.geometry) for r in ann.list_annotations(target, kinds=["skeleton"]))
    assert keys == [(10, HAND_10), (14, HAND_14)]


def test_a_skeleton_track_in_cvats_documented_layout_imports_with_its_template_and_end(project, tmp_path):
    add_test_media(project)
    svg = ('&lt;line data-type="edge" data-node-from="2" data-node-to="1"&gt;&lt;/line&gt;'
           '&lt;circle data-type="element node" data-node-id="1" data-label-name="top"&gt;&lt;/circle&gt;'
           '&lt;circle data-type="element node" data-node-id="2" data-label-name="foot"&gt;&lt;/circle&gt;')

    def skeleton(frame, keyframe, top, foot, outside="0"):
        return (f'<skeleton frame="{frame}" keyframe="{keyframe}" z_order="0">'
                f'<points label="top" outside="{outside}" occluded="0" keyframe="{keyframe}" points="{top}"/>'
                f'<points label="foot" outside="{outside}" occluded="0" keyframe="{keyframe}" points="{foot}"/>'
                '</skeleton>')
    xml = ('<annotations><version>1.1</version><meta><task><source>walk.mp4</source><labels>'
           f'<label><name>pole</name><type>skeleton</type><svg>{svg}</svg></label>'
           '<label><name>top</name><type>points</type><parent>pole</parent></label>'
           '<label><name>foot</name><type>points</type><parent>pole</parent></label></labels></task></meta>'
           '<track id="0" label="pole" source="manual">'
           + skeleton(3, 1, "10,20", "10,80") + skeleton(4, 0, "15,20", "15,80") + skeleton(5, 1, "20,20", "20,80")
           + skeleton(6, 1, "20,20", "20,80", outside="1") + '</track></annotations>')
    (tmp_path / "walk.xml").write_text(xml)
    report = import_annotations(project, tmp_path / "walk.xml", "cvat")
    assert not report.problems
    got = skeleton_templates.describe(project, lab.find_label(project, "pole").id)
    assert got["points"] == ["top", "foot"] and got["limbs"] == [[1, 0]]
    # frame 4 is the midpoint of 3 and 5, so it is left to interpolation; 6 (all outside) ends the track
    keys = sorted((r.frame_index, r.geometry) for r in ann.list_annotations(project, kinds=["skeleton"]))
    assert keys == [(3, [[10.0, 20.0], [10.0, 80.0]]), (5, [[20.0, 20.0], [20.0, 80.0]])]
    assert len({r.track_id for r in ann.list_annotations(project, kinds=["skeleton"])}) == 1
