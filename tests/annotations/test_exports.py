"""Annotation exports re-read and checked against hand-computed counts and coordinates.

Set-up (see ``tests.support.annotation_fixtures``): a 400x300 photo with one person box (40, 30)-(140, 90);
a 640x480 video with a person track keyed on frame 2 (0, 0)-(64, 48) and frame 6 (64, 48)-(128, 96),
so frames 3, 4, 5 are interpolated in steps of (16, 12); an untracked vest box (100, 100)-(150, 150)
on frame 10; a segment on frames 3-11, an event on frame 4 and a 200 px ruler on the photo under a
scale of 80 px = 1 m.
"""

from __future__ import annotations

import csv
import json
import shutil

import cv2
import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.exports.box_images import ExportError
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.cli.export import register
from fieldstudio.media import library, video_index
from fieldstudio.media.frames import get_frame
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID, add_test_media
from tests.conftest import SAMPLE


@pytest.fixture
def marked_project(project):
    """``project`` with the test media and the marks of the set-up above (labels, boxes, a track, a segment,
    an event, a ruler, a scale calibration)."""
    add_test_media(project)
    person = lab.create_label(project, "person")
    vest = lab.create_label(project, "vest")
    ann.add_box(project, PHOTO_ID, (40, 30, 100, 60), person)
    ann.add_box(project, VIDEO_ID, (0, 0, 64, 48), person, frame_index=2, track_id=1)
    ann.add_box(project, VIDEO_ID, (64, 48, 64, 48), person, frame_index=6, track_id=1)
    ann.add_box(project, VIDEO_ID, (100, 100, 50, 50), vest, frame_index=10, attributes={"colour": "orange"})
    gone = ann.add_box(project, PHOTO_ID, (1, 1, 5, 5), vest)
    ann.delete(project, gone)                                   # deleted boxes are not exported
    ann.add_segment(project, VIDEO_ID, person, 3, 11)
    ann.add_event(project, VIDEO_ID, 4, person, text="enters")
    ann.add_ruler(project, PHOTO_ID, (100, 100), (220, 260))
    cal.save_calibration(project, "scale", [(0, 0), (0, 80)], media_id=PHOTO_ID, length_m=1.0)
    return project


def test_coco(marked_project, tmp_path):
    report = export_annotations(marked_project, "coco", tmp_path / "out" / "boxes.json")
    doc = json.loads((tmp_path / "out" / "boxes.json").read_text())
    assert [c["name"] for c in doc["categories"]] == ["person", "vest"]
    assert [c["id"] for c in doc["categories"]] == [1, 2]
    names = [im["file_name"] for im in doc["images"]]
    assert names == ["site.jpg"] + [f"walk_f{f:06d}.jpg" for f in (2, 3, 4, 5, 6, 10)]
    assert len(doc["annotations"]) == 7 == report.annotations and report.images == 7
    by_name = {im["file_name"]: im for im in doc["images"]}
    f4 = by_name["walk_f000004.jpg"]
    assert (f4["width"], f4["height"], f4["frame_index"]) == (640, 480, 4)
    assert f4["pts_seconds"] == pytest.approx(16800 / 90000)     # 1800 + 3000 + 3000 + 6000 + 3000
    boxes = {(a["image_id"], a["category_id"]): a for a in doc["annotations"]}
    a4 = boxes[(f4["id"], 1)]
    assert a4["bbox"] == pytest.approx([32, 24, 64, 48]) and a4["area"] == pytest.approx(64 * 48)
    assert a4["attributes"] == {"track_id": 1, "keyframe": False}
    photo = boxes[(by_name["site.jpg"]["id"], 1)]
    assert photo["bbox"] == [40, 30, 100, 60] and photo["iscrowd"] == 0
    vest = boxes[(by_name["walk_f000010.jpg"]["id"], 2)]
    assert vest["bbox"] == [100, 100, 50, 50] and vest["attributes"] == {"colour": "orange"}
    # keyframes only: the three interpolated frames drop out
    export_annotations(marked_project, "coco", tmp_path / "k", keyframes_only=True)
    doc = json.loads((tmp_path / "k" / "annotations.json").read_text())
    assert len(doc["images"]) == 4 and len(doc["annotations"]) == 4


