"""The filmstrip of Compare's evidence pane (fieldstudio.gui.panels.filmstrip) on the barcoded variable-rate clip
of tests/support/video_fixtures.py: frames 0-149 at 30 fps, then 15 fps from 5.000 s (frame 150) to frame 299 at
5 + 149/15 = 14.933 s. A segment over frames 150-180 (5.000-7.000 s) is the ground truth; the answer was sent
frames 10, 160, 170 and 250, so two of them are in it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PySide6.QtCore import Qt

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.compare import views as cv
from fieldstudio.gui.panels.comparison_detail import AnswerDetailPane
from fieldstudio.media import library, video_index
from fieldstudio.store.models import Task
from tests.support.scoring_fixtures import add_run
from tests.support.video_fixtures import H, W, read_barcode

SENT = (10, 160, 170, 250)


@pytest.fixture
def answered_clip(project, clips):
    """(project, media id, answer id): one segment-linked task on the vfr clip and one answer sent ``SENT``."""
    library.add_paths(project, [clips["vfr"]])
    assert video_index.index_videos(project) == []
    media = library.find_media(project, "vfr.mp4")
    table = video_index.load_frame_table(project, media)
    seg = ann.add_segment(project, media.id, None, 150, end_frame=180, text="lifting")
    with project.write() as s:
        t = Task(external_id="t1", query="When is the box lifted?", answer_type="time_range",
                 ground_truth="from 00:00:05.000 to 00:00:07.000",
                 ground_truth_extra={"annotation_link": {"kind": "segment_range", "annotation_id": seg}})
        s.add(t)
        s.flush()
        task_id = t.id
    frames = [{"media_id": media.id, "file_name": "vfr.mp4", "frame_index": i, "pts_s": table.seconds(i),
               "sha256": f"{i:064x}", "width": 320, "height": 192, "quality": 85, "bytes": 9000, "request": 0}
              for i in SENT]
    add_run(project, "m", {task_id: {"raw_text": "from 5 s to 6 s", "frames": frames}})
    with project.read() as s:
        from fieldstudio.store.models import Answer

        answer_id = s.query(Answer.id).scalar()
    return project, media.id, answer_id


def _icon_index(button) -> int:  # noqa: ANN001 - QToolButton
    image = button.icon().pixmap(button.iconSize()).toImage()
    image = image.convertToFormat(image.Format.Format_RGB888)
    rgb = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())[
        :, : image.width() * 3].reshape(image.height(), image.width(), 3)
    return read_barcode(cv2.resize(rgb, (W, H), interpolation=cv2.INTER_LINEAR))


def test_the_strip_shows_each_frame_sent_and_opens_the_viewer_at_it(qtbot, answered_clip):
    p, media_id, answer_id = answered_clip
    pane = AnswerDetailPane()
    qtbot.addWidget(pane)
    pane.resize(900, 600)
    pane.show()
    detail = cv.answer_detail(p, answer_id, None)
    with qtbot.waitSignal(pane.filmstrip.shown, timeout=20000) as drawn:
        pane.show_detail(detail, has_media=True, project=p)
    strip = pane.filmstrip
    assert drawn.args == [4]
    assert [b.text() for b in strip.buttons] == ["10 · 0.33 s", "160 · 5.67 s", "170 · 6.33 s", "250 · 11.67 s"]  # 5 + (i - 150) / 15
    assert [_icon_index(b) for b in strip.buttons] == list(SENT)        # the pictures are those frames
    assert ["in the ground truth" in b.toolTip() for b in strip.buttons] == [False, True, True, False]
    assert "2 in the ground truth" in strip.title.text()
    assert strip.timeline.summary() == ("video 0.000–14.933 s after its first frame; ground truth 5.000–7.000 s; "
                                        "4 frames sent of it, 2 in the ground truth")
    got = []
    pane.open_frame.connect(lambda m, i: got.append((m, i)))
    qtbot.mouseClick(strip.buttons[2], Qt.MouseButton.LeftButton)
    assert got == [(media_id, 170)]


def test_no_frames_recorded_hides_the_strip(qtbot, answered_clip):
    p, _media_id, answer_id = answered_clip
    pane = AnswerDetailPane()
    qtbot.addWidget(pane)
    detail = cv.answer_detail(p, answer_id, None)
    detail.frames = []
    pane.show_detail(detail, project=p)
    assert not pane.filmstrip.isVisibleTo(pane) and pane.filmstrip.buttons == []
