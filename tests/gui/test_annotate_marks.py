"""Readable marks in the real main window (issue 20): caption chips that never overlap and contrast with
their text, a label list per kind of mark, Home/End and the keyframe keys.

Caption rectangles are read from the scene with Qt's own device mapping of each chip (the chips ignore the
view's zoom), and the contrast is measured on the pixels the canvas renders, with WCAG 2.1's formula
written out here again, not taken from fieldstudio.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QImage

from fieldstudio.annotations import edits
from fieldstudio.annotations import labels
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.gui.viewer.overlay import BoxItem, CaptionChip, RulerItem
from tests.support.gui_support import open_media, wait_idle

pytestmark = pytest.mark.gui
PHOTO = "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"  # 480 x 270


def _wcag_luminance(r: int, g: int, b: int) -> float:
    def lin(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def _ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    la, lb = sorted((_wcag_luminance(*a), _wcag_luminance(*b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def chip_rects(window) -> dict[str, QRectF]:
    """Each visible caption chip's rectangle in viewport pixels, by its text (Qt maps ignore-zoom items)."""
    view = window.view.canvas
    out = {}
    for item in view.scene().items():
        if isinstance(item, CaptionChip) and item.isVisible() and item.text():
            w, h = item.screen_size()
            out[item.text()] = item.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, w, h))
    return out


def _at(window, x: float, y: float) -> QPoint:
    return window.view.canvas.mapFromScene(QPointF(x, y))


def drag(window, qtbot, a, b) -> None:
    vp = window.view.canvas.viewport()
    pa, pb = _at(window, *a), _at(window, *b)
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=pa)
    for t in (0.3, 0.6, 1.0):
        qtbot.mouseMove(vp, QPoint(round(pa.x() + (pb.x() - pa.x()) * t), round(pa.y() + (pb.y() - pa.y()) * t)))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=pb)


@pytest.mark.parametrize("zoom", [0.6, 1.0, 3.0])
def test_nested_boxes_captions_do_not_overlap_and_contrast(window, qtbot, zoom):
    p = window.state.project
    # mid-grey and yellow are the colours that contrast least with white and with black text
    person = labels.create_label(p, "person", "#767676")
    helmet = labels.create_label(p, "helmet #2", "#f0e442")
    vest = labels.create_label(p, "vest", "#d55e00")
    mid = open_media(window, qtbot, PHOTO)
    # helmet and vest nested in person, the helmet sharing the person's top edge (the case)
    for box, label in (((98, 57, 64, 165), person), ((110, 57, 24, 23), helmet), ((100, 84, 52, 60), vest)):
        assert window.annotator.apply(edits.AddBox(p, mid, box, label))
    window.view.canvas.set_zoom(zoom)
    window.view.canvas.centerOn(130.0, 120.0)
    qtbot.wait(50)
    rects = chip_rects(window)
    assert set(rects) == {"person", "helmet #2", "vest"}
    names = sorted(rects)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not rects[a].intersects(rects[b]), (a, rects[a], b, rects[b])
    viewport = QRectF(window.view.canvas.viewport().rect())
    for name, r in rects.items():
        assert viewport.contains(r), (name, r, viewport)  # the chip stays inside the view
    # contrast measured on the rendered pixels: the chip's fill (its most frequent colour) against the
    # pixel of its text farthest from that fill
    image: QImage = window.view.canvas.viewport().grab().toImage()
    dpr = image.devicePixelRatio()
    for name, r in rects.items():
        inner = r.adjusted(3, 3, -3, -3)
        counts: dict[tuple[int, int, int], int] = {}
        for y in range(int(inner.top() * dpr), int(inner.bottom() * dpr)):
            for x in range(int(inner.left() * dpr), int(inner.right() * dpr)):
                c = image.pixelColor(x, y)
                key = (c.red(), c.green(), c.blue())
                counts[key] = counts.get(key, 0) + 1
        fill = max(counts, key=counts.get)
        ink = max(counts, key=lambda c: sum((u - v) ** 2 for u, v in zip(c, fill)))
        assert _ratio(fill, ink) >= 4.5, (name, fill, ink, _ratio(fill, ink))