def test_yolo(marked_project, tmp_path):
    report = export_annotations(marked_project, "yolo", tmp_path / "y")
    out = tmp_path / "y"
    assert (out / "classes.txt").read_text() == "person\nvest\n"
    assert sorted(p.name for p in (out / "labels").iterdir()) == sorted(
        ["site.txt"] + [f"walk_f{f:06d}.txt" for f in (2, 3, 4, 5, 6, 10)])
    # photo (40, 30)-(140, 90) in 400x300: cx 90/400, cy 60/300, w 100/400, h 60/300
    assert (out / "labels" / "site.txt").read_text() == "0 0.225000 0.200000 0.250000 0.200000\n"
    # frame 4 (32, 24)-(96, 72) in 640x480: every value 0.1
    assert (out / "labels" / "walk_f000004.txt").read_text() == "0 0.100000 0.100000 0.100000 0.100000\n"
    cls, cx, cy, w, h = (out / "labels" / "walk_f000010.txt").read_text().split()
    assert cls == "1"
    assert [float(v) for v in (cx, cy, w, h)] == pytest.approx([125 / 640, 125 / 480, 50 / 640, 50 / 480], abs=1e-6)
    assert report.annotations == 7
    assert '1: "vest"' in (out / "data.yaml").read_text()


def test_mot(marked_project, tmp_path):
    report = export_annotations(marked_project, "mot", tmp_path / "m")
    rows = list(csv.reader((tmp_path / "m" / "walk" / "gt" / "gt.txt").read_text().splitlines()))
    assert [r[0] for r in rows] == ["3", "4", "5", "6", "7"]           # frames 2..6, 1-based
    assert rows[0] == ["3", "1", "0.00", "0.00", "64.00", "48.00", "1", "-1", "-1", "-1"]
    assert rows[2][2:6] == ["32.00", "24.00", "64.00", "48.00"]
    assert rows[4][2:6] == ["64.00", "48.00", "64.00", "48.00"]
    assert report.skipped == [("walk.mp4", "1 box(es) without a track id are not in MOT")]
    ini = (tmp_path / "m" / "walk" / "seqinfo.ini").read_text()
    assert "seqLength=30" in ini and "imWidth=640" in ini
    assert (tmp_path / "m" / "walk" / "tracks.csv").read_text() == "track_id,label\n1,person\n"


def test_csv(marked_project, tmp_path):
    export_annotations(marked_project, "csv", tmp_path / "a.csv")
    df = pd.read_csv(tmp_path / "a.csv")
    assert sorted(df["kind"]) == ["box", "box", "box", "box", "event", "ruler", "segment"]
    vest = df[df["attr:colour"].notna()].iloc[0]
    assert (vest["kind"], vest["label"], vest["start_frame"], vest["attr:colour"]) == ("box", "vest", 10, "orange")
    assert (vest["x"], vest["y"], vest["width"], vest["height"]) == (100, 100, 50, 50)
    seg = df[df["kind"] == "segment"].iloc[0]
    assert (seg["start_frame"], seg["end_frame"]) == (3, 11)
    assert (seg["start_pts"], seg["end_pts"]) == (13800, 43800)
    assert seg["start_s"] == pytest.approx(13800 / 90000, abs=1e-6)
    assert seg["duration_s"] == pytest.approx(30000 / 90000, abs=1e-6)
    assert seg["label"] == "person" and not seg["open"]
    ev = df[df["kind"] == "event"].iloc[0]
    assert ev["start_frame"] == 4 and ev["text"] == "enters" and pd.isna(ev["end_frame"])
    ruler = df[df["kind"] == "ruler"].iloc[0]
    assert ruler["pixels"] == pytest.approx(200) and ruler["metres"] == pytest.approx(2.5)


def test_bad_format_and_output(marked_project, tmp_path):
    with pytest.raises(ExportError, match="unknown export format"):
        export_annotations(marked_project, "voc", tmp_path / "x")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ExportError, match="is a file"):
        export_annotations(marked_project, "yolo", tmp_path / "file.txt")


def test_failed_write_keeps_the_previous_export(marked_project, tmp_path, monkeypatch):
    target = tmp_path / "boxes.json"
    export_annotations(marked_project, "coco", target)
    before = target.read_bytes()
    ann.add_box(marked_project, PHOTO_ID, (200, 200, 10, 10))
    import fieldstudio.core.atomic as atomic

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        export_annotations(marked_project, "coco", target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if "boxes" in p.name] == ["boxes.json"]   # no temporary file left


