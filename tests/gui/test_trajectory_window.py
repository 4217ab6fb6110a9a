"""From the window only: a tracked worker's trajectory on the demo's calibrated floor (issue 32 item 3, "done when").

The demo's worker clip has tracks and its camera group a floor calibration. The window's figures are checked
against an independent computation here: the track's boxes interpolated by hand from its keyframes, their bottom
centres put on the floor with OpenCV's getPerspectiveTransform / perspectiveTransform from the stored corners, and
times from the stored frame table's PTS.
"""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from fieldstudio.annotations import box_tracks, calibrations
from fieldstudio.media import video_index
from fieldstudio.media.library import find_media
from tests.support import demo_data as demo
from tests.support.gui_support import open_media, wait_idle

pytestmark = pytest.mark.gui
SHOTS = Path("/tmp/shots/kinematics")


def independent_walk(project, media_id: str, track_id: int):
    """(frames, seconds from frame 0, floor XY per frame, ground point outside the calibrated rectangle per frame)
    computed without the trajectory module (OpenCV's pointPolygonTest: < 0 outside, 0 on the edge)."""
    keys = box_tracks.track_keyframes(project, media_id, track_id)
    kf = [k.frame_index for k in keys]
    frames = np.arange(kf[0], kf[-1] + 1)
    corners = np.array([k.geometry for k in keys], dtype=np.float64)
    box = np.column_stack([np.interp(frames, kf, corners[:, i]) for i in range(4)])
    ground = np.column_stack([(box[:, 0] + box[:, 2]) / 2, box[:, 3]])
    rec = calibrations.calibration_in_use(project, media_id)
    assert rec.kind == "floor"
    rect = np.float32([[0, 0], [rec.width_m, 0], [rec.width_m, rec.depth_m], [0, rec.depth_m]])
    h = cv2.getPerspectiveTransform(np.float32(rec.points), rect)
    xy = cv2.perspectiveTransform(ground[None, :, :], h)[0]
    quad = np.float32(rec.points)
    outside = [cv2.pointPolygonTest(quad, (float(x), float(y)), False) < 0 for x, y in ground]
    with project.read() as s:
        from fieldstudio.store.models import Media

        table = video_index.load_frame_table(project, s.get(Media, media_id))
    t = table.seconds_array()
    return frames, t[frames] - t[0], xy, outside


def test_supervisor_reads_metres_walked_and_speed_from_the_window(demo_window, qtbot, tmp_path):
    w = demo_window
    open_media(w, qtbot, demo.WORKER_CLIP)
    project, media = w.state.project, w.state.media
    track = min(t for t in {r.track_id for r in box_tracks.boxes_on_frame(project, media.id, 30)} if t is not None)
    frames, seconds, xy, outside = independent_walk(project, media.id, track)
    w.go_to(f"#{int(frames[0]) + 30}")
    wait_idle(w, qtbot)
    item = next(i for i in w.annotator.marks.items if getattr(i, "track_id", None) == track)
    item.setSelected(True)
    w.actions["trajectory"].trigger()
    dialog = w.annotator.trajectory.dialog
    assert dialog is not None and dialog.isVisible()
    t = dialog.trajectory
    steps = np.hypot(*np.diff(xy, axis=0).T)
    assert [p.frame_index for p in t.points] == frames.tolist()
    assert t.distance_m == pytest.approx(float(steps.sum()), rel=1e-6)
    assert [p.seconds for p in t.points] == pytest.approx(seconds.tolist())
    speeds = steps / np.diff(seconds)
    assert [p.speed_m_s for p in t.points[1:]] == pytest.approx(speeds.tolist(), rel=1e-6)
    assert f"{t.distance_m:.2f} m in" in dialog.summary.text() and "floor plane" in dialog.summary.text()
    assert dialog.table.rowCount() == len(frames)
    assert dialog.table.item(5, 5).text() == f"{t.points[5].distance_m:.3f}"
    # the path on the canvas reaches the frame shown, and names the metres walked so far
    path = w.annotator.trajectory.item
    assert path is not None and path.scene() is w.view.canvas.scene() and len(path.points) == 31
    # the demo worker stands outside the 4 x 4 m tape (tester's item 5): said in the summary, table and caption
    assert [p.outside_area for p in t.points] == outside
    n_out = sum(outside)
    assert n_out > 0 and f"{n_out} of {len(frames)} frame(s) outside the calibrated area" in dialog.summary.text()
    assert dialog.table.item(30, 7).text() == ("outside" if outside[30] else "inside")
    extrapolated = " (outside calibrated area)" if outside[30] else ""
    assert path.text == (f"#{track} {t.points[30].distance_m:.2f} m, {t.points[30].speed_m_s:.2f} m/s"
                         f"{extrapolated}")
    dialog.move(w.geometry().right() - dialog.width(), w.geometry().top() + 60)
    SHOTS.mkdir(parents=True, exist_ok=True)
    w.grab().save(str(SHOTS / "trajectory_canvas.png"))
    dialog.grab().save(str(SHOTS / "trajectory_table.png"))
    # a row chosen in the table shows that frame; the path follows
    dialog.frame_chosen.emit(int(frames[0]) + 10)
    qtbot.waitUntil(lambda: w.state.frame_index == int(frames[0]) + 10, timeout=10000)
    wait_idle(w, qtbot)
    assert len(path.points) == 11
    # smoothing is stated and changes the figures; Export CSV writes the table
    dialog.smooth.setValue(5)
    assert "smoothed over 5 frames" in dialog.summary.text()
    out = dialog.export_csv(str(tmp_path / "walk.csv"))
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(frames) and rows[0]["smoothed_over_frames"] == "5" and rows[0]["calibration"] == "floor"
    # another media closes it and takes the path off the canvas
    dialog.close()
    assert w.annotator.trajectory.item is None
