"""Playback through libVLC (issue 21): pictures scaled by libVLC to the size on screen, handed to the canvas
without a copy and counted; the overlays stay on top; shuttle keys show direction and rate; a video with
only its packet index plays and steps exactly, and follows its decoded index on the same picture."""

from __future__ import annotations

import time

import cv2
import numpy as np
import pytest
from PySide6.QtCore import Qt

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.gui.imaging import rgb_from_qimage
from fieldstudio.gui.main_window import MainWindow
from fieldstudio.media import library
from fieldstudio.store.project import Project
from tests.support.gui_support import open_media, shown_rgb, wait_idle
from tests.support.video_fixtures import H, W, ffmpeg_frame, read_barcode

pytestmark = pytest.mark.gui


def _need_vlc() -> None:
    from fieldstudio.gui.viewer.vlc_playback import vlc_unavailable_reason

    if vlc_unavailable_reason():
        pytest.skip(vlc_unavailable_reason())


def test_libvlc_scales_pictures_to_the_render_size(qapp, qtbot, clips):
    """A picture asked for at half size is the clip's frame, scaled: its barcode reads back at full size."""
    _need_vlc()
    from fieldstudio.gui.viewer.vlc_playback import VlcPlayback

    playback = VlcPlayback(clips["cfr_bframes"], (W // 2, H // 2))
    taken = []
    playback.frame_ready.connect(lambda: (t := playback.take()) and taken.append(rgb_from_qimage(t[0])))
    try:
        playback.play_from(2.0, muted=True)
        qtbot.waitUntil(lambda: len(taken) >= 5, timeout=10000)
    finally:
        playback.release()
    rgb = taken[-1]
    assert rgb.shape == (H // 2, W // 2, 3)
    n = read_barcode(cv2.resize(rgb, (W, H), interpolation=cv2.INTER_LINEAR))
    assert 50 <= n < 300  # started at 2 s, 25 fps
    expected = cv2.resize(ffmpeg_frame(clips["cfr_bframes"], n), (W // 2, H // 2), interpolation=cv2.INTER_AREA)
    assert np.abs(rgb.astype(int) - expected.astype(int)).mean() < 12  # libVLC's scaler is not OpenCV's
    assert playback.delivered >= len(taken) and playback.dropped <= playback.delivered


def test_playing_follows_the_zoom_counts_pictures_and_keeps_the_boxes_on_top(window, qtbot):
    _need_vlc()
    from fieldstudio.gui.viewer.overlay import BoxItem

    mid = open_media(window, qtbot, "cfr_bframes.mp4")
    ann.add_box(window.state.project, mid, (20, 60, 80, 60), frame_index=0)
    window.annotator.refresh()
    boxes = [i for i in window.view.canvas.scene().items() if isinstance(i, BoxItem)]
    assert len(boxes) == 1
    window.view.canvas.set_zoom(0.5)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
    video = window.view.video
    qtbot.waitUntil(lambda: video.playback_stats()["shown"] >= 5, timeout=10000)
    assert video._vlc.render_size == (W // 2, H // 2)  # libVLC scales to the size on screen
    assert window.view.canvas.video_item.image().size().toTuple() == (W // 2, H // 2)
    window.view.canvas.set_zoom(1.0)
    qtbot.waitUntil(lambda: video._vlc.render_size == (W, H), timeout=3000)
    qtbot.waitUntil(lambda: window.view.canvas.video_item.image().size().toTuple() == (W, H), timeout=5000)
    # the marks stay the same items, drawn above the played picture
    now = [i for i in window.view.canvas.scene().items() if isinstance(i, BoxItem)]
    assert now == boxes and now[0].isVisible() and now[0].zValue() > window.view.canvas.video_item.zValue()
    assert "playing 1x" in window.frame_label.text()
    stats = video.playback_stats()
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
    wait_idle(window, qtbot)
    assert stats["shown"] >= 5 and stats["shown"] <= stats["delivered"]
    assert stats["shown"] + stats["dropped"] <= stats["delivered"]
    assert not window.view.canvas.video_item.isVisible()  # paused: the exact frame is shown again
    assert read_barcode(shown_rgb(window)) == int(window.frame_label.text().split()[1])


def test_shuttle_keys_show_direction_and_rate(window, qtbot, monkeypatch):
    monkeypatch.setenv("FIELDSTUDIO_NO_VLC", "1")  # the frame decoder plays both ways
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.go_to("#200")
    wait_idle(window, qtbot)
    messages = []
    window.view.video.notice.connect(messages.append)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_J)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_J)
    assert window.view.video.rate_text() == "-2x" and messages[-1] == "playing -2x"
    qtbot.waitUntil(lambda: "playing -2x" in window.frame_label.text(), timeout=5000)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_L)
    assert window.view.video.rate_text() == "1x" and messages[-1] == "playing 1x"
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_K)
    wait_idle(window, qtbot)
    assert not window.view.video.playing and "playing" not in window.frame_label.text()


def test_a_video_opens_on_its_packet_index_and_follows_the_verified_one(qtbot, tmp_path, clips):
    """Added without an index, a video opens on the packet index; exact steps show the frames ffmpeg
    decodes; the background indexer verifies it and the window says which index is in use."""
    path = tmp_path / "fresh.fieldstudio"
    with Project.create(path, name="fresh") as p:
        mid = library.add_paths(p, [clips["cfr_bframes"]]).media_ids[0]
    w = MainWindow(Project.open(path))
    qtbot.addWidget(w)
    w.session.indexer.pause()  # hold verification back: the video must be usable on its packet index alone
    w.resize(1280, 800)
    w.show()
    try:
        start = time.monotonic()
        open_media(w, qtbot, "cfr_bframes.mp4")
        qtbot.waitUntil(lambda: w.view.video.table is not None, timeout=10000)
        assert time.monotonic() - start < 10
        assert w.view.transport.index_source.text() == "packet index · verifying"
        w.go_to("#137")
        wait_idle(w, qtbot)
        assert np.array_equal(shown_rgb(w), ffmpeg_frame(clips["cfr_bframes"], 137))
        qtbot.keyClick(w.view.canvas, Qt.Key.Key_Right)
        wait_idle(w, qtbot)
        assert read_barcode(shown_rgb(w)) == 138
        assert "paused" in w.indexing_status.label.text()
        w.session.indexer.resume()
        qtbot.waitUntil(lambda: library.find_media(w.state.project, mid).index_status == "ready", timeout=30000)
        qtbot.waitUntil(lambda: w.view.transport.index_source.text() == "decoded index", timeout=5000)
        qtbot.waitUntil(lambda: not w.indexing_status.isVisible(), timeout=5000)
        assert read_barcode(shown_rgb(w)) == 138 == int(w.frame_label.text().split()[1])
    finally:
        w.close()


def test_libvlc_decodes_with_one_thread_per_core_up_to_four(monkeypatch):
    """Each of libVLC's frame threads holds 4K pictures of its own: the count follows the cores, capped."""
    from fieldstudio.gui.viewer import vlc_playback

    for cores, threads in ((1, 1), (2, 2), (4, 4), (16, 4), (None, 1)):
        monkeypatch.setattr(vlc_playback.os, "cpu_count", lambda c=cores: c)
        assert vlc_playback.decoder_threads() == threads
