"""F2 on a box: its label, free attributes ("vest=no, helmet=yes") and track id, changed as undoable edits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QSpinBox,
                               QWidget)

from fieldstudio.annotations import edits
from fieldstudio.annotations import labels
from fieldstudio.annotations import records as ann
from fieldstudio.store.edits import Edit
from fieldstudio.store.project import Project


def parse_attributes(text: str) -> dict[str, Any] | None:
    """``"vest=no, helmet=yes"`` -> ``{"vest": "no", "helmet": "yes"}``; a bare word is ``True``; empty -> None.

    Raises ValueError naming the part that has an empty key.
    """
    out: dict[str, Any] = {}
    for part in (p.strip() for p in text.replace(";", ",").split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not key:
            raise ValueError(f"attribute {part!r} has no name (write name=value)")
        out[key] = value.strip() if sep else True
    return out or None


def format_attributes(attributes: dict[str, Any] | None) -> str:
    """The inverse of :func:`parse_attributes` for display."""
    return ", ".join(k if v is True else f"{k}={v}" for k, v in (attributes or {}).items())


class BoxEditorDialog(QDialog):
    """Edit one box; OK applies a label edit, an attributes edit and a track edit as needed."""

    def __init__(self, project: Project, annotation_id: str, apply_edit: Callable[[Edit], bool],
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.project, self.annotation_id, self._apply = project, annotation_id, apply_edit
        self.record = ann.get_annotation(project, annotation_id)
        self.setWindowTitle("Box")
        form = QFormLayout(self)
        self.label = QComboBox()
        self.label.addItem("(no label)", None)
        for r in labels.list_labels(project):
            self.label.addItem(f"{r.shortcut}  {r.name}" if r.shortcut else r.name, r.id)
        self.label.setCurrentIndex(max(0, self.label.findData(self.record.label_id)))
        form.addRow("&Label", self.label)
        self.attributes = QLineEdit(format_attributes(self.record.attributes))
        self.attributes.setPlaceholderText("vest=no, helmet=yes")
        self.attributes.setToolTip("Free attributes: name=value pairs separated by commas; a bare word means yes")
        form.addRow("&Attributes", self.attributes)
        self.track = QSpinBox()
        self.track.setRange(0, 1_000_000)
        self.track.setSpecialValueText("(none)")
        self.track.setValue(self.record.track_id or 0)
        self.track.setEnabled(self.record.frame_index is not None)
        self.track.setToolTip("Boxes of one object on several frames share a track id; frames between two "
                              "keyframes of a track are interpolated")
        form.addRow("&Track", self.track)
        x1, y1, x2, y2 = self.record.geometry
        form.addRow("Box", QLabel(f"x {x1:.1f}  y {y1:.1f}  w {x2 - x1:.1f}  h {y2 - y1:.1f} px"))
        self.error = QLabel("")
        self.error.setStyleSheet("color: #c62828")
        form.addRow(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def accept(self) -> None:
        try:
            attributes = parse_attributes(self.attributes.text())
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        r, ok = self.record, True
        label_id = self.label.currentData()
        if label_id != r.label_id:
            ok &= self._apply(edits.SetLabel(self.project, r.id, label_id))
        if attributes != (r.attributes or None):
            ok &= self._apply(edits.SetAttributes(self.project, r.id, attributes))
        track = self.track.value() or None
        if self.track.isEnabled() and track != r.track_id:
            ok &= self._apply(edits.UpdateAnnotation(self.project, r.id, "Change track", track_id=track))
        if ok:
            super().accept()
        else:
            self.error.setText("a change was refused: see the status bar")
