"""Annotate ▸ Skeleton template of a label…: the points (in order) and limbs a new skeleton of the label gets.

The label is chosen at the top (the skeleton tool's current label first); its points are a list (Add, double-click
or F2 to rename, Remove, Up/Down to reorder), its limbs the pairs of point numbers "0-1, 1-2" (named below as they
are typed). "Reset to COCO 17" puts back the built-in 17 body points. Save stores the label's template as one
undoable edit (``annotations.skeleton_templates.SetSkeletonTemplate`` through ``apply_edit``); a template that does
not hold together, or a change of point count while skeletons use it, is refused with the reason and the dialog
stays open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QPushButton, QVBoxLayout, QWidget)

from fieldstudio.annotations import labels
from fieldstudio.annotations import skeleton_templates as st
from fieldstudio.core import skeletons
from fieldstudio.core.errors import FieldstudioError

if TYPE_CHECKING:
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.project import Project


class SkeletonTemplateDialog(QDialog):
    """The skeleton template of a label of ``project``; Save applies it with ``apply_edit`` (raising
    FieldstudioError to refuse)."""

    def __init__(self, project: Project, apply_edit: Callable[[Edit], None], label_id: str | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Skeleton template of a label")
        self.setObjectName("skeleton_template_dialog")
        self.project, self.apply_edit = project, apply_edit
        self.resize(520, 560)
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Label:"))
        self.label = QComboBox()
        self.label.setObjectName("skeleton_template_label")
        for lab in labels.list_labels(project):
            self.label.addItem(lab.name, lab.id)
        if label_id is not None and self.label.findData(label_id) >= 0:
            self.label.setCurrentIndex(self.label.findData(label_id))
        self.label.currentIndexChanged.connect(lambda _i: self.show_label())
        top.addWidget(self.label, 1)
        layout.addLayout(top)
        self.source = QLabel("")
        layout.addWidget(self.source)
        layout.addWidget(QLabel("Points, in the order Shift+D places them (double-click to rename):"))
        self.points = QListWidget()
        self.points.setObjectName("skeleton_template_points")
        self.points.model().rowsInserted.connect(lambda *_a: self._named_limbs())
        self.points.model().rowsRemoved.connect(lambda *_a: self._named_limbs())
        self.points.itemChanged.connect(lambda _i: self._named_limbs())
        layout.addWidget(self.points, 1)
        row = QHBoxLayout()
        for text, slot in (("Add", self.add_point), ("Remove", self.remove_point), ("Up", lambda: self.move(-1)),
                           ("Down", lambda: self.move(1))):
            button = QPushButton(text)
            button.clicked.connect(slot)
            row.addWidget(button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(QLabel("Limbs, pairs of point numbers (from 0):"))
        self.limbs = QLineEdit()
        self.limbs.setObjectName("skeleton_template_limbs")
        self.limbs.setPlaceholderText("0-1, 1-2")
        self.limbs.textChanged.connect(lambda _t: self._named_limbs())
        layout.addWidget(self.limbs)
        self.limb_names = QLabel("")
        self.limb_names.setWordWrap(True)
        layout.addWidget(self.limb_names)
        self.error = QLabel("")
        self.error.setObjectName("skeleton_template_error")
        self.error.setStyleSheet("color: #d93025")
        self.error.setWordWrap(True)
        layout.addWidget(self.error)
        bottom = QHBoxLayout()
        reset = QPushButton("Reset to COCO 17")
        reset.setToolTip("The built-in 17 COCO body points and their 19 limbs (saved as: no template of its own)")
        reset.clicked.connect(lambda: self.show_template(skeletons.COCO_PERSON))
        bottom.addWidget(reset)
        bottom.addStretch(1)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        bottom.addWidget(box)
        layout.addLayout(bottom)
        self.show_label()

    @property
    def label_id(self) -> str | None:
        return self.label.currentData()

    def show_label(self) -> None:
        """Fill the lists with the chosen label's template."""
        if self.label_id is None:
            self.source.setText("The project has no label yet: make one first (Annotate ▸ Labels).")
            return
        row = st.describe(self.project, self.label_id)
        self.source.setText(f"{row['label']}: its own template, used by {row['marks']} skeleton mark(s)" if row["own"]
                            else f"{row['label']}: the built-in 17 COCO body points (no template of its own)")
        self.show_template(st.template_for_label(self.project, self.label_id))

    def show_template(self, template: skeletons.SkeletonTemplate) -> None:
        """Put ``template``'s points and limbs in the editor."""
        self.points.clear()
        for name in template.points:
            self._item(name)
        self.limbs.setText(", ".join(f"{a}-{b}" for a, b in template.edges))
        self.error.setText("")

    def _item(self, name: str) -> QListWidgetItem:
        item = QListWidgetItem(name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        self.points.addItem(item)
        return item

    def names(self) -> list[str]:
        """The point names as listed."""
        return [self.points.item(i).text() for i in range(self.points.count())]

    def add_point(self) -> None:
        """Add a point named "point N" and start renaming it."""
        item = self._item(f"point {self.points.count()}")
        self.points.setCurrentItem(item)
        self.points.editItem(item)

    def remove_point(self) -> None:
        row = self.points.currentRow()
        if row >= 0:
            self.points.takeItem(row)

    def move(self, step: int) -> None:
        """Move the selected point up (-1) or down (1); limbs keep their numbers (edit them if they should follow)."""
        row = self.points.currentRow()
        if row < 0 or not 0 <= row + step < self.points.count():
            return
        item = self.points.takeItem(row)
        self.points.insertItem(row + step, item)
        self.points.setCurrentRow(row + step)

    def _named_limbs(self) -> None:
        names = self.names()
        try:
            pairs = st.parse_limbs(self.limbs.text())
        except st.SkeletonTemplateError as exc:
            self.limb_names.setText(str(exc))
            return
        self.limb_names.setText(", ".join(
            f"{names[a] if a < len(names) else '?'}–{names[b] if b < len(names) else '?'}" for a, b in pairs))

    def edit(self) -> st.SetSkeletonTemplate:
        """The edit the editor's content asks for (the COCO person as listed: no template of its own)."""
        names = self.names()
        limbs = st.parse_limbs(self.limbs.text())
        coco = skeletons.COCO_PERSON
        if tuple(names) == coco.points and tuple(limbs) == coco.edges:
            return st.SetSkeletonTemplate(self.project, self.label_id, None, text="Reset skeleton template")
        return st.SetSkeletonTemplate(self.project, self.label_id, names, limbs)

    def accept(self) -> None:
        """Save: one undoable edit; a refusal is shown and the dialog stays open."""
        if self.label_id is None:
            super().reject()
            return
        try:
            self.apply_edit(self.edit())
        except FieldstudioError as exc:
            self.error.setText(str(exc))
            return
        super().accept()


def edit_skeleton_template(parent: QWidget, project: Project, apply_edit: Callable[[Edit], None],
                           label_id: str | None = None) -> bool:
    """Open the dialog on ``label_id`` (None: the first label); True when a template was saved."""
    return SkeletonTemplateDialog(project, apply_edit, label_id, parent).exec() == QDialog.DialogCode.Accepted
