"""While the playhead is held during a drag, the viewer decodes the exact frame under it (after the keyframe
preview), so the release finds it decoded; a move on stops that decode. The barcode in each frame is the reference."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from fieldstudio.gui.viewer.frame_loader import FrameRequest
from tests.support.gui_support import open_media, shown_rgb, wait_idle
from tests.support.video_fixtures import read_barcode

pytestmark = pytest.mark.gui


def test_the_frame_under_a_held_playhead_is_decoded_before_the_release(window, qtbot):
    mid = open_media(window, qtbot, "cfr_bframes.mp4")
    tl, media = window.view.timeline, window.state.media
    y = tl.height() - 10
    qtbot.mousePress(tl, Qt.MouseButton.LeftButton, pos=QPoint(20, y))
    x = int(tl.width() * 0.6)
    for step in (int(tl.width() * 0.3), x):
        qtbot.mouseMove(tl, QPoint(step, y))
        qtbot.wait(5)
    wait_idle(window, qtbot)  # the preview shown, and the decode ahead done, with the button still down
    index = tl.index_at_x(x)
    table = window.view.video.table
    assert table.keyframe_at_or_before(index) != index  # a frame the preview does not show
    assert "~" in window.frame_label.text()  # still the preview on screen
    # decoded already: asking for it with a decode that must stop at once finds it cached
    assert window.view.loader.source.decode(media, index, lambda: True) is True
    qtbot.mouseRelease(tl, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
    wait_idle(window, qtbot)
    assert window.state.media.id == mid
    assert window.state.frame_index == index and "~" not in window.frame_label.text()
    assert read_barcode(shown_rgb(window)) == index


def test_a_preview_is_stopped_by_a_request_of_another_group_of_pictures_only(window, qtbot):
    """The stop() a keyframe preview decodes with: a newer request of another group of pictures (the release of a
    quick drag elsewhere) stops it; one of the same group (which decodes on from that keyframe) does not."""
    open_media(window, qtbot, "cfr_bframes.mp4")
    loader, media = window.view.loader, window.state.media
    table = window.view.video.table
    assert table.keyframe_at_or_before(100) == 60 and table.keyframe_at_or_before(130) == 120
    stop = loader._elsewhere(media, 60)
    assert stop() is False  # nothing newer
    with loader._cond:  # a request queued but not taken, as the thread is busy with the preview
        loader._pending = FrameRequest(media.id, 100, True, 0, media)
        assert stop() is False  # same group: the release goes on from the preview's keyframe
        loader._pending = FrameRequest(media.id, 130, True, 0, media)
        assert stop() is True  # another group: the preview is left
        loader._pending = FrameRequest("another clip", 100, True, 0, media)
        assert stop() is True
        loader._pending = None