def test_a_ruler_after_a_labelled_box_gets_the_ruler_default_label(window, qtbot):
    p = window.state.project
    person = labels.create_label(p, "person", kinds=["box"])
    open_media(window, qtbot, PHOTO)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_B)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_1)          # the box list's key 1: person
    assert window.label_label.text() == "box label: person"
    drag(window, qtbot, (20.0, 20.0), (80.0, 90.0))
    (box,) = ann.list_annotations(p, media_id=window.state.media.id, kinds=["box"])
    assert box.label_id == person
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_R)
    assert window.label_label.text() == "ruler label: distance"
    drag(window, qtbot, (100.0, 100.0), (200.0, 150.0))
    (ruler,) = ann.list_annotations(p, media_id=window.state.media.id, kinds=["ruler"])
    assert ruler.label_name == "distance"
    assert labels.find_label(p, "distance").kinds == ("ruler",)
    # one undo removes the ruler and the label made with it
    window.actions["undo"].trigger()
    assert ann.list_annotations(p, media_id=window.state.media.id, kinds=["ruler"]) == []
    assert labels.find_label(p, "distance") is None
    window.actions["redo"].trigger()
    assert ann.list_annotations(p, media_id=window.state.media.id, kinds=["ruler"])[0].label_name == "distance"
    # back to boxes: the box list's label again, not the ruler's
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_B)
    assert window.annotator.label_id == person


def _status_texts(window) -> list[str]:
    """Every text the status bar shows: its timed message and its visible permanent read-outs."""
    from PySide6.QtWidgets import QLabel

    bar = window.statusBar()
    return [bar.currentMessage()] + [w.text() for w in bar.findChildren(QLabel) if w.isVisible() and w.text()]


def test_the_status_bar_names_the_current_label_only_while_it_applies(window, qtbot):
    p = window.state.project
    labels.create_label(p, "person", kinds=["box"])
    labels.create_label(p, "helmet", kinds=["box"])
    mid = open_media(window, qtbot, PHOTO)
    assert window.annotator.apply(edits.AddRuler(p, mid, (100.0, 100.0), (200.0, 150.0)))
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_B)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_2)          # the box list's key 2: helmet
    assert window.annotator.label_of("box") == labels.find_label(p, "helmet").id
    assert window.label_label.text() == "box label: helmet"
    # selecting the ruler makes the ruler list the active one: nothing may still say "box label: helmet"
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Escape)
    (ruler,) = [i for i in window.view.canvas.scene().items() if isinstance(i, RulerItem)]
    ruler.setSelected(True)
    assert window.label_label.text() == "ruler label: distance"
    assert not any("box label" in t for t in _status_texts(window)), _status_texts(window)
    # the other tabs make no marks: no label read-out there, and it comes back with the Media tab
    ruler.setSelected(False)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_B)
    frame_text = window.frame_label.text()
    assert frame_text
    window.workspace.show_panel("comparison")
    assert not any("label:" in t for t in _status_texts(window)), _status_texts(window)
    assert frame_text not in _status_texts(window)                # nor the viewer's frame read-out
    window.modes.setCurrentIndex(0)
    assert window.label_label.isVisible() and window.label_label.text() == "box label: helmet"
    assert window.frame_label.isVisible() and window.frame_label.text() == frame_text


