"""Correcting and tracking boxes in the real main window (issue 20 item 5).

An interpolated box of a track is selected and dragged with the mouse: it becomes a keyframe where it was
dropped, and one undo takes it back. Track forward (T) runs the tracker on a worker over the generated
clip of ``tests.support.tracking_clips`` and stores one undoable stretch; stored rows are read through the store.
"""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.media import library, thumbnails, video_index
from fieldstudio.store.project import Project
from tests.support.gui_support import open_media, shown_window, wait_idle
from tests.support.tracking_clips import iou, make_clip, truth

pytestmark = pytest.mark.gui
CLIP = "wave.mp4"


@pytest.fixture(scope="module")
def tracking_template(tmp_path_factory):
    """A project with the 60-frame "wave" clip of tests/support/tracking_clips.py beside it, indexed."""
    folder = tmp_path_factory.mktemp("gui_tracking")
    clip = make_clip(folder / CLIP, "wave", frames=60)
    path = folder / "tracking.fieldstudio"
    with Project.create(path, name="tracking test") as p:
        report = library.add_paths(p, [clip])
        video_index.index_videos(p, report.media_ids)
        thumbnails.make_thumbnails(p, report.media_ids)
    return path


@pytest.fixture
def tracking_window(qtbot, tracking_template, tmp_path):
    """The main window on a copy of ``tracking_template`` (and of its clip), shown at 1280 x 800."""
    shutil.copyfile(tracking_template.with_name(CLIP), tmp_path / CLIP)  # the media path is stored beside the project
    w = shown_window(qtbot, tracking_template, tmp_path)
    yield w
    w.close()


def _at(window, x: float, y: float) -> QPoint:
    return window.view.canvas.mapFromScene(QPointF(x, y))


def _keyframes(window, track_id: int) -> list[ann.AnnotationRecord]:
    return box_tracks.track_keyframes(window.state.project, window.state.media.id, track_id)


def test_an_interpolated_box_can_be_selected_and_moved_into_a_keyframe(tracking_window, qtbot):
    open_media(tracking_window, qtbot, CLIP)
    mid = tracking_window.state.media.id
    ann.add_box(tracking_window.state.project, mid, (100, 100, 80, 60), frame_index=0, track_id=3)
    ann.add_box(tracking_window.state.project, mid, (200, 140, 80, 60), frame_index=20, track_id=3)
    tracking_window.go_to("#10")
    wait_idle(tracking_window, qtbot)
    (item,) = [i for i in tracking_window.annotator.marks.items if hasattr(i, "keyframe")]
    assert not item.keyframe and item.annotation_id is None
    # frame 10 is halfway: the interpolated box is (150, 120)-(230, 180)
    assert (item.rect.x(), item.rect.y()) == pytest.approx((150.0, 120.0))
    vp = tracking_window.view.canvas.viewport()
    qtbot.mouseClick(vp, Qt.MouseButton.LeftButton, pos=_at(tracking_window, 190.0, 150.0))
    assert item.isSelected()  # selected, not refused
    a, b = _at(tracking_window, 190.0, 150.0), _at(tracking_window, 210.0, 140.0)
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=a)
    for t in (0.3, 0.7, 1.0):
        qtbot.mouseMove(vp, QPoint(round(a.x() + (b.x() - a.x()) * t), round(a.y() + (b.y() - a.y()) * t)))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=b)
    keys = _keyframes(tracking_window, 3)
    assert [k.frame_index for k in keys] == [0, 10, 20]
    moved = keys[1].geometry
    # moved by the drag (20, -10) in image pixels, to within a screen pixel's worth at this zoom
    tol = 1.0 / tracking_window.view.canvas.transform().m11() + 0.01
    assert moved == pytest.approx([170.0, 110.0, 250.0, 170.0], abs=tol)
    # the new keyframe is drawn solid and stays selected
    (shown,) = [i for i in tracking_window.annotator.marks.items if hasattr(i, "keyframe")]
    assert shown.keyframe and shown.annotation_id == keys[1].id and shown.isSelected()
    assert tracking_window.annotator.undo_stack.count() == 1  # one edit
    tracking_window.actions["undo"].trigger()
    assert [k.frame_index for k in _keyframes(tracking_window, 3)] == [0, 20]


