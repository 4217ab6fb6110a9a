"""Polygons, polylines and points in COCO (issue 32 item 1): written as ``segmentation`` / ``keypoints``, loaded by
the format's own reader (pycocotools' COCO; its ``annToMask`` rasterises the polygon, whose pixel count is checked
against the shoelace area), and imported back onto the same media and frames, once (a second import adds nothing).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from pycocotools.coco import COCO

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.core import shapes
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID, add_test_media, only_the_photo_file_missing

SPILL = [[100.0, 120.0], [300.0, 100.0], [340.0, 260.0], [150.0, 280.0]]
EDGE = [[10.0, 400.0], [300.0, 380.0], [630.0, 390.0]]
DOTS = [[50.0, 60.0], [70.0, 80.0]]


@pytest.fixture
def shaped_project(project):
    """The test media with a polygon and a polyline on video frame 5, points on the photo, and one box."""
    add_test_media(project)
    spill = lab.create_label(project, "spill")
    ann.add_shape(project, VIDEO_ID, "polygon", SPILL, frame_index=5, label_id=spill, attributes={"wet": "yes"})
    ann.add_shape(project, VIDEO_ID, "polyline", EDGE, frame_index=5)
    ann.add_shape(project, PHOTO_ID, "points", DOTS, label_id=spill)
    ann.add_box(project, VIDEO_ID, (10, 10, 50, 40), spill, frame_index=5)
    return project


def test_coco_export_is_read_by_pycocotools_with_the_polygon_area(shaped_project, tmp_path):
    out = tmp_path / "coco.json"
    report = export_annotations(shaped_project, "coco", out)
    assert report.annotations == 4
    coco = COCO(str(out))
    doc = json.loads(out.read_text())
    (poly,) = [a for a in doc["annotations"] if "segmentation" in a]
    assert poly["segmentation"] == [[c for v in SPILL for c in v]]
    assert poly["area"] == pytest.approx(shapes.polygon_area(SPILL))
    assert poly["bbox"] == [100.0, 100.0, 240.0, 180.0]
    mask = coco.annToMask(coco.loadAnns([poly["id"]])[0])
    assert mask.shape == (480, 640)
    # the rasterised polygon covers its area to within its outline (a pixel along a ~700 px perimeter)
    assert abs(int(mask.sum()) - poly["area"]) < shapes.path_length(SPILL, closed=True)
    (dots,) = [a for a in doc["annotations"] if "keypoints" in a]
    assert dots["keypoints"] == [50.0, 60.0, 2, 70.0, 80.0, 2] and dots["num_keypoints"] == 2
    (line,) = [a for a in doc["annotations"] if "fieldstudio_polyline" in a]
    assert coco.loadImgs(line["image_id"])[0]["frame_index"] == 5


def test_coco_shapes_import_back_onto_their_frames_once(shaped_project, tmp_path):
    out = tmp_path / "coco.json"
    export_annotations(shaped_project, "coco", out)
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    report = import_annotations(target, out, "coco")
    assert report.marks == 4 and not report.problems
    (poly,) = ann.list_annotations(target, kinds=["polygon"])
    assert poly.geometry == SPILL and poly.frame_index == 5 and poly.label_name == "spill"
    assert poly.attributes == {"wet": "yes"}
    (line,) = ann.list_annotations(target, kinds=["polyline"])
    assert line.geometry == EDGE and line.label_id is None
    (dots,) = ann.list_annotations(target, kinds=["points"])
    assert dots.geometry == DOTS and dots.media_id == PHOTO_ID
    again = import_annotations(target, out, "coco")
    assert again.marks == 0 and again.already_present == 4


def test_a_foreign_coco_segmentation_becomes_a_polygon_and_a_bad_one_stays_a_box(project, tmp_path):
    add_test_media(project)
    doc = {"images": [{"id": 1, "file_name": "site.jpg", "width": 400, "height": 300}],
           "categories": [{"id": 3, "name": "zone"}],
           "annotations": [
               {"id": 1, "image_id": 1, "category_id": 3, "bbox": [10, 10, 90, 90],
                "segmentation": [[10, 10, 100, 10, 100, 100, 10, 100], [0, 0, 5, 0, 5, 5]]},
               {"id": 2, "image_id": 1, "category_id": 3, "bbox": [20, 20, 30, 30], "segmentation": [[1, 2]]},
               {"id": 4, "image_id": 1, "category_id": 3, "bbox": [60, 60, 10, 10],
                "segmentation": [[60, 60, 70, 60, 70]]},
               {"id": 3, "image_id": 1, "category_id": 3, "bbox": [0, 0, 1, 1],
                "keypoints": [5, 6, 2, 0, 0, 0, 7, 8, 1], "num_keypoints": 2}]}
    path = tmp_path / "foreign.json"
    path.write_text(json.dumps(doc))
    report = import_annotations(project, path, "coco")
    (poly,) = ann.list_annotations(project, kinds=["polygon"])
    assert poly.geometry == [[10.0, 10.0], [100.0, 10.0], [100.0, 100.0], [10.0, 100.0]]
    boxes = ann.list_annotations(project, kinds=["box"])
    assert sorted(b.geometry for b in boxes) == [[20.0, 20.0, 50.0, 50.0], [60.0, 60.0, 70.0, 70.0]]
    (dots,) = ann.list_annotations(project, kinds=["points"])
    assert dots.geometry == [[5.0, 6.0], [7.0, 8.0]]  # the unlabelled keypoint (v = 0) is not a point
    assert any("2 polygons; the first is kept" in why for _w, why in report.problems)
    problems = dict(report.problems)
    assert problems["foreign.json annotation 2"] == ("segmentation's first polygon is not 3 or more (x, y) number "
                                                     "pairs: kept as a box from its bbox, not as a polygon")
    assert problems["foreign.json annotation 4"].startswith("segmentation's first polygon has 5 values, an odd number")
    lines = report.lines()
    assert lines[0] == "coco: 4 mark(s) (2 box(es), 1 points mark(s), 1 polygon(s)) from 1 file(s) onto 1 media"
    assert "not imported as written (3):" in lines and not any("skipped" in line for line in lines)


def test_cvat_for_video_writes_shapes_as_one_frame_tracks_and_reads_them_back(shaped_project, tmp_path):
    import xml.etree.ElementTree as ET

    report = export_annotations(shaped_project, "cvat", tmp_path / "cvat")
    path, photos = report.files                   # the photo's points are in photos.xml, CVAT for images
    assert photos.name == "photos.xml" and only_the_photo_file_missing(report.skipped)
    root = ET.parse(path).getroot()
    polygons = root.findall("track/polygon")
    assert [(p.get("frame"), p.get("outside")) for p in polygons] == [("5", "0"), ("6", "1")]
    assert polygons[0].get("points") == "100.00,120.00;300.00,100.00;340.00,260.00;150.00,280.00"
    assert polygons[0].find("attribute").get("name") == "wet"
    assert root.find("track/polygon/..").get("label") == "spill"
    assert root.findall("track/polyline")[0].get("points") == "10.00,400.00;300.00,380.00;630.00,390.00"
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    back = import_annotations(target, path, "cvat")
    assert not back.problems
    (poly,) = ann.list_annotations(target, kinds=["polygon"])
    assert poly.geometry == SPILL and poly.frame_index == 5 and poly.attributes == {"wet": "yes"}
    (line,) = ann.list_annotations(target, kinds=["polyline"])
    assert line.geometry == EDGE and line.frame_index == 5
    assert len(ann.list_annotations(target, kinds=["box"])) == 1


def test_cvat_puts_unlabelled_marks_under_a_declared_label_and_reads_them_back_unlabelled(shaped_project, tmp_path):
    """CVAT refuses a label its task does not declare, so an unlabelled mark is never written ``label=""``: the
    polyline (no label) is in a track labelled "unlabelled", which ``<meta><labels>`` declares once."""
    import xml.etree.ElementTree as ET

    path, _photos = export_annotations(shaped_project, "cvat", tmp_path / "cvat").files
    root = ET.parse(path).getroot()
    declared = [el.findtext("name") for el in root.findall("meta/task/labels/label")]
    used = {t.get("label") for t in root.findall("track")}
    assert "" not in used and used <= set(declared)
    assert declared.count("unlabelled") == 1
    assert root.find("track/polyline/..").get("label") == "unlabelled"
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    import_annotations(target, path, "cvat")
    (line,) = ann.list_annotations(target, kinds=["polyline"])
    assert line.label_id is None
    assert "unlabelled" not in [x.name for x in lab.list_labels(target)]


def test_yolo_segmentation_lines_are_the_vertices_over_the_image_size_and_read_back(shaped_project, tmp_path):
    report = export_annotations(shaped_project, "yolo", tmp_path / "yolo")
    text = (tmp_path / "yolo" / "labels" / "walk_f000005.txt").read_text().splitlines()
    classes = (tmp_path / "yolo" / "classes.txt").read_text().splitlines()
    k = classes.index("spill")
    expected = f"{k} " + " ".join(f"{x / 640:.6f} {y / 480:.6f}" for x, y in SPILL)
    assert expected in text and len(text) == 2  # the polygon and the box; the polyline has no YOLO form
    assert any(what.startswith("polyline") for what, _why in report.skipped)
    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    import_annotations(target, tmp_path / "yolo", "yolo")
    (poly,) = ann.list_annotations(target, kinds=["polygon"])
    assert np.allclose(poly.geometry, SPILL, atol=640 * 5e-7) and poly.frame_index == 5


def test_csv_rows_give_each_shape_its_vertices_bounds_length_and_area(shaped_project, tmp_path):
    import pandas as pd

    export_annotations(shaped_project, "csv", tmp_path / "a.csv")
    df = pd.read_csv(tmp_path / "a.csv")
    poly = df[df.kind == "polygon"].iloc[0]
    assert poly.vertices == "100.00,120.00;300.00,100.00;340.00,260.00;150.00,280.00"
    assert (poly.x, poly.y, poly.width, poly.height) == (100, 100, 240, 180)
    assert poly.area_px == pytest.approx(shapes.polygon_area(SPILL), abs=1e-5)
    assert poly.pixels == pytest.approx(shapes.path_length(SPILL, closed=True), abs=1e-5)
    assert poly["attr:wet"] == "yes" and poly.start_frame == 5 and poly.label == "spill"
    line = df[df.kind == "polyline"].iloc[0]
    assert line.pixels == pytest.approx(float(np.hypot(290, 20) + np.hypot(330, 10)), abs=1e-5)
    assert pd.isna(line.area_px)
    assert len(df[df.kind == "points"]) == 1
