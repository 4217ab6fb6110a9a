"""The calibration dialog and the Calibrations list say which calibration applies, and let the user choose it
(issue 32 item 3), on the demo project whose camera group has a floor calibration.

By hand: the scale line is 400 px for 2 m (200 px a metre), so a ruler is its pixel length / 200 metres by the
scale; by the floor, its distance through the homography cv2 solves from the four corners.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.gui.panels.calibration import CalibrationDialog, CalibrationListPanel
from fieldstudio.media import library
from tests.support import demo_data as demo

SHOTS = Path("/tmp/shots/kinematics")


def floor_metres(p, q) -> float:
    w, d = demo.FLOOR_SIZE_M
    h = cv2.getPerspectiveTransform(np.float32(demo.FLOOR_QUAD), np.float32([[0, 0], [w, 0], [w, d], [0, d]]))
    a, b = cv2.perspectiveTransform(np.float64([[p, q]]), h)[0]
    return float(np.hypot(*(b - a)))


def test_a_scale_saved_beside_the_floor_is_chosen_in_the_dialog_and_the_list(qtbot, demo_project):
    done = []

    def apply(edit) -> None:  # noqa: ANN001
        edit.do()
        done.append(edit)

    photo = library.find_media(demo_project, demo.WORKER_PHOTO).id
    (ruler, *_) = [r for r in ann.list_annotations(demo_project, kinds=["ruler"]) if r.media_id == photo] or \
        [None]
    assert ruler is not None
    p, q = ruler.geometry
    on_floor = floor_metres(p, q)
    assert cal.measure_ruler(demo_project, ruler.id).metres == pytest.approx(on_floor, rel=1e-6)

    dlg = CalibrationDialog(demo_project, photo, [(0, 0), (0, 400)], apply)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.length_m.setValue(2.0)
    assert dlg.scope_group.isChecked() and dlg.use_it.isVisible() and dlg.use_it.isChecked()
    assert "also has a floor calibration; the one in use will be the scale" in dlg.preview_label.text()
    dlg.use_it.setChecked(False)
    assert "the one in use will be the floor (this scale one is kept, not in use)" in dlg.preview_label.text()
    dlg.use_it.setChecked(True)
    SHOTS.mkdir(parents=True, exist_ok=True)
    dlg.grab().save(str(SHOTS / "calibration_choice_dialog.png"))
    dlg.accept()
    m = cal.measure_ruler(demo_project, ruler.id)
    assert (m.kind, m.metres) == ("scale", pytest.approx(math.dist(p, q) / 200.0))
    done[-1].undo()                                    # one step: the scale and its choice go
    assert cal.calibration_in_use(demo_project, photo).kind == "floor"
    done[-1].do()

    panel = CalibrationListPanel(apply_edit=apply)
    qtbot.addWidget(panel)
    panel.set_project(demo_project)
    panel.resize(760, 200)
    panel.show()
    status = {panel.table.item(i, 1).text(): panel.table.item(i, 3).text() for i in range(panel.table.rowCount())}
    assert status == {"scale": "in use", "floor": "not in use (the scale calibration applies)"}
    row = next(i for i in range(panel.table.rowCount()) if panel.table.item(i, 1).text() == "floor")
    panel.table.selectRow(row)
    with qtbot.waitSignal(panel.calibration_changed):
        panel.use_selected()
    panel.grab().save(str(SHOTS / "calibration_choice_list.png"))
    assert cal.measure_ruler(demo_project, ruler.id).metres == pytest.approx(on_floor, rel=1e-6)
    assert "Now in use: the floor plane" in panel.message.text()
    done[-1].undo()
    assert cal.measure_ruler(demo_project, ruler.id).kind == "scale"
