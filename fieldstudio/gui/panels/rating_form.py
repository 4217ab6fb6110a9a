"""The rater's form for one item: the verdict buttons, the set's reasons, its documentation fields and a comment.

The form is built from a rating set's reasons and field specs (``build``), filled from the rater's stored
rating of the item shown (``fill``) and read back when the panel saves (``reasons``, ``fields``,
``comment_text``). It says when the rater changed something (``edited``) and which verdict button was
clicked (``verdict_clicked``); saving, the queue and the keys are the rater panel's (``gui/panels/rating.py``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLineEdit,
                               QPushButton, QVBoxLayout, QWidget)

from fieldstudio.gui.panels.rating_reveal import VERDICT_COLOURS
from fieldstudio.ratings import rating_records as ratings

VERDICT_KEYS = {"accept": "A", "reject": "R", "unsure": "U"}


class _TypingGoesToField(QObject):
    """Lets a field (a yes/no or choice box) take printable keys itself, so typing "n" for "no" in it is
    not the panel's N shortcut; Enter, Esc and Ctrl+Z still reach the panel (QLineEdit does this itself)."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            mods = event.modifiers() & ~(Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier)
            if not mods and event.text() and event.text().isprintable():
                event.accept()
                return True
        return False


class RatingForm(QWidget):
    """Verdict buttons, up to nine reasons (number keys), the documentation fields and a comment.

    Signals: ``verdict_clicked(verdict)`` when a verdict button is clicked; ``edited()`` when the rater
    ticks a reason or changes a field or the comment (never while ``fill`` puts a stored rating in).
    """

    verdict_clicked = Signal(str)
    edited = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.field_edits: dict[str, QWidget] = {}
        self.reason_boxes: list[QCheckBox] = []
        self._typing_filter = _TypingGoesToField(self)
        self._filling = False                      # True while fill() puts a stored rating in
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        self.verdict_group = QButtonGroup(self)
        self.verdict_group.setExclusive(True)
        vrow = QHBoxLayout()
        self.verdict_buttons: dict[str, QPushButton] = {}
        for verdict, key in VERDICT_KEYS.items():
            b = QPushButton(f"{verdict.capitalize()} ({key})")
            b.setCheckable(True)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            b.setToolTip(f"Save '{verdict}' for this item ({key})")
            b.clicked.connect(lambda _c=False, v=verdict: self.verdict_clicked.emit(v))
            self.verdict_group.addButton(b)
            self.verdict_buttons[verdict] = b
            vrow.addWidget(b)
        col.addLayout(vrow)
        self.reasons_box = QGroupBox("Reasons (number keys)")
        self.reasons_layout = QVBoxLayout(self.reasons_box)
        col.addWidget(self.reasons_box)
        self.fields_box = QGroupBox("Documentation (Tab moves through the fields)")
        self.fields_form = QFormLayout(self.fields_box)
        col.addWidget(self.fields_box)
        self.comment = QLineEdit()
        self.comment.setPlaceholderText("Comment (optional)")
        self.comment.textEdited.connect(lambda _t: self._changed())
        col.addWidget(self.comment)

    def build(self, info: ratings.RatingSetInfo | None) -> None:
        """Make the reason boxes (the first nine reasons) and one field per field spec of the set ``info``
        (None: none); a choice or yes/no field is a combo box, a number or text field a line edit."""
        for b in self.reason_boxes:
            b.deleteLater()
        self.reason_boxes = []
        while self.fields_form.rowCount():
            self.fields_form.removeRow(0)
        self.field_edits = {}
        for k, reason in enumerate((info.reasons if info else [])[:9]):
            box = QCheckBox(f"{k + 1}  {reason}")
            box.setProperty("reason", reason)
            box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            box.toggled.connect(lambda _b: self._changed())
            self.reasons_layout.addWidget(box)
            self.reason_boxes.append(box)
        for spec in (info.fields if info else []):
            if spec["type"] in ("choice", "yes_no"):
                w = QComboBox()
                w.addItems([""] + (spec["choices"] if spec["type"] == "choice" else ["yes", "no"]))
                w.currentIndexChanged.connect(lambda _i: self._changed())
                w.installEventFilter(self._typing_filter)
            else:
                w = QLineEdit()
                unit = f" ({spec['unit']})" if spec.get("unit") else ""
                w.setPlaceholderText(("number" if spec["type"] == "number" else "text") + unit)
                w.textEdited.connect(lambda _t: self._changed())
            w.setObjectName(f"field:{spec['name']}")
            self.fields_form.addRow(spec["name"], w)
            self.field_edits[spec["name"]] = w
        self.fields_box.setVisible(bool(self.field_edits))
        self.reasons_box.setVisible(bool(self.reason_boxes))

    def tab_chain(self) -> list[QWidget]:
        """The widgets Tab moves through, in order: the fields, then the comment."""
        return [*self.field_edits.values(), self.comment]

    def fill(self, saved: ratings.RatingView | None) -> None:
        """Show the rater's stored rating of an item (None: nothing ticked, fields and comment empty)."""
        self._filling = True
        try:
            for b in self.reason_boxes:
                b.setChecked(bool(saved) and b.property("reason") in saved.reasons)
            for name, w in self.field_edits.items():
                value = saved.fields.get(name) if saved else None
                text = "" if value is None else ("yes" if value is True else "no" if value is False
                                                 else f"{value:g}" if isinstance(value, float) else str(value))
                if isinstance(w, QComboBox):
                    w.setCurrentIndex(max(0, w.findText(text)))
                else:
                    w.setText(text)
            self.comment.setText((saved.comment or "") if saved else "")
        finally:
            self._filling = False

    def show_verdict(self, verdict: str | None) -> None:
        """Check the button of ``verdict`` (None: none) in its colour."""
        self.verdict_group.setExclusive(False)
        for v, b in self.verdict_buttons.items():
            b.setChecked(v == verdict)
            b.setStyleSheet(f"background: {VERDICT_COLOURS[v]}; color: white; font-weight: bold"
                            if v == verdict else "")
        self.verdict_group.setExclusive(True)

    def set_verdicts_enabled(self, enabled: bool) -> None:
        """Enable the verdict buttons (an item is shown) or disable them (none is)."""
        for b in self.verdict_buttons.values():
            b.setEnabled(enabled)

    def toggle_reason(self, k: int) -> None:
        """Tick or untick the k-th reason (0-based; number key k+1); nothing when there is no such reason."""
        if 0 <= k < len(self.reason_boxes):
            self.reason_boxes[k].toggle()

    def reasons(self) -> list[str]:
        """The ticked reasons, in the set's order."""
        return [b.property("reason") for b in self.reason_boxes if b.isChecked()]

    def fields(self) -> dict[str, Any]:
        """The documentation fields filled in, by name, as typed or chosen (empty ones left out)."""
        out: dict[str, Any] = {}
        for name, w in self.field_edits.items():
            value = w.currentText() if isinstance(w, QComboBox) else w.text()
            if value.strip():
                out[name] = value
        return out

    def comment_text(self) -> str | None:
        """The comment, stripped; None when empty."""
        return self.comment.text().strip() or None

    def _changed(self) -> None:
        if not self._filling:
            self.edited.emit()
