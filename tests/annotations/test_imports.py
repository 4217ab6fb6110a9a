"""Annotations in (issue 20 item 9): fieldstudio's own exports imported into an empty copy give the same marks.

Set-up (``tests.support.annotation_fixtures``, no media files needed): a 400x300 photo and a 640x480 video of 30
frames with a hand-written variable-rate frame table. Track 1 (person) has keyframes on frames 2, 6 and 12
that are not on one line, so each is needed; track 2 (vest) on frames 0, 20 and 29 with attributes. The
copy is a new project with the same media rows and no labels or marks. The demo tests run the same round
trips on the demo project (``fieldstudio.demo.project.build_demo``: real sample media) into a new project
with the same media files added and indexed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from fieldstudio.annotations import labels as lab
from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.annotations.imports import importing
from fieldstudio.cli.app import app
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import (N_FRAMES, PHOTO_ID, VIDEO_ID, add_test_media, hand_pts,
                                               only_the_photo_file_missing)


@pytest.fixture
def source(project):
    add_test_media(project)
    person = lab.create_label(project, "person")
    vest = lab.create_label(project, "vest")
    ann.add_box(project, PHOTO_ID, (40, 30, 100, 60), person, attributes={"helmet": "yes"})
    ann.add_box(project, VIDEO_ID, (0, 0, 64, 48), person, frame_index=2, track_id=1)
    ann.add_box(project, VIDEO_ID, (64, 48, 64, 48), person, frame_index=6, track_id=1)
    ann.add_box(project, VIDEO_ID, (70, 200, 80, 60), person, frame_index=12, track_id=1)
    ann.add_box(project, VIDEO_ID, (300, 100, 40, 90), vest, frame_index=0, track_id=2, attributes={"colour": "orange"})
    ann.add_box(project, VIDEO_ID, (350.5, 120.25, 44, 80), vest, frame_index=20, track_id=2,
                attributes={"colour": "orange"})
    ann.add_box(project, VIDEO_ID, (400, 90, 50, 100), vest, frame_index=29, track_id=2, attributes={"colour": "red"})
    return project


@pytest.fixture
def empty(tmp_path):
    p = Project.create(tmp_path / "copy.fieldstudio")
    add_test_media(p)
    yield p
    p.close()


def marks(p: Project, *, video_only: bool = False, attributes: bool = True) -> list[tuple]:
    out = []
    for r in ann.list_annotations(p, kinds=["box"]):
        if video_only and r.media_id != VIDEO_ID:
            continue
        out.append((r.media_id, r.label_name, r.frame_index, r.pts, tuple(round(v, 2) for v in r.geometry),
                    r.track_id, r.is_keyframe, (r.attributes or None) if attributes else None))
    return sorted(out, key=repr)


def every_frame(p: Project) -> dict[tuple[int, int], tuple]:
    out = {}
    for track in (1, 2):
        for f, tb in box_tracks.track_boxes(p, VIDEO_ID, track).items():
            out[(track, f)] = tuple(round(v, 2) for v in tb.box)
    return out


def test_coco_round_trip_gives_the_same_boxes_tracks_and_labels(source, empty, tmp_path):
    export_annotations(source, "coco", tmp_path / "boxes.json")
    report = importing.import_annotations(empty, tmp_path / "boxes.json", "coco")
    assert marks(empty) == marks(source)
    assert every_frame(empty) == every_frame(source)
    assert [r.name for r in lab.list_labels(empty)] == ["person", "vest"]
    assert report.labels_created == ["person", "vest"] and not report.unmatched and not report.problems
    assert report.matched["walk.mp4"]["tracks"] == 2 and report.matched["site.jpg"]["boxes"] == 1
    # interpolated boxes of the export (frames 3-5, 7-11, 1-19, 21-28) were not stored as boxes
    assert report.marks == 7


def test_mot_round_trip_recovers_the_keyframes(source, empty, tmp_path):
    export_annotations(source, "mot", tmp_path / "mot")
    # MOT lists every frame of a track: 11 + 30 boxes
    assert len((tmp_path / "mot" / "walk" / "gt" / "gt.txt").read_text().splitlines()) == 11 + 30
    report = importing.import_annotations(empty, tmp_path / "mot", "mot")
    assert marks(empty) == marks(source, video_only=True, attributes=False)
    assert every_frame(empty) == every_frame(source)
    assert report.matched == {"walk.mp4": {"boxes": 6, "tracks": 2, "sources": 1}}


def test_cvat_round_trip(source, empty, tmp_path):
    report_out = export_annotations(source, "cvat", tmp_path / "cvat")
    xml, photos = report_out.files                 # CVAT for video, and CVAT for images for the photo's box
    assert (xml.name, photos.name) == ("walk.xml", "photos.xml") and only_the_photo_file_missing(report_out.skipped)
    root = ET.parse(xml).getroot()
    boxes = root.findall("track/box")
    # every frame of each track, the interpolated ones with keyframe="0", and one outside box after track 1
    assert len(boxes) == 11 + 30 + 1
    assert [b.get("frame") for b in boxes if b.get("outside") == "1"] == ["13"]
    assert sum(b.get("keyframe") == "1" and b.get("outside") == "0" for b in boxes) == 6
    report = importing.import_annotations(empty, xml, "cvat")
    assert marks(empty) == marks(source, video_only=True)
    assert every_frame(empty) == every_frame(source)
    assert not report.problems and not report.unmatched
    importing.import_annotations(empty, photos, "cvat")
    assert marks(empty) == marks(source)


def test_one_undo_removes_the_import_and_its_labels(source, empty, tmp_path):
    export_annotations(source, "coco", tmp_path / "boxes.json")
    plan = importing.plan_import(empty, tmp_path / "boxes.json", "coco")
    assert ann.list_annotations(empty) == []  # planning writes nothing
    edit = plan.edit()
    edit.do()
    assert len(ann.list_annotations(empty)) == 7 and len(lab.list_labels(empty)) == 2
    edit.undo()
    assert ann.list_annotations(empty) == [] and lab.list_labels(empty) == []
    edit.do()
    assert marks(empty) == marks(source)


def test_cvat_outside_splits_a_track_and_unmatched_files_are_reported(empty, tmp_path):
    xml = tmp_path / "walk.xml"
    xml.write_text("""<?xml version="1.0"?><annotations><version>1.1</version>
