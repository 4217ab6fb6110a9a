"""A skeleton template per label (issue 32 item 1): a 5-point hand template checked (names, limbs), used by a new
skeleton of its label, refused a change of point count while marks use it, undone in one step; exported to COCO
(the category's own keypoints and 1-based skeleton, read by pycocotools), imported into a fresh project (the label
gets the template, the summary says so) and imported again (nothing added)."""

from __future__ import annotations

import pytest
from pycocotools.coco import COCO

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations import skeleton_templates as st
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.core import skeletons
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media
from tests.support.undo_stack import UndoStack

HAND = ["wrist", "thumb", "index", "middle", "little"]
LIMBS = [(0, 1), (0, 2), (0, 3), (0, 4)]
# a hand on frame 4; the thumb hidden
POINTS = [[200, 300], None, [230, 250], [240, 248], [255, 262]]


@pytest.mark.parametrize("names, limbs, message", [
    ([], [], "at least one point name"),
    (["a", " "], [], "point 2 of the skeleton template has an empty name"),
    (["a", "b", "a"], [], "point name.s. a given twice"),
    (["a", "b"], [(0, 2)], "limb 0-2 names a point outside 0..1"),
    (["a", "b"], [(1, 1)], "limb 1-1 joins point b to itself"),
    (["a", "b"], [(0, 1), (1, 0)], "limb 1-0 .b-a. given twice"),
])
def test_a_template_that_does_not_hold_together_is_refused_in_one_line(names, limbs, message):
    with pytest.raises(skeletons.ShapeError, match=message):
        skeletons.make_template("t", names, limbs)
    with pytest.raises(st.SkeletonTemplateError, match=message):
        st.checked("label-id", names, limbs)


def test_limbs_text():
    assert st.parse_limbs("0-1, 1-2,") == [(0, 1), (1, 2)]
    with pytest.raises(st.SkeletonTemplateError, match="'0:1' is not two point numbers"):
        st.parse_limbs("0:1")


def test_a_label_template_is_used_by_its_skeletons_and_guarded_while_they_exist(media_project):
    p, stack = media_project, UndoStack()
    hand = lab.create_label(p, "hand")
    assert st.template_for_label(p, hand) is skeletons.COCO_PERSON
    stack.push(st.SetSkeletonTemplate(p, hand, HAND, LIMBS))
    tmpl = st.template_for_label(p, hand)
    assert tmpl.name == f"label:{hand}" and tmpl.points == tuple(HAND) and tmpl.edges == tuple(LIMBS)
    mark = ann.add_skeleton(p, VIDEO_ID, POINTS, frame_index=4, label_id=hand)
    rec = ann.get_annotation(p, mark)
    assert rec.text == f"label:{hand}" and rec.geometry[1] is None and rec.geometry[4] == [255.0, 262.0]
    with pytest.raises(ann.AnnotationError, match="has 5 points, got 17"):
        ann.add_skeleton(p, VIDEO_ID, [[1, 1]] * 17, frame_index=4, label_id=hand)
    # another label's skeleton still gets the COCO person
    assert ann.get_annotation(p, ann.add_skeleton(p, VIDEO_ID, [[1, 1]] * 17, frame_index=4)).text == \
        "coco-person-17"
    assert st.marks_using(p, hand) == 1
    with pytest.raises(st.SkeletonTemplateError, match="1 skeleton mark.s. of hand use its 5 points: it cannot go "
                       "to 4 points"):
        st.SetSkeletonTemplate(p, hand, HAND[:4], []).do()
    with pytest.raises(st.SkeletonTemplateError, match="cannot go back to the 17 COCO points"):
        st.SetSkeletonTemplate(p, hand, None).do()
    stack.push(st.SetSkeletonTemplate(p, hand, ["carpus", *HAND[1:]], LIMBS[:2]))   # a rename: same count
    assert st.template_for_label(p, hand).points[0] == "carpus" and len(st.template_for_label(p, hand).edges) == 2
    stack.undo()
    assert st.template_for_label(p, hand).points[0] == "wrist"
    ann.delete(p, mark)
    stack.push(st.SetSkeletonTemplate(p, hand, None))
    assert st.template_for_label(p, hand) is skeletons.COCO_PERSON and not st.describe(p, hand)["own"]


