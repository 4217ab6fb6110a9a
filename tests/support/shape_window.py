"""The real window on the sample photo, zoomed 2x, as the shape drawing tests drive it: the ``photo_window``
fixture, clicks at image pixels, the shapes stored on the media shown, and a vertex-list comparison."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from fieldstudio.annotations import annotation_records as ann
from tests.support.gui_support import open_media

PHOTO = "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"  # 480 x 270


def _at(window, x: float, y: float) -> QPoint:  # noqa: ANN001
    return window.view.canvas.mapFromScene(QPointF(x, y))


def click(window, x: float, y: float, modifier=Qt.KeyboardModifier.NoModifier) -> None:  # noqa: ANN001
    vp = window.view.canvas.viewport()
    QTest.mouseMove(vp, _at(window, x, y))
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, modifier, _at(window, x, y))


def shapes_of(window, kind: str) -> list[ann.AnnotationRecord]:  # noqa: ANN001
    return ann.list_annotations(window.state.project, media_id=window.state.media.id, kinds=[kind])


def near(got, want, tol: float) -> bool:  # noqa: ANN001 - vertex lists
    """Every coordinate of ``got`` within ``tol`` pixels of ``want`` (same shape)."""
    return np.shape(got) == np.shape(want) and bool(np.allclose(got, want, atol=tol, rtol=0))


@pytest.fixture
def photo_window(window, qtbot):
    open_media(window, qtbot, PHOTO)
    window.view.canvas.set_zoom(2.0)
    qtbot.wait(50)
    window.view.canvas.centerOn(140.0, 125.0)
    qtbot.wait(20)
    return window
