"""The selected mark in the Properties panel: its label (a chooser), its geometry in pixels (editable) and in
metres where calibrated, its frame, track and attributes.

Shown under the media's properties while exactly one stored box, ruler, polygon, polyline or points mark is
selected on the canvas (a shape's vertices are edited on the canvas; here its vertex count, area and length); the facts
come from ``annotations.mark_facts``. A label chosen or a number typed is an undoable edit of the viewer's stack
(``SetLabel``, ``MoveBox``, ``MoveRuler`` through the annotation controller's ``apply``), so the canvas, the
annotation list and linked ground truths follow it as they follow a drag.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel, QWidget

from fieldstudio.core.errors import FieldstudioError

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from fieldstudio.annotations.mark_facts import MarkFacts
    from fieldstudio.gui.state import ViewState
    from fieldstudio.store.edits import Edit

NO_LABEL = "(no label)"
BOX_FIELDS = ("x", "y", "width", "height")
RULER_FIELDS = ("x1", "y1", "x2", "y2")


class MarkPropertiesPanel(QGroupBox):
    """One selected box, ruler or shape (hidden otherwise). ``follow(state, apply, changed)`` wires it: the state's
    selection and project, ``apply(edit) -> bool`` for its edits, ``changed`` (the viewer's edits, undo and
    redo) to read the mark again."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Selected mark", parent)
        self.setObjectName("mark_properties")
        form = self.form = QFormLayout(self)
        self.kind = QLabel("")
        self.label = QComboBox()
        self.label.setObjectName("mark_label")
        self.label.setToolTip("The mark's label (an undoable edit)")
        self.spins: list[QDoubleSpinBox] = []
        self.spin_labels: list[QLabel] = []
        form.addRow("Kind", self.kind)
        form.addRow("Label", self.label)
        for i in range(4):
            spin = QDoubleSpinBox()
            spin.setObjectName(f"mark_geometry_{i}")
            spin.setDecimals(1)
            spin.setRange(-1e6, 1e6)
            spin.setSuffix(" px")
            spin.setKeyboardTracking(False)
            spin.editingFinished.connect(self._geometry_typed)
            caption = QLabel("")
            form.addRow(caption, spin)
            self.spins.append(spin)
            self.spin_labels.append(caption)
        self.metres = QLabel("")
        self.metres.setObjectName("mark_metres")
        self.metres.setWordWrap(True)
        self.frame = QLabel("")
        self.track = QLabel("")
        self.track.setObjectName("mark_track")
        self.track.setWordWrap(True)
        self.attributes = QLabel("")
        self.attributes.setWordWrap(True)
        self.metres_caption = QLabel("Metres")
        self.geometry = QLabel("")
        self.geometry.setObjectName("mark_shape_geometry")
        self.geometry.setWordWrap(True)
        form.addRow("Geometry", self.geometry)
        form.addRow(self.metres_caption, self.metres)
        form.addRow("Frame", self.frame)
        form.addRow("Track", self.track)
        form.addRow("Attributes", self.attributes)
        self.label.activated.connect(self._label_chosen)
        self.facts: MarkFacts | None = None
        self.state: ViewState | None = None
        self._apply: Callable[[Edit], bool] = lambda _edit: False
        self.hide()

    def follow(self, state: ViewState, apply: Callable[[Edit], bool], changed: SignalInstance) -> None:
        """Show the mark ``state.selection`` names; edits go through ``apply``; ``changed`` reads it again."""
        self.state, self._apply = state, apply
        state.events.selection.connect(lambda _ids: self.refresh())
        state.events.project.connect(lambda _p: self.refresh())
        changed.connect(self.refresh)

    def refresh(self) -> None:
        """Read the selected mark again (hidden unless exactly one stored mark with a geometry is selected)."""
        state = self.state
        ids = state.selection if state is not None and state.project is not None else ()
        self.facts = None
        if len(ids) == 1:  # the store is imported only then: never during the window's cold start
            from fieldstudio.annotations.mark_facts import mark_facts

            try:
                self.facts = mark_facts(state.project, ids[0])
            except (FieldstudioError, ValueError):
                self.facts = None
        if self.facts is None:
            self.hide()
            return
        self._show(self.facts)
        self.show()

    def _show(self, facts: MarkFacts) -> None:
        from fieldstudio.annotations import labels
        from fieldstudio.gui.panels.box_editor import format_attributes

        rec = facts.record
        self.kind.setText(rec.kind)
        self.label.blockSignals(True)
        self.label.clear()
        for label in labels.list_labels(self.state.project, rec.kind):
            self.label.addItem(label.name, label.id)
        self.label.addItem(NO_LABEL, None)
        chosen = self.label.findData(rec.label_id) if rec.label_id else -1
        self.label.setCurrentIndex(chosen if chosen >= 0 else self.label.count() - 1)
        self.label.blockSignals(False)
        shape = facts.shape
        angle = rec.kind == "angle"  # its three points are dragged on the canvas; Properties gives the degrees
        four = rec.kind in ("box", "ruler")  # a shape's vertices are edited on the canvas, not as four numbers
        for spin in self.spins:
            self.form.setRowVisible(spin, four)
        self.form.setRowVisible(self.geometry, not four and not angle)
        self.form.setRowVisible(self.track, four or facts.track is not None)
        self.form.setRowVisible(self.metres, rec.kind != "skeleton")
        for spin, caption, name, value in zip(self.spins, self.spin_labels,
                                              BOX_FIELDS if rec.kind == "box" else RULER_FIELDS,
                                              () if angle else facts.pixels):
            caption.setText(name)
            spin.blockSignals(True)
            spin.setValue(value)
            spin.blockSignals(False)
        unit = "m²" if rec.kind == "polygon" else "m"
        self.metres.setText(f"{facts.metres:.3f} {unit} ({facts.how})" if facts.metres is not None else facts.how)
        # a box stands on its bottom edge: its width there is what a calibration can say in metres
        self.metres_caption.setText({"box": "Width at its foot", "polygon": "Area", "points": "Metres",
                                  "angle": "Angle"}.get(
            rec.kind, "Length"))
        if shape is not None:
            self.geometry.setText(shape_text(rec.kind, shape))
        elif rec.kind == "skeleton":
            self.geometry.setText(facts.how)
        self.frame.setText("the photo" if rec.frame_index is None else f"{rec.frame_index}")
        self.track.setText(("none" if facts.track is None else
                            f"#{facts.track[0]}: keyframes {facts.track[1]}–{facts.track[2]} ({facts.track[3]})")
                           + (f"\n{facts.track_note}" if facts.track_note else ""))
        self.attributes.setText(format_attributes(rec.attributes) or "none (F2 edits them)")

    def _label_chosen(self, index: int) -> None:
        from fieldstudio.annotations import edits

        facts = self.facts
        label_id = self.label.itemData(index)
        if facts is None or label_id == facts.record.label_id:
            return
        self._apply(edits.SetLabel(self.state.project, facts.record.id, label_id))

    def _geometry_typed(self) -> None:
        from fieldstudio.annotations import edits

        facts = self.facts
        values = tuple(spin.value() for spin in self.spins)
        if facts is None or facts.record.kind not in ("box", "ruler") or all(abs(a - b) < 0.05 for a, b in zip(values, facts.pixels)):
            return
        project, rec = self.state.project, facts.record
        try:
            edit = edits.MoveBox(project, rec.id, values) if rec.kind == "box" else \
                edits.MoveRuler(project, rec.id, values[:2], values[2:])
        except FieldstudioError:  # an empty box: nothing to store
            edit = None
        if edit is None or not self._apply(edit):
            self._show(facts)  # refused (an empty box): the stored geometry again


def shape_text(kind: str, shape) -> str:  # noqa: ANN001 - annotations.shape_marks.ShapeMeasure
    """A shape's pixel geometry in words: "5 vertices, area 23,450 px², perimeter 612 px"."""
    parts = [f"{shape.vertices} {'points' if kind == 'points' else 'vertices'}"]
    if shape.area_px is not None:
        parts.append(f"area {shape.area_px:,.0f} px²")
    if kind != "points":
        parts.append(f"{'perimeter' if kind == 'polygon' else 'length'} {shape.length_px:,.0f} px")
    return ", ".join(parts)
