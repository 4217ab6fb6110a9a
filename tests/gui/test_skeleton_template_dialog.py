"""A skeleton template per label in the real window (issue 32 item 1): Annotate ▸ Skeleton template of a label…
edits the points and limbs of a label, saved as one undo step (a bad limb refused in the dialog); Shift+D then
places that label's 5 points, named in the status bar, and Properties says whose template it is. Screenshots of the
editor and of the placed 5-point skeleton on a real frame are written to /tmp/shots/templates/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from fieldstudio.annotations import labels as lab
from fieldstudio.annotations import skeleton_templates as st
from fieldstudio.core import skeletons
from fieldstudio.gui.skeleton_template_dialog import SkeletonTemplateDialog
from tests.support.shape_window import click, near, photo_window, shapes_of  # noqa: F401 - fixture

pytestmark = pytest.mark.gui
HAND = ["wrist", "thumb", "index", "middle", "little"]
SHOTS = Path(os.environ.get("FIELDSTUDIO_SHOTS", "/tmp/shots/templates"))


def _shot(widget, name: str) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SHOTS / name))


def test_the_editor_saves_one_undo_step_and_refuses_a_bad_limb(photo_window, qtbot):
    w = photo_window
    p = w.state.project
    hand = lab.create_label(p, "hand")
    assert w.findChild(QAction, "skeleton_template_action") is not None
    dialog = SkeletonTemplateDialog(p, w.annotator.apply_or_raise, hand, w)
    qtbot.addWidget(dialog)
    assert dialog.names() == list(skeletons.COCO_PERSON.points) and "built-in 17 COCO" in dialog.source.text()
    dialog.points.clear()
    for name in HAND:
        dialog.add_point()
        dialog.points.item(dialog.points.count() - 1).setText(name)
    dialog.limbs.setText("0-1, 0-2, 0-3, 0-0")
    dialog.accept()
    assert dialog.error.text() == "limb 0-0 joins point wrist to itself" and not st.has_own(p, hand)
    dialog.limbs.setText("0-1, 0-2, 0-3, 0-4")
    assert dialog.limb_names.text() == "wrist–thumb, wrist–index, wrist–middle, wrist–little"
    dialog.show()
    qtbot.wait(50)
    _shot(dialog, "editor.png")
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert st.template_for_label(p, hand).points == tuple(HAND)
    stack = w.annotator.undo_stack
    assert stack.text(stack.count() - 1) == "Set skeleton template"
    dialog.close()
    stack.undo()
    assert not st.has_own(p, hand)


def test_shift_d_places_the_labels_five_points(photo_window, qtbot):
    w = photo_window
    p = w.state.project
    hand = lab.create_label(p, "hand", kinds=["skeleton"])
    st.SetSkeletonTemplate(p, hand, HAND, [(0, 1), (0, 2), (0, 3), (0, 4)]).do()
    w.annotator.labels.set_label("skeleton", hand)
    w.actions["skeleton_tool"].trigger()
    where = [(140.0, 190.0), (118.0, 160.0), (132.0, 140.0), (146.0, 138.0), (160.0, 150.0)]
    click(w, *where[0])
    assert "click the thumb (2 of 5)" in w.statusBar().currentMessage()
    for x, y in where[1:]:
        click(w, x, y)
    (sk,) = shapes_of(w, "skeleton")
    assert sk.text == f"label:{hand}" and near(sk.geometry, where, 0.51)
    assert w.properties.mark.geometry.text() == "5 of 5 points placed (its label's template)"
    w.actions["select_tool"].trigger()
    qtbot.wait(50)
    _shot(w.view.canvas, "skeleton_5_points.png")
