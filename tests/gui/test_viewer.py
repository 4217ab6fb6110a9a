"""The main window driven as a user would: stepping, scrubbing, playing, zooming, reading manuals.

Expected values come from outside the code under test: the barcode drawn into each frame of the fixture
clips, ffprobe's PTS list, ffmpeg's decode, and poppler's pdftotext for the PDF.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from fieldstudio.gui.imaging import format_pts
from fieldstudio.gui.main_window import MainWindow
from fieldstudio.store.project import Project
from tests.support.gui_support import open_media, shown_rgb, wait_idle
from tests.support.video_fixtures import ffmpeg_frame, ffprobe_pts, read_barcode

pytestmark = pytest.mark.gui


def status_index(window) -> int:
    return int(re.match(r"frame (\d+)", window.frame_label.text()).group(1))


def test_title_names_the_project(window):
    assert window.windowTitle() == "fieldstudio — viewer test"


def test_arrow_keys_step_exact_frames_and_status_shows_index_and_pts(window, qtbot, clips):
    open_media(window, qtbot, "cfr_bframes.mp4")
    pts = ffprobe_pts(clips["cfr_bframes"])
    for _ in range(7):
        qtbot.keyClick(window.view.canvas, Qt.Key.Key_Right)
    wait_idle(window, qtbot)
    assert window.frame_label.text() == "frame 7 / 299"
    assert window.time_label.text() == format_pts(pts[7])
    assert read_barcode(shown_rgb(window)) == 7
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Left)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Left)
    wait_idle(window, qtbot)
    assert status_index(window) == 5
    assert np.array_equal(shown_rgb(window), ffmpeg_frame(clips["cfr_bframes"], 5))


def test_second_and_ten_second_steps_follow_pts_on_a_vfr_clip(window, qtbot, clips):
    # the VFR clip runs 30 fps for 5 s, then 15 fps: one second after frame 140 is not frame 170
    open_media(window, qtbot, "vfr.mp4")
    pts = ffprobe_pts(clips["vfr"])
    window.go_to("140")
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    wait_idle(window, qtbot)
    expected = max(i for i, t in enumerate(pts) if t <= pts[140] + 1.0 + 1e-6)
    assert status_index(window) == expected
    assert read_barcode(shown_rgb(window)) == expected
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier)
    wait_idle(window, qtbot)
    assert status_index(window) == 0  # clamped at the start


def test_go_to_time_and_frame(window, qtbot, clips):
    open_media(window, qtbot, "vfr.mp4")
    pts = ffprobe_pts(clips["vfr"])
    window.go_to("0:00:06.5")
    wait_idle(window, qtbot)
    expected = max(i for i, t in enumerate(pts) if t <= 6.5 + 1e-6)
    assert status_index(window) == expected
    window.go_to("#12")
    wait_idle(window, qtbot)
    assert read_barcode(shown_rgb(window)) == 12
    window.go_to("frame twelve")
    assert "type a frame number" in window.statusBar().currentMessage()


def test_dragging_the_playhead_previews_then_shows_the_exact_frame(window, qtbot, clips):
    open_media(window, qtbot, "cfr_bframes.mp4")
    pts = ffprobe_pts(clips["cfr_bframes"])
    tl = window.view.timeline
    y = tl.height() - 10
    qtbot.mousePress(tl, Qt.MouseButton.LeftButton, pos=QPoint(20, y))
    for x in range(40, int(tl.width() * 0.6), 40):
        qtbot.mouseMove(tl, QPoint(x, y))
        qtbot.wait(5)
    x_end = int(tl.width() * 0.6)
    qtbot.mouseMove(tl, QPoint(x_end, y))
    qtbot.mouseRelease(tl, Qt.MouseButton.LeftButton, pos=QPoint(x_end, y))
    wait_idle(window, qtbot)
    # the timeline spans first PTS .. last PTS + one frame duration; x maps linearly to time
    span_end = pts[-1] + (pts[-1] - pts[-2])
    t = pts[0] + x_end / tl.width() * (span_end - pts[0])
    expected = max(i for i, p in enumerate(pts) if p <= t + 1e-6)
    assert abs(status_index(window) - expected) <= 1  # one pixel of the timeline may round either way
    index = status_index(window)
    assert "~" not in window.frame_label.text()
    assert read_barcode(shown_rgb(window)) == index
    assert window.time_label.text() == format_pts(pts[index])


@pytest.mark.parametrize("vlc", [True, False], ids=["libvlc", "decoder"])
def test_play_one_second_then_pause_shows_the_exact_frame_at_the_reported_index(window, qtbot, clips, vlc,
                                                                                monkeypatch):
    if not vlc:
        monkeypatch.setenv("FIELDSTUDIO_NO_VLC", "1")
    else:
        from fieldstudio.gui.viewer.vlc_playback import vlc_unavailable_reason
        if vlc_unavailable_reason():
            pytest.skip(vlc_unavailable_reason())
    mid = open_media(window, qtbot, "cfr_bframes.mp4")
    shown = []
    window.view.video.frame_shown.connect(lambda i, s, exact: shown.append(i))
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
    qtbot.wait(1000)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
    wait_idle(window, qtbot)
    qtbot.waitUntil(lambda: "~" not in window.frame_label.text(), timeout=3000)
    index = status_index(window)
    assert len(set(shown)) > 3, "the picture should change while playing"
    assert index > 3
    assert read_barcode(shown_rgb(window)) == index
    from fieldstudio.media.frames import get_frame
    assert np.array_equal(shown_rgb(window), get_frame(window.state.project, mid, index).rgb)


def test_without_libvlc_the_window_says_so_once(window, qtbot, monkeypatch):
    monkeypatch.setenv("FIELDSTUDIO_NO_VLC", "1")
    open_media(window, qtbot, "cfr_bframes.mp4")
    messages = []
    window.view.video.notice.connect(messages.append)
    for _ in range(3):
        qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
        qtbot.wait(150)
        qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
    assert sum("frame decoder" in m for m in messages) == 1


def test_rotated_video_is_shown_upright(window, qtbot, clips):
    open_media(window, qtbot, "rot90.mp4")
    window.go_to("#4")
    wait_idle(window, qtbot)
    # the ffmpeg CLI applies the display matrix itself: what we show must equal it
    assert np.array_equal(shown_rgb(window), ffmpeg_frame(clips["rot90"], 4))
    assert read_barcode(shown_rgb(window), window.state.media.rotation) == 4
    h, w = shown_rgb(window).shape[:2]
    assert h > w  # the landscape barcode clip stands upright as portrait


def test_rotated_video_plays_upright_through_libvlc(window, qtbot, clips):
    """libVLC applies the display rotation itself: a picture it plays is the exact frame, upright.

    Before, its rotated picture was squeezed into a buffer of the stored (landscape) size and rotated a
    second time, so a rotation-90 clip played upside down and stretched.
    """
    from fieldstudio.gui.imaging import rgb_from_qimage
    from fieldstudio.gui.viewer.vlc_playback import vlc_unavailable_reason

    if vlc_unavailable_reason():
        pytest.skip(vlc_unavailable_reason())
    open_media(window, qtbot, "rot90.mp4")
    played = []
    # the played picture is libVLC's buffer, drawn without a copy: copy it to keep it
    window.view.video.frame_shown.connect(
        lambda i, s, exact: exact or played.append(window.view.canvas.video_item.image().copy()))
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: len(played) >= 8, timeout=5000)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
    wait_idle(window, qtbot)
    rgb = rgb_from_qimage(played[-1])
    upright = ffmpeg_frame(clips["rot90"], 0)
    assert rgb.shape == upright.shape  # portrait, as ffmpeg shows it
    n = read_barcode(rgb, window.state.media.rotation)
    assert 0 <= n < 90, f"the played picture is not a frame of the clip (barcode {n})"
    assert np.abs(rgb.astype(int) - ffmpeg_frame(clips["rot90"], n)).mean() < 3.0


def test_photo_zoom_and_pointer_in_image_pixels(window, qtbot):
    open_media(window, qtbot, "ppe_worker_hardhat_vest_warehouse_zone_frame045.png")
    canvas = window.view.canvas
    for zoom in (0.25, 1.0, 4.0):
        canvas.set_zoom(zoom)
        qtbot.wait(50)  # let the scroll bars appear before centring
        canvas.centerOn(100.0, 80.0)
        qtbot.wait(20)
        start = canvas.mapFromScene(QPointF(100.0, 80.0))  # Qt's own scene -> viewport mapping
        qtbot.mouseMove(canvas.viewport(), start)
        x0, y0 = _pointer(window)
        qtbot.mouseMove(canvas.viewport(), start + QPoint(40, 20))
        x1, y1 = _pointer(window)
        # 40 and 20 device-independent pixels at this zoom (dpr 1) are 40/zoom and 20/zoom image pixels
        assert x1 - x0 == pytest.approx(40 / zoom, abs=0.11)
        assert y1 - y0 == pytest.approx(20 / zoom, abs=0.11)
        assert x0 == pytest.approx(100.0, abs=1 / zoom + 0.1)
        assert y0 == pytest.approx(80.0, abs=1 / zoom + 0.1)
        assert window.zoom_label.text() == f"zoom {zoom * 100:.0f} %"


def _pointer(window) -> tuple[float, float]:
    m = re.match(r"x ([\d.]+)\s+y ([\d.]+) px", window.pointer_label.text())
    assert m, window.pointer_label.text()
    return float(m.group(1)), float(m.group(2))


def test_keyboard_zoom_and_fit(window, qtbot):
    open_media(window, qtbot, "retail_grocery_Bravo-Orange-Juice_024.jpg")
    window.actions["zoom_1to1"].trigger()
    assert window.view.canvas.zoom() == pytest.approx(1.0)
    window.actions["zoom_in"].trigger()
    assert window.view.canvas.zoom() == pytest.approx(1.25)
    window.actions["zoom_fit"].trigger()
    w, h = window.view.canvas.image_size()
    vp = window.view.canvas.viewport().size()
    assert window.view.canvas.zoom() == pytest.approx(min(vp.width() / w, vp.height() / h), rel=0.02)


def test_pdf_search_finds_a_known_word_on_its_page(window, qtbot):
    if not shutil.which("pdftotext"):
        pytest.skip("poppler-utils (pdftotext) is not installed")
    from tests.support.gui_support import SAMPLE_MEDIA
    pdf = SAMPLE_MEDIA / "docs" / "osha_factsheet_lockout_tagout_2002.pdf"
    # poppler, independently of PyMuPDF: on which pages does "energy-isolating" occur?
    pages = []
    for page in (1, 2):
        text = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"],
                              capture_output=True, text=True, check=True).stdout
        if "energy-isolating" in text.lower():
            pages.append(page)
    assert pages
    open_media(window, qtbot, pdf.name)
    assert window.frame_label.text() == "page 1 / 2"
    n = window.view.document.find("energy-isolating")
    assert n >= len(pages)
    assert f"(page {pages[0]})" in window.view.document.hit_label.text()
    assert window.view.document.page == pages[0] - 1
    assert window.view.document.canvas._highlights, "hits are highlighted on the page"
    qtbot.keyClick(window.view.document, Qt.Key.Key_PageDown)
    assert window.view.document.page == min(pages[0], 1)


def test_library_filter_search_and_badges(window, qtbot):
    lib = window.library
    assert len(lib.visible_ids()) == 11
    lib.kind.setCurrentIndex(1)  # videos
    assert len(lib.visible_ids()) == 6
    lib.kind.setCurrentIndex(0)
    lib.search.setText("PPE_")
    assert len(lib.visible_ids()) == 3
    lib.search.clear()
    texts = [lib.proxy.index(r, 0).data() for r in range(lib.proxy.rowCount())]
    assert any(t.startswith("vfr.mp4") and "VFR" in t for t in texts)
    assert any(t.startswith("rot90.mp4") and "rotated 90°" in t for t in texts)


def test_missing_file_is_badged_and_explained(qtbot, clips, tmp_path):
    import shutil as sh
    clip = tmp_path / "gone.mp4"
    sh.copyfile(clips["cfr_bframes"], clip)
    from fieldstudio.media import library
    with Project.create(tmp_path / "m.fieldstudio") as p:
        library.add_paths(p, [clip])
    clip.unlink()
    w = MainWindow(Project.open(tmp_path / "m.fieldstudio"))
    qtbot.addWidget(w)
    w.show()
    assert "missing file" in w.library.proxy.index(0, 0).data()
    w.library.select(w.library.visible_ids()[0])
    qtbot.waitUntil(lambda: "missing" in w.view.empty.text())
    assert w.properties.value("State") == "missing file"
    w.close()


def test_huge_photo_opens_from_a_reduced_preview_in_full_resolution_coordinates(qtbot, tmp_path):
    import cv2
    img = np.full((12000, 12000, 3), 200, np.uint8)
    cv2.rectangle(img, (6000, 6000), (6400, 6300), (0, 0, 255), -1)
    big = tmp_path / "huge_12000.jpg"
    assert cv2.imwrite(str(big), img, [cv2.IMWRITE_JPEG_QUALITY, 60])
    del img
    from fieldstudio.media import library
    with Project.create(tmp_path / "h.fieldstudio") as p:
        library.add_paths(p, [big])
    w = MainWindow(Project.open(tmp_path / "h.fieldstudio"))
    qtbot.addWidget(w)
    w.show()
    open_media(w, qtbot, big.name)
    qtbot.waitUntil(lambda: not w.view.canvas.image().isNull(), timeout=20000)
    assert max(w.view.canvas.image().width(), w.view.canvas.image().height()) <= 8192
    assert w.view.canvas.image_size() == (12000, 12000)
    w.view.canvas.set_zoom(1.0)
    qtbot.wait(50)  # let the scroll bars appear before centring
    w.view.canvas.centerOn(6200.0, 6150.0)
    target = w.view.canvas.mapFromScene(QPointF(6200.0, 6150.0))
    qtbot.mouseMove(w.view.canvas.viewport(), target + QPoint(30, 30))
    qtbot.mouseMove(w.view.canvas.viewport(), target)
    x, y = _pointer(w)
    assert math.isclose(x, 6200, abs_tol=1.5) and math.isclose(y, 6150, abs_tol=1.5)
    w.close()


@pytest.mark.parametrize("vlc", [True, False], ids=["libvlc", "decoder"])
def test_playing_to_the_end_stops_on_the_last_frame(window, qtbot, vlc, monkeypatch):
    if not vlc:
        monkeypatch.setenv("FIELDSTUDIO_NO_VLC", "1")
    else:
        from fieldstudio.gui.viewer.vlc_playback import vlc_unavailable_reason
        if vlc_unavailable_reason():
            pytest.skip(vlc_unavailable_reason())
    open_media(window, qtbot, "cfr_bframes.mp4")  # 300 frames, 10 s
    window.go_to("#270")
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not window.view.video.playing, timeout=10000)
    wait_idle(window, qtbot)
    assert window.frame_label.text() == "frame 299 / 299"
    assert read_barcode(shown_rgb(window)) == 299
