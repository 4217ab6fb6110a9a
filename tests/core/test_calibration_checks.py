"""Honest calibration (issue 20 item 6): corners named by position, warnings, and a check that can fail.

The floor is imaged through a projective map chosen by hand (``F2I``, floor metres -> image pixels), so
the true floor position of any pixel is ``F2I^-1`` applied to it, computed here with numpy, independently
of the calibration's own cv2.getPerspectiveTransform fit.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage

from fieldstudio.core.calibration import floor_warnings, order_floor_corners, scale_warnings
from fieldstudio.core.calibration_preview import preview_calibration
from tests.support.annotation_fixtures import PHOTO_ID, add_test_media

F2I = np.array([[100.0, -20.0, 100.0], [0.0, -60.0, 400.0], [0.0, 0.1, 1.0]])
W, D = 4.0, 3.0


def to_image(x: float, y: float) -> tuple[float, float]:
    u, v, w = F2I @ np.array([x, y, 1.0])
    return (float(u / w), float(v / w))


def to_floor(px: tuple[float, float]) -> tuple[float, float]:
    u, v, w = np.linalg.inv(F2I) @ np.array([px[0], px[1], 1.0])
    return (float(u / w), float(v / w))


CORNERS = [to_image(0, 0), to_image(W, 0), to_image(W, D), to_image(0, D)]  # near-left, near-right, far-right, far-left


def test_corners_clicked_in_every_order_give_the_same_homography():
    want = preview_calibration("floor", CORNERS, width_m=W, depth_m=D).calibration.homography
    for order in itertools.permutations(CORNERS):
        assert np.allclose(order_floor_corners(order), CORNERS)
        got = preview_calibration("floor", order, width_m=W, depth_m=D)
        assert np.allclose(got.calibration.homography, want)
        # and it is the true map: the far-right corner's pixel is (4, 3) m on the floor
        assert got.calibration.measure(CORNERS[0], CORNERS[2])[0] == pytest.approx(5.0)


def test_warnings_for_inverted_thin_mis_sized_and_short_references():
    assert floor_warnings(CORNERS, W, D) == []
    # the same shape upside down: the upper edge is the longer one
    flipped = [(x, 600 - y) for x, y in CORNERS]
    warnings = preview_calibration("floor", flipped, width_m=W, depth_m=D).warnings
    assert any("inverted" in w for w in warnings)
    # 4 m x 3 m entered as 1 m x 10 m: the corners' aspect in the image is about 1.5
    assert any("differ by" in w for w in floor_warnings(CORNERS, 1.0, 10.0))
    thin = [(0, 100), (400, 100), (420, 95), (30, 97)]
    assert any("nearly degenerate" in w for w in floor_warnings(order_floor_corners(thin), 1, 1))
    assert scale_warnings((0, 0), (12, 5)) and not scale_warnings((0, 0), (30, 0))
    assert any("only 13.0 px" in w for w in preview_calibration("scale", [(0, 0), (12, 5)], length_m=1).warnings)


def test_without_a_check_the_preview_says_none_was_made_and_a_perturbed_fifth_point_shows_its_error():
    p = preview_calibration("floor", CORNERS, width_m=W, depth_m=D)
    assert p.check is None and any("No independent check was made" in line for line in p.lines)
    assert not any("reproject" in line or "expected" in line for line in p.lines)
    fifth = to_image(2.0, 1.5)
    exact = preview_calibration("floor", CORNERS, width_m=W, depth_m=D, check=(CORNERS[0], fifth, 2.5))
    assert abs(exact.check.error_m) < 1e-6
    moved = (fifth[0] + 12.0, fifth[1] - 7.0)  # clicked 14 px off
    X, Y = to_floor(moved)
    truth = math.hypot(X, Y)
    off = preview_calibration("floor", CORNERS, width_m=W, depth_m=D, check=(CORNERS[0], moved, 2.5))
    assert off.check.measured_m == pytest.approx(truth, rel=1e-6)
    assert off.check.error_m == pytest.approx(truth - 2.5, rel=1e-6) and abs(off.check.error_m) > 0.05
    assert off.check.error_pct == pytest.approx(100 * (truth - 2.5) / 2.5, rel=1e-6)
    assert f"{truth - 2.5:+.3f} m" in off.lines[-1]
    scale = preview_calibration("scale", [(0, 0), (100, 0)], length_m=2.0, check=((0, 50), (0, 160), 2.0))
    assert scale.check.measured_m == pytest.approx(2.2) and scale.check.error_pct == pytest.approx(10.0)


@pytest.mark.gui
def test_the_dialog_names_corners_by_position_shows_them_and_reports_a_check(qtbot, project, tmp_path):
    from fieldstudio.gui.panels.calibration import CalibrationDialog

    add_test_media(project)  # a 400 x 300 photo; the points need not lie inside it for the dialog
    image = QImage(640, 480, QImage.Format.Format_RGB32)
    image.fill(QColor("#556b2f"))
    clicked = [CORNERS[2], CORNERS[0], CORNERS[3], CORNERS[1]]  # far-right first
    dialog = CalibrationDialog(project, PHOTO_ID, clicked, image=image, full_size=(640, 480))
    qtbot.addWidget(dialog)
    dialog.width_m.setValue(W)
    dialog.depth_m.setValue(D)
    dialog.show()
    assert np.allclose(dialog.points, CORNERS)
    assert "near-left (100.0, 400.0)" in dialog.intro.text()
    assert np.allclose(dialog.picture.points, CORNERS) and dialog.picture.pixmap() is not None
    assert "No independent check was made" in dialog.preview_label.text()
    fifth = to_image(2.0, 1.5)
    moved = (fifth[0] + 12.0, fifth[1] - 7.0)
    where = dialog.picture.to_widget(*moved)
    qtbot.mouseClick(dialog.picture, Qt.MouseButton.LeftButton, pos=QPoint(round(where.x()), round(where.y())))
    dialog.check_m.setValue(2.5)
    check = dialog.preview.check
    assert check is not None and abs(check.error_m) > 0.05
    X, Y = to_floor(dialog.check_points[0])  # the point as clicked (to the picture's pixel)
    assert check.measured_m == pytest.approx(math.hypot(X, Y), rel=1e-6)
    assert "Check: the fifth point's distance" in dialog.preview_label.text()
    dialog.grab().save("/tmp/trk/calibration_dialog.png")

    # an inverted quadrilateral warns in the dialog (and can still be saved: it is a warning)
    flipped = CalibrationDialog(project, PHOTO_ID, [(x, 600 - y) for x, y in CORNERS], image=image,
                                full_size=(640, 480))
    qtbot.addWidget(flipped)
    flipped.width_m.setValue(W)
    flipped.depth_m.setValue(D)
    assert "Warning: the perspective is inverted" in flipped.preview_label.text()
    assert flipped.ok_button.isEnabled()