def test_number_keys_pick_from_the_active_kinds_list(window, qtbot):
    p = window.state.project
    person = labels.create_label(p, "person", kinds=["box"])
    walking = labels.create_label(p, "walking", kinds=["segment"])
    fall = labels.create_label(p, "fall", kinds=["event"])
    assert {labels.get_label(p, i).shortcut for i in (person, walking, fall)} == {1}  # one key 1 per list
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.go_to("#4")
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_I)       # the segment list becomes active
    assert window.label_label.text() == "segment label: walking"
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_E)
    assert window.label_label.text() == "event label: fall"
    (seg,) = ann.list_annotations(p, media_id=window.state.media.id, kinds=["segment"])
    (ev,) = ann.list_annotations(p, media_id=window.state.media.id, kinds=["event"])
    assert (seg.label_id, ev.label_id) == (walking, fall)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_2)       # no event label has key 2
    assert "no event label has key 2" in window.statusBar().currentMessage()
    # a key right after I (or E) gives its label to the mark just made, in one undoable edit
    standing = labels.create_label(p, "standing", kinds=["segment"])
    window.go_to("#9")
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_I)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_2)
    started = [s for s in ann.list_annotations(p, media_id=window.state.media.id, kinds=["segment"]) if s.frame_index == 9]
    assert [s.label_id for s in started] == [standing]
    assert window.label_label.text() == "segment label: standing"
    assert ann.get_annotation(p, seg.id).label_id == walking   # the earlier segment keeps its label
    window.actions["undo"].trigger()
    assert ann.get_annotation(p, started[0].id).label_id == walking
    assert window.annotator.label_of("box") == person  # the box list's first label, never another list's


def test_home_end_and_keyframe_keys(window, qtbot):
    open_media(window, qtbot, "cfr_bframes.mp4")
    n = window.state.frame_count
    window.go_to("#7")
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_End)
    wait_idle(window, qtbot)
    assert window.state.frame_index == n - 1
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Home)
    wait_idle(window, qtbot)
    assert window.state.frame_index == 0
    p, mid = window.state.project, window.state.media.id
    for frame, x in ((10, 20.0), (20, 60.0), (30, 100.0)):
        ann.add_box(p, mid, (x, 30.0, 40.0, 40.0), None, frame_index=frame, track_id=7)
    window.go_to("#15")
    wait_idle(window, qtbot)
    (box,) = [i for i in window.view.canvas.scene().items() if isinstance(i, BoxItem)]
    assert not box.keyframe
    box.setSelected(True)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_BracketRight)
    wait_idle(window, qtbot)
    assert window.state.frame_index == 20
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_BracketRight)   # the track's box stayed selected
    wait_idle(window, qtbot)
    assert window.state.frame_index == 30
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_BracketLeft)
    wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_BracketLeft)
    wait_idle(window, qtbot)
    assert window.state.frame_index == 10
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_BracketLeft)
    assert "no keyframe before frame 10" in window.statusBar().currentMessage()
    # the F1 list names them
    from fieldstudio.gui.shortcuts import ShortcutsDialog

    dialog = ShortcutsDialog(window.actions, window)
    rows = {dialog.table.item(r, 0).text(): dialog.edits[aid].keySequence().toString()
            for r, aid in enumerate(dialog.edits)}
    assert rows["First frame"] == "Home" and rows["Last frame"] == "End"
    assert rows["Previous keyframe of the track"] == "[" and rows["Next keyframe of the track"] == "]"
    dialog.close()


