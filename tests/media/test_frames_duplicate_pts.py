"""Frames that share one PTS are each reachable and exact (issue 23, item 3).

The clip (``make_duplicate_pts``) carries each frame's index as a barcode; ffmpeg's ``setts`` gives frames
122/123 and 149/150 one PTS per pair. Expected values come from outside fieldstudio: ffprobe's PTS list,
ffmpeg's ``select=eq(n,N)`` decode of frame N and the barcode drawn into it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import Qt

from fieldstudio.gui.main_window import MainWindow
from fieldstudio.media import frames, library, video_index
from fieldstudio.store.project import Project
from tests.support.gui_support import open_media, shown_rgb, wait_idle
from tests.support.video_fixtures import DUPLICATE_PTS, ffmpeg_frame, ffprobe_pts, make_duplicate_pts, read_barcode

AROUND = sorted({i for pair in DUPLICATE_PTS for i in range(pair[0] - 1, pair[1] + 2)})


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = make_duplicate_pts(tmp_path_factory.mktemp("duplicate_pts"))
    pts = ffprobe_pts(path)
    assert all(pts[a] == pts[b] for a, b in DUPLICATE_PTS)  # the fixture really has the duplicates
    return path


@pytest.fixture
def indexed(project, clip):
    report = library.add_paths(project, [clip])
    video_index.index_videos(project, report.media_ids)
    return project, report.media_ids[0]


def test_every_frame_of_a_shared_pts_matches_ffmpeg(indexed, clip):
    project, mid = indexed
    pts = ffprobe_pts(clip)
    for i in AROUND:  # each from a fresh decoder: seek to the keyframe, decode forward
        frame = frames.get_frame(project, mid, i)
        expected = ffmpeg_frame(clip, i)
        assert read_barcode(expected) == i
        assert read_barcode(frame.rgb) == i, f"frame {i}"
        assert np.abs(frame.rgb.astype(int) - expected).mean() < 1.0, f"frame {i}"
        assert frame.pts_seconds == pytest.approx(pts[i], abs=1e-4)


def test_stepping_through_a_shared_pts_both_ways(indexed):
    project, mid = indexed
    source = frames.FrameSource(project)
    try:
        forward = [read_barcode(source.get(mid, i).rgb) for i in AROUND]
        backward = [read_barcode(source.get(mid, i).rgb) for i in reversed(AROUND)]
    finally:
        source.close()
    assert forward == AROUND
    assert backward == AROUND[::-1]


@pytest.mark.gui
def test_arrow_key_steps_through_frames_that_share_a_pts(qtbot, indexed):
    project, mid = indexed
    window = MainWindow(Project.open(project.path))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    try:
        open_media(window, qtbot, "duplicate_pts.mp4")
        for a, b in DUPLICATE_PTS:
            window.go_to(f"#{a - 1}")
            wait_idle(window, qtbot)
            for want in (a, b, b + 1):
                qtbot.keyClick(window.view.canvas, Qt.Key.Key_Right)
                wait_idle(window, qtbot)
                shown = int(re.match(r"frame (\d+)", window.frame_label.text()).group(1))
                assert (shown, read_barcode(shown_rgb(window))) == (want, want)
    finally:
        window.close()
