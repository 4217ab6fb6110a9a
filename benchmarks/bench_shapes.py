"""Shapes (issue 32): dragging a vertex of a 200-vertex polygon and a point of a 17-point skeleton on a 1080p frame,
and importing a COCO file of 10^5 polygons against pycocotools loading the same file.

Run with ``python benchmarks/bench_shapes.py [--quick]`` (``--quick``: 10^4 polygons). Figures:

- the drag: the window's canvas (``gui/viewer/canvas.py``, offscreen) shows a 1920x1080 frame with the selected
  mark drawn by its own item (``ShapeItem`` / ``SkeletonItem``); a press on a vertex, then 300 mouse moves sent as
  Qt events, each followed by the repaint it causes (``processEvents``); the time per move event, median and 95th
  percentile, against one frame time (16 ms, the issue's target) for the 95th percentile;
- the COCO import: ``fieldstudio annotations import`` of 10^5 polygons (8 vertices each, 1,000 on each of 100
  photos, three categories) as a new process, against ``pycocotools.coco.COCO(file)`` (its load and index) as a new
  process on the same file; the time ratio (target <= 10x, as the other imports of issue 37) and the import's peak
  resident memory (target < 1,024 MB, issue 36), pycocotools' peak printed beside it and their ratio.
"""

from __future__ import annotations

import math
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import targets, work_folders  # noqa: E402
from benchmarks.bench_coco_import import write_coco  # noqa: E402
from benchmarks.commands import fresh_process, fresh_python, in_process  # noqa: E402

MOVES = 300
PER_PHOTO = 1000
VERTICES = 8


def drag_ms(kind: str) -> list[float]:
    """Milliseconds per mouse move event (the move and the repaint it causes) dragging one vertex of ``kind``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QImage
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from fieldstudio.core import skeletons
    from fieldstudio.gui.viewer.canvas import Canvas
    from fieldstudio.gui.viewer.shape_items import ShapeItem
    from fieldstudio.gui.viewer.skeleton_item import SkeletonItem

    app = QApplication.instance() or QApplication([])
    canvas = Canvas()
    canvas.resize(1280, 760)
    canvas.show()
    frame = QImage(1920, 1080, QImage.Format.Format_RGB888)
    frame.fill(0x607080)
    canvas.set_image(frame, (1920, 1080))
    canvas.fit()
    if kind == "polygon":
        vertices = [[960 + 400 * math.cos(2 * math.pi * i / 200), 540 + 400 * math.sin(2 * math.pi * i / 200)]
                    for i in range(200)]
        item = ShapeItem("polygon", vertices, "#ff00ff", "spill", annotation_id="a" * 32, changed=lambda *a: None)
        grab = vertices[0]
    else:
        pose = [[960 + 30 * (i % 4), 300 + 40 * i] for i in range(17)]
        item = SkeletonItem(skeletons.COCO_PERSON, pose, "#00e0ff", "worker", annotation_id="b" * 32,
                            changed=lambda *a: None)
        grab = pose[5]
    canvas.scene().addItem(item)
    item.setSelected(True)
    app.processEvents()
    vp = canvas.viewport()
    start = canvas.mapFromScene(QPointF(*grab))
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, pos=start)
    times = []
    for i in range(MOVES):
        to = QPoint(start.x() + (i % 60) - 30, start.y() + (i % 40) - 20)
        t = time.perf_counter()
        QTest.mouseMove(vp, to)
        app.processEvents()
        times.append((time.perf_counter() - t) * 1000)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=start)
    canvas.close()
    return times


def coco_polygons(photos: int) -> Path:
    """A COCO file of ``photos`` x PER_PHOTO 8-vertex polygons on the 64x48 photos ``s_00000.jpg``..., made once."""
    def polygons(i: int, first: int) -> list[dict]:
        out = []
        for j in range(PER_PHOTO):
            cx, cy, r = 10 + j % 44, 10 + j % 28, 4 + j % 5
            ring = [round(c, 2) for v in range(VERTICES) for c in (
                cx + r * math.cos(2 * math.pi * v / VERTICES), cy + r * math.sin(2 * math.pi * v / VERTICES))]
            out.append({"id": first + j, "image_id": i, "category_id": 1 + j % 3, "iscrowd": 0,
                        "segmentation": [ring], "bbox": [cx - r, cy - r, 2 * r, 2 * r], "area": 2.83 * r * r})
        return out

    return work_folders.made_once(f"coco_polygons_{photos * PER_PHOTO}.json", lambda path: write_coco(
        path, photos, "s_", polygons, [{"id": 1, "name": "spill"}, {"id": 2, "name": "zone"},
                                       {"id": 3, "name": "puddle"}]))


def polygons_in(project: Path) -> int:
    con = sqlite3.connect(project)
    try:
        return con.execute("SELECT count(*) FROM annotation WHERE kind = 'polygon' AND NOT deleted").fetchone()[0]
    finally:
        con.close()


def main() -> None:
    for kind, what in (("polygon", "a 200-vertex polygon"), ("skeleton", "a 17-point skeleton")):
        times = sorted(drag_ms(kind))
        p95 = times[int(0.95 * len(times)) - 1]
        print(f"drag a point of {what} on a 1080p frame: {MOVES} move events, median "
              f"{statistics.median(times):.2f} ms, 95th percentile {p95:.2f} ms, max {times[-1]:.2f} ms")
        targets.declare(f"drag a point of {what}, 1080p frame, 95th percentile per move event", p95, 16,
                        better=targets.LOWER, reference="one frame time at 60 Hz (issue 32)", unit="ms",
                        sizes_reduced=False)
    photos = 10 if targets.quick() else 100
    n = photos * PER_PHOTO
    run = work_folders.fresh_run_folder()
    folder = work_folders.random_jpegs(f"shape_photos_{photos}", photos, 48, 64, seed=32, stem="s")
    coco = coco_polygons(photos)
    project = run / "shapes.fieldstudio"
    in_process("new", str(project))
    in_process("add", str(project), str(folder))
    t_ref, mb_ref = fresh_python("-c", "import sys; from pycocotools.coco import COCO; COCO(sys.argv[1])", str(coco))
    t_ours, mb_ours = fresh_process("annotations", "import", str(project), str(coco), "--format", "coco")
    if polygons_in(project) != n:
        raise SystemExit(f"expected {n:,} polygons; fieldstudio stored {polygons_in(project):,}")
    size = coco.stat().st_size / 1e6
    print(f"{n:,} COCO polygons ({VERTICES} vertices) on {photos} photos ({size:.0f} MB): `fieldstudio annotations "
          f"import` {t_ours:.1f} s, peak {mb_ours:.0f} MB; pycocotools COCO(file) {t_ref:.1f} s, peak {mb_ref:.0f} MB;"
          f" ratios {t_ours / t_ref:.1f}x time, {mb_ours / mb_ref:.1f}x memory")
    targets.declare(f"`fieldstudio annotations import`, {n:,} COCO polygons", t_ours / t_ref, 10,
                    better=targets.LOWER, reference="pycocotools COCO(file) of the same file (load and index only)")
    targets.declare(f"peak memory of `fieldstudio annotations import`, {n:,} COCO polygons", mb_ours, 1024,
                    better=targets.LOWER, reference=f"issue 36: under 1 GB (pycocotools: {mb_ref:.0f} MB)", unit="MB")
    targets.print_own_table()


if __name__ == "__main__":
    main()