def test_timeline_lanes_show_overlapping_segments_with_their_labels(window, qtbot):
    p = window.state.project
    walking = labels.create_label(p, "walking", "#0072b2", kinds=["segment"])
    carrying = labels.create_label(p, "carrying", "#e69f00", kinds=["segment"])
    fall = labels.create_label(p, "fall", "#ff4f79", kinds=["event"])
    open_media(window, qtbot, "cfr_bframes.mp4")
    mid = window.state.media.id
    for edit in (edits.AddSegment(p, mid, walking, 5, 20), edits.AddSegment(p, mid, carrying, 10, 30),
                 edits.AddSegment(p, mid, walking, 15, 25),   # overlaps the first walking one
                 edits.AddEvent(p, mid, 12, fall)):
        assert window.annotator.apply(edit)
    window.go_to("#16")
    wait_idle(window, qtbot)
    tl = window.view.timeline
    tl.grab()  # paint once
    drawn = tl.marker_rects()
    segs = [(label, r) for kind, label, _key, r in drawn if kind == "segment"]
    assert sorted(label for label, _ in segs) == ["carrying", "walking", "walking"]
    for i, (la, ra) in enumerate(segs):
        assert ra.width() > 2 and QRectF(tl.rect()).contains(ra), (la, ra)
        for lb, rb in segs[i + 1:]:
            assert not ra.intersects(rb), (la, ra, lb, rb)   # no segment hides another
    assert [lane.label for lane in tl.lanes()] == ["walking", "walking", "carrying", "fall"]  # by first mark
    assert {"carrying", "fall"} <= set(tl.drawn_texts)
    others = [t for t in tl.drawn_texts if t not in ("carrying", "fall")]
    # the narrower walking bars carry their label elided ("wal…"), never nothing
    assert len(others) == 2 and all(t and "walking".startswith(t.rstrip("…")) for t in others), others
    tl.zoom(3.0)
    tl.grab()
    assert "walking" in tl.drawn_texts
    tl.zoom(1 / 3.0)
    # hovering a bar tells its label, frames, PTS times and duration (from the frame table's PTS)
    (_, carry_rect), = [(la, r) for la, r in segs if la == "carrying"]
    pos = carry_rect.center().toPoint()
    qtbot.mouseMove(tl, pos)
    t = window.view.video.table
    want = t.seconds(30) - t.seconds(10)
    assert tl.toolTip() == (f"carrying: frames 10-30, {_pts(t.seconds(10))} to {_pts(t.seconds(30))}, "
                            f"duration {want:.3f} s (PTS)")


def test_timeline_lanes_scroll_when_there_are_many(window, qtbot):
    p = window.state.project
    open_media(window, qtbot, "cfr_bframes.mp4")
    mid = window.state.media.id
    for k in range(7):
        lab = labels.create_label(p, f"activity {k}", kinds=["segment"])
        assert window.annotator.apply(edits.AddSegment(p, mid, lab, 2 * k, 2 * k + 5))
    tl = window.view.timeline
    tl.grab()
    assert len(tl.lanes()) == 7
    shown = {label for _kind, label, _key, _r in tl.marker_rects()}
    assert shown == {f"activity {k}" for k in range(4)}
    tl._lane_scroll.setValue(tl._lane_scroll.maximum())
    shown = {label for _kind, label, _key, _r in tl.marker_rects()}
    assert shown == {f"activity {k}" for k in range(3, 7)}


def _pts(seconds: float) -> str:
    from fieldstudio.gui.imaging import format_pts

    return format_pts(seconds)


