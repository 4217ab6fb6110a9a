"""Behaviour coding from the window: the ethogram dialog, keys recording on the frame on screen while stepping and
while playing, the lanes per subject, the time budget, two coders compared, BORIS and ELAN files, undo per event.
Screenshots go to /tmp/shots/ethogram/ (FIELDSTUDIO_SHOTS overrides)."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import ethogram as eth
from fieldstudio.annotations.behaviour import observations
from fieldstudio.gui.ethogram_dialog import EthogramDialog
from tests.support.gui_support import open_media, wait_idle
from tests.support.video_fixtures import ffmpeg_frame, read_barcode

SHOTS = Path(os.environ.get("FIELDSTUDIO_SHOTS", "/tmp/shots/ethogram"))


def _shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SHOTS / name))


def _fill_ethogram(window, qtbot) -> EthogramDialog:
    dialog = EthogramDialog(window.state.project, window.annotator.apply_or_raise, window)
    qtbot.addWidget(dialog)
    for b in (eth.Behaviour("lift", "l", "#e6194b", "state", "posture", ("heavy", "light")),
              eth.Behaviour("walk", "w", "#3cb44b", "state", "posture"),
              eth.Behaviour("enter zone", "z", "#4363d8", "point")):
        dialog.add_behaviour_row(b)
    dialog.add_subject_row(eth.Subject("worker A", "1"))
    dialog.add_subject_row(eth.Subject("worker B", "2"))
    return dialog


def _step(window, qtbot, n: int) -> None:
    for _ in range(n):
        qtbot.keyClick(window.view.canvas, Qt.Key.Key_Right)
        wait_idle(window, qtbot)


def _coding_look(window, qtbot, clips):
    """The B-frames clip shown, an ethogram of one point event "look" (key k), coding on: (coding, media id)."""
    mid = open_media(window, qtbot, clips["cfr_bframes"].name)
    eth.SetEthogram(window.state.project, eth.Ethogram((eth.Behaviour("look", "k", "#4363d8", "point"),))).do()
    window.behaviour.follow()
    window.behaviour.coding_action.setChecked(True)
    return window.behaviour, mid


@pytest.mark.gui
def test_ethogram_dialog_refuses_a_clash_and_stores_one_undoable_edit(window, qtbot):
    dialog = _fill_ethogram(window, qtbot)
    row = dialog.add_subject_row(eth.Subject("worker C", "L"))
    dialog.show()
    dialog.accept()
    assert "key 'L' is already lift's" in dialog.error.text() and dialog.isVisible()
    _shot(dialog, "ethogram_dialog.png")
    dialog.subjects.removeRow(row)
    dialog.accept()
    stored = eth.load(window.state.project)
    assert [(b.name, b.key, b.type, b.group) for b in stored.behaviours] == [
        ("lift", "l", "state", "posture"), ("walk", "w", "state", "posture"), ("enter zone", "z", "point", "")]
    assert stored.behaviour("lift").modifiers == ("heavy", "light")
    assert "ethogram" in window.actions["undo"].text().lower()
    window.actions["undo"].trigger()
    assert eth.load(window.state.project) == eth.Ethogram()


@pytest.mark.gui
def test_keys_code_on_the_frame_shown_lanes_budget_coders_and_files(window, qtbot, clips, tmp_path):
    coding = window.behaviour
    mid = open_media(window, qtbot, clips["cfr_bframes"].name)
    dialog = _fill_ethogram(window, qtbot)
    dialog.accept()
    coding.choose_modifiers = lambda b: ("heavy",)
    coding.coding_action.trigger()                          # Annotate ▸ Code behaviours by key
    assert coding.coding
    project, codes = window.state.project, []
    label_before = window.annotator.label_of("box")

    def key(text: str) -> None:
        codes.append(window.state.frame_index)
        qtbot.keyClick(window.view.canvas, text)

    key("1")                                                 # subject A; not Annotate ▸ Use label 1
    assert coding.subject == "worker A" and window.annotator.label_of("box") == label_before
    _step(window, qtbot, 3)
    key("l")
    _step(window, qtbot, 4)
    key("w")                                                 # walk starts, lift (same group) stops: frame 7
    key("2")
    _step(window, qtbot, 2)
    key("z")
    key("1")
    _step(window, qtbot, 3)
    key("w")                                                 # walk stops on frame 12
    coded = events.list_events(project, mid)
    assert [(e.subject, e.behaviour, e.frame_index, e.end_frame_index, e.modifiers) for e in coded] == [
        ("worker A", "lift", 3, 7, ("heavy",)), ("worker A", "walk", 7, 12, ()), ("worker B", "enter zone", 9, 9, ())]
    assert codes[1] == 3 and window.state.frame_index == 12
    assert {e.coder for e in coded} == {coding.coder}
    # the PTS stored is the frame table's, the one the status bar showed
    assert coded[0].start_s == pytest.approx(window.view.video.table.seconds(3) - window.view.video.table.seconds(0))

    # lanes: one per subject, bars and ticks named after their behaviours
    lanes = [lane for lane in window.view.timeline.lanes() if lane.heading]
    assert [(lane.heading, [s.label for s in lane.segments], [t.label for t in lane.events]) for lane in lanes] == [
        ("worker A", ["lift", "walk"], []), ("worker B", [], ["enter zone"])]
    window.view.timeline.zoom(100.0, window.view.timeline.x_of_index(0))     # the 13 frames coded fill it
    window.view.timeline.repaint()
    assert {"worker A", "lift", "walk", "worker B", "enter zone"} <= set(window.view.timeline.drawn_texts)
    _shot(window, "behaviour_lanes.png")

    # undo per event: the last key press (walk's stop) only
    window.actions["undo"].trigger()
    assert events.list_events(project, mid)[1].is_open
    window.actions["redo"].trigger()
    assert not events.list_events(project, mid)[1].is_open

    # the events tab lists them; an edit from the dock is one undoable edit
    panel = coding.panel
    coding.show_tab(0)                                       # the tables are filled when the dock is in front
    assert panel.model.rowCount() == 3 and panel.model.index(0, 3).data() == "lift"
    panel.select_row(2)
    from fieldstudio.gui.panels.behaviour_panel import EventEditDialog
    edit = EventEditDialog(panel.selected_event(), ["worker A", "worker B"], 100)
    edit.start.setValue(10)
    panel.edit_selected(dialog=edit)
    assert events.list_events(project, mid)[2].frame_index == 10
    window.actions["undo"].trigger()
    assert events.list_events(project, mid)[2].frame_index == 9

    # the time budget tab shows what the service computes
    coding.show_tab(1)
    coding.dock.setFloating(True)                            # floated, wide enough to read in the screenshot
    coding.dock.resize(640, 520)
    qtbot.wait(50)
    budget = observations.budget(project, mid)
    shown = [tuple(panel.budget_table.item(r, c).text() for c in range(7)) for r in range(panel.budget_table.rowCount())]
    assert shown[0][:4] == ("worker A", "lift", "state", "1")
    assert shown[0][4] == f"{budget.rows[0].total_s:.3f}" and shown[0][6] == f"{budget.rows[0].percent:.2f}"
    _shot(coding.dock, "time_budget.png")

    # a second coder's BORIS file, imported from the menu, then compared
    coding.export_events_dialog(str(tmp_path / "mine.tsv"))
    table = pd.read_csv(tmp_path / "mine.tsv", sep="\t")
    assert list(table["Behavior type"]) == ["START", "STOP", "START", "POINT", "STOP"]
    table.loc[table["Behavior type"] == "POINT", "Time"] += 0.2          # the other coder saw it 0.2 s later
    table.loc[table["Behavior type"] == "POINT", "Image index"] = float("nan")
    table.to_csv(tmp_path / "bob.csv", index=False)
    coding.import_events_dialog(str(tmp_path / "bob.csv"))
    assert events.coders(project, mid) == sorted([coding.coder, "bob"])
    coding.show_tab(2)
    panel.coder_a.setCurrentText(coding.coder)
    panel.coder_b.setCurrentText("bob")
    panel.slice_s.setValue(0.1)
    panel.tolerance.setValue(0.5)
    qtbot.mouseClick(panel.findChild(QPushButton, "compare_coders"), Qt.MouseButton.LeftButton)
    text = panel.agreement_text.toPlainText()
    expected = observations.compare_coders(project, mid, coding.coder, "bob", slice_s=0.1, tolerance_s=0.5)
    assert f"K = {expected.kappa.kappa:.3f}" in text and "3 matched, 0 only in A, 0 only in B" in text
    assert expected.kappa.kappa < 1.0
    _shot(coding.dock, "coder_agreement.png")
    coding.dock.setFloating(False)
    coding.export_events_dialog(str(tmp_path / "elan.txt"))
    assert pd.read_csv(tmp_path / "elan.txt", sep="\t").shape[0] == 3      # the chosen coder's, never bob's too
    coding.export_events_dialog(str(tmp_path / "for_boris.xlsx"))       # the sheet BORIS's import reads
    assert list(pd.read_excel(tmp_path / "for_boris.xlsx")["code"]) == list(table["Behavior"])

    # another project: nothing of this one stays on show
    from fieldstudio.store.project import Project
    Project.create(tmp_path / "other.fieldstudio").close()
    assert window.open_project_path(tmp_path / "other.fieldstudio")
    qtbot.waitUntil(lambda: window.state.project is not None and window.state.project.path.name == "other.fieldstudio")
    assert panel.model.rowCount() == 0 and panel.agreement_text.toPlainText() == ""
    assert panel.budget_table.rowCount() == 0 and coding.subject == ""
    assert not [lane for lane in window.view.timeline.lanes() if lane.heading]


@pytest.mark.gui
def test_a_key_while_playing_records_the_frame_on_screen(window, qtbot, clips):
    coding, mid = _coding_look(window, qtbot, clips)
    window.actions["play"].trigger()
    qtbot.waitUntil(lambda: window.state.frame_index >= 10, timeout=10000)
    shown = window.state.frame_index
    played = window.view.video.played_frame()      # libVLC: the picture drawn last; None when the decoder plays
    qtbot.keyClick(window.view.canvas, "k")
    (event,) = events.list_events(window.state.project, mid)
    window.actions["play"].trigger()
    # the frame on screen when the key was pressed: the newest picture, never behind the status bar's frame
    assert event.frame_index == (played if played is not None else shown)
    assert 0 <= event.frame_index - shown <= 4             # the status bar follows within 0.1 s (3 frames at 30 fps)
    coding.coding_action.setChecked(False)
    qtbot.keyClick(window.view.canvas, "k")                 # not coding: the key codes nothing
    assert len(events.list_events(window.state.project, mid)) == 1


def _press_while_playing(window, qtbot, monkeypatch, picture, estimate: int) -> None:
    """Press "k" as if libVLC played and showed ``picture`` (RGB) with its clock at ``estimate``; wait for the
    match."""
    from fieldstudio.gui.imaging import qimage_from_rgb

    video = window.view.video
    monkeypatch.setattr(type(video), "playing", property(lambda _self: True))
    monkeypatch.setattr(video, "played_frame", lambda: estimate)
    window.view.canvas.video_item.set_frame(qimage_from_rgb(cv2.resize(picture, (641, 385))), 1)
    qtbot.keyClick(window.view.canvas, "k")
    monkeypatch.undo()
    qtbot.waitUntil(lambda: window.behaviour.correction.pending == 0, timeout=10000)


@pytest.mark.gui
def test_a_key_while_playing_moves_to_the_frame_whose_picture_was_shown(window, qtbot, clips, monkeypatch):
    coding, mid = _coding_look(window, qtbot, clips)
    clip = clips["cfr_bframes"]
    shown = ffmpeg_frame(clip, 57)  # decoded by the ffmpeg CLI, not by fieldstudio
    _press_while_playing(window, qtbot, monkeypatch, shown, 60)
    (event,) = events.list_events(window.state.project, mid)
    assert (event.frame_index, event.frame_found) == (57, "picture")
    assert read_barcode(shown) == 57  # the picture shown is frame 57, read back from its barcode
    assert "frame corrected: 60 to 57" in window.statusBar().currentMessage()
    assert window.actions["undo"].text().startswith("&Undo Frame corrected: 60 to 57")
    window.actions["undo"].trigger()  # the correction alone: back on the clock's estimate
    (event,) = events.list_events(window.state.project, mid)
    assert (event.frame_index, event.frame_found) == (60, "clock")
    window.actions["redo"].trigger()
    # a picture of no frame near the estimate: the event stays there, "(clock)" in the Events list
    _press_while_playing(window, qtbot, monkeypatch, ffmpeg_frame(clip, 200), 120)
    late = [e for e in events.list_events(window.state.project, mid) if e.frame_index == 120]
    assert [e.frame_found for e in late] == ["clock"]
    model = coding.panel.event_table.model()
    cells = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert any(c.startswith("57  ") and "(clock)" not in c for c in cells)
    assert any(c.startswith("120 (clock)  00:00:0") for c in cells)
    assert model.index(cells.index(next(c for c in cells if c.startswith("120"))), 0).data(
        Qt.ItemDataRole.ToolTipRole).startswith("(clock): coded while libVLC played")
    coding.show_tab(0)
    window.resizeDocks([coding.dock], [560], Qt.Orientation.Horizontal)
    coding.panel.event_table.resizeColumnToContents(0)
    _shot(window, "frame_found_by_picture_and_clock.png")


@pytest.mark.gui
def test_a_key_changes_only_its_rows_and_lanes_yet_shows_what_a_full_read_shows(window, qtbot, clips, monkeypatch):
    from fieldstudio.annotations.behaviour import coding as service
    from fieldstudio.gui.behaviour_coding import behaviour_lanes

    coding = window.behaviour
    mid = open_media(window, qtbot, clips["cfr_bframes"].name)
    ethogram = eth.Ethogram((eth.Behaviour("lift", "l", "#e6194b", "state", "posture"),
                             eth.Behaviour("walk", "w", "#3cb44b", "state", "posture"),
                             eth.Behaviour("look", "k", "#4363d8", "point")),
                            (eth.Subject("A", "1"), eth.Subject("B", "2")))
    project = window.state.project
    eth.SetEthogram(project, ethogram).do()
    for k in range(60):                                       # coded before: read once when the video is shown
        edit, _ = service.code_behaviour(project, ethogram, mid, "look", 2 + k * 4, subject="AB"[k % 2], coder="ann")
        edit.do()
    coding.follow()
    coding.coding_action.setChecked(True)
    coding.show_tab(0)
    coding.panel.all_coders.setChecked(True)                  # ann's events listed too, with the window's coder's
    reads, list_reads = [], []
    monkeypatch.setattr(window.side, "refresh", lambda: reads.append("annotation list"))
    full_read = events.list_events
    monkeypatch.setattr(events, "list_events", lambda *a, **k: list_reads.append(1) or full_read(*a, **k))
    for frame, key in ((10, "1"), (10, "l"), (11, "k"), (14, "w"), (14, "2"), (15, "l"), (19, "l"), (20, "1"),
                       (25, "w")):
        window.state.request_frame(mid, frame)
        qtbot.waitUntil(lambda frame=frame: window.state.frame_index == frame)
        qtbot.keyClick(window.view.canvas, key)
    window.actions["undo"].trigger()                         # walk's stop on 25 taken back: walk runs again
    window.actions["undo"].trigger()                         # B's lift stop on 19 taken back
    window.actions["redo"].trigger()
    assert reads == [] and list_reads == []                  # neither the annotation list nor every event re-read
    stored = full_read(project, mid)
    assert len(stored) == 60 + 4
    assert coding.panel.events == stored                     # the rows changed one by one are what a read gives
    shown = [tuple(coding.panel.model.index(r, c).data() for c in range(6)) for r in range(len(stored))]
    assert [row[3] for row in shown] == [e.behaviour for e in stored]
    assert [row[1] for row in shown if row[3] == "walk"] == ["running"]
    lanes = [lane for lane in window.view.timeline.lanes() if lane.heading]
    mine = [e for e in stored if e.coder == coding.coder]    # the lanes: the chosen coder's only
    assert len(mine) == 4 and lanes == behaviour_lanes(mine, ethogram, max(window.state.media.frame_count - 1, 0))
    # an edit that does not say which rows it touched (the ethogram) reads everything again
    eth_edit = eth.SetEthogram(project, ethogram)
    window.annotator.apply_or_raise(eth_edit)
    assert list_reads == [1]


@pytest.mark.gui
def test_the_coder_chooser_names_the_events_coder_and_the_coders_compared(window, qtbot, clips):
    from fieldstudio.core import user_settings
    from fieldstudio.gui import settings

    coding, mid = _coding_look(window, qtbot, clips)
    first = coding.coder                                     # nothing chosen yet: the login name (or FIELDSTUDIO_USER)
    qtbot.keyClick(window.view.canvas, "k")
    chooser = coding.panel.coder_choice
    assert chooser.currentText() == first
    chooser.setFocus()
    chooser.lineEdit().selectAll()
    qtbot.keyClicks(chooser.lineEdit(), "Dana Coder")
    assert not events.list_events(window.state.project, mid, coder="Dana Coderk")  # typing a name codes nothing
    qtbot.keyClick(chooser.lineEdit(), Qt.Key.Key_Return)
    assert coding.coder == "Dana Coder" and "coder: Dana Coder" in coding.panel.coding_label.text()
    window.state.request_frame(mid, 5)
    qtbot.waitUntil(lambda: window.state.frame_index == 5)
    qtbot.keyClick(window.view.canvas, "k")                  # the keys went back to the video
    coded = events.list_events(window.state.project, mid)
    assert [(e.frame_index, e.coder) for e in coded] == [(0, first), (5, "Dana Coder")]
    assert settings.get(user_settings.CODERS)[0] == "Dana Coder"
    assert [chooser.itemText(i) for i in range(chooser.count())][:2] == ["Dana Coder", first]
    # the Coders tab compares the coder chosen with the video's other coder
    assert (coding.panel.coder_a.currentText(), coding.panel.coder_b.currentText()) == ("Dana Coder", first)
    chooser.setCurrentIndex(1)
    chooser.activated.emit(1)                                # picked from the list
    assert coding.coder == first
    assert (coding.panel.coder_a.currentText(), coding.panel.coder_b.currentText()) == (first, "Dana Coder")


@pytest.mark.gui
def test_the_window_shows_the_chosen_coders_record_and_refuses_an_overlap(window, qtbot, clips):
    """eyes32 items 1, 3, 14: bob coded A lift 0-20 before; the window's coder codes A lift 2-6. The Events table
    and the lanes show the window's coder's event only ("(all coders)" lists bob's too); the Time budget is
    computed for the window's coder when its tab first comes in front; walk on frame 4 (inside lift 2-6, one
    exclusive group) is refused in the status bar and stores nothing."""
    from fieldstudio.annotations.behaviour import coding as service

    coding = window.behaviour
    mid = open_media(window, qtbot, clips["cfr_bframes"].name)
    ethogram = eth.Ethogram((eth.Behaviour("lift", "l", "#e6194b", "state", "posture"),
                             eth.Behaviour("walk", "w", "#3cb44b", "state", "posture")), (eth.Subject("A", "1"),))
    project = window.state.project
    eth.SetEthogram(project, ethogram).do()
    me = coding.coder
    for who, frame in (("bob", 0), ("bob", 20), (me, 2), (me, 6)):
        service.code_behaviour(project, ethogram, mid, "lift", frame, subject="A", coder=who)[0].do()
    coding.follow()
    panel = coding.panel
    coding.show_tab(0)
    assert [(e.coder, e.frame_index, e.end_frame_index) for e in panel.events] == [(me, 2, 6)]
    lanes = [lane for lane in window.view.timeline.lanes() if lane.heading]
    assert [[(s.start, s.end) for s in lane.segments] for lane in lanes] == [[(2, 5)]]   # up to its stop
    panel.all_coders.setChecked(True)
    assert [(e.coder, e.frame_index) for e in panel.events] == [("bob", 0), (me, 2)]
    assert panel.model.index(0, 5).data() == "bob"                       # the Coder column says whose
    assert len([lane for lane in window.view.timeline.lanes() if lane.heading][0].segments) == 1
    coding.show_tab(1)                                                   # no Update pressed
    qtbot.waitUntil(lambda: panel.budget_table.rowCount() == 1)
    mine = observations.budget(project, mid, coder=me).rows[0]
    assert panel.budget_coder.currentText() == me and f"coder {me}" in panel.budget_note.text()
    assert panel.budget_table.item(0, 4).text() == f"{mine.total_s:.3f}"
    assert mine.percent < 100
    _shot(coding.dock, "chosen_coder_budget.png")
    coding.coding_action.setChecked(True)
    window.state.request_frame(mid, 4)
    qtbot.waitUntil(lambda: window.state.frame_index == 4)
    qtbot.keyClick(window.view.canvas, "1")
    qtbot.keyClick(window.view.canvas, "w")
    assert "A is already lift from frame 2 to 6" in window.statusBar().currentMessage()
    assert len(events.list_events(project, mid)) == 2
    _shot(window, "overlap_refused.png")


@pytest.mark.gui
def test_a_project_shown_is_followed_by_the_dock_in_the_next_turn(window, qtbot, tmp_path, monkeypatch):
    """Showing a project leaves the Behaviour dock and lanes to the next turn of the event loop: their reads and the
    dock's build are a slice of the GUI thread apart from the one that shows the project (issue 37: together 40-70 ms
    for a 500-video project at load 3-5). They follow it once there, with the new project's ethogram."""
    from fieldstudio.store.project import Project

    follows: list[object] = []
    real_follow = window.behaviour.follow
    monkeypatch.setattr(window.behaviour, "follow", lambda: (follows.append(window.state.project), real_follow()))
    other = Project.create(tmp_path / "other.fieldstudio")
    eth.SetEthogram(other, eth.Ethogram((eth.Behaviour("look", "k", "#4363d8", "point"),))).do()
    window.set_project(other)
    assert follows == []
    qtbot.waitUntil(lambda: follows == [other])
    qtbot.wait(50)
    assert follows == [other]
    assert [b.name for b in window.behaviour.ethogram().behaviours] == ["look"]
