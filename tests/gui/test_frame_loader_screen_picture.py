"""An exact video frame is shown first at the size it takes on screen, and its full-resolution picture follows once
that one is painted (issue 37 item 6). The barcode in each frame is the reference: it is read, independently of
fieldstudio, from the full picture and from the screen-sized one scaled back up by OpenCV."""

from __future__ import annotations

import cv2
import pytest

from fieldstudio.gui.imaging import rgb_from_qimage
from fieldstudio.gui.viewer import frame_loader
from fieldstudio.gui.viewer.frame_loader import FrameLoader
from fieldstudio.media.frames import FrameSource
from tests.support.gui_support import copy_project, open_media, shown_rgb, wait_idle
from tests.support.video_fixtures import H, W, read_barcode

pytestmark = pytest.mark.gui


def _barcode_of(image) -> int:  # noqa: ANN001 - QImage
    rgb = rgb_from_qimage(image)
    if rgb.shape[:2] != (H, W):
        rgb = cv2.resize(rgb, (W, H), interpolation=cv2.INTER_LINEAR)
    return read_barcode(rgb)


def _record(window):  # noqa: ANN001, ANN202 - MainWindow -> list of (what, size or None, token or None)
    seen: list[tuple] = []
    loader, canvas = window.view.loader, window.view.canvas
    loader.frame_ready.connect(lambda token, _m, index, exact, image: seen.append(
        ("frame", index, exact, (image.width(), image.height()), token, image)))
    loader.detail_ready.connect(lambda token, _m, index, image: seen.append(
        ("detail", index, None, (image.width(), image.height()), token, image)))
    canvas.picture_painted.connect(lambda: seen.append(("painted", None, None, None, None, None)))
    return seen


def test_a_zoomed_out_frame_is_shown_at_screen_size_then_its_full_picture_follows_the_paint(window, qtbot):
    open_media(window, qtbot, "cfr_bframes.mp4")
    canvas = window.view.canvas
    canvas.set_zoom(0.5)
    assert canvas.render_size((W, H)) == (W // 2, H // 2)
    seen = _record(window)
    window.go_to("#100")
    wait_idle(window, qtbot)
    frames = [s for s in seen if s[0] == "frame"]
    details = [s for s in seen if s[0] == "detail"]
    assert [(f[1], f[2], f[3]) for f in frames] == [(100, True, (W // 2, H // 2))]
    assert [(d[1], d[3], d[4]) for d in details] == [(100, (W, H), frames[0][4])]
    assert _barcode_of(frames[0][5]) == 100 and _barcode_of(details[0][5]) == 100
    # the full picture was made after the screen-sized one was on screen, not beside its paint
    kinds = [s[0] for s in seen]
    assert kinds.index("painted") < kinds.index("detail")
    # image() is the full picture; the screen-sized one stays drawn while the zoom needs no more pixels
    assert canvas.image().size().toTuple() == (W, H) and read_barcode(shown_rgb(window)) == 100
    assert canvas._item.pixmap().size().toTuple() == (W // 2, H // 2)
    canvas.set_zoom(2.0)
    assert canvas._item.pixmap().size().toTuple() == (W, H)
    assert window.state.frame_index == 100


def test_at_full_size_an_exact_frame_comes_whole_and_alone(window, qtbot):
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.view.canvas.set_zoom(1.0)
    seen = _record(window)
    window.go_to("#37")
    wait_idle(window, qtbot)
    assert [(s[0], s[1], s[3]) for s in seen if s[0] != "painted"] == [("frame", 37, (W, H))]
    assert read_barcode(shown_rgb(window)) == 37


def test_a_newer_request_before_the_paint_drops_the_full_picture(window, qtbot):
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.view.canvas.set_zoom(0.5)
    seen = _record(window)
    window.go_to("#100")
    window.go_to("#220")  # in the same turn: the picture of 100, if made at all, is never painted
    wait_idle(window, qtbot)
    assert [s[1] for s in seen if s[0] == "detail"] == [220]
    assert read_barcode(shown_rgb(window)) == 220 and window.state.frame_index == 220


def test_with_no_window_to_paint_it_the_full_picture_comes_after_the_wait(qtbot, viewer_template, tmp_path):
    """A loader whose pictures nobody paints (a hidden window's): the full picture is made after DETAIL_WAIT_S."""
    from fieldstudio.media import library
    from fieldstudio.store.project import Project

    with Project.open(copy_project(viewer_template, tmp_path / "copy.fieldstudio")) as project:
        media = library.find_media(project, "cfr_bframes.mp4")
        loader = FrameLoader(FrameSource(project))
        try:
            with qtbot.waitSignal(loader.frame_ready, timeout=10000) as first:
                loader.request(media.id, 150, media=media, within=(W // 4, H // 4))
            with qtbot.waitSignal(loader.detail_ready, timeout=10000) as detail:
                pass
            token, _mid, index, exact, small = first.args
            assert (index, exact, small.width(), small.height()) == (150, True, W // 4, H // 4)
            assert detail.args[0] == token and detail.args[2] == 150 and _barcode_of(detail.args[3]) == 150
            assert frame_loader.DETAIL_WAIT_S <= 1.0  # the wait is a fallback, never a visible delay
        finally:
            loader.stop()


def test_a_video_opened_after_another_of_another_size_comes_at_the_size_it_is_fitted_to(window, qtbot):
    """The first picture of a video is made for the zoom it will be shown at: a video of another size than the one
    on show is fitted (``Canvas.set_image``), so the previous video's zoom says nothing about it. At a quarter of
    320 x 192 the rotated clip (192 x 320, fitted at more than 1:1) came 48 x 80 and was painted blown up."""
    open_media(window, qtbot, "cfr_bframes.mp4")
    canvas = window.view.canvas
    canvas.set_zoom(0.25)
    wait_idle(window, qtbot)
    seen = _record(window)
    painted: list[tuple[int, int]] = []
    canvas.picture_painted.connect(lambda: painted.append(canvas._item.pixmap().size().toTuple()))
    open_media(window, qtbot, "rot90.mp4")
    wait_idle(window, qtbot)
    fitted = canvas.render_size((H, W))
    assert canvas.zoom() > 1.0 and fitted == (H, W)
    frames = [s for s in seen if s[0] == "frame"]
    assert [(f[1], f[3]) for f in frames] == [(0, fitted)]
    assert painted and painted[0] == fitted  # the first paint already had every pixel it shows
    assert read_barcode(shown_rgb(window), 90) == 0


def test_the_paint_of_a_picture_lets_only_that_request_s_full_picture_go(window, qtbot):
    """A frame asked for before the paint of the one before (a held arrow key) waits for its own paint: the paint
    reports the request whose picture the canvas shows, not the newest request."""
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.view.canvas.set_zoom(0.5)
    loader = window.view.loader
    reported, arrived = [], {}
    real = loader.picture_shown
    loader.picture_shown = lambda token: (reported.append(token), real(token))

    def on_frame(token, _m, index, _exact, _image):  # noqa: ANN001
        arrived[index] = token
        if index == 100:
            window.go_to("#200")  # before the paint of frame 100

    loader.frame_ready.connect(on_frame)
    window.go_to("#100")
    wait_idle(window, qtbot)
    assert set(arrived) == {100, 200}
    assert reported and reported[0] == arrived[100]  # frame 100's paint speaks for frame 100 only
    assert set(reported) <= set(arrived.values())
    assert read_barcode(shown_rgb(window)) == 200
