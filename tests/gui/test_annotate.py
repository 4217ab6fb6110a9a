"""Annotating in the real main window: boxes, rulers, calibration, segments, events, undo, labels.

Positions are given in image pixels and turned into screen positions with Qt's own scene mapping, so a
box drawn from image point A to B must be stored as A..B whatever the zoom; stored rows are read back
through the store, not from the widgets.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from fieldstudio.annotations import calibrations
from fieldstudio.annotations import edits
from fieldstudio.annotations import labels
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.gui.main_window import MainWindow
from tests.support.gui_support import copy_project, media_id, open_media, wait_idle

pytestmark = pytest.mark.gui
PHOTO = "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"  # 480 x 270


def _at(window, x: float, y: float) -> QPoint:
    return window.view.canvas.mapFromScene(QPointF(x, y))


def drag(window, qtbot, a: tuple[float, float], b: tuple[float, float]) -> None:
    """Press at image point a, move in steps, release at b (as a hand would)."""
    vp = window.view.canvas.viewport()
    pa, pb = _at(window, *a), _at(window, *b)
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=pa)
    for t in (0.3, 0.6, 1.0):
        qtbot.mouseMove(vp, QPoint(round(pa.x() + (pb.x() - pa.x()) * t), round(pa.y() + (pb.y() - pa.y()) * t)))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=pb)


def boxes(window, **kw) -> list[ann.AnnotationRecord]:
    return ann.list_annotations(window.state.project, media_id=window.state.media.id, kinds=["box"], **kw)


@pytest.mark.parametrize("zoom", [0.25, 1.0, 4.0])
def test_box_drawn_at_any_zoom_is_stored_in_image_pixels(window, qtbot, zoom):
    open_media(window, qtbot, PHOTO)
    window.view.canvas.set_zoom(zoom)
    qtbot.wait(50)
    window.view.canvas.centerOn(140.0, 110.0)
    qtbot.wait(20)
    window.actions["box_tool"].trigger()
    drag(window, qtbot, (100.0, 80.0), (180.0, 140.0))
    (box,) = boxes(window)
    tol = 1.0 / zoom + 0.01  # a screen pixel is 1/zoom image pixels; mapFromScene rounds to whole pixels
    for got, want in zip(box.geometry, (100.0, 80.0, 180.0, 140.0)):
        assert got == pytest.approx(want, abs=tol)
    assert box.frame_index is None and box.track_id is None


def test_undo_and_redo_round_trip_through_the_project(window, qtbot):
    open_media(window, qtbot, PHOTO)
    window.actions["box_tool"].trigger()
    drag(window, qtbot, (50.0, 40.0), (120.0, 100.0))
    assert len(boxes(window)) == 1
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert boxes(window) == []
    assert [b.deleted for b in boxes(window, include_deleted=True)] == [True]
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert len(boxes(window)) == 1
    # what is drawn is what is stored
    drawn = [i for i in window.annotator.marks.items if hasattr(i, "rect")]
    assert len(drawn) == 1 and drawn[0].annotation_id == boxes(window)[0].id


def test_move_and_resize_a_box_by_dragging(window, qtbot):
    open_media(window, qtbot, PHOTO)
    window.view.canvas.set_zoom(1.0)
    qtbot.wait(50)
    window.view.canvas.centerOn(150.0, 120.0)
    window.actions["box_tool"].trigger()
    drag(window, qtbot, (100.0, 80.0), (180.0, 140.0))
    window.actions["select_tool"].trigger()
    qtbot.mouseClick(window.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(window, 140.0, 110.0))
    drag(window, qtbot, (140.0, 110.0), (160.0, 120.0))  # move by (+20, +10) image pixels at 1:1
    (box,) = boxes(window)
    assert box.geometry == pytest.approx([120.0, 90.0, 200.0, 150.0], abs=1.01)
    drag(window, qtbot, (200.0, 150.0), (230.0, 170.0))  # the bottom-right handle
    (box,) = boxes(window)
    assert box.geometry == pytest.approx([120.0, 90.0, 230.0, 170.0], abs=1.01)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert boxes(window)[0].geometry == pytest.approx([120.0, 90.0, 200.0, 150.0], abs=1.01)


def test_a_stored_box_moves_in_the_select_tool_before_any_tool_was_chosen(window, qtbot):
    """The canvas tools are built when the first media is shown, not with the window (issue 37's cold start):
    a mark already stored is moved and double-clicked into its editor as when they were built at start."""
    assert window.annotator._drawing is None  # the window is up, nothing shown yet
    mid = media_id(window, PHOTO)
    edits.AddBox(window.state.project, mid, (100.0, 80.0, 80.0, 60.0)).do()  # stored before the media is shown
    open_media(window, qtbot, PHOTO)
    assert window.annotator._drawing is not None and window.annotator.tool == "select"
    window.view.canvas.set_zoom(1.0)
    qtbot.wait(50)
    window.view.canvas.centerOn(150.0, 120.0)
    qtbot.mouseClick(window.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(window, 140.0, 110.0))
    drag(window, qtbot, (140.0, 110.0), (160.0, 120.0))  # move by (+20, +10) image pixels at 1:1
    (box,) = boxes(window)
    assert box.geometry == pytest.approx([120.0, 90.0, 200.0, 150.0], abs=1.01)


def test_label_keys_delete_and_edit(window, qtbot):
    project = window.state.project
    vest_id = labels.create_label(project, "no vest", "#e53935", 2)
    open_media(window, qtbot, PHOTO)
    window.actions["box_tool"].trigger()
    drag(window, qtbot, (20.0, 20.0), (60.0, 90.0))
    window.actions["select_tool"].trigger()
    qtbot.mouseClick(window.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(window, 40.0, 50.0))
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_2)
    assert boxes(window)[0].label_id == vest_id
    assert window.annotator.label_id == vest_id
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Delete)
    assert boxes(window) == []


def test_ruler_reads_pixels_until_calibrated_then_metres(window, qtbot):
    open_media(window, qtbot, PHOTO)
    window.view.canvas.set_zoom(1.0)
    qtbot.wait(50)
    window.view.canvas.centerOn(150.0, 120.0)
    window.actions["ruler_tool"].trigger()
    drag(window, qtbot, (100.0, 100.0), (200.0, 100.0))
    (ruler,) = ann.list_annotations(window.state.project, media_id=window.state.media.id, kinds=["ruler"])
    item = next(i for i in window.annotator.marks.items if getattr(i, "annotation_id", None) == ruler.id)
    length_px = ruler.geometry[1][0] - ruler.geometry[0][0]
    assert item.text.text() == f"{length_px:.0f} px (uncalibrated)"
    assert "calibrate with C" in window.statusBar().currentMessage()
    # a scale calibration: 50 px = 1.0 m, so the ruler is length_px / 50 metres
    assert window.annotator.apply(edits.SaveCalibration(window.state.project, kind="scale", points=[(0, 0), (50, 0)],
                                                        media_id=window.state.media.id, length_m=1.0))
    item = next(i for i in window.annotator.marks.items if getattr(i, "annotation_id", None) == ruler.id)
    assert item.text.text() == f"{length_px / 50:.2f} m (scale)"
    assert calibrations.measure_ruler(window.state.project, ruler.id).metres == pytest.approx(length_px / 50)


def test_segment_and_event_keys_land_on_the_exact_frame_shown(window, qtbot):
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.go_to("#5")
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_I)
    window.go_to("#12")
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_E)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_O)
    (seg,) = ann.list_annotations(window.state.project, media_id=window.state.media.id, kinds=["segment"])
    (ev,) = ann.list_annotations(window.state.project, media_id=window.state.media.id, kinds=["event"])
    assert (seg.frame_index, seg.end_frame_index, ev.frame_index) == (5, 12, 12)
    assert [(m.start, m.end) for m in window.view.timeline._segments] == [(5, 12)]
    assert [m.index for m in window.view.timeline._events] == [12]
    # dragging the segment's end on the timeline moves it, undoably
    window.view.timeline.segment_end_moved.emit(seg.id, "end", 20)
    assert ann.get_annotation(window.state.project, seg.id).end_frame_index == 20
    window.actions["undo"].trigger()
    assert ann.get_annotation(window.state.project, seg.id).end_frame_index == 12


def test_copy_box_to_next_frame_and_interpolated_boxes(window, qtbot):
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.go_to("#10")
    wait_idle(window, qtbot)
    window.actions["box_tool"].trigger()
    drag(window, qtbot, (40.0, 40.0), (100.0, 80.0))
    (first,) = boxes(window)
    assert first.frame_index == 10 and first.track_id is not None
    window.actions["select_tool"].trigger()
    qtbot.mouseClick(window.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(window, 70.0, 60.0))
    window.actions["copy_next"].trigger()
    wait_idle(window, qtbot)
    assert window.view.video.target == 11
    copy = [b for b in ann.list_annotations(window.state.project, media_id=window.state.media.id, kinds=["box"])
            if b.frame_index == 11]
    assert len(copy) == 1 and copy[0].geometry == pytest.approx(first.geometry) and copy[0].track_id == first.track_id
    # a keyframe moved on frame 20 makes frames 12..19 interpolated, drawn dashed
    window.go_to("#20")
    wait_idle(window, qtbot)
    assert window.annotator.apply(edits.AddBox(window.state.project, window.state.media.id, (80.0, 40.0, 60.0, 40.0),
                                               frame_index=20, track_id=first.track_id))
    window.go_to("#15")
    wait_idle(window, qtbot)
    shown = [i for i in window.annotator.marks.items if hasattr(i, "keyframe")]
    assert len(shown) == 1 and not shown[0].keyframe
    # linear interpolation of x1 between the copy on frame 11 and x1 = 80 on frame 20, 4/9 of the way
    x11 = first.geometry[0]
    assert shown[0].rect.x() == pytest.approx(x11 + (80.0 - x11) * 4 / 9, abs=0.01)


def test_calibrate_key_picks_points_and_the_dialog_saves_a_scale(window, qtbot):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    open_media(window, qtbot, PHOTO)
    window.view.canvas.set_zoom(1.0)
    qtbot.wait(50)
    window.view.canvas.centerOn(150.0, 120.0)
    seen = {}

    def fill_dialog():
        dialog = QApplication.activeModalWidget()
        seen["title"] = dialog.windowTitle()
        dialog.length_m.setValue(2.0)
        dialog.scope_media.setChecked(True)
        dialog.ok_button.click()

    qtbot.keyClick(window.view.canvas, Qt.Key.Key_C)
    assert window.annotator.tool == "scale"
    qtbot.mouseClick(window.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(window, 100.0, 50.0))
    QTimer.singleShot(300, fill_dialog)
    qtbot.mouseClick(window.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(window, 200.0, 50.0))
    qtbot.waitUntil(lambda: "title" in seen, timeout=5000)
    record = calibrations.calibration_for(window.state.project, window.state.media.id, "scale")
    assert record is not None and record.length_m == pytest.approx(2.0)
    (p, q) = record.points
    assert q[0] - p[0] == pytest.approx(100.0, abs=1.01) and p[1] == pytest.approx(50.0, abs=1.01)
    # a 100 px reference of 2 m: a ruler of 50 px reads 1 m
    m = calibrations.measure_points(window.state.project, window.state.media.id, (0, 0), (50, 0))
    assert m.metres == pytest.approx(50 * 2.0 / (q[0] - p[0]))
    assert window.annotator.tool == "select"
    window.actions["undo"].trigger()
    assert calibrations.calibration_for(window.state.project, window.state.media.id, "scale") is None


def test_marks_attach_to_the_frame_on_screen_when_a_frame_fails_to_decode(window, qtbot):
    from fieldstudio.core.errors import MediaError

    open_media(window, qtbot, "cfr_bframes.mp4")
    window.go_to("#5")
    wait_idle(window, qtbot)
    source, real_get = window.view.loader.source, window.view.loader.source.get_bgra

    # a damaged stretch of the file, as a half-copied clip has
    def get_bgra(media, index=0, within=None):  # noqa: ANN001
        if index >= 200:
            raise MediaError("clip.mp4", f"frame {index} could not be decoded")
        return real_get(media, index, within)

    source.get_bgra = get_bgra  # the loader decodes the screen's picture through get_bgra
    window.go_to("#280")  # cannot be decoded: the picture stays on frame 5, and so does the position
    wait_idle(window, qtbot)
    assert "could not be decoded" in window.statusBar().currentMessage()
    assert window.state.frame_index == 5 and window.view.video.target == 5
    window.actions["box_tool"].trigger()
    drag(window, qtbot, (20.0, 20.0), (60.0, 50.0))
    assert [b.frame_index for b in boxes(window)] == [5]


def test_points_picked_for_a_calibration_do_not_follow_to_another_media(window, qtbot):
    open_media(window, qtbot, PHOTO)
    window.actions["calibrate"].trigger()
    window.actions["calibrate"].trigger()
    assert window.annotator.tool == "floor"
    qtbot.mouseClick(window.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(window, 10.0, 10.0))
    qtbot.mouseClick(window.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(window, 300.0, 10.0))
    open_media(window, qtbot, "cfr_bframes.mp4")
    assert window.annotator.tool == "select" and window.annotator.drawing._picked is None


def test_a_second_start_or_event_on_the_same_frame_is_refused(window, qtbot):
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.go_to("#10")
    wait_idle(window, qtbot)
    for key in (Qt.Key.Key_I, Qt.Key.Key_I, Qt.Key.Key_E, Qt.Key.Key_E):
        qtbot.keyClick(window.view.canvas, key)
    kinds = [r.kind for r in ann.list_annotations(window.state.project, media_id=window.state.media.id,
                                                  kinds=["segment", "event"])]
    assert sorted(kinds) == ["event", "segment"]
    assert "already marked on frame 10" in window.statusBar().currentMessage()


def test_evaluation_tabs_stay_shut_on_the_welcome_screen(qtbot):
    w = MainWindow(None)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    for action in w.workspace.tab_actions[1:]:
        action.trigger()
        assert w.modes.currentIndex() == 0
    assert w.workspace.panels == {}
    w.close()


def test_opening_another_project_asks_about_open_segments(window, qtbot, viewer_template, tmp_path):
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.go_to("#3")
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_I)
    asked = []
    window.annotator.confirm_open_segments = lambda: asked.append(1) or False  # the user presses Cancel
    other = copy_project(viewer_template, tmp_path / "other.fieldstudio")
    assert window.open_project_path(other) is False
    assert asked == [1] and window.state.project.path.name == viewer_template.name
    window.annotator.confirm_open_segments = lambda: True


def test_esc_clears_the_tool_hint(window, qtbot):
    open_media(window, qtbot, PHOTO)
    window.actions["box_tool"].trigger()
    assert window.statusBar().currentMessage().startswith("Box:")
    window.actions["select_tool"].trigger()
    assert window.statusBar().currentMessage() == ""


def test_the_marks_of_the_frame_asked_for_are_read_while_it_decodes_and_an_edit_meanwhile_is_drawn(
        window, qtbot, monkeypatch):
    """Releasing the playhead asks for an exact frame: its boxes (and its tags, in the same read) are read at once
    (the decoder works on its own thread meanwhile) and drawn from that read when the picture arrives. A box added
    before the picture arrives is drawn too: an edit drops the read made before it."""
    from fieldstudio.annotations import frame_contents, rows

    open_media(window, qtbot, "cfr_bframes.mp4")
    p, mid = window.state.project, window.state.media.id
    reads, tag_reads = [], []
    real = frame_contents.read_frame
    monkeypatch.setattr(frame_contents, "read_frame", lambda *a: reads.append(a[2]) or real(*a))
    real_tags = rows.tags_at
    monkeypatch.setattr(rows, "tags_at", lambda *a: tag_reads.append(a[2]) or real_tags(*a))
    window.view.timeline.released.emit(12)
    assert reads == [12] and window.state.frame_decoding == 12      # read before the picture is decoded
    qtbot.waitUntil(lambda: window.state.frame_index == 12 and window.state.frame_exact, timeout=10000)
    # the picture drew the marks, and the tags panel listed the tags, from the one read made ahead
    assert reads == [12] and tag_reads == [] and window.state.frame_decoding is None

    window.view.timeline.released.emit(20)
    assert reads[-1] == 20
    # the picture of frame 20 is queued, not yet shown: a box added now must not be lost by the read ahead
    assert window.annotator.apply(edits.AddBox(p, mid, (80.0, 40.0, 60.0, 40.0), frame_index=20))
    qtbot.waitUntil(lambda: window.state.frame_index == 20, timeout=10000)
    wait_idle(window, qtbot)
    boxes = [i for i in window.annotator.marks.items if hasattr(i, "keyframe")]
    assert [(b.rect.x(), b.rect.y(), b.rect.width(), b.rect.height()) for b in boxes] == [(80.0, 40.0, 60.0, 40.0)]
