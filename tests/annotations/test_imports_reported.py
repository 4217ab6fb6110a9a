"""Hostile shape files are reported, never silently changed (issue 32 item 1, the fresh-eyes check): a YOLO line that
is neither a box nor a polygon, COCO keypoints that are not the category's triples, an RLE mask, vertices far
outside the image, a shape wholly outside it, and a CVAT polygon with NaN named as a polygon, not a box."""

from __future__ import annotations

import json

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.core import shapes
from tests.support.annotation_fixtures import add_test_media


@pytest.fixture
def media(project):
    add_test_media(project)
    return project


def test_a_yolo_line_of_an_odd_number_of_values_is_reported_not_silently_a_box(media, tmp_path):
    folder = tmp_path / "yolo"
    (folder / "labels").mkdir(parents=True)
    (folder / "classes.txt").write_text("spill\n")
    (folder / "labels" / "site.txt").write_text("0 0.1 0.1 0.2 0.1 0.3\n0 0.1 0.1 0.5 0.5 0.3 0.8 0.9\n"
                                                "0 0.5 0.5 0.5 0.5\n")
    report = import_annotations(media, folder, "yolo")
    problems = dict(report.problems)
    # 5 values: a box with a confidence, kept from cx cy w h = 0.1 0.1 0.2 0.1 on the 400 x 300 photo
    assert problems["site.txt line 1"] == ("5 values after the class: not the 3 or more (x, y) pairs of a polygon; "
                                           "kept as a box from the first four (cx cy w h), the fifth (0.3) ignored")
    assert problems["site.txt line 2"].startswith("7 values after the class, an odd number")
    assert problems["site.txt line 2"].endswith("skipped")
    boxes = sorted(r.geometry for r in ann.list_annotations(media))
    assert [c for b in boxes for c in b] == pytest.approx([0.0, 15.0, 80.0, 45.0, 100.0, 75.0, 300.0, 225.0])
    assert "not imported as written (2):" in report.lines()


def _coco(tmp_path, annotations, categories):
    doc = {"images": [{"id": 1, "file_name": "site.jpg", "width": 400, "height": 300}],
           "categories": categories, "annotations": annotations}
    path = tmp_path / "foreign.json"
    path.write_text(json.dumps(doc))
    return path


def test_coco_keypoints_of_the_wrong_length_rle_and_far_vertices_are_reported(media, tmp_path):
    tri = [{"id": 1, "name": "tool", "keypoints": ["a", "b", "c"]}, {"id": 2, "name": "spill"}]
    anns = [
        {"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 20, 20], "keypoints": [10, 10, 2, 20, 20, 2]},
        {"id": 2, "image_id": 1, "category_id": 2, "bbox": [10, 10, 20, 20], "keypoints": [10, 10, 2, 20]},
        {"id": 3, "image_id": 1, "category_id": 2, "bbox": [5, 6, 10, 20], "segmentation": {"counts": "abc",
                                                                                          "size": [300, 400]}},
        {"id": 4, "image_id": 1, "category_id": 2, "bbox": [0, 0, 1, 1],
         "segmentation": [[1e308, 10, 20, 270, 30, 5]]},
        {"id": 5, "image_id": 1, "category_id": 2, "bbox": [0, 0, 1, 1],
         "segmentation": [[500, 10, 600, 20, 550, 90]]},
        {"id": 6, "image_id": 1, "category_id": 1, "bbox": [10, 10, 20, 20],
         "keypoints": [10, 10, 2, 20, 20, 2, 30, 10, 2]},
    ]
    report = import_annotations(media, _coco(tmp_path, anns, tri), "coco")
    problems = dict(report.problems)
    # the category names its own points: they become label tool's skeleton template, whose 3 points a skeleton needs
    assert problems["foreign.json annotation 1"] == "keypoints are not 3 (x, y, v) triples with a point placed; skipped"
    assert problems["foreign.json annotation 2"] == "keypoints hold 4 values, not (x, y, v) triples; skipped"
    assert problems["foreign.json annotation 3"] == ("segmentation is an RLE mask: kept as a box from its bbox, "
                                                     "not as a polygon")
    assert problems["foreign.json annotation 4"].startswith("1 vertex(es) far outside the 400 x 300 image "
                                                            "(e.g. (1e+308, 10)): clipped to its edge")
    assert problems["foreign.json annotation 5"] == "the polygon lies wholly outside the 400 x 300 image; skipped"
    assert "foreign.json annotation 6" not in problems
    kinds = sorted((r.kind, r.geometry) for r in ann.list_annotations(media))
    assert kinds == [("box", [5.0, 6.0, 15.0, 26.0]), ("polygon", [[400.0, 10.0], [20.0, 270.0], [30.0, 5.0]]),
                     ("skeleton", [[10.0, 10.0], [20.0, 20.0], [30.0, 10.0]])]


def test_a_vertex_just_past_the_edge_is_clipped_without_a_note(media, tmp_path):
    anns = [{"id": 1, "image_id": 1, "category_id": 2, "bbox": [0, 0, 1, 1],
             "segmentation": [[-3, 10, 120, 20, 60, 90]]}]          # 3 px past: under 5 % of 400 px
    report = import_annotations(media, _coco(tmp_path, anns, [{"id": 2, "name": "spill"}]), "coco")
    assert not report.problems
    (r,) = ann.list_annotations(media)
    assert r.geometry == [[0.0, 10.0], [120.0, 20.0], [60.0, 90.0]]


def test_a_cvat_polygon_with_nan_is_named_as_a_polygon(media, tmp_path):
    path = tmp_path / "walk.xml"
    path.write_text('<annotations><version>1.1</version><meta><task><labels><label><name>spill</name></label>'
                    '</labels></task><source>walk.mp4</source></meta>'
                    '<track id="0" label="spill"><polygon frame="2" keyframe="1" outside="0" occluded="0" '
                    'points="nan,10;20,30;40,5" z_order="0"/><polygon frame="3" keyframe="1" outside="1" '
                    'occluded="0" points="nan,10;20,30;40,5" z_order="0"/></track></annotations>')
    report = import_annotations(media, path, "cvat")
    (why,) = [w for _, w in report.problems]
    assert why.startswith("a polygon's vertices must be finite numbers, got [nan, 10.0]")
    assert "x1, y1" not in why


def test_a_shape_wholly_beyond_one_edge_is_refused_by_name():
    with pytest.raises(shapes.ShapeError, match="wholly outside the 640 x 480 image"):
        shapes.as_vertices("polygon", [[700, 10], [800, 20], [750, 90]], (640, 480))
    # crossing the image while no vertex is inside it is still a shape in it (clipped)
    assert shapes.as_vertices("polygon", [[-10, -10], [700, -10], [300, 500]], (640, 480)) == \
        [[0.0, 0.0], [640.0, 0.0], [300.0, 480.0]]
