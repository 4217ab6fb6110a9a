"""Keypoint skeletons (issue 32 item 1): the 17 COCO body points as the built-in template, absent points kept as
absent, edits with undo, copied to the next frame, and in COCO as keypoints with the template's names and edges in
the category (read by pycocotools), imported back as skeletons."""

from __future__ import annotations

import json

import pytest
from pycocotools.coco import COCO

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import edits, shape_marks
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.annotations.mark_facts import mark_facts
from fieldstudio.core import skeletons
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media
from tests.support.undo_stack import UndoStack

# a standing person, 17 COCO points; the ears (3, 4) and the left wrist (9) are hidden
POSE = [[320, 100], [315, 95], [325, 95], None, None, [300, 130], [340, 130], [290, 170], [350, 170], None,
        [355, 205], [305, 210], [335, 210], [303, 270], [337, 270], [302, 330], [338, 330]]


def test_the_built_in_template_is_coco_person_with_its_19_limbs():
    t = skeletons.template(None)
    assert len(t.points) == 17 and t.points[0] == "nose" and t.points[16] == "right_ankle"
    assert len(t.edges) == 19 and t.coco_skeleton()[0] == [16, 14]  # COCO's first limb: left ankle - left knee
    assert skeletons.template_named(list(t.points)) is t and skeletons.template_named(["a", "b"]) is None


def test_a_skeleton_keeps_absent_points_and_every_edit_is_one_undo(media_project):
    p, stack = media_project, UndoStack()
    add = stack.push(edits.AddSkeleton(p, VIDEO_ID, POSE, frame_index=4))
    rec = ann.get_annotation(p, add.annotation_id)
    assert rec.kind == "skeleton" and rec.text == "coco-person-17" and rec.geometry[3] is None
    assert rec.geometry[0] == [320.0, 100.0]
    facts = mark_facts(p, rec.id)
    assert facts.how == "14 of 17 points placed (coco-person-17)" and facts.pixels == (290.0, 95.0, 65.0, 235.0)
    moved = [None if q is None else [q[0] + 3, q[1]] for q in rec.geometry]
    moved[9] = [360.0, 200.0]  # the hidden wrist placed
    stack.push(edits.MoveShape(p, rec.id, moved, "Move skeleton"))
    assert ann.get_annotation(p, rec.id).geometry[9] == [360.0, 200.0]
    copy = stack.push(edits.CopyShape(p, rec.id))
    assert ann.get_annotation(p, copy.annotation_id).frame_index == 5
    assert ann.get_annotation(p, copy.annotation_id).text == "coco-person-17"
    stack.undo()
    stack.undo()
    assert ann.get_annotation(p, rec.id).geometry == rec.geometry
    with pytest.raises(ann.AnnotationError, match="has 17 points, got 3"):
        ann.add_skeleton(p, VIDEO_ID, [[1, 1], [2, 2], None], frame_index=4)
    with pytest.raises(ann.AnnotationError, match="at least one point"):
        ann.add_skeleton(p, VIDEO_ID, [None] * 17, frame_index=4)
    with pytest.raises(ann.AnnotationError, match="not a polygon"):
        shape_marks.measure_shape(p, rec.id)


def test_coco_keypoints_of_skeletons_load_in_pycocotools_and_import_back(media_project, tmp_path):
    p = media_project
    worker = lab.create_label(p, "worker")
    ann.add_skeleton(p, VIDEO_ID, POSE, frame_index=4, label_id=worker)
    out = tmp_path / "coco.json"
    export_annotations(p, "coco", out)
    coco = COCO(str(out))
    (cat,) = [c for c in coco.loadCats(coco.getCatIds()) if c["name"] == "worker"]
    assert cat["keypoints"] == list(skeletons.COCO_PERSON.points) and len(cat["skeleton"]) == 19
    (a,) = coco.loadAnns(coco.getAnnIds(catIds=[cat["id"]]))
    assert a["num_keypoints"] == 14 and a["keypoints"][9:12] == [0.0, 0.0, 0] and a["keypoints"][:3] == [320, 100, 2]
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    report = import_annotations(target, out, "coco")
    assert report.marks == 1 and not report.problems
    (back,) = ann.list_annotations(target, kinds=["skeleton"])
    assert back.geometry == [None if q is None else [float(q[0]), float(q[1])] for q in POSE]
    assert back.frame_index == 4 and back.label_name == "worker"
    assert json.loads(out.read_text())["annotations"][0]["fieldstudio_kind"] == "skeleton"


def test_cvat_skeleton_element_round_trip(media_project, tmp_path):
    import xml.etree.ElementTree as ET

    p = media_project
    ann.add_skeleton(p, VIDEO_ID, POSE, frame_index=4, attributes={"lifting": "yes"})
    report = export_annotations(p, "cvat", tmp_path / "cvat")
    (path,) = report.files
    sk = ET.parse(path).getroot().find("track/skeleton")
    points = sk.findall("points")
    assert sk.get("frame") == "4" and len(points) == 17
    assert (points[0].get("label"), points[0].get("points"), points[0].get("outside")) == ("nose", "320.00,100.00", "0")
    assert points[3].get("outside") == "1"
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    back = import_annotations(target, path, "cvat")
    assert not back.problems
    (rec,) = ann.list_annotations(target, kinds=["skeleton"])
    assert rec.geometry == [None if q is None else [float(q[0]), float(q[1])] for q in POSE]
    assert rec.frame_index == 4 and rec.attributes == {"lifting": "yes"}


def test_yolo_pose_line_round_trip(media_project, tmp_path):
    p = media_project
    worker = lab.create_label(p, "worker")
    ann.add_skeleton(p, VIDEO_ID, POSE, frame_index=4, label_id=worker)
    export_annotations(p, "yolo", tmp_path / "yolo")
    (line,) = (tmp_path / "yolo" / "labels" / "walk_f000004.txt").read_text().splitlines()
    fields = line.split()
    assert len(fields) == 56 and fields[0] == "0"
    # box of the placed points (290..355 x 95..330 on 640x480), then the nose over the size, then the hidden ears
    assert [float(v) for v in fields[1:5]] == pytest.approx([322.5 / 640, 212.5 / 480, 65 / 640, 235 / 480], abs=1e-6)
    assert fields[5:8] == ["0.500000", "0.208333", "2"] and fields[14:20] == ["0", "0", "0", "0", "0", "0"]
    assert "kpt_shape: [17, 3]" in (tmp_path / "yolo" / "data.yaml").read_text()
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    import_annotations(target, tmp_path / "yolo", "yolo")
    (rec,) = ann.list_annotations(target, kinds=["skeleton"])
    assert rec.frame_index == 4 and rec.geometry[3] is None
    assert rec.geometry[0] == pytest.approx([320.0, 100.0], abs=640 * 5e-7)


def test_csv_row_of_a_skeleton(media_project, tmp_path):
    import pandas as pd

    ann.add_skeleton(media_project, VIDEO_ID, POSE, frame_index=4)
    export_annotations(media_project, "csv", tmp_path / "a.csv")
    row = pd.read_csv(tmp_path / "a.csv").iloc[0]
    assert row.kind == "skeleton" and row.text == "coco-person-17"
    assert row.vertices.split(";")[2:5] == ["325.00,95.00", "", ""]
    assert (row.x, row.y, row.width, row.height) == (290, 95, 65, 235)