def test_typed_box_attributes_round_trip_into_coco_and_csv(window, qtbot, tmp_path):
    import json

    import pandas as pd

    from fieldstudio.annotations.exports.export import export_annotations
    from fieldstudio.gui.panels.box_editor import BoxEditorDialog

    p = window.state.project
    person = labels.create_label(p, "person", kinds=["box"], attributes=[
        {"name": "vest", "type": "bool"},
        {"name": "hard hat", "type": "choice", "choices": ["yes", "no", "not visible"]},
        {"name": "height", "type": "number"}, {"name": "note", "type": "text"}])
    mid = open_media(window, qtbot, PHOTO)
    # a box from before the typed fields: the old free text stored "vest=no" and an undeclared key
    assert window.annotator.apply(edits.AddBox(p, mid, (100, 60, 50, 120), person))
    (box,) = ann.list_annotations(p, media_id=mid, kinds=["box"])
    ann.update(p, box.id, attributes={"vest": "no", "camera side": "left"})
    dlg = BoxEditorDialog(p, box.id, window.annotator.apply, window)
    qtbot.addWidget(dlg)
    assert set(dlg.fields) == {"vest", "hard hat", "height", "note"}
    assert dlg.fields["vest"].currentText() == "no"            # the old text read into the yes/no field
    assert dlg.other.text() == "camera side=left"               # undeclared: kept, editable
    dlg.fields["vest"].setCurrentIndex(dlg.fields["vest"].findData("yes"))
    dlg.fields["hard hat"].setCurrentIndex(dlg.fields["hard hat"].findData("not visible"))
    qtbot.keyClicks(dlg.fields["height"], "1.8")
    qtbot.keyClicks(dlg.fields["note"], "near dock 3")
    dlg.accept()
    want = {"vest": True, "hard hat": "not visible", "height": 1.8, "note": "near dock 3", "camera side": "left"}
    assert ann.get_annotation(p, box.id).attributes == want
    window.actions["undo"].trigger()                            # one undoable edit
    assert ann.get_annotation(p, box.id).attributes == {"vest": "no", "camera side": "left"}
    window.actions["redo"].trigger()

    export_annotations(p, "coco", tmp_path / "coco.json")
    doc = json.loads((tmp_path / "coco.json").read_text())
    (a,) = [a for a in doc["annotations"] if a["fieldstudio_id"] == box.id]
    assert a["attributes"] == want
    export_annotations(p, "csv", tmp_path / "a.csv")
    df = pd.read_csv(tmp_path / "a.csv")
    row = df[df["annotation_id"] == box.id].iloc[0]
    assert (row["attr:vest"], row["attr:hard hat"], row["attr:height"], row["attr:note"], row["attr:camera side"]) \
        == ("yes", "not visible", 1.8, "near dock 3", "left")
    assert (row["x"], row["y"], row["width"], row["height"]) == (100, 60, 50, 120)


def test_a_value_outside_a_choice_is_refused_with_its_name(window, qtbot):
    from fieldstudio.gui.panels.box_editor import BoxEditorDialog

    p = window.state.project
    helmet = labels.create_label(p, "helmet", kinds=["box"],
                                 attributes=[{"name": "colour", "type": "choice", "choices": ["white", "yellow"]}])
    mid = open_media(window, qtbot, PHOTO)
    box = ann.add_box(p, mid, (10, 10, 20, 20), helmet, attributes={"colour": "blue"})
    dlg = BoxEditorDialog(p, box, window.annotator.apply, window)
    qtbot.addWidget(dlg)
    assert dlg.fields["colour"].currentText() == "blue (not a choice)"
    dlg.accept()
    assert "'colour': 'blue' is not one of white, yellow" in dlg.error.text()
    assert ann.get_annotation(p, box).attributes == {"colour": "blue"}   # nothing changed


def test_a_photo_shows_a_neutral_transport_on_the_pixel_grid(window, qtbot):
    open_media(window, qtbot, "cfr_bframes.mp4")
    window.go_to("#5")
    wait_idle(window, qtbot)
    assert window.view.transport.position.text().startswith("frame 5 /")
    window.notify("a message about the video")
    open_media(window, qtbot, PHOTO)
    text = window.view.transport.position.text()
    assert text == "photo: no frames to play or step" and "frame" not in text.replace("frames", "")
    assert not window.view.transport.isEnabled() and not window.view.timeline.isVisible()
    assert window.frame_label.text() == "photo"
    assert window.statusBar().currentMessage() == ""          # the video's message does not stay
    window.notify("a message about the photo")
    window.modes.setCurrentIndex(window.modes.count() - 1)    # another tab: the message does not follow
    assert window.statusBar().currentMessage() == ""
    window.modes.setCurrentIndex(0)
    # that the photo stays on whole physical pixels at 1:1 after the layout change is checked at device
    # pixel ratio 1.5 in test_canvas_dpr.py (at ratio 1 Qt's whole-pixel centring is always on the grid)
    # back on a video: the transport and the timeline again
    open_media(window, qtbot, "cfr_bframes.mp4")
    assert window.view.transport.isEnabled() and window.view.timeline.isVisible()
    assert window.view.transport.position.text().startswith("frame 0 /")


