"""The selected mark in Properties (issue 32, item 4): label, geometry in pixels (typed: an undoable move) and in
metres where the floor is calibrated, frame and track. The metres are checked against a homography OpenCV
computes from the stored floor calibration (the four corners and the rectangle's size)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import box_tracks, calibrations, labels
from fieldstudio.core.calibration import order_floor_corners
from tests.support.gui_support import wait_idle

pytestmark = pytest.mark.gui


def floor_metres(project, media_id: str, p, q) -> float:  # noqa: ANN001
    """Ground distance from p to q (pixels) through OpenCV's homography of the media's floor calibration."""
    cal = calibrations.calibration_for(project, media_id, "floor")
    corners = np.float32(order_floor_corners(cal.points))
    rect = np.float32([(0, 0), (cal.width_m, 0), (cal.width_m, cal.depth_m), (0, cal.depth_m)])
    h = cv2.getPerspectiveTransform(corners, rect)
    a, b = cv2.perspectiveTransform(np.float32([[p, q]]), h)[0]
    return float(np.hypot(*(a - b)))


def select(w, qtbot, rec) -> None:  # noqa: ANN001
    w.state.request_frame(rec.media_id, rec.frame_index)
    qtbot.waitUntil(lambda: w.state.media is not None and w.state.media.id == rec.media_id
                    and w.state.frame_index == (rec.frame_index or 0), timeout=10000)
    wait_idle(w, qtbot)
    w.annotator.marks.select_on_refresh(rec.id)
    w.annotator.refresh()
    qtbot.waitUntil(lambda: w.state.selection == (rec.id,), timeout=5000)


def test_the_selected_box_shows_and_edits_its_label_and_geometry(demo_window, qtbot):
    w = demo_window
    p = w.state.project
    rec = next(r for r in ann.list_annotations(p, kinds=["box"])
               if r.track_id is not None and calibrations.calibration_for(p, r.media_id, "floor") is not None)
    select(w, qtbot, rec)
    panel = w.properties.mark
    assert panel.isVisible() and panel.kind.text() == "box" and panel.label.currentText() == rec.label_name
    x1, y1, x2, y2 = rec.geometry
    assert [s.value() for s in panel.spins] == pytest.approx([x1, y1, x2 - x1, y2 - y1], abs=0.05)
    expected = floor_metres(p, rec.media_id, (x1, y2), (x2, y2))
    assert panel.metres_caption.text() == "Width at its foot"
    assert panel.metres.text().startswith(f"{expected:.3f} m (floor plane: ")
    keys = box_tracks.track_keyframes(p, rec.media_id, rec.track_id)
    first, last = keys[0].frame_index, keys[-1].frame_index
    assert panel.track.text() == f"#{rec.track_id}: keyframes {first}–{last} ({len(keys)})"
    assert panel.frame.text() == str(rec.frame_index)
    # x typed: the box moves, as one undoable edit; the panel follows the undo
    panel.spins[0].setValue(x1 + 10)
    panel.spins[0].editingFinished.emit()
    assert ann.get_annotation(p, rec.id).geometry == pytest.approx([x1 + 10, y1, x2 + 10, y2])
    assert panel.spins[0].value() == pytest.approx(x1 + 10)
    w.actions["undo"].trigger()
    assert ann.get_annotation(p, rec.id).geometry == pytest.approx([x1, y1, x2, y2])
    assert panel.spins[0].value() == pytest.approx(x1)
    # another label chosen
    other = next(label for label in labels.list_labels(p, "box") if label.id != rec.label_id)
    panel.label.setCurrentIndex(panel.label.findData(other.id))
    panel.label.activated.emit(panel.label.currentIndex())
    assert ann.get_annotation(p, rec.id).label_id == other.id
    w.actions["undo"].trigger()
    assert ann.get_annotation(p, rec.id).label_id == rec.label_id and panel.label.currentText() == rec.label_name
    # a width of 0 is refused and the stored one comes back
    panel.spins[2].setValue(0)
    panel.spins[2].editingFinished.emit()
    assert ann.get_annotation(p, rec.id).geometry == pytest.approx([x1, y1, x2, y2])
    assert panel.spins[2].value() == pytest.approx(x2 - x1)


def test_a_floor_ruler_shows_its_length_and_nothing_selected_hides_the_panel(demo_window, qtbot):
    w = demo_window
    p = w.state.project
    rec = next(r for r in ann.list_annotations(p, kinds=["ruler"]) if r.on_floor)
    select(w, qtbot, rec)
    panel = w.properties.mark
    (a, b) = rec.geometry
    assert panel.kind.text() == "ruler" and [c.text() for c in panel.spin_labels] == ["x1", "y1", "x2", "y2"]
    assert panel.metres_caption.text() == "Length"
    assert panel.metres.text().startswith(f"{floor_metres(p, rec.media_id, a, b):.3f} m (floor plane: ")
    w.annotator.set_tool("select")
    for item in w.annotator.marks.selected_items():
        item.setSelected(False)
    qtbot.waitUntil(lambda: not panel.isVisible(), timeout=2000)