def test_images_are_the_exact_upright_frames(project, tmp_path):
    media = tmp_path / "media"
    media.mkdir()
    for name in ("videos/worker_zone_hardhat_vest_from_gif.mp4",
                 "images/ppe_worker_hardhat_vest_warehouse_zone_frame045.png",
                 "images/ppe_electrician_hivis_systems_equipment_mta.jpg"):
        shutil.copy(SAMPLE / name, media)
    report = library.add_paths(project, [media])
    video_index.index_videos(project, report.media_ids)
    ids = {library.find_media(project, n).file_name: library.find_media(project, n).id for n in
           ("worker_zone_hardhat_vest_from_gif.mp4", "ppe_worker_hardhat_vest_warehouse_zone_frame045.png",
            "ppe_electrician_hivis_systems_equipment_mta.jpg")}
    clip, still, rotated = ids.values()
    ann.add_box(project, clip, (98, 57, 64, 165), frame_index=45)
    ann.add_box(project, still, (98, 57, 64, 165))
    ann.add_box(project, rotated, (500, 650, 360, 910))
    out = tmp_path / "coco"
    rep = export_annotations(project, "coco", out, write_image_files=True)
    assert rep.skipped == []
    written = {p.name for p in (out / "images").iterdir()}
    assert written == {"worker_zone_hardhat_vest_from_gif_f000045.jpg",
                       "ppe_worker_hardhat_vest_warehouse_zone_frame045.png",
                       "ppe_electrician_hivis_systems_equipment_mta.jpg"}
    frame = cv2.imread(str(out / "images" / "worker_zone_hardhat_vest_from_gif_f000045.jpg"))[..., ::-1]
    assert frame.shape == (270, 480, 3)
    assert np.abs(frame.astype(int) - get_frame(project, clip, 45).rgb).mean() < 2.0      # JPEG q95
    # the sample photo is frame 45 of the same clip (extracted from the original GIF): frames 44 and 46
    # differ more from it than the exported frame does (measured 3.8, 2.8 and 4.0 grey levels)
    still_px = cv2.imread(str(SAMPLE / "images" / "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"))[..., ::-1]
    d45 = np.abs(frame.astype(int) - still_px).mean()
    for neighbour in (44, 46):
        assert d45 < np.abs(get_frame(project, clip, neighbour).rgb.astype(int) - still_px).mean()
    # the EXIF-rotated photo is written upright: 1200 wide, 1600 high, as its boxes are measured
    assert cv2.imread(str(out / "images" / "ppe_electrician_hivis_systems_equipment_mta.jpg")).shape[:2] == (1600, 1200)
    # a media whose file went missing keeps its boxes in the JSON and is listed as skipped
    (media / "ppe_worker_hardhat_vest_warehouse_zone_frame045.png").unlink()
    rep = export_annotations(project, "coco", tmp_path / "coco2", write_image_files=True)
    assert len(rep.skipped) == 1 and "missing" in rep.skipped[0][1]
    doc = json.loads((tmp_path / "coco2" / "annotations.json").read_text())
    assert len(doc["annotations"]) == 3


def test_cli_export(marked_project, tmp_path):
    app = typer.Typer()
    register(app)

    @app.command()
    def other() -> None:  # a second command so typer keeps "export" as a sub-command
        pass

    runner = CliRunner()
    res = runner.invoke(app, ["export", str(marked_project.path), "--format", "yolo", "--out", str(tmp_path / "y")])
    assert res.exit_code == 0, res.output
    assert "yolo: 7 annotation(s)" in res.output
    assert (tmp_path / "y" / "labels" / "walk_f000004.txt").is_file()
    res = runner.invoke(app, ["export", str(marked_project.path), "--format", "voc", "--out", str(tmp_path / "v")])
    assert res.exit_code == 2 and "unknown export format" in res.output
    res = runner.invoke(app, ["export", str(tmp_path / "nope.fieldstudio"), "--format", "csv", "--out", "x.csv"])
    assert res.exit_code == 2 and "no such project" in res.output
