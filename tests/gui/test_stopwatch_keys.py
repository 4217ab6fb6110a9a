"""The stopwatch from the window (issue 32 item 3): Alt+W on one frame, Alt+Shift+W on another, the time between
them from the frames' PTS in the status bar and the annotation list, one undo.

By hand: the demo's worker clip runs at a constant 15 fps with frame 0 at PTS 0, so frames 10 and 40 are
30 / 15 = 2.000 s apart; the stored frame table is read here as the independent check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.gui.panels.annotation_list import ANNOTATION_ID_ROLE, MEASURE_COL
from fieldstudio.media import video_index
from fieldstudio.store.models import Media
from tests.support import demo_data as demo
from tests.support.gui_support import open_media, wait_idle

pytestmark = pytest.mark.gui
SHOTS = Path("/tmp/shots/kinematics")


def test_stopwatch_between_two_frames_from_the_window(demo_window, qtbot):
    w = demo_window
    open_media(w, qtbot, demo.WORKER_CLIP)
    project, media_id = w.state.project, w.state.media.id
    with project.read() as s:
        table = video_index.load_frame_table(project, s.get(Media, media_id))
    expected = table.seconds(40) - table.seconds(10)
    assert expected == pytest.approx(2.0)
    w.actions["stopwatch_stop"].trigger()
    assert "start the stopwatch first" in w.statusBar().currentMessage()
    w.go_to("#10")
    wait_idle(w, qtbot)
    w.actions["stopwatch_start"].trigger()
    assert "stopwatch started on frame 10" in w.statusBar().currentMessage()
    w.go_to("#40")
    wait_idle(w, qtbot)
    assert f"stopwatch running: {expected:.3f} s, 30 frame(s) since frame 10" in w.statusBar().currentMessage()
    w.actions["stopwatch_stop"].trigger()
    assert w.statusBar().currentMessage() == f"stopwatch: {expected:.3f} s, 30 frames (frame 10 to 40)"
    (kept,) = ann.list_annotations(project, media_id=media_id, kinds=["stopwatch"])
    assert (kept.frame_index, kept.end_frame_index, kept.duration_s) == (10, 40, pytest.approx(expected))
    panel = w.side.annotations
    panel.refresh()
    row = next(i for i in range(panel.proxy.rowCount()) if panel.proxy.index(i, 0).data(ANNOTATION_ID_ROLE) == kept.id)
    assert panel.proxy.index(row, MEASURE_COL).data() == f"{expected:.3f} s, 30 frames (frame 10 to 40)"
    w.annotations_dock.raise_()
    panel.view.selectRow(row)
    SHOTS.mkdir(parents=True, exist_ok=True)
    w.grab().save(str(SHOTS / "stopwatch.png"))
    w.actions["undo"].trigger()
    assert ann.list_annotations(project, media_id=media_id, kinds=["stopwatch"]) == []
