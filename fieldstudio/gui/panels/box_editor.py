"""F2 on a box: its label, the label's typed attributes, other attributes and track id, changed as undoable edits.

The fields come from the label set (``labels.AttributeSpec``): yes/no and choice as drop-downs (with an
empty entry: not set), number and text as line edits. Attributes the label does not declare (older
boxes, imports) stay in "Other attributes" as ``name=value`` pairs, so nothing stored is lost. The values
are stored on the annotation as before (a JSON object), checked by ``labels.check_attribute_values``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QSpinBox,
                               QWidget)

from fieldstudio.annotations import edits
from fieldstudio.annotations import labels
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core.errors import FieldstudioError
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


def _bool_text(value: Any) -> str:
    if value is True or str(value).strip().lower() in ("yes", "true", "y", "1"):
        return "yes"
    if value is False or str(value).strip().lower() in ("no", "false", "n", "0"):
        return "no"
    return ""


class BoxEditorDialog(QDialog):
    """Edit one box; OK applies a label edit, an attributes edit and a track edit as needed.

    ``fields`` maps each declared attribute's name to its widget (QComboBox or QLineEdit).
    """

    def __init__(self, project: Project, annotation_id: str, apply_edit: Callable[[Edit], bool],
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.project, self.annotation_id, self._apply = project, annotation_id, apply_edit
        self.record = ann.get_annotation(project, annotation_id)
        self._labels = {r.id: r for r in labels.list_labels(project)}
        self._values: dict[str, Any] = dict(self.record.attributes or {})
        self.fields: dict[str, QComboBox | QLineEdit] = {}
        self.setWindowTitle("Box")
        self.form = form = QFormLayout(self)
        self.label = QComboBox()
        self.label.addItem("(no label)", None)
        for r in labels.list_labels(project, "box"):
            self.label.addItem(f"{r.shortcut}  {r.name}" if r.shortcut else r.name, r.id)
        if self.record.label_id is not None and self.label.findData(self.record.label_id) < 0:
            rec = self._labels.get(self.record.label_id)  # a label no longer in the box list keeps its place
            self.label.addItem(rec.name if rec else "(deleted label)", self.record.label_id)
        self.label.setCurrentIndex(max(0, self.label.findData(self.record.label_id)))
        form.addRow("&Label", self.label)
        self._fields_at = form.rowCount()
        self.other = QLineEdit()
        self.other.setPlaceholderText("name=value, name=value")
        self.other.setToolTip("Attributes the label does not declare: name=value pairs separated by commas; "
                              "a bare word means yes. Annotate ▸ Labels… ▸ Attributes… declares typed ones.")
        form.addRow("&Other attributes", self.other)
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
        self._build_fields()
        self.label.currentIndexChanged.connect(lambda _i: self._label_changed())

    def specs(self) -> tuple[labels.AttributeSpec, ...]:
        """The typed attributes of the label chosen."""
        rec = self._labels.get(self.label.currentData())
        return rec.attributes if rec is not None else ()

    def _label_changed(self) -> None:
        try:
            self._values = self._entered()
        except ValueError as exc:
            self.error.setText(str(exc))
        self._build_fields()

    def _build_fields(self) -> None:
        """One row per declared attribute of the label chosen; the rest in "Other attributes"."""
        for widget in self.fields.values():
            self.form.removeRow(widget)
        self.fields = {}
        specs = self.specs()
        for k, spec in enumerate(specs):
            value = self._values.get(spec.name)
            if spec.type in ("bool", "choice"):
                widget = QComboBox()
                widget.addItem("", None)
                for choice in (("yes", "no") if spec.type == "bool" else spec.choices):
                    widget.addItem(choice, choice)
                current = _bool_text(value) if spec.type == "bool" else ("" if value is None else str(value))
                if current and widget.findData(current) < 0:
                    widget.addItem(f"{current} (not a choice)", current)  # shown, refused on OK
                widget.setCurrentIndex(max(0, widget.findData(current or None)))
            else:
                widget = QLineEdit("" if value is None else (f"{value:g}" if isinstance(value, float) else str(value)))
                if spec.type == "number":
                    widget.setValidator(QDoubleValidator(widget))
                    widget.setPlaceholderText("a number")
            widget.setObjectName(f"attribute:{spec.name}")
            widget.setToolTip(f"{spec.name}: {'yes/no' if spec.type == 'bool' else spec.type}"
                              " (empty: not set)")
            self.form.insertRow(self._fields_at + k, f"{spec.name}", widget)
            self.fields[spec.name] = widget
        declared = {s.name for s in specs}
        self.other.setText(format_attributes({k: v for k, v in self._values.items() if k not in declared}))

    def _entered(self) -> dict[str, Any]:
        """The attributes as entered (declared fields and the other attributes), not yet checked.

        Raises ValueError for an unnamed other attribute."""
        out = dict(parse_attributes(self.other.text()) or {})
        for name, widget in self.fields.items():
            out[name] = widget.currentData() if isinstance(widget, QComboBox) else widget.text().strip() or None
        return out

    def attributes(self) -> dict[str, Any] | None:
        """The attributes OK would store. Raises ValueError or LabelError naming the bad entry."""
        return labels.check_attribute_values(self.specs(), self._entered())

    def accept(self) -> None:
        try:
            attributes = self.attributes()
        except (ValueError, FieldstudioError) as exc:
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