<meta><task><source>walk.mp4</source></task></meta>
<track id="3" label="helmet">
 <box frame="1" keyframe="1" outside="0" xtl="10" ytl="10" xbr="30" ybr="30"/>
 <box frame="2" keyframe="0" outside="0" xtl="12" ytl="10" xbr="32" ybr="30"/>
 <box frame="3" keyframe="1" outside="0" xtl="14" ytl="10" xbr="34" ybr="30"><attribute name="strap">on</attribute></box>
 <box frame="4" keyframe="1" outside="1" xtl="14" ytl="10" xbr="34" ybr="30"/>
 <box frame="8" keyframe="1" outside="0" xtl="50" ytl="50" xbr="90" ybr="80"/>
 <box frame="9" keyframe="0" outside="0" xtl="50" ytl="50" xbr="90" ybr="80"/>
</track></annotations>""")
    report = importing.import_annotations(empty, xml, "cvat")
    got = [(r.track_id, r.frame_index, r.label_name, r.geometry, r.attributes)
           for r in ann.list_annotations(empty, kinds=["box"])]
    # track 3 keeps its id for the first run; the run after outside is a new track ending on its last box
    assert got == [(3, 1, "helmet", [10.0, 10.0, 30.0, 30.0], None),
                   (3, 3, "helmet", [14.0, 10.0, 34.0, 30.0], {"strap": "on"}),
                   (4, 8, "helmet", [50.0, 50.0, 90.0, 80.0], None),
                   (4, 9, "helmet", [50.0, 50.0, 90.0, 80.0], None)]
    assert report.labels_created == ["helmet"]
    (tmp_path / "other.xml").write_text('<annotations><meta><task><source>nosuch.mp4</source></task></meta>'
                                        '<track id="0" label="x"><box frame="0" keyframe="1" outside="0" '
                                        'xtl="1" ytl="1" xbr="5" ybr="5"/></track></annotations>')
    report = importing.import_annotations(empty, tmp_path / "other.xml", "cvat")
    assert report.marks == 0 and report.unmatched[0][0] == "other.xml"
    assert "no video named 'nosuch.mp4'" in report.unmatched[0][1]


def test_yolo_fractions_become_pixels_and_a_wrong_time_is_refused(source, empty, tmp_path):
    export_annotations(source, "yolo", tmp_path / "yolo")
    report = importing.import_annotations(empty, tmp_path / "yolo", "yolo")
    photo = ann.list_annotations(empty, media_id=PHOTO_ID, kinds=["box"])
    # the photo's box (40, 30)-(140, 90) on 400 x 300 written as fractions with 6 decimals
    assert [round(v, 3) for v in photo[0].geometry] == [40.0, 30.0, 140.0, 90.0] and photo[0].label_name == "person"
    # YOLO has no tracks: one box per exported frame (the tracks' 11 + 30 frames), untracked
    assert report.matched["walk.mp4"]["boxes"] == 41 and report.matched["walk.mp4"]["tracks"] == 0
    # a COCO frame whose time does not match the frame table is left out, with the reason
    doc = json.loads(json.dumps({"images": [{"id": 1, "file_name": "walk_f000004.jpg", "frame_index": 4,
                                             "pts_seconds": 1.0}],
                                 "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 1, 9, 9]}],
                                 "categories": [{"id": 1, "name": "person"}]}))
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    report = importing.import_annotations(empty, tmp_path / "bad.json", "coco")
    seconds = (hand_pts(4)) / 90000
    assert report.marks == 0 and f"{seconds:.6f} s in the frame table" in report.problems[0][1]


def test_cli_annotations_import_list_and_export(source, empty, tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["annotations", "export", str(source.path), "--format", "cvat", "--out",
                              str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["export", str(source.path), "--format", "mot", "--out", str(tmp_path / "m")])
    assert res.exit_code == 0, res.output  # the top-level alias stays
    res = runner.invoke(app, ["annotations", "import", str(empty.path), str(tmp_path / "c"), "--format", "cvat"])
    assert res.exit_code == 0, res.output
    assert "walk.mp4: 6 box(es), 2 track(s)" in res.output
    res = runner.invoke(app, ["annotations", "list", str(empty.path), "--media", "walk.mp4", "--json"])
    rows = json.loads(res.output)
    assert len(rows) == 6
    first = min(rows, key=lambda r: (r["track_id"], r["frame_index"]))
    assert (first["kind"], first["label"], first["frame_index"], first["pts"], first["track_id"]) == (
        "box", "person", 2, hand_pts(2), 1)
    assert first["pts_seconds"] == pytest.approx(hand_pts(2) / 90000)
    assert first["geometry"] == [0.0, 0.0, 64.0, 48.0]
    res = runner.invoke(app, ["annotations", "import", str(empty.path), str(tmp_path / "c"), "--format", "voc"])
    assert res.exit_code == 2 and "choose one of coco, yolo, mot, cvat" in res.output
    assert N_FRAMES == 30


def test_yolo_class_names_from_data_yaml_and_media_forced(source, empty, tmp_path):
    export_annotations(source, "yolo", tmp_path / "yolo")
    (tmp_path / "yolo" / "classes.txt").unlink()  # data.yaml's names: {0: "person", 1: "vest"}
    for f in (tmp_path / "yolo" / "labels").glob("walk_*.txt"):
        f.unlink()
    report = importing.import_annotations(empty, tmp_path / "yolo", "yolo")
    assert [r.label_name for r in ann.list_annotations(empty, kinds=["box"])] == ["person"]
    assert report.labels_created == ["person"]
    with pytest.raises(importing.AnnotationImportError, match="no media"):
        importing.import_annotations(empty, tmp_path / "yolo", "yolo", media="nosuch.mp4")


# --- the demo project (real media, fieldstudio.demo): the tester's round trips of issue 20 item 9 ---

WORKER_ZONE = "worker_zone_hardhat_vest_from_gif.mp4"


@pytest.fixture
def demo_copy(tmp_path):
    """A new project with the demo's media files added and indexed (new media ids), and no marks or labels."""
    from fieldstudio.core.paths import sample_data_dir
    from fieldstudio.media.ingest import add_index_thumbnail

    p = Project.create(tmp_path / "demo_copy.fieldstudio")
    add_index_thumbnail(p, [sample_data_dir() / "media"])
    yield p
    p.close()


