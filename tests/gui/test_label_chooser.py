"""A new box asks for its label at the pointer (issue 32, item 4): Enter keeps the current label, a key 1-9
picks, Esc keeps the current one; Annotate ▸ Use label names the labels. On the demo project, whose box labels
have keys (person 1, helmet 2, ...), read through ``labels.labels_by_key``."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels
from fieldstudio.media import inventory
from tests.support.gui_support import wait_idle

pytestmark = pytest.mark.gui


@pytest.fixture
def chooser_window(demo_window, qtbot):
    """The demo window with the label chooser on (the window helpers turn it off), on a video at frame 10."""
    w = demo_window
    w.actions["ask_label"].setChecked(True)
    video = next(c for c in inventory.media_choices(w.state.project) if c.kind == "video")
    w.state.request_frame(video.id, 10)
    qtbot.waitUntil(lambda: w.state.media is not None and w.state.frame_index == 10, timeout=10000)
    wait_idle(w, qtbot)
    return w


def draw_box(w, qtbot, a: QPoint, b: QPoint, answer) -> list:  # noqa: ANN001 - MainWindow, QtBot, callable
    """Drag a box from ``a`` to ``b`` (viewport pixels); ``answer(chooser)`` answers the chooser once it is shown
    (what it saw is returned: [chooser's global geometry, active action text, the choices' texts, the screen])."""
    seen: list = []

    def when_shown() -> None:
        chooser = QApplication.activePopupWidget()
        if chooser is None:
            QTimer.singleShot(20, when_shown)
            return
        seen.extend([chooser.geometry(), chooser.activeAction().text(), [c.text() for c in chooser.choices],
                     chooser.screen().availableGeometry()])
        answer(chooser)
    QTimer.singleShot(20, when_shown)
    vp = w.view.canvas.viewport()
    if w.state.tool != "box":  # B toggles the box tool
        w.actions["box_tool"].trigger()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, pos=a)
    QTest.mouseMove(vp, b)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=b)
    return seen


def boxes(w) -> list:  # noqa: ANN001
    return ann.list_annotations(w.state.project, media_id=w.state.media.id, kinds=["box"], frame_index=10)


def test_a_new_box_asks_its_label_at_the_pointer(chooser_window, qtbot):
    w = chooser_window
    project = w.state.project
    by_key = labels.labels_by_key(project, "box")
    assert len(by_key) >= 2
    current = labels.get_label(project, w.annotator.labels.label_of("box")).name
    before = {b.id for b in boxes(w)}
    vp = w.view.canvas.viewport()
    seen = draw_box(w, qtbot, QPoint(300, 200), QPoint(420, 330),
                    lambda c: QTest.keyClick(c, Qt.Key.Key_Return))
    # at the pointer, the current label active (Enter keeps it), every label of the box list with its key
    at, screen = vp.mapToGlobal(QPoint(420, 330)), seen[3]   # moved in only as far as the screen needs
    assert seen[0].topLeft() == QPoint(min(at.x(), screen.right() + 1 - seen[0].width()),
                                       min(at.y(), screen.bottom() + 1 - seen[0].height()))
    key_of_current = next(k for k, r in by_key.items() if r.name == current)
    assert seen[1] == f"&{key_of_current}  {current}"
    assert seen[2][:len(by_key)] == [f"&{k}  {r.name}" for k, r in by_key.items()] and seen[2][-1] == "(no label)"
    (new,) = [b for b in boxes(w) if b.id not in before]
    assert new.label_name == current
    # the key 2 picks the label with key 2; it becomes the current one, which Enter then keeps
    before |= {new.id}
    draw_box(w, qtbot, QPoint(100, 100), QPoint(180, 160), lambda c: QTest.keyClick(c, Qt.Key.Key_2))
    (second,) = [b for b in boxes(w) if b.id not in before]
    assert second.label_name == by_key[2].name
    assert w.label_label.text() == f"box label: {by_key[2].name}"
    before |= {second.id}
    seen = draw_box(w, qtbot, QPoint(500, 100), QPoint(580, 160), lambda c: QTest.keyClick(c, Qt.Key.Key_Escape))
    assert seen[1] == f"&2  {by_key[2].name}"
    (third,) = [b for b in boxes(w) if b.id not in before]
    assert third.label_name == by_key[2].name          # Esc keeps the current label: the box is not lost
    # one undo takes the box away with its label (one edit)
    w.actions["undo"].trigger()
    assert third.id not in {b.id for b in boxes(w)} and second.id in {b.id for b in boxes(w)}


def test_the_chooser_can_be_turned_off(chooser_window, qtbot):
    w = chooser_window
    w.actions["ask_label"].setChecked(False)
    before = {b.id for b in boxes(w)}
    seen = draw_box(w, qtbot, QPoint(300, 200), QPoint(420, 330), lambda c: c.close())
    assert seen == []
    (new,) = [b for b in boxes(w) if b.id not in before]
    assert new.label_id == w.annotator.labels.label_of("box")


def test_use_label_names_the_labels_of_the_active_kind(chooser_window):
    w = chooser_window
    project = w.state.project
    texts = lambda: [w.actions[f"label_{k}"].text() for k in range(1, 10)]  # noqa: E731
    by_key = labels.labels_by_key(project, "box")
    assert texts() == [f"&{k}  {by_key[k].name}" if k in by_key else f"&{k}  (no box label)" for k in range(1, 10)]
    w.actions["ruler_tool"].trigger()
    rulers = labels.labels_by_key(project, "ruler")
    assert texts() == [f"&{k}  {rulers[k].name}" if k in rulers else f"&{k}  (no ruler label)" for k in range(1, 10)]
    # and the names follow a label renamed in Annotate ▸ Labels…
    w.actions["box_tool"].trigger()
    labels.rename_label(project, by_key[1].id, "worker")
    w.annotator.labels.reload()
    assert texts()[0] == "&1  worker"
