"""YOLO pose of any point count (issue 32 item 1): Ultralytics' ``kpt_shape: [N, 2 | 3]`` in data.yaml says how many
points a pose line holds; a 5-point hand template goes out with ``kpt_shape: [5, 3]`` and its ``kpt_names`` and comes
back into a fresh project with the same points, and again adds nothing; an unnamed set takes the label's own template
of that many points, or refuses each line naming the file and line when the label's template has another count."""

from __future__ import annotations

import pytest
import yaml

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations import skeleton_templates as st
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.media import library
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID, add_test_media

HAND = ["wrist", "thumb", "index", "middle", "little"]
POINTS = [[200, 300], None, [230, 250], [240, 248], [255.5, 262.25]]     # the thumb hidden


def fresh(tmp_path, name: str) -> Project:
    target = Project.create(tmp_path / f"{name}.fieldstudio")
    add_test_media(target)
    return target


def with_template(project: Project, points: list[str]) -> str:
    hand = lab.create_label(project, "hand")
    st.SetSkeletonTemplate(project, hand, points, []).do()
    return hand


def test_a_five_point_template_goes_out_as_kpt_shape_and_comes_back_with_its_points(media_project, tmp_path):
    p = media_project
    hand = with_template(p, HAND)
    ann.add_skeleton(p, VIDEO_ID, POINTS, frame_index=4, label_id=hand)
    export_annotations(p, "yolo", tmp_path / "yolo")
    data = yaml.safe_load((tmp_path / "yolo" / "data.yaml").read_text())
    index = list(data["names"].values()).index("hand")
    assert data["kpt_shape"] == [5, 3] and data["kpt_names"] == {index: HAND} and "flip_idx" not in data
    (line,) = [t for f in (tmp_path / "yolo" / "labels").glob("*.txt") if (t := f.read_text().strip())]
    assert len(line.split()) == 5 + 5 * 3

    target = fresh(tmp_path, "fresh")
    report = import_annotations(target, tmp_path / "yolo", "yolo")
    assert report.marks == 1 and not report.problems
    assert "label hand: skeleton template set from the file, 5 points (wrist, thumb, index, middle, little), " \
           "0 limb(s)" in report.lines()
    assert st.template_for_label(target, lab.find_label(target, "hand").id).points == tuple(HAND)
    (back,) = ann.list_annotations(target, kinds=["skeleton"])
    video = library.find_media(target, VIDEO_ID)
    assert back.frame_index == 4 and back.geometry[1] is None
    for got, want in zip(back.geometry, POINTS):   # 6 decimals of a fraction of the size, by hand
        if want is not None:
            assert got == pytest.approx([round(want[0] / video.width, 6) * video.width,
                                         round(want[1] / video.height, 6) * video.height], abs=1e-9)
    again = import_annotations(target, tmp_path / "yolo", "yolo")
    assert (again.marks, again.already_present) == (0, 1)
    same = import_annotations(p, tmp_path / "yolo", "yolo")
    assert (same.marks, same.already_present) == (0, 1)


def write_set(folder, shape: str, lines: list[str]) -> None:
    (folder / "labels").mkdir(parents=True)
    (folder / "data.yaml").write_text(f"names: [person, hand]\n{shape}")
    (folder / "labels" / "site.txt").write_text("\n".join(lines) + "\n")


# five points of (x, y) on the 400 x 300 photo: a box, then x/400 and y/300 per point
FIVE_XY = "1 0.5 0.5 0.2 0.2 0.45 0.4 0.5 0.45 0.55 0.5 0.5 0.6 0.4 0.55"


def test_an_unnamed_set_takes_the_label_template_of_its_count_or_is_refused_line_by_line(project, tmp_path):
    write_set(tmp_path / "set", "kpt_shape: [5, 2]\n", [FIVE_XY, FIVE_XY.replace("0.45 0.4", "0.25 0.4")])
    expected = [[180.0, 120.0], [200.0, 135.0], [220.0, 150.0], [200.0, 180.0], [160.0, 165.0]]

    add_test_media(project)                      # no template for hand: one of 5 points named 1..5
    report = import_annotations(project, tmp_path / "set", "yolo")
    assert report.marks == 2 and not report.problems
    assert st.template_for_label(project, lab.find_label(project, "hand").id).points == ("1", "2", "3", "4", "5")
    marks = ann.list_annotations(project, media_id=PHOTO_ID, kinds=["skeleton"])
    got = sorted(m.geometry for m in marks)[1]
    assert [c for q in got for c in q] == pytest.approx([c for q in expected for c in q], abs=1e-9)

    own = fresh(tmp_path, "own")                 # hand has its own 5 points: the set's skeletons are of it
    hand = with_template(own, HAND)
    report = import_annotations(own, tmp_path / "set", "yolo")
    assert report.marks == 2 and not report.problems
    assert {m.text for m in ann.list_annotations(own, kinds=["skeleton"])} == {f"label:{hand}"}
    assert st.template_for_label(own, hand).points == tuple(HAND)

    four = fresh(tmp_path, "four")               # hand has 4 points: every line refused, by file and line
    with_template(four, HAND[:4])
    report = import_annotations(four, tmp_path / "set", "yolo")
    assert report.marks == 0 and ann.list_annotations(four, kinds=["skeleton"]) == []
    assert [w for w, _why in report.problems] == ["site.txt line 1", "site.txt line 2"]
    assert "label hand's skeleton template has 4 points (wrist, thumb, index, middle), the file's pose lines 5" \
        in report.problems[0][1]


def test_a_kpt_shape_of_seventeen_unnamed_is_the_coco_body_and_a_bad_one_is_said(project, tmp_path):
    add_test_media(project)
    pose = "0 0.5 0.5 0.2 0.2" + " 0.5 0.5 2" * 16 + " 0 0 0"
    write_set(tmp_path / "body", "kpt_shape: [17, 3]\n", [pose])
    report = import_annotations(project, tmp_path / "body", "yolo")
    (mark,) = ann.list_annotations(project, kinds=["skeleton"])
    assert report.marks == 1 and mark.text == "coco-person-17" and mark.geometry[16] is None
    write_set(tmp_path / "bad", "kpt_shape: [5, 4]\n", [pose])
    report = import_annotations(project, tmp_path / "bad", "yolo")
    assert any(w == "data.yaml" and "kpt_shape [5, 4] is not [points, 2 or 3]" in why for w, why in report.problems)