def _names(p: Project) -> dict[str, str]:
    from sqlalchemy import select

    from fieldstudio.store.models import Media

    with p.read() as s:
        return {m.id: m.file_name for m in s.scalars(select(Media))}


def demo_marks(p: Project, *, tracked_only: bool = False, attributes: bool = True) -> list[tuple]:
    """Every box by media file name (media ids differ between the projects), 2 decimals."""
    names = _names(p)
    return sorted(((names[r.media_id], r.label_name, r.frame_index, tuple(round(v, 2) for v in r.geometry),
                    r.track_id, r.is_keyframe, json.dumps(r.attributes or None, sort_keys=True) if attributes else "")
                   for r in ann.list_annotations(p, kinds=["box"]) if r.track_id is not None or not tracked_only),
                  key=repr)


def demo_keyframes(p: Project) -> dict[tuple[str, int], list[int]]:
    names = _names(p)
    out: dict[tuple[str, int], list[int]] = {}
    for r in ann.list_annotations(p, kinds=["box"]):
        if r.track_id is not None:
            out.setdefault((names[r.media_id], r.track_id), []).append(r.frame_index)
    return {k: sorted(v) for k, v in out.items()}


def demo_every_frame(p: Project) -> dict[tuple[str, int, int], tuple]:
    names = _names(p)
    out = {}
    for media_id, track in {(r.media_id, r.track_id) for r in ann.list_annotations(p, kinds=["box"])
                            if r.track_id is not None}:
        for f, tb in box_tracks.track_boxes(p, media_id, track).items():
            out[(names[media_id], track, f)] = tb.box
    return out


