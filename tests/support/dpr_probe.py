"""Run in a subprocess by tests/gui/test_canvas_dpr.py: the main window at the device pixel ratio
QT_SCALE_FACTOR asks for.

Prints one JSON line: the window's device pixel ratio and, per zoom, the pointer position the status bar
reports at a known scene point and after moving the pointer by (40, 20) device-independent pixels, plus
whether the viewport's physical pixels at 1:1 equal the photo's pixels.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt, QThreadPool
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.gui.imaging import rgb_from_qimage
from fieldstudio.gui.main_window import MainWindow
from fieldstudio.media import images, library
from fieldstudio.store.project import Project


def _pointer(window) -> tuple[float, float]:  # noqa: ANN001
    m = re.match(r"x ([\d.]+)\s+y ([\d.]+) px", window.pointer_label.text())
    return (float(m.group(1)), float(m.group(2))) if m else (float("nan"), float("nan"))


def _settle(app: QApplication, ms: int = 60) -> None:
    QTest.qWait(ms)
    app.processEvents()


def main(project_path: str, photo: str) -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    with Project.create(Path(project_path), name="dpr") as p:
        report = library.add_paths(p, [Path(photo)])
    project = Project.open(Path(project_path))
    window = MainWindow(project)
    window.resize(1200, 800)
    window.show()
    _settle(app, 200)
    mid = report.media_ids[0]
    window.library.select(mid)
    for _ in range(100):
        if window.state.media is not None and window.view.loader.idle():
            break
        _settle(app, 50)
    _settle(app, 200)
    canvas = window.view.canvas
    out = {"dpr": canvas.devicePixelRatioF(), "zooms": {}}
    for zoom in (0.75, 1.0, 3.0):
        canvas.set_zoom(zoom)
        _settle(app)
        canvas.centerOn(100.0, 80.0)
        _settle(app)
        start = canvas.mapFromScene(QPointF(100.0, 80.0))
        QTest.mouseMove(canvas.viewport(), start + QPoint(1, 1))
        QTest.mouseMove(canvas.viewport(), start)
        x0, y0 = _pointer(window)
        QTest.mouseMove(canvas.viewport(), start + QPoint(40, 20))
        x1, y1 = _pointer(window)
        out["zooms"][str(zoom)] = {"start": [x0, y0], "moved": [x1, y1], "label": window.zoom_label.text()}
    # a box drawn with the box tool from image point (100, 80) to (180, 140) at zoom 3
    canvas.set_zoom(3.0)
    _settle(app)
    canvas.centerOn(140.0, 110.0)
    _settle(app)
    window.actions["box_tool"].trigger()
    a, b = canvas.mapFromScene(QPointF(100.0, 80.0)), canvas.mapFromScene(QPointF(180.0, 140.0))
    QTest.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for t in (0.5, 1.0):
        QTest.mouseMove(canvas.viewport(), QPoint(round(a.x() + (b.x() - a.x()) * t), round(a.y() + (b.y() - a.y()) * t)))
    QTest.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    _settle(app)
    out["box"] = [list(r.geometry) for r in ann.list_annotations(project, media_id=mid, kinds=["box"])]
    window.actions["select_tool"].trigger()
    # at 1:1 every physical screen pixel shows exactly one image pixel
    canvas.set_zoom(1.0)
    _settle(app)
    canvas.centerOn(350.0, 210.0)
    _settle(app, 100)
    grab = canvas.viewport().grab().toImage()
    shot = rgb_from_qimage(grab)
    dpr = grab.devicePixelRatio()
    corner = canvas.viewportTransform().map(QPointF(300.0, 180.0))  # device-independent viewport pixels
    px, py = int(round(corner.x() * dpr)), int(round(corner.y() * dpr))
    photo_rgb = images.read_image(Path(photo))
    w, h = 100, 60
    out["grab_size"] = [grab.width(), grab.height()]
    out["viewport_size"] = [canvas.viewport().width(), canvas.viewport().height()]
    out["corner_physical"] = [corner.x() * dpr, corner.y() * dpr]
    diff = shot[py:py + h, px:px + w].astype(int) - photo_rgb[180:180 + h, 300:300 + w].astype(int)
    out["one_to_one_max_diff"] = int(np.abs(diff).max())
    # at whole zooms the photo's pixels stay on whole physical pixels whatever the view's size: the image's
    # top-left corner in physical pixels, and the largest pixel difference to the photo there
    out["grid"] = []
    canvas.fit()
    for extra in range(4):
        window.resize(1200 + extra, 800 + extra)
        _settle(app)
        for zoom in (1.0, 2.0):
            canvas.set_zoom(zoom)
            _settle(app)
            if zoom == 2.0:
                canvas.horizontalScrollBar().setValue(canvas.horizontalScrollBar().value() + 1 + extra)
                _settle(app)
            t = canvas.viewportTransform()
            ox, oy = t.dx() * canvas.devicePixelRatioF(), t.dy() * canvas.devicePixelRatioF()
            grab = canvas.viewport().grab().toImage()
            shot = rgb_from_qimage(grab)
            corner = t.map(QPointF(300.0, 180.0))
            px, py = int(round(corner.x() * dpr)), int(round(corner.y() * dpr))
            n = int(zoom)
            seen = shot[py:py + 20 * n:n, px:px + 20 * n:n].astype(int)
            want = photo_rgb[180:200, 300:320].astype(int)
            diff = int(np.abs(seen - want).max()) if seen.shape == want.shape else 999
            out["grid"].append([extra, zoom, ox, oy, diff])
    if os.environ.get("DPR_PROBE_SAVE"):
        grab.save(os.environ["DPR_PROBE_SAVE"])
    print(json.dumps(out))
    window.close()
    QThreadPool.globalInstance().waitForDone(5000)
    project.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