def _exported_hand(p, tmp_path):  # noqa: ANN001, ANN202 - Project, Path -> (Path, Project)
    """A hand with its own 5-point template and one skeleton in ``p``, exported to COCO; and an empty copy project
    holding the same media."""
    hand = lab.create_label(p, "hand")
    st.SetSkeletonTemplate(p, hand, HAND, LIMBS).do()
    ann.add_skeleton(p, VIDEO_ID, POINTS, frame_index=4, label_id=hand)
    out = tmp_path / "coco.json"
    export_annotations(p, "coco", out)
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    return out, target


def test_five_point_template_to_coco_pycocotools_and_back(media_project, tmp_path):
    out, target = _exported_hand(media_project, tmp_path)
    coco = COCO(str(out))
    (cat,) = [c for c in coco.loadCats(coco.getCatIds()) if c["name"] == "hand"]
    assert cat["keypoints"] == HAND and cat["skeleton"] == [[1, 2], [1, 3], [1, 4], [1, 5]]   # 1-based in COCO
    (a,) = coco.loadAnns(coco.getAnnIds(catIds=[cat["id"]]))
    assert a["num_keypoints"] == 4 and len(a["keypoints"]) == 15 and a["keypoints"][3:6] == [0.0, 0.0, 0]

    report = import_annotations(target, out, "coco")
    assert report.marks == 1 and not report.problems
    assert "label hand: skeleton template set from the file, 5 points (wrist, thumb, index, middle, little), " \
           "4 limb(s)" in report.lines()
    new_hand = lab.find_label(target, "hand").id
    assert st.template_for_label(target, new_hand).points == tuple(HAND)
    assert st.template_for_label(target, new_hand).edges == tuple(LIMBS)
    (back,) = ann.list_annotations(target, kinds=["skeleton"])
    assert back.text == f"label:{new_hand}" and back.frame_index == 4
    assert back.geometry == [None if q is None else [float(q[0]), float(q[1])] for q in POINTS]
    again = import_annotations(target, out, "coco")
    assert again.marks == 0 and again.already_present == 1 and not again.notes
    assert len(ann.list_annotations(target, kinds=["skeleton"])) == 1


def test_an_import_whose_points_differ_from_the_labels_own_template_skips_those_skeletons(media_project, tmp_path):
    out, target = _exported_hand(media_project, tmp_path)
    other = lab.create_label(target, "hand")
    st.SetSkeletonTemplate(target, other, ["a", "b"], [(0, 1)]).do()
    report = import_annotations(target, out, "coco")
    assert report.marks == 0 and any("label hand has its own skeleton template (a, b), not the file's" in line
                                     for line in report.lines())


def test_the_import_is_one_undo_with_its_template(media_project, tmp_path):
    from fieldstudio.annotations.imports.importing import plan_import

    out, target = _exported_hand(media_project, tmp_path)
    edit = plan_import(target, out, "coco").edit()
    edit.do()
    assert st.known(target)
    edit.undo()
    assert not st.known(target) and lab.find_label(target, "hand") is None
    edit.do()
    assert st.template_for_label(target, lab.find_label(target, "hand").id).points == tuple(HAND)


def test_cvat_round_trip_of_a_five_point_skeleton_and_yolo_keeps_one_point_count(media_project, tmp_path):
    """CVAT declares a skeleton label's points (sub-labels) and limbs (its <svg>): a fresh project gets the hand's 5
    points and its 4 limbs; YOLO pose has one kpt_shape per set, so a 17-point skeleton beside the 5-point one is left out, said
    so."""
    p = media_project
    out, target = _exported_hand(p, tmp_path)
    export_annotations(p, "cvat", tmp_path / "cvat.xml")
    report = import_annotations(target, tmp_path / "cvat.xml", "cvat")
    assert report.marks == 1 and not report.problems
    assert "label hand: skeleton template set from the file, 5 points (wrist, thumb, index, middle, little), " \
           "4 limb(s)" in report.lines()
    assert st.template_for_label(target, lab.find_label(target, "hand").id).edges == tuple(LIMBS)
    (back,) = ann.list_annotations(target, kinds=["skeleton"])
    assert back.geometry == [None if q is None else [float(q[0]), float(q[1])] for q in POINTS]
    assert import_annotations(target, tmp_path / "cvat.xml", "cvat").marks == 0
    ann.add_skeleton(p, VIDEO_ID, [[5, 5]] * 17, frame_index=4)
    yolo = export_annotations(p, "yolo", tmp_path / "yolo")
    assert "kpt_shape: [5, 3]" in (tmp_path / "yolo" / "data.yaml").read_text()
    assert any("its 17 points are not the 5 of the set's first skeleton" in why for _what, why in yolo.skipped)