def test_demo_coco_folder_export_imports_through_the_cli(demo_project, demo_copy, tmp_path):
    runner = CliRunner()
    out = tmp_path / "rt" / "ex.coco"  # no .json suffix: the export writes the folder ex.coco/annotations.json
    res = runner.invoke(app, ["annotations", "export", str(demo_project.path), "--format", "coco", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "annotations.json").is_file()
    res = runner.invoke(app, ["annotations", "import", str(demo_copy.path), str(out), "--format", "coco"])
    assert res.exit_code == 0, res.output
    assert demo_marks(demo_copy) == demo_marks(demo_project)
    assert demo_every_frame(demo_copy) == demo_every_frame(demo_project)
    # COCO carries boxes and polygons (the demo's floor zone) with their labels
    shape_labels = {m[1] for m in demo_marks(demo_project)} | {
        r.label_name for r in ann.list_annotations(demo_project, kinds=["polygon"])}
    assert {r.name for r in lab.list_labels(demo_copy)} == shape_labels
    assert [r.geometry for r in ann.list_annotations(demo_copy, kinds=["polygon"])] == [
        r.geometry for r in ann.list_annotations(demo_project, kinds=["polygon"])]


def test_coco_folder_of_several_json_files(source, empty, tmp_path):
    export_annotations(source, "coco", tmp_path / "one" / "boxes.json")
    folder = tmp_path / "many"
    folder.mkdir()
    doc = json.loads((tmp_path / "one" / "boxes.json").read_text())
    photo = [im["id"] for im in doc["images"] if im["file_name"] == "site.jpg"]

    def part(keep: bool) -> dict:
        return {**doc, "annotations": [a for a in doc["annotations"] if (a["image_id"] in photo) == keep]}

    (folder / "a_photo.json").write_text(json.dumps(part(True)))
    (folder / "b_video.json").write_text(json.dumps(part(False)))
    (folder / "notes.json").write_text(json.dumps({"note": "not COCO"}))
    report = importing.import_annotations(empty, folder, "coco")
    assert marks(empty) == marks(source)
    assert len(report.files) == 2 and report.problems[0][0].endswith("notes.json")
    (tmp_path / "none").mkdir()
    with pytest.raises(importing.AnnotationImportError, match="no COCO JSON in the folder"):
        importing.import_annotations(empty, tmp_path / "none", "coco")


def test_demo_mot_round_trip_gives_the_same_keyframes(demo_project, demo_copy, tmp_path):
    export_annotations(demo_project, "mot", tmp_path / "mot")
    importing.import_annotations(demo_copy, tmp_path / "mot", "mot")
    got = demo_keyframes(demo_copy)
    # the keyframes of sample_data's worker_zone person and helmet tracks (no extra ones at 34, 36, 40, 42)
    assert got[(WORKER_ZONE, 1)] == [0, 10, 20, 30, 45, 55, 70]
    assert got[(WORKER_ZONE, 2)] == [0, 10, 20, 30, 45, 70]
    assert got == demo_keyframes(demo_project)
    # MOT carries no attributes and no untracked boxes; the rest is the same, the boxes to its 0.01 px
    assert demo_marks(demo_copy, attributes=False) == demo_marks(demo_project, tracked_only=True, attributes=False)
    before, after = demo_every_frame(demo_project), demo_every_frame(demo_copy)
    assert before.keys() == after.keys()
    assert max(abs(a - b) for k in before for a, b in zip(before[k], after[k])) <= 0.01 + 1e-9


def test_demo_cvat_round_trip_gives_the_same_video_boxes(demo_project, demo_copy, tmp_path):
    export_annotations(demo_project, "cvat", tmp_path / "cvat")
    importing.import_annotations(demo_copy, tmp_path / "cvat", "cvat")
    names = _names(demo_project)
    videos = {n for n in names.values() if n.endswith(".mp4")}
    on_videos = [m for m in demo_marks(demo_project) if m[0] in videos]
    assert any(m[4] is None for m in on_videos)       # the demo's vest box on frame 45 is in no track
    # a box outside any track comes back as that plain box; the photos' marks come from photos.xml (CVAT for images)
    assert [m for m in demo_marks(demo_copy) if m[0] in videos] == on_videos
    assert demo_marks(demo_copy) == demo_marks(demo_project)
    assert demo_keyframes(demo_copy) == demo_keyframes(demo_project)


@pytest.mark.parametrize("fmt, name", [("coco", "boxes.json"), ("mot", "mot"), ("cvat", "cvat")])
def test_importing_the_same_file_again_adds_nothing_and_says_so(source, empty, tmp_path, fmt, name):
    """A second import (or one after a kill that landed just after the first one's commit) stores no box twice;
    the command line says so and exits 0. After an undo, the import stores the boxes again."""
    export_annotations(source, fmt, tmp_path / name)
    first = importing.import_annotations(empty, tmp_path / name, fmt)
    assert first.marks == (6 if fmt == "mot" else 7) and first.already_present == 0    # MOT: the video only
    after_first = marks(empty)
    result = CliRunner().invoke(app, ["annotations", "import", str(empty.path), str(tmp_path / name), "--format", fmt])
    assert result.exit_code == 0, result.output
    assert "0 box(es)" in result.output and f"already in the project: {first.marks} box(es)" in result.output
    assert marks(empty) == after_first
    plan = importing.plan_import(empty, tmp_path / name, fmt)
    assert plan.edit() is None and plan.report.labels_created == [] and plan.report.matched == {}
    edit = importing.plan_import(source, tmp_path / name, fmt).edit()          # the source holds them all too
    assert edit is None


def test_an_undone_import_can_be_made_again(source, empty, tmp_path):
    export_annotations(source, "coco", tmp_path / "boxes.json")
    edit = importing.plan_import(empty, tmp_path / "boxes.json", "coco").edit()
    edit.do()
    edit.undo()
    again = importing.import_annotations(empty, tmp_path / "boxes.json", "coco")
    assert again.marks == 7 and again.already_present == 0
    without_tracks = lambda p: sorted((m[:5] for m in marks(p)), key=repr)   # noqa: E731 - new track ids
    assert without_tracks(empty) == without_tracks(source)


def test_a_box_in_the_file_twice_is_added_once_per_copy_missing(source, empty, tmp_path):
    """The project holds the box once and the file twice: the second copy is added, not the first."""
    export_annotations(source, "coco", tmp_path / "boxes.json")
    document = json.loads((tmp_path / "boxes.json").read_text())
    photo_box = next(a for a in document["annotations"] if a["image_id"] == document["images"][0]["id"])
    document["annotations"].append({**photo_box, "id": 10_000})
    (tmp_path / "twice.json").write_text(json.dumps(document))
    importing.import_annotations(empty, tmp_path / "boxes.json", "coco")
    report = importing.import_annotations(empty, tmp_path / "twice.json", "coco")
    assert (report.marks, report.already_present) == (1, 7)


def test_negative_or_zero_sizes_are_refused_per_row_with_the_reason(source, empty, tmp_path):
    """One bad row of each format is skipped with its reason; the good rows are imported as they are."""
    (tmp_path / "yolo").mkdir()
    (tmp_path / "yolo" / "classes.txt").write_text("person\n")
    (tmp_path / "yolo" / "site.txt").write_text("0 0.5 0.5 0.2 0.2\n0 0.5 0.5 -0.2 0.2\n")
    yolo = importing.import_annotations(empty, tmp_path / "yolo", "yolo")
    assert yolo.marks == 1
    assert yolo.problems == [("site.txt line 2", "width -0.2 is negative: a box needs a size above 0; skipped")]
    mot = tmp_path / "mot" / "walk" / "gt"
    mot.mkdir(parents=True)
    (mot / "gt.txt").write_text("1,1,10,10,20,30,1\n2,1,10,10,-20,30,1\n3,1,10,10,20,0,1\n")
    report = importing.import_annotations(empty, tmp_path / "mot", "mot")
    assert [why for _, why in report.problems] == [
        "width -20 is negative: a box needs a size above 0; skipped",
        "height 0 is zero: a box needs a size above 0; skipped"]
    coco = {"images": [{"id": 1, "file_name": "site.jpg", "width": 400, "height": 300}],
            "categories": [{"id": 1, "name": "person"}],
            "annotations": [{"id": 5, "image_id": 1, "category_id": 1, "bbox": [10, 10, 0, 5]}]}
    (tmp_path / "c.json").write_text(json.dumps(coco))
    report = importing.import_annotations(empty, tmp_path / "c.json", "coco")
    assert report.marks == 0 and report.problems == [
        ("c.json annotation 5", "width 0 is zero: a box needs a size above 0; skipped")]
    (tmp_path / "cvat.xml").write_text(
        '<annotations><meta><task><name>walk</name></task></meta><track id="0" label="person">'
        '<box frame="0" keyframe="1" outside="0" xtl="50" ytl="10" xbr="40" ybr="30"/>'
        '<box frame="1" keyframe="1" outside="0" xtl="10" ytl="10" xbr="40" ybr="30"/></track></annotations>')
    report = importing.import_annotations(empty, tmp_path / "cvat.xml", "cvat")
    assert report.marks == 1 and report.problems == [
        ("cvat.xml track 0 frame 0", "width (xbr - xtl) -10 is negative: a box needs a size above 0; skipped")]


@pytest.mark.parametrize("fmt, name", [("coco", "boxes.json"), ("mot", "mot")])
def test_the_check_for_present_boxes_in_small_groups_of_media_finds_the_same(source, empty, tmp_path, monkeypatch,
                                                                             fmt, name):
    """The re-import check reads a group of media at a time (bounded memory at 10^6 boxes): with one key per
    group, every media on its own, a second import still holds every box and a box twice in the file is added once."""
    monkeypatch.setattr(importing, "PRESENT_CHECK_KEYS", 1)
    export_annotations(source, fmt, tmp_path / name)
    first = importing.import_annotations(empty, tmp_path / name, fmt)
    after_first = marks(empty)
    again = importing.import_annotations(empty, tmp_path / name, fmt)
    assert (again.marks, again.already_present) == (0, first.marks) and marks(empty) == after_first
    if fmt == "coco":
        document = json.loads((tmp_path / name).read_text())
        photo_box = next(a for a in document["annotations"] if a["image_id"] == document["images"][0]["id"])
        document["annotations"].append({**photo_box, "id": 10_000})
        (tmp_path / "twice.json").write_text(json.dumps(document))
        report = importing.import_annotations(empty, tmp_path / "twice.json", "coco")
        assert (report.marks, report.already_present) == (1, first.marks)