def test_pdf_search_marks_the_current_hit_and_scrolls_to_it(window, qtbot):
    from PySide6.QtWidgets import QGraphicsRectItem

    from tests.support.gui_support import SAMPLE_MEDIA

    pdf = SAMPLE_MEDIA / "docs" / "osha_factsheet_lockout_tagout_2002.pdf"
    open_media(window, qtbot, pdf.name)
    doc = window.view.document
    doc.canvas.set_zoom(3.0)   # zoomed in, so that going to a hit has to scroll
    n = doc.find("energy")
    assert n >= 3

    def marks():
        items = [i for i in doc.canvas.scene().items() if isinstance(i, QGraphicsRectItem) and i.data(0)]
        return [i for i in items if i.data(0) == "current"], [i for i in items if i.data(0) == "hit"]

    seen = set()
    for _ in range(3):
        (current,), others = marks()
        page, rect = doc.current_hit()
        assert current.rect() == rect and page == doc.page
        assert len(others) == sum(1 for p, _r in doc.hits if p == page) - 1
        # stronger: more opaque fill of another colour, and a thick outline
        assert current.brush().color().alpha() > max(o.brush().color().alpha() for o in others)
        assert current.brush().color().rgb() != others[0].brush().color().rgb()
        assert current.pen().widthF() > others[0].pen().widthF()
        shown = doc.canvas.mapToScene(doc.canvas.viewport().rect()).boundingRect()
        assert shown.contains(rect), (shown, rect)          # scrolled to it
        seen.add((page, rect.x(), rect.y()))
        assert f"{doc.hit_index + 1} of {n}" in doc.hit_label.text()
        doc.search.setFocus()
        qtbot.keyClick(doc.search, Qt.Key.Key_Return)       # Enter: the next hit
    assert len(seen) == 3


def test_a_stored_old_loop_key_does_not_take_the_keyframe_key():
    from fieldstudio.gui import shortcuts
    from fieldstudio.gui.settings import settings

    s = settings()
    s.setValue("shortcuts/loop_start", "[")        # stored by pressing OK in F1 before the keys moved
    s.setValue("shortcuts/loop_end", "Shift+E")    # a key the user chose
    s.sync()
    assert shortcuts.key_for("loop_start") == "Ctrl+["
    assert shortcuts.key_for("loop_end") == "Shift+E"
    assert shortcuts.key_for("prev_keyframe") == "["


def test_actions_made_from_one_read_have_the_keys_read_one_by_one(qapp):
    """The window's actions read every key in one read of the file; a user's key, a cleared key, an old
    default given away and an untouched default come out as ``key_for`` reads them alone."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QWidget

    from fieldstudio.gui import shortcuts
    from fieldstudio.gui.settings import settings

    s = settings()
    s.setValue("shortcuts/loop_start", "[")
    s.setValue("shortcuts/next_frame", "Ctrl+,")
    s.setValue("shortcuts/quit", "")
    s.sync()
    parent = QWidget()
    actions = shortcuts.make_actions(parent)
    assert list(actions) == list(shortcuts.DEFAULTS) and parent.actions() == list(actions.values())
    for aid, action in actions.items():
        assert action.shortcut() == QKeySequence(shortcuts.key_for(aid)), aid
    assert actions["loop_start"].shortcut().toString() == "Ctrl+["
    assert actions["next_frame"].shortcut().toString() == "Ctrl+," and actions["quit"].shortcut().isEmpty()
    assert actions["undo"].shortcut().toString() == "Ctrl+Z"
    assert actions["next_frame"].toolTip().endswith("(Ctrl+,)")
