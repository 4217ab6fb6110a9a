"""The calibration dialog (fieldstudio.gui.panels.calibration) keeps the independent check a person made with the
calibration it saves, so fs-distance can take its tolerance from it (issue 33 item 4)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage

from fieldstudio.annotations import calibrations
from fieldstudio.gui.panels.calibration import CalibrationDialog
from tests.support.annotation_fixtures import PHOTO_ID, add_test_media


def test_the_check_made_in_the_dialog_is_saved_with_the_calibration(qtbot, project):
    """A reference line of 1.00 m over 100 px; the check is a 1.00 m object clicked over 102 px: 1.02 m, +0.02 m."""
    add_test_media(project)
    image = QImage(400, 300, QImage.Format.Format_RGB32)
    image.fill(QColor("#556b2f"))
    dialog = CalibrationDialog(project, PHOTO_ID, [(100, 100), (200, 100)], image=image, full_size=(400, 300))
    qtbot.addWidget(dialog)
    dialog.show()
    for x, y in ((100, 150), (202, 150)):
        where = dialog.picture.to_widget(x, y)
        qtbot.mouseClick(dialog.picture, Qt.MouseButton.LeftButton, pos=QPoint(round(where.x()), round(where.y())))
    dialog.check_m.setValue(1.0)
    shown = dialog.preview.check
    assert shown is not None
    dialog.build_edit().do()
    record = calibrations.calibration_for(project, PHOTO_ID, "scale")
    assert record.check is not None and record.check[2] == 1.0
    assert record.length_check().error_m == pytest.approx(shown.error_m)
    assert shown.error_m == pytest.approx(0.02, abs=0.011)      # within a pixel's worth of where the clicks land
