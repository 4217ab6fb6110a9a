"""MOT and YOLO imports hold what a batch needs, not every box of the file (issue 37): the Python memory an import
peaks at grows by a few dozen bytes a box (the columns of boxes kept to store, the 16-byte ids of the undo record),
where a parsed box object each (about 600 bytes) made 10^6 MOT boxes peak at 1.2 GB. Measured with tracemalloc
(allocations, not time), batches made as small as the smaller file so both runs store in batches of one size."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from fieldstudio.annotations import mark_batches
from fieldstudio.annotations.imports import importing
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import N_FRAMES, add_test_media

SMALL, LARGE = 4_000, 16_000
BYTES_A_BOX = 250   # the bound on the growth per box; parsed boxes held took 600 or more


def write_yolo(folder: Path, n: int) -> Path:
    """``n`` boxes on site.jpg (400x300), each a little elsewhere."""
    (folder / "labels").mkdir(parents=True)
    (folder / "classes.txt").write_text("person\nforklift\n", encoding="utf-8")
    (folder / "labels" / "site.txt").write_text("".join(
        f"{k % 2} {(k % 300 + 20) / 400:.6f} {(k % 200 + 20) / 300:.6f} {(5 + k % 7) / 400:.6f} 0.010000\n"
        for k in range(n)), encoding="utf-8")
    return folder


def write_mot(folder: Path, n: int) -> Path:
    """``n`` boxes on the test video ("walk"), in tracks as long as the video, jittered so that every box is kept."""
    (folder / "walk" / "gt").mkdir(parents=True)
    lines = []
    for k in range(n):
        track, frame = k // N_FRAMES + 1, k % N_FRAMES
        h = (frame * 2654435761 + track * 40503) % 1000003
        lines.append(f"{frame + 1},{track},{track % 50 + h % 97 / 10},{track % 30 + h % 89 / 10},5.5,7.25,1,1,1\n")
    (folder / "walk" / "gt" / "gt.txt").write_text("".join(lines), encoding="utf-8")
    return folder


def peak_of_import(project, source: Path, fmt: str) -> tuple[int, int]:
    """(boxes stored, the peak of Python's allocations during the import, bytes)."""
    tracemalloc.start()
    try:
        report = importing.import_annotations(project, source, fmt)
        return report.marks, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("fmt, write", [("yolo", write_yolo), ("mot", write_mot)])
def test_an_import_peak_grows_by_little_more_than_its_stored_columns(fmt, write, tmp_path, monkeypatch):
    monkeypatch.setattr(mark_batches, "BOX_BATCH", 1000)
    peaks = {}
    for n in (SMALL, LARGE):
        project = Project.create(tmp_path / f"p{n}.fieldstudio")
        try:
            add_test_media(project)
            stored, peaks[n] = peak_of_import(project, write(tmp_path / f"{fmt}{n}", n), fmt)
        finally:
            project.close()
        assert stored > 0.9 * n
    assert (peaks[LARGE] - peaks[SMALL]) / (LARGE - SMALL) < BYTES_A_BOX, peaks
