"""The label each kind of mark gets next: a box, a ruler, a segment and an event each keep their own.

The active kind (``ViewState.mark_kind``: the box or ruler tool's, or the kind last marked or selected) is
the one keys 1-9 change and the status bar names ("box label: person").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from fieldstudio.core.errors import FieldstudioError

if TYPE_CHECKING:
    from fieldstudio.gui.state import ViewState

NO_LABEL_COLOR = "#f5f5f5"


class MarkLabels(QObject):
    """The current label per kind of mark, and the colours of the project's labels.

    Signal ``label_shown(text)``: the status bar's read-out of the active kind's label ("" where no mark
    can be made: a document, the welcome page).
    """

    label_shown = Signal(str)

    def __init__(self, state: ViewState, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self._chosen: dict[str, str | None] = {}  # kind -> label picked by the user (None: unlabelled)
        self._colors: dict[str, str] = {}
        state.events.mark_kind.connect(lambda _k: self.show())
        state.events.media.connect(lambda _m: self.show())

    def forget(self) -> None:
        """A new project (or none): no label picked for any kind."""
        self._chosen = {}

    def reload(self) -> None:
        """Read the project's labels again (their colours; a picked label deleted or taken out of its kind's
        list falls back to the kind's default)."""
        from fieldstudio.annotations import labels
        from fieldstudio.gui import opened_reads

        project = self.state.project
        self._colors = {}
        if project is not None:  # a project just opened: as its worker read them (gui/opened_reads.py)
            records = opened_reads.take(self.state, project, opened_reads.LABELS, lambda: labels.list_labels(project))
            self._colors = {r.id: r.color for r in records}
            offered = {r.id: r for r in records}
            for kind, label_id in list(self._chosen.items()):
                if label_id is not None and (label_id not in offered or not offered[label_id].offered_for(kind)):
                    del self._chosen[kind]  # deleted, or no longer in that kind's list: back to the default
        self.show()

    def label_of(self, kind: str) -> str | None:
        """The label a new mark of ``kind`` gets: the one picked for that kind, else the kind's default
        (``labels.default_label``: "distance" for a ruler), else None (unlabelled)."""
        from fieldstudio.annotations import labels

        if kind in self._chosen:
            return self._chosen[kind]
        if self.state.project is None:
            return None
        record = labels.default_label(self.state.project, kind)
        return record.id if record is not None else None

    def picked(self, kind: str) -> bool:
        """True when the user picked a label (or none) for ``kind``, rather than leaving its default."""
        return kind in self._chosen

    def set_label(self, kind: str, label_id: str | None) -> None:
        """Make ``label_id`` the current label of ``kind`` (None: unlabelled)."""
        self._chosen[kind] = label_id
        self.show()

    def text(self) -> str:
        """The status bar's read-out: the active kind and its current label."""
        from fieldstudio.annotations import labels

        kind, project = self.state.mark_kind, self.state.project
        label_id = self.label_of(kind)
        name = None
        if label_id is not None and project is not None:
            try:
                name = labels.get_label(project, label_id).name
            except FieldstudioError:
                name = None
        if name is None and kind == "ruler":
            name = labels.DEFAULT_LABEL_NAMES["ruler"]
        return f"{kind} label: {name or '(none)'}"

    def show(self) -> None:
        """Emit ``label_shown`` with the read-out (empty on a document or with no project)."""
        media = self.state.media
        marks_possible = self.state.project is not None and media is not None and media.kind in ("image", "video")
        self.label_shown.emit(self.text() if marks_possible else "")

    def color(self, label_id: str | None) -> str:
        """The colour of ``label_id`` (#rrggbb); a light grey for no label."""
        return self._colors.get(label_id, NO_LABEL_COLOR) if label_id else NO_LABEL_COLOR
