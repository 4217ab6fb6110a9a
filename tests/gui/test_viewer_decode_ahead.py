"""While the playhead is held during a drag, the viewer decodes the exact frame under it (after the keyframe
preview), so the release finds it decoded; a move on stops that decode. Previews come from a decoder of their own, at
a lower priority. The barcode in each frame is the reference."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

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


def test_a_preview_is_stopped_by_any_newer_request_but_a_preview_of_its_own_keyframe(window, qtbot):
    """The stop() a keyframe preview decodes with: a newer request of an exact frame (the release of a quick drag),
    or a preview of another group of pictures or clip, stops it; a preview of the same keyframe does not (it then
    finds that keyframe decoded)."""
    open_media(window, qtbot, "cfr_bframes.mp4")
    loader, media = window.view.loader, window.state.media
    table = window.view.video.table
    assert table.keyframe_at_or_before(100) == 60 and table.keyframe_at_or_before(130) == 120
    with loader._cond:  # nothing is taken while the lock is held: the requests stay queued
        preview = FrameRequest(media.id, 70, False, loader._token, media)
        stop = loader._preview_stop(preview, media)
        assert stop() is False  # nothing newer
        loader._token += 1
        loader._preview = FrameRequest(media.id, 100, False, loader._token, media)
        assert stop() is False  # a preview of the same keyframe
        loader._preview = FrameRequest(media.id, 130, False, loader._token, media)
        assert stop() is True  # another group of pictures
        loader._preview = FrameRequest("another clip", 100, False, loader._token, media)
        assert stop() is True
        loader._preview = None  # an exact frame asked for (queued for the other thread, or taken by it)
        assert stop() is True
        loader._token -= 1  # as it was: the window's next request must not reuse a token


def test_previews_are_decoded_beside_the_exact_decoder_not_by_it(window, qtbot):
    """A preview comes from the video's preview reader, a second decoder of the same file: the exact decoder is
    neither moved nor filled by it (so the release of a quick drag never waits for a preview to let go of it)."""
    open_media(window, qtbot, "cfr_bframes.mp4")
    loader, media = window.view.loader, window.state.media
    exact = loader.source.reader(media)
    exact._cache.clear()
    previews: list[tuple[int, bool]] = []
    loader.frame_ready.connect(lambda _t, _m, index, is_exact, image: previews.append((index, is_exact)))
    loader.request(media.id, 130, exact=False, media=media)
    qtbot.waitUntil(lambda: bool(previews), timeout=10000)
    assert previews[0] == (120, False)
    _, preview_reader = loader.source._previews[media.id]
    assert preview_reader is not exact and 120 in preview_reader._cache
    assert 120 not in exact._cache  # a preview decoded nothing in the exact decoder
    wait_idle(window, qtbot)  # the decode ahead, after the preview stayed on screen, uses the exact decoder
    assert 130 in exact._cache


def test_a_playhead_still_moving_is_not_decoded_ahead(window, qtbot, monkeypatch):
    """The exact frame under the playhead is decoded once its preview has stayed on screen AHEAD_DELAY_S with
    nothing newer asked for: previews asked for closer together than that start no decode ahead."""
    from fieldstudio.gui.viewer import frame_loader

    monkeypatch.setattr(frame_loader, "AHEAD_DELAY_S", 1.0)  # longer than any wait below, on a loaded machine too
    open_media(window, qtbot, "cfr_bframes.mp4")
    loader, media = window.view.loader, window.state.media
    decoded: list[int] = []
    real = loader.source.decode
    loader.source.decode = lambda m, index, stop: (decoded.append(index), real(m, index, stop))[1]
    shown: list[int] = []
    loader.frame_ready.connect(lambda _t, _m, index, _e, _i: shown.append(index))
    for index in (70, 130, 190):  # three groups of pictures, each previewed, none held
        loader.request(media.id, index, exact=False, media=media)
        qtbot.waitUntil(lambda index=index: bool(shown) and shown[-1] == index - 10, timeout=10000)
        assert not decoded
    wait_idle(window, qtbot)
    assert decoded == [190]  # only the position the playhead stayed at


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice is per thread on Linux only")
def test_previews_run_at_a_lower_priority_with_their_decoder_threads(window, qtbot):
    """The preview thread, and the decoder threads it starts (frame threading), run PREVIEW_NICE above the rest of
    the process; read from /proc, as ps and top do."""
    from fieldstudio.gui.viewer import frame_loader

    open_media(window, qtbot, "cfr_bframes.mp4")
    loader, media = window.view.loader, window.state.media
    loader.request(media.id, 130, exact=False, media=media)
    wait_idle(window, qtbot)

    def nice(tid: int) -> int:
        stat = Path(f"/proc/self/task/{tid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2:].split()[16])  # field 19 of proc(5), counted after the name

    base = nice(threading.get_native_id())
    assert nice(loader._preview_thread.native_id) == min(19, base + frame_loader.PREVIEW_NICE)
    assert nice(loader._thread.native_id) == base
    lowered = [int(t.name) for t in Path("/proc/self/task").iterdir()
               if nice(int(t.name)) == min(19, base + frame_loader.PREVIEW_NICE)]
    assert len(lowered) > 1  # the preview thread and the decoder threads it started


def test_playback_starting_during_a_preview_leaves_the_decoders_closed(window, qtbot):
    """libVLC starting (``free_memory``) while the preview of a held playhead is being decoded: the preview stops and
    neither it nor a decode ahead after it opens a decoder again while libVLC plays. Before, the exact thread took the
    free (clearing ``_free``) before the preview thread looked, so the preview decoded its keyframe again into the
    reader just closed and armed a decode ahead that reopened the exact decoder: both open during playback (at 4K
    +250-300 MB resident)."""
    from fieldstudio.gui.viewer import frame_loader

    open_media(window, qtbot, "cfr_bframes.mp4")
    loader, media = window.view.loader, window.state.media
    source = loader.source
    entered, go, closed = threading.Event(), threading.Event(), threading.Event()
    real_preview, real_close = source.preview_bgra, source.close

    def held_preview(m, index, within, stop):  # noqa: ANN001, ANN202
        entered.set()
        go.wait(10)
        return real_preview(m, index, within, stop)

    def close() -> None:
        real_close()
        closed.set()

    source.preview_bgra, source.close = held_preview, close
    loader.request(media.id, 130, exact=False, media=media)  # the playhead held at 130: its preview in flight
    assert entered.wait(10)
    loader.free_memory()  # Space: libVLC takes over (VideoController._start_vlc)
    assert closed.wait(10)  # the exact thread closed the decoders
    go.set()
    wait_idle(window, qtbot)
    qtbot.wait(int(frame_loader.AHEAD_DELAY_S * 1000) + 100)  # a decode ahead, if one were armed, has started
    wait_idle(window, qtbot)
    readers = list(source._readers.values()) + [p for _, p in source._previews.values()]
    assert all(r._container is None and not r._cache for r in readers), \
        [(r is source._readers.get(media.id), r._container is not None, sorted(r._cache)) for r in readers]
