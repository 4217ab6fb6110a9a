"""Every action of the window's menus, triggered as a click triggers it (``QAction.trigger()``, so Qt passes
``checked`` to the slot), on the demo project with a video shown, raises and logs nothing (issue 32: Annotate ▸
Export behaviour events… did nothing because ``triggered(bool)`` arrived as the slot's optional ``path``).

File, open and save dialogs answer "cancel" (or, where a test below asks, a temporary path); message boxes and
modal dialogs answer "cancel" at once, so no action waits on a person.
"""

from __future__ import annotations

import logging

import pytest
from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMenu, QMessageBox

from fieldstudio.media import inventory
from tests.support.gui_support import wait_idle

pytestmark = pytest.mark.gui

# Actions that end the session or replace the project under test: they are tested where they belong.
LEAVES = {"&Quit", "Quit", "E&xit", "&Close project"}


def _cancel_every_question(monkeypatch, asked: list[str], save_path: str = "") -> None:  # noqa: ANN001
    """File dialogs return ``save_path`` for a save ("" cancels) and "" for an open; modal dialogs reject."""
    def file_dialog(kind: str, path: str):  # noqa: ANN202
        def answer(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            asked.append(kind)
            return (path, "") if kind != "directory" else path
        return answer
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(file_dialog("open", "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(
        lambda *a, **k: (asked.append("open"), ([], ""))[1]))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(file_dialog("save", save_path)))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(file_dialog("directory", "")))
    for name in ("question", "warning", "information", "critical", "about"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(
            lambda *a, name=name, **k: (asked.append(name), QMessageBox.StandardButton.Cancel)[1]))
    for name in ("getText", "getItem", "getInt", "getDouble", "getMultiLineText"):
        monkeypatch.setattr(QInputDialog, name, staticmethod(lambda *a, **k: (asked.append("input"), ("", False))[1]))

    def reject(self, *args):  # noqa: ANN001, ANN002, ANN202
        asked.append(type(self).__name__)
        return 0
    monkeypatch.setattr(QDialog, "exec", reject)
    monkeypatch.setattr(QMessageBox, "exec", reject)
    monkeypatch.setattr(QMenu, "exec", lambda self, *a: (asked.append("menu"), None)[1])


def _menu_actions(window) -> list[tuple[str, object]]:  # noqa: ANN001 - MainWindow -> [(path, QAction)]
    """Every leaf action of the menu bar, with its menu path (sub-menus followed)."""
    found = []

    def walk(menu, path: str) -> None:  # noqa: ANN001
        menu.aboutToShow.emit()  # menus filled on show (Open recent, Use label) get their actions
        for action in menu.actions():
            if action.isSeparator():
                continue
            if action.menu() is not None:
                walk(action.menu(), f"{path} ▸ {action.text()}")
            else:
                found.append((f"{path} ▸ {action.text()}", action))
    for top in window.menuBar().actions():
        walk(top.menu(), top.text())
    return found


def _show_video(w, qtbot) -> str:  # noqa: ANN001
    """Show frame 5 of the demo's first video (its id), unless it is shown already."""
    video = next(c for c in inventory.media_choices(w.state.project) if c.kind == "video")
    if w.state.media is None or w.state.media.id != video.id:
        w.state.request_frame(video.id, 5)
        qtbot.waitUntil(lambda: w.state.media is not None and w.state.media.id == video.id, timeout=10000)
        wait_idle(w, qtbot)
    return video.id


def test_every_menu_action_runs_without_an_exception_or_a_logged_error(demo_window, qtbot, monkeypatch, caplog):
    w = demo_window
    _show_video(w, qtbot)
    asked: list[str] = []
    _cancel_every_question(monkeypatch, asked)
    actions = [(path, a) for path, a in _menu_actions(w) if a.text() not in LEAVES and "Open &demo" not in a.text()]
    assert len(actions) > 40  # the File, Edit, Annotate, View, Video and Help menus' leaves
    caplog.set_level(logging.ERROR)
    failures = []
    for path, action in actions:
        if not action.isEnabled():
            continue
        _show_video(w, qtbot)  # an action before (Next media, ...) may have shown another file
        w.modes.setCurrentIndex(0)
        caplog.clear()
        with qtbot.captureExceptions() as raised:
            action.trigger()
            qtbot.wait(20)
            if action.isCheckable():  # back as it was, so one toggle does not change what the next action sees
                action.trigger()
                qtbot.wait(20)
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        if raised or errors:
            failures.append(f"{path}: {[str(e[1]) for e in raised] + errors}")
    assert not failures, "\n".join(failures)
    assert "save" in asked and "open" in asked  # the sweep reached the file dialogs


def test_import_then_export_behaviour_events_from_the_menu_ask_for_a_file_and_use_it(demo_window, qtbot, monkeypatch,
                                                                                      tmp_path):
    w = demo_window
    _show_video(w, qtbot)
    coder = w.behaviour.coder
    # BORIS's tabular events, written by hand: one state (walk 0.2 s to 1.0 s) and one point (phone at 0.5 s)
    boris = tmp_path / f"{coder}.csv"
    boris.write_text("Subject,Behavior,Behavior type,Time\n"
                     "worker A,walk,START,0.2\nworker A,phone,POINT,0.5\nworker A,walk,STOP,1.0\n", encoding="utf-8")
    out = tmp_path / "events.tsv"
    asked: list[str] = []
    _cancel_every_question(monkeypatch, asked, save_path=str(out))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(
        lambda *a, **k: (asked.append("open"), (str(boris), ""))[1]))
    menu = dict(_menu_actions(w))
    menu["&Annotate ▸ Import &BORIS events…"].trigger()
    assert asked == ["open"]
    assert w.statusBar().currentMessage().startswith(f"coder {coder}: ")
    menu["&Annotate ▸ Export behaviour e&vents…"].trigger()
    assert asked == ["open", "save"]
    assert w.statusBar().currentMessage() == f"2 event(s) of {coder} written to events.tsv"
    rows = [line.split("\t") for line in out.read_text(encoding="utf-8").splitlines()]
    header = rows[0]
    kinds = [(r[header.index("Behavior")], r[header.index("Behavior type")]) for r in rows[1:]]
    assert kinds == [("walk", "START"), ("phone", "POINT"), ("walk", "STOP")]


def test_code_behaviours_by_key_is_unticked_by_a_project_switch(demo_window, qtbot, tmp_path):
    from fieldstudio.store.project import Project

    w = demo_window
    coding = dict(_menu_actions(w))["&Annotate ▸ &Code behaviours by key"]
    coding.trigger()
    assert coding.isChecked()
    Project.create(tmp_path / "other.fieldstudio").close()
    assert w.open_project_path(tmp_path / "other.fieldstudio")
    qtbot.waitUntil(lambda: w.state.project is not None and w.state.project.path.name == "other.fieldstudio")
    assert not coding.isChecked()
