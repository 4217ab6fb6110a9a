"""The annotation side widgets (labels, calibration, tags, annotation list, export) on the demo project.

The demo grows as other work adds to it, so expected counts are read from the database with plain
SQL (``db_count``, ``expected_boxes``: track boxes span every frame from a track's first to its last
keyframe), not from the widgets' own services. Values computed by hand: times from the worker clip's
constant 15 fps (segment walking 0-48 ends at 48/15 = 3.2 s; standing starts at 49/15 = 3.267 s and
lasts 21/15 = 1.4 s; the event on frame 36 is at 2.4 s), a 500 px ruler under a 2 m / 100 px scale
(10 m), floor distances through a homography solved in the test with cv2 from the four corners.
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from sqlalchemy import func, select
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from fieldstudio.annotations import rows as views
from fieldstudio.core.calibration_preview import preview_calibration
from fieldstudio.core.errors import CalibrationError
from tests.support import demo_data as demo
from fieldstudio.gui.panels.annotation_list import (ANNOTATION_ID_ROLE, ANY, FLAGS_COL, UNLABELLED, AnnotationListPanel, END_COL,
                                                    MEASURE_COL, TIME_COL)
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import labels
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.edits import AddRuler, AddSegment, SaveCalibration, SetCameraGroup
from fieldstudio.gui.panels.calibration import CalibrationDialog, CalibrationListPanel
from fieldstudio.gui.panels.export_dialog import ExportDialog
from fieldstudio.gui.panels.label_set import NAME_COL, KEY_COL, LabelSetDialog
from fieldstudio.gui.panels.tags import TagsPanel
from fieldstudio.gui.state import ViewState
from fieldstudio.media import library
from fieldstudio.store.edits import EditGroup
from fieldstudio.store.models import Annotation, Label
from fieldstudio.store.project import Project

SHOTS = Path("/tmp/aw")


class EditLog:
    """A minimal apply_edit: do the edit and keep it; ``undo()`` takes back the newest."""

    def __init__(self) -> None:
        self.edits: list = []

    def __call__(self, edit) -> None:  # noqa: ANN001 - store.edits.Edit
        edit.do()
        self.edits.append(edit)

    def undo(self) -> None:
        self.edits.pop().undo()


def mid(project: Project, file_name: str) -> str:
    return library.find_media(project, file_name).id


def db_count(project: Project, *, media_id: str | None = None, kind: str | None = None,
             label: str | None = None, unlabelled: bool = False) -> int:
    """Live annotations matching the filters, counted with plain SQL."""
    q = select(func.count()).select_from(Annotation).where(Annotation.deleted.is_(False))
    if media_id:
        q = q.where(Annotation.media_id == media_id)
    if kind:
        q = q.where(Annotation.kind == kind)
    if label:
        q = q.join(Label, Label.id == Annotation.label_id).where(Label.name == label)
    if unlabelled:
        q = q.where(Annotation.label_id.is_(None))
    with project.read() as s:
        return s.scalar(q)


def expected_boxes(project: Project, media_ids=None) -> tuple[int, int, int]:
    """(images, boxes, tracked boxes) an export with interpolated tracks holds, from the raw box rows."""
    with project.read() as s:
        rows = s.execute(select(Annotation.media_id, Annotation.frame_index, Annotation.track_id,
                                Annotation.is_keyframe).where(Annotation.kind == "box",
                                                              Annotation.deleted.is_(False))).all()
    frames, spans, boxes = set(), {}, 0
    for m, f, track, key in rows:
        if media_ids is not None and m not in media_ids:
            continue
        if track is not None and key and f is not None:
            spans.setdefault((m, track), []).append(f)
        else:
            frames.add((m, f))
            boxes += 1
    tracked = 0
    for (m, _track), fs in spans.items():
        tracked += max(fs) - min(fs) + 1
        frames |= {(m, f) for f in range(min(fs), max(fs) + 1)}
    return len(frames), boxes + tracked, tracked


def activate(qtbot, widget) -> None:  # noqa: ANN001
    """Show ``widget`` as the active window, so its keyboard shortcuts (Delete) work as for a user."""
    widget.show()
    widget.activateWindow()
    qtbot.waitUntil(widget.isActiveWindow, timeout=3000)


def shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


def floor_distance_by_hand(quad, size_m, p, q) -> float:
    """Ground distance through a homography solved here with cv2 from the four correspondences."""
    w, d = size_m
    h = cv2.getPerspectiveTransform(np.float32(quad), np.float32([[0, 0], [w, 0], [w, d], [0, d]]))
    pts = cv2.perspectiveTransform(np.float64([[p, q]]), h)[0]
    return float(np.hypot(*(pts[1] - pts[0])))


# -- headless pieces --------------------------------------------------------------------------------
def test_format_pts_time():
    assert views.format_pts_time(49 / 15) == "00:00:03.267"
    assert views.format_pts_time(3725.5) == "01:02:05.500"
    assert views.format_pts_time(None) == ""


def test_preview_scale_and_floor():
    p = preview_calibration("scale", [(10, 20), (110, 20)], length_m=2.0)
    assert p.reference_px == pytest.approx(100.0)
    assert p.metres_per_pixel == pytest.approx(0.02)
    f = preview_calibration("floor", demo.FLOOR_QUAD, width_m=4.0, depth_m=3.0)
    assert f.diagonal_m == pytest.approx(5.0, abs=1e-6)      # 3-4-5 triangle
    assert f.reprojection_error_m < 1e-6
    with pytest.raises(CalibrationError, match="collinear"):
        preview_calibration("floor", [(0, 0), (100, 0), (200, 0), (50, 80)], width_m=1, depth_m=1)
    with pytest.raises(CalibrationError, match="positive length"):
        preview_calibration("scale", [(0, 0), (100, 0)], length_m=0.0)


def test_edit_group_undoes_done_members_when_one_fails(demo_project):
    photo = mid(demo_project, demo.ELECTRICIANS)
    bad = EditGroup("Calibrate", [SetCameraGroup(demo_project, [photo], "wire room"),
                                  SaveCalibration(demo_project, kind="scale", points=[[5, 5], [5, 5]],
                                                  camera_group="wire room", length_m=1.0)])
    with pytest.raises(CalibrationError):
        bad.do()
    assert views.media_brief(demo_project, photo).camera_group is None   # the first member was undone
    good = EditGroup("Calibrate", [SetCameraGroup(demo_project, [photo], "wire room"),
                                   SaveCalibration(demo_project, kind="scale", points=[[0, 0], [0, 50]],
                                                   camera_group="wire room", length_m=1.0)])
    good.do()
    assert views.media_brief(demo_project, photo).camera_group == "wire room"
    assert cal.calibration_for(demo_project, photo, "scale").length_m == 1.0
    good.undo()
    assert views.media_brief(demo_project, photo).camera_group is None
    assert cal.calibration_for(demo_project, photo, "scale") is None


# -- labels -----------------------------------------------------------------------------------------
def test_label_set_add_rename_recolour_delete(qtbot, demo_project):
    log = EditLog()
    dlg = LabelSetDialog(demo_project, log)
    qtbot.addWidget(dlg)
    activate(qtbot, dlg)
    table = dlg.table
    # every label: the demo's 10 (person .. forklift for boxes, two segment labels, an event, "distance",
    # the task set's polygon label "floor zone")
    assert table.rowCount() == 10
    dlg.show_kind.setCurrentIndex(dlg.show_kind.findData("box"))         # the boxes' list and its keys
    assert table.rowCount() == 5
    assert [table.item(i, KEY_COL).text() for i in range(5)] == [str(k) for k in range(1, 6)]
    assert [table.item(i, NAME_COL).text() for i in range(3)] == ["person", "helmet", "vest"]
    person_uses = db_count(demo_project, label="person")
    assert person_uses > 0 and table.item(0, 2).text() == str(person_uses)
    shot(dlg, "label_set")

    def row_of(name):
        return [table.item(i, NAME_COL).text() for i in range(table.rowCount())].index(name)

    for n, name in enumerate(("cart", "trolley", "ladder"), start=6):
        dlg.name_edit.clear()
        qtbot.keyClicks(dlg.name_edit, name)
        qtbot.mouseClick(dlg.add_button, Qt.MouseButton.LeftButton)
        assert table.rowCount() == n
        assert labels.find_label(demo_project, name).shortcut == n            # the lowest key free in the list
        assert labels.find_label(demo_project, name).kinds == ("box",)
    dlg.name_edit.clear()
    qtbot.keyClicks(dlg.name_edit, "crate")
    qtbot.keyClick(dlg.name_edit, Qt.Key.Key_Return)
    assert labels.find_label(demo_project, "crate").shortcut == 9
    dlg.name_edit.clear()
    qtbot.keyClicks(dlg.name_edit, "pallet")
    qtbot.keyClick(dlg.name_edit, Qt.Key.Key_Return)
    assert table.rowCount() == 10
    assert labels.find_label(demo_project, "pallet").shortcut is None      # keys 1-9 of the list all taken
    assert table.item(row_of("pallet"), KEY_COL).text() == ""

    dlg.name_edit.clear()
    qtbot.keyClicks(dlg.name_edit, "helmet")                                # duplicate name refused
    qtbot.mouseClick(dlg.add_button, Qt.MouseButton.LeftButton)
    assert "already exists" in dlg.message.text() and table.rowCount() == 10

    table.selectRow(row_of("cart"))
    dlg.name_edit.setFocus()
    dlg.name_edit.selectAll()
    qtbot.keyClicks(dlg.name_edit, "blue cart")
    qtbot.mouseClick(dlg.rename_button, Qt.MouseButton.LeftButton)
    assert labels.find_label(demo_project, "cart") is None
    cart = labels.find_label(demo_project, "blue cart")
    assert cart.shortcut == 6 and table.item(row_of("blue cart"), NAME_COL).text() == "blue cart"

    table.selectRow(0)                                                     # person: in use
    qtbot.mouseClick(dlg.delete_button, Qt.MouseButton.LeftButton)
    assert f"used by {person_uses} annotation(s)" in dlg.message.text()
    assert labels.find_label(demo_project, "person") is not None and table.rowCount() == 10

    table.selectRow(row_of("forklift"))
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Delete)
    assert labels.find_label(demo_project, "forklift") is None and table.rowCount() == 9
    log.undo()
    dlg.refresh()
    forklift = labels.find_label(demo_project, "forklift")
    assert forklift.shortcut == 5 and table.rowCount() == 10
    assert forklift.attributes == (labels.AttributeSpec("loaded", "bool"),)   # undo brings the attributes back

    table.selectRow(row_of("blue cart"))
    qtbot.mouseClick(dlg.colour_button, Qt.MouseButton.LeftButton)
    assert dlg.colour_dialog.isVisible()
    dlg.colour_dialog.setCurrentColor(QColor("#123456"))
    dlg.colour_dialog.accept()
    assert labels.get_label(demo_project, cart.id).color == "#123456"
    # offering it for events too: the checkbox of the selected label
    dlg.kind_boxes["event"].setChecked(True)
    assert labels.get_label(demo_project, cart.id).kinds == ("box", "event")
    assert len(log.edits) == 8     # add x5, rename, recolour, kinds (delete undone)
    rulers = LabelSetDialog(demo_project, log, kind="ruler")               # opened from the ruler tool
    qtbot.addWidget(rulers)
    # the ruler list holds what rulers measure, not the boxes' "person"
    assert [rulers.table.item(i, NAME_COL).text() for i in range(rulers.table.rowCount())] == ["distance"]


# -- calibration ------------------------------------------------------------------------------------
def test_scale_calibration_changes_ruler_in_list(qtbot, demo_project):
    log = EditLog()
    photo = mid(demo_project, demo.ELECTRICIANS)
    log(AddRuler(demo_project, photo, (100, 100), (400, 500)))            # 500 px, not on the floor
    ruler_id = log.edits[-1].annotation_id
    panel = AnnotationListPanel(apply_edit=log)
    qtbot.addWidget(panel)
    panel.set_project(demo_project)
    panel.set_media(photo)
    panel.set_kind_filter("ruler")
    assert panel.visible_ids() == [ruler_id]
    cell = panel.proxy.index(0, MEASURE_COL)
    assert cell.data() == "500.0 px (uncalibrated)"

    dlg = CalibrationDialog(demo_project, photo, [(10, 10), (110, 10)], log)
    qtbot.addWidget(dlg)
    dlg.show()
    assert dlg.scope_media.isChecked()        # the photo is in no camera group
    dlg.length_m.setValue(0.0)
    assert not dlg.ok_button.isEnabled()
    assert "positive length in metres" in dlg.preview_label.text()
    dlg.accept()                                                           # refused: nothing saved
    assert cal.calibration_for(demo_project, photo, "scale") is None and dlg.isVisible()
    dlg.length_m.setValue(2.0)
    assert "0.02000 m per pixel" in dlg.preview_label.text() and dlg.ok_button.isEnabled()
    shot(dlg, "calibration_scale")
    with qtbot.waitSignal(dlg.calibration_changed) as sig:
        qtbot.mouseClick(dlg.ok_button, Qt.MouseButton.LeftButton)
    assert sig.args == [photo]
    rec = cal.calibration_for(demo_project, photo, "scale")
    assert (rec.media_id, rec.length_m) == (photo, 2.0)
    panel.refresh()
    assert panel.proxy.index(0, MEASURE_COL).data() == "10.000 m"          # 500 px x 0.02 m/px
    log.undo()                                                             # the calibration
    panel.refresh()
    assert panel.proxy.index(0, MEASURE_COL).data() == "500.0 px (uncalibrated)"


def test_collinear_floor_refused_and_group_recalibration(qtbot, demo_project):
    log = EditLog()
    photo = mid(demo_project, demo.WORKER_PHOTO)
    clip = mid(demo_project, demo.WORKER_CLIP)
    before = cal.list_calibrations(demo_project)
    bad = CalibrationDialog(demo_project, photo, [(0, 0), (100, 0), (200, 0), (50, 80)], log)
    qtbot.addWidget(bad)
    bad.show()
    assert "collinear" in bad.preview_label.text() and not bad.ok_button.isEnabled()
    shot(bad, "calibration_collinear")
    bad.accept()
    assert cal.list_calibrations(demo_project) == before and log.edits == []

    dlg = CalibrationDialog(demo_project, photo, demo.FLOOR_QUAD, log)
    qtbot.addWidget(dlg)
    dlg.show()
    assert dlg.scope_group.isChecked() and dlg.group_name.currentText() == demo.CAMERA_GROUP
    dlg.width_m.setValue(8.0)
    dlg.depth_m.setValue(8.0)
    assert "No independent check was made" in dlg.preview_label.text()  # the corners cannot test their own fit
    assert "Applies to the 2 media of camera group" in dlg.preview_label.text()
    shot(dlg, "calibration_floor")
    with qtbot.waitSignals([dlg.calibration_changed, dlg.calibration_changed]):
        dlg.accept()
    (rec,) = cal.list_calibrations(demo_project)                           # replaced in place
    assert (rec.id, rec.width_m, rec.depth_m) == (before[0].id, 8.0, 8.0)
    rulers = ann.list_annotations(demo_project, kinds=["ruler"])
    assert rulers and all(r.on_floor and r.media_id in (photo, clip) for r in rulers)
    for r in rulers:
        expected = floor_distance_by_hand(demo.FLOOR_QUAD, (8.0, 8.0), *r.geometry)
        assert cal.measure_ruler(demo_project, r.id).metres == pytest.approx(expected, rel=1e-6)
    feet = floor_distance_by_hand(demo.FLOOR_QUAD, (8.0, 8.0), *demo.FEET_TO_COLUMN)
    assert feet == pytest.approx(2 * 5.6057, rel=1e-3)       # twice the 4 m x 4 m figure


def test_calibration_new_group_and_list_delete(qtbot, demo_project):
    log = EditLog()
    photo = mid(demo_project, demo.ELECTRICIANS)
    dlg = CalibrationDialog(demo_project, photo, [(0, 0), (0, 400)], log)
    qtbot.addWidget(dlg)
    dlg.scope_group.setChecked(True)
    dlg.group_name.setCurrentText("")
    assert not dlg.ok_button.isEnabled() and "camera group's name" in dlg.preview_label.text()
    dlg.group_name.setCurrentText("wire room")
    dlg.length_m.setValue(1.6)
    dlg.accept()
    assert views.media_brief(demo_project, photo).camera_group == "wire room"
    assert cal.calibration_for(demo_project, photo, "scale").camera_group == "wire room"
    assert len(log.edits) == 1                                             # one undo step for both

    panel = CalibrationListPanel(apply_edit=log)
    qtbot.addWidget(panel)
    panel.set_project(demo_project)
    panel.resize(640, 200)
    activate(qtbot, panel)
    assert panel.table.rowCount() == 2
    texts = {panel.table.item(i, 0).text(): panel.table.item(i, 2).text() for i in range(2)}
    assert texts["camera group 'wire room' (1 media)"] == "1.6 m over 400.0 px"
    assert texts["camera group 'worker-zone camera' (2 media)"] == "4 m x 4 m floor rectangle"
    shot(panel, "calibration_list")
    row = [panel.table.item(i, 0).text() for i in range(2)].index("camera group 'worker-zone camera' (2 media)")
    panel.table.selectRow(row)
    changed: list[str] = []
    panel.calibration_changed.connect(changed.append)
    qtbot.keyClick(panel.table, Qt.Key.Key_Delete)
    assert sorted(changed) == sorted([mid(demo_project, demo.WORKER_CLIP), mid(demo_project, demo.WORKER_PHOTO)])
    assert panel.table.rowCount() == 1
    ruler = ann.list_annotations(demo_project, kinds=["ruler"])[0]
    assert cal.measure_ruler(demo_project, ruler.id).metres is None
    log.undo()
    panel.refresh()
    assert panel.table.rowCount() == 2
    log.undo()
    assert views.media_brief(demo_project, photo).camera_group is None


# -- tags -------------------------------------------------------------------------------------------
def items(lst) -> list[str]:
    return [lst.item(i).text() for i in range(lst.count())]


def test_tags_frame_and_media(qtbot, demo_project):
    log = EditLog()
    clip = mid(demo_project, demo.WORKER_CLIP)
    photo = mid(demo_project, demo.ELECTRICIANS)
    panel = TagsPanel(apply_edit=log)
    qtbot.addWidget(panel)
    activate(qtbot, panel)
    panel.set_project(demo_project)
    state = ViewState()                                                  # the window's: what the viewer shows
    panel.follow_view(state)
    state.media = library.find_media(demo_project, clip)
    state.show_frame(36, 0.0)
    assert items(panel.media_list) == [] and items(panel.frame_list) == []
    assert set(panel._completions.stringList()) == {"live panels", "head inside cabinet", "retail aisle",
                                                    "outdoor", "no workers"}
    qtbot.keyClicks(panel.tag_edit, "blurry")
    qtbot.keyClick(panel.tag_edit, Qt.Key.Key_Return)                    # Enter: the frame shown
    qtbot.keyClicks(panel.tag_edit, "no people")
    qtbot.mouseClick(panel.tag_media_button, Qt.MouseButton.LeftButton)
    tags = {t.text: t.frame_index for t in ann.list_annotations(demo_project, media_id=clip, kinds=["tag"])}
    assert tags == {"blurry": 36, "no people": None}
    assert items(panel.frame_list) == ["blurry"] and items(panel.media_list) == ["no people"]
    assert "blurry" in panel._completions.stringList()
    panel.resize(420, 300)
    shot(panel, "tags")
    state.show_frame(37, 0.0)
    assert items(panel.frame_list) == [] and items(panel.media_list) == ["no people"]
    assert panel.frame_title.text() == "Frame 37"

    state.media = library.find_media(demo_project, photo)                 # a photo has no frame tags
    state.show_frame(0, 0.0)
    assert items(panel.media_list) == ["live panels"] and not panel.tag_frame_button.isEnabled()
    panel.media_list.setCurrentRow(0)
    panel.media_list.item(0).setSelected(True)
    panel.media_list.setFocus()
    qtbot.keyClick(panel.media_list, Qt.Key.Key_Delete)
    assert ann.list_annotations(demo_project, media_id=photo, kinds=["tag"]) == []
    assert items(panel.media_list) == []
    log.undo()
    panel.refresh()
    assert items(panel.media_list) == ["live panels"]


def test_tags_of_the_frame_being_decoded_are_read_ahead_and_a_tag_added_meanwhile_is_shown(qtbot, demo_project,
                                                                                          monkeypatch):
    """The viewer sets ``frame_decoding`` when it asks for an exact frame: that frame's rows are read then (once for
    the marks and the tags, gui/viewer/frame_read_ahead.py), and the panel shows its tags when the frame is shown
    without reading again; a tag added in between is not lost."""
    from fieldstudio.annotations import frame_contents

    clip = mid(demo_project, demo.WORKER_CLIP)
    panel = TagsPanel(apply_edit=EditLog())
    qtbot.addWidget(panel)
    panel.set_project(demo_project)
    state = ViewState(project=demo_project)
    panel.follow_view(state)
    state.media = library.find_media(demo_project, clip)
    state.show_frame(36, 0.0)
    assert panel.add_tag("blurry", to_frame=True) and items(panel.frame_list) == ["blurry"]
    ann.add_tag(demo_project, clip, "rain", frame_index=37)
    reads, tag_reads = [], []
    real = frame_contents.read_frame
    monkeypatch.setattr(frame_contents, "read_frame", lambda *a: reads.append(a[2]) or real(*a))
    real_tags = views.tags_at
    monkeypatch.setattr(views, "tags_at", lambda *a: tag_reads.append(a[2]) or real_tags(*a))
    state.frame_decoding = 37
    assert reads == [37]
    state.show_frame(37, 0.0)
    assert reads == [37] and tag_reads == [] and items(panel.frame_list) == ["rain"]
    assert panel.frame_title.text() == "Frame 37"
    state.frame_decoding = 36
    ann.add_tag(demo_project, clip, "dark", frame_index=36)   # another window's edit, then its refresh
    panel.refresh()
    state.show_frame(36, 0.0)
    assert items(panel.frame_list) == ["blurry", "dark"]


# -- annotation list --------------------------------------------------------------------------------
def test_list_filters_and_times(qtbot, demo_project):
    clip = mid(demo_project, demo.WORKER_CLIP)
    panel = AnnotationListPanel()
    qtbot.addWidget(panel)
    panel.resize(1000, 500)
    panel.show()
    panel.set_project(demo_project)
    assert panel.proxy.rowCount() == 0
    panel.set_media(clip)
    assert panel.proxy.rowCount() == db_count(demo_project, media_id=clip)
    person = labels.find_label(demo_project, "person").id
    panel.set_label_filter(person)
    assert panel.proxy.rowCount() == db_count(demo_project, media_id=clip, label="person")
    panel.set_kind_filter("box")
    assert panel.proxy.rowCount() == db_count(demo_project, media_id=clip, label="person", kind="box") >= 7
    panel.set_label_filter(ANY)
    assert panel.proxy.rowCount() == db_count(demo_project, media_id=clip, kind="box")
    panel.set_kind_filter("event")
    assert [panel.proxy.index(i, TIME_COL).data() for i in range(panel.proxy.rowCount())] == ["00:00:02.400"]
    panel.set_kind_filter("segment")
    rows = {panel.proxy.index(i, 2).data(): (panel.proxy.index(i, TIME_COL).data(), panel.proxy.index(i, END_COL).data())
            for i in range(panel.proxy.rowCount())}
    assert rows == {"walking": ("00:00:00.000", "48 (3.200 s)"), "standing": ("00:00:03.267", "70 (1.400 s)")}
    panel.set_kind_filter("ruler")
    assert panel.proxy.rowCount() == db_count(demo_project, media_id=clip, kind="ruler") >= 1
    for i in range(panel.proxy.rowCount()):
        r = ann.get_annotation(demo_project, panel.proxy.index(i, 0).data(ANNOTATION_ID_ROLE))
        expected = floor_distance_by_hand(demo.FLOOR_QUAD, demo.FLOOR_SIZE_M, *r.geometry)
        assert panel.proxy.index(i, MEASURE_COL).data() == f"{expected:.3f} m"
    panel.set_kind_filter(ANY)
    shot(panel, "annotation_list_clip")

    panel.all_media.setChecked(True)
    assert panel.proxy.rowCount() == db_count(demo_project)
    panel.set_label_filter(person)
    assert panel.proxy.rowCount() == db_count(demo_project, label="person")
    panel.set_label_filter(UNLABELLED)
    assert panel.proxy.rowCount() == db_count(demo_project, unlabelled=True) >= 5     # at least the 5 tags
    panel.set_label_filter(ANY)
    panel.set_kind_filter("tag")
    assert panel.proxy.rowCount() == db_count(demo_project, kind="tag") >= 5


def test_open_and_overlapping_segments_flagged(qtbot, demo_project):
    clip = mid(demo_project, demo.WORKER_CLIP)
    walking = labels.find_label(demo_project, "walking").id
    AddSegment(demo_project, clip, walking, 40).do()                       # open: runs to the end, overlaps 0-48
    panel = AnnotationListPanel()
    qtbot.addWidget(panel)
    panel.set_project(demo_project)
    panel.set_media(clip)
    panel.set_kind_filter("segment")
    flags = sorted((panel.proxy.index(i, END_COL).data(), panel.proxy.index(i, FLAGS_COL).data())
                   for i in range(panel.proxy.rowCount()))
    assert flags == [("48 (3.200 s)", "overlaps 1"), ("70 (1.400 s)", ""), ("open", "open segment, overlaps 1")]
    assert "1 open segment(s); 2 overlapping segment(s)" in panel.summary.text()
    panel.resize(1000, 200)
    panel.show()
    shot(panel, "annotation_list_flags")


def test_jump_delete_and_undo(qtbot, demo_project):
    log = EditLog()
    clip = mid(demo_project, demo.WORKER_CLIP)
    panel = AnnotationListPanel(apply_edit=log)
    qtbot.addWidget(panel)
    activate(qtbot, panel)
    panel.set_project(demo_project)
    panel.set_media(clip)
    panel.set_kind_filter("event")
    (event_id,) = panel.visible_ids()
    panel.view.setFocus()
    panel.view.setCurrentIndex(panel.proxy.index(0, 0))
    with qtbot.waitSignal(panel.jump) as sig:
        qtbot.keyClick(panel.view, Qt.Key.Key_Return)
    assert sig.args == [clip, 36, event_id]

    photo = mid(demo_project, demo.WORKER_PHOTO)
    panel.set_media(photo)
    panel.set_kind_filter("box")
    first = panel.visible_ids()[0]
    rect = panel.view.visualRect(panel.proxy.index(0, 1))
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(panel.jump) as sig:
        qtbot.mouseDClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert sig.args == [photo, 0, first]

    panel.set_media(clip)
    panel.set_label_filter(labels.find_label(demo_project, "helmet").id)
    helmet = panel.visible_ids()
    boxes = db_count(demo_project, media_id=clip, kind="box")
    assert len(helmet) == db_count(demo_project, media_id=clip, kind="box", label="helmet") == 6
    panel.view.selectAll()
    qtbot.keyClick(panel.view, Qt.Key.Key_Delete)
    assert panel.proxy.rowCount() == 0
    assert db_count(demo_project, media_id=clip, kind="box") == boxes - 6
    assert all(ann.get_annotation(demo_project, i).deleted for i in helmet)
    log.undo()
    panel.refresh()
    assert sorted(panel.visible_ids()) == sorted(helmet)
    assert db_count(demo_project, media_id=clip, kind="box") == boxes


# -- export -----------------------------------------------------------------------------------------
def run_export(qtbot, dlg: ExportDialog, fmt: str, out: Path, *, media: bool = False):
    dlg.set_format(fmt)
    dlg.path.setText(str(out))
    (dlg.scope_media if media else dlg.scope_project).setChecked(True)
    qtbot.mouseClick(dlg.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dlg.last_report is not None or dlg.last_error is not None, timeout=20000)
    if dlg.summary_box is not None:
        dlg.summary_box.close()
    return dlg.last_report


def test_export_dialog_formats_and_scope(qtbot, demo_project, tmp_path):
    clip = mid(demo_project, demo.WORKER_CLIP)
    dlg = ExportDialog(demo_project, clip)
    qtbot.addWidget(dlg)
    dlg.show()
    assert dlg.path.text().endswith("demo_coco.json")

    n_images, n_boxes, _ = expected_boxes(demo_project)
    run_export(qtbot, dlg, "coco", tmp_path / "all.json")
    doc = json.loads((tmp_path / "all.json").read_text())
    n_polygons = db_count(demo_project, kind="polygon")                  # the task set's floor zone: 1
    assert n_polygons == 1
    assert (len(doc["images"]), len(doc["annotations"])) == (n_images, n_boxes + n_polygons)
    assert len(doc["categories"]) == len(labels.list_labels(demo_project))
    assert f"Exported {n_boxes + n_polygons} annotation(s) on {n_images} image(s)/frame(s) as COCO." in dlg.message.text()
    assert str(tmp_path / "all.json") in dlg.message.text()
    shot(dlg, "export_dialog")

    clip_images, clip_boxes, clip_tracked = expected_boxes(demo_project, {clip})
    assert (clip_images, clip_tracked) == (71, 142)     # two tracks spanning frames 0-70 (hand-counted)
    run_export(qtbot, dlg, "coco", tmp_path / "clip.json", media=True)
    part = json.loads((tmp_path / "clip.json").read_text())
    assert (len(part["images"]), len(part["annotations"])) == \
        (clip_images, clip_boxes + db_count(demo_project, media_id=clip, kind="polygon"))
    assert {im["fieldstudio_media_id"] for im in part["images"]} == {clip}
    # the same boxes as the project export's images of that clip
    whole = {im["id"]: im["file_name"] for im in doc["images"] if im["fieldstudio_media_id"] == clip}
    mine = {im["id"]: im["file_name"] for im in part["images"]}
    assert sorted((whole[a["image_id"]], tuple(a["bbox"])) for a in doc["annotations"] if a["image_id"] in whole) == \
        sorted((mine[a["image_id"]], tuple(a["bbox"])) for a in part["annotations"])

    table_kinds = ("box", "polygon", "segment", "event", "ruler", "tag")
    run_export(qtbot, dlg, "csv", tmp_path / "all.csv")
    with open(tmp_path / "all.csv", newline="") as fh:
        kinds = Counter(r["kind"] for r in csv.DictReader(fh))
    assert kinds == {k: db_count(demo_project, kind=k) for k in table_kinds if db_count(demo_project, kind=k)}
    run_export(qtbot, dlg, "csv", tmp_path / "clip.csv", media=True)
    with open(tmp_path / "clip.csv", newline="") as fh:
        kinds = Counter(r["kind"] for r in csv.DictReader(fh))
    assert kinds == {k: db_count(demo_project, media_id=clip, kind=k) for k in table_kinds
                     if db_count(demo_project, media_id=clip, kind=k)}
    assert kinds["segment"] == 2 and kinds["event"] == 1

    run_export(qtbot, dlg, "mot", tmp_path / "mot", media=True)
    (gt,) = list((tmp_path / "mot").glob("*/gt/gt.txt"))
    lines = [line.split(",") for line in gt.read_text().splitlines()]
    assert len(lines) == clip_tracked and {int(x[1]) for x in lines} == {1, 2}
    assert lines[0][:6] == ["1", "1", "244.00", "138.00", "98.00", "132.00"]  # person frame 0: 244,138-342,270

    run_export(qtbot, dlg, "yolo", tmp_path / "yolo")
    label_files = list((tmp_path / "yolo" / "labels").glob("*.txt"))
    assert len(label_files) == n_images
    lines = [line.split() for f in label_files for line in f.read_text().splitlines()]
    assert sum(len(v) == 5 for v in lines) == n_boxes                      # class cx cy w h
    assert sum(len(v) == 7 for v in lines) == n_polygons                   # class and the triangle's 3 vertices

    (tmp_path / "afile").write_text("x")
    run_export(qtbot, dlg, "yolo", tmp_path / "afile")
    assert dlg.last_report is None and "is a file" in dlg.message.text()
    assert dlg.message.text().startswith("The export failed")


def test_export_dialog_writes_the_frames_when_images_is_ticked(qtbot, demo_project, tmp_path):
    # the command line's --images: one image file per labelled image, of the media's own size
    dlg = ExportDialog(demo_project, None)
    qtbot.addWidget(dlg)
    dlg.set_format("mot")
    assert not dlg.images.isEnabled()          # MOT carries no images
    dlg.set_format("yolo")
    assert dlg.images.isEnabled()
    dlg.images.setChecked(True)
    n_images, n_boxes, _ = expected_boxes(demo_project)
    run_export(qtbot, dlg, "yolo", tmp_path / "yolo")
    labels_dir, images_dir = tmp_path / "yolo" / "labels", tmp_path / "yolo" / "images"
    stems = sorted(f.stem for f in labels_dir.glob("*.txt"))
    written = sorted(images_dir.iterdir())
    assert len(stems) == len(written) == n_images
    assert sorted(f.stem for f in written) == stems
    from fieldstudio.store.models import Media

    with demo_project.read() as session:   # upright: a rotated video's frames have width and height swapped
        sizes = {size for w, h in session.execute(select(Media.width, Media.height)) if w for size in ((w, h), (h, w))}
    for f in written[:5]:
        image = cv2.imread(str(f))
        assert image is not None and (image.shape[1], image.shape[0]) in sizes
    dlg.images.setChecked(False)
    run_export(qtbot, dlg, "yolo", tmp_path / "no_images")
    assert not (tmp_path / "no_images" / "images").exists()


def test_missing_media_and_variable_frame_rate_times(qtbot, project):
    """Files that are gone are marked, their marks stay; times are the stored PTS, not index / fps."""
    from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID, add_test_media

    add_test_media(project)                      # rows only: neither file exists
    ann.add_event(project, VIDEO_ID, 3)          # PTS 1800 + 3000 + 3000 + 6000 = 13800 / 90000 s
    ann.add_box(project, PHOTO_ID, (10, 10, 40, 40))
    panel = AnnotationListPanel()
    qtbot.addWidget(panel)
    panel.set_project(project)
    panel.all_media.setChecked(True)
    shown = {panel.proxy.index(i, 0).data(): panel.proxy.index(i, TIME_COL).data()
             for i in range(panel.proxy.rowCount())}
    assert shown == {"walk.mp4 (missing)": "00:00:00.153", "site.jpg (missing)": ""}
