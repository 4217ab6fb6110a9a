"""CVAT for images 1.1 (issue 32 item 1): the marks on photos (boxes, polygons, polylines, points, skeletons, angles)
written as CVAT writes them, read back into a fresh project as the same marks (once), and loaded by datumaro's CVAT
importer (the ``readers`` test extra) with the photo in an ``images/`` folder beside the file, as CVAT's export with
images lays it out. Coordinates are the ones drawn below."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import angles, skeleton_templates
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports.importing import import_annotations
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import PHOTO_ID, add_test_media, only_the_photo_file_missing
from tests.support.format_readers import datumaro_dataset

HAND = ["wrist", "thumb", "index", "middle", "little"]
HAND_LIMBS = [(0, 1), (0, 2), (0, 3), (0, 4)]
HAND_POINTS = [[200.0, 250.0], None, [210.0, 200.0], [220.0, 198.5], [230.25, 205.0]]   # the thumb absent
SPILL = [[100.0, 120.0], [300.0, 100.0], [340.0, 260.0], [150.0, 280.0]]
EDGE = [[10.0, 290.0], [390.0, 280.0]]
DOTS = [[50.0, 60.0], [70.0, 80.0]]
KNEE = [[60.0, 100.0], [100.0, 100.0], [100.0, 60.0]]       # a right angle at (100, 100)


@pytest.fixture
def marked_photo(project):
    """The test photo (site.jpg, 400 x 300) with a box, a polygon, an unlabelled polyline, points, a skeleton of
    label "hand" (its own 5-point template, the thumb absent) and an angle."""
    add_test_media(project)
    worker, spill, hand = (lab.create_label(project, n) for n in ("worker", "spill", "hand"))
    skeleton_templates.SetSkeletonTemplate(project, hand, HAND, HAND_LIMBS).do()
    ann.add_box(project, PHOTO_ID, (20, 30, 80, 60), worker, attributes={"vest": "no"})
    ann.add_shape(project, PHOTO_ID, "polygon", SPILL, label_id=spill)
    ann.add_shape(project, PHOTO_ID, "polyline", EDGE)
    ann.add_shape(project, PHOTO_ID, "points", DOTS, label_id=worker)
    ann.add_skeleton(project, PHOTO_ID, HAND_POINTS, label_id=hand)
    angles.add_angle(project, PHOTO_ID, *KNEE, label_id=worker)
    return project


def test_photos_are_written_as_cvat_for_images_and_read_back_as_the_same_marks(marked_photo, tmp_path):
    report = export_annotations(marked_photo, "cvat", tmp_path / "cvat")
    (path,) = report.files
    assert path.name == "photos.xml" and only_the_photo_file_missing(report.skipped) and report.annotations == 6
    root = ET.parse(path).getroot()
    assert root.findtext("meta/task/mode") == "annotation"
    (image,) = root.findall("image")
    assert (image.get("id"), image.get("name"), image.get("width"), image.get("height")) == ("0", "site.jpg", "400",
                                                                                          "300")
    box = image.find("box")
    assert [box.get(k) for k in ("label", "xtl", "ytl", "xbr", "ybr")] == ["worker", "20.00", "30.00", "100.00",
                                                                            "90.00"]
    assert box.find("attribute[@name='vest']").text == "no"
    assert image.find("polygon").get("points") == "100.00,120.00;300.00,100.00;340.00,260.00;150.00,280.00"
    lines = {x.get("label"): x for x in image.findall("polyline")}
    assert {k: x.get("points") for k, x in lines.items()} == {"unlabelled": "10.00,290.00;390.00,280.00",
                                                              "worker": "60.0000,100.0000;100.0000,100.0000;100.0000,60.0000"}
    assert lines["worker"].find("attribute[@name='degrees']").text == "90.0000"
    skeleton = image.find("skeleton")
    assert skeleton.get("label") == "hand"
    assert [(p.get("label"), p.get("outside"), p.get("points")) for p in skeleton.findall("points")] == [
        ("wrist", "0", "200.00,250.00"), ("thumb", "1", "0.00,0.00"), ("index", "0", "210.00,200.00"),
        ("middle", "0", "220.00,198.50"), ("little", "0", "230.25,205.00")]
    declared = {el.findtext("name"): el for el in root.findall("meta/task/labels/label")}
    assert declared["hand"].findtext("type") == "skeleton" and "unlabelled" in declared

    target = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(target)
    back = import_annotations(target, path, "cvat")
    assert not back.problems and back.marks == 6

    def marks(p):
        return sorted((r.kind, r.label_name or "", r.geometry, r.attributes or {})
                      for r in ann.list_annotations(p, media_id=PHOTO_ID))
    assert marks(target) == marks(marked_photo)
    hand = skeleton_templates.describe(target, lab.find_label(target, "hand").id)
    assert hand["points"] == HAND and hand["limbs"] == [list(e) for e in HAND_LIMBS]
    assert import_annotations(target, path, "cvat").marks == 0          # the second time adds nothing


def test_datumaro_reads_the_photos_marks(marked_photo, tmp_path):
    original = marked_photo.folder / "photos" / "site.jpg"   # where the test media row says the photo is
    original.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (400, 300), (90, 120, 150)).save(original)
    report = export_annotations(marked_photo, "cvat", tmp_path / "cvat")
    assert not report.skipped
    # copied beside photos.xml byte for byte (CVAT's export with images): datumaro needs the file it names
    assert (tmp_path / "cvat" / "images" / "site.jpg").read_bytes() == original.read_bytes()
    dataset = datumaro_dataset().import_from(str(tmp_path / "cvat"), "cvat")
    names = [c.name for c in dataset.categories()[next(iter(dataset.categories()))]]
    (item,) = list(dataset)
    assert item.id == "site" and item.media.size == (300, 400)
    got = [(a.type.name, names[a.label], list(a.get_bbox()) if a.type.name == "bbox" else list(a.points))
           for a in item.annotations]
    # datumaro 1.13 has no skeletons: each point of ours is a one-point "points" of its sub-label, and it does not
    # read "outside" on an image's marks, so the absent thumb comes as the point (0, 0) CVAT writes for it
    assert sorted(got) == sorted([("bbox", "worker", [20.0, 30.0, 80.0, 60.0]),   # x, y, w, h as drawn
                   ("polygon", "spill", [c for v in SPILL for c in v]),
                   ("polyline", "unlabelled", [c for v in EDGE for c in v]),
                   ("points", "worker", [c for v in DOTS for c in v]),
                   ("points", "wrist", [200.0, 250.0]), ("points", "thumb", [0.0, 0.0]),
                   ("points", "index", [210.0, 200.0]), ("points", "middle", [220.0, 198.5]),
                   ("points", "little", [230.25, 205.0]),
                   ("polyline", "worker", [c for v in KNEE for c in v])])
    (box,) = [a for a in item.annotations if a.type.name == "bbox"]
    assert box.attributes["vest"] == "no"
    assert [g[1] for g in got if g[1] in HAND] == HAND              # the template's order


def test_a_photo_whose_file_is_missing_keeps_its_marks_and_is_listed_as_not_copied(marked_photo, tmp_path):
    report = export_annotations(marked_photo, "cvat", tmp_path / "cvat")
    assert (tmp_path / "cvat" / "photos.xml").is_file() and not (tmp_path / "cvat" / "images" / "site.jpg").exists()
    assert [what for what, _reason in report.skipped] == ["photo site.jpg"]
    assert "not copied to images/" in report.skipped[0][1]


def test_an_angle_whose_file_degrees_differ_from_the_angle_measured_again_is_reported(project, tmp_path):
    """Arms of about 10 px through points with many decimals: the file's points (4 decimals) give back the written
    degrees within 0.01°, so our own file reports nothing; a file whose degrees were changed (or measured with another
    calibration) is reported in one line of the summary, with the angle measured again."""
    add_test_media(project)
    short = [[100.123456, 100.98765], [105.5555, 108.4444], [112.3333, 101.7777]]
    angles.add_angle(project, PHOTO_ID, *short)
    (path,) = export_annotations(project, "cvat", tmp_path / "cvat").files
    fresh = Project.create(tmp_path / "fresh.fieldstudio")
    add_test_media(fresh)
    report = import_annotations(fresh, path, "cvat")
    assert report.marks == 1 and not any("measured again" in line for line in report.lines())
    written = float(ET.parse(path).getroot().find(".//polyline/attribute[@name='degrees']").text)
    assert written == pytest.approx(angles.angle_degrees(*short), abs=5e-5)

    tree = ET.parse(path)
    tree.getroot().find(".//polyline/attribute[@name='degrees']").text = "80.0000"
    tree.write(tmp_path / "edited.xml")
    other = Project.create(tmp_path / "other.fieldstudio")
    add_test_media(other)
    lines = import_annotations(other, tmp_path / "edited.xml", "cvat").lines()
    (note,) = [line for line in lines if "measured again" in line]
    assert note == (f"edited.xml image 0 (site.jpg) polyline: the file's angle is 80.0000°, measured again "
                    f"{angles.angle_degrees(*short):.4f}° in the image plane (no floor calibration in use)")