def test_track_forward_stores_one_undoable_stretch(tracking_window, qtbot):
    open_media(tracking_window, qtbot, CLIP)
    x1, y1, x2, y2 = truth(0, "wave")
    box_id = ann.add_box(tracking_window.state.project, tracking_window.state.media.id, (x1, y1, x2 - x1, y2 - y1), frame_index=0, track_id=1)
    tracking_window.annotator.refresh()
    qtbot.mouseClick(tracking_window.view.canvas.viewport(), Qt.MouseButton.LeftButton,
                     pos=_at(tracking_window, (x1 + x2) / 2, (y1 + y2) / 2))
    assert tracking_window.annotator.selected_ids() == [box_id]
    tracking_window.actions["track_forward"].trigger()
    worker = tracking_window.annotator.worker
    assert worker is not None
    qtbot.waitUntil(lambda: len(_keyframes(tracking_window, 1)) > 1, timeout=60000)
    wait_idle(tracking_window, qtbot)
    keys = [k.frame_index for k in _keyframes(tracking_window, 1)]
    assert keys == [0, *range(5, 59, 5), 59]
    assert tracking_window.state.frame_index == 59  # the last frame tracked is shown
    assert "reached the last frame" in tracking_window.statusBar().currentMessage()
    (shown,) = [i for i in tracking_window.annotator.marks.items if hasattr(i, "keyframe")]
    assert shown.isSelected()
    got = shown.rect
    assert iou((got.left(), got.top(), got.right(), got.bottom()), truth(59, "wave")) >= 0.7
    tracking_window.grab().save(str(tracking_window.state.project.path.with_name("tracked.png")))
    tracking_window.actions["undo"].trigger()  # one undo removes the whole stretch
    assert [k.frame_index for k in _keyframes(tracking_window, 1)] == [0]


def test_file_import_annotations_is_one_undoable_edit_with_a_report(tracking_window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog

    from fieldstudio.gui.annotation_import import CHOICES

    open_media(tracking_window, qtbot, CLIP)
    xml = tmp_path / "walk.xml"
    xml.write_text('<annotations><meta><task><source>wave.mp4</source></task></meta><track id="0" label="worker">'
                   '<box frame="3" keyframe="1" outside="0" xtl="10" ytl="20" xbr="50" ybr="80"/>'
                   '<box frame="9" keyframe="1" outside="0" xtl="30" ytl="20" xbr="70" ybr="80"/></track>'
                   '<track id="1" label="worker"><box frame="99" keyframe="1" outside="0" xtl="1" ytl="1" '
                   'xbr="5" ybr="5"/></track></annotations>')
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: (CHOICES["cvat"][0], True))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(xml), ""))
    tracking_window.actions["import_annotations"].trigger()
    qtbot.waitUntil(lambda: any(w.objectName() == "annotation_import_report" and w.isVisible()
                                for w in QApplication.topLevelWidgets()), timeout=20000)
    (report,) = [w for w in QApplication.topLevelWidgets() if w.objectName() == "annotation_import_report"]
    text = report.text.toPlainText()
    assert "wave.mp4: 2 box(es), 1 track(s)" in text and "frame 99 is outside" in text
    assert [(k.frame_index, k.label_name) for k in _keyframes(tracking_window, 1)] == [(3, "worker"), (9, "worker")]
    report.close()
    tracking_window.actions["undo"].trigger()  # one undo: the boxes and the label created for them
    assert _keyframes(tracking_window, 1) == []
    from fieldstudio.annotations import labels

    assert labels.list_labels(tracking_window.state.project) == []


