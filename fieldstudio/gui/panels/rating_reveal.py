"""What rater mode shows only when blind mode is off: the other raters' and the scorer's verdicts on the
item, and, when the rater asks, the acceptability measures with each rule term and the measured target
box (and the other boxes, the possible occluders) drawn on the picture (issue 10, item 4).

Reads through ``ratings.review``; measuring runs in a worker (``rating_review.measure_item``).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QGroupBox, QLabel, QPushButton, QVBoxLayout, QWidget

from fieldstudio.gui import workers
from fieldstudio.gui.viewer.canvas import Canvas
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.ratings import review as rating_review
from fieldstudio.store.project import Project

VERDICT_COLOURS = {"accept": "#2e7d32", "reject": "#c62828", "unsure": "#9e9d24"}
STATUS_COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "gray": "#9e9d24"}
TARGET_PASS, TARGET_FAIL, OTHER_BOX = "#2e7d32", "#c62828", "#ffb300"


def esc(text: str) -> str:
    """``text`` safe inside a rich-text label."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class RevealBox(QGroupBox):
    """The open (not blind) view of one item, drawing its boxes on ``canvas``.

    Signal ``status(str)``. The owner calls :meth:`show_item` when the item changes, :meth:`clear` when
    blind mode is turned on, :meth:`redraw` after a new picture was set on the canvas.
    """

    status = Signal(str)

    def __init__(self, canvas: Canvas, parent: QWidget | None = None):
        super().__init__("Other verdicts and measures (blind mode off)", parent)
        self.canvas = canvas
        self.project: Project | None = None
        self.item: ratings.ItemView | None = None
        self.last_measures: rating_review.ItemMeasures | None = None
        self.overlays: list[QGraphicsRectItem] = []
        self._worker: workers.Worker | None = None
        self.others_label = QLabel()
        self.others_label.setObjectName("rating_others")
        self.others_label.setWordWrap(True)
        self.others_label.setTextFormat(Qt.TextFormat.RichText)
        self.measure_button = QPushButton("Measure this item (M)")
        self.measure_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.measure_button.setToolTip("Run the acceptability measures and rules on this item and draw the "
                                       "target box (M)")
        self.measure_button.clicked.connect(self.measure)
        self.measures_label = QLabel()
        self.measures_label.setObjectName("rating_measures")
        self.measures_label.setWordWrap(True)
        self.measures_label.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        for w in (self.others_label, self.measure_button, self.measures_label):
            layout.addWidget(w)

    def clear(self) -> None:
        """Forget the item's measures and remove everything shown (blind mode, or a new item)."""
        self.others_label.clear()
        self.measures_label.clear()
        self.last_measures = None
        self.clear_overlays()

    def show_item(self, project: Project | None, item: ratings.ItemView | None, rater: str) -> None:
        """List every other rating of ``item`` (other raters first, then scorers and models)."""
        self.project, self.item = project, item
        self.clear()
        self.measure_button.setEnabled(item is not None)
        if project is None or item is None:
            return
        lines = []
        for r in rating_review.others_on_item(project, item.id, rater):
            colour = VERDICT_COLOURS.get(r.verdict, "#000")
            why = f" — {', '.join(r.reasons)}" if r.reasons else ""
            note = f" <i>“{esc(r.comment)}”</i>" if r.comment else ""
            lines.append(f"{esc(r.rater)}: <b style='color:{colour}'>{r.verdict}</b>{esc(why)}{note}")
        stored = rating_review.stored_source_verdict(project, item.id)
        if stored and stored["failing"]:
            lines.append("scorer's failing terms: " + esc(", ".join(stored["failing"])))
        self.others_label.setText("<br>".join(lines) or "No one else has rated this item.")

    def measure(self) -> None:
        """Measure the item in the background, then list each rule term and draw the target box."""
        if self.project is None or self.item is None:
            return
        self.measures_label.setText("Measuring…")
        item_id = self.item.id
        worker = workers.Worker(rating_review.measure_item, self.project, item_id)
        worker.signals.result.connect(lambda m: self._show_measures(item_id, m))
        worker.signals.error.connect(lambda msg: self.measures_label.setText(esc(f"Could not measure: {msg}")))
        self._worker = workers.start(worker)

    def _show_measures(self, item_id: str, m: rating_review.ItemMeasures) -> None:
        if self.item is None or item_id != self.item.id or not self.isVisible():
            return
        self.last_measures = m
        if m.verdict is None:
            self.measures_label.setText(esc(f"Could not measure: {m.measured.error}"))
            return
        colour = VERDICT_COLOURS[m.verdict.verdict]
        rows = [f"Rules: <b style='color:{colour}'>{m.verdict.verdict}</b> (target: {esc(m.measured.target_source)})"]
        for t in m.terms:
            v = t.value
            shown = "unknown" if v is None else str(v).lower() if isinstance(v, bool) else f"{float(v):.4g}"
            rows.append(f"<span style='color:{STATUS_COLOURS[t.status]}'>{t.status}</span> "
                        f"{esc(t.term)} = {shown}" + (f" <i>({esc(t.reason)})</i>" if t.status == "fail" else ""))
        self.measures_label.setText("<br>".join(rows))
        self.status.emit(f"Rules: {m.verdict.verdict} — {', '.join(m.verdict.failing) or 'no term failed'}")
        self.redraw()

    def redraw(self) -> None:
        """Draw the measured target box (red when the rules reject, else green) and the other boxes."""
        self.clear_overlays()
        m = self.last_measures
        if m is None or self.item is None or m.measured.item_id != self.item.id or not self.isVisible():
            return
        rejected = m.verdict is not None and m.verdict.verdict == "reject"
        boxes = [(m.measured.target_box, TARGET_FAIL if rejected else TARGET_PASS, 3)]
        boxes += [(b, OTHER_BOX, 1) for b in m.measured.others]
        for box, colour, width in boxes:
            if not box:
                continue
            x1, y1, x2, y2 = box
            r = QGraphicsRectItem(QRectF(x1, y1, x2 - x1, y2 - y1))
            pen = QPen(QColor(colour), width)
            pen.setCosmetic(True)
            r.setPen(pen)
            r.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            r.setZValue(20)
            self.canvas.scene().addItem(r)
            self.overlays.append(r)

    def clear_overlays(self) -> None:
        for r in self.overlays:
            self.canvas.scene().removeItem(r)
        self.overlays.clear()
