"""A polygon kept in a track in the real window (issue 32 item 1), on the demo's real worker clip: the frames
between two keyframes show it interpolated vertex by vertex (dashed, values worked out by hand), dragging a vertex
there makes that frame a keyframe in one undo step, Shift+K extends the track to a later frame, and keyframes of
different vertex counts are not interpolated, Properties saying why."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import box_tracks, shape_tracks
from fieldstudio.gui.viewer.shape_items import ShapeItem
from fieldstudio.media import library
from tests.support.gui_support import wait_idle

pytestmark = pytest.mark.gui
CLIP = "worker_zone_hardhat_vest_from_gif.mp4"   # 480 x 270, 71 frames
FIRST = [[50.0, 100.0], [130.0, 90.0], [150.0, 140.0], [90.0, 170.0]]
LAST = [[70.0, 110.0], [150.0, 100.0], [170.0, 160.0], [110.0, 180.0]]   # each vertex +20 x, +10/+10/+20/+10 y


def _at(window, x: float, y: float) -> QPoint:  # noqa: ANN001
    return window.view.canvas.mapFromScene(QPointF(x, y))


def _show(window, qtbot, media_id: str, frame: int) -> None:  # noqa: ANN001
    window.state.request_frame(media_id, frame)
    qtbot.waitUntil(lambda: window.state.media is not None and window.state.frame_index == frame, timeout=10000)
    wait_idle(window, qtbot)


def _shape_items(window) -> list[ShapeItem]:  # noqa: ANN001
    return [i for i in window.annotator.marks.items if isinstance(i, ShapeItem)]


@pytest.fixture
def tracked(demo_window, qtbot):
    w = demo_window
    p = w.state.project
    video = library.find_media(p, CLIP)
    track = box_tracks.next_track_id(p, video.id)
    ann.add_shape(p, video.id, "polygon", FIRST, frame_index=10, track_id=track)
    ann.add_shape(p, video.id, "polygon", LAST, frame_index=18, track_id=track)
    w.actions["select_tool"].trigger()
    return w, video.id, track


def test_an_interpolated_polygon_is_drawn_between_keyframes_and_a_vertex_drag_keys_the_frame(tracked, qtbot):
    w, media_id, track = tracked
    p = w.state.project
    _show(w, qtbot, media_id, 12)
    (item,) = _shape_items(w)
    # t = (12 - 10) / (18 - 10) = 1/4: (50 + 5, 100 + 2.5), (130 + 5, 90 + 2.5), (150 + 5, 140 + 5), (90 + 5, 172.5)
    assert item.annotation_id is None and not item.keyframe and item.track_id == track
    assert item.vertex_list() == [[55.0, 102.5], [135.0, 92.5], [155.0, 145.0], [95.0, 172.5]]
    assert "(interpolated)" in item.caption.text() and "interpolated" in item.toolTip()
    w.view.canvas.set_zoom(2.0)
    w.view.canvas.centerOn(110.0, 135.0)
    qtbot.wait(20)
    vp = w.view.canvas.viewport()
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, pos=_at(w, 100.0, 130.0))   # inside: selects it
    qtbot.waitUntil(lambda: item.isSelected(), timeout=3000)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, pos=_at(w, 155.0, 145.0))
    QTest.mouseMove(vp, _at(w, 160.0, 148.0))
    QTest.mouseMove(vp, _at(w, 165.0, 150.0))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=_at(w, 165.0, 150.0))
    keys = shape_tracks.shape_keyframes(p, media_id, track)
    assert [k.frame_index for k in keys] == [10, 12, 18]
    assert keys[1].geometry[2] == pytest.approx([165.0, 150.0], abs=0.51) and keys[1].geometry[0] == [55.0, 102.5]
    assert w.annotator.undo_stack.text(w.annotator.undo_stack.count() - 1) == "Move vertex"
    qtbot.keyClick(w.view.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert [k.frame_index for k in shape_tracks.shape_keyframes(p, media_id, track)] == [10, 18]


def test_shift_k_extends_the_selected_shapes_track_to_a_later_frame(tracked, qtbot):
    w, media_id, track = tracked
    p = w.state.project
    last = shape_tracks.shape_keyframes(p, media_id, track)[-1]
    w.annotator.marks.select_on_refresh(last.id)
    _show(w, qtbot, media_id, 18)
    qtbot.waitUntil(lambda: w.state.selection == (last.id,), timeout=5000)
    _show(w, qtbot, media_id, 26)
    assert _shape_items(w) == []
    w.actions["make_keyframe"].trigger()
    keys = shape_tracks.shape_keyframes(p, media_id, track)
    assert [k.frame_index for k in keys] == [10, 18, 26] and keys[-1].geometry == LAST
    _show(w, qtbot, media_id, 22)
    (item,) = _shape_items(w)
    assert not item.keyframe and item.vertex_list() == LAST   # both keyframes alike: the same shape between


def test_keyframes_of_different_vertex_counts_are_not_interpolated_and_properties_say_why(tracked, qtbot):
    w, media_id, track = tracked
    p = w.state.project
    last = shape_tracks.shape_keyframes(p, media_id, track)[-1]
    ann.update(p, last.id, geometry=LAST[:3])
    _show(w, qtbot, media_id, 14)
    assert _shape_items(w) == []
    w.annotator.marks.select_on_refresh(last.id)
    _show(w, qtbot, media_id, 18)
    qtbot.waitUntil(lambda: w.state.selection == (last.id,), timeout=5000)
    text = w.properties.mark.track.text()
    assert text.startswith(f"#{track}: keyframes 10–18 (2)") and "4 vertices" in text and "3 vertices" in text
