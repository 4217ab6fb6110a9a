"""Damaged media are named (issue 32, item 5): the first 60 KB of a 30 s clip is a partial file, as ffprobe says,
never "ok, 0.080 s, 1 frame"; the frames it holds are exact; a cut JPEG is damaged too.

ffprobe is the independent check: the container's duration and frame count (``format=duration``,
``stream=nb_frames``) and the frames that decode (``-count_frames``); ffmpeg's ``select=eq(n,N)`` the pixels.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from fieldstudio.gui.panels.properties import media_properties
from fieldstudio.media import damage, images, inventory, library, video_index
from fieldstudio.media import frames as frame_access
from fieldstudio.store import library_rows
from fieldstudio.store.project import Project
from tests.support.video_fixtures import X264, encode, ffmpeg_frame, read_barcode

HEAD_BYTES = 60 * 1024


def ffprobe(path: Path, *args: str) -> str:
    return subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", *args, "-of", "csv=p=0", str(path)],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def partial(tmp_path_factory) -> Path:
    """The first 60 KB of a 30 s barcoded clip at 30 fps whose index comes first (``+faststart``)."""
    folder = tmp_path_factory.mktemp("partial")
    whole = encode(folder / "whole.mp4", 900, args=[*X264, "-g", "30", "-movflags", "+faststart"])
    cut = folder / "partial.mp4"
    cut.write_bytes(whole.read_bytes()[:HEAD_BYTES])
    return cut


def container_facts(path: Path) -> tuple[float, int, int]:
    """(the container's duration in s, its frame count, the frames ffprobe decodes) of ``path``."""
    duration = float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                     str(path)], check=True, capture_output=True, text=True).stdout.strip())
    return duration, int(ffprobe(path, "-show_entries", "stream=nb_frames")), \
        int(ffprobe(path, "-count_frames", "-show_entries", "stream=nb_read_frames"))


@pytest.mark.parametrize("index", ["decoded", "packets"])
def test_a_partial_video_is_damaged_with_what_the_container_says_and_what_decodes(partial, tmp_path, index):
    container_s, container_frames, decodable = container_facts(partial)
    assert container_s == pytest.approx(30.0, abs=0.1) and container_frames == 900 and 1 < decodable < 900
    p = Project.create(tmp_path / "p.fieldstudio")
    report = library.add_paths(p, [partial])
    (mid,) = report.media_ids
    media = library.find_media(p, mid)
    if index == "decoded":
        assert not video_index.index_videos(p, [mid])
    else:  # the window's first index: the container's packets, before any decoding
        table, status = video_index.first_frame_table(p, media)
        video_index.store_frame_table(p, mid, table, status=status)
    media = library.find_media(p, mid)
    assert media.status == "ok"                          # usable: its frames open
    n = media.frame_count
    if index == "decoded":
        assert n == decodable                            # what exists, as ffprobe counts it
    assert media.error.startswith(f"partial or damaged file: the container says {container_s:.3f} s, "
                                  f"{container_frames} frames; {n} frame(s) decode, ")
    rows = dict(media_properties(media, missing=False))
    assert rows["State"] == "damaged: only part of it decodes" and rows["Damage"] == media.error
    assert rows["Frames"] == f"{n} decodable" and rows["Duration"].endswith(" decodable")
    assert rows["Container says"] == "00:00:30.000, 900 frames"
    (row,) = library_rows.media_rows(p.path)
    assert row.badges(missing=False) == ["damaged"]
    assert inventory.damaged_media(p, [mid]) == [("partial.mp4", media.error)]
    (summary,) = inventory.video_summaries(p)
    assert summary.damaged == media.error
    p.close()


def test_the_frames_a_partial_video_holds_are_exact(partial, tmp_path):
    with Project.create(tmp_path / "p.fieldstudio") as p:
        (mid,) = library.add_paths(p, [partial]).media_ids
        video_index.index_videos(p, [mid])
        n = library.find_media(p, mid).frame_count
        for i in (0, n // 2, n - 2, n - 1):
            frame = frame_access.get_frame(p, mid, i)
            expected = ffmpeg_frame(partial, i)
            assert read_barcode(frame.rgb) == read_barcode(expected) == i
            assert np.abs(frame.rgb.astype(int) - expected.astype(int)).mean() < 1.0


def test_a_whole_video_and_an_edit_list_are_not_damaged(tmp_path, clips):
    with Project.create(tmp_path / "p.fieldstudio") as p:
        report = library.add_paths(p, [clips["cfr_bframes"], clips["vfr"], clips["rot90"]])
        video_index.index_videos(p, report.media_ids)
        assert inventory.damaged_media(p, report.media_ids) == []


def test_the_rule_counts_time_not_frames():
    # an edit list hides pictures the container counts: the same span is whole
    assert damage.video_damage(5.0, 210, 150, 5.0, 30.0) is None
    # the last frame's duration or rounding: under three frames short is whole
    assert damage.video_damage(10.0, 300, 298, 9.92, 30.0) is None
    assert damage.video_damage(10.0, 300, 290, 9.6, 30.0) == ("partial or damaged file: the container says "
                                                              "10.000 s, 300 frames; 290 frame(s) decode, 9.600 s "
                                                              "(0.400 s missing)")
    assert damage.video_damage(None, None, 10, 1.0, 30.0) is None    # nothing promised, nothing missing


def test_a_cut_jpeg_is_damaged_and_shows_what_decodes(tmp_path):
    whole = tmp_path / "whole.jpg"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=640x480", "-frames:v", "1",
                    "-q:v", "3", str(whole)], check=True)
    data = whole.read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data[: len(data) // 2])
    appended = tmp_path / "appended.jpg"          # a whole picture with bytes after its end (some cameras)
    appended.write_bytes(data + b"trailing maker notes")
    assert images.probe_image(whole).damage is None and images.probe_image(appended).damage is None
    assert images.probe_image(cut).damage.startswith("truncated: the image data ends before the picture does")
    with Project.create(tmp_path / "p.fieldstudio") as p:
        report = library.add_paths(p, [cut, whole])
        assert [(path.name, why) for path, why in report.damaged] == [("cut.jpg", images.probe_image(cut).damage)]
        media = library.find_media(p, "cut.jpg")
        assert media.status == "ok" and dict(media_properties(media, False))["Damage"] == media.error
        rgb = frame_access.get_frame(p, media.id, 0).rgb
        assert rgb.shape == (480, 640, 3)
        top = images.read_image(whole)[:40]
        assert np.abs(rgb[:40].astype(int) - top.astype(int)).mean() < 2.0   # the part that decodes is there
