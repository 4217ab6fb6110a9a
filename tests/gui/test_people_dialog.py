"""Annotate ▸ Detect people… (issue 34 item 3): proposals on a frame range of the shared data's worker clip drawn as
dashed boxes; a reject and an "accept all" are one undo step each (an undone accept gives the proposals back); the
accepted boxes are ordinary boxes labelled "person"."""

from __future__ import annotations

import os
import shutil

import pytest
from PySide6.QtWidgets import QGraphicsRectItem

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core.box_overlap import box_iou
from fieldstudio.gui.people_dialog import detect_people_dialog
from fieldstudio.media import library, video_index
from tests.support.gui_support import blank_window, open_media
from tests.support.people_frames import MARKED_PEOPLE, NO_HOG_REASON, WORKER_CLIP, hog_available
from tests.support.shared_data import SHARED_DATA

pytestmark = pytest.mark.skipif(not hog_available(), reason=NO_HOG_REASON)


def _dashed(window) -> list:
    return [i for i in window.view.canvas.scene().items() if isinstance(i, QGraphicsRectItem) and i.zValue() == 12]


def test_detect_people_on_a_range_reject_accept_all_and_undo(qtbot, tmp_path):
    w = blank_window(qtbot, tmp_path / "p.fieldstudio")
    try:
        w.resize(1280, 800)
        clip = tmp_path / "worker.mp4"
        shutil.copy(SHARED_DATA / "media" / WORKER_CLIP, clip)
        project = w.state.project
        library.add_paths(project, [clip])
        video_index.index_videos(project)
        w.library.reload()
        mid = open_media(w, qtbot, "worker.mp4")
        dialog = detect_people_dialog(w)
        dialog.range.setChecked(True)
        dialog.first.setValue(15)
        dialog.last.setValue(45)
        dialog.every.setValue(15)
        assert dialog.detect() is not None
        qtbot.waitUntil(lambda: dialog.worker is None, timeout=60000)
        found = list(dialog.pending)
        assert found and {p.frame_index for p in found} <= {15, 30, 45}
        assert "people proposed on 3 frame(s)" in dialog.note.text()
        on_45 = [k for k, p in enumerate(found) if p.frame_index == 45]
        dialog.list.setCurrentRow(on_45[0])                       # goes to frame 45 and draws its proposals
        qtbot.waitUntil(lambda: w.state.frame_index == 45, timeout=10000)
        assert len(_dashed(w)) == len(on_45)
        assert any(box_iou(found[k].box, MARKED_PEOPLE[(WORKER_CLIP, 45)][0]) >= 0.5 for k in on_45)
        shots = os.environ.get("FS_SHOTS")
        if shots:
            qtbot.wait(200)
            w.grab().save(os.path.join(shots, "people_proposed.png"))
            dialog.grab().save(os.path.join(shots, "people_dialog.png"))

        rejected = dialog.pending[dialog.list.currentRow()]
        assert dialog.reject_proposals([rejected])
        assert rejected not in dialog.pending and w.annotator.undo_stack.undoText() == "Reject 1 proposal"
        w.annotator.undo_stack.undo()
        assert rejected in dialog.pending

        assert dialog.accept_proposals(list(dialog.pending))
        boxes = ann.list_annotations(project, media_id=mid, kinds=("box",))
        assert len(boxes) == len(found) and dialog.pending == [] and _dashed(w) == []
        assert {b.label_name for b in boxes} == {"person"} and {b.frame_index for b in boxes} <= {15, 30, 45}
        if shots:
            qtbot.wait(200)
            w.grab().save(os.path.join(shots, "people_accepted.png"))
        w.annotator.undo_stack.undo()                             # one step takes every box back
        assert ann.list_annotations(project, media_id=mid, kinds=("box",)) == []
        assert len(dialog.pending) == len(found)
        w.annotator.undo_stack.redo()
        assert len(ann.list_annotations(project, media_id=mid, kinds=("box",))) == len(found)
        dialog.close()
    finally:
        w.close()
