"""The label of a new mark, asked at the pointer: a small menu of the kind's labels that Enter, a key 1-9 or
a click answers.

A box drawn used to take the current label silently. The chooser opens where the mouse was released, with
the current label (the one the last mark of that kind got) highlighted, so Enter keeps it; the key beside a
label picks it (Annotate ▸ Labels… sets the keys); Esc also keeps the current one, so a drawn mark is never
lost to the question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QColor, QIcon, QPixmap
from PySide6.QtWidgets import QMenu, QWidget

if TYPE_CHECKING:
    from PySide6.QtCore import QPoint

    from fieldstudio.annotations.labels import LabelRecord

NO_LABEL = "(no label)"


def swatch(color: str) -> QIcon:
    """A small square of the label's colour."""
    pixmap = QPixmap(12, 12)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


class LabelChooser(QMenu):
    """The labels of one kind's list (``records``, with their keys ``keys`` {label id: 1-9}), then "(no
    label)"; the action of ``current`` (a label id, None: no label) is active, so Enter picks it."""

    def __init__(self, kind: str, records: list[LabelRecord], keys: dict[str, int], current: str | None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("label_chooser")
        self.setToolTipsVisible(True)
        title = self.addAction(f"Label of the new {kind}  (Enter keeps the current one)")
        title.setEnabled(False)
        self.choices: list[QAction] = []
        for rec in records:
            key = keys.get(rec.id)
            action = self.addAction(swatch(rec.color), f"&{key}  {rec.name}" if key else f"    {rec.name}")
            action.setData(rec.id)
            self.choices.append(action)
        none = self.addAction(NO_LABEL)
        none.setData(None)
        self.choices.append(none)
        self.setActiveAction(next((a for a in self.choices if a.data() == current), none))

    def choose(self, at: QPoint) -> tuple[bool, str | None]:
        """Show at ``at`` (global pixels) and wait: (True, label id or None) when a label or "(no label)" was
        chosen, (False, None) when the menu was closed without a choice."""
        action = self.exec(at)
        if action is None or action not in self.choices:
            return False, None
        return True, action.data()
