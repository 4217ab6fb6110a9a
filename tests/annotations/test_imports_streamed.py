"""Large annotation files stream (issue 36 item 4): a COCO file is read a record at a time and its plain boxes are
stored in batches; the result is the same boxes, a re-import adds nothing, a cancel while storing stores nothing,
and a broken or over-deep file is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations import mark_batches
from fieldstudio.annotations.imports import importing
from tests.support.annotation_fixtures import PHOTO_ID, add_test_media


@pytest.fixture
def photo_project(project):
    add_test_media(project)        # site.jpg, 400x300
    return project


def write_coco(path: Path, n: int, *, tail: str = "") -> list[list[float]]:
    """A COCO file of ``n`` boxes on site.jpg with its categories AFTER the annotations (allowed, and what a
    streamed reader must cope with); returns the boxes as stored, [x1, y1, x2, y2] (inside the 400x300 photo)."""
    boxes, parts = [], []
    for k in range(n):
        x, y, w, h = k % 300 + 0.5, k % 200 + 0.25, 5 + k % 7, 4.0
        boxes.append([x, y, x + w, y + h])
        parts.append(json.dumps({"id": k + 1, "image_id": 7, "category_id": 1 + k % 2, "bbox": [x, y, w, h]}))
    path.write_text('{"images": [{"id": 7, "file_name": "site.jpg", "width": 400, "height": 300}], '
                    f'"annotations": [{", ".join(parts)}]{tail}, '
                    '"categories": [{"id": 1, "name": "person"}, {"id": 2, "name": "forklift"}]}')
    return boxes


def test_a_large_coco_file_streams_into_batches_and_again_adds_nothing(photo_project, tmp_path):
    n = 2 * mark_batches.BOX_BATCH + 17           # three batches
    expected = write_coco(tmp_path / "big.json", n)
    seen: list[tuple[int, int]] = []
    report = importing.import_annotations(photo_project, tmp_path / "big.json", "coco",
                                          progress=lambda done, total: seen.append((done, total)))
    assert (report.marks, report.already_present, report.problems) == (n, 0, [])
    assert report.labels_created == ["person", "forklift"]
    stored = ann.list_annotations(photo_project, media_id=PHOTO_ID)
    assert sorted(r.geometry for r in stored) == sorted(expected)
    names = {r.id: r.name for r in lab.list_labels(photo_project)}
    by_geometry = {tuple(r.geometry): names[r.label_id] for r in stored}
    assert by_geometry[tuple(expected[0])] == "person" and by_geometry[tuple(expected[1])] == "forklift"
    assert (n, n) in seen                         # the last batch stored
    again = importing.import_annotations(photo_project, tmp_path / "big.json", "coco")
    assert (again.marks, again.already_present) == (0, n)
    assert len(ann.list_annotations(photo_project, media_id=PHOTO_ID)) == n


def import_cancelled_at_2000(project, source: Path, fmt: str, n: int):
    """Import ``source``, cancelling once 2,000 of its ``n`` boxes are stored: (report, progress figures seen)."""
    stored_so_far: list[int] = []

    def progress(done: int, total: int) -> None:
        if total == n:
            stored_so_far.append(done)

    report = importing.import_annotations(project, source, fmt, progress=progress,
                                          cancelled=lambda: bool(stored_so_far) and stored_so_far[-1] >= 2000)
    return report, stored_so_far


def test_a_cancel_while_storing_stores_nothing(photo_project, tmp_path, monkeypatch):
    monkeypatch.setattr(mark_batches, "BOX_BATCH", 1000)
    n = 5000
    write_coco(tmp_path / "big.json", n)
    report, stored_so_far = import_cancelled_at_2000(photo_project, tmp_path / "big.json", "coco", n)
    assert report.cancelled and stored_so_far == [1000, 2000]
    assert "cancelled: nothing was stored" in report.lines()
    assert ann.list_annotations(photo_project, include_deleted=True) == [] and lab.list_labels(photo_project) == []


def test_a_file_nested_too_deep_or_broken_part_way_is_one_line(photo_project, tmp_path):
    deep = '{"x": ' + "[" * 5000 + "]" * 5000 + "}"
    write_coco(tmp_path / "deep.json", 3, tail=f', "extra": {deep}')
    with pytest.raises(importing.AnnotationImportError, match=r"deep.json: is nested deeper than 1,000 levels"):
        importing.import_annotations(photo_project, tmp_path / "deep.json", "coco")
    write_coco(tmp_path / "whole.json", 50)
    (tmp_path / "cut.json").write_text((tmp_path / "whole.json").read_text()[:-400])
    with pytest.raises(importing.AnnotationImportError, match=r"cut.json: not a readable JSON file"):
        importing.import_annotations(photo_project, tmp_path / "cut.json", "coco")
    assert ann.list_annotations(photo_project) == []


def write_mot(folder: Path, tracks: int) -> int:
    """``walk/gt/gt.txt``: ``tracks`` tracks over all 30 frames of walk.mp4, boxes jumping about (no box lies on
    its neighbours' line: x and y are quadratic in the frame, so every one is a keyframe); returns how many boxes."""
    (folder / "walk" / "gt").mkdir(parents=True)
    lines = [f"{f + 1},{t + 1},{(f * f * 7 + t * 11) % 500},{(f * f * 13 + t * 7) % 400},20,30,1,1,1"
             for t in range(tracks) for f in range(30)]
    (folder / "walk" / "gt" / "gt.txt").write_text("\n".join(lines) + "\n")
    return len(lines)


def test_mot_tracks_are_stored_in_batches_and_a_cancel_stores_nothing(photo_project, tmp_path, monkeypatch):
    """Boxes of tracks go the plain boxes' batched way (issue 36: 10^5 MOT boxes peaked at 743 MB as ORM rows):
    the same track ids and keyframes, one undo removes them, redo restores them, a cancel stores nothing."""
    monkeypatch.setattr(mark_batches, "BOX_BATCH", 1000)
    n = write_mot(tmp_path / "mot", 100)
    report, stored_so_far = import_cancelled_at_2000(photo_project, tmp_path / "mot", "mot", n)
    assert report.cancelled and stored_so_far[-2:] == [1000, 2000]     # (before them: the lines read)
    assert ann.list_annotations(photo_project, include_deleted=True) == []

    edit, report = importing.store_import(photo_project, tmp_path / "mot", "mot")
    assert report.marks == n and report.matched["walk.mp4"] == {"boxes": n, "tracks": 100, "sources": 1}
    rows = ann.list_annotations(photo_project, kinds=["box"])
    assert len(rows) == n and {r.track_id for r in rows} == set(range(1, 101))
    assert all(r.is_keyframe for r in rows) and {r.frame_index for r in rows if r.track_id == 7} == set(range(30))
    box = next(r for r in rows if r.track_id == 3 and r.frame_index == 4)    # line "5,3,134,222,20,30": 0-based 4
    assert box.geometry == [134.0, 222.0, 154.0, 252.0]
    edit.undo()
    assert ann.list_annotations(photo_project, kinds=["box"]) == []
    edit.do()
    assert len(ann.list_annotations(photo_project, kinds=["box"])) == n