def test_a_cancelled_track_stores_nothing_and_backward_tracks_to_the_first_frame(tracking_window, qtbot):
    open_media(tracking_window, qtbot, CLIP)
    tracking_window.go_to("#40")
    wait_idle(tracking_window, qtbot)
    x1, y1, x2, y2 = truth(40, "wave")
    box_id = ann.add_box(tracking_window.state.project, tracking_window.state.media.id, (x1, y1, x2 - x1, y2 - y1), frame_index=40, track_id=5)
    tracking_window.annotator.refresh()
    qtbot.mouseClick(tracking_window.view.canvas.viewport(), Qt.MouseButton.LeftButton,
                     pos=_at(tracking_window, (x1 + x2) / 2, (y1 + y2) / 2))
    assert tracking_window.annotator.selected_ids() == [box_id]
    tracking_window.actions["track_backward"].trigger()
    worker = tracking_window.annotator.worker
    worker.cancel()  # what the progress dialog's Cancel does
    qtbot.waitUntil(lambda: "cancelled" in tracking_window.statusBar().currentMessage() or len(_keyframes(tracking_window, 5)) > 1,
                    timeout=60000)
    assert "nothing is stored" in tracking_window.statusBar().currentMessage()
    assert [k.frame_index for k in _keyframes(tracking_window, 5)] == [40]
    assert tracking_window.annotator.undo_stack.count() == 0
    tracking_window.actions["track_backward"].trigger()  # the box is still selected: this time to the first frame
    qtbot.waitUntil(lambda: len(_keyframes(tracking_window, 5)) > 1, timeout=60000)
    assert [k.frame_index for k in _keyframes(tracking_window, 5)] == [0, *range(5, 41, 5)]
    assert "reached the first frame" in tracking_window.statusBar().currentMessage()


def test_keys_work_after_the_trackers_progress_dialog_without_a_click(tracking_window, qtbot):
    """T from the keyboard, the progress dialog shown while the tracker runs, then Ctrl+Z from the keyboard: the
    keys go back to the window when the dialog closes, with no window manager to give them back (issue 32)."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    w = tracking_window
    open_media(w, qtbot, CLIP)
    x1, y1, x2, y2 = truth(0, "wave")
    box_id = ann.add_box(w.state.project, w.state.media.id, (x1, y1, x2 - x1, y2 - y1), frame_index=0, track_id=1)
    w.annotator.refresh()
    qtbot.mouseClick(w.view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_at(w, (x1 + x2) / 2, (y1 + y2) / 2))
    assert w.annotator.selected_ids() == [box_id]

    def press(key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
        qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is not None, timeout=3000)  # where a key arrives
        QTest.keyClick(QGuiApplication.focusWindow(), key, modifier)

    press(Qt.Key.Key_T)
    worker = w.annotator.worker
    assert worker is not None
    worker.progress_dialog.setMinimumDuration(0)  # shown at once, as on a long track
    qtbot.waitUntil(lambda: worker.progress_dialog.isVisible(), timeout=10000)
    qtbot.waitUntil(lambda: len(_keyframes(w, 1)) > 1, timeout=60000)
    qtbot.waitUntil(lambda: not worker.progress_dialog.isVisible(), timeout=10000)
    wait_idle(w, qtbot)
    stretch = [k.frame_index for k in _keyframes(w, 1)][1:]  # the keyframes the tracker added
    press(Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: [k.frame_index for k in _keyframes(w, 1)] == [0], timeout=5000)
    # the undo names the stretch's frames, not one box's frame
    assert w.statusBar().currentMessage().endswith(f"on {CLIP}, frames {min(stretch)}-{max(stretch)}")


def test_a_box_just_drawn_is_selected_so_t_tracks_it(tracking_window, qtbot):
    """B, a drag around the moving shape, then T: the new box is the selection, as a new polygon is (issue 32)."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    w = tracking_window
    open_media(w, qtbot, CLIP)
    QTest.keyClick(QGuiApplication.focusWindow(), Qt.Key.Key_B)
    assert w.state.tool == "box"
    x1, y1, x2, y2 = truth(0, "wave")
    vp, a, b = w.view.canvas.viewport(), _at(w, x1, y1), _at(w, x2, y2)
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=a)
    for t in (0.3, 0.6, 1.0):
        qtbot.mouseMove(vp, QPoint(round(a.x() + (b.x() - a.x()) * t), round(a.y() + (b.y() - a.y()) * t)))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=b)
    (box,) = ann.list_annotations(w.state.project, media_id=w.state.media.id, kinds=["box"])
    qtbot.waitUntil(lambda: w.annotator.selected_ids() == [box.id], timeout=3000)
    QTest.keyClick(QGuiApplication.focusWindow(), Qt.Key.Key_T)
    qtbot.waitUntil(lambda: len(_keyframes(w, box.track_id)) > 1, timeout=60000)
